#include "core/analysis/scenario.h"

#include "core/analysis/options.h"
#include "core/model/modelshape.h"
#include "core/util/enumnames.h"

#include <array>
#include <utility>

namespace memwall::core {

namespace {
constexpr NameTable<Phase, 5> kPhase{{{Phase::Prefill, "prefill"},
                                      {Phase::Decode, "decode"},
                                      {Phase::Generate, "generate"},
                                      {Phase::Encode, "encode"},
                                      {Phase::Train, "train"}}};
constexpr NameTable<Recompute, 3> kRecompute{
    {{Recompute::None, "none"}, {Recompute::Selective, "selective"}, {Recompute::Full, "full"}}};
constexpr NameTable<Optimizer, 2> kOpt{{{Optimizer::Adam, "adam"}, {Optimizer::Sgd, "sgd"}}};
constexpr NameTable<KvOffload, 3> kOffload{
    {{KvOffload::None, "none"}, {KvOffload::Host, "host"}, {KvOffload::Storage, "storage"}}};
constexpr NameTable<EfficiencyMode, 2> kEff{
    {{EfficiencyMode::Ideal, "ideal"}, {EfficiencyMode::Achievable, "achievable"}}};
constexpr NameTable<Execution, 2> kExecution{{{Execution::Graphs, "graphs"}, {Execution::Eager, "eager"}}};
constexpr NameTable<AllReduce, 2> kAllReduce{{{AllReduce::Library, "library"}, {AllReduce::Custom, "custom"}}};
constexpr NameTable<ActivationScales, 3> kActivationScales{
    {{ActivationScales::Fused, "fused"}, {ActivationScales::Static, "static"}, {ActivationScales::Dynamic, "dynamic"}}};
constexpr NameTable<ExpertActivations, 2> kExpertActivations{
    {{ExpertActivations::Same, "same"}, {ExpertActivations::Mxfp8, "mxfp8"}}};
constexpr NameTable<Arrivals, 3> kArrivals{
    {{Arrivals::Spread, "spread"}, {Arrivals::Together, "together"}, {Arrivals::Rounds, "rounds"}}};
} // namespace

std::string_view toString(Arrivals a) { return enumName(kArrivals, a); }
std::optional<Arrivals> arrivalsFromString(std::string_view s) { return enumFromName(kArrivals, s); }
std::string_view toString(Phase p) { return enumName(kPhase, p); }
std::optional<Phase> phaseFromString(std::string_view s) { return enumFromName(kPhase, s); }
std::string_view toString(Recompute r) { return enumName(kRecompute, r); }
std::optional<Recompute> recomputeFromString(std::string_view s) { return enumFromName(kRecompute, s); }
std::string_view toString(Optimizer o) { return enumName(kOpt, o); }
std::optional<Optimizer> optimizerFromString(std::string_view s) { return enumFromName(kOpt, s); }
std::string_view toString(KvOffload k) { return enumName(kOffload, k); }
std::optional<KvOffload> kvOffloadFromString(std::string_view s) { return enumFromName(kOffload, s); }
std::string_view toString(EfficiencyMode e) { return enumName(kEff, e); }
std::optional<EfficiencyMode> efficiencyModeFromString(std::string_view s) { return enumFromName(kEff, s); }
std::string_view toString(Execution e) { return enumName(kExecution, e); }
std::optional<Execution> executionFromString(std::string_view s) { return enumFromName(kExecution, s); }
std::string_view toString(AllReduce a) { return enumName(kAllReduce, a); }
std::optional<AllReduce> allReduceFromString(std::string_view s) { return enumFromName(kAllReduce, s); }
std::string_view toString(ActivationScales a) { return enumName(kActivationScales, a); }
std::optional<ActivationScales> activationScalesFromString(std::string_view s)
{
    return enumFromName(kActivationScales, s);
}
std::string_view toString(ExpertActivations e) { return enumName(kExpertActivations, e); }
std::optional<ExpertActivations> expertActivationsFromString(std::string_view s)
{
    return enumFromName(kExpertActivations, s);
}

namespace {
/// attention_dp against the batch (moe_tp and moe_ep against the devices: moeSplitIssue(), when analysing).
std::string validateMoeSplit(const Scenario &s)
{
    const int64_t perReplica = s.batch / s.dp / s.microBatches;
    if (perReplica % s.attentionDp != 0)
        return "batch per replica and micro-batch (" + std::to_string(perReplica) +
               ") must be a multiple of attention_dp (" + std::to_string(s.attentionDp) + ")";
    return {};
}
} // namespace

std::string moeSplitIssue(const Scenario &s)
{
    const int64_t devices = int64_t{s.tp} * s.attentionDp * s.ep;
    const auto given = [](int v) { return v > 0 ? std::to_string(v) : std::string("auto"); };
    const bool divides = (s.moeTp == 0 || devices % s.moeTp == 0) && (s.moeEp == 0 || devices % s.moeEp == 0);
    if (divides && int64_t{moeTp(s)} * moeEp(s) == devices)
        return {};
    return "moe_tp " + given(s.moeTp) + " x moe_ep " + given(s.moeEp) + " must equal tp " + std::to_string(s.tp) +
           " x attention_dp " + std::to_string(s.attentionDp) + (s.ep > 1 ? " x ep " + std::to_string(s.ep) : "") +
           " = " + std::to_string(devices) + " devices per stage";
}

const std::vector<const ScenarioOption *> &rangeCheckedOptions()
{
    static const std::vector<const ScenarioOption *> options = [] {
        std::vector<const ScenarioOption *> v;
        for (const ScenarioOption &o : scenarioOptions())
            if (o.section == OptionSection::Scenario && (o.kind == OptionKind::Integer || o.kind == OptionKind::Real))
                v.push_back(&o);
        return v;
    }();
    return options;
}

namespace {
/// The first of `options` out of its range in `s`: "KEY reason", or "".
std::string rangeIssue(const Scenario &s, const std::vector<const ScenarioOption *> &options)
{
    const WhatIf unused;
    for (const ScenarioOption *o : options)
        if (const OptionValue v = o->get(s, unused); !optionAccepts(*o, v))
            return std::string(o->key) + " " + checkOption(*o, v);
    return {};
}

/// What relates the scenario's fields to one another (each field's own range is rangeIssue()'s).
std::string relationIssue(const Scenario &s)
{
    if (s.batch % s.dp != 0)
        return "batch (" + std::to_string(s.batch) + ") must be a multiple of dp (" + std::to_string(s.dp) + ")";
    if ((s.batch / s.dp) % s.microBatches != 0)
        return "batch per replica (" + std::to_string(s.batch / s.dp) + ") must be a multiple of micro_batches (" +
               std::to_string(s.microBatches) + ")";
    if (auto e = validateMoeSplit(s); !e.empty())
        return e;
    if ((s.prefillDevices > 0) != (s.decodeDevices > 0))
        return "disaggregate needs both pools: prefill " + std::to_string(s.prefillDevices) + ", decode " +
               std::to_string(s.decodeDevices) + " devices";
    if (s.images < 0 || s.images > 1024)
        return "images must be between 0 and 1024, got " + std::to_string(s.images);
    if (s.weights.groupSize < 0)
        return "weight group size must not be negative, got " + std::to_string(s.weights.groupSize);
    return {};
}
} // namespace

std::string validate(const Scenario &s)
{
    // Each field's own range comes from the option table; then what relates fields to one another.
    if (auto e = rangeIssue(s, rangeCheckedOptions()); !e.empty())
        return e;
    return relationIssue(s);
}

std::string validateVaried(const Scenario &s, const std::vector<const ScenarioOption *> &varied)
{
    if (auto e = rangeIssue(s, varied); !e.empty())
        return e;
    return relationIssue(s);
}

int64_t imageTokens(const Scenario &s, const ModelShape &m) { return s.images * m.vision.tokensPerImage(); }

Scenario withImageTokens(const Scenario &s, const ModelShape &m, std::string *issue)
{
    issue->clear();
    Scenario out = s;
    if (s.images == 0)
        return out;
    if (!m.vision.present()) {
        *issue = "images " + std::to_string(s.images) + " needs a model with a vision tower; " + m.id + " has none";
        return out;
    }
    if (s.phase == Phase::Encode || s.phase == Phase::Train) {
        *issue = "images apply to prefill, decode and generate, not " + std::string(toString(s.phase));
        return out;
    }
    const int64_t tokens = imageTokens(s, m);
    if (s.phase == Phase::Decode)
        out.context += tokens;
    else
        out.seq += tokens;
    if (out.seq > kMaxTokens || out.context > kMaxTokens)
        *issue = "images " + std::to_string(s.images) + " add " + std::to_string(tokens) +
                 " image tokens, more than the " + std::to_string(kMaxTokens) + " a request may hold";
    return out;
}

void adaptToModel(Scenario &s, const ModelShape &m, bool keepPhase, bool keepSeq, bool keepFormats)
{
    // A quantized checkpoint's formats (its quantization_config, core/io/hfquant.cpp).
    if (!keepFormats && m.checkpointWeights) {
        s.weights = *m.checkpointWeights;
        s.expertWeights = m.checkpointExpertWeights;
        s.unquantizedEmbeddings = m.checkpointUnquantizedEmbeddings;
        s.weightZeroPoints = m.checkpointZeroPoints;
    }
    if (!keepPhase && m.arch == Architecture::Encoder && (s.phase == Phase::Decode || s.phase == Phase::Generate))
        s.phase = Phase::Encode;
    if (!keepSeq && m.patchInputs > 0 && m.maxPositions > 0)
        s.seq = m.maxPositions;
}

} // namespace memwall::core
