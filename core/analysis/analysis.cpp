#include "core/analysis/analysis.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace memwall::core {

std::string_view toString(OpClass c)
{
    switch (c) {
    case OpClass::Matmul: return "matmul";
    case OpClass::Attention: return "attention";
    case OpClass::Normalization: return "normalization";
    case OpClass::Elementwise: return "elementwise";
    case OpClass::Communication: return "communication";
    }
    return "?";
}

std::string_view toString(Bound b)
{
    switch (b) {
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Communication: return "communication";
    }
    return "?";
}

std::string_view toString(FlopName n)
{
    switch (n) {
    case FlopName::None: return "";
    case FlopName::AttendedTokens: return "attended tokens";
    case FlopName::BiasAddsAndSharedExpertAdd: return "bias adds + the shared expert's gated add (2 × tokens × hidden)";
    case FlopName::BiasAddsPatchesHidden: return "bias adds (patches × hidden)";
    case FlopName::BiasAddsSequencesHidden: return "bias adds (sequences × hidden)";
    case FlopName::BiasAddsTokensFfnWidth: return "bias adds (tokens × ffn width)";
    case FlopName::BiasAddsTokensHidden: return "bias adds (tokens × hidden)";
    case FlopName::BiasAddsLogits: return "bias adds (tokens with logits × vocabulary share)";
    case FlopName::BiasAddsTokensOutputs: return "bias adds (tokens × outputs)";
    case FlopName::CausalPairsWithinChunks: return "causal pairs within chunks";
    case FlopName::ChunkStates: return "chunk states (tokens × d_inner × (4 × d_state + 2))";
    case FlopName::ConvolvedChannels: return "convolved channels";
    case FlopName::DInner: return "d_inner";
    case FlopName::DtBiasAndSoftplus: return "bias and softplus (5 × tokens × d_inner)";
    case FlopName::DtRank: return "dt_rank";
    case FlopName::DtRankAnd2DState: return "dt_rank + 2 × d_state";
    case FlopName::EmbeddingAdds: return "adds per element (learned positions, token types)";
    case FlopName::FfnWidth: return "ffn width";
    case FlopName::HeadDim: return "head_dim";
    case FlopName::Heads: return "heads";
    case FlopName::HeadsAndSharedKey: return "heads + the shared key";
    case FlopName::HeadsTimesNopeAndV: return "heads × (qk_nope + v head dims)";
    case FlopName::Hidden: return "hidden";
    case FlopName::Inputs: return "inputs";
    case FlopName::KvLoraRank: return "kv_lora_rank";
    case FlopName::LatentAndRope: return "latent + rope width";
    case FlopName::Outputs: return "outputs";
    case FlopName::ParametersOnThisDevice: return "parameters on this device";
    case FlopName::PatchInputs: return "values per patch (channels × patch²)";
    case FlopName::Patches: return "patches (tokens less each image's class token)";
    case FlopName::PerChannelConv: return "FLOPs per channel (2 × d_conv + bias + SiLU 4)";
    case FlopName::PerChannelScan: return "FLOPs per channel (5 × d_state + 2)";
    case FlopName::PerChunkPair: return "FLOPs per pair (2 × d_state × groups + 2 × d_inner + heads)";
    case FlopName::PerElementActivation: return "FLOPs per element (activation)";
    case FlopName::PerElementAdd: return "FLOPs per element (add)";
    case FlopName::PerElementGate: return "FLOPs per element (SiLU 4 + product)";
    case FlopName::PerElementGatedActivation: return "FLOPs per element (activation + gate product)";
    case FlopName::PerElementGatedNorm: return "FLOPs per element (gate 5 + RMSNorm 4)";
    case FlopName::PerElementLayerNorm: return "FLOPs per element (LayerNorm)";
    case FlopName::PerElementRmsNorm: return "FLOPs per element (RMSNorm)";
    case FlopName::PerMultiplyAccumulate: return "FLOPs per multiply-accumulate";
    case FlopName::PerParameterAdam: return "FLOPs per parameter (Adam)";
    case FlopName::PerParameterSgd: return "FLOPs per parameter (SGD)";
    case FlopName::PerRotatedElement: return "FLOPs per rotated element";
    case FlopName::PerScoreSoftmax: return "FLOPs per score (softmax)";
    case FlopName::PerScoreSoftcap: return "FLOPs per score (soft-cap: divide, tanh, multiply)";
    case FlopName::PerLogitSoftcap: return "FLOPs per logit (soft-cap: divide, tanh, multiply)";
    case FlopName::QAndKWidths: return "q and k widths";
    case FlopName::QLoraRank: return "q_lora_rank";
    case FlopName::QkHeadDim: return "qk head dim (nope + rope)";
    case FlopName::QkNopeHeadDim: return "qk_nope_head_dim";
    case FlopName::QkRopeHeadDim: return "qk_rope_head_dim";
    case FlopName::QueryKeyPairsPerHead: return "query-key pairs per head";
    case FlopName::RouterColumns: return "experts (+ the shared expert's gate)";
    case FlopName::Sequences: return "sequences";
    case FlopName::Tokens: return "tokens";
    case FlopName::TokensWithLogits: return "tokens with logits";
    case FlopName::VHeadDim: return "v_head_dim";
    case FlopName::VocabularyShare: return "vocabulary (this device's share)";
    }
    return "";
}

double rooflineTime(double flops, double bytes, double peakFlops, double bandwidth)
{
    const double tc = peakFlops > 0 ? flops / peakFlops : 0.0;
    const double tm = bandwidth > 0 ? bytes / bandwidth : 0.0;
    return std::max(tc, tm);
}

double attainable(double intensity, double peakFlops, double bandwidth)
{
    return std::min(peakFlops, intensity * bandwidth);
}

