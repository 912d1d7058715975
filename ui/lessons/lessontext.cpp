#include "ui/lessons/lessontext.h"

#include "core/analysis/breakdown.h"
#include "core/analysis/explain.h"
#include "core/analysis/limits.h"
#include "core/analysis/sweep.h"
#include "core/io/analysisjson.h"
#include "core/scaling/scaling.h"
#include "core/trends/trends.h"
#include "core/util/format.h"
#include "ui/util/text.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace memwall::ui {

namespace {

using Kind = LessonValueKind;
using Value = LessonValue;
enum class Arg { None, Operator, DType, Series };

/// The state one term is evaluated against (the document's, or a variation of it).
struct Eval
{
    const core::ScenarioFile &file;
    const core::Analysis &a;
    std::string_view arg;
};

/// Thrown inside evaluation; caught per placeholder and turned into one error line.
struct EvalError
{
    std::string message;
};

using Fn = Value (*)(const Eval &);

struct KeyDef
{
    std::string_view key;
    Kind kind;
    Arg arg;
    std::string_view meaning;
    Fn fn;
};

Value text(std::string s) { return {Kind::Text, 0, std::move(s)}; }
Value count(double v) { return {Kind::Count, v, {}}; }
Value number(double v) { return {Kind::Number, v, {}}; }
Value percent(double v) { return {Kind::Percent, v, {}}; }
double ratio(double a, double b) { return b != 0 ? a / b : 0.0; }

std::string boundText(core::Bound b) { return std::string(core::toString(b)) + "-bound"; }

/// Sum over every operator called `name` (Generate analyses hold prefill and decode instances).
struct OpSum
{
    double flops = 0, bytes = 0, timeS = 0;
    core::Bound bound = core::Bound::Memory;
};
OpSum opSum(const Eval &e)
{
    OpSum s;
    bool found = false;
    double longest = -1;
    for (const core::Operator &op : e.a.operators) {
        if (op.name != e.arg)
            continue;
        found = true;
        s.flops += op.flops;
        s.bytes += op.bytes();
        s.timeS += op.timeS;
        if (op.timeS > longest) {
            longest = op.timeS;
            s.bound = op.bound;
        }
    }
    if (!found) {
        std::string names;
        for (const core::Operator &op : e.a.operators)
            if (names.find(std::string(op.name) + ",") == std::string::npos && names.size() < 400)
                names += std::string(op.name) + ", ";
        if (names.size() >= 2)
            names.resize(names.size() - 2);
        throw EvalError{"no operator '" + std::string(e.arg) + "' in this analysis (operators: " + names + ")"};
    }
    return s;
}

core::BatchAnswers batchAnswers(const Eval &e)
{
    const auto rows =
        core::sweep(e.file.hardware, e.file.model, e.file.scenario, {core::parseSweepAxis("batch=1:65536")});
    return core::answerBatchSweep(rows);
}

double share(const core::Analysis &a, core::ShareClass c, bool time)
{
    const core::ClassShares s = core::classShares(a);
    return time ? s.timeShareOf(c) : s.flopShareOf(c);
}

core::DType dtypeArg(const Eval &e)
{
    auto d = core::dtypeFromString(e.arg);
    if (!d)
        throw EvalError{"unknown number format '" + std::string(e.arg) + "' (" + core::dtypeList() + ")"};
    return *d;
}

/// The fitted growth per two years of one trend series (the built-in trend data is parsed once: it is constant).
core::GrowthFit trendFit(const Eval &e)
{
    static const core::TrendData data = core::loadBuiltinTrends();
    const core::TrendSeries *series = data.find(e.arg);
    if (!series) {
        std::string ids;
        for (const auto &s : data.series)
            ids += (ids.empty() ? "" : ", ") + s.id;
        throw EvalError{"no trend series '" + std::string(e.arg) + "' (series: " + ids + ")"};
    }
    return core::fitExponential(series->points);
}

using core::ShareClass;

// Long because it is the table of the lessons' keys: one row per key (name, kind, argument, meaning, evaluator), in the
// order of the lesson format's documentation.
// clang-format off
const std::vector<KeyDef> &keyDefs()
{
    static const std::vector<KeyDef> defs = {
        // ---- the device ----
        {"hardware", Kind::Text, Arg::None, "device name", [](const Eval &e) { return text(e.file.hardware.name); }},
        {"hardware_id", Kind::Text, Arg::None, "device preset id", [](const Eval &e) { return text(e.file.hardware.id); }},
        {"year", Kind::Text, Arg::None, "year the device was released", [](const Eval &e) { return text(std::to_string(static_cast<int>(std::lround(e.file.hardware.year.value)))); }},
        {"peak_tflops", Kind::Number, Arg::DType, "compute roof in TFLOP/s: without argument the roof the matmuls run at (after efficiency); with :fp16, :fp32, :int8 ... the datasheet peak of that format",
         [](const Eval &e) { return number((e.arg.empty() ? e.a.peakFlops : e.file.hardware.peak(dtypeArg(e))) / 1e12); }},
        {"matmul_dtype", Kind::Text, Arg::None, "number format the matmuls run in", [](const Eval &e) { return text(std::string(core::toString(e.a.matmulType))); }},
        {"bandwidth_tbs", Kind::Number, Arg::None, "main-memory bandwidth in TB/s (after efficiency)", [](const Eval &e) { return number(e.a.bandwidth / 1e12); }},
        {"bandwidth_gbs", Kind::Number, Arg::None, "main-memory bandwidth in GB/s (after efficiency)", [](const Eval &e) { return number(e.a.bandwidth / 1e9); }},
        {"ridge", Kind::Number, Arg::None, "ridge point in FLOP/byte (compute roof / bandwidth)", [](const Eval &e) { return number(e.a.ridge); }},
        {"capacity_gb", Kind::Number, Arg::None, "main-memory capacity of one device in GB", [](const Eval &e) { return number(e.a.memory.capacity / 1e9); }},
        {"main_memory", Kind::Text, Arg::None, "name of the memory level holding weights and KV cache", [](const Eval &e) { return text(e.file.hardware.mainMemory().name); }},
        {"tdp_w", Kind::Number, Arg::None, "thermal design power in W (\"not published\" where the vendor gives none)", [](const Eval &e) { return e.file.hardware.tdpW ? number(e.file.hardware.tdpW->value) : text("not published"); }},
        // ---- the model ----
        {"model", Kind::Text, Arg::None, "model name", [](const Eval &e) { return text(e.file.model.name); }},
        {"model_id", Kind::Text, Arg::None, "model preset id", [](const Eval &e) { return text(e.file.model.id); }},
        {"params_b", Kind::Number, Arg::None, "parameters in billions", [](const Eval &e) { return number(static_cast<double>(e.a.params.total) / 1e9); }},
        {"params_m", Kind::Number, Arg::None, "parameters in millions", [](const Eval &e) { return number(static_cast<double>(e.a.params.total) / 1e6); }},
        {"layers", Kind::Count, Arg::None, "transformer layers", [](const Eval &e) { return count(static_cast<double>(e.file.model.layers)); }},
        {"hidden", Kind::Count, Arg::None, "model width d_model", [](const Eval &e) { return count(static_cast<double>(e.file.model.hidden)); }},
        {"heads", Kind::Count, Arg::None, "query heads", [](const Eval &e) { return count(static_cast<double>(e.file.model.heads)); }},
        {"kv_heads", Kind::Count, Arg::None, "key/value heads", [](const Eval &e) { return count(static_cast<double>(e.file.model.kvHeads)); }},
        {"index_topk", Kind::Count, Arg::None, "tokens each query attends with sparse attention (index_topk; 0: dense)", [](const Eval &e) { return count(static_cast<double>(e.file.model.indexer.topk)); }},
        {"head_dim", Kind::Count, Arg::None, "dimension of one head", [](const Eval &e) { return count(static_cast<double>(e.file.model.headDim)); }},
        {"gqa_group", Kind::Count, Arg::None, "query heads sharing one key/value head", [](const Eval &e) { return count(static_cast<double>(e.file.model.heads / std::max<int64_t>(1, e.file.model.kvHeads))); }},
        {"attention", Kind::Text, Arg::None, "kind of attention: multi-head (MHA), grouped-query (GQA) or multi-query (MQA)",
         [](const Eval &e) {
             const auto &m = e.file.model;
             return text(m.kvHeads >= m.heads ? "multi-head attention (MHA)" : m.kvHeads == 1 ? "multi-query attention (MQA)" : "grouped-query attention (GQA)");
         }},
        {"heads_per_device", Kind::Count, Arg::None, "query heads on each tensor-parallel device", [](const Eval &e) { return count(static_cast<double>(e.file.model.heads / std::max(1, e.file.scenario.tp))); }},
        {"layers_per_device", Kind::Count, Arg::None, "layers on each pipeline stage", [](const Eval &e) { return count(std::ceil(static_cast<double>(e.file.model.layers) / std::max(1, e.file.scenario.pp))); }},
        {"weights_gb", Kind::Number, Arg::None, "the whole model's weights in GB at the weight format", [](const Eval &e) { return number(e.a.weightBytes / 1e9); }},
        {"weight_bits", Kind::Number, Arg::None, "bits per weight including scale overhead", [](const Eval &e) { return number(e.file.scenario.weights.bitsPerWeight()); }},
        // ---- the scenario ----
        {"phase", Kind::Text, Arg::None, "prefill, decode, generate, encode or train", [](const Eval &e) { return text(std::string(core::toString(e.file.scenario.phase))); }},
        {"batch", Kind::Count, Arg::None, "batch size (sequences)", [](const Eval &e) { return count(static_cast<double>(e.file.scenario.batch)); }},
        {"seq", Kind::Count, Arg::None, "prompt tokens per sequence", [](const Eval &e) { return count(static_cast<double>(e.file.scenario.seq)); }},
        {"context", Kind::Count, Arg::None, "tokens in the KV cache (decode)", [](const Eval &e) { return count(static_cast<double>(e.file.scenario.context)); }},
        {"output", Kind::Count, Arg::None, "generated tokens (generate)", [](const Eval &e) { return count(static_cast<double>(e.file.scenario.output)); }},
        {"weights", Kind::Text, Arg::None, "weight format (fp16, int8, int4/g128 ...)", [](const Eval &e) { return text(core::toString(e.file.scenario.weights)); }},
        {"activations", Kind::Text, Arg::None, "activation format", [](const Eval &e) { return text(std::string(core::toString(e.file.scenario.activations))); }},
        {"kv_format", Kind::Text, Arg::None, "KV-cache format", [](const Eval &e) { return text(std::string(core::toString(e.file.scenario.kv))); }},
        {"structured_sparsity", Kind::Percent, Arg::None, "share of weights pruned in 2:4-style blocks", [](const Eval &e) { return percent(e.file.scenario.structuredSparsity); }},
        {"unstructured_sparsity", Kind::Percent, Arg::None, "share of weights pruned anywhere", [](const Eval &e) { return percent(e.file.scenario.unstructuredSparsity); }},
        {"tp", Kind::Count, Arg::None, "tensor-parallel degree", [](const Eval &e) { return count(e.file.scenario.tp); }},
        {"pp", Kind::Count, Arg::None, "pipeline-parallel degree", [](const Eval &e) { return count(e.file.scenario.pp); }},
        {"dp", Kind::Count, Arg::None, "data-parallel replicas", [](const Eval &e) { return count(e.file.scenario.dp); }},
        {"devices", Kind::Count, Arg::None, "devices in total (tp x pp x dp)", [](const Eval &e) { return count(static_cast<double>(e.file.scenario.tp) * e.file.scenario.pp * e.file.scenario.dp); }},
        // ---- the analysis ----
        {"intensity", Kind::Number, Arg::None, "arithmetic intensity of the whole step in FLOP/byte", [](const Eval &e) { return number(e.a.totals.intensity); }},
        {"bound", Kind::Text, Arg::None, "what limits the whole step: compute-bound, memory-bound or communication-bound", [](const Eval &e) { return text(boundText(e.a.totals.bound)); }},
        {"linear_bound", Kind::Text, Arg::None, "what limits the weight matmuls alone", [](const Eval &e) { return text(boundText(e.a.totals.linearBound)); }},
        {"time_ms", Kind::Number, Arg::None, "time of one step in ms (operators + communication)", [](const Eval &e) { return number(e.a.totals.timeS * 1e3); }},
        {"time_us", Kind::Number, Arg::None, "time of one step in µs", [](const Eval &e) { return number(e.a.totals.timeS * 1e6); }},
        {"time_s", Kind::Number, Arg::None, "time of one step in s", [](const Eval &e) { return number(e.a.totals.timeS); }},
        {"tokens_per_s", Kind::Number, Arg::None, "tokens per second, all replicas", [](const Eval &e) { return number(e.a.totals.tokensPerS); }},
        {"ttft_ms", Kind::Number, Arg::None, "generate: time to first token in ms", [](const Eval &e) { return number(e.a.phases.ttftS * 1e3); }},
        {"tpot_ms", Kind::Number, Arg::None, "generate: time per output token in ms", [](const Eval &e) { return number(e.a.phases.tpotS * 1e3); }},
        {"e2e_s", Kind::Number, Arg::None, "generate: end-to-end time in s", [](const Eval &e) { return number(e.a.phases.e2eS); }},
        {"gflops", Kind::Number, Arg::None, "FLOPs of one step on one device in GFLOP", [](const Eval &e) { return number(e.a.totals.flops / 1e9); }},
        {"traffic_gb", Kind::Number, Arg::None, "bytes one step moves to and from main memory in GB", [](const Eval &e) { return number(e.a.totals.bytes / 1e9); }},
        {"traffic_mb", Kind::Number, Arg::None, "bytes one step moves to and from main memory in MB", [](const Eval &e) { return number(e.a.totals.bytes / 1e6); }},
        {"achieved_tflops", Kind::Number, Arg::None, "FLOP/s one device reaches over the step, in TFLOP/s", [](const Eval &e) { return number(e.a.totals.achievedFlopsPerS / 1e12); }},
        {"utilization", Kind::Percent, Arg::None, "achieved FLOP/s as a share of the compute roof", [](const Eval &e) { return percent(ratio(e.a.totals.achievedFlopsPerS, e.a.peakFlops)); }},
        {"explain", Kind::Text, Arg::None, "one generated sentence saying what limits the run and why", [](const Eval &e) { return text(core::explain(e.file.hardware, e.file.model, e.file.scenario, e.a)); }},
        // ---- one operator ----
        {"op_intensity", Kind::Number, Arg::Operator, "arithmetic intensity of one operator in FLOP/byte", [](const Eval &e) { const OpSum s = opSum(e); return number(ratio(s.flops, s.bytes)); }},
        {"op_time_us", Kind::Number, Arg::Operator, "time of one operator (all its executions) in µs", [](const Eval &e) { return number(opSum(e).timeS * 1e6); }},
        {"op_mb", Kind::Number, Arg::Operator, "bytes one operator (all its executions) moves to and from main memory in MB", [](const Eval &e) { return number(opSum(e).bytes / 1e6); }},
        {"op_time_share", Kind::Percent, Arg::Operator, "one operator's share of the step time", [](const Eval &e) { return percent(ratio(opSum(e).timeS, e.a.totals.timeS)); }},
        {"op_flop_share", Kind::Percent, Arg::Operator, "one operator's share of the step FLOPs", [](const Eval &e) { return percent(ratio(opSum(e).flops, e.a.totals.flops)); }},
        {"op_bound", Kind::Text, Arg::Operator, "what limits one operator", [](const Eval &e) { return text(boundText(opSum(e).bound)); }},
        // ---- shares by operator class ----
        {"matmul_flop_share", Kind::Percent, Arg::None, "tensor contractions' share of the FLOPs", [](const Eval &e) { return percent(share(e.a, ShareClass::TensorContraction, false)); }},
        {"matmul_time_share", Kind::Percent, Arg::None, "tensor contractions' share of the time", [](const Eval &e) { return percent(share(e.a, ShareClass::TensorContraction, true)); }},
        {"norm_flop_share", Kind::Percent, Arg::None, "normalisations' (LayerNorm, RMSNorm, softmax) share of the FLOPs", [](const Eval &e) { return percent(share(e.a, ShareClass::Normalization, false)); }},
        {"norm_time_share", Kind::Percent, Arg::None, "normalisations' share of the time", [](const Eval &e) { return percent(share(e.a, ShareClass::Normalization, true)); }},
        {"elementwise_flop_share", Kind::Percent, Arg::None, "element-wise operators' share of the FLOPs", [](const Eval &e) { return percent(share(e.a, ShareClass::Elementwise, false)); }},
        {"elementwise_time_share", Kind::Percent, Arg::None, "element-wise operators' share of the time", [](const Eval &e) { return percent(share(e.a, ShareClass::Elementwise, true)); }},
        {"non_matmul_time_share", Kind::Percent, Arg::None, "everything but tensor contractions and communication: share of the time",
         [](const Eval &e) { return percent(share(e.a, ShareClass::Normalization, true) + share(e.a, ShareClass::Elementwise, true)); }},
        // ---- memory ----
        {"kv_per_token_kb", Kind::Number, Arg::None, "KV cache per token, whole model, in kB (1,000 bytes)", [](const Eval &e) { return number(e.a.kvCache.bytesPerToken / 1e3); }},
        {"kv_per_token_mb", Kind::Number, Arg::None, "KV cache per token, whole model, in MB", [](const Eval &e) { return number(e.a.kvCache.bytesPerToken / 1e6); }},
        {"kv_total_gb", Kind::Number, Arg::None, "KV cache of all sequences of one replica in GB", [](const Eval &e) { return number(e.a.kvCache.totalBytes / 1e9); }},
        {"kv_per_device_gb", Kind::Number, Arg::None, "KV cache held by one device in GB", [](const Eval &e) { return number(e.a.memory.kv / 1e9); }},
        {"weights_per_device_gb", Kind::Number, Arg::None, "weights held by one device in GB", [](const Eval &e) { return number(e.a.memory.weights / 1e9); }},
        {"activations_gb", Kind::Number, Arg::None, "live activations of one device in GB", [](const Eval &e) { return number(e.a.memory.activations / 1e9); }},
        {"memory_gb", Kind::Number, Arg::None, "everything one device holds in GB", [](const Eval &e) { return number(e.a.memory.total() / 1e9); }},
        {"free_gb", Kind::Number, Arg::None, "capacity left over on one device in GB (negative: missing)", [](const Eval &e) { return number((e.a.memory.capacity - e.a.memory.total()) / 1e9); }},
        {"capacity_share", Kind::Percent, Arg::None, "footprint as a share of one device's capacity", [](const Eval &e) { return percent(ratio(e.a.memory.total(), e.a.memory.capacity)); }},
        {"kv_share", Kind::Percent, Arg::None, "KV cache's share of the footprint", [](const Eval &e) { return percent(ratio(e.a.memory.kv, e.a.memory.total())); }},
        {"fits", Kind::Text, Arg::None, "\"fits\" or \"does not fit\"", [](const Eval &e) { return text(e.a.memory.fits ? "fits" : "does not fit"); }},
        {"devices_to_fit", Kind::Count, Arg::None, "devices whose capacity together holds the footprint of all model-parallel devices",
         [](const Eval &e) {
             const double need = e.a.memory.total() * e.file.scenario.tp * e.file.scenario.pp;
             return count(e.a.memory.capacity > 0 ? std::ceil(need / e.a.memory.capacity) : 0.0);
         }},
        // ---- batch sweep (batch = 1, 2, 4 ... 65,536) ----
        {"first_compute_bound_batch", Kind::Count, Arg::None, "smallest batch whose weight matmuls are compute-bound (0: none up to 65,536)",
         [](const Eval &e) { return count(static_cast<double>(batchAnswers(e).firstLinearComputeBound)); }},
        {"first_step_compute_bound_batch", Kind::Count, Arg::None, "smallest batch whose whole step is compute-bound (0: none up to 65,536)",
         [](const Eval &e) { return count(static_cast<double>(batchAnswers(e).firstComputeBound)); }},
        {"largest_fitting_batch", Kind::Count, Arg::None, "largest batch whose footprint fits one device, exactly (0: none)",
         [](const Eval &e) { return count(static_cast<double>(core::fitLimits(e.file.hardware, e.file.model, e.file.scenario).batch)); }},
        // ---- communication ----
        {"comm_ms", Kind::Number, Arg::None, "communication time of one step in ms", [](const Eval &e) { return number(e.a.comm.timeS * 1e3); }},
        {"comm_mb", Kind::Number, Arg::None, "bytes one device sends per step in MB", [](const Eval &e) { return number(e.a.comm.bytes / 1e6); }},
        {"comm_share", Kind::Percent, Arg::None, "communication's share of the step time (Amdahl's serial fraction)", [](const Eval &e) { return percent(core::communicationFraction(e.a)); }},
        {"link", Kind::Text, Arg::None, "the link collectives use", [](const Eval &e) { return text(e.a.comm.link.empty() ? std::string("the host link") : e.a.comm.link); }},
        // ---- trends ----
        {"growth_per_2y", Kind::Number, Arg::Series, "growth factor per two years fitted to a trend series (hw_peak_flops, dram_bandwidth, interconnect_bandwidth, transformer_params, training_compute ...)",
         [](const Eval &e) { return number(trendFit(e).factorPer2Years); }},
        {"growth_over_20y", Kind::Number, Arg::Series, "the fitted growth of a trend series compounded over twenty years",
         [](const Eval &e) { return number(std::pow(trendFit(e).factorPer2Years, 10.0)); }},
        {"amdahl_limit", Kind::Number, Arg::None, "Amdahl's limit on speedup, 1 / communication share (∞ without communication)",
         [](const Eval &e) {
             const double s = core::communicationFraction(e.a);
             return number(s > 0 ? 1.0 / s : std::numeric_limits<double>::infinity());
         }},
    };
    return defs;
}
// clang-format on

const KeyDef *findKey(std::string_view key)
{
    for (const KeyDef &d : keyDefs())
        if (d.key == key)
            return &d;
    return nullptr;
}

std::string trim(std::string_view s)
{
    const auto b = s.find_first_not_of(' ');
    if (b == std::string_view::npos)
        return {};
    const auto e = s.find_last_not_of(' ');
    return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split(std::string_view s, char sep)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const auto p = s.find(sep, start);
        out.emplace_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
        if (p == std::string_view::npos)
            return out;
        start = p + 1;
    }
}

