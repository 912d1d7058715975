#pragma once

#include "core/model/dtype.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

/// What the model is doing.
enum class Phase {
    Prefill,  ///< `seq` prompt tokens per sequence, KV cache written
    Decode,   ///< one new token per sequence against `context` cached tokens
    Generate, ///< prefill of `seq` tokens, then `output` decode steps (TTFT, TPOT, end-to-end)
    Encode,   ///< encoder forward over `seq` tokens (BERT-style, no cache, bidirectional)
    Train     ///< forward + backward + optimizer step over `seq` tokens per sequence
};
std::string_view toString(Phase p);
std::optional<Phase> phaseFromString(std::string_view s);

enum class Recompute { None, Selective, Full };
std::string_view toString(Recompute r);
std::optional<Recompute> recomputeFromString(std::string_view s);

enum class Optimizer { Adam, Sgd };
std::string_view toString(Optimizer o);
std::optional<Optimizer> optimizerFromString(std::string_view s);

/// Where KV-cache bytes (kv_offload) or weights (weight_offload) that do not stay in the device's main memory live
/// (serving).
enum class KvOffload {
    None,   ///< all in main memory (HBM)
    Host,   ///< host DRAM over the host link (PCIe, or NVLink-C2C on GH200/GB200)
    Storage ///< NVMe storage: a memory level of kind "storage" in the device preset
};
std::string_view toString(KvOffload k);
std::optional<KvOffload> kvOffloadFromString(std::string_view s);

/// How close to the roofline the run gets. Ideal is the pure roofline (a true upper bound on speed).
enum class EfficiencyMode { Ideal, Achievable };
std::string_view toString(EfficiencyMode e);
std::optional<EfficiencyMode> efficiencyModeFromString(std::string_view s);

/// How kernels are launched: the kernel-time term of the achievable model (the ideal roofline has none).
enum class Execution {
    Graphs, ///< CUDA/HIP graphs or compiled kernels (serving engines' decode): the per-kernel cost inside a graph
    Eager   ///< each kernel launched from the host on its own
};
std::string_view toString(Execution e);
std::optional<Execution> executionFromString(std::string_view s);

/// Which all-reduce the achievable model charges tensor-parallel layers: the communication library's (nccl-tests,
/// rccl-tests), or the engine's own kernel for small messages (TensorRT-LLM's, vLLM's and SGLang's custom all-reduce,
/// PyTorch's intra-node all-reduce). A device without a measured custom sweep takes the library's.
enum class AllReduce {
    Library, ///< NCCL or RCCL
    Custom   ///< the serving engine's own one-shot or two-shot kernel over NVLink
};
std::string_view toString(AllReduce a);
std::optional<AllReduce> allReduceFromString(std::string_view s);

/// How a linear layer with FP8 activations gets them quantized: the achievable model charges the quantization kernels
/// the device's tables time (the ideal roofline has none).
enum class ActivationScales {
    Fused,  ///< the kernel before writes FP8 itself (TensorRT engines fuse it into norms and activations): no cost
    Static, ///< a quantize kernel with the checkpoint's calibrated scale before each linear layer
    Dynamic ///< that kernel plus one that finds the scale from the activations at run time (online quantization)
};
std::string_view toString(ActivationScales a);
std::optional<ActivationScales> activationScalesFromString(std::string_view s);

/// What the routed experts' fused MoE kernel takes as input, where it matters (MXFP4 experts): the achievable model
/// times the kernel from the device's table of that pair of formats (moeFormat()).
enum class ExpertActivations {
    Same, ///< the activations' format: 16-bit runs the MXFP4 x BF16 kernel, FP8 the MXFP4 x MXFP8 one
    Mxfp8 ///< the kernel quantizes its input to MXFP8 itself whatever the activations (TensorRT-LLM on Blackwell)
};
std::string_view toString(ExpertActivations e);
std::optional<ExpertActivations> expertActivationsFromString(std::string_view s);

/// How the requests of engine admission (max_batched_tokens) arrive. Together: a benchmark client at a fixed
/// concurrency sends its requests at once and, with every request of the same lengths, they finish together and the
/// next ones arrive together (waves). Spread: requests at random phases, the queueing steady state of Little's law.
/// Rounds: a benchmark client as aiperf runs it (ai-dynamo/aiperf, aiperf/timing/credit_issuing_strategy.py): it
/// waits for its warm-up requests to return, sends its first round of requests together, and then each client sends
/// its next request as its last returns, so the later rounds arrive as the first was admitted (serving.h).
enum class Arrivals { Spread, Together, Rounds };
std::string_view toString(Arrivals a);
std::optional<Arrivals> arrivalsFromString(std::string_view s);

