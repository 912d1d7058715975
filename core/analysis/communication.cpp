// ---- communication ----: tensor-parallel all-reduces, pipeline sends, expert all-to-alls and training's gradient
// all-reduce, over the scale-up link (or the host link), at the link's figures or the device's measured collectives.
#include "core/analysis/passcontext.h"

namespace memwall::core::detail {

namespace {

/// All-reduce: each device sends 2(p-1)/p of the message (the ring's bandwidth term, optimal for large messages)
/// and pays a fixed cost once: the link's published small-message latency for the ideal roofline, which the
/// collective library reaches with latency-optimal algorithms (charging the ring's 2(p-1) steps for it would make the
/// ideal slower than measured tensor-parallel decode); for the achievable time, what nccl-tests measured at this size.
void allReduce(double message, int p, double bw, double latency, double count, double *bytes, double *time)
{
    if (p <= 1 || count <= 0)
        return;
    const double sent = 2.0 * (p - 1) / p * message;
    *bytes += sent * count;
    *time += (sent / bw + latency) * count;
}

/// The link collectives run over, at its bandwidth and fixed cost per message. nccl-tests' curve (or the engine's
/// custom all-reduce, measured the same way): the fixed cost it measured at the message's size, plus the bytes each
/// device sends over the largest all-reduce's bus bandwidth. Pipeline sends and expert all-to-alls are charged the
/// same way.
struct CommLink
{
    const AchievableModel *measured = nullptr; ///< the device's collectives, when they are charged
    bool custom = false;
    double bandwidth = 0, latency = 0;
    double latencyAt(double bytes) const { return measured ? measured->allReduceLatencyAt(bytes, custom) : latency; }
};

CommLink commLink(const Ctx &c, Communication &comm)
{
    const HardwareSpec &hw = c.hw;
    const Scenario &s = c.s;
    CommLink l;
    if (const Interconnect *link = hw.scaleUpLink()) {
        l.bandwidth = link->bandwidthBytesPerS.value;
        l.latency = link->latencyS.value;
        comm.link = link->name;
    } else {
        for (const auto &lvl : hw.memory)
            if (lvl.kind == MemoryKind::Host) {
                l.bandwidth = lvl.bandwidthBytesPerS.value;
                l.latency = 10e-6; // a PCIe round trip through host memory; order of magnitude
                comm.link = lvl.name;
            }
    }
    const bool needLink = s.tp > 1 || s.pp > 1 || moeEp(s) > 1 || (s.dp > 1 && s.phase == Phase::Train);
    if (needLink && !(l.bandwidth > 0))
        refuse("hardware " + hw.id + " has no interconnect or host link to split a model over several devices");
    const bool achievable = s.efficiency == EfficiencyMode::Achievable;
    const bool measuredCollectives = achievable && hw.achievable.hasAllReduce() && hw.scaleUpLink();
    l.custom = s.allReduce == AllReduce::Custom;
    if (measuredCollectives) {
        l.measured = &hw.achievable;
        l.bandwidth = hw.achievable.allReduceBusBandwidth(l.custom);
    } else {
        l.bandwidth *= c.roofs.memoryEfficiency;
    }
    return l;
}

/// Bytes of one routed token copy's hidden vector that expert parallelism's dispatch sends: FP8 values and one fp32
/// scale per 128 where the experts run an 8-bit or narrower format (DeepEP's low-latency dispatch, as SGLang and
/// TensorRT-LLM run it for DeepSeek-V3: deepseek-ai/DeepEP README, "low-latency kernels ... FP8 dispatching"),
/// else the activations' format.
double dispatchBytesPerCopy(const Ctx &c)
{
    const WeightFormat &w = c.s.expertWeights ? *c.s.expertWeights : c.s.weights;
    return bits(w.type) <= 8 ? c.h * (1.0 + 4.0 / 128) : c.h * c.act;
}

/// One all-to-all half as an operator of its own (`moe.dispatch`, `moe.combine`), when the operators are kept: the
/// bytes it sends over the link and its time, both already in the step's communication (Operator::onLink()).
void emitLinkOp(const Ctx &c, std::string_view name, Phase phase, double layers, double linkBytes, double timeS)
{
    if (!c.ops)
        return;
    Operator &op = c.ops->emplace_back();
    op.name = name;
    op.cls = OpClass::Communication;
    op.phase = phase;
    op.count = layers;
    op.activationBytes = linkBytes;
    op.computeType = c.roofs.vectorType;
    op.timeS = timeS;
    op.bound = Bound::Communication;
    if (c.records)
        c.records->push_back({FlopTerms{}, 1, 0, 0, 0, 0, 0});
}

/// Expert parallelism's all-to-all of one pass, `times` times: this rank's routed token copies (its own tokens; with
/// attention DP, its share) dispatched to their experts' ranks and combined back (bf16), in each routed layer. With
/// achievable efficiency on a device with a measured all-to-all (DeepEP low-latency on one node), each takes the
/// measured time at the bytes this rank sends; otherwise the (ep-1)/ep of them that leave the device go at the
/// link's bandwidth, plus its latency ("ideal"). Each half is also an operator of the pass's `phase`.
void allToAll(const Ctx &c, const Step &st, const CommLink &l, Phase phase, double T, double times, Communication &comm)
{
    const int ep = moeEp(c.s);
    const double layers = st.layerCount * c.sparseLayers / static_cast<double>(c.m.layers) * times;
    const double copies = st.Bm * T * static_cast<double>(c.m.activeExperts);
    const double dispatch = copies * dispatchBytesPerCopy(c), combine = copies * c.h * 2;
    const double leave = (ep - 1.0) / ep;
    comm.epBytes += (dispatch + combine) * leave * layers;
    const AllToAllSweep *measured =
        c.s.efficiency == EfficiencyMode::Achievable && c.hw.achievable.allToAll ? &*c.hw.achievable.allToAll : nullptr;
    const double linkBw = c.hw.scaleUpLink() ? c.hw.scaleUpLink()->bandwidthBytesPerS.value : l.bandwidth;
    const double linkLatency = c.hw.scaleUpLink() ? c.hw.scaleUpLink()->latencyS.value : l.latency;
    const double d = measured ? measured->dispatch.timeAt(dispatch) : dispatch * leave / linkBw + linkLatency;
    const double k = measured ? measured->combine.timeAt(combine) : combine * leave / linkBw + linkLatency;
    comm.epDispatchS += d * layers;
    comm.epCombineS += k * layers;
    comm.timeS += (d + k) * layers;
    comm.allToAll = measured ? "measured" : "ideal";
    emitLinkOp(c, "moe.dispatch", phase, layers, dispatch * leave * layers, d * layers);
    emitLinkOp(c, "moe.combine", phase, layers, combine * leave * layers, k * layers);
}

/// One pass's exchanges over `T` new tokens per sequence, `count` times (`trainMul`: backward doubles them).
void commPass(const Ctx &c, const Step &st, const CommLink &l, Phase phase, double T, double count, double trainMul,
              Communication &comm)
{
    const Scenario &s = c.s;
    const double L = static_cast<double>(c.m.layers);
    const double msg = st.Bm * T * c.h * c.act;
    // Tensor parallelism: an all-reduce after each mixer and each FFN (two a layer; one in a layer of one part),
    // forward; backward doubles.
    // Routed experts not split by moe_tp combine by the all-to-all below instead. A part replaced by one linear layer
    // (DeciLM) ends on its split matrix too.
    const double perLayer = (c.attnLayers + c.ssmLayers + c.ffnLayers + c.linearMixerLayers + c.linearFfnLayers -
                             (moeTp(s) > 1 ? 0.0 : c.sparseLayers)) /
                            L;
    if (s.tp > 1) // the sweep's look-up only where there is an all-reduce (the search runs many tp 1 configs)
        allReduce(msg, s.tp, l.bandwidth, l.latencyAt(msg), perLayer * st.layerCount * count * trainMul, &comm.tpBytes,
                  &comm.timeS);
    // Norms over all heads' q and k (ModelShape::qkNormFullWidth, MiniMax-M2): a rank holds only some heads, so each
    // attention layer first all-reduces its tokens' two sums of squares (q's and k's, FP32), the reduction vLLM's and
    // SGLang's MiniMaxText01RMSNormTP runs.
    if (s.tp > 1 && c.m.qkNormFullWidth) {
        const double variances = st.Bm * T * 2 * 4.0;
        allReduce(variances, s.tp, l.bandwidth, l.latencyAt(variances),
                  c.attnLayers / L * st.layerCount * count * trainMul, &comm.tpBytes, &comm.timeS);
    }
    if (s.pp > 1) {
        const double transfers = (st.mb + s.pp - 2) * count * trainMul;
        comm.ppBytes += msg * st.mb * count * trainMul;
        comm.timeS += transfers * (msg / l.bandwidth + l.latencyAt(msg));
    }
    if (moeEp(s) > 1)
        allToAll(c, st, l, phase, T, count * trainMul, comm);
}

} // namespace

void addCommunication(const Ctx &c, const Step &st, Analysis &a)
{
    const Scenario &s = c.s;
    Communication &comm = a.comm;
    const CommLink l = commLink(c, comm);
    const double kvStep = s.kvCache ? st.stepTokens : st.ctx + st.stepTokens;
    switch (s.phase) {
    case Phase::Prefill: commPass(c, st, l, Phase::Prefill, st.prefillNew, 1, 1, comm); break;
    case Phase::Encode: commPass(c, st, l, Phase::Encode, st.seq, 1, 1, comm); break;
    case Phase::Train: commPass(c, st, l, Phase::Train, st.seq, 1, 2, comm); break;
    case Phase::Decode: commPass(c, st, l, Phase::Decode, kvStep, 1, 1, comm); break;
    case Phase::Generate:
        commPass(c, st, l, Phase::Prefill, st.prefillNew, 1, 1, comm);
        a.phases.ttftS += comm.timeS;
        if (s.output > 1)
            commPass(c, st, l, Phase::Decode, s.kvCache ? 1 : st.seq + (s.output - 1) / 2.0,
                     static_cast<double>(s.output - 1), 1, comm);
        break;
    }
    if (s.phase == Phase::Train && s.dp > 1) {
        // Gradient all-reduce over the replicas (ZeRO-3 also all-gathers weights: 1.5x the traffic).
        const double grads = localParams(a.params, s) * c.act;
        double dpTime = 0;
        allReduce(grads, s.dp, l.bandwidth, l.latencyAt(grads), s.zeroStage >= 3 ? 1.5 : 1.0, &comm.dpBytes, &dpTime);
        comm.timeS += dpTime;
    }
    comm.bytes = comm.tpBytes + comm.ppBytes + comm.dpBytes + comm.epBytes;
}

} // namespace memwall::core::detail
