#include "analysis/scenario.h"

#include "util/enumnames.h"

#include <array>
#include <cmath>
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
constexpr NameTable<EfficiencyMode, 2> kEff{
    {{EfficiencyMode::Ideal, "ideal"}, {EfficiencyMode::Achievable, "achievable"}}};
} // namespace

std::string_view toString(Phase p) { return enumName(kPhase, p); }
std::optional<Phase> phaseFromString(std::string_view s) { return enumFromName(kPhase, s); }
std::string_view toString(Recompute r) { return enumName(kRecompute, r); }
std::optional<Recompute> recomputeFromString(std::string_view s) { return enumFromName(kRecompute, s); }
std::string_view toString(Optimizer o) { return enumName(kOpt, o); }
std::optional<Optimizer> optimizerFromString(std::string_view s) { return enumFromName(kOpt, s); }
std::string_view toString(EfficiencyMode e) { return enumName(kEff, e); }
std::optional<EfficiencyMode> efficiencyModeFromString(std::string_view s) { return enumFromName(kEff, s); }

std::string validate(const Scenario &s)
{
    auto num = [](double v) {
        std::string t = std::to_string(v);
        return t;
    };
    if (s.batch < 1)
        return "batch must be at least 1, got " + std::to_string(s.batch);
    if (s.seq < 1)
        return "seq must be at least 1, got " + std::to_string(s.seq);
    if (s.context < 0)
        return "context must not be negative, got " + std::to_string(s.context);
    if (s.output < 1)
        return "output must be at least 1, got " + std::to_string(s.output);
    for (auto [f, v] : {std::pair{"tp", s.tp}, {"pp", s.pp}, {"dp", s.dp}, {"ep", s.ep}, {"micro_batches", s.microBatches}})
        if (v < 1)
            return std::string(f) + " must be at least 1, got " + std::to_string(v);
    if (s.batch % s.dp != 0)
        return "batch (" + std::to_string(s.batch) + ") must be a multiple of dp (" + std::to_string(s.dp) + ")";
    if ((s.batch / s.dp) % s.microBatches != 0)
        return "batch per replica (" + std::to_string(s.batch / s.dp) + ") must be a multiple of micro_batches (" +
               std::to_string(s.microBatches) + ")";
    if (s.weights.groupSize < 0)
        return "weight group size must not be negative, got " + std::to_string(s.weights.groupSize);
    for (auto [f, v] : {std::pair{"compute_efficiency", s.computeEfficiency}, {"memory_efficiency", s.memoryEfficiency}})
        if (v && !(*v > 0.0 && *v <= 1.0))
            return std::string(f) + " must be in (0, 1], got " + num(*v);
    for (auto [f, v] : {std::pair{"structured_sparsity", s.structuredSparsity}, {"unstructured_sparsity", s.unstructuredSparsity}})
        if (!(v >= 0.0 && v < 1.0))
            return std::string(f) + " must be in [0, 1), got " + num(v);
    if (s.zeroStage < 0 || s.zeroStage > 3)
        return "zero stage must be 0..3, got " + std::to_string(s.zeroStage);
    return {};
}

} // namespace memwall::core
