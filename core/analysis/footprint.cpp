// ---- memory footprint per device ----: weights, KV cache and state, live activations (with training's stored
// activations, counted tensor by tensor), gradients and optimizer state.
#include "core/analysis/footprint.h"
#include "core/analysis/passcontext.h"

#include <algorithm>

namespace memwall::core {

WeightBytes bytesPerWeight(const ModelShape &m, const Scenario &s)
{
    // Structured sparsity removes weights and their FLOPs; unstructured removes weights but keeps dense FLOPs and
    // pays a 1-bit-per-weight mask.
    // A zero point per group, in the weight format (GPTQ/AWQ): bits(type) / group more bits per weight.
    auto of = [&s](const WeightFormat &f) {
        const double zeroPoints =
            s.weightZeroPoints && f.groupSize > 0 ? static_cast<double>(bits(f.type)) / 8.0 / f.groupSize : 0.0;
        double b = (f.bytesPerWeight() + zeroPoints) * (1.0 - s.structuredSparsity);
        if (s.unstructuredSparsity > 0)
            b = b * (1.0 - s.unstructuredSparsity) + 1.0 / 8.0;
        return b;
    };
    WeightBytes w;
    w.weights = of(s.weights);
    w.experts = m.isMoe() && s.expertWeights ? of(*s.expertWeights) : w.weights;
    w.embeddings = s.unquantizedEmbeddings ? 2.0 : w.weights;
    return w;
}

namespace {

/// weightsPerDevice() at the bytes per weight `w`.
double weightsOnDevice(const ParamCounts &params, const Scenario &s, const WeightBytes &w)
{
    // The embedding and the head (with the norms beside them) at their own bytes per weight; on a device, their share
    // follows the same split as the other non-expert weights. Likewise the routed experts at theirs.
    const double embedParams = static_cast<double>(params.embedding + params.head);
    const double expertParams = static_cast<double>(params.routed);
    double weights = detail::localParams(params, s) * w.weights +
                     embedParams / (static_cast<double>(s.tp) * s.pp) * (w.embeddings - w.weights) +
                     expertParams / (static_cast<double>(moeTp(s)) * s.pp * moeEp(s)) * (w.experts - w.weights);
    if (s.phase == Phase::Train && s.zeroStage >= 3)
        weights /= s.dp;
    return weights;
}

} // namespace

double weightsPerDevice(const ModelShape &m, const ParamCounts &params, const Scenario &s)
{
    // The multi-token-prediction modules are loaded only to draft tokens (vLLM and SGLang load them with MTP
    // speculative decoding); they share the model's embedding and head, so their stored copies stay on disk.
    if (s.speculativeK > 0 && s.draftModel == "mtp" && params.mtp > 0) {
        ParamCounts withMtp = params;
        withMtp.total += params.mtp;
        withMtp.routed += params.mtpRouted;
        return weightsOnDevice(withMtp, s, bytesPerWeight(m, s));
    }
    return weightsOnDevice(params, s, bytesPerWeight(m, s));
}

namespace detail {

double localParams(const ParamCounts &params, const Scenario &s)
{
    // moe_tp x moe_ep splits the routed experts; everything else, the shared expert too, is split by tp alone and
    // whole on every expert-parallel and attention-DP rank.
    const double expertParams = static_cast<double>(params.routed);
    const double nonExpert = static_cast<double>(params.total) - expertParams;
    return nonExpert / (static_cast<double>(s.tp) * s.pp) +
           expertParams / (static_cast<double>(moeTp(s)) * s.pp * moeEp(s));
}

namespace {

/// Keys per query over the attention layers: in the layers with the widest window (the score matrix's peak), and on
/// average over all layers (a state-space layer attends none).
struct KeysPerQuery
{
    double widest = 0, mean = 0;
};
KeysPerQuery keysPerQuery(const Ctx &c, double keysBefore)
{
    KeysPerQuery k;
    for (const LayerGroup &g : c.groups) {
        if (!g.block.attends())
            continue; // no keys: a state, or no mixer
        const double keys = g.block.window > 0 ? std::min(keysBefore, static_cast<double>(g.block.window)) : keysBefore;
        k.widest = std::max(k.widest, keys);
        k.mean += keys * static_cast<double>(g.count) / static_cast<double>(c.m.layers);
    }
    return k;
}

/// The mixer's widest output (per token, elements), and what its backward pass keeps per token: attention's Q, K, V
/// and out-projection input; MLA's Q and K (qk wide per head), V and the out-projection input (v wide), and the latent
/// and the queries' low-rank input that kv_b_proj and q_b_proj read; a state-space layer's in_proj output (its widest),
/// the convolution's output, and the scan's output before and after the gate.
struct MixerActivations
{
    double widest = 0, attnStored = 0, ssmStored = 0, linearStored = 0;
};
MixerActivations mixerActivations(const Ctx &c)
{
    const ModelShape &m = c.m;
    // Gated attention: q_proj's gate, and its product; a gate per head (Step-3.5's g_proj): one element a head.
    const double gate = (m.attentionOutputGate ? c.qd : 0.0) + (m.headWiseGate ? c.hq : 0.0);
    MixerActivations x{c.qd + gate + 2 * c.kvdWidest, 2 * c.qd + 2 * c.kvdMean + 2 * gate, 0};
    if (c.globalLayers > 0) { // Gemma 4's global layers: their own widths, their share of the attention layers
        const double qd =
            static_cast<double>(c.globalWidths.heads / c.s.tp) * static_cast<double>(c.globalWidths.headDim);
        const double kvd =
            kvHeadsOnDevice(c.globalWidths.kvHeads, c.s.tp) * static_cast<double>(c.globalWidths.headDim);
        const double share = c.globalLayers / c.attnLayers;
        x.widest = std::max(x.widest, qd + (c.globalWidths.valueProjection ? 2 : 1) * kvd);
        x.attnStored = (1 - share) * x.attnStored + share * (2 * qd + 2 * kvd);
    }
    if (m.mixer == MixerKind::Mla) {
        const MlaShape &ml = m.mla;
        const double qk = static_cast<double>(ml.qkNopeHeadDim + ml.qkRopeHeadDim);
        const double v = static_cast<double>(ml.vHeadDim);
        x.widest = std::max(c.hq * qk + static_cast<double>(ml.cachedPerToken()),
                            c.hq * (static_cast<double>(ml.qkNopeHeadDim) + v));
        x.attnStored = 2 * c.hq * qk + 2 * c.hq * v + static_cast<double>(ml.kvLoraRank + ml.qLoraRank);
    }
    if (c.attnLayers / static_cast<double>(m.layers) == 0)
        x.widest = x.attnStored = 0;
    if (c.ssmLayers / static_cast<double>(m.layers) > 0) {
        const SsmWidths w = ssmWidths(m, c.s.tp);
        x.widest = std::max(x.widest, w.inProj);
        x.ssmStored = w.inProj + w.conv + 2 * w.inner;
    }
    if (c.linearLayers > 0) { // as a state-space layer: in_proj's output, the convolution's, the scan's before and
                              // after the gated norm
        const LinearAttentionShape &l = m.linear;
        const double tp = c.s.tp;
        const double key = static_cast<double>(l.keyDim()) / tp, value = static_cast<double>(l.valueDim()) / tp;
        const double inProj = 2 * key + 2 * value + 2 * static_cast<double>(l.valueHeads) / tp;
        x.widest = std::max(x.widest, inProj);
        x.linearStored = inProj + 2 * key + value + 2 * value;
    }
    return x;
}

} // namespace

// Activations stored per layer for the backward pass, in bytes per token of this device, counted tensor by tensor
// the way Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models", section 4.1)
// count a GPT block: s*b*h*(34 + 5*a*s/h) bytes at 16 bits. Here act = bytes per activation (2 at 16 bits),
// qd/kvd/ffn/hq are this device's shares under tensor parallelism:
//   norms:      each norm keeps its input and its output feeds the next matmul, which keeps it:
//               h * (inputs + outputs) * act; sequential blocks 2 + 2 (Korthikanti's 4sbh of LayerNorm inputs plus
//               the 2sbh inputs of the QKV and first MLP matmuls); parallel attention reads one input (1 + 2, or
//               1 + 1 with a shared norm). RMSNorm keeps the same input as LayerNorm; the per-token statistics (4-8 B
//               a token) are left out, as there.
//   attention:  Q (after rotary), K and V for the QK^T and PV backward, and the out-projection input:
//               (qd + 2*kvd + qd) * act; Korthikanti's 4sbh (Q, K) + 2sbh (V) + 2sbh (out input).
//   MLP, plain: the activation's input and output (the down projection's input): 2 * ffn * act; Korthikanti's
//               8sbh + 8sbh at ffn = 4h (plus the 2sbh MLP input, counted with the norms).
//   MLP, gated: gate and up (the SwiGLU/GeGLU input) and their product (the down input): 3 * ffn * act; the
//               activation of the gate is recomputed from it, as in fused SwiGLU kernels.
//   scores:     unfused attention keeps the softmax output, hq * keys * act (Korthikanti's 2as^2b); fused
//               (FlashAttention) keeps only each query row's softmax log-sum-exp in FP32, 4 * hq bytes: nothing grows
//               with s^2.
//   dropout:    none (the LLMs here pretrain without it). Korthikanti count 1-byte masks after attention and MLP
//               (2sbh) and the attention-dropout mask and output (3as^2b): with them this count is exactly their
//               34 + 5as/h for a GPT block (tests/core/tst_analysis.cpp).
// Mixture of experts: the MLP terms count the routed copies that reach this device's experts (k * local / E per
// token) and the shared expert, which every token reaches; dispatch buffers and router logits are left out.
// Llama 2 7B (h 4096, 32 heads, ffn 11008, fused, 16-bit): 2*(4*4096 + 2*4096 + 2*4096 + 3*11008) + 4*32
// = 131,712 B per token per layer, about 32.2*s*b*h instead of the GPT block's 34*s*b*h + 5*a*s^2*b.
// Selective recomputation recomputes the attention core (no score or statistics term); full keeps only each layer's
// input (h * act). A post-norm keeps its input for the backward pass; its output only joins the residual. A layer of
// one part (Mamba's, a layer pattern's) has one norm.
double storedActivationsPerToken(const Ctx &c, double meanKeys)
{
    const ModelShape &m = c.m;
    const Scenario &s = c.s;
    const double L = static_cast<double>(m.layers);
    const double linearShare = c.linearLayers / L;
    const double ssmShare = c.ssmLayers / L, attnShare = c.attnLayers / L, ffnShare = c.ffnLayers / L;
    const double sparse = c.sparseLayers / L;
    const MixerActivations x = mixerActivations(c);
    const bool onePart = c.attnLayers + c.ssmLayers + c.ffnLayers == L;
    double normInputs = onePart ? 1 : (m.parallelAttention ? 1 : 2) + (m.postNorms ? 2 : 0);
    double normOutputs = onePart || (m.parallelAttention && m.sharedLayerNorm) ? 1 : 2;
    const double expertShare =
        m.isMoe() ? static_cast<double>(m.activeExperts) * c.localExperts / static_cast<double>(m.experts) : 1.0;
    // meanKeys already averages over all layers (a state-space layer attends none).
    const double scoreBytes = s.fusedAttention ? 4.0 * c.hq * attnShare : c.hq * meanKeys * c.act;
    // The FFN per layer on average: routed layers keep their experts' and the shared expert's terms, a MoE model's
    // dense layers their dense FFN's.
    // Gemma 4's MoE layers keep their dense MLP's too (LayerFfn::DenseAndMoe), and the inputs of their three more
    // norms.
    const double beside = c.besideLayers / L;
    double ffnStored = m.isMoe() ? sparse * (expertShare * c.ffn + c.sharedFfn) + (1 - sparse + beside) * c.denseFfn
                                 : c.ffn * ffnShare;
    if (!m.layerBlocks.empty()) { // one block a layer (DeciLM): each dense layer its own width, and a norm a part
        ffnStored = 0;
        for (const LayerGroup &g : c.groups)
            if (g.block.ffn == LayerFfn::Dense)
                ffnStored += static_cast<double>(g.count) * static_cast<double>(denseFfnWidth(m, g.block) / s.tp) / L;
        normInputs = normOutputs = (c.attnLayers + c.linearMixerLayers + c.ffnLayers + c.linearFfnLayers) / L;
    }
    // Gemma 3n, on top of its Gemma layer's: AltUp keeps the layer's n input streams (predict's matmul) and the n
    // predictions (correct's sum), and the layer's output its second router norm reads: (2n + 1) x hidden; LAuReL
    // the rank-wide input of linear_right and the input of its norm: rank + hidden.
    const double streams = static_cast<double>(std::max<int64_t>(1, m.altupInputs));
    const double gemma3n = (m.altupInputs > 0 ? (2 * streams + 1) * c.h : 0.0) +
                           (m.laurelRank > 0 ? static_cast<double>(m.laurelRank) + c.h : 0.0);
    const double perTokenNoScores =
        c.act * (c.h * (normInputs + normOutputs + 3 * beside) + attnShare * x.attnStored + ssmShare * x.ssmStored +
                 linearShare * x.linearStored + ffnStored * (m.gatedFfn ? 3.0 : 2.0) + gemma3n);
    if (s.recompute == Recompute::Selective)
        return perTokenNoScores;
    if (s.recompute == Recompute::Full)
        return streams * c.h * c.act; // each layer's input: AltUp's n streams
    return perTokenNoScores + scoreBytes;
}

namespace {

/// The live activations at the step's peak: the widest tensor in and out, the score matrix of unfused attention, the
/// FP32 logits, and in training every layer's stored activations for the micro-batches in flight.
double liveActivations(const Ctx &c, const Step &st)
{
    const ModelShape &m = c.m;
    const Scenario &s = c.s;
    const bool prefills = s.phase == Phase::Prefill || s.phase == Phase::Generate;
    const double T = s.phase == Phase::Decode ? (s.kvCache ? st.stepTokens : st.ctx + st.stepTokens)
                     : prefills               ? st.prefillNew
                                              : st.seq;
    const KeysPerQuery keys = keysPerQuery(c, s.phase == Phase::Decode ? st.ctx + st.stepTokens : st.seq);
    const double sparse = c.sparseLayers / static_cast<double>(m.layers);
    const double N = st.Bm * T;
    const double gated = m.gatedFfn ? 2.0 : 1.0;
    const double routedFfn = c.ffn * static_cast<double>(m.activeExperts) + c.sharedFfn;
    double widestFfn = (sparse > 0 ? routedFfn : c.ffn) * gated;
    if (m.isMoe() && (sparse < 1 || c.besideLayers > 0))
        widestFfn = std::max(widestFfn, c.denseFfn * gated);
    // A model of image patches reads each patch's values too (patch_embed's input).
    // Gemma 3n's AltUp keeps n streams of hidden between the layers.
    const double streams = c.h * static_cast<double>(std::max<int64_t>(1, m.altupInputs));
    const double widest =
        std::max({streams, mixerActivations(c).widest, widestFfn, static_cast<double>(m.patchInputs)});
    double live = 2 * N * widest * c.act;
    if (!s.fusedAttention)
        live += st.Bm * c.hq * T * keys.widest * c.act;
    live += st.Bm * (s.phase == Phase::Train ? T : 1.0) * (static_cast<double>(m.vocab) / s.tp) * 4.0; // fp32 logits
    if (s.phase == Phase::Train)
        live +=
            storedActivationsPerToken(c, keys.mean) * st.seq * st.Bm * c.layersPerStage * std::min<double>(st.mb, s.pp);
    // The vision tower runs before the language model's prefill (vision.cpp): its own widest tensor in and out over
    // every image's tokens (and, unfused, each image's score matrix), whichever peak is higher.
    if (prefills && s.images > 0 && m.vision.present()) {
        const VisionShape &v = m.vision;
        const double tp = s.tp, imgs = st.Bm * static_cast<double>(s.images);
        const auto n = static_cast<double>(v.encoderTokens()), h = static_cast<double>(v.hidden);
        const double towerWidest = std::max({h, 3 * h / tp, static_cast<double>(v.ffn) / tp,
                                             static_cast<double>(v.patchInputs), static_cast<double>(v.mergedWidth())});
        double tower = 2 * imgs * n * towerWidest * c.act;
        if (!s.fusedAttention)
            tower += imgs * (static_cast<double>(v.heads) / tp) * n * n * c.act;
        live = std::max(live, tower);
    }
    return live;
}

} // namespace

void addFootprint(const Ctx &c, const Step &st, double cachedTokens, Analysis &a)
{
    const ModelShape &m = c.m;
    const Scenario &s = c.s;
    MemoryFootprint &mem = a.memory;
    const double embedParams = static_cast<double>(a.params.embedding + a.params.head);
    const double expertParams = static_cast<double>(a.params.routed);
    a.bytesPerWeight = c.wpw;
    a.expertBytesPerWeight = c.expertWpw;
    a.embedBytesPerWeight = c.embedWpw;
    a.weightBytes = static_cast<double>(a.params.total) * c.wpw + embedParams * (c.embedWpw - c.wpw) +
                    expertParams * (c.expertWpw - c.wpw);
    mem.weights = weightsOnDevice(a.params, s, {c.wpw, c.expertWpw, c.embedWpw});
    // A stage holds 1/pp of every kind of layer (each group's share of the stage's layers).
    // An attention-DP rank keeps the cache of its own sequences only.
    const double sequences = st.B / s.attentionDp;
    mem.kv = (cachedElements(m, c.groups, cachedTokens, s.tp) * c.kvb + indexerKeyBytes(m, c.groups, cachedTokens)) /
             s.pp * sequences;
    mem.state = holdsState(s) ? stateBytes(c, s.tp) / s.pp * sequences : 0.0;
    mem.activations = liveActivations(c, st);
    if (s.phase == Phase::Train) {
        const double local = localParams(a.params, s);
        mem.gradients = local * c.act / (s.zeroStage >= 2 ? s.dp : 1);
        const double perParam = s.optimizer == Optimizer::Adam ? 12.0 : 8.0; // fp32 master + m + v | master + momentum
        mem.optimizer = local * perParam / (s.zeroStage >= 1 ? s.dp : 1);
    }
    mem.capacity = c.hw.mainMemory().capacityBytes.value;
    mem.fits = mem.total() <= mem.capacity;
}

} // namespace detail

} // namespace memwall::core