namespace {

// Element-wise FLOP constants per element (see the Operator doc comment).
constexpr double kResidualFlops = 1;
constexpr double kRmsNormFlops = 4;
constexpr double kLayerNormFlops = 7;
constexpr double kRopeFlops = 3;
constexpr double kSoftmaxFlops = 5;
constexpr double kSoftcapFlops = 3; // cap x tanh(x / cap): divide, tanh (1, as softmax's exp), multiply
constexpr double kAdamFlopsPerParam = 12;
constexpr double kSgdFlopsPerParam = 4;

double activationFlops(Activation a)
{
    switch (a) {
    case Activation::Silu: return 4;
    case Activation::Gelu: return 8;
    case Activation::Relu: return 1;
    case Activation::Relu2: return 2; // relu(x)^2: the max, then the square
    }
    return 4;
}

/// What a norm's FLOP constant counts.
FlopName normWhat(const ModelShape &m)
{
    return m.norm == NormKind::RmsNorm ? FlopName::PerElementRmsNorm : FlopName::PerElementLayerNorm;
}

[[noreturn]] void refuse(const std::string &msg) { throw AnalysisError(msg); }

/// Everything derived once per analysis: per-device shapes, byte sizes, roofs.
struct Ctx
{
    const HardwareSpec &hw;
    const ModelShape &m;
    const Scenario &s;
    double h = 0, hq = 0, hkv = 0, d = 0, qd = 0, kvd = 0, ffn = 0, sharedFfn = 0, denseFfn = 0;
    LayerGroups groups{};      ///< the model's layers by kind (window, dense or routed FFN, attention or state space)
    double ssmLayers = 0;      ///< of the model's layers: state-space ones
    double attnLayers = 0;     ///< attention ones (LayerBlock::attends())
    double ffnLayers = 0;      ///< with an FFN (all but Mamba's and a layer pattern's mixer-only layers)
    double sparseLayers = 0;   ///< with routed experts
    double windowedLayers = 0; ///< attention layers with a window
    double act = 2, kvb = 2, wpw = 2, normW = 0;
    double expertWpw = 2; ///< bytes per weight of the routed experts (expert_weights, else wpw)
    double embedWpw = 2;  ///< bytes per weight of the token embedding and the LM head (unquantized_embeddings: 2)
    double layersPerStage = 0;
    double localExperts = 1;
    double peakMatmul = 0, peakVector = 0, bw = 0;
    /// The achievable model's per-kernel terms (see AchievableModel); all off for the ideal roofline.
    const AchievableModel *gemmSweeps = nullptr; ///< GEMM fraction by size (unless compute_efficiency is given)
    double rawPeakMatmul = 0;                    ///< the dense peak of matmulType, before any fraction
    double peakAttention = 0;                    ///< fused attention kernels' roof
    double weightBw = 0;                         ///< bandwidth of weight bytes in matmuls (weight-only kernels)
    double kernelS = 0;                          ///< cost of one kernel launch
    const QuantizeSweep *quantize = nullptr;     ///< FP8 activations' quantization kernels, when charged
    DType matmulType = DType::FP16;
    DType vectorType = DType::FP32; ///< element-wise ops: FP32, or the matmul format on devices without FP32
    double flopFactor = 1;          ///< structured sparsity: fraction of matmul weight FLOPs kept
    std::vector<Operator> *ops = nullptr;
    std::vector<OperatorRecord> *records = nullptr; ///< analyzeRecorded(): what each operator's derivation needs
    Totals *totals = nullptr;
    double computeTime = 0, memoryTime = 0, launchTime = 0, quantizeTime = 0;
    double linearComputeTime = 0, linearMemoryTime = 0;
};

/// Static operator names of one layer kind's attention core: the layers with the whole context, and the windowed
/// ones of a model that has both ("attn.local_score").
struct CoreNames
{
    std::string_view kvWrite, score, softcap, softmax, context;
};
constexpr CoreNames kGlobalCore{"attn.kv_write", "attn.score", "attn.softcap", "attn.softmax", "attn.context"};
constexpr CoreNames kLocalCore{"attn.local_kv_write", "attn.local_score", "attn.local_softcap", "attn.local_softmax",
                               "attn.local_context"};

/// Shorthands for FlopTerms: `n` elements at `perElement` FLOPs each (coeff named `what`), and products of named
/// dimensions at 2 FLOPs per multiply-accumulate (`kept`: structured sparsity's share, 1 when it does not apply).
[[gnu::always_inline]] inline FlopTerms perElement(double perElement, FlopName what, double a, FlopName aName,
                                                   double b = 1, FlopName bName = FlopName::None, double c = 1,
                                                   FlopName cName = FlopName::None)
{
    return {perElement, {a, b, c, 1}, 1, 0, what, {aName, bName, cName, FlopName::None}, FlopName::None};
}
[[gnu::always_inline]] inline FlopTerms macs(double a, FlopName aName, double b, FlopName bName, double c,
                                             FlopName cName, double d = 1, FlopName dName = FlopName::None,
                                             double kept = 1)
{
    return {2, {a, b, c, d}, kept, 0, FlopName::PerMultiplyAccumulate, {aName, bName, cName, dName}, FlopName::None};
}
[[gnu::always_inline]] inline FlopTerms plus(FlopTerms t, double extra, FlopName what)
{
    t.extra = extra;
    t.extraName = what;
    return t;
}

/// One operator, `count` executions. `quantizedInput`: the elements of a linear layer's input that its own quantize
/// kernels turn into FP8 first (0 where the input is shared with another matmul that already did, or not quantized).
void emit(Ctx &c, std::string_view name, OpClass cls, Phase phase, double count, const FlopTerms &terms, double wBytes,
          double aBytes, double kvBytes, double trainFactor, double quantizedInput = 0)
{
    const double flops = terms.value();
    const double opFlops = flops * count * trainFactor, weightBytes = wBytes * count * trainFactor;
    const double activationBytes = aBytes * count * trainFactor, kvRead = kvBytes * count * trainFactor;
    const bool tensorCore = cls == OpClass::Matmul || cls == OpClass::Attention;
    double peak = tensorCore ? c.peakMatmul : c.peakVector;
    if (cls == OpClass::Attention)
        peak = c.peakAttention;
    else if (cls == OpClass::Matmul && c.gemmSweeps && flops > 0)
        // One execution multiplies m x k by k x n in 2mnk FLOPs: its equivalent square size is cbrt(mnk).
        peak = c.rawPeakMatmul * c.gemmSweeps->gemmFraction(c.matmulType, std::cbrt(flops / 2));
    const double tc = opFlops / peak;
    const double wBw = cls == OpClass::Matmul ? c.weightBw : c.bw;
    const double tm = weightBytes / wBw + (activationBytes + kvRead) / c.bw;
    const double roof = std::max(tc, tm);
    // Each execution is one kernel; fused attention runs score, softmax and context as the one score kernel.
    double launch = 0;
    const bool fusedTail = name == kGlobalCore.softcap || name == kGlobalCore.softmax || name == kGlobalCore.context ||
                           name == kLocalCore.softcap || name == kLocalCore.softmax || name == kLocalCore.context;
    if (c.kernelS > 0 && !(c.s.fusedAttention && fusedTail))
        launch = c.kernelS * count * trainFactor;
    const double quantize =
        c.quantize && quantizedInput > 0 ? c.quantize->timeAt(quantizedInput) * count * trainFactor : 0.0;
    const double timeS = roof + launch + quantize;
    const Bound bound = tc >= tm ? Bound::Compute : Bound::Memory;
    (bound == Bound::Compute ? c.computeTime : c.memoryTime) += roof;
    c.launchTime += launch;
    c.quantizeTime += quantize;
    if (cls == OpClass::Matmul)
        (bound == Bound::Compute ? c.linearComputeTime : c.linearMemoryTime) += roof;
    c.totals->flops += opFlops;
    c.totals->bytes += weightBytes + activationBytes + kvRead;
    c.totals->timeS += timeS;
    if (!c.ops)
        return; // analyzeTotals(): the totals only
    // The operator, built only when it is kept; what its derivation needs only when asked for.
    Operator &op = c.ops->emplace_back();
    op.name = name;
    op.cls = cls;
    op.phase = phase;
    op.count = count;
    op.flops = opFlops;
    op.weightBytes = weightBytes;
    op.activationBytes = activationBytes;
    op.kvBytes = kvRead;
    op.computeType = tensorCore ? c.matmulType : c.vectorType;
    op.timeS = timeS;
    op.bound = bound;
    if (c.records)
        c.records->push_back({terms, trainFactor, peak, wBw, launch, quantize});
}

/// A linear layer over `tokens` tokens, `count` times: `in` x `out` weights (plus `out` biases with `bias`), 2 FLOPs
/// per multiply-accumulate (sparsity keeps flopFactor of them) and 1 per bias add; it reads its input and weights and
/// writes its output. `sharedInput`: another linear layer already quantized the same input.
void emitLinear(Ctx &c, std::string_view name, Phase phase, double count, double tokens, double in, double out,
                bool bias, double train, bool sharedInput = false)
{
    const double b = bias ? 1.0 : 0.0;
    emit(c, name, OpClass::Matmul, phase, count,
         plus(macs(tokens, FlopName::Tokens, in, FlopName::Inputs, out, FlopName::Outputs, 1, FlopName::None,
                   c.flopFactor),
              b * tokens * out, FlopName::BiasAddsTokensOutputs),
         in * out * c.wpw + b * out * c.act, tokens * in * c.act + tokens * out * c.act, 0, train,
         sharedInput ? 0.0 : tokens * in);
}

/// A matmul of the embeddings' side (the LM head, a patch projection): its weights are in the embeddings' format
/// (`weightBytes` counts them at embedWpw), and 16-bit ones (unquantized_embeddings) are read by an ordinary GEMM, not
/// a weight-only kernel.
void emitEmbeddingMatmul(Ctx &c, std::string_view name, Phase phase, double count, const FlopTerms &terms,
                         double weightBytes, double aBytes, double train)
{
    const double weightBw = c.weightBw;
    if (c.s.unquantizedEmbeddings)
        c.weightBw = c.bw;
    emit(c, name, OpClass::Matmul, phase, count, terms, weightBytes, aBytes, 0, train);
    c.weightBw = weightBw;
}

/// One pass of the model over `T` new tokens per sequence for `Bm` sequences (one micro-batch). The keys each query
/// attends depend on the layer's window, so the pass names the key positions, and each layer kind caps them itself.
struct Pass
{
    Phase phase;
    double Bm;         ///< sequences per micro-batch
    double T;          ///< tokens processed per sequence
    double keyTokens;  ///< key positions per sequence before any window: the T new tokens and those before them
    double cachedToks; ///< of the keyTokens, how many are read from the KV cache; the rest come from fresh activations
    bool kvWrite;      ///< new K and V appended to the cache
    double lmTokens;   ///< tokens per sequence that get logits
    double layerCount; ///< executions of each layer operator on the critical path (all layers of a stage)
    double headCount;  ///< executions of embed/head operators on the critical path
    double train = 1;  ///< FLOP/byte multiplier for training (forward + backward [+ recompute])
    double trainAttn = 1;
    double causalPrefix = -1; ///< >= 0: only the causal pairs of T tokens after this many are computed; else T x C
    bool decodeStep = false;  ///< one decode step (MLA may absorb its up-projections into the queries)
};

/// Query-key pairs a causal mask leaves for `T` new tokens that follow `prefix` earlier tokens, each attending to at
/// most `window` keys (itself included): the sum over positions q = prefix + 1 .. prefix + T of min(q, window).
/// A 4-token prompt: 1 + 2 + 3 + 4 = 10 of the 16 pairs; T tokens from scratch: T(T + 1)/2.
double causalPairs(double prefix, double T, double window)
{
    const double first = prefix + 1, last = prefix + T;
    if (last <= window)
        return (first + last) * T / 2;
    if (first > window)
        return T * window;
    return (first + window) * (window - first + 1) / 2 + (last - window) * window;
}

/// The same for chunked local attention: position q attends the ((q - 1) mod chunk) + 1 tokens of its own chunk so
/// far. Over positions 1 .. n that is k chunk(chunk + 1)/2 + r(r + 1)/2, with n = k chunk + r.
double chunkedCausalPairs(double prefix, double T, double chunk)
{
    auto upTo = [chunk](double n) {
        const double k = std::floor(n / chunk), r = n - k * chunk;
        return k * chunk * (chunk + 1) / 2 + r * (r + 1) / 2;
    };
    return upTo(prefix + T) - upTo(prefix);
}

/// The attention core (cache write, scores, softmax, context) of `layers` layers of window `window` (0: none).
void emitAttentionCore(Ctx &c, const Pass &p, double lc, double window, const CoreNames &names)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T, act = c.act;
    const bool fused = c.s.fusedAttention;
    const double W = window > 0 ? window : 1e300;
    const bool chunked = window > 0 && m.chunkedAttention;
    // Keys per query: the window caps them; a chunk holds the keys since its start (a decode step's last position).
    const double C = chunked && p.decodeStep ? std::fmod(p.keyTokens - 1, W) + 1 : std::min(p.keyTokens, W);
    const double cached = std::min(p.cachedToks, C);
    double pairs = p.T * C;
    if (p.causalPrefix >= 0)
        pairs = chunked ? chunkedCausalPairs(p.causalPrefix, p.T, W) : causalPairs(p.causalPrefix, p.T, W);
    const double scores = p.Bm * c.hq * pairs;
    const double tA = p.train * p.trainAttn;
    // Soft-capped scores (Gemma 2's attn_logit_softcapping): cap x tanh(score / cap) on every score before the softmax.
    // Fused, the scores stay on chip and the cap moves no bytes; unfused, it reads and writes the score matrix.
    auto softcap = [&] {
        if (m.attentionSoftcap > 0)
            emit(c, names.softcap, OpClass::Elementwise, p.phase, lc,
                 perElement(kSoftcapFlops, FlopName::PerScoreSoftcap, p.Bm, FlopName::Sequences, c.hq, FlopName::Heads,
                            pairs, FlopName::QueryKeyPairsPerHead),
                 0, fused ? 0 : 2 * scores * act, 0, tA);
    };

