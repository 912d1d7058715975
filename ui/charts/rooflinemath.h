#pragma once

#include "core/analysis/analysis.h"
#include "core/hardware/hardwarespec.h"

#include <QString>

#include <vector>

/// The arithmetic behind the roofline and memory charts: ceilings, slopes, knees, axis ranges and marker sizes
/// (numbers become text through ui/util/text.h). Pure functions on core value types (no Qt Charts), so they are
/// unit-tested on their own (tests/ui/tst_rooflinemath.cpp).
///
/// Units: intensity in FLOP/byte, performance in FLOP/s, bandwidth in bytes/s, capacity in bytes.
namespace memwall::ui::rooflinemath {

/// One horizontal compute ceiling. Precisions with the same peak (FP16 and BF16 on most GPUs) share one ceiling,
/// so every supported precision appears in exactly one ceiling's `dtypes`.
struct Ceiling
{
    std::vector<core::DType> dtypes; ///< in the order of core::kAllDTypes
    double flopsPerS = 0;            ///< peak x compute efficiency
    bool active = false;             ///< holds the precision the matmuls run in (drawn strongest)
    QString name() const;            ///< "FP16 · BF16"
    QString label() const;           ///< "FP16 · BF16 989 TFLOP/s"
    /// The short form for a tight chart, the peak in the y axis's unit of `unitFlopsPerS` FLOP/s without the unit
    /// (the axis names it): "FP16 · BF16 989" for 1e12 (TFLOP/s).
    QString compactLabel(double unitFlopsPerS) const;
    bool operator==(const Ceiling &) const = default;
};

/// One bandwidth slope: performance = intensity x bandwidth, for one memory level of the device.
struct Slope
{
    QString name; ///< the level's name from the preset ("HBM3 (5 stacks)")
    core::MemoryKind kind = core::MemoryKind::Dram;
    double bytesPerS = 0;      ///< bandwidth x memory efficiency
    bool main = false;         ///< the level that holds weights and KV cache (the roofline proper)
    QString shortName() const; ///< "SRAM", "L2", "HBM", "DRAM", "Host link"
    QString label() const;     ///< "HBM 3.35 TB/s"
};

struct LogRange
{
    double min = 1;
    double max = 10;
    double decades() const;
};

struct Ranges
{
    LogRange x; ///< intensity
    LogRange y; ///< FLOP/s
};

/// A point to keep inside the axes (operator or whole model), already in plotted coordinates.
struct PlotPoint
{
    double intensity = 0;
    double flopsPerS = 0;
};

/// Operators that do no arithmetic (embedding lookups, KV-cache writes: 0 FLOPs) have intensity 0, which a log axis
/// cannot show. They are drawn at this intensity, on the main-memory slope (they only move bytes).
inline constexpr double kMinIntensity = 0.01;

/// Ceilings for every precision the device supports, highest first, peaks scaled by `computeEfficiency`.
/// `activeType` is the matmul compute type (Analysis::matmulType).
std::vector<Ceiling> ceilings(const core::HardwareSpec &hw, core::DType activeType, double computeEfficiency = 1.0);
/// Slopes for every memory level with a bandwidth, fastest first, scaled by `memoryEfficiency`.
std::vector<Slope> slopes(const core::HardwareSpec &hw, double memoryEfficiency = 1.0);

/// Ridge point (knee) where a ceiling meets a slope: peak / bandwidth (FLOP/byte); 0 if the bandwidth is 0.
double ridgePoint(double peakFlopsPerS, double bytesPerS);
/// Roofline: min(peak, intensity x bandwidth).
double attainable(double intensity, double peakFlopsPerS, double bytesPerS);

/// Fused operators that do arithmetic but move no bytes (softmax inside FlashAttention-style attention) have infinite
/// intensity; they are drawn at this intensity, on their compute ceiling.
inline constexpr double kMaxIntensity = 5000;

/// The intensity at which an operator is drawn: flops / bytes clamped to [kMinIntensity, kMaxIntensity]; 0 FLOPs
/// gives kMinIntensity, 0 bytes with FLOPs gives kMaxIntensity.
double plottedIntensity(double flops, double bytes);
/// Same for a known intensity (0 -> kMinIntensity).
double plottedIntensity(double intensity);
/// The performance at which an operator is drawn: flops / time; for a 0-FLOP operator the main-memory slope at
/// kMinIntensity (so it sits on the roof it is bound by instead of at log(0)). 0 if time is 0.
double plottedPerformance(double flops, double timeS, double mainBytesPerS);
/// The performance at which a communication operator (core::Operator::onLink(): no FLOPs, bytes over the link) is
/// drawn at kMinIntensity: on the slope of the rate its bytes moved over the link, kMinIntensity x bytes / time. 0 if
/// it moved nothing or took no time.
double plottedLinkPerformance(double linkBytes, double timeS);

/// [10^floor(log10(lo / margin)), 10^ceil(log10(hi x margin))] for positive lo <= hi; `marginDecades` widens both
/// ends before rounding so nothing sits on the frame. Non-positive or non-finite input gives [1, 10].
LogRange decadeRange(double lo, double hi, double marginDecades = 0.15);

/// Axis ranges that include every knee of every ceiling with every on-device slope and the knee of each host-link
/// slope with the lowest ceiling (x), every ceiling (y), every point,
/// with a margin and rounded to decades. The y range never spans more than `maxYDecades` below the top ceiling
/// (very slow slopes at tiny intensities would otherwise squash the plot).
Ranges rooflineRanges(const std::vector<Ceiling> &ceilings, const std::vector<Slope> &slopes,
                      const std::vector<PlotPoint> &points, double maxYDecades = 8.0);

/// Marker diameter in pixels for an operator taking `share` (0..1) of the time: area proportional to the share,
/// diameter = maxPx x sqrt(share), clamped to [minPx, maxPx].
double markerSize(double share, double minPx = 6.0, double maxPx = 40.0);

/// A short display name for a memory level: "SRAM", "L2", "L3", "HBM", "GDDR", "DRAM", "Host" (the preset's full
/// name is often a sentence).
QString levelShortName(core::MemoryKind kind, const QString &name);

} // namespace memwall::ui::rooflinemath
