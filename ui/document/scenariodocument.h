#pragma once

#include "core/analysis/analysis.h"
#include "core/analysis/limits.h"
#include "core/analysis/serving.h"
#include "core/io/presets.h"
#include "core/io/scenariofile.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <memory>
#include <optional>

namespace memwall::ui {

/// The device's name without its vendor's first word ("NVIDIA H100 SXM5 80GB" -> "H100 SXM5 80GB"), for legends
/// and table headers; the id when it has no name.
QString deviceNameWithoutVendor(const core::HardwareSpec &hw);

/// Scenario B of compare mode: the document's model and scenario (A) with optional overrides. An override left
/// empty follows A, so B tracks every edit of A (batch, context, parallelism ...) and differs only where asked.
struct CompareSpec
{
    std::optional<core::HardwareSpec> hardware; ///< another device (as published); empty: A's device, what-if included
    std::optional<core::WeightFormat> weights;  ///< B's weight storage format (core::Scenario::weights)
    std::optional<core::DType> kv;              ///< B's KV-cache format
    std::optional<core::DType> activations;     ///< B's activation format

    /// True when no override is set (B equals A).
    bool isEmpty() const { return !hardware && !weights && !kv && !activations; }
};

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
    /// The largest batch and context that fit one device (exact; the same figure in every chart, lesson and the CLI).
    /// Computed on first use after a change (about 50 analyses), so a slider tick pays for it only while a view
    /// that shows it (the sweep) is on screen.
    const core::FitLimits &fitLimits() const;
    /// A report computed from the current scenario, or the one line saying why it could not be.
    template <class Report>
    struct Computed
    {
        std::optional<Report> report;
        QString error;
    };
    /// The serving report (core::serve(): the request as the scenario serves it, its timeline, energy and cost),
    /// computed once per change when a view first asks, and shared by the headline and the charts. No report, with
    /// the analysis error, when the analysis failed.
    const Computed<core::ServingReport> &serving() const;
    /// The offload report (core::offload()), once per change; neither report nor error when nothing is offloaded.
    const Computed<core::OffloadReport> &offloadReport() const;
    /// Empty when the current combination is valid; else one line saying why not (the previous analysis is kept).
    const QString &analysisError() const { return m_error; }

    // ---- compare mode: scenario B (view state, not undoable; changes emit analysisChanged()) ----
    /// B's overrides; empty when compare mode is off.
    const std::optional<CompareSpec> &compare() const { return m_compare; }
    bool isComparing() const { return m_compare.has_value(); }
    /// B's device override; empty when B runs on A's device (or compare mode is off).
    const std::optional<core::HardwareSpec> &compareHardware() const;
    /// The device B runs on: the override, else A's device with its what-if factors. Meaningful while comparing.
    const core::HardwareSpec &compareDevice() const
    {
        return m_compare && m_compare->hardware ? *m_compare->hardware : m_effective;
    }
    /// A's scenario with B's precision overrides applied. Meaningful while comparing.
    const core::Scenario &compareScenario() const { return m_compareScenario; }
    /// B's analysis; empty when compare mode is off or B does not analyse (compareError() says why).
    const std::optional<core::Analysis> &compareAnalysis() const { return m_compareAnalysis; }
    /// One line saying why B does not analyse; empty otherwise.
    const QString &compareError() const { return m_compareError; }
    /// What B changes against A, for labels: "Instinct MI300X, int4 weights" (the device without its vendor),
    /// "fp8 KV cache", "same as A".
    /// Constant for a given B (it does not follow batch or context), so legends naming it never re-lay out on a tick.
    QString compareSummary() const;
    /// "B: " + compareSummary(); empty when compare mode is off.
    QString compareLabel() const;

    int selectedOperator() const { return m_selected; }

    // ---- edits (undoable; a run of edits of the same `mergeKey` merges into one step, e.g. a slider drag) ----
    void setScenario(const core::Scenario &s, const QString &text, int mergeKey = -1);
    void setHardware(const core::HardwareSpec &hw, bool inlineSpec = false);
    void setHardwareById(const QString &id);
    /// Also adapts the scenario to the model in the same undo step (core::adaptToModel()), and drops its images
    /// when the model has no vision tower.
    void setModel(const core::ModelShape &m, bool inlineShape = false);
    void setModelById(const QString &id);
    void setWhatIf(const core::WhatIf &w, int mergeKey = -1);
    /// Replaces everything (open file, lesson step). Undoable unless `resetHistory`.
    void setFile(const core::ScenarioFile &f, const QString &text, bool resetHistory = false);

    /// Not undoable: view state. An empty spec turns compare mode off; a spec with no override compares A with itself.
    void setCompare(const std::optional<CompareSpec> &spec);
    /// Shorthand: compare with device `hw`, keeping B's precision overrides; empty turns compare mode off.
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
    /// The scenario as a `memwall:` link (core/io/scenariolink.h); empty with `error` set when it cannot be one (a
    /// custom model too large for a link).
    QString link(QString *error) const;
    /// Opens a `memwall:` link as one undo step. The document becomes untitled, as a new one: Save asks for a name
    /// rather than writing the link's scenario over the file opened before (undo brings the scenario back, not the
    /// name). On failure (a bad link, or a scenario that does not analyse) nothing changes and `error` holds one
    /// line.
    bool openLink(const QString &link, QString *error);
    /// True when the file is a MemWall scenario (by name, or by "kind": "scenario" inside); anything else dropped on
    /// the window is read as a model config.
    static bool isScenarioFile(const QString &path);
    /// The scenario of a first launch (no scenario to reopen): the current model split over the fewest devices
    /// (tensor parallelism 1, 2, 4 or 8) whose memory holds it, with a fresh history.
    void startFirstLaunch();

    /// Applies a state without an undo entry (used by the undo command itself).
    void applyState(const core::ScenarioFile &f);

    /// Merge keys for slider-like edits.
    enum MergeKey {
        BatchKey = 1,
        SeqKey,
        ContextKey,
        OutputKey,
        WhatIfComputeKey,
        WhatIfBandwidthKey,
        WhatIfCapacityKey
    };

signals:
    /// The scenario or the analysis changed (one signal for every view).
    void analysisChanged();
    void selectionChanged(int index);
    void filePathChanged(const QString &path);
    void modifiedChanged(bool modified);

private:
    void push(const core::ScenarioFile &after, const QString &text, int mergeKey);
    void recompute();
    void recomputeCompare();

    std::shared_ptr<const core::PresetLibrary> m_presets;
    core::ScenarioFile m_file;
    core::HardwareSpec m_effective;
    core::Analysis m_analysis;
    mutable std::optional<core::FitLimits> m_limits;                ///< empty until fitLimits() asks, after each change
    mutable std::optional<Computed<core::ServingReport>> m_serving; ///< likewise, for serving()
    mutable std::optional<Computed<core::OffloadReport>> m_offload; ///< likewise, for offloadReport()
    QString m_error;
    std::optional<CompareSpec> m_compare;
    core::Scenario m_compareScenario;
    std::optional<core::Analysis> m_compareAnalysis;
    QString m_compareError;
    int m_selected = -1;
    QUndoStack m_undo;
    QString m_path;
};

} // namespace memwall::ui
