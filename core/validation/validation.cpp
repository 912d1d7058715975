#include "core/validation/validation.h"

#include "core/analysis/options.h"
#include "core/io/jsonreader.h"
#include "core/io/presets.h"
#include "core/util/enumnames.h"

#include <algorithm>
#include <cmath>

namespace memwall::core {

namespace {
constexpr NameTable<RunMetric, 6> kMetric{{{RunMetric::DecodeTokensPerS, "decode_tokens_per_s"},
                                           {RunMetric::OutputTokensPerS, "output_tokens_per_s"},
                                           {RunMetric::TtftS, "ttft_s"},
                                           {RunMetric::TpotS, "tpot_s"},
                                           {RunMetric::E2eS, "e2e_s"},
                                           {RunMetric::ServedTpotS, "served_tpot_s"}}};

bool isRate(RunMetric m) { return m == RunMetric::DecodeTokensPerS || m == RunMetric::OutputTokensPerS; }

DType dtypeField(JsonReader &r, std::string_view key, std::string_view fallback)
{
    const std::string text = r.string(key, fallback);
    auto t = dtypeFromString(text);
    if (!t)
        r.fail(key, "unknown number format \"" + text + "\" (use " + dtypeList() + ")");
    return *t;
}

/// A field that takes the names of the scenario option of the same key (execution, allreduce, activation_scales): the
/// option table lists them, so a new name needs no change here.
template <typename E>
E choiceField(JsonReader &r, std::string_view key, std::string_view fallback,
              std::optional<E> (*parse)(std::string_view))
{
    const std::string text = r.string(key, fallback);
    if (const std::optional<E> v = parse(text))
        return *v;
    const std::vector<std::string> &names = findOption(key)->choices;
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    r.fail(key, "must be " + list + ", got \"" + text + "\"");
}

int64_t tokens(JsonReader &r, std::string_view key)
{
    const int64_t n = r.positiveInteger(key);
    if (n > kMaxTokens)
        r.fail(key, "must be at most " + std::to_string(kMaxTokens) + ", got " + std::to_string(n));
    return n;
}

int degree(JsonReader &r, std::string_view key)
{
    const int64_t n = r.integer(key, 1);
    if (n < 1 || n > kMaxDeploymentDevices)
        r.fail(key, "must be between 1 and " + std::to_string(kMaxDeploymentDevices) + ", got " + std::to_string(n));
    return static_cast<int>(n);
}

/// A measured value: a time in seconds or a rate in tokens/s, from a microsecond (a millionth of a token per second)
/// to 1e9. Below that, a prediction over it overflows to infinity and the errors print as "-nan" (issue #42).
double measuredValue(JsonReader &r)
{
    constexpr double kLowest = 1e-6, kHighest = 1e9;
    const double v = r.number("value");
    if (!(v >= kLowest && v <= kHighest))
        r.fail("value", "must be between 1e-06 and 1e+09, got " + brief(r.node().at("value")));
    return v;
}

/// The q-th quantile (0..1) of sorted values, interpolated between neighbours.
double quantile(const std::vector<double> &sorted, double q)
{
    if (sorted.empty())
        return 0;
    const double at = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(at));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}
} // namespace

std::string_view toString(RunMetric m) { return enumName(kMetric, m); }
std::optional<RunMetric> runMetricFromString(std::string_view s) { return enumFromName(kMetric, s); }

