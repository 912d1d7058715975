#include "io/analysisjson.h"

#include <charconv>

namespace memwall::core {

using nlohmann::json;

std::optional<WeightFormat> weightFormatFromString(std::string_view text)
{
    WeightFormat w;
    std::size_t slash = text.find('/');
    auto type = dtypeFromString(text.substr(0, slash));
    if (!type)
        return std::nullopt;
    w.type = *type;
    while (slash != std::string_view::npos) {
        text = text.substr(slash + 1);
        slash = text.find('/');
        const std::string_view part = text.substr(0, slash);
        if (part.size() > 1 && part[0] == 'g') {
            int g = 0;
            auto [ptr, ec] = std::from_chars(part.data() + 1, part.data() + part.size(), g);
            if (ec != std::errc() || ptr != part.data() + part.size() || g <= 0)
                return std::nullopt;
            w.groupSize = g;
        } else if (auto st = dtypeFromString(part)) {
            w.scaleType = *st;
        } else {
            return std::nullopt;
        }
    }
    return w;
}

std::string toString(const WeightFormat &w)
{
    std::string s(toString(w.type));
    if (w.groupSize > 0) {
        s += "/g" + std::to_string(w.groupSize);
        if (w.scaleType != DType::FP16)
            s += "/" + std::string(toString(w.scaleType));
    }
    return s;
}

json toJson(const Scenario &s)
{
    json j{{"phase", toString(s.phase)},
           {"batch", s.batch},
           {"seq", s.seq},
           {"context", s.context},
           {"output", s.output},
           {"weights", toString(s.weights)},
           {"weight_bits", s.weights.bitsPerWeight()},
           {"activations", toString(s.activations)},
           {"kv", toString(s.kv)},
           {"tp", s.tp},
           {"pp", s.pp},
           {"dp", s.dp},
           {"ep", s.ep},
           {"micro_batches", s.microBatches},
           {"fused_attention", s.fusedAttention},
           {"kv_cache", s.kvCache},
           {"efficiency", toString(s.efficiency)},
           {"structured_sparsity", s.structuredSparsity},
           {"unstructured_sparsity", s.unstructuredSparsity},
           {"recompute", toString(s.recompute)},
           {"optimizer", toString(s.optimizer)},
           {"zero_stage", s.zeroStage}};
    j["compute_efficiency"] = s.computeEfficiency ? json(*s.computeEfficiency) : json(nullptr);
    j["memory_efficiency"] = s.memoryEfficiency ? json(*s.memoryEfficiency) : json(nullptr);
    return j;
}

Scenario scenarioFromJson(const json &j, const std::string &file)
{
    JsonReader r(j, file, "scenario");
    Scenario s;
    auto pick = [&r](std::string_view key, auto parse, auto current, std::string_view options) {
        const std::string text = r.string(key, toString(current));
        auto v = parse(text);
        if (!v)
            r.fail(key, "must be " + std::string(options) + ", got \"" + text + "\"");
        return *v;
    };
    s.phase = pick("phase", phaseFromString, s.phase, "prefill, decode, generate, encode or train");
    s.batch = r.integer("batch", s.batch);
    s.seq = r.integer("seq", s.seq);
    s.context = r.integer("context", s.context);
    s.output = r.integer("output", s.output);
    {
        const std::string w = r.string("weights", toString(s.weights));
        auto wf = weightFormatFromString(w);
        if (!wf)
            r.fail("weights", "unknown weight format \"" + w + "\" (e.g. fp16, int8, int4/g128)");
        s.weights = *wf;
        r.number("weight_bits", 0); // derived; accepted for round trips
    }
    auto dtype = [&r](std::string_view key, DType current) {
        const std::string t = r.string(key, toString(current));
        auto d = dtypeFromString(t);
        if (!d)
            r.fail(key, "unknown number format \"" + t + "\" (fp32, tf32, bf16, fp16, fp8, int8, int4)");
        return *d;
    };
    s.activations = dtype("activations", s.activations);
    s.kv = dtype("kv", s.kv);
    auto degree = [&r](std::string_view key, int current) {
        const int64_t v = r.integer(key, current);
        if (v < 1 || v > 1 << 20)
            r.fail(key, "must be between 1 and 1048576, got " + std::to_string(v));
        return static_cast<int>(v);
    };
    s.tp = degree("tp", s.tp);
    s.pp = degree("pp", s.pp);
    s.dp = degree("dp", s.dp);
    s.ep = degree("ep", s.ep);
    s.microBatches = degree("micro_batches", s.microBatches);
    s.fusedAttention = r.boolean("fused_attention", s.fusedAttention);
    s.kvCache = r.boolean("kv_cache", s.kvCache);
    s.efficiency = pick("efficiency", efficiencyModeFromString, s.efficiency, "ideal or achievable");
    if (r.has("compute_efficiency"))
        s.computeEfficiency = r.number("compute_efficiency");
    else
        r.string("compute_efficiency", "");
    if (r.has("memory_efficiency"))
        s.memoryEfficiency = r.number("memory_efficiency");
    else
        r.string("memory_efficiency", "");
    s.structuredSparsity = r.number("structured_sparsity", 0.0);
    s.unstructuredSparsity = r.number("unstructured_sparsity", 0.0);
    s.recompute = pick("recompute", recomputeFromString, s.recompute, "none, selective or full");
    s.optimizer = pick("optimizer", optimizerFromString, s.optimizer, "adam or sgd");
    s.zeroStage = static_cast<int>(r.integer("zero_stage", 0));
    r.rejectUnknown();
    if (auto e = validate(s); !e.empty())
        throw InputError(file, "scenario", e);
    return s;
}

json analysisToJson(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const Analysis &a)
{
    json ops = json::array();
    for (const Operator &op : a.operators) {
        ops.push_back({{"name", op.name},
                       {"class", toString(op.cls)},
                       {"phase", toString(op.phase)},
                       {"count", op.count},
                       {"flops", op.flops},
                       {"bytes", op.bytes()},
                       {"weight_bytes", op.weightBytes},
                       {"activation_bytes", op.activationBytes},
                       {"kv_bytes", op.kvBytes},
                       {"arithmetic_intensity", op.intensity()},
                       {"compute_dtype", toString(op.computeType)},
                       {"time_s", op.timeS},
                       {"bound", toString(op.bound)}});
    }
    json j;
    j["hardware"] = {{"id", hw.id},
                     {"name", hw.name},
                     {"peak_flops", a.peakFlops},
                     {"matmul_dtype", toString(a.matmulType)},
                     {"bandwidth_bytes_per_s", a.bandwidth},
                     {"ridge_flops_per_byte", a.ridge},
                     {"main_memory", hw.mainMemory().name}};
    j["model"] = {{"id", m.id},
                  {"name", m.name},
                  {"params", a.params.total},
                  {"active_params", a.params.active},
                  {"weight_bytes", a.weightBytes},
                  {"layers", m.layers},
                  {"hidden", m.hidden},
                  {"heads", m.heads},
                  {"kv_heads", m.kvHeads}};
    j["scenario"] = toJson(s);
    j["efficiency"] = {{"compute", a.computeEfficiency}, {"memory", a.memoryEfficiency}};
    j["kv_cache"] = {{"bytes_per_token", a.kvCache.bytesPerToken}, {"total_bytes", a.kvCache.totalBytes}};
    j["memory"] = {{"weights_bytes", a.memory.weights},
                   {"kv_bytes", a.memory.kv},
                   {"activation_bytes", a.memory.activations},
                   {"gradients_bytes", a.memory.gradients},
                   {"optimizer_bytes", a.memory.optimizer},
                   {"total_bytes_per_device", a.memory.total()},
                   {"capacity_bytes", a.memory.capacity},
                   {"fits", a.memory.fits}};
    j["totals"] = {{"flops", a.totals.flops},
                   {"bytes", a.totals.bytes},
                   {"arithmetic_intensity", a.totals.intensity},
                   {"time_s", a.totals.timeS},
                   {"bound", toString(a.totals.bound)},
                   {"linear_bound", toString(a.totals.linearBound)},
                   {"tokens_per_s", a.totals.tokensPerS},
                   {"model_flops", a.totals.modelFlops},
                   {"achieved_flops_per_s", a.totals.achievedFlopsPerS}};
    j["parallelism"] = {{"tp", s.tp},
                        {"pp", s.pp},
                        {"dp", s.dp},
                        {"ep", s.ep},
                        {"devices", s.tp * s.pp * s.dp},
                        {"comm_bytes", a.comm.bytes},
                        {"comm_time_s", a.comm.timeS},
                        {"tp_bytes", a.comm.tpBytes},
                        {"pp_bytes", a.comm.ppBytes},
                        {"dp_bytes", a.comm.dpBytes},
                        {"ep_bytes", a.comm.epBytes},
                        {"link", a.comm.link}};
    if (s.phase == Phase::Generate)
        j["phases"] = {{"ttft_s", a.phases.ttftS}, {"tpot_s", a.phases.tpotS}, {"e2e_s", a.phases.e2eS}};
    j["operators"] = ops;
    return j;
}

} // namespace memwall::core
