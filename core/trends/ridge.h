#pragma once

#include "core/hardware/hardwarespec.h"
#include "core/trends/trends.h"

#include <optional>
#include <string>
#include <vector>

namespace memwall::core {

/// The year a device or trend marker is drawn at: a whole year (a device "announced in 2022") is drawn mid-year, a
/// fractional one as it is. The trends and ridge charts both place devices with it, so one device sits at one x.
double markerYear(double year);

/// The format a device's ridge point is taken in, so that devices compare on one footing: the dense FP16 tensor peak,
/// else BF16 (the TPUs, Gaudi, EPYC: no FP16 rate published), else the fastest floating-point format (the Xeon Gold
/// 6242: FP32). Never an integer format (OP/s are not FLOP/s), never a sparsity figure (HardwareSpec keeps dense
/// peaks only). nullopt if the device has no floating-point peak.
std::optional<DType> ridgeFormat(const HardwareSpec &hw);

/// One device on the ridge-point chart: the arithmetic intensity (FLOP/byte) above which a kernel on it is
/// compute-bound, from its published dense peak and its main memory's bandwidth.
struct DeviceRidge
{
    std::string id;
    std::string name;
    double year = 0;            ///< release year as the preset gives it (draw at markerYear())
    DType format = DType::FP16; ///< the peak's format (ridgeFormat())
    double peakFlops = 0;       ///< FLOP/s, dense, in `format`
    double bandwidth = 0;       ///< B/s of main memory (HardwareSpec::mainMemory(): HBM, GDDR or DDR; on-chip SRAM on
                                ///< the devices without DRAM, Cerebras and Groq)
    MemoryKind memory = MemoryKind::Dram; ///< kind of that main memory
    double ridge = 0;                     ///< FLOP/byte = peakFlops / bandwidth
};

/// The ridge point of `hw` in ridgeFormat(); nullopt if it has no floating-point peak, no positive main-memory
/// bandwidth or no year. H100 SXM: 989.4 TFLOP/s FP16 / 3.35 TB/s = 295.3 FLOP/byte.
std::optional<DeviceRidge> deviceRidge(const HardwareSpec &hw);
/// deviceRidge() of every device that has one, in the order given.
std::vector<DeviceRidge> deviceRidges(const std::vector<HardwareSpec> &devices);

/// How fast the ridge point rises, as the paper states the two growths it is the ratio of (Gholami et al., "AI and
/// Memory Wall", 2024): peak FLOPS ×3.0 and DRAM bandwidth ×1.6 every two years, so the ridge ×3.0 / 1.6 = ×1.875.
struct RidgeGrowth
{
    double computePer2Years = 1; ///< the `hw_peak_flops` series' paper_factor_per_2_years
    double memoryPer2Years = 1;  ///< the `dram_bandwidth` series' paper_factor_per_2_years
    double per2Years() const { return computePer2Years / memoryPer2Years; }
    /// The ridge at `year` on the line through (anchorYear, anchorRidge): anchorRidge × per2Years()^((year −
    /// anchorYear) / 2).
    double at(double anchorYear, double anchorRidge, double year) const;
};

/// The growth the trend data's paper factors give (presets/trends/hardware.json); nullopt if either series or its
/// paper factor is missing.
std::optional<RidgeGrowth> paperRidgeGrowth(const TrendData &data);

/// The device the growth line starts from: the earliest (then lowest-ridge) device whose ridge is taken at a 16-bit
/// format against DRAM, as the line's own devices are (P100, 2016, of the built-in presets); nullptr if none.
const DeviceRidge *ridgeAnchor(const std::vector<DeviceRidge> &devices);

} // namespace memwall::core