std::vector<MeasuredRun> runsFromJson(const nlohmann::json &j, const std::string &file)
{
    JsonReader r(j, file);
    const std::string kind = r.string("kind");
    if (kind != "validation")
        r.fail("kind", "expected \"validation\", got \"" + kind + "\"");
    if (const int64_t schema = r.integer("schema", 1); schema != 1)
        r.fail("schema", "version " + std::to_string(schema) + " is newer than this MemWall understands (1)");
    r.string("notes", "");
    const nlohmann::json &items = r.array("runs");
    std::vector<MeasuredRun> runs;
    runs.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        JsonReader e = r.element(items[i], i, "runs");
        MeasuredRun run;
        run.id = e.string("id");
        for (const MeasuredRun &other : runs)
            if (other.id == run.id)
                e.fail("id", "\"" + run.id + "\" is used twice");
        run.model = e.string("model");
        run.device = e.string("device");
        run.tp = degree(e, "tp");
        run.pp = degree(e, "pp");
        run.batch = tokens(e, "batch");
        run.inputTokens = tokens(e, "input_tokens");
        run.outputTokens = tokens(e, "output_tokens");
        const std::string weights = e.string("weights");
        auto w = weightFormatFromString(weights);
        if (!w)
            e.fail("weights", "unknown weight format \"" + weights + "\"");
        run.weights = *w;
        run.activations = dtypeField(e, "activations", "fp16");
        run.kv = dtypeField(e, "kv", "fp16");
        run.execution = choiceField(e, "execution", "graphs", executionFromString);
        run.allReduce = choiceField(e, "allreduce", "library", allReduceFromString);
        run.activationScales = choiceField(e, "activation_scales", "fused", activationScalesFromString);
        run.framework = e.string("framework");
        const std::string metric = e.string("metric");
        auto m = runMetricFromString(metric);
        if (!m)
            e.fail("metric",
                   "must be decode_tokens_per_s, output_tokens_per_s, ttft_s, tpot_s, e2e_s or served_tpot_s, got \"" +
                       metric + "\"");
        run.metric = *m;
        run.value = measuredValue(e);
        run.source = e.string("source");
        if (run.source.find_first_not_of(" \t") == std::string::npos)
            e.fail("source", "must not be empty");
        run.notes = e.string("notes", "");
        e.string("quote", "");
        e.string("framework_version", "");
        e.rejectUnknown();
        runs.push_back(std::move(run));
    }
    if (runs.empty()) // a median and worst error of no runs would print as 0 %, a validation that says nothing
        r.fail("runs", "holds no run: a validation set needs at least one");
    r.rejectUnknown();
    return runs;
}

