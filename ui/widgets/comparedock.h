#pragma once

#include <QDockWidget>

class QAction;

namespace memwall::ui {

class ComparePanel;
class ScenarioDocument;

/// The dock that holds the compare panel, and the one switch for compare mode: its toggleAction() (Ctrl+M) opens the
/// panel with its device picker, and turns compare mode off again while B is drawn. Closing the dock ends compare
/// mode too: B is never drawn without the panel that says what it is.
class CompareDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit CompareDock(ScenarioDocument *doc, QWidget *parent = nullptr);

    ComparePanel *panel() const { return m_panel; }
    QAction *toggleAction() const { return m_toggle; }

private:
    ScenarioDocument *m_doc;
    ComparePanel *m_panel;
    QAction *m_toggle;
};

} // namespace memwall::ui
