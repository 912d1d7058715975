#include "core/analysis/operatortime.h"

namespace memwall::core {

bool fusedAttentionTail(std::string_view name)
{
    return name == "attn.softcap" || name == "attn.softmax" || name == "attn.context" || name == "attn.local_softcap" ||
           name == "attn.local_softmax" || name == "attn.local_context";
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
    r.vectorType = hw.supports(DType::FP32) ? DType::FP32 : r.matmulType;
    r.peakVector = hw.peak(r.vectorType) * r.computeEfficiency;
    r.bandwidth = hw.memory.empty() ? 0.0 : hw.mainMemory().bandwidthBytesPerS.value * r.memoryEfficiency;
    r.weightBandwidth = r.bandwidth;
    if (!achievable)
        return r;
    if (!s.computeEfficiency) {
        r.gemmSweeps = &km;
        if (km.attentionFraction)
            r.peakAttention = r.rawPeakMatmul * km.attentionFraction->value;
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
