#pragma once

#include "core/analysis/scenario.h"
#include "core/hardware/hardwarespec.h"
#include "core/model/modelshape.h"
#include "core/util/oneline.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

enum class OpClass { Matmul, Attention, Normalization, Elementwise, Communication };
std::string_view toString(OpClass c);
inline constexpr std::size_t kOpClassCount = 5;

enum class Bound { Compute, Memory, Communication };
std::string_view toString(Bound b);

/// The names of the factors FlopTerms multiplies, one byte each in an operator (their text: toString()): what a
/// factor or a FLOP constant counts, written as the derivation (core/analysis/derivation.h) shows it.
enum class FlopName : std::uint8_t {
    None,
    AttendedTokens,
    BiasAddsAndSharedExpertAdd,
    BiasAddsLogits,
    BiasAddsPatchesHidden,
    BiasAddsSequencesHidden,
    BiasAddsTokensFfnWidth,
    BiasAddsTokensHidden,
    BiasAddsTokensOutputs,
    CausalPairsWithinChunks,
    ChunkStates,
    ConvolvedChannels,
    DInner,
    DecayAndBetaGates,
    ChannelDecayAndBetaGates,
    DtBiasAndSoftplus,
    DtRank,
    DtRankAnd2DState,
    EmbeddingAdds,
    FfnWidth,
    HeadDim,
    Heads,
    HeadsAndSharedKey,
    HeadsTimesNopeAndV,
    Hidden,
    IndexHeadDim,
    IndexHeads,
    IndexHeadsAndKey,
    Inputs,
    KvLoraRank,
    LatentAndRope,
    Outputs,
    ParametersOnThisDevice,
    PatchInputs,
    Patches,
    PerChannelConv,
    PerChannelConvNoBias,
    PerHeadChunkedScan,
    PerHeadRecurrentUpdate,
    PerIndexerScore,
    PerIndexerTopk,
    PerChannelScan,
    PerChunkPair,
    PerElementActivation,
    PerElementAdd,
    PerElementGate,
    PerElementGatedActivation,
    PerElementGatedNorm,
    PerElementL2Norm,
    PerElementSigmoidGate,
    PerElementLayerNorm,
    PerElementRmsNorm,
    PerMultiplyAccumulate,
    PerParameterAdam,
    PerParameterSgd,
    PerRotatedElement,
    PerScoreSoftmax,
    PerScoreSoftcap,
    PerRouterScore,
    RoutedCopies,
    PerElementWeightedAdd,
    PerLogitSoftcap,
    QAndKWidths,
    QWidth,
    KvWidth,
    RotatedQAndKWidths,
    QLoraRank,
    QkHeadDim,
    QkNopeHeadDim,
    QkRopeHeadDim,
    QueryKeyPairsPerHead,
    RouterColumns,
    Sequences,
    Tokens,
    TokensPaddedToChunks,
    TokensWithLogits,
    ValueHeads,
    ValueWidth,
    VHeadDim,
    VocabularyShare,
    Images,
    VisionHidden,
    VisionFfnWidth,
    MergedWidth,
    PerElementScale,
    PerElementScaledSum,
    PerLayerInputWidth, ///< Gemma 4 E2B/E4B's hidden_size_per_layer_input
    AllPerLayerInputs,  ///< layers x hidden_size_per_layer_input
    AltupStreams,       ///< Gemma 3n's altup_num_inputs
    ExtraAltupStreams,  ///< altup_num_inputs - 1
    LaurelRank,         ///< Gemma 3n's laurel_rank
    PerElementScaledRmsNorm,
    PerTokenAltupCoefs,
    PerElementAltupPredict,
    PerElementAltupCorrect,
    PerElementAltupExpand,
    PerElementAltupCollapse,
    PerElementTwoAddsScale,
    PerElementGaussianTopk,
    SigmoidOfHeadGates, ///< Step-3.5's gate per head
};
std::string_view toString(FlopName n);

/// How the analysis counted one execution of an operator's FLOPs:
///   coeff x f[0] x f[1] x f[2] x f[3] x kept + extra
/// with each factor named (FlopName) for the derivation (core/analysis/derivation.h). analyze() computes an operator's
/// FLOPs from these very terms (value()), so the derivation shows the numbers the analysis multiplied. Unused factors
/// are 1 with no name; recording them builds no string.
struct FlopTerms
{
    double coeff = 0;                    ///< FLOPs per multiply-accumulate (2) or per element (RMSNorm 4, ...)
    double f[4] = {1, 1, 1, 1};          ///< the dimensions multiplied: tokens, in, out ... (elements, not bytes)
    double kept = 1;                     ///< structured sparsity: the fraction of the weight FLOPs kept (1: dense)
    double extra = 0;                    ///< FLOPs added after the product: bias adds, a softplus, ...
    FlopName coeffName = FlopName::None; ///< what coeff counts
    FlopName names[4] = {};              ///< the factors' names; None: unused
    FlopName extraName = FlopName::None; ///< what extra counts, with its formula
    double value() const { return coeff * f[0] * f[1] * f[2] * f[3] * kept + extra; }
};

