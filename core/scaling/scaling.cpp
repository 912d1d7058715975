#include "core/scaling/scaling.h"

#include <algorithm>
#include <cmath>

namespace memwall::core {

namespace {

double clampFraction(double s)
{
    if (!(s >= 0)) // also NaN
        return 0;
    return std::min(s, 1.0);
}

ScalingPoint pointFrom(const Analysis &a, int64_t devices)
{
    ScalingPoint p;
    p.devices = devices;
    p.timeS = a.totals.timeS;
    p.commTimeS = a.comm.timeS;
    p.computeTimeS = std::max(0.0, a.totals.timeS - a.comm.timeS);
    p.commShare = communicationFraction(a);
    return p;
}

} // namespace

double amdahlSpeedup(double serialFraction, double devices)
{
    const double s = clampFraction(serialFraction);
    const double n = std::max(1.0, devices);
    return 1.0 / (s + (1.0 - s) / n);
}

double gustafsonSpeedup(double serialFraction, double devices)
{
    const double s = clampFraction(serialFraction);
    const double n = std::max(1.0, devices);
    return n - s * (n - 1.0);
}

double parallelEfficiency(double speedup, double devices) { return devices > 0 ? speedup / devices : 0.0; }

double communicationFraction(const Analysis &a)
{
    return a.totals.timeS > 0 ? clampFraction(a.comm.timeS / a.totals.timeS) : 0.0;
}

std::vector<ScalingPoint> scenarioScaling(const HardwareSpec &hw, const ModelShape &model, const Scenario &base,
                                          const std::vector<int> &devices, ParallelKind kind)
{
    std::vector<ScalingPoint> points;
    points.reserve(devices.size());
    for (int n : devices) {
        if (n <= 0)
            continue;
        Scenario s = base;
        if (kind == ParallelKind::Tensor)
            s.tp = n;
        else
            s.pp = n;
        try {
            points.push_back(pointFrom(analyze(hw, model, s), n));
        } catch (const AnalysisError &) {
            // n does not split this model (heads, FFN width or layers): no point, as in the figure.
        }
    }
    if (points.empty())
        return points;
    const auto ref = std::min_element(points.begin(), points.end(), [](const ScalingPoint &a, const ScalingPoint &b) {
        return a.devices < b.devices;
    });
    const double refWork = ref->timeS * ref->devices;
    for (auto &p : points) {
        p.speedup = p.timeS > 0 ? refWork / p.timeS : 0.0;
        p.efficiency = parallelEfficiency(p.speedup, p.devices);
    }
    return points;
}

PrecisionComparison precisionHalving(const HardwareSpec &hw, const ModelShape &model, const Scenario &base, DType wide,
                                     DType narrow)
{
    auto at = [&](DType t) {
        Scenario s = base;
        s.weights = WeightFormat{t, 0, DType::FP16};
        s.activations = t;
        s.kv = t;
        ScalingPoint p = pointFrom(analyze(hw, model, s), int64_t{base.tp} * base.pp);
        return p;
    };
    PrecisionComparison c;
    c.wide = wide;
    c.narrow = narrow;
    c.widePoint = at(wide);
    c.narrowPoint = at(narrow);
    return c;
}

} // namespace memwall::core