    if (m.mixer == MixerKind::Mla) {
        // Multi-head latent attention. Cached per token: the latent and the shared rotary key (lat elements).
        const MlaShape &a = m.mla;
        const double lat = static_cast<double>(a.cachedPerToken()), r = static_cast<double>(a.kvLoraRank);
        const double nope = static_cast<double>(a.qkNopeHeadDim), rope = static_cast<double>(a.qkRopeHeadDim);
        const double v = static_cast<double>(a.vHeadDim);
        const double latentRead = p.Bm * cached * lat * c.kvb, latentFresh = p.Bm * (C - cached) * lat * act;
        if (p.kvWrite)
            emit(c, names.kvWrite, OpClass::Elementwise, p.phase, lc, FlopTerms{}, 0, N * lat * act, N * lat * c.kvb,
                 p.train);
        if (p.decodeStep && c.s.mlaAbsorb) {
            // Absorbed (DeepSeek-V2, appendix; FlashMLA): the key up-projection is folded into each query
            // (q_nope x W_UK: hq x nope -> hq x kv_lora), the scores run against the latent itself (kv_lora + rope
            // per pair and head), the context stays in latent space and W_UV lifts it to hq x v afterwards. All heads
            // share one read of the latent: decode reads lat elements per cached token, not 2 x heads x head_dim.
            emit(c, "attn.q_absorb", OpClass::Matmul, p.phase, lc,
                 macs(N, FlopName::Tokens, c.hq, FlopName::Heads, nope, FlopName::QkNopeHeadDim, r,
                      FlopName::KvLoraRank, c.flopFactor),
                 c.hq * nope * r * c.wpw, N * c.hq * nope * act + N * c.hq * r * act, 0, p.train);
            emit(c, names.score, OpClass::Attention, p.phase, lc,
                 macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, lat,
                      FlopName::LatentAndRope),
                 0, N * c.hq * lat * act + latentFresh + (fused ? 0 : scores * act), latentRead, tA);
            softcap();
            emit(c, names.softmax, OpClass::Normalization, p.phase, lc,
                 perElement(kSoftmaxFlops, FlopName::PerScoreSoftmax, p.Bm, FlopName::Sequences, c.hq, FlopName::Heads,
                            pairs, FlopName::QueryKeyPairsPerHead),
                 0, fused ? 0 : 2 * scores * act, 0, tA);
            emit(c, names.context, OpClass::Attention, p.phase, lc,
                 macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, r,
                      FlopName::KvLoraRank),
                 0, (fused ? 0 : scores * act) + N * c.hq * r * act, 0, tA);
            emit(c, "attn.v_absorb", OpClass::Matmul, p.phase, lc,
                 macs(N, FlopName::Tokens, c.hq, FlopName::Heads, r, FlopName::KvLoraRank, v, FlopName::VHeadDim,
                      c.flopFactor),
                 c.hq * r * v * c.wpw, N * c.hq * r * act + N * c.hq * v * act, 0, p.train);
            return;
        }
        // Unabsorbed: kv_b_proj lifts every attended token's latent to its keys' no-rotary part and its values,
        // then attention runs per head on head dims nope + rope (scores) and v (context).
        const double kvb = static_cast<double>(a.kvLoraRank) * c.hq * (nope + v);
        emit(c, "attn.kv_b_proj", OpClass::Matmul, p.phase, lc,
             macs(p.Bm, FlopName::Sequences, C, FlopName::AttendedTokens, r, FlopName::KvLoraRank, c.hq * (nope + v),
                  FlopName::HeadsTimesNopeAndV, c.flopFactor),
             kvb * c.wpw, p.Bm * (C - cached) * r * act + p.Bm * C * c.hq * (nope + v) * act, p.Bm * cached * r * c.kvb,
             p.train);
        emit(c, names.score, OpClass::Attention, p.phase, lc,
             macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, nope + rope,
                  FlopName::QkHeadDim),
             0, N * c.hq * (nope + rope) * act + p.Bm * C * (c.hq * nope + rope) * act + (fused ? 0 : scores * act), 0,
             tA);
        softcap();
        emit(c, names.softmax, OpClass::Normalization, p.phase, lc,
             perElement(kSoftmaxFlops, FlopName::PerScoreSoftmax, p.Bm, FlopName::Sequences, c.hq, FlopName::Heads,
                        pairs, FlopName::QueryKeyPairsPerHead),
             0, fused ? 0 : 2 * scores * act, 0, tA);
        emit(c, names.context, OpClass::Attention, p.phase, lc,
             macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, v,
                  FlopName::VHeadDim),
             0, (fused ? 0 : scores * act) + p.Bm * C * c.hq * v * act + N * c.hq * v * act, 0, tA);
        return;
    }

    if (p.kvWrite)
        emit(c, names.kvWrite, OpClass::Elementwise, p.phase, lc, FlopTerms{}, 0, N * 2 * c.kvd * act,
             N * 2 * c.kvd * c.kvb, p.train);
    const double kvReadBytes = p.Bm * cached * c.kvd * c.kvb;
    const double kvFreshBytes = p.Bm * (C - cached) * c.kvd * act;
    emit(c, names.score, OpClass::Attention, p.phase, lc,
         macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, c.d,
              FlopName::HeadDim),
         0, N * c.qd * act + kvFreshBytes + (fused ? 0 : scores * act), kvReadBytes, tA);
    softcap();
    emit(c, names.softmax, OpClass::Normalization, p.phase, lc,
         perElement(kSoftmaxFlops, FlopName::PerScoreSoftmax, p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs,
                    FlopName::QueryKeyPairsPerHead),
         0, fused ? 0 : 2 * scores * act, 0, tA);
    emit(c, names.context, OpClass::Attention, p.phase, lc,
         macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, c.d,
              FlopName::HeadDim),
         0, (fused ? 0 : scores * act) + kvFreshBytes + N * c.qd * act, kvReadBytes, tA);
}

/// Static operator names of one FFN: a dense model's (or a MoE model's routed layers'), and the dense layers' of a
/// MoE model that has both ("ffn.dense_up").
struct FfnNames
{
    std::string_view up, gate, act, down;
};
constexpr FfnNames kFfn{"ffn.up", "ffn.gate", "ffn.act", "ffn.down"};
constexpr FfnNames kDenseFfn{"ffn.dense_up", "ffn.dense_gate", "ffn.dense_act", "ffn.dense_down"};
constexpr FfnNames kSharedFfn{"ffn.shared_up", "ffn.shared_gate", "ffn.shared_act", "ffn.shared_down"};

/// One FFN of width `f` (per device) over `tokens` tokens, `touched` copies of its weights (`wpw` bytes each) read;
/// `downExtraFlops` more in the down projection (a shared expert's gated add).
void emitFfn(Ctx &c, const Pass &p, double lc, double f, double tokens, double touched, double wpw,
             const FfnNames &names, double downExtraFlops = 0)
{
    const ModelShape &m = c.m;
    const double h = c.h, act = c.act;
    const double biasUp = m.ffnBias ? 1.0 : 0.0;
    for (std::string_view name : {names.up, names.gate}) {
        emit(c, name, OpClass::Matmul, p.phase, lc,
             plus(macs(tokens, FlopName::Tokens, h, FlopName::Hidden, f, FlopName::FfnWidth, 1, FlopName::None,
                       c.flopFactor),
                  biasUp * tokens * f, FlopName::BiasAddsTokensFfnWidth),
             touched * (h * f * wpw + biasUp * f * act), tokens * h * act + tokens * f * act, 0, p.train,
             name == names.up ? tokens * h : 0.0); // the gate reads the same quantized input
        if (!m.gatedFfn)
            break; // a plain FFN has no gate
    }
    emit(c, names.act, OpClass::Elementwise, p.phase, lc,
         perElement(activationFlops(m.activation) + (m.gatedFfn ? 1 : 0),
                    m.gatedFfn ? FlopName::PerElementGatedActivation : FlopName::PerElementActivation, tokens,
                    FlopName::Tokens, f, FlopName::FfnWidth),
         0, (m.gatedFfn ? 3 : 2) * tokens * f * act, 0, p.train);
    emit(c, names.down, OpClass::Matmul, p.phase, lc,
         plus(macs(tokens, FlopName::Tokens, f, FlopName::FfnWidth, h, FlopName::Hidden, 1, FlopName::None,
                   c.flopFactor),
              biasUp * tokens * h + downExtraFlops,
              downExtraFlops > 0 ? FlopName::BiasAddsAndSharedExpertAdd : FlopName::BiasAddsTokensHidden),
         touched * (f * h * wpw + biasUp * h * act), tokens * f * act + tokens * h * act, 0, p.train, tokens * f);
}