/// One operator of the model as one device sees it.
///
/// Counting conventions (pinned by tests/core/tst_analysis.cpp; summarized in docs/model.md):
/// - 2 FLOPs per multiply-accumulate; bias adds 1 FLOP per output element.
/// - Element-wise constants per element: residual add 1, RMSNorm 4, LayerNorm 7 (mean, subtract, square, sum,
///   scale, weight, bias), rotary embedding 3 per rotated element (of q and k), softmax 5 per score (max, subtract,
///   exp, sum, divide), SiLU 4, GELU 8, ReLU 1, squared ReLU 2 (the max, then the square), gated FFN +1 (the
///   product of gate and up), logit soft-capping 3 per score or logit (cap x tanh(x / cap): divide, tanh, multiply;
///   tanh counts 1, as softmax's exp does).
/// - Bytes are traffic to main memory (HBM/DRAM): each operand read once and each result written once per operator.
///   Fused attention (FlashAttention-style) never writes or reads the score matrix; softmax then moves no bytes.
/// - Encode and train attend `seq` x `seq` scores in full; decode attends `context` + 1 keys (capped by the sliding
///   window) for its one new token per sequence. Prefill of a decoder with `causal` and fused attention computes only
///   the unmasked pairs, seq(seq + 1)/2 per head and sequence (the kernel skips the masked blocks); unfused attention
///   multiplies the whole score matrix and masks it afterwards, so it keeps seq x seq.
/// - Embedding reads only the rows of the tokens it looks up; the LM head runs on the last token of each sequence
///   (the one whose logits are sampled), except in training, where every token has logits. A model of image patches
///   projects every token but each image's class token (patch_embed, a matmul), then adds the positions (embed).
/// - `flops`, `bytes` and `timeS` are totals over the `count` executions on one device's critical path
///   (layers per pipeline stage x (micro-batches + stages - 1)). With tensor parallelism they are one rank's share.
struct Operator
{
    std::string_view name; ///< stable dotted name: "attn.qkv_proj", "ffn.down", "lm_head", ...
    OpClass cls = OpClass::Matmul;
    Phase phase = Phase::Decode; ///< Prefill or Decode inside a Generate analysis, else the scenario's phase
    double count = 1;            ///< executions on the critical path
    double flops = 0;
    double weightBytes = 0;
    double activationBytes = 0;
    double kvBytes = 0;
    DType computeType = DType::FP16; ///< format the device computes this operator in
    double timeS = 0;
    Bound bound = Bound::Memory;
    /// Elements of its input that its own quantize kernels turn into FP8, per execution (0: none; achievable
    /// efficiency with FP8 activations): what re-timing it (timeOperator()) needs beyond its figures.
    double quantizedInput = 0;
    /// Part of the routed experts' fused MoE kernel: its token-expert pairs per expert on the busiest device, at which
    /// the device's MoE table times it (0: not part of it), and the experts that device runs.
    double expertTokens = 0;
    double expertsTouched = 0;
    /// Part of a module the device measured whole (an MLA layer's decode step): the fraction of its operators'
    /// summed ideal rooflines it reached, at which timeOperator() times it (0: not part of one).
    double moduleFraction = 0;

    double bytes() const { return weightBytes + activationBytes + kvBytes; }
    /// A communication operator (OpClass::Communication: expert parallelism's `moe.dispatch` and `moe.combine`): its
    /// activationBytes are the bytes it sends over the link, it does no FLOPs, and its time is part of
    /// Communication::timeS, so a sum of the operators' times that adds Communication::timeS skips it.
    bool onLink() const { return cls == OpClass::Communication; }
    double intensity() const { return bytes() > 0 ? flops / bytes() : 0.0; }
};

/// What analyze() used for one operator beyond its figures, recorded only when asked (analyzeRecorded()) for the
/// operator's derivation (core/analysis/derivation.h): kept out of Operator so that analyze() moves no more bytes.
struct OperatorRecord
{
    FlopTerms flops;            ///< one execution's FLOPs; Operator::flops = flops.value() x count x trainFactor
    double trainFactor = 1;     ///< training's forward + backward (+ recompute) multiplier of FLOPs and bytes; else 1
    double peakFlops = 0;       ///< FLOP/s: the compute roof this operator ran against (after efficiency)
    double weightBandwidth = 0; ///< B/s: its weight bytes were read at this (weight-only kernels may differ)
    double otherBandwidth = 0;  ///< B/s: its other bytes (activations, KV cache): Analysis::bandwidth, or a measured
                                ///< kernel's or module's rate (core/analysis/operatortime.h)
    double launchS = 0;         ///< s: kernel launches included in Operator::timeS (achievable efficiency; else 0)
    double quantizeS = 0;       ///< s: its FP8 input's quantize kernels included in Operator::timeS (activation_scales)
};