std::vector<MeasuredRun> builtinRuns()
{
    std::vector<MeasuredRun> runs;
    for (const EmbeddedFile &f : builtinPresetFiles()) {
        const std::string_view path(f.path);
        if (!path.starts_with("validation/"))
            continue;
        const std::string origin = std::string("presets/") + f.path;
        std::vector<MeasuredRun> more = runsFromJson(parseJson(f.text, origin), origin);
        runs.insert(runs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    return runs;
}

Scenario scenarioFor(const MeasuredRun &run, EfficiencyMode mode)
{
    Scenario s;
    s.phase = Phase::Generate;
    s.batch = run.batch;
    s.seq = run.inputTokens;
    s.context = run.inputTokens;
    s.output = run.outputTokens;
    s.weights = run.weights;
    s.activations = run.activations;
    s.kv = run.kv;
    s.tp = run.tp;
    s.pp = run.pp;
    s.execution = run.execution;
    s.allReduce = run.allReduce;
    s.activationScales = run.activationScales;
    s.efficiency = mode;
    return s;
}

double predictedValue(const MeasuredRun &run, const Analysis &a)
{
    const double out = static_cast<double>(run.outputTokens);
    switch (run.metric) {
    case RunMetric::DecodeTokensPerS: return a.phases.e2eS > 0 ? out / a.phases.e2eS : 0.0;
    case RunMetric::OutputTokensPerS:
        return a.phases.e2eS > 0 ? static_cast<double>(run.batch) * out / a.phases.e2eS : 0.0;
    case RunMetric::TtftS: return a.phases.ttftS;
    case RunMetric::TpotS: return a.phases.tpotS;
    case RunMetric::E2eS: return a.phases.e2eS;
    case RunMetric::ServedTpotS: return a.phases.tpotS + a.phases.ttftS / out;
    }
    return 0.0;
}

double timeRatio(const MeasuredRun &run, double predicted)
{
    if (!(predicted > 0))
        return 0.0;
    return isRate(run.metric) ? run.value / predicted : predicted / run.value;
}

double timeOf(const MeasuredRun &run, double value)
{
    if (!(value > 0))
        return 0.0;
    const double out = static_cast<double>(run.outputTokens);
    switch (run.metric) {
    case RunMetric::DecodeTokensPerS: return out / value;
    case RunMetric::OutputTokensPerS: return static_cast<double>(run.batch) * out / value;
    case RunMetric::TtftS:
    case RunMetric::TpotS:
    case RunMetric::E2eS:
    case RunMetric::ServedTpotS: return value;
    }
    return 0.0;
}

ValidationReport validateRuns(const std::vector<MeasuredRun> &runs, const PresetLibrary &lib)
{
    ValidationReport report;
    std::vector<double> errors, measuredOverAchievable;
    int bound = 0, analysed = 0;
    for (const MeasuredRun &run : runs) {
        ValidatedRun row{run, 0, 0, 0, 0, false, {}};
        const HardwareSpec *hw = lib.findHardware(run.device);
        const ModelPreset *model = lib.findModel(run.model);
        if (!hw || !model) {
            row.error =
                !hw ? "device: unknown preset \"" + run.device + "\"" : "model: unknown preset \"" + run.model + "\"";
        } else {
            try {
                row.ideal =
                    predictedValue(run, analyzeTotals(*hw, model->shape, scenarioFor(run, EfficiencyMode::Ideal)));
                row.achievable =
                    predictedValue(run, analyzeTotals(*hw, model->shape, scenarioFor(run, EfficiencyMode::Achievable)));
                row.idealRatio = timeRatio(run, row.ideal);
                row.achievableRatio = timeRatio(run, row.achievable);
                row.predicted = achievableBand(*hw, scenarioFor(run, EfficiencyMode::Achievable)).has_value();
            } catch (const AnalysisError &e) {
                row.error = e.what();
            }
        }
        if (row.error.empty()) {
            ++analysed;
            bound += row.idealRatio <= 1.0 + 1e-9 ? 1 : 0;
            if (row.predicted) {
                errors.push_back(std::abs(row.achievableRatio - 1.0));
                measuredOverAchievable.push_back(1.0 / row.achievableRatio);
            }
        }
        report.rows.push_back(std::move(row));
    }
    ValidationSummary &s = report.summary;
    s.runs = analysed;
    s.failed = static_cast<int>(runs.size()) - analysed;
    s.predicted = static_cast<int>(errors.size());
    if (analysed > 0)
        s.idealBound = static_cast<double>(bound) / static_cast<double>(analysed);
    if (errors.empty())
        return report;
    std::sort(errors.begin(), errors.end());
    std::sort(measuredOverAchievable.begin(), measuredOverAchievable.end());
    s.medianError = quantile(errors, 0.5);
    s.worstError = errors.back();
    s.within25 = static_cast<double>(std::count_if(errors.begin(), errors.end(), [](double e) { return e <= 0.25; })) /
                 static_cast<double>(errors.size());
    s.ratioLow = quantile(measuredOverAchievable, 0.1);
    s.ratioHigh = quantile(measuredOverAchievable, 0.9);
    return report;
}

nlohmann::json toJson(const ValidationReport &r)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const ValidatedRun &v : r.rows) {
        nlohmann::json row{{"id", v.run.id},
                           {"model", v.run.model},
                           {"device", v.run.device},
                           {"framework", v.run.framework},
                           {"metric", toString(v.run.metric)},
                           {"measured", v.run.value},
                           {"measured_s", timeOf(v.run, v.run.value)},
                           {"source", v.run.source}};
        if (v.error.empty()) {
            row["ideal"] = v.ideal;
            row["ideal_s"] = timeOf(v.run, v.ideal);
            row["ideal_time_ratio"] = v.idealRatio;
            row["microbenchmarks"] = v.predicted;
            if (v.predicted) {
                row["achievable"] = v.achievable;
                row["achievable_s"] = timeOf(v.run, v.achievable);
                row["achievable_time_ratio"] = v.achievableRatio;
            }
        } else {
            row["error"] = v.error;
        }
        rows.push_back(std::move(row));
    }
    const ValidationSummary &s = r.summary;
    return {{"runs", rows},
            {"summary",
             {{"analysed", s.runs},
              {"failed", s.failed},
              {"predicted", s.predicted},
              {"median_error", s.medianError},
              {"worst_error", s.worstError},
              {"within_25_percent", s.within25},
              {"ideal_not_slower", s.idealBound},
              {"measured_over_achievable_p10", s.ratioLow},
              {"measured_over_achievable_p90", s.ratioHigh}}}};
}

} // namespace memwall::core
