#pragma once

#include "core/hardware/hardwarespec.h"
#include "core/trends/trends.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace memwall::core {

/// A device of MemWall's presets placed on one of the paper's hardware series after the series' data ends: MemWall
/// adds it, the paper does not have it.
struct AddedDevice
{
    std::string id; ///< the preset's id ("h200-sxm"), to name it
    /// name: the preset's name; year: markerYear() of its release year (a whole year is drawn and fitted mid-year);
    /// value: in the series' unit; inFit true (it is fitted by the refit, never by the paper's fit).
    TrendPoint point;
    std::optional<DType> format; ///< on `hw_peak_flops`: the format of the peak (FP16, else BF16); else nullopt
    std::string memory;          ///< on `dram_bandwidth`: the name of the main memory ("HBM3e (6 stacks)"); else ""
};

/// The devices the refits draw from: the built-in presets, loaded once, not a user's edited copies, so that the
/// refit is the one pinned in tests/core/tst_trends.cpp and stated in presets/trends/README.md (the trends chart and
/// `memwall trends` both use them).
const std::vector<HardwareSpec> &builtinRefitDevices();

/// The devices of `devices` (builtinRefitDevices(), for the trends chart and `memwall trends`) that belong on `series`
/// after its data ends; empty for any series but `hw_peak_flops` and `dram_bandwidth`. Sorted by year, then id.
///
/// The rule is what those two series hold where they end: per chip, data-center accelerators with HBM. Their last
/// FLOPS points (P100, V100, A100, H100, TPU v2-v4: the FP16/BF16 tensor peaks) and their last DRAM generations (HBM,
/// HBM2, HBM2E) are all such parts. So a device is taken when
///   - its `category` is "gpu" or "asic" (not a CPU, not a wafer-scale engine);
///   - its main memory (HardwareSpec::mainMemory()) is DRAM whose name starts with "HBM". That is a fact every preset
///     states with its source, and it leaves out the SRAM-only machines (Groq, Cerebras) and the consumer and laptop
///     parts (RTX 4090 and 5090: GDDR; Apple M-series: LPDDR) without a list of ids. It leaves out the L40S too, a
///     data-center card with GDDR6: the paper's series have no such part since the switch to tensor peaks;
///   - its year is a calendar year after that of the series' last in-fit point (FLOPS: H100, 2022.7; DRAM: HBM2E,
///     2022.2). A device given by its whole year cannot be ordered against a point of the same year, and the paper's
///     last year is the paper's;
///   - on `hw_peak_flops`, it has a dense FP16 or BF16 peak (ridgeFormat()), which is the value: the format of the
///     series' modern points, never a sparsity figure (HardwareSpec keeps dense peaks only), never FP8 or FP4;
///   - on `dram_bandwidth`, the value is that main memory's bandwidth.
std::vector<AddedDevice> devicesAfterPaper(const TrendSeries &series, const std::vector<HardwareSpec> &devices);

/// One added device: {"id", "name", "year", "value", "format"? (FLOPS), "memory"? (DRAM)}, values in the series'
/// unit.
nlohmann::json toJson(const AddedDevice &device);

/// The `memwall trends --json` document (toJson(const TrendData &)) with, on each series that `devices` add to,
/// "added_points" (toJson(const AddedDevice &) of each) and "refit" (toJson(const GrowthFit &) of refit()).
nlohmann::json toJsonWithRefits(const TrendData &data, const std::vector<HardwareSpec> &devices);

/// The fit of `series` with `added` in it: fitExponential() over the series' in-fit points and the added points, so
/// that it compares with the paper's fit point for point. Throws as fitExponential() does.
GrowthFit refit(const TrendSeries &series, const std::vector<AddedDevice> &added);

} // namespace memwall::core