/// Memory held per device (bytes).
struct MemoryFootprint
{
    double weights = 0;
    double kv = 0;
    double activations = 0; ///< live activations / workspace at the peak
    double gradients = 0;   ///< training
    double optimizer = 0;   ///< training
    double state = 0;       ///< state-space layers' state: fixed per sequence, whatever the context
    double total() const { return weights + kv + activations + gradients + optimizer + state; }
    double capacity = 0; ///< main memory of one device
    bool fits = false;
};

struct Communication
{
    double bytes = 0; ///< sent per device over the step
    double timeS = 0;
    double tpBytes = 0, ppBytes = 0, dpBytes = 0, epBytes = 0;
    /// Expert parallelism's all-to-all over the step: dispatch (each routed token copy to its expert's rank, in FP8
    /// where the experts run 8-bit or narrower formats) and combine (the copies back, bf16), both included in timeS.
    double epDispatchS = 0, epCombineS = 0;
    /// Where the all-to-all's times come from: "measured" (the device's DeepEP table), "ideal" (the link's
    /// bandwidth and latency: the device has no table, or the ideal roofline was asked for), "" (no all-to-all).
    std::string allToAll;
    std::string link; ///< name of the link used
};

struct Totals
{
    double flops = 0; ///< one device's critical path (sum of operators)
    double bytes = 0;
    double intensity = 0;
    double timeS = 0;     ///< operators + communication
    double launchS = 0;   ///< of timeS, the kernel launches (achievable efficiency; 0 for the ideal roofline)
    double quantizeS = 0; ///< of timeS, quantizing FP8 activations (achievable, activation_scales static or dynamic)
    /// timeS x kAchievableBand with achievable efficiency: where the measured time is likely to fall. Equal to timeS
    /// for the ideal roofline, which is a bound, not a prediction.
    double timeLowS = 0, timeHighS = 0;
    Bound bound = Bound::Memory;
    /// Bound of the weight matmuls alone (projections, FFN, LM head): where "decode turns compute-bound" as batch
    /// grows, even while attention over a long KV cache keeps the whole step memory-bound.
    Bound linearBound = Bound::Memory;
    double tokensPerS = 0; ///< all replicas: processed (prefill/encode/train) or generated (decode/generate) tokens
    double tokens = 0;     ///< the tokens of tokensPerS one step processes or generates (tokensPerS = tokens / timeS)
    double modelFlops = 0; ///< the whole step's FLOPs summed over all devices
    double achievedFlopsPerS = 0; ///< flops / timeS of one device
};

/// Whole-request latencies of Phase::Generate.
struct GeneratePhases
{
    double ttftS = 0; ///< time to first token (the prefill)
    double tpotS = 0; ///< time per output token (decode at the mean context)
    double e2eS = 0;  ///< ttft + (output - 1) x tpot ... see analysis.cpp
};

struct KvCache
{
    double bytesPerToken = 0; ///< whole model, all layers: 2 x layers x kv_heads x head_dim x bytes(kv)
    double totalBytes = 0;    ///< all sequences of one replica, whole model
    /// State-space layers: the state one sequence keeps (scan and convolution, all layers), and all sequences' of one
    /// replica. Fixed, whatever the context.
    double stateBytesPerSequence = 0;
    double stateBytes = 0;
    /// What totalBytes counts: `cachedTokens` tokens per sequence (before any window caps a layer's share) for
    /// `sequences` sequences of one replica, at `bytesPerElement` (the KV format).
    double cachedTokens = 0, sequences = 0, bytesPerElement = 0;
    /// What one request of `tokens` tokens leaves behind for decode: its KV cache (at bytesPerToken, before any
    /// window) and its state-space state. Disaggregated serving sends this from the prefill to the decode pool.
    double requestBytes(double tokens) const { return bytesPerToken * tokens + stateBytesPerSequence; }
};

