#include "core/validation/validation.h"

#include "core/analysis/options.h"
#include "core/io/jsonreader.h"
#include "core/io/presets.h"
#include "core/util/enumnames.h"

#include <algorithm>
#include <cmath>
#include <map>

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

int degree(JsonReader &r, std::string_view key, int64_t fallback = 1, int64_t lowest = 1)
{
    const int64_t n = r.integer(key, fallback);
    if (n < lowest || n > kMaxDeploymentDevices)
        r.fail(key, "must be between " + std::to_string(lowest) + " and " + std::to_string(kMaxDeploymentDevices) +
                        ", got " + std::to_string(n));
    return static_cast<int>(n);
}

WeightFormat weightField(JsonReader &r, std::string_view key)
{
    const std::string text = r.string(key);
    auto w = weightFormatFromString(text);
    if (!w)
        r.fail(key, "unknown weight format \"" + text + "\"");
    return *w;
}

/// The serving settings of a run: attention-DP, the experts' split, the engine's token budget.
void servingFields(JsonReader &e, MeasuredRun &run)
{
    run.attentionDp = degree(e, "attention_dp");
    run.moeTp = degree(e, "moe_tp", 0, 0);
    run.moeEp = degree(e, "moe_ep", 0, 0);
    run.maxBatchedTokens = e.integer("max_batched_tokens", 0);
    if (run.maxBatchedTokens < 0 || run.maxBatchedTokens > kMaxTokens)
        e.fail("max_batched_tokens",
               "must be between 0 and " + std::to_string(kMaxTokens) + ", got " + std::to_string(run.maxBatchedTokens));
    run.arrivals = choiceField(e, "arrivals", "spread", arrivalsFromString);
    if (e.node().contains("expert_weights"))
        run.expertWeights = weightField(e, "expert_weights");
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
        servingFields(e, run);
        run.weights = weightField(e, "weights");
        run.activations = dtypeField(e, "activations", "fp16");
        run.kv = dtypeField(e, "kv", "fp16");
        run.execution = choiceField(e, "execution", "graphs", executionFromString);
        run.allReduce = choiceField(e, "allreduce", "library", allReduceFromString);
        run.activationScales = choiceField(e, "activation_scales", "fused", activationScalesFromString);
        run.expertActivations = choiceField(e, "expert_activations", "same", expertActivationsFromString);
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

std::vector<std::string> builtinRunSets()
{
    std::vector<std::string> names;
    for (const EmbeddedFile &f : builtinPresetFiles()) {
        const std::string_view path(f.path);
        if (path.starts_with("validation/") && path.ends_with(".json"))
            names.emplace_back(path.substr(11, path.size() - 11 - 5));
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<MeasuredRun> builtinRunSet(std::string_view name)
{
    const std::string path = "validation/" + std::string(name) + ".json";
    for (const EmbeddedFile &f : builtinPresetFiles())
        if (path == f.path) {
            const std::string origin = "presets/" + path;
            return runsFromJson(parseJson(f.text, origin), origin);
        }
    std::string list;
    for (const std::string &n : builtinRunSets())
        list += (list.empty() ? "" : ", ") + n;
    throw InputError("--set", "", "no validation set \"" + std::string(name) + "\" (the sets: " + list + ")");
}

std::vector<MeasuredRun> builtinRuns() { return builtinRunSet("runs"); }

Scenario scenarioFor(const MeasuredRun &run, const ModelShape &m, EfficiencyMode mode)
{
    Scenario s;
    adaptToModel(s, m, true, true); // the checkpoint's options, as analyze --model takes them; the run's formats follow
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
    s.attentionDp = run.attentionDp;
    s.moeTp = run.moeTp;
    s.moeEp = run.moeEp;
    s.expertWeights = run.expertWeights;
    s.maxBatchedTokens = run.maxBatchedTokens;
    s.arrivals = run.arrivals;
    s.execution = run.execution;
    s.allReduce = run.allReduce;
    s.activationScales = run.activationScales;
    s.expertActivations = run.expertActivations;
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

double servedValue(const MeasuredRun &run, const ServedRequest &q)
{
    Analysis a;
    a.phases.ttftS = q.ttftS;
    a.phases.tpotS = q.tpotS;
    a.phases.e2eS = q.e2eS;
    return predictedValue(run, a);
}

double predict(const HardwareSpec &hw, const ModelShape &m, const MeasuredRun &run, EfficiencyMode mode)
{
    const Scenario s = scenarioFor(run, m, mode);
    const Analysis a = analyzeTotals(hw, m, s);
    if (run.maxBatchedTokens <= 0)
        return predictedValue(run, a);
    return servedValue(run, servedRequest(s, serveRequest(hw, m, s, a, nullptr)));
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

namespace {

ValidatedRun validateRun(const MeasuredRun &run, const PresetLibrary &lib)
{
    ValidatedRun row{run, 0, 0, 0, 0, false, {}};
    const HardwareSpec *hw = lib.findHardware(run.device);
    const ModelPreset *model = lib.findModel(run.model);
    if (!hw || !model) {
        row.error =
            !hw ? "device: unknown preset \"" + run.device + "\"" : "model: unknown preset \"" + run.model + "\"";
        return row;
    }
    try {
        row.ideal = predict(*hw, model->shape, run, EfficiencyMode::Ideal);
        row.achievable = predict(*hw, model->shape, run, EfficiencyMode::Achievable);
        row.idealRatio = timeRatio(run, row.ideal);
        row.achievableRatio = timeRatio(run, row.achievable);
        row.predicted = achievableBand(*hw, scenarioFor(run, model->shape, EfficiencyMode::Achievable)).has_value();
    } catch (const AnalysisError &e) {
        row.error = e.what();
    }
    return row;
}

/// The groups of one breakdown: the rows sharing `key` and a metric.
void addGroups(ValidationReport &report, const std::string &by, std::string (*key)(const MeasuredRun &))
{
    std::map<std::pair<std::string, RunMetric>, std::vector<const ValidatedRun *>> groups;
    for (const ValidatedRun &v : report.rows)
        groups[{key(v.run), v.run.metric}].push_back(&v);
    for (const auto &[k, rows] : groups)
        report.groups.push_back({by, k.first, k.second, summarize(rows)});
}

} // namespace

ValidationSummary summarize(const std::vector<const ValidatedRun *> &rows)
{
    ValidationSummary s;
    std::vector<double> errors, measuredOverAchievable;
    int bound = 0;
    for (const ValidatedRun *v : rows) {
        if (!v->error.empty())
            continue;
        ++s.runs;
        bound += v->idealRatio <= 1.0 + 1e-9 ? 1 : 0;
        if (v->predicted) {
            errors.push_back(std::abs(v->achievableRatio - 1.0));
            measuredOverAchievable.push_back(1.0 / v->achievableRatio);
        }
    }
    s.failed = static_cast<int>(rows.size()) - s.runs;
    s.predicted = static_cast<int>(errors.size());
    if (s.runs > 0)
        s.idealBound = static_cast<double>(bound) / static_cast<double>(s.runs);
    if (errors.empty())
        return s;
    std::sort(errors.begin(), errors.end());
    std::sort(measuredOverAchievable.begin(), measuredOverAchievable.end());
    s.medianError = quantile(errors, 0.5);
    s.worstError = errors.back();
    s.within25 = static_cast<double>(std::count_if(errors.begin(), errors.end(), [](double e) { return e <= 0.25; })) /
                 static_cast<double>(errors.size());
    s.ratioLow = quantile(measuredOverAchievable, 0.1);
    s.ratioHigh = quantile(measuredOverAchievable, 0.9);
    return s;
}

ValidationReport validateRuns(const std::vector<MeasuredRun> &runs, const PresetLibrary &lib)
{
    ValidationReport report;
    report.rows.reserve(runs.size());
    for (const MeasuredRun &run : runs)
        report.rows.push_back(validateRun(run, lib));
    std::vector<const ValidatedRun *> all;
    for (const ValidatedRun &v : report.rows)
        all.push_back(&v);
    report.summary = summarize(all);
    addGroups(report, "metric", [](const MeasuredRun &r) { return std::string(toString(r.metric)); });
    addGroups(report, "family", [](const MeasuredRun &r) { return r.model; });
    addGroups(report, "device", [](const MeasuredRun &r) { return r.device; });
    addGroups(report, "framework", [](const MeasuredRun &r) { return r.framework; });
    return report;
}

namespace {
nlohmann::json summaryJson(const ValidationSummary &s)
{
    return {{"analysed", s.runs},
            {"failed", s.failed},
            {"predicted", s.predicted},
            {"median_error", s.medianError},
            {"worst_error", s.worstError},
            {"within_25_percent", s.within25},
            {"ideal_not_slower", s.idealBound},
            {"measured_over_achievable_p10", s.ratioLow},
            {"measured_over_achievable_p90", s.ratioHigh}};
}
} // namespace

nlohmann::json toJson(const ValidationReport &r)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const ValidatedRun &v : r.rows) {
        nlohmann::json row{{"id", v.run.id},
                           {"model", v.run.model},
                           {"device", v.run.device},
                           {"framework", v.run.framework},
                           {"tp", v.run.tp},
                           {"attention_dp", v.run.attentionDp},
                           {"moe_tp", v.run.moeTp},
                           {"moe_ep", v.run.moeEp},
                           {"batch", v.run.batch},
                           {"max_batched_tokens", v.run.maxBatchedTokens},
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
    nlohmann::json groups = nlohmann::json::array();
    for (const ValidationGroup &g : r.groups) {
        nlohmann::json j = summaryJson(g.summary);
        j["by"] = g.by;
        j["name"] = g.name;
        j["metric"] = toString(g.metric);
        groups.push_back(std::move(j));
    }
    return {{"runs", rows}, {"summary", summaryJson(r.summary)}, {"groups", groups}};
}

} // namespace memwall::core