/// The attention layers' part of a block, `lc` times: input norm, projections, the attention core per window, output
/// projection, post-norm and residual.
void emitAttentionMixer(Ctx &c, const Pass &p, double lc)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T;
    const double h = c.h, act = c.act;
    const double normFlops = m.norm == NormKind::RmsNorm ? kRmsNormFlops : kLayerNormFlops;
    emit(c, "attn.norm", OpClass::Normalization, p.phase, lc,
         perElement(normFlops, normWhat(m), N, FlopName::Tokens, h, FlopName::Hidden), c.normW * act, 2 * N * h * act,
         0, p.train);
    if (m.mixer == MixerKind::Mla) {
        // The latent paths (q_a, kv_a) are replicated on every tensor-parallel rank; the per-head ones are split.
        const MlaShape &a = m.mla;
        const double qk = static_cast<double>(a.qkNopeHeadDim + a.qkRopeHeadDim);
        const double rq = static_cast<double>(a.qLoraRank), lat = static_cast<double>(a.cachedPerToken());
        const double r = static_cast<double>(a.kvLoraRank), rope = static_cast<double>(a.qkRopeHeadDim);
        if (a.qLoraRank > 0) {
            emitLinear(c, "attn.q_a_proj", p.phase, lc, N, h, rq, false, p.train);
            emit(c, "attn.q_a_norm", OpClass::Normalization, p.phase, lc,
                 perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, rq, FlopName::QLoraRank),
                 rq * act, 2 * N * rq * act, 0, p.train);
            emitLinear(c, "attn.q_b_proj", p.phase, lc, N, rq, c.hq * qk, false, p.train);
        } else {
            emitLinear(c, "attn.q_proj", p.phase, lc, N, h, c.hq * qk, false, p.train);
        }
        emitLinear(c, "attn.kv_a_proj", p.phase, lc, N, h, lat, false, p.train, true);
        emit(c, "attn.kv_a_norm", OpClass::Normalization, p.phase, lc,
             perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, r, FlopName::KvLoraRank),
             r * act, 2 * N * r * act, 0, p.train);
        emit(c, "attn.rope", OpClass::Elementwise, p.phase, lc,
             perElement(kRopeFlops, FlopName::PerRotatedElement, N, FlopName::Tokens, c.hq + 1,
                        FlopName::HeadsAndSharedKey, rope, FlopName::QkRopeHeadDim),
             0, 2 * N * (c.hq + 1) * rope * act, 0, p.train);
    } else {
        emitLinear(c, "attn.qkv_proj", p.phase, lc, N, h, c.qd + 2 * c.kvd, m.qkvBias, p.train);
        if (m.qkNorm)
            emit(c, "attn.qk_norm", OpClass::Normalization, p.phase, lc,
                 perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, c.qd + c.kvd,
                            FlopName::QAndKWidths),
                 (m.qkNormFullWidth ? c.qd + c.kvd : 2 * c.d) * act, 2 * N * (c.qd + c.kvd) * act, 0, p.train);
        if (m.positions == PositionEncoding::Rotary)
            emit(c, "attn.rope", OpClass::Elementwise, p.phase, lc,
                 perElement(kRopeFlops, FlopName::PerRotatedElement, N, FlopName::Tokens, c.qd + c.kvd,
                            FlopName::QAndKWidths),
                 0, 2 * N * (c.qd + c.kvd) * act, 0, p.train);
    }
    // The attention core per window: the layers with the whole context first, then the windowed ones. Without both
    // kinds there is one core, under the plain names.
    {
        const double attention = c.attnLayers, windowed = c.windowedLayers;
        const double window = static_cast<double>(m.slidingWindow);
        if (windowed == 0 || windowed == attention) {
            emitAttentionCore(c, p, lc, windowed == 0 ? 0.0 : window, kGlobalCore);
        } else {
            emitAttentionCore(c, p, lc * (attention - windowed) / attention, 0.0, kGlobalCore);
            emitAttentionCore(c, p, lc * windowed / attention, window, kLocalCore);
        }
    }
    emitLinear(c, "attn.out_proj", p.phase, lc, N,
               m.mixer == MixerKind::Mla ? c.hq * static_cast<double>(m.mla.vHeadDim) : c.qd, h, m.outBias, p.train);
    if (m.postNorms)
        emit(c, "attn.post_norm", OpClass::Normalization, p.phase, lc,
             perElement(normFlops, normWhat(m), N, FlopName::Tokens, h, FlopName::Hidden), c.normW * act,
             2 * N * h * act, 0, p.train);
    emit(c, "attn.residual", OpClass::Elementwise, p.phase, lc,
         perElement(kResidualFlops, FlopName::PerElementAdd, N, FlopName::Tokens, h, FlopName::Hidden), 0,
         3 * N * h * act, 0, p.train);
}

/// The state-space layers' mixer, `lc` times (Mamba-1 or Mamba-2), per device: d_inner, heads and (when tp divides
/// them) groups split by tensor parallelism. Its state is read and written every decode step, as a KV cache is read:
/// the state (d_inner x d_state) and the convolution's last d_conv - 1 inputs, in the KV cache's format.
void emitSsm(Ctx &c, const Pass &p, double lc)
{
    const ModelShape &m = c.m;
    const SsmShape &x = m.ssm;
    const double N = p.Bm * p.T, h = c.h, act = c.act, wpw = c.wpw, sb = c.kvb;
    const SsmWidths w = ssmWidths(m, c.s.tp);
    const double inner = w.inner, n = w.state, heads = w.heads, groups = w.groups, conv = w.conv;
    const double K = static_cast<double>(x.convKernel);
    const bool mamba2 = x.kind == SsmKind::Mamba2;
    // State traffic: a decode step reads and writes each sequence's state; a pass over a prompt writes it once.
    const double stateRw = p.decodeStep ? 2.0 : 1.0;

    emitLinear(c, "ssm.in_proj", p.phase, lc, N, h, w.inProj, x.projBias, p.train);
    // Causal depthwise convolution of width d_conv, its bias and SiLU (4): (2 d_conv + 1 + 4) FLOPs per channel.
    emit(c, "ssm.conv", OpClass::Elementwise, p.phase, lc,
         perElement(2 * K + 5, FlopName::PerChannelConv, N, FlopName::Tokens, conv, FlopName::ConvolvedChannels),
         conv * (K + 1) * act, 2 * N * conv * act, stateRw * p.Bm * (K - 1) * conv * sb, p.train);
    if (!mamba2) {
        // Mamba-1: x_proj to dt (dt_rank), B and C (d_state each), then dt_proj back to d_inner with its bias and
        // softplus (4 FLOPs).
        const double r = static_cast<double>(x.dtRank);
        emitLinear(c, "ssm.x_proj", p.phase, lc, N, inner, r + 2 * n, false, p.train);
        if (x.innerNorms)
            emit(c, "ssm.inner_norms", OpClass::Normalization, p.phase, lc,
                 perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, r + 2 * n,
                            FlopName::DtRankAnd2DState),
                 (r + 2 * n) * act, 2 * N * (r + 2 * n) * act, 0, p.train);
        emit(c, "ssm.dt_proj", OpClass::Matmul, p.phase, lc,
             plus(macs(N, FlopName::Tokens, r, FlopName::DtRank, inner, FlopName::DInner, 1, FlopName::None,
                       c.flopFactor),
                  5 * N * inner, FlopName::DtBiasAndSoftplus),
             (r * inner) * wpw + inner * act, N * r * act + N * inner * act, 0, p.train);
    }
    // The scan. Recurrently (every decode step, and Mamba-1's scan over a prompt) each state element takes a decay
    // multiply, an input multiply-add and the output's multiply-add: 5 FLOPs per channel and state element, plus
    // D's skip (2 per channel). Mamba-2 runs a prompt in chunks of chunk_size (state-space duality, Dao and Gu 2024,
    // section 6): within a chunk C B^T over the causal pairs (2 d_state per group) weights the inputs (2 per
    // channel, 1 for the decay per head), and each chunk's state is built and read (2 d_state per channel each).
    FlopTerms scanFlops = perElement(5 * n + 2, FlopName::PerChannelScan, N, FlopName::Tokens, inner, FlopName::DInner);
    OpClass scanClass = OpClass::Elementwise;
    if (mamba2 && !p.decodeStep) {
        const double pairs = p.Bm * chunkedCausalPairs(0, p.T, static_cast<double>(x.chunkSize));
        scanFlops = plus(perElement(2 * n * groups + 2 * inner + heads, FlopName::PerChunkPair, pairs,
                                    FlopName::CausalPairsWithinChunks),
                         N * inner * (4 * n + 2), FlopName::ChunkStates);
        scanClass = OpClass::Attention; // its products run on the matrix units
    }
    const double scanIn = mamba2 ? inner + 2 * groups * n + heads : inner + 2 * n + inner; // x, B, C, dt
    emit(c, "ssm.scan", scanClass, p.phase, lc, scanFlops, (mamba2 ? 3 * heads : inner * n + inner) * act,
         N * scanIn * act + N * inner * act, stateRw * p.Bm * inner * n * sb, p.train);
    // The output gate: Mamba-2 a gated RMSNorm (y x SiLU(z), then the norm: 4 + 1 + 4), Mamba-1 y x SiLU(z).
    if (mamba2)
        emit(c, "ssm.gate_norm", OpClass::Normalization, p.phase, lc,
             perElement(kRmsNormFlops + 5, FlopName::PerElementGatedNorm, N, FlopName::Tokens, inner, FlopName::DInner),
             inner * act, 3 * N * inner * act, 0, p.train);
    else
        emit(c, "ssm.gate", OpClass::Elementwise, p.phase, lc,
             perElement(5, FlopName::PerElementGate, N, FlopName::Tokens, inner, FlopName::DInner), 0,
             3 * N * inner * act, 0, p.train);
    emitLinear(c, "ssm.out_proj", p.phase, lc, N, inner, h, x.projBias, p.train);
}

void emitHead(Ctx &c, const Pass &p);