/// An expression: terms joined by " / " and " * ".
struct Expr
{
    std::vector<std::string> terms;
    std::vector<char> ops; ///< ops[i] joins terms[i] and terms[i + 1]
};

Expr parseExpr(std::string_view inner)
{
    Expr e;
    std::size_t start = 0;
    for (std::size_t i = 0; i + 2 < inner.size(); ++i) {
        if (inner[i] == ' ' && (inner[i + 1] == '/' || inner[i + 1] == '*') && inner[i + 2] == ' ') {
            e.terms.push_back(trim(inner.substr(start, i - start)));
            e.ops.push_back(inner[i + 1]);
            start = i + 3;
            i += 2;
        }
    }
    e.terms.push_back(trim(inner.substr(start)));
    return e;
}

/// key[:arg] and its variations.
struct Term
{
    std::string key, arg;
    std::vector<std::string> variations;
};

Term parseTerm(const std::string &t)
{
    Term out;
    const auto parts = split(t, '@');
    const std::string &head = parts.front();
    const auto colon = head.find(':');
    out.key = head.substr(0, colon);
    if (colon != std::string::npos)
        out.arg = head.substr(colon + 1);
    out.variations.assign(parts.begin() + 1, parts.end());
    return out;
}

/// Problems with a term that need no evaluation; "" if fine.
std::string checkTerm(const Term &t, const std::map<std::string, LessonFact, std::less<>> &facts)
{
    if (t.key.empty())
        return "empty placeholder";
    if (facts.count(t.key)) {
        if (!t.arg.empty() || !t.variations.empty())
            return "fact '" + t.key + "' takes no argument or variation";
        return {};
    }
    const KeyDef *d = findKey(t.key);
    if (!d)
        return "unknown placeholder '" + t.key + "'";
    if (d->arg == Arg::Operator && t.arg.empty())
        return "'" + t.key + "' needs an operator name, e.g. {" + t.key + ":ffn.up}";
    if (d->arg == Arg::Series && t.arg.empty())
        return "'" + t.key + "' needs a trend series id, e.g. {" + t.key + ":dram_bandwidth}";
    if (d->arg == Arg::None && !t.arg.empty())
        return "'" + t.key + "' takes no argument";
    for (const std::string &v : t.variations)
        if (v.empty() || v.find(' ') != std::string::npos)
            return "bad variation '@" + v + "'";
    return {};
}

