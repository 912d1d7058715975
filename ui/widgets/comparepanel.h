#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QTableWidget;
class QToolButton;

namespace memwall::ui {

class PresetPicker;
class ScenarioDocument;

/// Compare mode: sets up scenario B — the document's model and scenario (A) with, optionally, another device
/// (type-to-search over the hardware presets) and other weight, KV-cache and activation formats — and shows the
/// headline metrics of A and B side by side with their ratio. "None" turns comparison off; choosing a format while
/// it is off compares A with itself in that format. Put it in a dock; charts that overlay B read
/// ScenarioDocument::compare()/compareAnalysis() themselves.
class ComparePanel : public QWidget
{
    Q_OBJECT
public:
    /// The characters the picker and the format combos are sized for (their lists show the whole names).
    static constexpr int kComboChars = 14;
    explicit ComparePanel(ScenarioDocument *doc, QWidget *parent = nullptr);

    /// Item id of the device picker's "Same device as A" entry (the "None" entry has the empty id).
    static QString sameDeviceId();

    /// Sets device B by preset id; sameDeviceId() runs B on A's device; an empty or unknown id turns comparison off.
    void setCompareId(const QString &id);
    QTableWidget *table() const { return m_table; }
    PresetPicker *picker() const { return m_picker; }
    /// B's format pickers; item 0 is "same as A", the others carry the same data as the controls panel's.
    QComboBox *weightsPicker() const { return m_weights; }
    QComboBox *kvPicker() const { return m_kv; }
    QComboBox *activationsPicker() const { return m_activations; }
    QLabel *statusLabel() const { return m_status; }
    /// True while the panel is hidden in a window on screen (its dock closed, or a tab behind another) and the
    /// document changed since it was last drawn: it catches up when shown.
    bool isStale() const { return m_stale; }

protected:
    void showEvent(QShowEvent *event) override;

private:
    /// analysisChanged(): refresh(), unless nobody can see the panel (a slider tick then skips B's metrics).
    void followDocument();
    void refresh();
    void swap();
    void applyPrecision();

    ScenarioDocument *m_doc;
    PresetPicker *m_picker;
    QToolButton *m_swap;
    QComboBox *m_weights;
    QComboBox *m_kv;
    QComboBox *m_activations;
    QTableWidget *m_table;
    QLabel *m_status;
    QString m_pickerTip;
    bool m_stale = false;
};

} // namespace memwall::ui