void emitPass(Ctx &c, const Pass &p)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T;
    const double h = c.h, act = c.act, wpw = c.wpw;
    const double normFlops = m.norm == NormKind::RmsNorm ? kRmsNormFlops : kLayerNormFlops;
    const double lc = p.layerCount;
    const double L = static_cast<double>(m.layers);

    // ---- embeddings (first stage) ----
    {
        if (m.patchInputs > 0) {
            // A model of image patches: the patch convolution (kernel and stride the patch) is a matmul of each
            // patch's values by patchInputs x hidden weights, plus a bias. The class token leading each image is a
            // copy of learned weights, not projected. `embed` then adds the positions: its weights are the position
            // rows where a text model's are its token rows, and its input the projected patches.
            const double patches = p.Bm * std::max(0.0, p.T - 1), in = static_cast<double>(m.patchInputs);
            emitEmbeddingMatmul(c, "patch_embed", p.phase, p.headCount,
                                plus(macs(patches, FlopName::Patches, in, FlopName::PatchInputs, h, FlopName::Hidden),
                                     patches * h, FlopName::BiasAddsPatchesHidden),
                                in * h * c.embedWpw + h * act, patches * in * act + patches * h * act, p.train);
        }
        double adds = 0, aBytes = N * h * act;
        if (m.positions == PositionEncoding::Learned) {
            adds += 1;
            aBytes += N * h * act;
        }
        if (m.tokenTypes > 0) {
            adds += 1;
            aBytes += N * h * act;
        }
        emit(c, "embed", OpClass::Elementwise, p.phase, p.headCount,
             perElement(adds, FlopName::EmbeddingAdds, N, FlopName::Tokens, h, FlopName::Hidden), N * h * c.embedWpw,
             aBytes, 0, p.train);
        if (m.embeddingNorm)
            emit(c, "embed.norm", OpClass::Normalization, p.phase, p.headCount,
                 perElement(normFlops, normWhat(m), N, FlopName::Tokens, h, FlopName::Hidden), c.normW * act,
                 2 * N * h * act, 0, p.train);
    }

    // ---- every layer, `lc` times: the mixer (attention, or a state-space layer) ----
    const double ssmL = c.ssmLayers, attnL = c.attnLayers;
    if (attnL > 0)
        emitAttentionMixer(c, p, lc * attnL / L);
    if (ssmL > 0) {
        const double ls = lc * ssmL / L;
        emit(c, "ssm.in_norm", OpClass::Normalization, p.phase, ls,
             perElement(normFlops, normWhat(m), N, FlopName::Tokens, h, FlopName::Hidden), c.normW * act,
             2 * N * h * act, 0, p.train);
        emitSsm(c, p, ls);
        emit(c, "ssm.residual", OpClass::Elementwise, p.phase, ls,
             perElement(kResidualFlops, FlopName::PerElementAdd, N, FlopName::Tokens, h, FlopName::Hidden), 0,
             3 * N * h * act, 0, p.train);
    }
    if (c.ffnLayers == 0) { // a state-space model without FFNs (Mamba)
        emitHead(c, p);
        return;
    }
    // The layers with an FFN: all of them, but a layer pattern's mixer-only ones (Nemotron-H's 'M' and '*').
    const double lf = lc * c.ffnLayers / L;

    if (!(m.parallelAttention && m.sharedLayerNorm))
        emit(c, "ffn.norm", OpClass::Normalization, p.phase, lf,
             perElement(normFlops, normWhat(m), N, FlopName::Tokens, h, FlopName::Hidden), c.normW * act,
             2 * N * h * act, 0, p.train);

    // ---- the FFN: dense, or MoE with top-k routing over the experts local to this device ----
    const double sparse = c.sparseLayers;
    if (sparse < c.ffnLayers) // a dense model's FFN, or a MoE model's dense layers
        emitFfn(c, p, lc * (c.ffnLayers - sparse) / L, m.isMoe() ? c.denseFfn : c.ffn, N, 1, wpw,
                sparse > 0 ? kDenseFfn : kFfn);
    if (sparse > 0) {
        const double lm = lc * sparse / L;
        const double E = static_cast<double>(m.experts), k = static_cast<double>(m.activeExperts);
        // The router's E columns, and the shared expert's sigmoid gate as one more (Qwen2-MoE).
        const double cols = E + (m.sharedExpertGate ? 1.0 : 0.0);
        emit(c, "ffn.router", OpClass::Matmul, p.phase, lm,
             macs(N, FlopName::Tokens, h, FlopName::Hidden, cols, FlopName::RouterColumns), h * cols * wpw,
             N * h * act + N * cols * act, 0, p.train);
        // Expected number of distinct experts hit by N tokens choosing k of E each, and the local share of them.
        const double hit = 1.0 - std::pow(1.0 - k / E, N);
        double tokensE = N * k * c.localExperts / E;
        double touched = c.localExperts * hit;
        // With expert parallelism each layer waits for its busiest device: the E * hit experts hit lie on ep
        // devices, so one device holds at least ceil(E * hit / ep) of them (pigeonhole), and each one it holds
        // reads its whole weights for at least one token. At batch 1 top-2 over 8 experts on 8 devices, that is one
        // whole expert per layer, not the average device's quarter of one.
        if (c.s.ep > 1) {
            const double busiest = std::min(c.localExperts, std::ceil(E * hit / c.s.ep - 1e-9));
            touched = std::max(touched, busiest);
            tokensE = std::max(tokensE, touched);
        }
        emitFfn(c, p, lm, c.ffn, tokensE, touched, c.expertWpw, kFfn);
        // The shared expert: one more FFN that every token goes through, on every expert-parallel rank (it is
        // replicated there, split only by tensor parallelism). Its output is scaled by the gate and added to the
        // routed experts' sum: a multiply-add per element, 2 FLOPs, counted in the down projection.
        if (m.sharedFfn > 0)
            emitFfn(c, p, lm, c.sharedFfn, N, 1, wpw, kSharedFfn, 2 * N * h);
    }
    if (m.postNorms)
        emit(c, "ffn.post_norm", OpClass::Normalization, p.phase, lf,
             perElement(normFlops, normWhat(m), N, FlopName::Tokens, h, FlopName::Hidden), c.normW * act,
             2 * N * h * act, 0, p.train);
    emit(c, "ffn.residual", OpClass::Elementwise, p.phase, lf,
         perElement(kResidualFlops, FlopName::PerElementAdd, N, FlopName::Tokens, h, FlopName::Hidden), 0,
         3 * N * h * act, 0, p.train);
    emitHead(c, p);
}

/// The last stage's head: the final norm and the LM head of a decoder; an encoder's final norm (pre-norm) and pooler.
void emitHead(Ctx &c, const Pass &p)
{
    const ModelShape &m = c.m;
    const double h = c.h, act = c.act, wpw = c.wpw;
    const double normFlops = m.norm == NormKind::RmsNorm ? kRmsNormFlops : kLayerNormFlops;
    const double lmN = p.Bm * p.lmTokens;
    if (m.arch == Architecture::Decoder) {
        emit(c, "final_norm", OpClass::Normalization, p.phase, p.headCount,
             perElement(normFlops, normWhat(m), lmN, FlopName::TokensWithLogits, h, FlopName::Hidden), c.normW * act,
             2 * lmN * h * act, 0, p.train);
        const double vocabLocal = static_cast<double>(m.vocab) / c.s.tp;
        // A head bias (Phi-3.5-MoE's lm_head_bias) adds one value per logit and is read with the weights.
        const double headBias = m.headBias ? 1.0 : 0.0;
        emitEmbeddingMatmul(
            c, "lm_head", p.phase, p.headCount,
            plus(macs(lmN, FlopName::TokensWithLogits, h, FlopName::Hidden, vocabLocal, FlopName::VocabularyShare),
                 headBias * lmN * vocabLocal, FlopName::BiasAddsLogits),
            h * vocabLocal * c.embedWpw + headBias * vocabLocal * act, lmN * h * act + lmN * vocabLocal * act, p.train);
        // Soft-capped logits (Gemma 2's final_logit_softcapping): cap x tanh(logit / cap) on every logit, an operator
        // of its own that reads and writes the logits.
        if (m.finalSoftcap > 0)
            emit(c, "lm_head.softcap", OpClass::Elementwise, p.phase, p.headCount,
                 perElement(kSoftcapFlops, FlopName::PerLogitSoftcap, lmN, FlopName::TokensWithLogits, vocabLocal,
                            FlopName::VocabularyShare),
                 0, 2 * lmN * vocabLocal * act, 0, p.train);
        return;
    }
    // An encoder: a pre-norm encoder's final norm over every token (ViT's layernorm), then the pooler on the first.
    if (m.finalNorm) {
        const double N = p.Bm * p.T;
        emit(c, "final_norm", OpClass::Normalization, p.phase, p.headCount,
             perElement(normFlops, normWhat(m), N, FlopName::Tokens, h, FlopName::Hidden), c.normW * act,
             2 * N * h * act, 0, p.train);
    }
    if (m.pooler)
        emit(c, "pooler", OpClass::Matmul, p.phase, p.headCount,
             plus(macs(p.Bm, FlopName::Sequences, h, FlopName::Hidden, h, FlopName::Hidden), p.Bm * h,
                  FlopName::BiasAddsSequencesHidden),
             (h * h) * wpw + h * act, 2 * p.Bm * h * act, 0, p.train);
}

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

} // namespace