nlohmann::json parseScalar(const std::string &v)
{
    if (v == "true")
        return true;
    if (v == "false")
        return false;
    if (!v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-' || v[0] == '.')) {
        char *end = nullptr;
        const long long i = std::strtoll(v.c_str(), &end, 10);
        if (end && *end == '\0')
            return i;
        const double d = std::strtod(v.c_str(), &end);
        if (end && *end == '\0')
            return d;
    }
    return v;
}

void applyVariation(core::ScenarioFile &f, const std::string &v, const core::PresetLibrary *lib)
{
    const auto eq = v.find('=');
    if (eq != std::string::npos) {
        nlohmann::json j = core::toJson(f.scenario);
        const std::string field = v.substr(0, eq);
        if (!j.contains(field))
            throw EvalError{"unknown scenario field '" + field + "' in '@" + v + "'"};
        j[field] = parseScalar(v.substr(eq + 1));
        if (field == "weights")
            j.erase("weight_bits");
        try {
            f.scenario = core::scenarioFromJson(j, "@" + v);
        } catch (const std::exception &ex) {
            throw EvalError{ex.what()};
        }
        return;
    }
    if (!lib)
        throw EvalError{"no preset library to look up '@" + v + "'"};
    if (const auto *hw = lib->findHardware(v)) {
        f.hardware = *hw;
        return;
    }
    if (const auto *m = lib->findModel(v)) {
        f.model = m->shape;
        return;
    }
    throw EvalError{"'@" + v + "' is neither a hardware or model preset nor field=value (" +
                    core::unknownPresetMessage(*lib, true, v) + "; " + core::unknownPresetMessage(*lib, false, v) +
                    ")"};
}

