#pragma once

// The analysis' own header, shared by the files that emit its operators (core/analysis/*.cpp): what one analysis
// derives once (Ctx), one pass of the model (Pass), the step's sizes (Step), and the helpers that emit an operator.
// Not part of the public API: nothing outside core/analysis includes it.

#include "core/analysis/analysis.h"
#include "core/analysis/operatortime.h"

#include <string>
#include <string_view>
#include <vector>

namespace memwall::core::detail {

// Element-wise FLOP constants per element (see the Operator doc comment).
inline constexpr double kResidualFlops = 1;
inline constexpr double kRmsNormFlops = 4;
inline constexpr double kLayerNormFlops = 7;
inline constexpr double kRopeFlops = 3;
inline constexpr double kSoftmaxFlops = 5;
inline constexpr double kSoftcapFlops = 3; // cap x tanh(x / cap): divide, tanh (1, as softmax's exp), multiply
// A router score with a bias per expert (DeepSeek-V3's e_score_correction_bias): sigmoid 1 / (1 + exp(-x)) as
// negate-exp (1, as softmax's exp), add and divide, then the bias add.
inline constexpr double kSigmoidBiasFlops = 4;
inline constexpr double kAdamFlopsPerParam = 12;
inline constexpr double kSgdFlopsPerParam = 4;

/// FLOPs per element of an FFN's activation.
inline double activationFlops(Activation a)
{
    switch (a) {
    case Activation::Silu: return 4;
    case Activation::Gelu: return 8;
    case Activation::Relu: return 1;
    case Activation::Relu2: return 2; // relu(x)^2: the max, then the square
    }
    return 4;
}

/// What a norm's FLOP constant counts, and the constant.
inline FlopName normWhat(const ModelShape &m)
{
    return m.norm == NormKind::RmsNorm ? FlopName::PerElementRmsNorm : FlopName::PerElementLayerNorm;
}
inline double normFlops(const ModelShape &m) { return m.norm == NormKind::RmsNorm ? kRmsNormFlops : kLayerNormFlops; }

[[noreturn]] void refuse(const std::string &msg);

/// Everything derived once per analysis: per-device shapes, byte sizes, roofs.
struct Ctx
{
    const HardwareSpec &hw;
    const ModelShape &m;
    const Scenario &s;
    const LayerGroups &groups; ///< the model's layers by kind (window, dense or routed FFN, attention or state space)
    double h = 0, hq = 0, hkv = 0, d = 0, qd = 0, kvd = 0, ffn = 0, sharedFfn = 0, denseFfn = 0;
    bool valueProj = true; ///< the attention layers project values (Gemma 4's global layers: keys are values)
    double rotary = 1;     ///< the share of each q and k head rotated (Step-3.5's global layers: their own)
    /// The attention widths above are the ordinary layers'; Gemma 4's and Step-3.5's global layers (ModelShape::global)
    /// have their own, which useAttentionWidths() puts in hq, hkv, d, qd, kvd, valueProj and rotary while their
    /// operators are emitted.
    AttentionWidths attnWidths{}, globalWidths{};
    double globalLayers = 0; ///< attention layers with globalWidths (0 unless ModelShape::global is set)
    /// K (or V) width per device over the attention layers, on average and at the widest: kvd, unless layers have
    /// their own KV heads (LayerBlock::kvHeads, DeciLM).
    double kvdMean = 0, kvdWidest = 0;
    double ssmLayers = 0;    ///< of the model's layers: state-space ones
    double linearLayers = 0; ///< linear-attention ones
    double attnLayers = 0;   ///< attention ones (LayerBlock::attends())
    double ffnLayers = 0;    ///< with a dense or routed FFN (all but Mamba's and a layer pattern's mixer-only layers)
    double linearMixerLayers = 0; ///< whose attention is replaced by one linear layer (DeciLM's replace_with_linear)
    double linearFfnLayers = 0;   ///< whose FFN is replaced by one linear layer (DeciLM's replace_with_linear)
    double sparseLayers = 0;      ///< with routed experts
    double besideLayers = 0;      ///< of them, with a dense MLP beside the experts (Gemma 4: LayerFfn::DenseAndMoe)
    double windowedLayers = 0;    ///< attention layers with a window
    /// Of the attention layers: those sharing an earlier layer's keys and values (ModelShape::kvSharedLayers), with
    /// the whole context (sharedFull) and with a window (sharedWindowed); they project no keys or values and write
    /// no cache, but read the shared cache as their own
    double sharedFull = 0, sharedWindowed = 0;
    double wideFfnLayers = 0; ///< of the dense FFNs: twice as wide (ModelShape::doubleWideSharedFfn)
    double act = 2, kvb = 2, wpw = 2, normW = 0;
    /// Bytes an element of the recurrent state (ModelShape::stateFormat), else the KV cache's kvb.
    double stateb = 2;
    double expertWpw = 2; ///< bytes per weight of the routed experts (expert_weights, else wpw)
    double embedWpw = 2;  ///< bytes per weight of the token embedding and the LM head (unquantized_embeddings: 2)
    double layersPerStage = 0;
    double localExperts = 1;
    OperatorRoofs roofs{}; ///< what every operator is timed with (timeOperator())
    /// > 0 while the operators of a module the device measured whole are emitted (an MLA layer's decode step): the
    /// fraction each is timed at (OperatorWork::moduleFraction).
    double moduleFraction = 0;
    double flopFactor = 1; ///< structured sparsity: fraction of matmul weight FLOPs kept
    std::vector<Operator> *ops = nullptr;
    std::vector<OperatorRecord> *records = nullptr; ///< analyzeRecorded(): what each operator's derivation needs
    Totals *totals = nullptr;
    double computeTime = 0, memoryTime = 0, launchTime = 0, quantizeTime = 0;
    double linearComputeTime = 0, linearMemoryTime = 0;
};

/// Puts the per-device widths of attention layers of widths `w` (attentionWidths()) in c.hq, hkv, d, qd, kvd,
/// valueProj and rotary.
inline void useAttentionWidths(Ctx &c, const AttentionWidths &w)
{
    c.hq = static_cast<double>(w.heads / c.s.tp);
    c.rotary = w.rotaryFraction;
    c.hkv = kvHeadsOnDevice(w.kvHeads, c.s.tp);
    c.d = static_cast<double>(w.headDim);
    c.qd = c.hq * c.d;
    c.kvd = c.hkv * c.d;
    c.valueProj = w.valueProjection;
}

/// The step's sizes: replica and micro-batch, pipeline slots on the critical path, the request's lengths.
struct Step
{
    double B = 0;             ///< sequences per replica
    double mb = 1;            ///< micro-batches
    double Bm = 0;            ///< sequences per micro-batch
    double pipelineSlots = 1; ///< micro-batches + pipeline fill
    double layerCount = 0;    ///< executions of each layer operator on the critical path
    double headCount = 0;     ///< executions of embed/head operators on the critical path
    double seq = 0, ctx = 0;
    double prefillNew = 0; ///< prompt tokens prefill computes (prefix caching skips the cached ones)
    double stepTokens = 1; ///< new tokens per sequence of a decode step (K + 1 for a speculative verification)
};

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

/// Static operator names of one layer kind's attention core: the layers with the whole context, and the windowed
/// ones of a model that has both ("attn.local_score").
struct CoreNames
{
    std::string_view kvWrite, score, softcap, softmax, context;
};
inline constexpr CoreNames kGlobalCore{"attn.kv_write", "attn.score", "attn.softcap", "attn.softmax", "attn.context"};
inline constexpr CoreNames kLocalCore{"attn.local_kv_write", "attn.local_score", "attn.local_softcap",
                                      "attn.local_softmax", "attn.local_context"};

/// Static operator names of one FFN: a dense model's (or a MoE model's routed layers'), the dense layers' of a MoE
/// model that has both ("ffn.dense_up"), and the shared expert's.
struct FfnNames
{
    std::string_view up, gate, act, down;
};
inline constexpr FfnNames kFfn{"ffn.up", "ffn.gate", "ffn.act", "ffn.down"};
inline constexpr FfnNames kDenseFfn{"ffn.dense_up", "ffn.dense_gate", "ffn.dense_act", "ffn.dense_down"};
inline constexpr FfnNames kSharedFfn{"ffn.shared_up", "ffn.shared_gate", "ffn.shared_act", "ffn.shared_down"};
/// The double-wide MLP of Gemma 4 E2B/E4B's layers that share keys and values (ModelShape::doubleWideSharedFfn).
inline constexpr FfnNames kWideFfn{"ffn.wide_up", "ffn.wide_gate", "ffn.wide_act", "ffn.wide_down"};

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

/// One operator, `count` executions: timed by timeOperator(), added to the totals and, when kept, to the operator
/// list. `quantizedInput`: the elements of a linear layer's input that its own quantize kernels turn into FP8 first
/// (0 where the input is shared with another matmul that already did, or not quantized). Inline: the hot path.
/// `expertTokens` > 0: the operator is part of the routed experts' fused MoE kernel, at that many token-expert
/// pairs per expert on the busiest device, which runs `expertsTouched` experts (timeOperator() times it from the
/// device's MoE table where it has one).
inline void emitOp(Ctx &c, std::string_view name, OpClass cls, Phase phase, double count, const FlopTerms &terms,
                   double wBytes, double aBytes, double kvBytes, double trainFactor, double quantizedInput = 0,
                   double expertTokens = 0, double expertsTouched = 0)
{
    const double flops = terms.value();
    const double opFlops = flops * count * trainFactor, weightBytes = wBytes * count * trainFactor;
    const double activationBytes = aBytes * count * trainFactor, kvRead = kvBytes * count * trainFactor;
    const OperatorTime t =
        timeOperator(c.roofs, {cls, name, count, trainFactor, flops, opFlops, weightBytes, activationBytes + kvRead,
                               quantizedInput, expertTokens, expertsTouched, c.moduleFraction});
    (t.bound == Bound::Compute ? c.computeTime : c.memoryTime) += t.roofS;
    c.launchTime += t.launchS;
    c.quantizeTime += t.quantizeS;
    if (cls == OpClass::Matmul)
        (t.bound == Bound::Compute ? c.linearComputeTime : c.linearMemoryTime) += t.roofS;
    c.totals->flops += opFlops;
    c.totals->bytes += weightBytes + activationBytes + kvRead;
    c.totals->timeS += t.timeS;
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
    op.computeType = cls == OpClass::Matmul || cls == OpClass::Attention ? c.roofs.matmulType : c.roofs.vectorType;
    if (name == kIndexerScore && c.roofs.peakIndexer != c.roofs.peakAttention)
        op.computeType = DType::FP8; // the indexer's FP8 scores (OperatorRoofs::peakIndexer)
    op.timeS = t.timeS;
    op.bound = t.bound;
    op.quantizedInput = quantizedInput;
    op.expertTokens = expertTokens;
    op.expertsTouched = expertsTouched;
    op.moduleFraction = c.moduleFraction;
    if (c.records)
        c.records->push_back({terms, trainFactor, t.peak, t.weightBandwidth, t.otherBandwidth, t.launchS, t.quantizeS});
}

/// A linear layer over `tokens` tokens, `count` times: `in` x `out` weights (plus `out` biases with `bias`), 2 FLOPs
/// per multiply-accumulate (sparsity keeps flopFactor of them) and 1 per bias add; it reads its input and weights and
/// writes its output. `sharedInput`: another linear layer already quantized the same input.
inline void emitLinear(Ctx &c, std::string_view name, Phase phase, double count, double tokens, double in, double out,
                       bool bias, double train, bool sharedInput = false)
{
    const double b = bias ? 1.0 : 0.0;
    emitOp(c, name, OpClass::Matmul, phase, count,
           plus(macs(tokens, FlopName::Tokens, in, FlopName::Inputs, out, FlopName::Outputs, 1, FlopName::None,
                     c.flopFactor),
                b * tokens * out, FlopName::BiasAddsTokensOutputs),
           in * out * c.wpw + b * out * c.act, tokens * in * c.act + tokens * out * c.act, 0, train,
           sharedInput ? 0.0 : tokens * in);
}

/// A norm of the hidden width over `tokens` tokens, `count` times, at the model's norm kind (RMSNorm 4, LayerNorm 7
/// FLOPs per element); it reads its weights and its input and writes its output.
inline void emitNorm(Ctx &c, std::string_view name, Phase phase, double count, double tokens, FlopName tokensName,
                     double train)
{
    emitOp(c, name, OpClass::Normalization, phase, count,
           perElement(normFlops(c.m), normWhat(c.m), tokens, tokensName, c.h, FlopName::Hidden), c.normW * c.act,
           2 * tokens * c.h * c.act, 0, train);
}

/// A residual add over `tokens` tokens of the hidden width: 1 FLOP per element; it reads two inputs, writes one.
inline void emitResidual(Ctx &c, std::string_view name, Phase phase, double count, double tokens, double train)
{
    emitOp(c, name, OpClass::Elementwise, phase, count,
           perElement(kResidualFlops, FlopName::PerElementAdd, tokens, FlopName::Tokens, c.h, FlopName::Hidden), 0,
           3 * tokens * c.h * c.act, 0, train);
}

// ---- the emitters, one per part of a layer (each in its own file) ----

/// Query-key pairs a causal mask leaves for `T` new tokens that follow `prefix` earlier tokens, each attending to at
/// most `window` keys (attention.cpp).
double causalPairs(double prefix, double T, double window);
/// The same for chunked local attention (attention.cpp).
double chunkedCausalPairs(double prefix, double T, double chunk);
/// The attention layers' part of a block, `lc` times (attention.cpp; multi-head latent attention in mla.cpp).
void emitAttentionMixer(Ctx &c, const Pass &p, double lc);
/// An operator name made at run time ("ffn.up_28672", "attn.score_kv4"), kept for the process: operators name
/// themselves by string_view (names.cpp).
std::string_view internName(const std::string &name);
/// The attention core (cache write, scores, softmax, context) of `lc` layers of window `window` (attention.cpp).
void emitAttentionCore(Ctx &c, const Pass &p, double lc, double window, const CoreNames &names, double shared = 0);
/// The soft-cap of the scores (when the model has one) and their softmax, `lc` times (attention.cpp).
void emitScoreSoftmax(Ctx &c, const Pass &p, double lc, double pairs, const CoreNames &names);
/// Multi-head latent attention's projections and its core (mla.cpp).
void emitMlaProjections(Ctx &c, const Pass &p, double lc);
void emitMlaCore(Ctx &c, const Pass &p, double lc, double C, double cached, double pairs, const CoreNames &names);
/// Sparse latent attention (DeepSeek Sparse Attention, mla.cpp): the lightning indexer of `lc` layers (its
/// projections, key cache, scores and top-k), and the MLA core over the top-k keys each query chose.
void emitIndexer(Ctx &c, const Pass &p, double lc);
void emitSparseMlaCore(Ctx &c, const Pass &p, double lc, const CoreNames &names);
/// The state-space layers' part of a block, `lc` times: norm, mixer, residual (ssm.cpp).
void emitSsmMixer(Ctx &c, const Pass &p, double lc);
/// The linear-attention layers' part of a block, `lc` times: norm, Gated DeltaNet, residual (linearattention.cpp).
void emitLinearAttentionMixer(Ctx &c, const Pass &p, double lc);
/// Routed experts under top-k routing: `tokens` tokens choosing `active` of `experts` each, `localExperts` of them on
/// this device, over `ep` expert-parallel devices (ffn.cpp).
struct ExpertLoad
{
    double tokens = 0;  ///< token-expert pairs the busiest device computes
    double touched = 0; ///< expert weights it reads (whole experts, expected)
};
ExpertLoad expertLoad(double tokens, double experts, double active, double localExperts, int ep);
/// The FFN part of every layer that has one: norm, dense FFN or routed experts, post-norm, residual (ffn.cpp).
void emitFfnBlock(Ctx &c, const Pass &p);
/// The parts of a layer replaced by one hidden x hidden linear layer (DeciLM's replace_with_linear): their norm, the
/// linear layer and the residual add, for the attention and for the FFN (replaced.cpp).
void emitReplacedParts(Ctx &c, const Pass &p);
/// The first stage's embeddings, and the last stage's head (embedhead.cpp).
void emitEmbeddings(Ctx &c, const Pass &p);
/// Per-layer embeddings (ModelShape::perLayerInput), `lc` layers: the gate, the product with the layer's input, the
/// projection back, its norm and the residual add (embedhead.cpp).
void emitPerLayerInput(Ctx &c, const Pass &p, double lc);
void emitHead(Ctx &c, const Pass &p);
/// Gemma 3n (altup.cpp): AltUp's projections into the extra streams after the embeddings (first stage) and out of
/// them before the final norm (last stage); each layer's prediction (its routers, coefficients and the predicted
/// streams) with LAuReL, and its correction, `lc` layers; the statistical top-k on the MLP gate of `lc` layers.
void emitAltUpExpand(Ctx &c, const Pass &p);
void emitAltUpCollapse(Ctx &c, const Pass &p);
void emitAltUpPredict(Ctx &c, const Pass &p, double lc);
void emitAltUpCorrect(Ctx &c, const Pass &p, double lc);
void emitGateTopk(Ctx &c, const Pass &p, double lc);
/// A multimodal wrapper's vision tower over each request's images (Scenario::images), in prefill (vision.cpp).
void emitVisionTower(Ctx &c, const Step &st);
/// A training step's optimizer update of this device's `localParams` parameters (analysis.cpp).
void emitOptimizer(Ctx &c, double localParams);

/// This device's parameters: the non-expert ones split by tp and pp, the routed experts by tp, pp and ep.
double localParams(const ParamCounts &params, const Scenario &s);

/// The communication of the step (communication.cpp): tensor-parallel all-reduces, pipeline sends, expert
/// all-to-alls and training's gradient all-reduce, into a.comm (and the prefill's share into a.phases.ttftS).
void addCommunication(const Ctx &c, const Step &st, Analysis &a);
/// Tokens per sequence the step's KV cache holds: the prompt, the context and the step's new tokens, or the whole
/// request (none without a cache, in training or for an encoder) (kvcache.cpp).
double cachedTokensPerSequence(const Scenario &s, const ModelShape &m, const Step &st);
/// Whether the step keeps state-space layers' state (a cache of any kind, outside training and encoding).
inline bool holdsState(const Scenario &s) { return s.kvCache && s.phase != Phase::Train && s.phase != Phase::Encode; }
/// The KV cache and state-space state the step holds (kvcache.cpp); returns the cached tokens per sequence.
/// Bytes of the fixed state one sequence keeps over all its state-space and linear-attention layers, with `tp`
/// splitting the channels and heads: the recurrent part in c.stateb bytes an element, the convolution's in c.kvb.
double stateBytes(const Ctx &c, int tp);
double addKvCache(const Ctx &c, const Step &st, Analysis &a);
/// The memory footprint per device (footprint.cpp), given the cached tokens per sequence.
void addFootprint(const Ctx &c, const Step &st, double cachedTokens, Analysis &a);
/// The totals of the step from its operators and communication (totals.cpp).
void addTotals(const Ctx &c, const Step &st, Analysis &a);

} // namespace memwall::core::detail
