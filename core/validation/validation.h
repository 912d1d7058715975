#pragma once

#include "core/analysis/analysis.h"
#include "core/analysis/scenario.h"
#include "core/analysis/serving.h"
#include "core/model/dtype.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

class PresetLibrary;

/// What a published run measured.
enum class RunMetric {
    DecodeTokensPerS, ///< tokens per second of one sequence: generated tokens / (prefill + generation)
    OutputTokensPerS, ///< generated tokens per second of all sequences together, prefill included
    TtftS,            ///< time to first token
    TpotS,            ///< time per output token
    E2eS,             ///< the whole request
    /// Time per output token of aggregated serving at a steady concurrency of `batch` requests: while a request
    /// decodes its `output` tokens, the engine also prefills the prompts of the requests that replace the batch, so
    /// each step carries 1/output of the batch's prefill: tpot + ttft / output (no fitted term).
    ServedTpotS
};
std::string_view toString(RunMetric m);
std::optional<RunMetric> runMetricFromString(std::string_view s);

/// One public measured end-to-end run (presets/validation/runs.json): the settings, the figure and its source.
struct MeasuredRun
{
    std::string id;
    std::string model;  ///< model preset id
    std::string device; ///< hardware preset id
    int tp = 1, pp = 1;
    int attentionDp = 1;      ///< attention data parallelism (the engines' DP attention)
    int moeTp = 0, moeEp = 0; ///< the routed experts' split; 0: derived (Scenario::moeTp)
    int64_t batch = 1, inputTokens = 1, outputTokens = 1;
    /// The engine's token budget per step (Scenario::maxBatchedTokens): set, the run is served at a steady
    /// concurrency of `batch` and its TTFT and TPOT are the admitted request's (servedRequest()); 0: one batch.
    int64_t maxBatchedTokens = 0;
    Arrivals arrivals = Arrivals::Spread; ///< how its client sent the requests (Scenario::arrivals)
    WeightFormat weights;
    std::optional<WeightFormat> expertWeights; ///< routed experts' format when it differs from `weights`
    DType activations = DType::FP16;
    DType kv = DType::FP16;
    Execution execution = Execution::Graphs;
    AllReduce allReduce = AllReduce::Library;                    ///< whose all-reduce the run's tensor parallelism used
    ActivationScales activationScales = ActivationScales::Fused; ///< how its FP8 activations were quantized
    ExpertActivations expertActivations = ExpertActivations::Same; ///< its MXFP4 experts' kernel input
    std::string framework;
    RunMetric metric = RunMetric::DecodeTokensPerS;
    double value = 0;
    std::string source;
    std::string notes;
};

/// Reads a validation set: {"kind": "validation", "schema": 1, "runs": [...]} (schema: presets/README.md).
/// Throws InputError naming the file, the run and the field.
std::vector<MeasuredRun> runsFromJson(const nlohmann::json &j, const std::string &file);
/// The validation set compiled into the program (presets/validation/runs.json): the set the achievable band
/// (kAchievableBand) is taken from.
std::vector<MeasuredRun> builtinRuns();
/// A named set compiled into the program: presets/validation/NAME.json ("runs", "moe-served"). Throws InputError
/// naming the sets there when there is none of that name.
std::vector<MeasuredRun> builtinRunSet(std::string_view name);
/// The names of the compiled-in sets, sorted.
std::vector<std::string> builtinRunSets();

/// The scenario a run was measured in (phase generate: the prompt, then the output tokens), of model `m`: what
/// adaptToModel() takes from the model's checkpoint, as `memwall analyze --model` does, then the run's own formats
/// (the embedding and LM head stay 16-bit where the checkpoint keeps them so).
Scenario scenarioFor(const MeasuredRun &run, const ModelShape &m, EfficiencyMode mode);
/// The run's metric as an analysis of scenarioFor() predicts it.
double predictedValue(const MeasuredRun &run, const Analysis &a);
/// The run's metric as the request served by the run's engine admission predicts it (runs with max_batched_tokens):
/// TTFT and TPOT are the served request's, served_tpot_s = tpot + ttft / output, rates from its end to end.
double servedValue(const MeasuredRun &run, const ServedRequest &q);
/// The run's metric predicted on `hw` for `m` at `mode`: servedValue() with max_batched_tokens, else
/// predictedValue(). Throws AnalysisError as analyze() does.
double predict(const HardwareSpec &hw, const ModelShape &m, const MeasuredRun &run, EfficiencyMode mode);
/// Predicted time over measured time (> 1: the prediction is slower than the run).
double timeRatio(const MeasuredRun &run, double predicted);
/// A value of the run's metric as a time, so that runs of every metric share one axis: a rate becomes the time of
/// the tokens it counts (one sequence's output for decode tokens/s, the batch's for output tokens/s); a time stays.
/// timeOf(run, predicted) / timeOf(run, run.value) = timeRatio(run, predicted).
double timeOf(const MeasuredRun &run, double value);

struct ValidatedRun
{
    MeasuredRun run;
    double ideal = 0, achievable = 0;           ///< predicted values of the run's metric
    double idealRatio = 0, achievableRatio = 0; ///< predicted time / measured time
    /// The device's preset holds microbenchmarks, so its achievable figure is a prediction. Without them the
    /// achievable figure is the ideal one, and the run counts only for the ideal's bound.
    bool predicted = false;
    std::string error; ///< the run could not be analysed (unknown preset, refused scenario): the reason, one line
};

struct ValidationSummary
{
    int runs = 0;           ///< analysed
    int failed = 0;         ///< could not be analysed
    int predicted = 0;      ///< analysed on a device with microbenchmarks: the runs the achievable figures below are of
    double medianError = 0; ///< median of |achievable time / measured time - 1|
    double worstError = 0;  ///< the largest of those
    double within25 = 0;    ///< share of runs whose achievable time is within 25 % of the measurement
    double idealBound = 0;  ///< share of analysed runs whose ideal time is not above the measured time
    double ratioLow = 0;    ///< 10th percentile of measured time / achievable time
    double ratioHigh = 0;   ///< 90th percentile
};

/// The summary of the runs that share one value of a breakdown: "family" (the model preset), "device",
/// "framework" or "metric", each for one metric (a TTFT and a TPOT error are not mixed).
struct ValidationGroup
{
    std::string by;   ///< "family", "device", "framework" or "metric"
    std::string name; ///< the value: the model preset id, device preset id, framework or metric
    RunMetric metric = RunMetric::TpotS;
    ValidationSummary summary;
};

struct ValidationReport
{
    std::vector<ValidatedRun> rows;
    ValidationSummary summary;
    std::vector<ValidationGroup> groups; ///< by metric, then family, device and framework, each sorted by name
};

/// The summary of `rows` (those with an error count as failed).
ValidationSummary summarize(const std::vector<const ValidatedRun *> &rows);

/// Analyses every run on its device and model from `lib` with the ideal and the achievable efficiency.
ValidationReport validateRuns(const std::vector<MeasuredRun> &runs, const PresetLibrary &lib);
/// `memwall validate --json`: every run (its figures, and each as a time: measured_s, ideal_s, achievable_s) and the
/// summary; the validation chart exports the same.
nlohmann::json toJson(const ValidationReport &r);

} // namespace memwall::core