Value evalTerm(const Term &t, const LessonTextContext &ctx)
{
    if (auto it = ctx.facts.find(t.key); it != ctx.facts.end())
        return number(it->second.value);
    const KeyDef *d = findKey(t.key);
    if (t.variations.empty())
        return d->fn(Eval{ctx.file, ctx.analysis, t.arg});
    core::ScenarioFile f = ctx.file;
    for (const std::string &v : t.variations)
        applyVariation(f, v, ctx.presets);
    core::Analysis a;
    try {
        a = core::analyze(f.hardware, f.model, f.scenario);
    } catch (const std::exception &ex) {
        throw EvalError{ex.what()};
    }
    return d->fn(Eval{f, a, t.arg});
}

std::string escapeHtml(const std::string &s)
{
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string format(const Value &v)
{
    switch (v.kind) {
    case Kind::Text: return escapeHtml(v.text);
    case Kind::Count: return formatNumber(std::round(v.number)).toStdString(); // a whole count: "4,096", "7"
    case Kind::Number: return formatNumber(v.number).toStdString();
    case Kind::Percent: return formatPercentNumber(v.number).toStdString(); // "61", "0.17": the text writes " %"
    }
    return {};
}

/// Evaluates one placeholder's inside; throws EvalError.
Value evaluate(std::string_view inner, const LessonTextContext &ctx)
{
    const Expr e = parseExpr(inner);
    std::vector<Term> terms;
    for (const std::string &s : e.terms) {
        Term t = parseTerm(s);
        if (auto err = checkTerm(t, ctx.facts); !err.empty())
            throw EvalError{err};
        terms.push_back(std::move(t));
    }
    if (terms.size() == 1)
        return evalTerm(terms.front(), ctx);
    double acc = 0;
    for (std::size_t i = 0; i < terms.size(); ++i) {
        const Value v = evalTerm(terms[i], ctx);
        if (v.kind == Kind::Text)
            throw EvalError{"'" + terms[i].key + "' is text and cannot be divided or multiplied"};
        if (i == 0)
            acc = v.number;
        else if (e.ops[i - 1] == '*')
            acc *= v.number;
        else
            acc = v.number != 0 ? acc / v.number : std::numeric_limits<double>::infinity();
    }
    return number(acc);
}

/// Walks the text; calls `onPlaceholder(inner)` for each `{...}` and `onText` for everything else.
/// Returns false (with `error`) on an unclosed brace.
template <typename OnText, typename OnPlaceholder>
void walk(std::string_view text, OnText onText, OnPlaceholder onPlaceholder, std::vector<std::string> &errors)
{
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '{' && i + 1 < text.size() && text[i + 1] == '{') {
            onText("{");
            i += 2;
        } else if (c == '}' && i + 1 < text.size() && text[i + 1] == '}') {
            onText("}");
            i += 2;
        } else if (c == '{') {
            const auto close = text.find('}', i + 1);
            const auto nextOpen = text.find('{', i + 1);
            if (close == std::string_view::npos || (nextOpen != std::string_view::npos && nextOpen < close)) {
                errors.push_back("unclosed '{' at character " + std::to_string(i + 1));
                onText("[?]");
                ++i;
                continue;
            }
            onPlaceholder(text.substr(i + 1, close - i - 1));
            i = close + 1;
        } else {
            onText(std::string_view(&text[i], 1));
            ++i;
        }
    }
}

} // namespace

