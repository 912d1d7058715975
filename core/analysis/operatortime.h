#pragma once

#include "core/analysis/analysis.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

namespace memwall::core {

/// The roofs and per-kernel costs with which the analysis of one scenario on one device times every operator:
/// the roofline's peaks and bandwidth after the efficiency mode, and, for achievable efficiency, the device's
/// microbenchmarks (AchievableModel): GEMM fraction by size, weight-only kernels' bandwidth, fused attention's rate,
/// a cost per kernel launch and FP8 activations' quantize kernels. The pointers point into the HardwareSpec.
struct OperatorRoofs
{
    double computeEfficiency = 1, memoryEfficiency = 1; ///< fractions of the peaks (1: the ideal roofline)
    DType matmulType = DType::FP16;                     ///< the format matmuls and attention run in
    DType vectorType = DType::FP32; ///< element-wise ops: FP32, or the matmul format on devices without FP32
    double rawPeakMatmul = 0;       ///< FLOP/s: the dense peak of matmulType, before any fraction
    double peakMatmul = 0;          ///< FLOP/s: matmuls (after efficiency)
    double peakAttention = 0;       ///< FLOP/s: fused attention kernels' roof
    /// FLOP/s: the lightning indexer's scores (attn.indexer_score), which its kernels compute in FP8 whatever the
    /// activations (DeepSeek-V3.2-Exp's reference Indexer quantizes q and k with act_quant and scores them with
    /// fp8_index; DeepGEMM's fp8_mqa_logits): the attention roof scaled to the FP8 peak, where the device has one.
    double peakIndexer = 0;
    double peakVector = 0;                       ///< FLOP/s: element-wise operators
    double bandwidth = 0;                        ///< B/s: main memory (after efficiency)
    double weightBandwidth = 0;                  ///< B/s: weight bytes in matmuls (weight-only kernels)
    double kernelS = 0;                          ///< s: cost of one kernel launch (0: not charged)
    const AchievableModel *gemmSweeps = nullptr; ///< GEMM fraction by size (unless compute_efficiency is given)
    const QuantizeSweep *quantize = nullptr;     ///< FP8 activations' quantize kernels, when charged
    /// The routed experts' fused MoE kernel as the device's table measured it for the experts' format (achievable
    /// efficiency; nullptr: timed as other operators). Its operators run at `moePeak` and the raw HBM bandwidth over
    /// the table's fraction at their tokens per expert.
    const MoeSweep *moe = nullptr;
    double moePeak = 0; ///< FLOP/s: the dense peak of the format the table's kernel computes in
    /// The device's measured MLA decode module for the scenario's weight and KV formats (achievable efficiency with
    /// absorbed, fused attention; nullptr: none): AchievableModel::mlaTableFor(mlaFormat, heads per rank) gives the
    /// fraction at which the layer's MLA operators run (OperatorWork::moduleFraction).
    const AchievableModel *mla = nullptr;
    std::size_t mlaFormat = 0;  ///< an index of kMlaFormats
    double rawPeakVector = 0;   ///< FLOP/s: the dense peak of vectorType, before any fraction
    double rawBandwidth = 0;    ///< B/s: main memory's datasheet bandwidth
    bool fusedAttention = true; ///< softmax and context run inside the score kernel
    /// The token embedding and LM head stay 16-bit (unquantized_embeddings): the matmuls of the embeddings' side read
    /// their weights with an ordinary GEMM, at `bandwidth`, not a weight-only kernel's.
    bool unquantizedEmbeddings = false;
};

/// The roofs analyze() times the operators of `s` on `hw` with (no checks: analyze() refuses a device without a
/// usable peak or bandwidth).
OperatorRoofs operatorRoofs(const HardwareSpec &hw, const Scenario &s);
/// The fused MoE kernel the routed experts of `s` run (aiconfigurator's moe_dtype): from the experts' weight format
/// (expert_weights, else weights) and the activations; nullopt for a format no table measures (int4, int8, fp6).
std::optional<MoeFormat> moeFormat(const Scenario &s);
/// What the achievable figure of `s` on `hw` rests on: "" for the ideal roofline; with achievable efficiency
/// "microbenchmarks" (the device has its GEMM and copy measurements), "partial" (only some tables, e.g. MoE and
/// all-to-all: the rest runs at the datasheet's peaks), or "ideal" (no microbenchmark: the achievable figure is the
/// ideal one for this device).
std::string_view achievableBasis(const HardwareSpec &hw, const Scenario &s);

/// What one operator does, to be timed: `count` x `trainFactor` executions of `flopsPerExecution` FLOPs each, and its
/// totals over them (FLOPs, weight bytes, the other bytes: activations and KV cache). `quantizedInput`: elements of
/// its input that its own quantize kernels turn into FP8 per execution (0: none).
struct OperatorWork
{
    OpClass cls = OpClass::Matmul;
    std::string_view name; ///< fused attention's softmax and context launch no kernel of their own
    double count = 1, trainFactor = 1;
    double flopsPerExecution = 0;
    double flops = 0, weightBytes = 0, otherBytes = 0;
    double quantizedInput = 0;
    double expertTokens = 0;   ///< > 0: part of the routed experts' fused MoE kernel, at this many tokens per expert
    double expertsTouched = 0; ///< ... on a device running this many experts
    /// > 0: part of a module the device measured whole (an MLA layer's decode step, OperatorRoofs::mla), which
    /// reached this fraction of its operators' summed ideal rooflines
    double moduleFraction = 0;
};

/// How long an operator takes, and why.
struct OperatorTime
{
    double peak = 0;            ///< FLOP/s: the compute roof it ran against
    double weightBandwidth = 0; ///< B/s: its weight bytes were read at this
    double otherBandwidth = 0;  ///< B/s: its other bytes (activations, KV cache) at this
    double computeS = 0, memoryS = 0;
    double roofS = 0;     ///< max(computeS, memoryS)
    double launchS = 0;   ///< kernel launches
    double quantizeS = 0; ///< its input's quantize kernels
    double timeS = 0;     ///< roofS + launchS + quantizeS
    Bound bound = Bound::Memory;
};

/// The lightning indexer's score operator, timed at the FP8 roof (OperatorRoofs::peakIndexer).
inline constexpr std::string_view kIndexerScore = "attn.indexer_score";
/// The index in kMlaFormats of the weight and KV formats of `s` (16-bit, FP8 or NVFP4 weights; 16-bit or FP8 cache),
/// or nullopt for formats no MLA table measures.
std::optional<std::size_t> mlaFormat(const Scenario &s);
/// Whether `name` is a part of the attention core that a fused kernel runs inside the score kernel.
bool fusedAttentionTail(std::string_view name);
/// Whether `name` is a matmul of the embeddings' side (the LM head, an image model's patch projection), whose weights
/// are in the embeddings' format.
inline bool embeddingMatmul(std::string_view name) { return name == "lm_head" || name == "patch_embed"; }

/// An operator of the routed experts' fused MoE kernel, where the device has its table, is timed by timeMoeOperator().
[[gnu::cold]] OperatorTime timeMoeOperator(const OperatorRoofs &r, const OperatorWork &w);
/// An operator of a module the device measured whole (OperatorWork::moduleFraction) is timed by timeModuleOperator().
[[gnu::cold]] OperatorTime timeModuleOperator(const OperatorRoofs &r, const OperatorWork &w);
/// timeOperator() for every operator but those of the fused MoE kernel on a device with its table.
[[gnu::always_inline]] inline OperatorTime timeRoofOperator(const OperatorRoofs &r, const OperatorWork &w)
{
    OperatorTime t;
    const bool tensorCore = w.cls == OpClass::Matmul || w.cls == OpClass::Attention;
    t.peak = tensorCore ? r.peakMatmul : r.peakVector;
    if (w.cls == OpClass::Attention)
        t.peak = w.name == kIndexerScore ? r.peakIndexer : r.peakAttention;
    else if (w.cls == OpClass::Matmul && r.gemmSweeps && w.flopsPerExecution > 0)
        t.peak = r.rawPeakMatmul * r.gemmSweeps->gemmFraction(r.matmulType, std::cbrt(w.flopsPerExecution / 2));
    t.computeS = w.flops / t.peak;
    t.weightBandwidth = w.cls == OpClass::Matmul && !(r.unquantizedEmbeddings && embeddingMatmul(w.name))
                            ? r.weightBandwidth
                            : r.bandwidth;
    t.otherBandwidth = r.bandwidth;
    t.memoryS = w.weightBytes / t.weightBandwidth + w.otherBytes / t.otherBandwidth;
    t.roofS = std::max(t.computeS, t.memoryS);
    // Each execution is one kernel; fused attention runs score, softmax and context as the one score kernel.
    if (r.kernelS > 0 && !(r.fusedAttention && fusedAttentionTail(w.name)))
        t.launchS = r.kernelS * w.count * w.trainFactor;
    if (r.quantize && w.quantizedInput > 0)
        t.quantizeS = r.quantize->timeAt(w.quantizedInput) * w.count * w.trainFactor;
    t.timeS = t.roofS + t.launchS + t.quantizeS;
    t.bound = t.computeS >= t.memoryS ? Bound::Compute : Bound::Memory;
    return t;
}

/// The one timing of an operator, used by the analysis for every operator it emits and by serving for every operator
/// it re-times (a chunk sharing a decode step's kernels, an offloaded step): on the roofline, the compute side at the
/// class's roof (a matmul's by its GEMM size when the sweep applies: one execution multiplies m x k by k x n in 2mnk
/// FLOPs, an equivalent square size of cbrt(mnk)), the memory side with a matmul's weight bytes at the weight
/// bandwidth (16-bit embeddings' at the main memory's); then a
/// kernel launch per execution and the quantize kernels of its input. Inline: analyze() calls it for every operator.
// Both branches return a call (a prvalue), so the result is built in place: with a named result beside the MoE
// branch's call, GCC copied the struct through the stack and its partial reloads stalled store forwarding, which
// cost every analysis about a third (memwall-bench: 0.66 -> 0.91 us for Llama-3.1-405B).
[[gnu::always_inline]] inline OperatorTime timeOperator(const OperatorRoofs &r, const OperatorWork &w)
{
    if (w.expertTokens > 0 && r.moe) [[unlikely]]
        return timeMoeOperator(r, w);
    if (w.moduleFraction > 0) [[unlikely]]
        return timeModuleOperator(r, w);
    return timeRoofOperator(r, w);
}

/// An operator of an analysis of `s` re-timed as serving changes it: its figures as they now are (`op`, whose
/// quantizedInput and count keep their meaning), on the roofs of `s` (an inference scenario: train factor 1).
inline OperatorTime timeOperator(const OperatorRoofs &r, const Operator &op)
{
    return timeOperator(r, {op.cls, op.name, op.count, 1, op.count > 0 ? op.flops / op.count : 0.0, op.flops,
                            op.weightBytes, op.activationBytes + op.kvBytes, op.quantizedInput, op.expertTokens,
                            op.expertsTouched, op.moduleFraction});
}

} // namespace memwall::core