/// The largest batch, prompt, context or output length MemWall takes (command line, files, GUI, fit limits).
inline constexpr int64_t kMaxTokens = int64_t(1) << 24;
/// The most devices one deployment names: a search's device budget, a validation run's devices, each side of a
/// disaggregated split. Far beyond any published serving run (NVL72 racks of 72 are the largest NVLink domains).
inline constexpr int kMaxDeploymentDevices = 4096;

/// Everything about a run besides the device and the model. Plain values; defaults are the GUI's start state.
struct Scenario
{
    Phase phase = Phase::Decode;
    int64_t batch = 1;      ///< sequences (global: split over `dp` replicas)
    int64_t seq = 2048;     ///< prompt tokens per sequence (prefill, encode, train, generate)
    int64_t context = 2048; ///< tokens already in the KV cache (decode)
    int64_t output = 256;   ///< generated tokens (generate)
    /// Images per request (a model with a vision tower): each becomes the model's tokens per image
    /// (VisionShape::tokensPerImage()), encoded by the tower in prefill and prefilled and cached with the prompt;
    /// in decode they sit in the cache beside the context. 0: text only.
    int64_t images = 0;

    WeightFormat weights{DType::FP16, 0, DType::FP16};
    DType activations = DType::FP16;
    DType kv = DType::FP16;

    int tp = 1;           ///< tensor-parallel degree: splits heads and FFN columns
    int pp = 1;           ///< pipeline-parallel degree: splits layers
    int dp = 1;           ///< data-parallel replicas
    int ep = 1;           ///< expert-parallel degree (MoE) with attention replicated: splits experts
    int microBatches = 1; ///< pipeline micro-batches per step
    /// Attention data parallelism (MoE, the engines' "DP attention"): ranks that each run attention for their own
    /// share of the batch and keep its KV cache, while the experts are split over all of them. A copy of the model
    /// then spans tp x attention_dp x ep devices per pipeline stage.
    int attentionDp = 1;
    /// How the routed experts are split over those devices: moe_tp splits each expert's columns, moe_ep the experts.
    /// 0 = derived: moe_tp = tp, moe_ep = ep x attention_dp (the other one, when one is given); moe_tp x moe_ep must
    /// equal the devices per stage. moeTp() and moeEp() give the values in force.
    int moeTp = 0, moeEp = 0;
    /// The busiest expert-parallel rank's routed tokens over the mean (1 = perfectly balanced): a MoE layer waits
    /// for that rank. The default 1 is the ideal; engines measure more, and the option shows what it costs.
    double moeImbalance = 1.0;

    bool fusedAttention = true; ///< FlashAttention-style: no score-matrix round trip to memory
    bool kvCache = true;        ///< false: decode recomputes K and V over the whole context
    bool causal = true;         ///< decoders: a token attends only to itself and earlier tokens (encoders ignore it)
    /// MLA models: decode folds the key and value up-projections into the queries and the output (absorbed), so
    /// attention runs against the cached latent itself; false: every step lifts the whole cached latent to keys and
    /// values first. Prefill always runs unabsorbed, as serving engines do.
    bool mlaAbsorb = true;

    EfficiencyMode efficiency = EfficiencyMode::Ideal;
    std::optional<double> computeEfficiency;  ///< explicit fraction of peak compute (overrides the mode)
    std::optional<double> memoryEfficiency;   ///< explicit fraction of peak bandwidth (overrides the mode)
    Execution execution = Execution::Graphs;  ///< achievable: what each kernel launch costs
    AllReduce allReduce = AllReduce::Library; ///< achievable: whose all-reduce tensor parallelism waits for
    ActivationScales activationScales = ActivationScales::Fused;   ///< achievable: FP8 activations' quantization
    ExpertActivations expertActivations = ExpertActivations::Same; ///< achievable: the MXFP4 experts' kernel input

    /// Weight-only quantization as GPTQ and AWQ store it: each group of weights also keeps a zero point in the weight
    /// format (asymmetric quantization), and the token embedding and the LM head stay 16-bit.
    bool weightZeroPoints = false;
    /// MoE: how the routed experts' weights are stored when it differs from `weights` (gpt-oss ships its experts in
    /// MXFP4 and everything else in BF16); unset: as `weights`.
    std::optional<WeightFormat> expertWeights;
    bool unquantizedEmbeddings = false;

    double structuredSparsity = 0.0;   ///< fraction of weights pruned in hardware-usable 2:4-style blocks
    double unstructuredSparsity = 0.0; ///< fraction of weights pruned anywhere: saves bytes, not dense FLOPs

    double promptCacheHitRate = 0.0; ///< fraction of each prompt whose K and V are already cached (prefix caching)

