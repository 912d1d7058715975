#include "core/analysis/limits.h"

#include "core/analysis/options.h"

#include <algorithm>

namespace memwall::core {

namespace {

bool fitsWith(const HardwareSpec &hw, const ModelShape &model, Scenario &s, std::string_view field, int64_t value)
{
    setIntegerOption(s, field, value);
    try {
        return analyze(hw, model, s).memory.fits;
    } catch (const AnalysisError &) {
        return false;
    }
}

} // namespace

int64_t largestFitting(const HardwareSpec &hw, const ModelShape &model, Scenario s, std::string_view field, int64_t lo,
                       int64_t step)
{
    // Searched in units of `step`: k x step for k in [lo, top].
    const int64_t top = FitLimits::kMax / step;
    if (!fitsWith(hw, model, s, field, lo * step))
        return (lo - 1) * step;
    if (fitsWith(hw, model, s, field, top * step))
        return FitLimits::kMax;   // every multiple up to the cap fits: unbounded
    int64_t good = lo, bad = top; // good fits, bad does not
    while (bad - good > 1) {
        const int64_t mid = good + (bad - good) / 2;
        (fitsWith(hw, model, s, field, mid * step) ? good : bad) = mid;
    }
    return good * step;
}

FitLimits fitLimits(const HardwareSpec &hw, const ModelShape &model, const Scenario &s)
{
    FitLimits f;
    const int64_t batchStep = int64_t{s.dp} * s.microBatches * s.attentionDp;
    f.batch = std::max<int64_t>(0, largestFitting(hw, model, s, "batch", 1, batchStep));
    f.batchUnbounded = f.batch == FitLimits::kMax;
    const std::string_view lengthField = s.phase == Phase::Decode ? "context" : "seq";
    f.context = std::max<int64_t>(0, largestFitting(hw, model, s, lengthField, 1));
    f.contextUnbounded = f.context == FitLimits::kMax;
    return f;
}

} // namespace memwall::core
