#pragma once

#include "analysis/analysis.h"
#include "io/presets.h"
#include "io/scenariofile.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <memory>
#include <optional>

namespace memwall::ui {

/// The single owner of the current scenario (device, model, inputs, what-if factors), its undo stack and the current
/// analysis. Controls change it only through undoable commands; views listen to analysisChanged() and update their
/// series in place. Recomputes synchronously (an analysis takes microseconds).
class ScenarioDocument : public QObject
{
    Q_OBJECT
public:
    explicit ScenarioDocument(std::shared_ptr<const core::PresetLibrary> presets, QObject *parent = nullptr);

    const core::PresetLibrary &presets() const { return *m_presets; }
    std::shared_ptr<const core::PresetLibrary> presetsPtr() const { return m_presets; }

    // ---- state ----
    const core::ScenarioFile &file() const { return m_file; }
    const core::Scenario &scenario() const { return m_file.scenario; }
    const core::ModelShape &model() const { return m_file.model; }
    /// The device as published (without the what-if factors).
    const core::HardwareSpec &baseHardware() const { return m_file.hardware; }
    /// The device the analysis runs on: the preset scaled by the what-if factors.
    const core::HardwareSpec &hardware() const { return m_effective; }
    const core::Analysis &analysis() const { return m_analysis; }
    /// Empty when the current combination is valid; else one line saying why not (the previous analysis is kept).
    const QString &analysisError() const { return m_error; }

    /// Optional second device for comparison (same model and scenario).
    const std::optional<core::HardwareSpec> &compareHardware() const { return m_compareHw; }
    const std::optional<core::Analysis> &compareAnalysis() const { return m_compareAnalysis; }

    int selectedOperator() const { return m_selected; }

    // ---- edits (undoable; a run of edits of the same `mergeKey` merges into one step, e.g. a slider drag) ----
    void setScenario(const core::Scenario &s, const QString &text, int mergeKey = -1);
    void setHardware(const core::HardwareSpec &hw, bool inlineSpec = false);
    void setHardwareById(const QString &id);
    void setModel(const core::ModelShape &m, bool inlineShape = false);
    void setModelById(const QString &id);
    void setWhatIf(const core::WhatIf &w, int mergeKey = -1);
    /// Replaces everything (open file, lesson step). Undoable unless `resetHistory`.
    void setFile(const core::ScenarioFile &f, const QString &text, bool resetHistory = false);

    /// Not undoable: view state.
    void setCompareHardware(const std::optional<core::HardwareSpec> &hw);
    void setSelectedOperator(int index);

    QUndoStack *undoStack() { return &m_undo; }

    // ---- file ----
    const QString &filePath() const { return m_path; }
    bool isModified() const { return !m_undo.isClean(); }
    /// Writes the scenario atomically; false with `error` set on failure (nothing is changed then). A state that does
    /// not analyse (analysisError() set) is refused: open() could not read it back.
    bool save(const QString &path, QString *error);
    /// Reads a scenario file; on failure nothing changes and `error` holds one line.
    bool open(const QString &path, QString *error);

    /// Applies a state without an undo entry (used by the undo command itself).
    void applyState(const core::ScenarioFile &f);

    /// Merge keys for slider-like edits.
    enum MergeKey { BatchKey = 1, SeqKey, ContextKey, OutputKey, WhatIfComputeKey, WhatIfBandwidthKey, WhatIfCapacityKey };

signals:
    /// The scenario or the analysis changed (one signal for every view).
    void analysisChanged();
    void selectionChanged(int index);
    void filePathChanged(const QString &path);
    void modifiedChanged(bool modified);

private:
    void push(const core::ScenarioFile &after, const QString &text, int mergeKey);
    void recompute();

    std::shared_ptr<const core::PresetLibrary> m_presets;
    core::ScenarioFile m_file;
    core::HardwareSpec m_effective;
    core::Analysis m_analysis;
    QString m_error;
    std::optional<core::HardwareSpec> m_compareHw;
    std::optional<core::Analysis> m_compareAnalysis;
    int m_selected = -1;
    QUndoStack m_undo;
    QString m_path;
};

} // namespace memwall::ui
