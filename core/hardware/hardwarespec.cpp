#include "core/hardware/hardwarespec.h"

#include <stdexcept>

namespace memwall::core {

std::string_view toString(MemoryKind k)
{
    switch (k) {
    case MemoryKind::Sram: return "sram";
    case MemoryKind::Cache: return "cache";
    case MemoryKind::Dram: return "dram";
    case MemoryKind::Host: return "host";
    case MemoryKind::Storage: return "storage";
    }
    return "?";
}

std::optional<MemoryKind> memoryKindFromString(std::string_view s)
{
    for (MemoryKind k : {MemoryKind::Sram, MemoryKind::Cache, MemoryKind::Dram, MemoryKind::Host, MemoryKind::Storage})
        if (s == toString(k))
            return k;
    return std::nullopt;
}

DType HardwareSpec::computeType(DType t) const
{
    if (supports(t))
        return t;
    // Wider formats to try, in order of preference.
    auto pick = [this](std::initializer_list<DType> order) -> std::optional<DType> {
        for (DType d : order)
            if (supports(d))
                return d;
        return std::nullopt;
    };
    std::optional<DType> r;
    switch (t) {
    case DType::INT4: r = pick({DType::INT8, DType::FP8, DType::FP16, DType::BF16, DType::FP32}); break;
    case DType::INT8: r = pick({DType::FP8, DType::FP16, DType::BF16, DType::FP32}); break;
    case DType::FP4: r = pick({DType::FP6, DType::FP8, DType::FP16, DType::BF16, DType::FP32}); break;
    case DType::FP6: r = pick({DType::FP8, DType::FP16, DType::BF16, DType::FP32}); break;
    case DType::FP8: r = pick({DType::FP16, DType::BF16, DType::FP32}); break;
    case DType::FP16: r = pick({DType::BF16, DType::FP32}); break;
    case DType::BF16: r = pick({DType::FP16, DType::FP32}); break;
    case DType::TF32: r = pick({DType::FP32, DType::BF16, DType::FP16}); break;
    case DType::FP32: r = pick({DType::TF32, DType::FP64, DType::BF16, DType::FP16}); break;
    case DType::FP64: r = pick({DType::FP32}); break;
    case DType::Count: break;
    }
    if (r)
        return *r;
    DType best = DType::FP32;
    for (DType d : kAllDTypes)
        if (peak(d) > peak(best))
            best = d;
    return best;
}

std::size_t HardwareSpec::mainMemoryIndex() const
{
    if (memory.empty())
        throw std::logic_error("hardware '" + id + "' has no memory levels");
    for (std::size_t i = 0; i < memory.size(); ++i)
        if (memory[i].kind == MemoryKind::Dram)
            return i;
    std::size_t best = 0;
    for (std::size_t i = 0; i < memory.size(); ++i)
        if (memory[i].kind != MemoryKind::Host && memory[i].kind != MemoryKind::Storage &&
            memory[i].capacityBytes.value >= memory[best].capacityBytes.value)
            best = i;
    return best;
}

double HardwareSpec::ridge(DType t) const
{
    const double bw = mainMemory().bandwidthBytesPerS.value;
    return bw > 0 ? peak(computeType(t)) / bw : 0.0;
}

HardwareSpec scaled(const HardwareSpec &hw, double computeFactor, double bandwidthFactor, double capacityFactor)
{
    if (!(computeFactor > 0) || !(bandwidthFactor > 0) || !(capacityFactor > 0))
        throw std::invalid_argument("what-if factors must be positive");
    HardwareSpec s = hw;
    for (auto &p : s.peakFlops)
        if (p)
            p->value *= computeFactor;
    for (auto &m : s.memory) {
        m.bandwidthBytesPerS.value *= bandwidthFactor;
        m.capacityBytes.value *= capacityFactor;
    }
    return s;
}

} // namespace memwall::core
