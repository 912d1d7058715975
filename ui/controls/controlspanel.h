#pragma once

#include <QHash>
#include <QWidget>

#include <string_view>

class QCheckBox;
class QGroupBox;
class QVBoxLayout;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace memwall::ui {

class LogSlider;
class OptionControl;
class PresetPicker;
class ScenarioDocument;
class WhatIfGroup;

/// The controls dock: device, model, workload, precisions, parallelism, options and the hardware what-if group.
/// Every control writes only through the ScenarioDocument (slider drags merge into one undo step) and is written back
/// from the document on analysisChanged() under QSignalBlocker, so nothing echoes.
class ControlsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ControlsPanel(ScenarioDocument *doc, QWidget *parent = nullptr);

    PresetPicker *devicePicker() const { return m_device; }
    PresetPicker *modelPicker() const { return m_model; }
    QComboBox *phaseCombo() const { return m_phase; }
    LogSlider *batchSlider() const { return m_batch; }
    LogSlider *promptSlider() const { return m_seq; }
    LogSlider *contextSlider() const { return m_context; }
    LogSlider *outputSlider() const { return m_output; }
    /// The line under the lengths that says which prompt and output the search and the timeline serve.
    QLabel *requestNote() const { return m_requestNote; }
    QComboBox *weightsCombo() const { return m_weights; }
    QComboBox *activationsCombo() const { return m_activations; }
    QComboBox *kvCombo() const { return m_kv; }
    QSpinBox *tpSpin() const { return m_tp; }
    QSpinBox *ppSpin() const { return m_pp; }
    QSpinBox *dpSpin() const { return m_dp; }
    QCheckBox *fusedAttentionCheck() const { return m_fused; }
    QCheckBox *kvCacheCheck() const { return m_kvCache; }
    QComboBox *efficiencyCombo() const { return m_efficiency; }
    WhatIfGroup *whatIfGroup() const { return m_whatIf; }
    /// The generic control of a table option without a hand-made one ("ep", "zero_stage"), or nullptr.
    OptionControl *optionControl(const QString &key) const { return m_optionControls.value(key); }
    /// Shows the document's analysisError() (e.g. "tp 3 does not divide the 64 attention heads").
    QLabel *errorLabel() const { return m_error; }

signals:
    /// The "Open config.json…" button was pressed (the window owns the file dialog).
    void openConfigRequested();
    /// A one-line message for the status bar (a typed preset id that does not exist).
    void statusMessage(const QString &message);

public slots:
    /// Writes the document's state into every control, without echo.
    void syncFromDocument();

private:
    QWidget *buildModelGroup();
    QWidget *buildWorkloadGroup();
    QWidget *buildPrecisionGroup();
    QWidget *buildParallelGroup();
    QWidget *buildOptionsGroup();
    void fillPresets();
    LogSlider *lengthSlider(std::string_view key, const char *name);
    void addTableOptions(QVBoxLayout *layout);
    /// The Images control: enabled only for a model with a vision tower, its tooltip saying why not.
    void syncImagesControl();

    ScenarioDocument *m_doc;
    QLabel *m_error = nullptr;
    PresetPicker *m_device = nullptr;
    PresetPicker *m_model = nullptr;
    QPushButton *m_openConfig = nullptr;
    QComboBox *m_phase = nullptr;
    LogSlider *m_batch = nullptr;
    LogSlider *m_seq = nullptr;
    LogSlider *m_context = nullptr;
    LogSlider *m_output = nullptr;
    QLabel *m_requestNote = nullptr;
    QComboBox *m_weights = nullptr;
    QComboBox *m_activations = nullptr;
    QComboBox *m_kv = nullptr;
    QSpinBox *m_tp = nullptr;
    QSpinBox *m_pp = nullptr;
    QSpinBox *m_dp = nullptr;
    QCheckBox *m_fused = nullptr;
    QCheckBox *m_kvCache = nullptr;
    QComboBox *m_efficiency = nullptr;
    WhatIfGroup *m_whatIf = nullptr;
    QHash<QString, QGroupBox *> m_groups;             ///< by the option table's group name
    QHash<QString, OptionControl *> m_optionControls; ///< by option key
};

} // namespace memwall::ui
