#pragma once

#include "core/analysis/analysis.h"
#include "core/analysis/serving.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

/// One number format choice of a search: how weights are stored and what the matmuls compute in.
struct SearchPrecision
{
    WeightFormat weights;
    DType activations = DType::FP16;
    friend bool operator==(const SearchPrecision &, const SearchPrecision &) = default;
};
/// "fp8" (weights and activations FP8), "int4/g128:fp16" (weights, then ':' and the activation format). The
/// activation format defaults to the weights' type for floating-point formats of 8 bits or fewer (fp8, fp6, fp4 and the
/// block formats), else to fp16. nullopt for text that names no format.
std::optional<SearchPrecision> searchPrecisionFromString(std::string_view text);
/// "fp16", "fp8", "int4/g128:fp16": what searchPrecisionFromString reads back.
std::string toString(const SearchPrecision &p);

/// The most configurations a search enumerates unless told otherwise (SearchSpace::maxConfigurations). The default
/// space of any preset model holds under 700,000; every list at its largest held 26.6 million, ten minutes and
/// 1.4 GB. With kSearchBytesPerConfiguration this bounds a search's data to 251 MiB (measured: 2,028,132
/// configurations of which 1,233,744 fit took 351 MB in all).
inline constexpr uint64_t kDefaultMaxSearchConfigurations = 1'000'000;

/// What a search varies, and what it holds fixed.
///
/// Every combination of device type, tensor/pipeline/expert/data parallelism (powers of two whose product is at most
/// `maxDevices`), batch per replica, precision, KV format and serving options is one configuration. The scenario's
/// other fields come from `base`, whose phase is always Generate: a request of `seq` prompt tokens and `output`
/// generated tokens.
struct SearchSpace
{
    std::vector<HardwareSpec> devices;
    Scenario base;
    int maxDevices = 64;
    std::vector<int64_t> batches;            ///< sequences per replica; empty: powers of two from 1 to 1024
    std::vector<SearchPrecision> precisions; ///< empty: fp16, fp8, int4/g128:fp16
    std::vector<DType> kvFormats;            ///< empty: fp16, fp8
    std::optional<double> usdPerDeviceHour;  ///< one price for every device, in place of the presets' own
    int threads = 0;                         ///< 0: every core
    // Serving options tried on every configuration (core/analysis/serving.h, servedRequest()):
    /// Draft tokens per speculative step, at base.acceptance with base.draftModel (0 = plain decode); empty: 0 only,
    /// since a speculative configuration is only as good as its acceptance rate, which the user has to know.
    std::vector<int> speculativeKs;
    /// Prompt tokens per chunked-prefill step (0 = the prompt prefilled at once); empty: 0 and 512.
    std::vector<int64_t> prefillChunks;
    /// Also serve 2, 4, ... copies of a split as a prefill pool and a decode pool (the best split of the copies), with
    /// a prefill copy taking one prompt at a time or the decode batch at once.
    bool disaggregate = true;
    const ModelShape *draft = nullptr; ///< base.draftModel's shape when it names a preset; nullptr: "mtp"
    /// A space of more configurations is refused before any is analysed (searchConfigurations() counts them).
    uint64_t maxConfigurations = kDefaultMaxSearchConfigurations;
    /// Called now and then while the search runs, from one of its threads at a time, with the configurations
    /// enumerated so far and the total. An exception it throws stops the search and leaves searchCandidates().
    std::function<void(uint64_t done, uint64_t total)> progress;
};

/// `s` with everything a search varies reset (parallelism, batch, formats, serving options, offload) and phase
/// Generate: two scenarios with the same base search the same space.
Scenario searchBase(Scenario s);

/// What a configuration must reach; 0 = no target.
struct SearchTargets
{
    double maxTtftS = 0;
    double maxTpotS = 0;
    double minTokensPerSPerUser = 0;
    friend bool operator==(const SearchTargets &, const SearchTargets &) = default;
};

/// The figures a configuration is ranked by.
struct SearchFigures
{
    std::size_t device = 0; ///< index into SearchSpace::devices
    int devices = 1;        ///< tp x pp x ep x dp, or both pools' devices when disaggregated
    double ttftS = 0;       ///< time to first token
    double tpotS = 0;       ///< time per output token at the mean context
    double e2eS = 0;
    double tokensPerSPerDevice = 0;            ///< generated tokens of all replicas over the whole request, per device
    double tokensPerSPerUser = 0;              ///< 1 / tpot
    std::optional<double> usdPerMillionTokens; ///< when the device has an hourly price
};

/// What sets a configuration apart from the search's base scenario: SearchCandidates::point() makes it whole.
struct SearchConfig
{
    int tp = 1, pp = 1, ep = 1, dp = 1;
    int64_t batch = 1;              ///< global (per replica x dp)
    uint16_t precision = 0, kv = 0; ///< indices into SearchCandidates::precisions and kvFormats
    int speculativeK = 0;
    int64_t chunkedPrefill = 0;
    int prefillDevices = 0, decodeDevices = 0;
    int64_t prefillBatch = 0;
    /// MoE: attention data parallelism and the routed experts' split (0: derived, moe_tp = tp, moe_ep = ep x
    /// attention_dp; moe_tp 1: each expert whole, moe_ep over every device of the stage).
    int16_t attentionDp = 1, moeTp = 0, moeEp = 0;
};

