#include "analysis/scenario.h"

#include <array>
#include <cmath>
#include <utility>

namespace memwall::core {

namespace {
template <typename E, std::size_t N>
std::optional<E> lookup(const std::array<std::pair<E, std::string_view>, N> &t, std::string_view s)
{
    for (const auto &[e, n] : t)
        if (n == s)
            return e;
    return std::nullopt;
}
template <typename E, std::size_t N>
std::string_view nameOf(const std::array<std::pair<E, std::string_view>, N> &t, E e)
{
    for (const auto &[v, n] : t)
        if (v == e)
            return n;
    return "?";
}
constexpr std::array<std::pair<Phase, std::string_view>, 5> kPhase{{{Phase::Prefill, "prefill"},
                                                                    {Phase::Decode, "decode"},
                                                                    {Phase::Generate, "generate"},
                                                                    {Phase::Encode, "encode"},
                                                                    {Phase::Train, "train"}}};
constexpr std::array<std::pair<Recompute, std::string_view>, 3> kRecompute{
    {{Recompute::None, "none"}, {Recompute::Selective, "selective"}, {Recompute::Full, "full"}}};
constexpr std::array<std::pair<Optimizer, std::string_view>, 2> kOpt{{{Optimizer::Adam, "adam"}, {Optimizer::Sgd, "sgd"}}};
constexpr std::array<std::pair<EfficiencyMode, std::string_view>, 2> kEff{
    {{EfficiencyMode::Ideal, "ideal"}, {EfficiencyMode::Achievable, "achievable"}}};
} // namespace

std::string_view toString(Phase p) { return nameOf(kPhase, p); }
std::optional<Phase> phaseFromString(std::string_view s) { return lookup(kPhase, s); }
std::string_view toString(Recompute r) { return nameOf(kRecompute, r); }
std::optional<Recompute> recomputeFromString(std::string_view s) { return lookup(kRecompute, s); }
std::string_view toString(Optimizer o) { return nameOf(kOpt, o); }
std::optional<Optimizer> optimizerFromString(std::string_view s) { return lookup(kOpt, s); }
std::string_view toString(EfficiencyMode e) { return nameOf(kEff, e); }
std::optional<EfficiencyMode> efficiencyModeFromString(std::string_view s) { return lookup(kEff, s); }

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