namespace {
/// `stepTokens`: new tokens per sequence of a decode step (1, or K + 1 for a speculative verification step).
Analysis analyzeImpl(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, bool withOperators,
                     double stepTokens, std::vector<OperatorRecord> *records = nullptr)
{
    if (auto e = validate(s); !e.empty())
        refuse(e);
    if (auto e = validate(m); !e.empty())
        refuse("model " + m.id + ": " + e.message);
    if (hw.memory.empty())
        refuse("hardware " + hw.id + " has no memory levels");
    const bool decodeLike = s.phase == Phase::Decode || s.phase == Phase::Generate;
    if (m.arch == Architecture::Encoder && decodeLike)
        refuse(m.id + " is an encoder: it has no " + std::string(toString(s.phase)) + " phase (use --phase encode)");
    if (const std::string e = tensorParallelIssue(m, s.tp); !e.empty())
        refuse(e);
    if (m.layers % s.pp != 0)
        refuse("pp " + std::to_string(s.pp) + " does not divide the " + std::to_string(m.layers) + " layers of " +
               m.id);
    if (s.ep > 1 && (!m.isMoe() || m.experts % s.ep != 0))
        refuse(m.isMoe() ? "ep " + std::to_string(s.ep) + " does not divide the " + std::to_string(m.experts) +
                               " experts of " + m.id
                         : "ep " + std::to_string(s.ep) + " needs a mixture-of-experts model; " + m.id + " is dense");

    Analysis a;
    a.params = paramCount(m);

    Ctx c{hw, m, s};
    c.h = static_cast<double>(m.hidden);
    c.hq = static_cast<double>(m.heads / s.tp);
    c.hkv = static_cast<double>(m.kvHeads % s.tp == 0 ? m.kvHeads / s.tp : 1);
    c.d = static_cast<double>(m.headDim);
    c.qd = c.hq * c.d;
    c.kvd = c.hkv * c.d;
    c.ffn = static_cast<double>(m.ffn / s.tp);
    c.sharedFfn = static_cast<double>(m.sharedFfn / s.tp);
    c.denseFfn = static_cast<double>(m.denseFfn / s.tp);
    c.groups = layerGroups(m);
    for (const LayerGroup &g : c.groups) {
        const double n = static_cast<double>(g.count);
        c.ssmLayers += g.block.mixer && g.block.ssm ? n : 0;
        c.attnLayers += g.block.attends() ? n : 0;
        c.ffnLayers += g.block.ffn ? n : 0;
        c.sparseLayers += g.block.moe ? n : 0;
        c.windowedLayers += g.block.attends() && g.block.window > 0 ? n : 0;
    }
    c.act = bytesOf(s.activations);
    c.kvb = bytesOf(s.kv);
    // Structured sparsity removes weights and their FLOPs; unstructured removes weights but keeps dense FLOPs and
    // pays a 1-bit-per-weight mask.
    // A zero point per group, in the weight format (GPTQ/AWQ): bits(type) / group more bits per weight.
    auto bytesPerWeight = [&s](const WeightFormat &f) {
        const double zeroPoints =
            s.weightZeroPoints && f.groupSize > 0 ? static_cast<double>(bits(f.type)) / 8.0 / f.groupSize : 0.0;
        double b = (f.bytesPerWeight() + zeroPoints) * (1.0 - s.structuredSparsity);
        if (s.unstructuredSparsity > 0)
            b = b * (1.0 - s.unstructuredSparsity) + 1.0 / 8.0;
        return b;
    };
    c.wpw = bytesPerWeight(s.weights);
    c.expertWpw = m.isMoe() && s.expertWeights ? bytesPerWeight(*s.expertWeights) : c.wpw;
    c.embedWpw = s.unquantizedEmbeddings ? 2.0 : c.wpw;
    c.flopFactor = 1.0 - s.structuredSparsity;
    c.normW = m.norm == NormKind::LayerNorm && m.normBias ? 2 * c.h : c.h;
    c.layersPerStage = static_cast<double>(m.layers / s.pp);
    c.localExperts = static_cast<double>(m.experts / s.ep);

    // Efficiency: ideal = the roofline; achievable = the device's microbenchmarks (AchievableModel): GEMM fraction
    // by size, copy bandwidth, weight-only kernels' bandwidth, fused attention's rate, a cost per kernel launch and
    // the measured all-reduce. An explicit compute or memory efficiency replaces the mode's fractions on its side.
    const bool achievable = s.efficiency == EfficiencyMode::Achievable;
    const AchievableModel &km = hw.achievable;
    double ce = 1, me = 1;
    if (achievable) {
        if (km.computeFraction)
            ce = km.computeFraction->value;
        if (km.memoryFraction)
            me = km.memoryFraction->value;
    }
    if (s.computeEfficiency)
        ce = *s.computeEfficiency;
    if (s.memoryEfficiency)
        me = *s.memoryEfficiency;
    a.computeEfficiency = ce;
    a.memoryEfficiency = me;

    c.matmulType = hw.computeType(s.activations);
    c.rawPeakMatmul = hw.peak(c.matmulType);
    c.peakMatmul = c.rawPeakMatmul * ce;
    c.peakAttention = c.peakMatmul;
    c.vectorType = hw.supports(DType::FP32) ? DType::FP32 : c.matmulType;
    c.peakVector = hw.peak(c.vectorType) * ce;
    c.bw = hw.mainMemory().bandwidthBytesPerS.value * me;
    c.weightBw = c.bw;
    if (achievable) {
        if (!s.computeEfficiency) {
            c.gemmSweeps = &km;
            if (km.attentionFraction)
                c.peakAttention = c.rawPeakMatmul * km.attentionFraction->value;
        }
        if (!s.memoryEfficiency && isInteger(s.weights.type))
            if (const auto &f = km.weightOnlyMemoryFraction[index(s.weights.type)])
                c.weightBw = c.bw * f->value;
        // A kernel launched on its own costs at least what it costs inside a graph: eager takes the graph's figure
        // where the device has no eager one.
        const std::optional<Sourced> &kernel =
            s.execution == Execution::Eager && km.kernelEagerS ? km.kernelEagerS : km.kernelGraphsS;
        c.kernelS = kernel ? kernel->value : 0.0;
        // FP8 activations need quantize kernels before each linear layer unless the kernel before writes FP8 itself.
        if (c.matmulType == DType::FP8 && s.activationScales != ActivationScales::Fused) {
            const std::optional<QuantizeSweep> &w =
                s.activationScales == ActivationScales::Dynamic ? km.quantizeDynamic : km.quantizeStatic;
            c.quantize = w ? &*w : nullptr;
        }
    }
    if (!(c.peakMatmul > 0) || !(c.bw > 0))
        refuse("hardware " + hw.id + " has no usable compute peak or bandwidth");
    a.matmulType = c.matmulType;
    a.peakFlops = c.peakMatmul;
    a.bandwidth = c.bw;
    a.ridge = c.peakMatmul / c.bw;

    if (withOperators) {
        a.operators.reserve(s.phase == Phase::Generate ? 48 : 24);
        c.ops = &a.operators;
        c.records = records;
    }
    c.totals = &a.totals;

    // Replica and micro-batch sizes; pipeline slots on the critical path.
    const double B = static_cast<double>(s.batch / s.dp);
    const double mb = static_cast<double>(s.microBatches);
    const double Bm = B / mb;
    const double slots = mb + s.pp - 1; // micro-batches + pipeline fill
    const double layerCount = c.layersPerStage * slots;
    const double headCount = slots / s.pp;
    const double seq = static_cast<double>(s.seq), ctx = static_cast<double>(s.context);
    // Prefix caching: prefill computes only the prompt tokens not already cached (at least the last one, whose logits
    // start generation) and reads the cached prefix's keys and values instead.
    const double prefillNew = std::max(1.0, seq * (1.0 - s.promptCacheHitRate));
    Pass prefillPass{Phase::Prefill, Bm, prefillNew, seq,      s.kvCache ? seq - prefillNew : 0.0,
                     s.kvCache,      1,  layerCount, headCount};
    // Causal masking: a fused kernel (FlashAttention) skips the score blocks above the diagonal, so QK^T, softmax and
    // PV run over the unmasked pairs only: T(T + 1)/2 of T^2 for a whole prompt, about half. The bytes stay: Q, K and
    // V are still read once, and the scores never reach memory anyway. Unfused attention multiplies the full score
    // matrix and masks it afterwards, so it keeps the full count. Decode's one query row attends every cached key, and
    // encoders are bidirectional. A training step still counts every pair (the option covers prefill only).
    if (s.causal && s.fusedAttention && m.arch == Architecture::Decoder)
        prefillPass.causalPrefix = seq - prefillNew;

    double train = 1, trainAttn = 1;
    if (s.phase == Phase::Train) {
        train = 3; // forward + backward (2x forward)
        if (s.recompute == Recompute::Full)
            train = 4; // one more forward
        else if (s.recompute == Recompute::Selective)
            trainAttn = 4.0 / 3.0; // attention core recomputed
    }

    auto decodePass = [&](double context, double count) {
        // Each step's new tokens attend the cache and one another (counted in full, T x C pairs) and all get logits.
        Pass p{Phase::Decode, Bm,         stepTokens,         context + stepTokens, context + stepTokens,
               true,          stepTokens, layerCount * count, headCount * count};
        p.decodeStep = true;
        if (!s.kvCache) {
            // No cache: every step re-runs the whole context through every layer to rebuild K and V.
            p.T = context + stepTokens;
            p.cachedToks = 0;
            p.kvWrite = false;
            p.decodeStep = false;
        }
        emitPass(c, p);
    };

    switch (s.phase) {
    case Phase::Prefill: emitPass(c, prefillPass); break;
    case Phase::Encode:
        emitPass(c, {Phase::Encode, Bm, seq, seq, 0, false, m.arch == Architecture::Decoder ? 1.0 : 0.0, layerCount,
                     headCount});
        break;
    case Phase::Train:
        emitPass(c, {Phase::Train, Bm, seq, seq, 0, false, seq, layerCount, headCount, train, trainAttn});
        break;
    case Phase::Decode: decodePass(ctx, 1); break;
    case Phase::Generate: {
        emitPass(c, prefillPass);
        a.phases.ttftS = a.totals.timeS;
        if (s.output > 1)
            decodePass(seq + (s.output - 1) / 2.0, static_cast<double>(s.output - 1));
        break;
    }
    }

    // Optimizer step over this device's parameters (training).
    // Expert parallelism splits the routed experts; everything else, the shared expert too, is on every rank.
    const double expertParams = static_cast<double>(a.params.routed);
    const double nonExpert = static_cast<double>(a.params.total) - expertParams;
    double localParams =
        nonExpert / (static_cast<double>(s.tp) * s.pp) + expertParams / (static_cast<double>(s.tp) * s.pp * s.ep);
    if (s.phase == Phase::Train) {
        const double shard = s.zeroStage >= 1 ? s.dp : 1;
        const double p = localParams / shard;
        const bool adam = s.optimizer == Optimizer::Adam;
        // Adam (mixed precision): read master, m, v, grad; write master, m, v, weight. SGD: master, grad -> master,
        // weight.
        const double rw = adam ? (4 + 4 + 4 + 2) + (4 + 4 + 4 + 2) : (4 + 2) + (4 + 2);
        emit(c, "optimizer.step", OpClass::Elementwise, Phase::Train, 1,
             perElement(adam ? kAdamFlopsPerParam : kSgdFlopsPerParam,
                        adam ? FlopName::PerParameterAdam : FlopName::PerParameterSgd, p,
                        FlopName::ParametersOnThisDevice),
             0, rw * p, 0, 1);
    }

    // ---- communication ----
    Communication &comm = a.comm;
    const bool needLink = s.tp > 1 || s.pp > 1 || s.ep > 1 || (s.dp > 1 && s.phase == Phase::Train);
    double linkBw = 0, latency = 0;
    if (const Interconnect *link = hw.scaleUpLink()) {
        linkBw = link->bandwidthBytesPerS.value;
        latency = link->latencyS.value;
        comm.link = link->name;
    } else {
        for (const auto &lvl : hw.memory)
            if (lvl.kind == MemoryKind::Host) {
                linkBw = lvl.bandwidthBytesPerS.value;
                latency = 10e-6; // a PCIe round trip through host memory; order of magnitude
                comm.link = lvl.name;
            }
    }
    if (needLink && !(linkBw > 0))
        refuse("hardware " + hw.id + " has no interconnect or host link to split a model over several devices");
    // nccl-tests' curve (or the engine's custom all-reduce, measured the same way): the fixed cost it measured at the
    // message's size, plus the bytes each device sends over the largest all-reduce's bus bandwidth. Pipeline sends
    // and expert all-to-alls are charged the same way.
    const bool measuredCollectives = achievable && km.hasAllReduce() && hw.scaleUpLink();
    const bool custom = s.allReduce == AllReduce::Custom;
    if (measuredCollectives)
        linkBw = km.allReduceBusBandwidth(custom);
    else
        linkBw *= me;
    auto latencyAt = [&](double bytes) { return measuredCollectives ? km.allReduceLatencyAt(bytes, custom) : latency; };

    // Only the layers with routed experts dispatch tokens to other devices.
    const double sparseLayerCount = layerCount * c.sparseLayers / static_cast<double>(m.layers);
    auto commPass = [&](double T, double count, double trainMul) {
        const double msg = Bm * T * c.h * c.act;
        // Tensor parallelism: an all-reduce after each mixer and each FFN (two a layer; one in a layer of one part),
        // forward; backward doubles.
        const double perLayer = (c.attnLayers + c.ssmLayers + c.ffnLayers) / static_cast<double>(m.layers);
        if (s.tp > 1) // the sweep's look-up only where there is an all-reduce (the search runs many tp 1 configs)
            allReduce(msg, s.tp, linkBw, latencyAt(msg), perLayer * layerCount * count * trainMul, &comm.tpBytes,
                      &comm.timeS);
        if (s.pp > 1) {
            const double transfers = (mb + s.pp - 2) * count * trainMul;
            comm.ppBytes += msg * mb * count * trainMul;
            comm.timeS += transfers * (msg / linkBw + latencyAt(msg));
        }
        if (s.ep > 1) {
            // Expert parallelism: all-to-all dispatch and combine of each routed token's hidden state.
            const double sent = Bm * T * m.activeExperts * c.h * c.act * (s.ep - 1) / s.ep;
            comm.epBytes += 2 * sent * sparseLayerCount * count * trainMul;
            comm.timeS += 2 * (sent / linkBw + latencyAt(sent)) * sparseLayerCount * count * trainMul;
        }
    };
    switch (s.phase) {
    case Phase::Prefill: commPass(prefillNew, 1, 1); break;
    case Phase::Encode: commPass(seq, 1, 1); break;
    case Phase::Train: commPass(seq, 1, 2); break;
    case Phase::Decode: commPass(s.kvCache ? stepTokens : ctx + stepTokens, 1, 1); break;
    case Phase::Generate:
        commPass(prefillNew, 1, 1);
        a.phases.ttftS += comm.timeS;
        if (s.output > 1)
            commPass(s.kvCache ? 1 : seq + (s.output - 1) / 2.0, static_cast<double>(s.output - 1), 1);
        break;
    }
    if (s.phase == Phase::Train && s.dp > 1) {
        // Gradient all-reduce over the replicas (ZeRO-3 also all-gathers weights: 1.5x the traffic).
        const double grads = localParams * c.act;
        double dpTime = 0;
        allReduce(grads, s.dp, linkBw, latencyAt(grads), s.zeroStage >= 3 ? 1.5 : 1.0, &comm.dpBytes, &dpTime);
        comm.timeS += dpTime;
    }
    comm.bytes = comm.tpBytes + comm.ppBytes + comm.dpBytes + comm.epBytes;

    // ---- totals ----
    Totals &t = a.totals;
    t.timeS += comm.timeS;
    t.launchS = c.launchTime;
    t.quantizeS = c.quantizeTime;
    t.timeLowS = t.timeHighS = t.timeS;
    if (const std::optional<TimeBand> band = achievableBand(hw, s)) {
        t.timeLowS = t.timeS * band->low;
        t.timeHighS = t.timeS * band->high;
    }
    t.intensity = t.bytes > 0 ? t.flops / t.bytes : 0.0;
    if (comm.timeS > c.computeTime && comm.timeS > c.memoryTime)
        t.bound = Bound::Communication;
    else
        t.bound = c.computeTime > c.memoryTime ? Bound::Compute : Bound::Memory;
    t.linearBound = c.linearComputeTime > c.linearMemoryTime ? Bound::Compute : Bound::Memory;
    const double dpD = static_cast<double>(s.dp);
    double tokens = 0;
    switch (s.phase) {
    case Phase::Prefill:
    case Phase::Encode:
    case Phase::Train: tokens = B * seq * dpD; break;
    case Phase::Decode: tokens = B * dpD; break;
    case Phase::Generate: tokens = B * static_cast<double>(s.output) * dpD; break;
    }
    t.tokens = tokens;
    t.tokensPerS = t.timeS > 0 ? tokens / t.timeS : 0.0;
    t.achievedFlopsPerS = t.timeS > 0 ? t.flops / t.timeS : 0.0;
    // Whole-step work over all devices: the critical path counts pipeline fill slots, real work counts micro-batches.
    t.modelFlops = t.flops * s.tp * dpD * (mb * s.pp / slots);
    if (s.phase == Phase::Generate) {
        a.phases.e2eS = t.timeS;
        a.phases.tpotS = s.output > 1 ? (t.timeS - a.phases.ttftS) / static_cast<double>(s.output - 1) : 0.0;
    }

    // ---- KV cache ----
    // Attention layers cache per token; state-space layers keep a fixed state instead (below).
    const double ssmL = c.ssmLayers;
    a.kvCache.bytesPerToken = cachedElementsPerToken(m, static_cast<double>(m.kvHeads)) * c.attnLayers * c.kvb;
    double cachedTokens = 0;
    switch (s.phase) {
    case Phase::Prefill: cachedTokens = seq; break;
    case Phase::Decode: cachedTokens = ctx + stepTokens; break;
    case Phase::Generate: cachedTokens = seq + s.output; break;
    case Phase::Encode:
    case Phase::Train: cachedTokens = 0; break;
    }
    if (!s.kvCache || m.arch == Architecture::Encoder)
        cachedTokens = 0;
    a.kvCache.totalBytes = cachedElements(m, c.groups, cachedTokens, static_cast<double>(m.kvHeads)) * c.kvb * B;
    a.kvCache.cachedTokens = cachedTokens;
    a.kvCache.sequences = B;
    a.kvCache.bytesPerElement = c.kvb;
    // State-space layers keep a state per sequence instead, in the KV cache's format, whatever the context.
    a.kvCache.stateBytesPerSequence = ssmL * stateElements(m, 1) * c.kvb;
    const bool holdsState = s.kvCache && s.phase != Phase::Train && s.phase != Phase::Encode;
    a.kvCache.stateBytes = holdsState ? a.kvCache.stateBytesPerSequence * B : 0.0;

    // ---- memory footprint per device ----
    MemoryFootprint &mem = a.memory;
    // The embedding and the head (with the norms beside them) at their own bytes per weight; on a device, their share
    // follows the same split as the other non-expert weights.
    const double embedParams = static_cast<double>(a.params.embedding + a.params.head);
    // Likewise the routed experts at theirs (expert_weights).
    a.bytesPerWeight = c.wpw;
    a.expertBytesPerWeight = c.expertWpw;
    a.embedBytesPerWeight = c.embedWpw;
    a.weightBytes = static_cast<double>(a.params.total) * c.wpw + embedParams * (c.embedWpw - c.wpw) +
                    expertParams * (c.expertWpw - c.wpw);
    mem.weights = localParams * c.wpw + embedParams / (static_cast<double>(s.tp) * s.pp) * (c.embedWpw - c.wpw) +
                  expertParams / (static_cast<double>(s.tp) * s.pp * s.ep) * (c.expertWpw - c.wpw);
    if (s.phase == Phase::Train && s.zeroStage >= 3)
        mem.weights /= s.dp;
    // A stage holds 1/pp of every kind of layer (each group's share of the stage's layers).
    mem.kv = cachedElements(m, c.groups, cachedTokens, c.hkv) / s.pp * c.kvb * B;
    mem.state = holdsState ? ssmL / s.pp * stateElements(m, s.tp) * c.kvb * B : 0.0;
    {
        const bool prefills = s.phase == Phase::Prefill || s.phase == Phase::Generate;
        const double T = s.phase == Phase::Decode ? (s.kvCache ? stepTokens : ctx + stepTokens)
                         : prefills               ? prefillNew
                                                  : seq;
        // Keys per query in the layers with the widest window (the score matrix's peak), and on average per layer.
        const double keysBefore = s.phase == Phase::Decode ? ctx + stepTokens : seq;
        const double sparse = c.sparseLayers / static_cast<double>(m.layers);
        double widestKeys = 0, meanKeys = 0;
        for (const LayerGroup &g : c.groups) {
            if (!g.block.attends())
                continue; // no keys: a state, or no mixer
            const double keys =
                g.block.window > 0 ? std::min(keysBefore, static_cast<double>(g.block.window)) : keysBefore;
            widestKeys = std::max(widestKeys, keys);
            meanKeys += keys * static_cast<double>(g.count) / static_cast<double>(m.layers);
        }
        const double ssmShare = ssmL / static_cast<double>(m.layers);
        const double attnShare = c.attnLayers / static_cast<double>(m.layers);
        const double ffnShare = c.ffnLayers / static_cast<double>(m.layers);
        const double C = widestKeys;
        const double N = Bm * T;
        const double gated = m.gatedFfn ? 2.0 : 1.0;
        // The mixer's widest output, and what its backward pass keeps per token (see below).
        double mixerWidth = c.qd + 2 * c.kvd, attnStored = 2 * c.qd + 2 * c.kvd;
        if (m.mixer == MixerKind::Mla) {
            const MlaShape &ml = m.mla;
            const double qk = static_cast<double>(ml.qkNopeHeadDim + ml.qkRopeHeadDim);
            const double v = static_cast<double>(ml.vHeadDim);
            mixerWidth = std::max(c.hq * qk + static_cast<double>(ml.cachedPerToken()),
                                  c.hq * (static_cast<double>(ml.qkNopeHeadDim) + v));
            // Q and K (per head, qk wide), V and the out-projection input (v wide), and the latent and the queries'
            // low-rank input that kv_b_proj and q_b_proj read.
            attnStored = 2 * c.hq * qk + 2 * c.hq * v + static_cast<double>(ml.kvLoraRank + ml.qLoraRank);
        }
        if (attnShare == 0)
            mixerWidth = attnStored = 0;
        // A state-space layer's in_proj output is its widest; backward keeps it, the convolution's output, and the
        // scan's output before and after the gate.
        double ssmStored = 0;
        if (ssmShare > 0) {
            const SsmWidths w = ssmWidths(m, s.tp);
            mixerWidth = std::max(mixerWidth, w.inProj);
            ssmStored = w.inProj + w.conv + 2 * w.inner;
        }
        const double routedFfn = c.ffn * static_cast<double>(m.activeExperts) + c.sharedFfn;
        double widestFfn = (sparse > 0 ? routedFfn : c.ffn) * gated;
        if (m.isMoe() && sparse < 1)
            widestFfn = std::max(widestFfn, c.denseFfn * gated);
        // A model of image patches reads each patch's values too (patch_embed's input).
        const double widest = std::max({c.h, mixerWidth, widestFfn, static_cast<double>(m.patchInputs)});
        double live = 2 * N * widest * c.act;
        if (!s.fusedAttention)
            live += Bm * c.hq * T * C * c.act;
        live += Bm * (s.phase == Phase::Train ? T : 1.0) * (static_cast<double>(m.vocab) / s.tp) * 4.0; // fp32 logits
        if (s.phase == Phase::Train) {
            // Activations stored per layer for the backward pass, in bytes per token of this device, counted tensor
            // by tensor the way Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer
            // Models", section 4.1) count a GPT block: s*b*h*(34 + 5*a*s/h) bytes at 16 bits. Here act = bytes per
            // activation (2 at 16 bits), qd/kvd/ffn/hq are this device's shares under tensor parallelism:
            //   norms:      each norm keeps its input and its output feeds the next matmul, which keeps it:
            //               h * (inputs + outputs) * act; sequential blocks 2 + 2 (Korthikanti's 4sbh of
            //               LayerNorm inputs plus the 2sbh inputs of the QKV and first MLP matmuls); parallel
            //               attention reads one input (1 + 2, or 1 + 1 with a shared norm). RMSNorm keeps the same
            //               input as LayerNorm; the per-token statistics (4-8 B a token) are left out, as there.
            //   attention:  Q (after rotary), K and V for the QK^T and PV backward, and the out-projection input:
            //               (qd + 2*kvd + qd) * act; Korthikanti's 4sbh (Q, K) + 2sbh (V) + 2sbh (out input).
            //   MLP, plain: the activation's input and output (the down projection's input): 2 * ffn * act;
            //               Korthikanti's 8sbh + 8sbh at ffn = 4h (plus the 2sbh MLP input, counted with the norms).
            //   MLP, gated: gate and up (the SwiGLU/GeGLU input) and their product (the down input): 3 * ffn * act;
            //               the activation of the gate is recomputed from it, as in fused SwiGLU kernels.
            //   scores:     unfused attention keeps the softmax output, hq * keys * act (Korthikanti's 2as^2b);
            //               fused (FlashAttention) keeps only each query row's softmax log-sum-exp in FP32,
            //               4 * hq bytes: nothing grows with s^2.
            //   dropout:    none (the LLMs here pretrain without it). Korthikanti count 1-byte masks after
            //               attention and MLP (2sbh) and the attention-dropout mask and output (3as^2b): with them
            //               this count is exactly their 34 + 5as/h for a GPT block (tests/core/tst_analysis.cpp).
            // Mixture of experts: the MLP terms count the routed copies that reach this device's experts
            // (k * local / E per token) and the shared expert, which every token reaches; dispatch buffers and
            // router logits are left out.
            // Llama 2 7B (h 4096, 32 heads, ffn 11008, fused, 16-bit): 2*(4*4096 + 2*4096 + 2*4096 + 3*11008) + 4*32
            // = 131,712 B per token per layer, about 32.2*s*b*h instead of the GPT block's 34*s*b*h + 5*a*s^2*b.
            // Selective recomputation recomputes the attention core (no score or statistics term); full keeps only
            // each layer's input (h * act).
            // A post-norm keeps its input for the backward pass; its output only joins the residual.
            // A layer of one part (Mamba's, a layer pattern's) has one norm.
            const bool onePart = c.attnLayers + ssmL + c.ffnLayers == static_cast<double>(m.layers);
            const double normInputs = onePart ? 1 : (m.parallelAttention ? 1 : 2) + (m.postNorms ? 2 : 0);
            const double normOutputs = onePart || (m.parallelAttention && m.sharedLayerNorm) ? 1 : 2;
            const double expertShare =
                m.isMoe() ? static_cast<double>(m.activeExperts) * c.localExperts / static_cast<double>(m.experts)
                          : 1.0;
            // meanKeys already averages over all layers (a state-space layer attends none).
            const double scoreBytes = s.fusedAttention ? 4.0 * c.hq * attnShare : c.hq * meanKeys * c.act;
            // The FFN per layer on average: routed layers keep their experts' and the shared expert's terms, a MoE
            // model's dense layers their dense FFN's.
            const double ffnStored =
                m.isMoe() ? sparse * (expertShare * c.ffn + c.sharedFfn) + (1 - sparse) * c.denseFfn : c.ffn * ffnShare;
            const double perTokenNoScores = c.act * (c.h * (normInputs + normOutputs) + attnShare * attnStored +
                                                     ssmShare * ssmStored + ffnStored * (m.gatedFfn ? 3.0 : 2.0));
            double perToken = perTokenNoScores + scoreBytes;
            if (s.recompute == Recompute::Selective)
                perToken = perTokenNoScores;
            else if (s.recompute == Recompute::Full)
                perToken = c.h * c.act;
            live += perToken * seq * Bm * c.layersPerStage * std::min<double>(mb, s.pp);
        }
        mem.activations = live;
    }
    if (s.phase == Phase::Train) {
        mem.gradients = localParams * c.act / (s.zeroStage >= 2 ? s.dp : 1);
        const double perParam = s.optimizer == Optimizer::Adam ? 12.0 : 8.0; // fp32 master + m + v | master + momentum
        mem.optimizer = localParams * perParam / (s.zeroStage >= 1 ? s.dp : 1);
    }
    mem.capacity = hw.mainMemory().capacityBytes.value;
    mem.fits = mem.total() <= mem.capacity;
    return a;
}

} // namespace

std::optional<TimeBand> achievableBand(const HardwareSpec &hw, const Scenario &s)
{
    if (s.efficiency != EfficiencyMode::Achievable || hw.achievable.empty())
        return std::nullopt;
    return kAchievableBand;
}

Analysis analyze(const HardwareSpec &hw, const ModelShape &m, const Scenario &s)
{
    return analyzeImpl(hw, m, s, true, 1);
}

Analysis analyzeRecorded(const HardwareSpec &hw, const ModelShape &m, const Scenario &s,
                         std::vector<OperatorRecord> *records)
{
    records->clear();
    return analyzeImpl(hw, m, s, true, 1, records);
}

Analysis analyzeTotals(const HardwareSpec &hw, const ModelShape &m, const Scenario &s)
{
    return analyzeImpl(hw, m, s, false, 1);
}

Analysis analyzeDecodeStep(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, int tokens)
{
    if (s.phase != Phase::Decode)
        refuse("a decode step of several tokens needs phase decode, got " + std::string(toString(s.phase)));
    if (tokens < 1 || tokens > 64)
        refuse("tokens per decode step must be between 1 and 64, got " + std::to_string(tokens));
    return analyzeImpl(hw, m, s, true, tokens);
}

} // namespace memwall::core
