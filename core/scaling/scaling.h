#pragma once

#include "core/analysis/analysis.h"

#include <vector>

namespace memwall::core {

/// Scaling laws of parallel computing, as "How deep the machine learning can be" (Végh, 2020) applies them to AI.
///
/// Amdahl (fixed problem size): a fraction `s` of the work cannot be parallelised, so n devices give
///   speedup = 1 / (s + (1 - s) / n), which tends to 1/s (s = 5 % caps the speedup at 20x however many devices).
/// Gustafson (problem grows with n, scaled speedup): speedup = n - s (n - 1).
/// Efficiency is speedup / n in both cases (1 = every device fully used).
/// `serialFraction` must lie in [0, 1] and `devices` be >= 1; other inputs are clamped into that range.
double amdahlSpeedup(double serialFraction, double devices);
double gustafsonSpeedup(double serialFraction, double devices);
/// speedup / devices; 0 for devices <= 0.
double parallelEfficiency(double speedup, double devices);

/// Which dimension scenarioScaling() splits over the devices.
enum class ParallelKind {
    Tensor,  ///< tp = n: heads and FFN columns split, two all-reduces per layer
    Pipeline ///< pp = n: layers split, point-to-point transfers and a pipeline bubble
};

/// One device count of a scaling study of a real scenario.
struct ScalingPoint
{
    int64_t devices = 1;
    double timeS = 0;        ///< totals.timeS: one step on the critical path (operators + communication)
    double computeTimeS = 0; ///< the operators' share (roofline time of compute and memory traffic)
    double commTimeS = 0;    ///< the communication's share (all-reduces, transfers)
    double speedup = 1;      ///< time at the smallest device count of the study / time here, times that count
    double efficiency = 1;   ///< speedup / devices
    double commShare = 0;    ///< commTimeS / timeS: the "non-parallelisable" part that grows with n
};

/// Runs analyze() with tp (or pp) = n for each n of `devices` (other parallel degrees as in `base`), skipping every
/// n the model cannot be split over (tp must divide the heads and FFN width, pp the layers) and every n <= 0.
/// The speedup is relative to the smallest analysable n, scaled by it (so a study starting at n = 1 gives the usual
/// T(1)/T(n)). Returns the analysable points in the order given. Never throws for an unsplittable n.
std::vector<ScalingPoint> scenarioScaling(const HardwareSpec &hw, const ModelShape &model, const Scenario &base,
                                          const std::vector<int> &devices, ParallelKind kind);

/// The effect the Végh paper reports for half precision: compute gets faster, communication does not, so the
/// communication share of the runtime rises (and with it the non-parallelisable fraction, Amdahl's s).
struct PrecisionComparison
{
    DType wide = DType::FP16;  ///< the original precision
    DType narrow = DType::FP8; ///< the halved precision
    ScalingPoint widePoint;    ///< the scenario at `wide` (devices = base.tp x base.pp)
    ScalingPoint narrowPoint;  ///< the same scenario at `narrow`
};

/// Analyses `base` twice: with weights, activations and KV cache all in `wide`, then all in `narrow` (weight groups
/// and scales are dropped: plain formats). Throws AnalysisError if the scenario cannot be analysed.
PrecisionComparison precisionHalving(const HardwareSpec &hw, const ModelShape &model, const Scenario &base,
                                     DType wide = DType::FP16, DType narrow = DType::FP8);

/// The scenario's measured serial fraction for Amdahl: the communication share of its runtime (0 when nothing is
/// split). Clamped to [0, 1].
double communicationFraction(const Analysis &a);

} // namespace memwall::core
