#include "core/analysis/operatortime.h"

#include <algorithm>

namespace memwall::core {

bool fusedAttentionTail(std::string_view name)
{
    // The core of layers with their own KV heads carries their count: "attn.softmax_kv4" (DeciLM).
    if (const auto kv = name.rfind("_kv");
        kv != std::string_view::npos && kv + 3 < name.size() && name[kv + 3] >= '0' && name[kv + 3] <= '9')
        name = name.substr(0, kv);
    return name == "attn.softcap" || name == "attn.softmax" || name == "attn.context" || name == "attn.local_softcap" ||
           name == "attn.local_softmax" || name == "attn.local_context";
}

namespace {
/// An operator of a measured kernel or module: its roofline at `peak` and `bandwidth` (every byte), already scaled by
/// the table's fraction, and no launch or quantize kernel of its own (the measurement holds them).
OperatorTime timeAtMeasuredRates(double peak, double bandwidth, const OperatorWork &w)
{
    OperatorTime t;
    t.peak = peak;
    t.weightBandwidth = bandwidth;
    t.otherBandwidth = bandwidth;
    t.computeS = w.flops / t.peak;
    t.memoryS = (w.weightBytes + w.otherBytes) / t.weightBandwidth;
    t.roofS = std::max(t.computeS, t.memoryS);
    t.timeS = t.roofS;
    t.bound = t.computeS >= t.memoryS ? Bound::Compute : Bound::Memory;
    return t;
}
} // namespace

OperatorTime timeMoeOperator(const OperatorRoofs &r, const OperatorWork &w)
{
    // The measured fused kernel (permute, GEMMs, activation, unpermute, with their launches and the quantization of
    // its input) took the roofline of its operators over the table's fraction at this many tokens per expert: each
    // operator takes its own roofline over that fraction. The fraction is at most 1 (the preset reader checks it),
    // so this is never faster than the ideal roofline.
    const double fraction = r.moe->fractionAt(w.expertTokens, w.expertsTouched);
    return timeAtMeasuredRates(r.moePeak * fraction, r.rawBandwidth * fraction, w);
}

OperatorTime timeModuleOperator(const OperatorRoofs &r, const OperatorWork &w)
{
    // The measured module (its kernels, launches and quantize kernels in one CUDA graph) took the sum of its
    // operators' ideal rooflines over the table's fraction: each operator takes its own ideal roofline over it. The
    // fraction is at most 1 (the preset reader checks it).
    const double f = w.moduleFraction;
    const bool tensorCore = w.cls == OpClass::Matmul || w.cls == OpClass::Attention;
    return timeAtMeasuredRates((tensorCore ? r.rawPeakMatmul : r.rawPeakVector) * f, r.rawBandwidth * f, w);
}

std::optional<std::size_t> mlaFormat(const Scenario &s)
{
    std::size_t gemm = 0;
    if (s.weights.type == DType::FP8)
        gemm = 1;
    else if (s.weights.type == DType::FP4 && s.weights.groupSize == 16)
        gemm = 2;
    else if (s.weights.type != DType::BF16 && s.weights.type != DType::FP16)
        return std::nullopt;
    if (s.kv != DType::FP8 && s.kv != DType::BF16 && s.kv != DType::FP16)
        return std::nullopt;
    return gemm * 2 + (s.kv == DType::FP8 ? 1 : 0);
}

/// The table of the routed experts' format on `hw`, or nullptr: the experts' weight format (expert_weights, else
/// weights) and the activations say which kernel runs.
std::optional<MoeFormat> moeFormat(const Scenario &s)
{
    const WeightFormat &w = s.expertWeights ? *s.expertWeights : s.weights;
    const bool act8 = bits(s.activations) <= 8 || s.expertActivations == ExpertActivations::Mxfp8;
    switch (w.type) {
    case DType::BF16:
    case DType::FP16: return MoeFormat::Bf16;
    case DType::FP8: return w.groupSize > 0 ? MoeFormat::Fp8Block : MoeFormat::Fp8;
    case DType::FP4:
        if (w.groupSize == 16)
            return MoeFormat::Nvfp4;
        if (w.groupSize == 32)
            return act8 ? MoeFormat::W4a8Mxfp4 : MoeFormat::W4a16Mxfp4;
        return std::nullopt;
    default: return std::nullopt;
    }
}

namespace {
/// The dense peak the fused kernel of format `f` computes in.
DType moeComputeType(MoeFormat f)
{
    switch (f) {
    case MoeFormat::Bf16:
    case MoeFormat::W4a16Mxfp4: return DType::BF16;
    case MoeFormat::Nvfp4: return DType::FP4;
    default: return DType::FP8;
    }
}
} // namespace

std::string_view achievableBasis(const HardwareSpec &hw, const Scenario &s)
{
    if (s.efficiency != EfficiencyMode::Achievable)
        return "";
    const AchievableModel &km = hw.achievable;
    if (km.empty())
        return "ideal";
    const bool gemm =
        km.computeFraction || std::any_of(km.gemm.begin(), km.gemm.end(), [](const auto &g) { return !g.empty(); });
    return gemm && km.memoryFraction ? "microbenchmarks" : "partial";
}

OperatorRoofs operatorRoofs(const HardwareSpec &hw, const Scenario &s)
{
    // Efficiency: ideal = the roofline; achievable = the device's microbenchmarks (AchievableModel): GEMM fraction by
    // size, copy bandwidth, weight-only kernels' bandwidth, fused attention's rate, a cost per kernel launch and the
    // measured all-reduce. An explicit compute or memory efficiency replaces the mode's fractions on its side.
    const bool achievable = s.efficiency == EfficiencyMode::Achievable;
    const AchievableModel &km = hw.achievable;
    OperatorRoofs r;
    if (achievable) {
        if (km.computeFraction)
            r.computeEfficiency = km.computeFraction->value;
        if (km.memoryFraction)
            r.memoryEfficiency = km.memoryFraction->value;
    }
    if (s.computeEfficiency)
        r.computeEfficiency = *s.computeEfficiency;
    if (s.memoryEfficiency)
        r.memoryEfficiency = *s.memoryEfficiency;
    r.fusedAttention = s.fusedAttention;
    r.unquantizedEmbeddings = s.unquantizedEmbeddings;
    r.matmulType = hw.computeType(s.activations);
    r.rawPeakMatmul = hw.peak(r.matmulType);
    r.peakMatmul = r.rawPeakMatmul * r.computeEfficiency;
    r.peakAttention = r.peakMatmul;
    // The indexer's FP8 scores: the attention roof times FP8's peak over the matmuls' (1 without FP8, or when the
    // matmuls already run in FP8 or narrower).
    const double fp8 = hw.peak(DType::FP8);
    const double indexerScale = fp8 > r.rawPeakMatmul && r.rawPeakMatmul > 0 ? fp8 / r.rawPeakMatmul : 1.0;
    r.peakIndexer = r.peakAttention * indexerScale;
    r.vectorType = hw.supports(DType::FP32) ? DType::FP32 : r.matmulType;
    r.rawPeakVector = hw.peak(r.vectorType);
    r.peakVector = r.rawPeakVector * r.computeEfficiency;
    r.bandwidth = hw.memory.empty() ? 0.0 : hw.mainMemory().bandwidthBytesPerS.value * r.memoryEfficiency;
    r.weightBandwidth = r.bandwidth;
    r.rawBandwidth = hw.memory.empty() ? 0.0 : hw.mainMemory().bandwidthBytesPerS.value;
    if (!achievable)
        return r;
    // The routed experts' fused kernel: the table of their format measured on the nearest expert split.
    if (const auto f = moeFormat(s); f && !s.computeEfficiency && !s.memoryEfficiency) {
        r.moe = km.moeSweepFor(*f, moeTp(s) * moeEp(s));
        r.moePeak = hw.peak(hw.computeType(moeComputeType(*f)));
    }
    // A decode step's MLA layer: the module measured whole, in its weight and cache formats (absorbed and fused, as
    // the table's kernels run it).
    if (const auto f = mlaFormat(s); f && !s.computeEfficiency && !s.memoryEfficiency && s.mlaAbsorb &&
                                     s.fusedAttention && !km.mlaDecode[*f].empty()) {
        r.mla = &km;
        r.mlaFormat = *f;
    }
    if (!s.computeEfficiency) {
        r.gemmSweeps = &km;
        if (km.attentionFraction) {
            r.peakAttention = r.rawPeakMatmul * km.attentionFraction->value;
            r.peakIndexer = r.peakAttention * indexerScale;
        }
    }
    if (!s.memoryEfficiency && isInteger(s.weights.type))
        if (const auto &f = km.weightOnlyMemoryFraction[index(s.weights.type)])
            r.weightBandwidth = r.bandwidth * f->value;
    // A kernel launched on its own costs at least what it costs inside a graph: eager takes the graph's figure where
    // the device has no eager one.
    const std::optional<Sourced> &kernel =
        s.execution == Execution::Eager && km.kernelEagerS ? km.kernelEagerS : km.kernelGraphsS;
    r.kernelS = kernel ? kernel->value : 0.0;
    // FP8 activations need quantize kernels before each linear layer unless the kernel before writes FP8 itself.
    if (r.matmulType == DType::FP8 && s.activationScales != ActivationScales::Fused) {
        const std::optional<QuantizeSweep> &w =
            s.activationScales == ActivationScales::Dynamic ? km.quantizeDynamic : km.quantizeStatic;
        r.quantize = w ? &*w : nullptr;
    }
    return r;
}

} // namespace memwall::core