/// The result of analyze(): value type, cheap to copy.
struct Analysis
{
    std::vector<Operator> operators;
    Totals totals;
    KvCache kvCache;
    MemoryFootprint memory;
    Communication comm;
    GeneratePhases phases; ///< filled for Phase::Generate
    ParamCounts params;
    double weightBytes = 0; ///< whole model at the weight format
    /// Bytes per weight the analysis counted (scales, zero points and sparsity masks included): the weight format's,
    /// the routed experts' (expert_weights) and the token embedding's and LM head's (unquantized_embeddings).
    double bytesPerWeight = 0, expertBytesPerWeight = 0, embedBytesPerWeight = 0;
    double ridge = 0;     ///< FLOP/byte where the activation format's compute roof meets main memory
    double peakFlops = 0; ///< effective compute roof used for matmuls (after efficiency)
    double bandwidth = 0; ///< effective main-memory bandwidth (after efficiency)
    double computeEfficiency = 1, memoryEfficiency = 1;
    DType matmulType = DType::FP16;
};

/// The uncertainty of achievable times, from the validation set (presets/validation/runs.json, `memwall validate`):
/// a run's measured time over its achievable time lay between these factors in 80 % of the set (its 10th and 90th
/// percentiles). tests/core/tst_validation.cpp recomputes them from the set, so they cannot drift from it.
struct TimeBand
{
    double low, high;
};
inline constexpr TimeBand kAchievableBand{0.975, 1.747};
/// The band an analysis of `s` on `hw` carries: kAchievableBand for an achievable analysis on a device with
/// microbenchmarks, none for the ideal roofline (a bound) or a device without any (its achievable time is the ideal's,
/// a figure the validation set does not speak for).
std::optional<TimeBand> achievableBand(const HardwareSpec &hw, const Scenario &s);

/// Thrown for a device/model/scenario combination that cannot be analysed (e.g. tp not dividing the heads).
/// what() is one line naming the field and value (control characters in quoted names are escaped).
struct AnalysisError : std::runtime_error
{
    explicit AnalysisError(std::string_view what) : std::runtime_error(oneLine(what)) {}
};

/// The core calculation: values in, value out, no globals. Throws AnalysisError on an impossible combination.
Analysis analyze(const HardwareSpec &hw, const ModelShape &model, const Scenario &s);
/// analyze() that also records, for every operator (in the order of `operators`), what its derivation needs.
Analysis analyzeRecorded(const HardwareSpec &hw, const ModelShape &model, const Scenario &s,
                         std::vector<OperatorRecord> *records);
/// analyze() without the per-operator list (`operators` stays empty; every other field is the same): for sweeps and
/// searches, which read only the totals.
Analysis analyzeTotals(const HardwareSpec &hw, const ModelShape &model, const Scenario &s);
/// What stays the same over many analyses of one model whose scenarios differ from one base scenario in some
/// whole-number options alone (a sweep's points): the model's check, its layer groups and parameter counts, and the
/// range checks of the options that do not vary. prepareAnalyses() makes them once; analyzeTotals(hw, m, s, prepared)
/// then checks only the varied options at each analysis.
struct PreparedAnalyses
{
    const ModelShape *model = nullptr; ///< the model they were made for: another is analysed without them
    std::string modelIssue;            ///< the refusal validate(model) causes, or "" (then groups and params are set)
    LayerGroups groups;                ///< layerGroups(model)
    ParamCounts params;                ///< paramCount(model, groups)
    bool othersPass = false;           ///< the base's options other than `varied` pass their range checks
    std::vector<const ScenarioOption *> varied; ///< range-checked at each analysis, in the option table's order
};
/// `varied`: the options (whole numbers of the scenario section) that may differ from `base` in the scenarios to be
/// analysed. A scenario with images checks its prompt's and context's lengths at each analysis too (its images' tokens
/// join them).
PreparedAnalyses prepareAnalyses(const ModelShape &m, const Scenario &base,
                                 const std::vector<const ScenarioOption *> &varied);
/// analyzeTotals() of a scenario that differs from the base of `prepared` in its varied options alone: the same
/// figures and the same errors, without repeating what `prepared` checked and counted once.
Analysis analyzeTotals(const HardwareSpec &hw, const ModelShape &model, const Scenario &s,
                       const PreparedAnalyses &prepared);
/// One decode step (phase decode) that takes `tokens` (1..64) new tokens per sequence against `s.context` cached
/// ones, each with its logits: the verification step of speculative decoding (tokens = K + 1). tokens = 1 is analyze().
Analysis analyzeDecodeStep(const HardwareSpec &hw, const ModelShape &model, const Scenario &s, int tokens);

/// Time of one operator on the roofline: max(flops / compute roof, bytes / bandwidth).
double rooflineTime(double flops, double bytes, double peakFlops, double bandwidth);
/// Attainable FLOP/s at an intensity: min(peak, intensity x bandwidth).
double attainable(double intensity, double peakFlops, double bandwidth);

} // namespace memwall::core
