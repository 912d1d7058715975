#include "core/io/outputs.h"

#include "core/analysis/limits.h"
#include "core/analysis/serving.h"
#include "core/io/analysisjson.h"
#include "core/util/csv.h"

#include <cstdio>

namespace memwall::core {

using nlohmann::json;

namespace {

json hardwareEntry(const HardwareSpec &h)
{
    json peaks = json::object();
    for (DType t : kAllDTypes)
        if (h.supports(t))
            peaks[std::string(toString(t))] = h.peak(t);
    return {{"id", h.id},
            {"name", h.name},
            {"vendor", h.vendor},
            {"category", h.category},
            {"year", h.year.value},
            {"peak_flops", peaks},
            {"memory_bytes", h.mainMemory().capacityBytes.value},
            {"memory_bandwidth_bytes_per_s", h.mainMemory().bandwidthBytesPerS.value},
            {"ridge_fp16", h.ridge(DType::FP16)},
            {"file", h.sourceFile}};
}

json modelEntry(const ModelPreset &m)
{
    const ParamCounts p = paramCount(m.shape);
    json j{{"id", m.shape.id},         {"name", m.shape.name},
           {"family", m.shape.family}, {"arch", toString(m.shape.arch)},
           {"params", p.total},        {"active_params", p.active},
           {"layers", m.shape.layers}, {"hidden", m.shape.hidden},
           {"heads", m.shape.heads},   {"kv_heads", m.shape.kvHeads},
           {"year", m.year},           {"source", m.source},
           {"file", m.sourceFile}};
    if (m.paramsOfficial)
        j["params_official"] = m.paramsOfficial->value;
    if (p.mtp > 0) { // the multi-token-prediction modules, and all the checkpoint holds with them
        j["mtp_params"] = p.mtp;
        j["checkpoint_params"] = p.checkpoint;
    }
    if (m.shape.vision.present()) { // a multimodal wrapper: its vision tower and projector, and an image's tokens
        j["vision_params"] = p.vision;
        j["tokens_per_image"] = m.shape.vision.tokensPerImage();
    }
    return j;
}

json positiveOrNull(double v) { return v > 0 ? json(v) : json(nullptr); }

} // namespace

json operatorToJson(const Operator &op)
{
    return {{"name", op.name},
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
            {"bound", toString(op.bound)}};
}

json operatorsToJson(const Analysis &a)
{
    json ops = json::array();
    for (const Operator &op : a.operators)
        ops.push_back(operatorToJson(op));
    return ops;
}

json analyzeOutputJson(const HardwareSpec &hw, const ScenarioFile &f, const Analysis &a, const PresetLibrary &lib)
{
    const FitLimits limits = fitLimits(hw, f.model, f.scenario);
    std::optional<ServingReport> serving;
    if (f.model.arch != Architecture::Encoder)
        serving = serve(hw, f.model, f.scenario, lib.draftModel(f.scenario));
    json j = analysisToJson(hw, f.model, f.scenario, a);
    const json servingJson = serving ? servingToJson(*serving) : servingToJson({});
    for (const auto &[key, value] : servingJson.items())
        j[key] = serving ? value : json(nullptr);
    j["fit_limits"] = {{"max_batch", limits.batch},
                       {f.scenario.phase == Phase::Decode ? "max_context" : "max_seq", limits.context},
                       {"search_cap", FitLimits::kMax}};
    return j;
}

json presetsToJson(const PresetLibrary &lib)
{
    json hw = json::array(), models = json::array();
    for (const HardwareSpec &h : lib.hardware())
        hw.push_back(hardwareEntry(h));
    for (const ModelPreset &m : lib.models())
        models.push_back(modelEntry(m));
    return {{"hardware", hw}, {"models", models}};
}

json sweepRowToJson(const SweepRow &r)
{
    json row = toJson(r.scenario);
    if (!r.error.empty()) {
        row["error"] = r.error;
        return row;
    }
    row["totals"] = {
        {"flops", r.totals.flops},  {"bytes", r.totals.bytes},           {"arithmetic_intensity", r.totals.intensity},
        {"time_s", r.totals.timeS}, {"bound", toString(r.totals.bound)}, {"tokens_per_s", r.totals.tokensPerS}};
    row["memory"] = toJson(r.memory);
    if (r.scenario.phase == Phase::Generate)
        row["phases"] = {{"ttft_s", r.phases.ttftS}, {"tpot_s", r.phases.tpotS}, {"e2e_s", r.phases.e2eS}};
    return row;
}

json batchAnswersToJson(const BatchAnswers &a, int64_t maxBatch, double maxTpotS)
{
    json ans = {{"first_compute_bound_batch", a.firstComputeBound},
                {"linear_layers_compute_bound_batch", a.firstLinearComputeBound},
                {"largest_fitting_batch", a.largestFitting},
                {"max_batch_that_fits", maxBatch}};
    if (maxTpotS > 0)
        ans["best_batch_under_max_tpot"] = a.bestUnderTpot;
    return ans;
}

json searchPointToJson(const SearchPoint &p, const SearchSpace &space, EfficiencyMode efficiency)
{
    json j = toJson(p.scenario);
    j["hardware"] = space.devices[p.device].id;
    j["precision"] = toString(SearchPrecision{p.scenario.weights, p.scenario.activations});
    j["devices"] = p.devices;
    j["tokens_per_s_per_device"] = p.tokensPerSPerDevice;
    j["tokens_per_s_per_user"] = p.tokensPerSPerUser;
    j["ttft_s"] = p.ttftS;
    j["tpot_s"] = p.tpotS;
    j["e2e_s"] = p.e2eS;
    j["usd_per_million_tokens"] = p.usdPerMillionTokens ? json(*p.usdPerMillionTokens) : json(nullptr);
    j["efficiency"] = toString(efficiency);
    j["ttft_floor_s"] = p.ttftFloorS;
    j["tpot_floor_s"] = p.tpotFloorS;
    j["serving"] = servingLabel(p.scenario);
    // With achievable efficiency: where the measured times are likely to fall (null for a bound or a device
    // without microbenchmarks).
    const auto banded = [&p](double t, double factor) { return p.band ? json(t * factor) : json(nullptr); };
    j["ttft_s_low"] = banded(p.ttftS, p.band ? p.band->low : 0);
    j["ttft_s_high"] = banded(p.ttftS, p.band ? p.band->high : 0);
    j["tpot_s_low"] = banded(p.tpotS, p.band ? p.band->low : 0);
    j["tpot_s_high"] = banded(p.tpotS, p.band ? p.band->high : 0);
    return j;
}

/// 17 significant digits: a double reads back exactly.
std::string exact(double v)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

const std::vector<std::string> &sweepCsvColumns()
{
    static const std::vector<std::string> columns{"time_s", "tokens_per_s", "flops", "bytes", "arithmetic_intensity",
                                                  "bound",  "memory_bytes", "fits",  "error", "tpot_s"};
    return columns;
}

std::vector<std::string> sweepCsvCells(const SweepRow &r)
{
    if (!r.error.empty())
        return {"", "", "", "", "", "", "", "", r.error, ""};
    return {exact(r.totals.timeS),
            exact(r.totals.tokensPerS),
            exact(r.totals.flops),
            exact(r.totals.bytes),
            exact(r.totals.intensity),
            std::string(toString(r.totals.bound)),
            exact(r.memory.total()),
            r.memory.fits ? "true" : "false",
            "",
            r.scenario.phase == Phase::Generate ? exact(r.phases.tpotS) : ""};
}

namespace {

const std::vector<std::string> kSearchCsvColumns{"hardware",
                                                 "devices",
                                                 "tp",
                                                 "pp",
                                                 "ep",
                                                 "dp",
                                                 "batch",
                                                 "precision",
                                                 "kv",
                                                 "ttft_s",
                                                 "tpot_s",
                                                 "tokens_per_s_per_user",
                                                 "tokens_per_s_per_device",
                                                 "usd_per_million_tokens",
                                                 "ttft_floor_s",
                                                 "tpot_floor_s",
                                                 "efficiency",
                                                 "serving",
                                                 "speculative_k",
                                                 "chunked_prefill",
                                                 "disaggregate",
                                                 "prefill_batch",
                                                 "tpot_s_low",
                                                 "tpot_s_high",
                                                 "nearest"};

std::vector<std::string> searchCsvCells(const SearchPoint &p, const SearchSpace &space, EfficiencyMode efficiency,
                                        bool nearest)
{
    const Scenario &s = p.scenario;
    const auto optional = [](bool has, double v) { return has ? exact(v) : std::string(); };
    return {space.devices[p.device].id,
            std::to_string(p.devices),
            std::to_string(s.tp),
            std::to_string(s.pp),
            std::to_string(s.ep),
            std::to_string(s.dp),
            std::to_string(s.batch),
            toString(SearchPrecision{s.weights, s.activations}),
            std::string(toString(s.kv)),
            exact(p.ttftS),
            exact(p.tpotS),
            exact(p.tokensPerSPerUser),
            exact(p.tokensPerSPerDevice),
            optional(p.usdPerMillionTokens.has_value(), p.usdPerMillionTokens.value_or(0)),
            exact(p.ttftFloorS),
            exact(p.tpotFloorS),
            std::string(toString(efficiency)),
            servingLabel(s),
            std::to_string(s.speculativeK),
            std::to_string(s.chunkedPrefill),
            s.prefillDevices > 0 ? std::to_string(s.prefillDevices) + ":" + std::to_string(s.decodeDevices)
                                 : std::string("off"),
            std::to_string(s.prefillBatch),
            optional(p.band.has_value(), p.band ? p.tpotS * p.band->low : 0),
            optional(p.band.has_value(), p.band ? p.tpotS * p.band->high : 0),
            std::to_string(s.attentionDp),
            std::to_string(moeTp(s)),
            std::to_string(moeEp(s)),
            nearest ? "1" : "0"};
}

} // namespace

std::string searchToCsv(const SearchSpace &space, const SearchCandidates &candidates, const SearchFront &front)
{
    std::string out = csvRow(kSearchCsvColumns);
    for (const SearchPoint &p : front.pareto)
        out += csvRow(searchCsvCells(p, space, candidates.efficiency, false));
    if (front.nearest)
        out += csvRow(searchCsvCells(*front.nearest, space, candidates.efficiency, true));
    return out;
}

json searchToJson(const ModelShape &m, const SearchSpace &space, const SearchTargets &targets,
                  const SearchCandidates &candidates, const SearchFront &front)
{
    json out = {{"model", m.id},
                {"evaluated", candidates.evaluated},
                {"analysed", candidates.analysed},
                {"pruned", candidates.pruned},
                {"fitting", candidates.points.size()},
                {"meeting_targets", front.meeting},
                {"seconds", candidates.seconds},
                {"efficiency", toString(candidates.efficiency)},
                {"cost_objective", candidates.withCost},
                {"targets",
                 {{"max_ttft_s", positiveOrNull(targets.maxTtftS)},
                  {"max_tpot_s", positiveOrNull(targets.maxTpotS)},
                  {"min_tokens_per_s_per_user", positiveOrNull(targets.minTokensPerSPerUser)}}}};
    json pareto = json::array();
    for (const SearchPoint &p : front.pareto)
        pareto.push_back(searchPointToJson(p, space, candidates.efficiency));
    out["pareto"] = pareto;
    if (front.nearest) {
        out["nearest"] = searchPointToJson(*front.nearest, space, candidates.efficiency);
        out["nearest_miss"] = front.nearestMiss;
    }
    return out;
}

} // namespace memwall::core
