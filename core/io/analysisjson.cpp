#include "core/io/analysisjson.h"

#include "core/analysis/explain.h"
#include "core/analysis/operatortime.h"
#include "core/analysis/options.h"
#include "core/io/outputs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

namespace memwall::core {

using nlohmann::json;

namespace {

/// Devices the analysis assumes: dp replicas of tp x pp x attention_dp x ep devices each. Expert parallelism is not
/// carved out of dp: analyze() gives each replica batch / dp sequences whatever ep is, keeps the non-expert weights
/// whole on each of its ep devices and splits only the experts over them (ep 8 with dp 1 is eight devices). The count
/// is a whole number while it fits 64 bits (tp x pp x dp is at most 2^48, each degree being at most 65536) and a real
/// beyond that.
json deviceCount(const Scenario &s)
{
    const int64_t tpPpDp = int64_t{s.tp} * s.pp * s.dp; // 64-bit: 65536 x 32768 overflows an int
    const int64_t spread = int64_t{s.ep} * s.attentionDp;
    if (spread > 0 && tpPpDp > std::numeric_limits<int64_t>::max() / spread)
        return static_cast<double>(tpPpDp) * static_cast<double>(spread);
    return tpPpDp * spread;
}

/// The text of a whole number too large for int64_t (2^63 and up, 1e19), which get<int64_t>() would wrap to a
/// negative count; "" for any other value.
std::string hugeWholeNumber(const json &v)
{
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
        return v.dump();
    if (v.is_number_float() && std::fabs(v.get<double>()) >= 0x1p63 && std::isfinite(v.get<double>()))
        return v.dump();
    return {};
}

} // namespace

json optionsToJson(OptionSection section, const Scenario &s, const WhatIf &w)
{
    json j = json::object();
    for (const ScenarioOption &o : scenarioOptions()) {
        if (o.section != section)
            continue;
        std::visit(
            [&](const auto &v) {
                if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
                    j[std::string(o.key)] = nullptr;
                else
                    j[std::string(o.key)] = v;
            },
            o.get(s, w));
    }
    return j;
}

void optionsFromJson(JsonReader &r, OptionSection section, Scenario &s, WhatIf &w)
{
    for (const ScenarioOption &o : scenarioOptions()) {
        if (o.section != section)
            continue;
        const std::string_view key = o.key;
        const OptionValue current = o.get(s, w);
        OptionValue v;
        switch (o.kind) {
        case OptionKind::Integer:
            if (const auto it = r.node().find(key); it != r.node().end())
                if (const std::string huge = hugeWholeNumber(*it); !huge.empty())
                    r.fail(key, outOfRange(o, huge));
            v = r.integer(key, std::get<int64_t>(current));
            break;
        case OptionKind::Real:
            if (r.has(key))
                v = r.number(key);
            else
                r.string(key, ""); // absent or null: unset (nullable) or the default
            if (!o.nullable && !std::holds_alternative<double>(v))
                v = current;
            break;
        case OptionKind::Choice: v = r.string(key, std::get<std::string>(current)); break;
        case OptionKind::Switch: v = r.boolean(key, std::get<bool>(current)); break;
        }
        if (auto e = applyOption(o, s, w, v); !e.empty())
            r.fail(key, e);
    }
}

json toJson(const Scenario &s)
{
    json j = optionsToJson(OptionSection::Scenario, s, WhatIf{});
    j["weight_bits"] = s.weights.bitsPerWeight(); // derived, for readers that do not parse weight formats
    return j;
}

Scenario scenarioFromJson(const json &j, const std::string &file)
{
    JsonReader r(j, file, "scenario");
    Scenario s;
    WhatIf unused;
    optionsFromJson(r, OptionSection::Scenario, s, unused);
    r.number("weight_bits", 0); // derived; accepted for round trips
    r.rejectUnknown();
    if (auto e = validate(s); !e.empty())
        throw InputError(file, "scenario", e);
    return s;
}

namespace {

/// The "admission" object of servingToJson().
json admissionToJson(const AdmissionReport &a)
{
    return {{"max_batched_tokens", a.budget},
            {"arrivals", toString(a.arrivals)},
            {"wave_steps", a.waveSteps},
            {"mean_first_step", a.meanFirstStep},
            {"rounds", a.rounds},
            {"first_round_ttft_s", a.waveTtftS},
            {"later_rounds_ttft_s", a.laterTtftS},
            {"concurrency", a.concurrency},
            {"fitting_requests", a.fitting},
            {"running_requests", a.running},
            {"queued_requests", a.queued},
            {"queue_limit", a.limit},
            {"requests_per_step", a.requestsPerStep},
            {"decodes_per_step", a.decodesPerStep},
            {"prompt_tokens_per_step", a.promptTokensPerStep},
            {"steps_per_prompt", a.stepsPerPrompt},
            {"mixed_share", a.mixedShare},
            {"decode_step_s", a.decodeStepS},
            {"mixed_step_s", a.mixedStepS},
            {"step_s", a.stepS},
            {"queue_s", a.queueS},
            {"ttft_s", a.ttftS},
            {"requests_per_s", a.requestsPerS}};
}

/// The "disaggregation" object of servingToJson().
json disaggregationToJson(const DisaggregationReport &d)
{
    json splits = json::array();
    for (const auto &sp : d.splits)
        splits.push_back({{"prefill_devices", sp.prefillDevices},
                          {"decode_devices", sp.decodeDevices},
                          {"requests_per_s", sp.requestsPerS}});
    return {{"prefill_devices", d.prefillDevices},
            {"decode_devices", d.decodeDevices},
            {"link", d.link},
            {"kv_bytes_per_request", d.kvBytesPerRequest},
            {"kv_transfer_s", d.kvTransferS},
            {"prefill_s", d.prefillS},
            {"ttft_s", d.ttftS},
            {"tpot_s", d.tpotS},
            {"prefill_requests_per_s", d.prefillRequestsPerS},
            {"decode_requests_per_s", d.decodeRequestsPerS},
            {"requests_per_s", d.requestsPerS},
            {"best_prefill_devices", d.bestPrefillDevices},
            {"best_decode_devices", d.bestDecodeDevices},
            {"splits", splits}};
}

/// The "offload" object of servingToJson().
json offloadToJson(const OffloadReport &o)
{
    json tiers = json::array();
    for (const OffloadTier &t : o.tiers)
        tiers.push_back({{"tier", toString(t.tier)},
                         {"level", t.level},
                         {"bandwidth_bytes_per_s", t.bandwidth},
                         {"capacity_bytes", t.capacity},
                         {"kv_bytes", t.kvBytes},
                         {"weight_bytes", t.weightBytes},
                         {"streamed_bytes_per_step", t.streamedBytes},
                         {"link_s", t.linkS},
                         {"fits", t.fits}});
    return {{"tier", toString(o.tier)},
            {"level", o.level},
            {"fraction", o.fraction},
            {"kv_bytes", o.kvBytes},
            {"offloaded_bytes", o.offloadedBytes},
            {"weight_tier", toString(o.weightTier)},
            {"weight_level", o.weightLevel},
            {"weight_fraction", o.weightFraction},
            {"weight_bytes", o.weightBytes},
            {"offloaded_weight_bytes", o.offloadedWeightBytes},
            {"tiers", tiers},
            {"main_memory_bytes", o.mainMemoryBytes},
            {"fits_main_memory", o.fitsMainMemory},
            {"fits_tier", o.fitsTier},
            {"link_s", o.linkS},
            {"step_s", o.stepS},
            {"step_in_memory_s", o.stepInMemoryS},
            {"ttft_s", o.ttftS},
            {"e2e_s", o.e2eS},
            {"wall", o.wall}};
}

} // namespace

json servingToJson(const ServingReport &r)
{
    json j;
    // The request as the scenario's serving options run it; the plain request's figures beside it (and its decode
    // steps, which the other ways scale).
    const ServedRequest &q = r.served;
    j["request"] = {{"ttft_s", q.ttftS},
                    {"tpot_s", q.tpotS},
                    {"e2e_s", q.e2eS},
                    {"tokens_per_s_per_user", q.tpotS > 0 ? 1.0 / q.tpotS : 0.0},
                    {"plain_ttft_s", r.request.ttftS},
                    {"plain_tpot_s", r.request.tpotS},
                    {"plain_e2e_s", r.request.e2eS},
                    {"decode_steps", {{"token", r.request.stepToken}, {"time_s", r.request.stepS}}}};
    j["speculative"] = nullptr;
    if (const auto &sp = r.speculative)
        j["speculative"] = {
            {"k", sp->k},
            {"acceptance", sp->acceptance},
            {"draft", sp->draft},
            {"tokens_per_step", sp->tokensPerStep},
            {"speedup", sp->speedup},
            {"break_even_acceptance", sp->breakEvenAcceptance ? json(*sp->breakEvenAcceptance) : json(nullptr)},
            {"plain_step_s", sp->plainStepS},
            {"verify_step_s", sp->verifyStepS},
            {"draft_step_s", sp->draftStepS},
            {"plain_arithmetic_intensity", sp->plainIntensity},
            {"verify_arithmetic_intensity", sp->verifyIntensity}};
    j["chunked_prefill"] = nullptr;
    if (const auto &c = r.chunkedPrefill)
        j["chunked_prefill"] = {{"chunk_tokens", c->chunk},
                                {"mixed_step_s", c->mixedStepS},
                                {"decode_step_s", c->decodeStepS},
                                {"chunk_alone_s", c->chunkAloneS},
                                {"decode_slowdown", c->slowdown},
                                {"mixed_arithmetic_intensity", c->mixedIntensity},
                                {"decode_arithmetic_intensity", c->decodeIntensity},
                                {"steps_per_prompt", c->stepsPerPrompt},
                                {"ttft_s", c->ttftS}};
    j["admission"] = r.admission ? admissionToJson(*r.admission) : json(nullptr);
    j["disaggregation"] = r.disaggregation ? disaggregationToJson(*r.disaggregation) : json(nullptr);
    j["offload"] = r.offload ? offloadToJson(*r.offload) : json(nullptr);
    j["energy"] = nullptr;
    if (const auto &e = r.energy)
        j["energy"] = {
            {"joules_per_token", e->joulesPerToken}, {"power_w", e->powerW}, {"utilization", e->utilization}};
    j["cost"] = nullptr;
    if (const auto &c = r.cost)
        j["cost"] = {{"usd_per_million_tokens", c->usdPerMillionTokens},
                     {"usd_per_device_hour", c->usdPerDeviceHour},
                     {"source", c->source}};
    return j;
}

json toJson(const MemoryFootprint &m)
{
    return {{"weights_bytes", m.weights},
            {"kv_bytes", m.kv},
            {"activation_bytes", m.activations},
            {"gradients_bytes", m.gradients},
            {"optimizer_bytes", m.optimizer},
            {"state_bytes", m.state},
            {"total_bytes_per_device", m.total()},
            {"capacity_bytes", m.capacity},
            {"fits", m.fits}};
}

json analysisToJson(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const Analysis &a)
{
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
                  {"mtp_params", a.params.mtp},
                  {"checkpoint_params", a.params.checkpoint},
                  {"vision_params", a.params.vision},
                  {"tokens_per_image", m.vision.tokensPerImage()},
                  {"weight_bytes", a.weightBytes},
                  {"layers", m.layers},
                  {"hidden", m.hidden},
                  {"heads", m.heads},
                  {"kv_heads", m.kvHeads},
                  {"max_positions", m.maxPositions}};
    j["scenario"] = toJson(s);
    // Past the model's positions: the sentence, else null.
    const std::string note = positionNote(m, s);
    j["position_note"] = note.empty() ? json(nullptr) : json(note);
    j["efficiency"] = {{"mode", toString(s.efficiency)},
                       {"compute", a.computeEfficiency},
                       {"memory", a.memoryEfficiency},
                       {"execution", toString(s.execution)},
                       {"allreduce", toString(s.allReduce)},
                       {"activation_scales", toString(s.activationScales)},
                       {"expert_activations", toString(s.expertActivations)}};
    // What the achievable figure rests on; "ideal": the device has no microbenchmark, so it is the ideal one.
    const std::string_view basis = achievableBasis(hw, s);
    j["efficiency"]["achievable_basis"] = basis.empty() ? json(nullptr) : json(basis);
    j["efficiency"]["achievable_is_ideal"] = basis == "ideal";
    const std::optional<MoeFormat> moe = m.isMoe() ? moeFormat(s) : std::nullopt;
    j["efficiency"]["moe_table"] = moe && !basis.empty() && !hw.achievable.moe[static_cast<std::size_t>(*moe)].empty()
                                       ? json(toString(*moe))
                                       : json(nullptr);
    // The MLA decode module measured whole, where the analysis read it (core/analysis/attention.cpp), in this format.
    const bool mla =
        std::any_of(a.operators.begin(), a.operators.end(), [](const Operator &o) { return o.moduleFraction > 0; });
    j["efficiency"]["mla_table"] = mla ? json(kMlaFormats[operatorRoofs(hw, s).mlaFormat]) : json(nullptr);
    j["kv_cache"] = {{"bytes_per_token", a.kvCache.bytesPerToken},
                     {"total_bytes", a.kvCache.totalBytes},
                     {"state_bytes_per_sequence", a.kvCache.stateBytesPerSequence},
                     {"state_bytes", a.kvCache.stateBytes}};
    j["memory"] = toJson(a.memory);
    j["totals"] = {{"flops", a.totals.flops},
                   {"bytes", a.totals.bytes},
                   {"arithmetic_intensity", a.totals.intensity},
                   {"time_s", a.totals.timeS},
                   {"time_s_low", a.totals.timeLowS},
                   {"time_s_high", a.totals.timeHighS},
                   {"launch_s", a.totals.launchS},
                   {"quantize_s", a.totals.quantizeS},
                   {"bound", toString(a.totals.bound)},
                   {"linear_bound", toString(a.totals.linearBound)},
                   {"tokens_per_s", a.totals.tokensPerS},
                   {"model_flops", a.totals.modelFlops},
                   {"achieved_flops_per_s", a.totals.achievedFlopsPerS}};
    j["parallelism"] = {{"tp", s.tp},
                        {"pp", s.pp},
                        {"dp", s.dp},
                        {"ep", s.ep},
                        {"attention_dp", s.attentionDp},
                        {"moe_tp", moeTp(s)},
                        {"moe_ep", moeEp(s)},
                        {"moe_imbalance", s.moeImbalance},
                        {"devices", deviceCount(s)},
                        {"comm_bytes", a.comm.bytes},
                        {"comm_time_s", a.comm.timeS},
                        {"tp_bytes", a.comm.tpBytes},
                        {"pp_bytes", a.comm.ppBytes},
                        {"dp_bytes", a.comm.dpBytes},
                        {"ep_bytes", a.comm.epBytes},
                        {"ep_dispatch_s", a.comm.epDispatchS},
                        {"ep_combine_s", a.comm.epCombineS},
                        {"alltoall", a.comm.allToAll.empty() ? json(nullptr) : json(a.comm.allToAll)},
                        {"link", a.comm.link}};
    if (s.phase == Phase::Generate)
        j["phases"] = {{"ttft_s", a.phases.ttftS}, {"tpot_s", a.phases.tpotS}, {"e2e_s", a.phases.e2eS}};
    j["operators"] = operatorsToJson(a);
    return j;
}

} // namespace memwall::core
