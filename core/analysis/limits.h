#pragma once

#include "core/analysis/analysis.h"

#include <cstdint>
#include <string_view>

namespace memwall::core {

/// The largest values a scenario can take before its footprint outgrows one device's main memory.
///
/// Found exactly by bisection, not read off a sweep of powers of two: the footprint per device (weights, KV cache,
/// activations) never shrinks as the batch or the context grows, so the values that fit form a range starting at
/// the smallest one. A value whose analysis fails (tp not dividing the heads, say) counts as not fitting.
struct FitLimits
{
    static constexpr int64_t kMax = kMaxTokens;

    int64_t batch = 0;   ///< largest batch that fits at the scenario's lengths; 0: not even batch 1
    int64_t context = 0; ///< decode/generate: largest context (prompt for prefill) that fits at the scenario's batch;
                         ///< 0: not even 1 token
    bool batchUnbounded = false;   ///< everything up to kMax fits
    bool contextUnbounded = false; ///< everything up to kMax fits (e.g. a sliding window caps the KV cache)
};

/// The limits of `s` on `hw` for `model`. About 50 analyses.
FitLimits fitLimits(const HardwareSpec &hw, const ModelShape &model, const Scenario &s);

/// The largest multiple of `step` of `field` ("batch", "context", "seq") in [lo x step, FitLimits::kMax] at which `s`
/// fits, or (lo - 1) x step if none does. A batch steps by dp x micro_batches x attention_dp: every rank and
/// micro-batch then holds whole sequences.
int64_t largestFitting(const HardwareSpec &hw, const ModelShape &model, Scenario s, std::string_view field, int64_t lo,
                       int64_t step = 1);

} // namespace memwall::core
