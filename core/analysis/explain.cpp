#include "core/analysis/explain.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace memwall::core {

namespace {

/// " and N images": a request's images, whose tokens the prompt's prefill takes too.
std::string imagesPhrase(const Scenario &s)
{
    return " and " + formatGrouped(s.images) + (s.images == 1 ? " image" : " images");
}

/// What the run does, for "At batch 8, <phase> reaches ...".
std::string phasePhrase(const Scenario &s)
{
    switch (s.phase) {
    case Phase::Decode: return "decode";
    case Phase::Prefill:
        return "prefill of " + formatGrouped(s.seq) + " tokens" + (s.images > 0 ? imagesPhrase(s) : std::string());
    case Phase::Generate:
        return "generating " + formatGrouped(s.output) + " tokens after a " + formatGrouped(s.seq) + "-token prompt" +
               (s.images > 0 ? imagesPhrase(s) : std::string());
    case Phase::Encode: return "encoding " + formatGrouped(s.seq) + " tokens";
    case Phase::Train: return "a training step over " + formatGrouped(s.seq) + " tokens";
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
        if (op.onLink())
            continue; // bytes over the link, not from memory
        t.weights += op.weightBytes;
        t.kv += op.kvBytes;
        t.activations += op.activationBytes;
    }
    return t;
}

std::string doesNotFit(const HardwareSpec &hw, const ModelShape &m, const Analysis &a)
{
    const MemoryFootprint &mem = a.memory;
    const std::array<std::pair<const char *, double>, 6> parts{{{"weights", mem.weights},
                                                                {"KV cache", mem.kv},
                                                                {"activations", mem.activations},
                                                                {"gradients", mem.gradients},
                                                                {"optimizer state", mem.optimizer},
                                                                {"recurrent state", mem.state}}};
    const auto largest =
        *std::max_element(parts.begin(), parts.end(), [](const auto &x, const auto &y) { return x.second < y.second; });
    std::string remedy = "quantize the weights or split the model over more devices with tp/pp";
    if (largest.first == std::string("KV cache") || largest.first == std::string("recurrent state"))
        remedy = "shorten the context, lower the batch or quantize the KV cache";
    else if (largest.first == std::string("activations"))
        remedy = "lower the batch or the sequence length, or fuse attention";
    else if (largest.first == std::string("optimizer state") || largest.first == std::string("gradients"))
        remedy = "shard the optimizer over the data-parallel replicas (ZeRO) or split the model with tp/pp";
    return m.name + " needs " + formatBytes(mem.total()) + " per device (" + formatBytes(largest.second) + " of it " +
           largest.first + ") but the " + hw.name + " holds " + formatBytes(mem.capacity) + ": it does not fit, so " +
           remedy + ".";
}

std::string communicationBound(const Scenario &s, const Analysis &a)
{
    std::string split;
    for (auto [name, v] : {std::pair{"tp", s.tp}, {"pp", s.pp}, {"dp", s.dp}, {"ep", s.ep}})
        if (v > 1)
            split += (split.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(v);
    const double share = a.totals.timeS > 0 ? a.comm.timeS / a.totals.timeS : 0.0;
    return "With " + (split.empty() ? std::string("several devices") : split) + ", moving " +
           formatBytes(a.comm.bytes) + " between devices over " +
           (a.comm.link.empty() ? std::string("the link") : a.comm.link) + " takes " + formatSeconds(a.comm.timeS) +
           " of the " + formatSeconds(a.totals.timeS) + " step (" + formatPercent(share) +
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

/// The sentence on what limits the run (explain() without the position note).
static std::string limitSentence(const HardwareSpec &hw, const ModelShape &model, const Scenario &s, const Analysis &a)
{
    if (!a.memory.fits)
        return doesNotFit(hw, model, a);
    if (a.totals.bound == Bound::Communication)
        return communicationBound(s, a);

    const Traffic t = traffic(a);
    const double intensity = a.totals.intensity;
    // The ridge the analysis compared with: with achievable (or explicit) efficiencies, the achievable peak over the
    // achievable bandwidth, not the datasheet's.
    const bool derated =
        a.computeEfficiency != 1.0 || a.memoryEfficiency != 1.0 || s.efficiency == EfficiencyMode::Achievable;
    std::string out = "At batch " + formatGrouped(s.batch) + ", " + phasePhrase(s) + " reaches " +
                      formatRatio(intensity) + " FLOP/byte, " + sideOfRidge(intensity, a.ridge) + " the " + hw.name +
                      "'s " + (derated ? "achievable ridge" : "ridge") + " at " + formatRatio(a.ridge);
    // The label (and the verdict below) sums the operators' own bounds: a step left of the ridge can still spend most
    // of its time in compute-bound matmuls (attention's low intensity pulls the average down), and the other way
    // round. Say so rather than contradict the label.
    const bool computeBound = a.totals.bound == Bound::Compute;
    if ((intensity >= a.ridge) != computeBound)
        out += computeBound ? ", yet its compute-bound operators take most of its time"
                            : ", yet its memory-bound operators take most of its time";
    out += ": ";
    const bool decoding = s.phase == Phase::Decode || s.phase == Phase::Generate;
    if (a.totals.bound == Bound::Memory) {
        if (decoding) {
            const bool all = a.memory.weights > 0 && t.weights / a.memory.weights > 0.9 && s.phase == Phase::Decode;
            // "all": the step streams (nearly) every weight the device holds; only unused embedding rows stay put.
            std::string reads =
                all ? "all " + formatBytes(a.memory.weights) + " of weights" : formatBytes(t.weights) + " of weights";
            // State-space layers read their state where attention reads its KV cache.
            const char *cache = a.memory.state <= 0 ? " of KV cache"
                                : a.memory.kv > 0   ? " of KV cache and state"
                                                    : " of recurrent state";
            if (t.kv > 0.1 * t.weights)
                reads += " and " + formatBytes(t.kv) + cache;
            const int64_t perReplica = s.batch / std::max(1, s.dp);
            if (s.phase == Phase::Generate)
                out += "the " + formatGrouped(s.output) + " decode steps read " + reads + " in all for only " +
                       formatGrouped(perReplica) + (perReplica == 1 ? " sequence" : " sequences") + " at a time";
            else if (perReplica == 1)
                out += "each token reads " + reads;
            else
                out += "each step reads " + reads + " to produce only " + formatGrouped(perReplica) + " tokens";
            out += ", so memory bandwidth sets the speed.";
        } else {
            out += "moving its " + formatBytes(a.totals.bytes) + " at " + formatSi(a.bandwidth, "B/s") +
                   " takes longer than its " + formatSi(a.totals.flops, "FLOP") + " at " +
                   formatSi(a.peakFlops, "FLOP/s") + ", so memory bandwidth sets the speed.";
        }
    } else {
        const int64_t perReplica = s.batch / std::max(1, s.dp);
        // A request's images are prompt tokens too.
        const int64_t tokens = perReplica * (decoding && s.phase == Phase::Decode ? 1 : s.seq + imageTokens(s, model));
        out += "each weight read is reused by " + formatGrouped(tokens) + (tokens == 1 ? " token" : " tokens") +
               ", so compute (" + formatSi(a.peakFlops, "FLOP/s") + " " + std::string(toString(a.matmulType)) +
               ") sets the speed.";
    }
    return out;
}

std::string explain(const HardwareSpec &hw, const ModelShape &model, const Scenario &s, const Analysis &a)
{
    const std::string note = positionNote(model, s);
    return limitSentence(hw, model, s, a) + (note.empty() ? "" : " " + note);
}

int64_t positionsUsed(const Scenario &s)
{
    switch (s.phase) {
    case Phase::Decode: return s.context + 1;
    case Phase::Generate: return s.seq + std::max<int64_t>(s.output - 1, 0);
    case Phase::Prefill:
    case Phase::Encode:
    case Phase::Train: break;
    }
    return s.seq;
}

std::string positionNote(const ModelShape &model, const Scenario &s)
{
    // The image tokens of a request take positions as its text does.
    const int64_t used =
        positionsUsed(s) + (s.phase == Phase::Train || s.phase == Phase::Encode ? 0 : imageTokens(s, model));
    if (model.maxPositions <= 0 || used <= model.maxPositions)
        return {};
    const std::string head =
        "Note: this run reaches position " + formatGrouped(used) + ", past the " + formatGrouped(model.maxPositions);
    if (model.positions == PositionEncoding::Learned)
        return head + " positions " + model.name + " learned; it has no position embedding beyond them.";
    return head + " tokens " + model.name + " was trained on; the figures hold, but the model's output may not.";
}

} // namespace memwall::core
