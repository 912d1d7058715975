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

int64_t largestFitting(const HardwareSpec &hw, const ModelShape &model, Scenario s, std::string_view field, int64_t lo)
{
    if (!fitsWith(hw, model, s, field, lo))
        return lo - 1;
    if (fitsWith(hw, model, s, field, FitLimits::kMax))
        return FitLimits::kMax;
    int64_t good = lo, bad = FitLimits::kMax; // good fits, bad does not
    while (bad - good > 1) {
        const int64_t mid = good + (bad - good) / 2;
        (fitsWith(hw, model, s, field, mid) ? good : bad) = mid;
    }
    return good;
}

FitLimits fitLimits(const HardwareSpec &hw, const ModelShape &model, const Scenario &s)
{
    FitLimits f;
    f.batch = std::max<int64_t>(0, largestFitting(hw, model, s, "batch", 1));
    f.batchUnbounded = f.batch == FitLimits::kMax;
    const std::string_view lengthField = s.phase == Phase::Decode ? "context" : "seq";
    f.context = std::max<int64_t>(0, largestFitting(hw, model, s, lengthField, 1));
    f.contextUnbounded = f.context == FitLimits::kMax;
    return f;
}

} // namespace memwall::core
