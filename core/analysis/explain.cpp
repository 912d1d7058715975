#include "analysis/explain.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace memwall::core {

namespace {

std::string printf1(const char *fmt, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

std::string withCommas(int64_t v)
{
    const std::string digits = std::to_string(v < 0 ? -v : v);
    std::string out = v < 0 ? "-" : "";
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

/// What the run does, for "At batch 8, <phase> reaches ...".
std::string phasePhrase(const Scenario &s)
{
    switch (s.phase) {
    case Phase::Decode: return "decode";
    case Phase::Prefill: return "prefill of " + withCommas(s.seq) + " tokens";
    case Phase::Generate:
        return "generating " + withCommas(s.output) + " tokens after a " + withCommas(s.seq) + "-token prompt";
    case Phase::Encode: return "encoding " + withCommas(s.seq) + " tokens";
    case Phase::Train: return "a training step over " + withCommas(s.seq) + " tokens";
    }
    return "the run";
}

struct Traffic
{
    double weights = 0, kv = 0, activations = 0;
};

Traffic traffic(const Analysis &a)
{
    Traffic t;
    for (const Operator &op : a.operators) {
        t.weights += op.weightBytes;
        t.kv += op.kvBytes;
        t.activations += op.activationBytes;
    }
    return t;
}

std::string doesNotFit(const HardwareSpec &hw, const ModelShape &m, const Analysis &a)
{
    const MemoryFootprint &mem = a.memory;
    const std::array<std::pair<const char *, double>, 5> parts{{{"weights", mem.weights},
                                                                {"KV cache", mem.kv},
                                                                {"activations", mem.activations},
                                                                {"gradients", mem.gradients},
                                                                {"optimizer state", mem.optimizer}}};
    const auto largest = *std::max_element(parts.begin(), parts.end(),
                                           [](const auto &x, const auto &y) { return x.second < y.second; });
    std::string remedy = "quantize the weights or split the model over more devices with tp/pp";
    if (largest.first == std::string("KV cache"))
        remedy = "shorten the context, lower the batch or quantize the KV cache";
    else if (largest.first == std::string("activations"))
        remedy = "lower the batch or the sequence length, or fuse attention";
    else if (largest.first == std::string("optimizer state") || largest.first == std::string("gradients"))
        remedy = "shard the optimizer over the data-parallel replicas (ZeRO) or split the model with tp/pp";
    return m.name + " needs " + formatSi(mem.total(), "B") + " per device (" + formatSi(largest.second, "B") +
           " of it " + largest.first + ") but the " + hw.name + " holds " + formatSi(mem.capacity, "B") +
           ": it does not fit, so " + remedy + ".";
}

std::string communicationBound(const Scenario &s, const Analysis &a)
{
    std::string split;
    for (auto [name, v] : {std::pair{"tp", s.tp}, {"pp", s.pp}, {"dp", s.dp}, {"ep", s.ep}})
        if (v > 1)
            split += (split.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(v);
    const double share = a.totals.timeS > 0 ? a.comm.timeS / a.totals.timeS : 0.0;
    return "With " + (split.empty() ? std::string("several devices") : split) + ", moving " + formatSi(a.comm.bytes, "B") +
           " between devices over " + (a.comm.link.empty() ? std::string("the link") : a.comm.link) + " takes " +
           formatSi(a.comm.timeS, "s") + " of the " + formatSi(a.totals.timeS, "s") + " step (" + formatPercent(share) +
           "), more than compute or memory: communication sets the speed.";
}

std::string sideOfRidge(double intensity, double ridge)
{
    if (intensity < ridge / 10)
        return "far left of";
    if (intensity < ridge)
        return "left of";
    if (intensity < ridge * 10)
        return "right of";
    return "far right of";
}

} // namespace

std::string formatSi(double value, std::string_view unit, int significant)
{
    const std::string u(unit);
    if (!std::isfinite(value))
        return std::string(value > 0 ? "∞" : "-∞") + " " + u;
    if (value == 0)
        return "0 " + u;
    static constexpr std::array<const char *, 11> prefixes{"p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E"};
    const double mag = std::abs(value);
    int exp3 = static_cast<int>(std::floor(std::log10(mag) / 3.0));
    exp3 = std::clamp(exp3, -4, 6);
    double scaled = value / std::pow(1000.0, exp3);
    // Rounding may carry into the next prefix (999.7 -> 1000).
    const int digitsBefore = std::abs(scaled) >= 100 ? 3 : std::abs(scaled) >= 10 ? 2 : 1;
    int decimals = std::max(0, significant - digitsBefore);
    const double rounded = std::round(scaled * std::pow(10.0, decimals)) / std::pow(10.0, decimals);
    if (std::abs(rounded) >= 1000 && exp3 < 6) {
        ++exp3;
        scaled = value / std::pow(1000.0, exp3);
        decimals = std::max(0, significant - 1);
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, scaled);
    std::string number(buf);
    if (number.find('.') != std::string::npos) { // "80.0" -> "80", "1.50" -> "1.5"
        number.erase(number.find_last_not_of('0') + 1);
        if (number.back() == '.')
            number.pop_back();
    }
    return number + " " + prefixes[static_cast<std::size_t>(exp3) + 4] + u;
}

std::string formatRatio(double value)
{
    return std::abs(value) < 10 ? printf1("%.1f", value) : printf1("%.0f", value);
}

std::string formatPercent(double fraction)
{
    const double p = fraction * 100.0;
    return (std::abs(p) < 10 ? printf1("%.1f", p) : printf1("%.0f", p)) + " %";
}

std::string explain(const HardwareSpec &hw, const ModelShape &model, const Scenario &s, const Analysis &a)
{
    if (!a.memory.fits)
        return doesNotFit(hw, model, a);
    if (a.totals.bound == Bound::Communication)
        return communicationBound(s, a);

    const Traffic t = traffic(a);
    const double intensity = a.totals.intensity;
    std::string out = "At batch " + withCommas(s.batch) + ", " + phasePhrase(s) + " reaches " + formatRatio(intensity) +
                      " FLOP/byte, " + sideOfRidge(intensity, a.ridge) + " the " + hw.name + "'s ridge at " +
                      formatRatio(a.ridge) + ": ";
    const bool decoding = s.phase == Phase::Decode || s.phase == Phase::Generate;
    if (a.totals.bound == Bound::Memory) {
        if (decoding) {
            const bool all = a.memory.weights > 0 && t.weights / a.memory.weights > 0.9 && s.phase == Phase::Decode;
            // "all": the step streams (nearly) every weight the device holds; only unused embedding rows stay put.
            std::string reads = all ? "all " + formatSi(a.memory.weights, "B") + " of weights" : formatSi(t.weights, "B") + " of weights";
            if (t.kv > 0.1 * t.weights)
                reads += " and " + formatSi(t.kv, "B") + " of KV cache";
            const int64_t perReplica = s.batch / std::max(1, s.dp);
            if (s.phase == Phase::Generate)
                out += "the " + withCommas(s.output) + " decode steps read " + reads + " in all for only " +
                       withCommas(perReplica) + (perReplica == 1 ? " sequence" : " sequences") + " at a time";
            else if (perReplica == 1)
                out += "each token reads " + reads;
            else
                out += "each step reads " + reads + " to produce only " + withCommas(perReplica) + " tokens";
            out += ", so memory bandwidth sets the speed.";
        } else {
            out += "moving its " + formatSi(a.totals.bytes, "B") + " at " + formatSi(a.bandwidth, "B/s") +
                   " takes longer than its " + formatSi(a.totals.flops, "FLOP") + " at " + formatSi(a.peakFlops, "FLOP/s") +
                   ", so memory bandwidth sets the speed.";
        }
    } else {
        const int64_t perReplica = s.batch / std::max(1, s.dp);
        const int64_t tokens = perReplica * (decoding && s.phase == Phase::Decode ? 1 : s.seq);
        out += "each weight read is reused by " + withCommas(tokens) + (tokens == 1 ? " token" : " tokens") +
               ", so compute (" + formatSi(a.peakFlops, "FLOP/s") + " " + std::string(toString(a.matmulType)) +
               ") sets the speed.";
    }
    return out;
}

} // namespace memwall::core
