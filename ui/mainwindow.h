#pragma once

#include <QMainWindow>

namespace memwall::ui {

class ScenarioDocument;

/// Assembles docks, charts, menus and actions around one ScenarioDocument — nothing else.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(ScenarioDocument *doc, QWidget *parent = nullptr);

    /// Opens a scenario file; a broken file shows a message and changes nothing.
    bool openScenario(const QString &path);
    /// Shows skipped preset files (if any) in the status bar and a dialog-free notification.
    void reportPresetIssues();

private:
    ScenarioDocument *m_doc;
};

} // namespace memwall::ui