LessonValue evaluateLessonValue(std::string_view expr, const LessonTextContext &ctx)
{
    try {
        return evaluate(expr, ctx);
    } catch (const EvalError &e) {
        throw std::runtime_error("{" + std::string(expr) + "}: " + e.message);
    } catch (const std::exception &e) {
        throw std::runtime_error("{" + std::string(expr) + "}: " + e.what());
    }
}

std::string formatLessonValue(const LessonValue &v) { return format(v); }

LessonTextResult renderLessonText(std::string_view text, const LessonTextContext &ctx)
{
    LessonTextResult r;
    walk(
        text, [&r](std::string_view s) { r.text += s; },
        [&r, &ctx](std::string_view inner) {
            try {
                r.text += format(evaluate(inner, ctx));
            } catch (const EvalError &e) {
                r.errors.push_back("{" + std::string(inner) + "}: " + e.message);
                r.text += "[?" + escapeHtml(std::string(inner)) + "]";
            } catch (const std::exception &e) {
                r.errors.push_back("{" + std::string(inner) + "}: " + e.what());
                r.text += "[?" + escapeHtml(std::string(inner)) + "]";
            }
        },
        r.errors);
    return r;
}

std::vector<std::string> checkLessonText(std::string_view text,
                                         const std::map<std::string, LessonFact, std::less<>> &facts)
{
    std::vector<std::string> errors;
    walk(
        text, [](std::string_view) {},
        [&errors, &facts](std::string_view inner) {
            for (const std::string &s : parseExpr(inner).terms)
                if (auto err = checkTerm(parseTerm(s), facts); !err.empty()) {
                    errors.push_back("{" + std::string(inner) + "}: " + err);
                    return;
                }
        },
        errors);
    return errors;
}

const std::vector<LessonPlaceholder> &lessonPlaceholders()
{
    static const std::vector<LessonPlaceholder> list = [] {
        std::vector<LessonPlaceholder> out;
        for (const KeyDef &d : keyDefs())
            out.push_back({d.key,
                           d.arg == Arg::Operator ? "operator name"
                           : d.arg == Arg::DType  ? "number format (optional)"
                           : d.arg == Arg::Series ? "trend series id"
                                                  : "",
                           d.meaning});
        return out;
    }();
    return list;
}

} // namespace memwall::ui
