#include "core/trends/ridge.h"

#include <cmath>

namespace memwall::core {

double markerYear(double year) { return year == std::floor(year) ? year + 0.5 : year; }

std::optional<DType> ridgeFormat(const HardwareSpec &hw)
{
    for (DType t : {DType::FP16, DType::BF16})
        if (hw.supports(t))
            return t;
    std::optional<DType> best;
    for (DType t : kAllDTypes)
        if (!isInteger(t) && hw.supports(t) && (!best || hw.peak(t) > hw.peak(*best)))
            best = t;
    return best;
}

std::optional<DeviceRidge> deviceRidge(const HardwareSpec &hw)
{
    const std::optional<DType> format = ridgeFormat(hw);
    if (!format || hw.memory.empty() || !(hw.year.value > 0))
        return std::nullopt;
    const MemoryLevel &main = hw.mainMemory();
    const double bw = main.bandwidthBytesPerS.value;
    if (!(bw > 0) || !std::isfinite(bw))
        return std::nullopt;
    DeviceRidge d;
    d.id = hw.id;
    d.name = hw.name.empty() ? hw.id : hw.name;
    d.year = hw.year.value;
    d.format = *format;
    d.peakFlops = hw.peak(*format);
    d.bandwidth = bw;
    d.memory = main.kind;
    d.ridge = d.peakFlops / bw;
    return d;
}

std::vector<DeviceRidge> deviceRidges(const std::vector<HardwareSpec> &devices)
{
    std::vector<DeviceRidge> out;
    out.reserve(devices.size());
    for (const HardwareSpec &hw : devices)
        if (auto d = deviceRidge(hw))
            out.push_back(std::move(*d));
    return out;
}

double RidgeGrowth::at(double anchorYear, double anchorRidge, double year) const
{
    return anchorRidge * std::pow(per2Years(), (year - anchorYear) / 2.0);
}

std::optional<RidgeGrowth> paperRidgeGrowth(const TrendData &data)
{
    const TrendSeries *flops = data.find("hw_peak_flops");
    const TrendSeries *dram = data.find("dram_bandwidth");
    if (!flops || !dram || !flops->paperFactorPer2Years || !dram->paperFactorPer2Years)
        return std::nullopt;
    return RidgeGrowth{*flops->paperFactorPer2Years, *dram->paperFactorPer2Years};
}

const DeviceRidge *ridgeAnchor(const std::vector<DeviceRidge> &devices)
{
    const DeviceRidge *best = nullptr;
    for (const DeviceRidge &d : devices) {
        if (bits(d.format) != 16 || d.memory != MemoryKind::Dram)
            continue;
        if (!best || d.year < best->year || (d.year == best->year && d.ridge < best->ridge))
            best = &d;
    }
    return best;
}

} // namespace memwall::core