/// One configuration that fits, as the search keeps it: small, so that hundreds of thousands stay cheap.
struct SearchCandidate : SearchFigures
{
    SearchConfig config;
};
/// Memory a search holds per configuration at most, when every configuration fits: the candidate twice (its job's
/// list and the merged list; the allocator keeps the lists it frees while merging) and its places in the two index
/// lists of the contenders.
inline constexpr std::size_t kSearchBytesPerConfiguration = 2 * sizeof(SearchCandidate) + 2 * sizeof(uint32_t);

/// One configuration that fits in memory, whole: its scenario and the figures the front is drawn in.
struct SearchPoint : SearchFigures
{
    Scenario scenario; ///< phase Generate; batch is global (per replica x dp)
    /// The pure roofline's figures: a floor on the times, whatever the efficiency. Equal to ttftS and tpotS when the
    /// search runs at ideal efficiency; set for the points of a front.
    double ttftFloorS = 0, tpotFloorS = 0;
    /// The band measured runs fell in around achievable times (achievableBand()): the times may be band.low to
    /// band.high times ttftS and tpotS. Set for the points of a front that carry one.
    std::optional<TimeBand> band;
};
/// "plain", "speculative K4", "chunked prefill 512", "disaggregated 8:24 (prefill batch 1)", joined by ", ".
std::string servingLabel(const Scenario &s);

/// The configurations that fit, found by searchCandidates(); selectFront() then applies targets to them.
struct SearchCandidates
{
    std::vector<SearchCandidate> points;
    /// Indices into `points` of those that can reach a front under some targets: no point of the same device beats
    /// them in tokens/s per device or per user while at least as good in both and in TTFT (it would meet every target
    /// they meet and dominate them). selectFront() looks for the front among these only.
    std::vector<uint32_t> contenders;
    uint64_t evaluated = 0; ///< configurations enumerated, pruned ones included
    uint64_t pruned = 0;    ///< refused before analysis: weights alone, or a smaller batch, already did not fit
    uint64_t analysed = 0;  ///< configurations run through analyzeTotals()
    uint64_t derived = 0;   ///< replicas (dp > 1) of an analysed configuration: its figures, times dp devices and batch
    bool withCost = false;  ///< every device has an hourly price: cost is a third objective
    EfficiencyMode efficiency = EfficiencyMode::Ideal;
    double seconds = 0;
    Scenario base;                           ///< searchBase() of the space's scenario
    std::vector<SearchPrecision> precisions; ///< the formats searched (the defaults filled in)
    std::vector<DType> kvFormats;
    /// points[i] whole, its scenario made from `base` and its config (floors and band are left for selectFront()).
    SearchPoint point(std::size_t i) const;
};

/// The Pareto front of the candidates that meet the targets.
struct SearchFront
{
    /// Not dominated in tokens/s per device (higher), tokens/s per user (higher) and, with prices, $/million tokens
    /// (lower); ordered by tokens/s per user, rising. Of configurations with equal figures, the one with the fewest
    /// devices stays.
    std::vector<SearchPoint> pareto;
    uint64_t meeting = 0; ///< candidates that meet every target
    /// When none meets the targets: the candidate that misses them by the least (the largest ratio of reached to
    /// required, over the targets), and one line saying by how much, e.g. "TPOT 61.2 ms is 11.2 ms over 50 ms".
    std::optional<SearchPoint> nearest;
    std::string nearestMiss;
};

/// Every configuration of `space` that fits in memory (analysed on all cores, in a deterministic order).
/// Throws AnalysisError for an empty device list, a device budget below 1, an invalid base scenario or a space of
/// more than space.maxConfigurations configurations. An exception in any thread (std::bad_alloc when memory runs
/// out) is thrown here once every thread has stopped.
SearchCandidates searchCandidates(const ModelShape &m, const SearchSpace &space);

/// How many configurations searchCandidates() would enumerate (its `evaluated`), counted without analysing any.
uint64_t searchConfigurations(const ModelShape &m, const SearchSpace &space);

/// The front of `candidates` under `targets`; fills the floors of its points (and of `nearest`) by analysing them
/// again at ideal efficiency when the candidates were found at another.
SearchFront selectFront(const SearchCandidates &candidates, const SearchTargets &targets, const ModelShape &m,
                        const SearchSpace &space);

/// Whether `a` dominates `b`: at least as good in every objective and better in one.
bool dominates(const SearchFigures &a, const SearchFigures &b, bool withCost);

/// True when `p` meets every target that is set.
bool meets(const SearchFigures &p, const SearchTargets &t);

} // namespace memwall::core
