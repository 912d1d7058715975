#pragma once

#include <QWidget>

class QLabel;
class QTableWidget;
class QToolButton;

namespace memwall::ui {

class PresetPicker;
class ScenarioDocument;

/// Compare mode: picks device B (type-to-search over the hardware presets; "None" turns comparison off) and shows the
/// headline metrics of the current model and scenario on A (the document's device, with its what-if factors) and B
/// (the preset as published) side by side with their ratio. Put it in a dock; charts that overlay B read
/// ScenarioDocument::compareHardware()/compareAnalysis() themselves.
class ComparePanel : public QWidget
{
    Q_OBJECT
public:
    explicit ComparePanel(ScenarioDocument *doc, QWidget *parent = nullptr);

    /// Sets device B by preset id; an empty or unknown id turns comparison off.
    void setCompareId(const QString &id);
    QTableWidget *table() const { return m_table; }
    PresetPicker *picker() const { return m_picker; }

private:
    void refresh();
    void swap();

    ScenarioDocument *m_doc;
    PresetPicker *m_picker;
    QToolButton *m_swap;
    QTableWidget *m_table;
    QLabel *m_status;
};

} // namespace memwall::ui