    // ---- serving (core/analysis/serving.h) ----
    int speculativeK = 0;                 ///< draft tokens per verification step; 0 = no speculative decoding
    double acceptance = 0.7;              ///< probability that the target model accepts each draft token, [0, 1)
    std::string draftModel = "mtp";       ///< "mtp" (the model's own one-block prediction head) or a model preset id
    int64_t chunkedPrefill = 0;           ///< prompt tokens per mixed step (chunked prefill); 0 = off
    int64_t maxBatchedTokens = 0;         ///< engine admission: tokens per step, decodes and prompt chunks; 0 = off
    Arrivals arrivals = Arrivals::Spread; ///< engine admission: how the requests arrive
    int prefillDevices = 0;               ///< disaggregation: devices of the prefill pool; 0 with decodeDevices 0 = off
    int decodeDevices = 0;                ///< disaggregation: devices of the decode pool
    int64_t prefillBatch = 0;             ///< disaggregation: prompts a prefill copy runs together; 0 = batch / dp
    KvOffload kvOffload = KvOffload::None;
    std::optional<double> kvOffloadFraction;   ///< share of the KV cache in the offload tier; unset: what does not fit
    KvOffload weightOffload = KvOffload::None; ///< where offloaded weights live (streamed in every step)
    std::optional<double> weightOffloadFraction; ///< share of the weights there; unset: what still does not fit
    double powerUtilization = 1.0;               ///< fraction of the rated power (TDP) drawn while serving
    std::optional<double> usdPerDeviceHour;      ///< rental price; unset: the device preset's usd_per_hour

    Recompute recompute = Recompute::None;
    Optimizer optimizer = Optimizer::Adam;
    int zeroStage = 0; ///< 0..3: shard optimizer (1), + gradients (2), + weights (3) over dp

    friend bool operator==(const Scenario &, const Scenario &) = default;
};

/// The hardware "what-if" factors (1 = the device as published).
struct WhatIf
{
    double compute = 1, bandwidth = 1, capacity = 1;
    bool isIdentity() const { return compute == 1 && bandwidth == 1 && capacity == 1; }
    friend bool operator==(const WhatIf &, const WhatIf &) = default;
};

/// Checks the scenario on its own (without device or model); "" if fine, else one line naming field and value.
std::string validate(const Scenario &s);

struct ScenarioOption;
/// The options validate() range-checks (the scenario section's whole numbers and reals), in the option table's order.
const std::vector<const ScenarioOption *> &rangeCheckedOptions();
/// validate() of a scenario whose range-checked options other than `varied` are known to pass their checks (a sweep's
/// point, whose other options are its base's): the ranges of `varied` alone, which must be in the option table's
/// order (as validate() checks them), then what relates fields to one another. For such a scenario it returns what
/// validate() returns.
std::string validateVaried(const Scenario &s, const std::vector<const ScenarioOption *> &varied);

/// Devices of one model copy in one pipeline stage: tp x attention_dp x ep.
inline int stageDevices(const Scenario &s) { return s.tp * s.attentionDp * s.ep; }
/// "" if moe_tp x moe_ep (as given, or derived) equals the devices of a stage, else why not. analyze() refuses such
/// a split; a scenario file holding one still reads.
std::string moeSplitIssue(const Scenario &s);
/// Devices of one model copy: tp x pp x attention_dp x ep (a copy serves batch / dp sequences).
inline int64_t devicesPerCopy(const Scenario &s) { return int64_t{stageDevices(s)} * s.pp; }
/// The split of the routed experts in force (see Scenario::moeTp).
inline int moeTp(const Scenario &s)
{
    if (s.moeTp > 0)
        return s.moeTp;
    return s.moeEp > 0 ? stageDevices(s) / s.moeEp : s.tp;
}
inline int moeEp(const Scenario &s)
{
    if (s.moeEp > 0)
        return s.moeEp;
    return s.moeTp > 0 ? stageDevices(s) / s.moeTp : s.ep * s.attentionDp;
}

struct ModelShape;
/// Image tokens one request adds to its prompt: images x the model's tokens per image (0 without a vision tower).
int64_t imageTokens(const Scenario &s, const ModelShape &m);
/// `s` with its images as prompt tokens: seq (prefill, generate) or context (decode) grows by imageTokens(). What the
/// analysis and the serving model run; "" in `issue` when the images fit the model and the phase, else why not.
Scenario withImageTokens(const Scenario &s, const ModelShape &m, std::string *issue);
/// What a model implies for a scenario, where the user did not choose otherwise (`keepPhase`, `keepSeq`: the
/// command line's --phase and --seq): an encoder has no decode phase, so a decode or generate scenario becomes its
/// forward pass (encode); a model of image patches (patch_inputs > 0) encodes exactly its patches and class token, so
/// seq becomes its max_positions (ViT-L/32 at 224 pixels: 50). The window (on a change of model) and the command line
/// both call it, so that one model gives one scenario. A quantized checkpoint (ModelShape::checkpointWeights) sets the
/// weight, expert-weight, 16-bit-embedding and zero-point options unless `keepFormats` (a scenario file's own).
void adaptToModel(Scenario &s, const ModelShape &m, bool keepPhase = false, bool keepSeq = false,
                  bool keepFormats = false);

} // namespace memwall::core
