#pragma once

#include "core/analysis/analysis.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

/// One varied input: "batch", "context", "seq", "output", "tp", "pp", "dp" and its values.
struct SweepAxis
{
    std::string field;
    std::vector<int64_t> values;
};

/// Parses "batch=1:4096" (powers of two from 1 to 4096), "context=128:8192:128" (arithmetic steps) or
/// "tp=1,2,4,8" (a list). Throws AnalysisError with one line naming the part that is wrong.
SweepAxis parseSweepAxis(std::string_view text);

/// One point of a sweep: the inputs and the headline results (no per-operator list: sweeps stay cheap).
struct SweepRow
{
    Scenario scenario;
    Totals totals;
    MemoryFootprint memory;
    GeneratePhases phases;
    double kvTotalBytes = 0;
    std::string error; ///< non-empty when this point cannot be analysed (e.g. tp not dividing the heads)
};

/// Calls `visit(row)` for every combination of the axes' values (the first axis varies slowest) without storing
/// them: large grids (4,096 x 256) stream in constant memory.
void sweepEach(const HardwareSpec &hw, const ModelShape &m, const Scenario &base, const std::vector<SweepAxis> &axes,
               const std::function<void(const SweepRow &)> &visit);

/// Every combination of the axes' values (the first axis varies slowest).
std::vector<SweepRow> sweep(const HardwareSpec &hw, const ModelShape &m, const Scenario &base,
                            const std::vector<SweepAxis> &axes);

/// Answers over a batch sweep (rows in increasing batch):
struct BatchAnswers
{
    int64_t firstComputeBound = 0;       ///< smallest batch whose whole step is compute-bound; 0 = none in range
    int64_t firstLinearComputeBound = 0; ///< smallest batch whose weight matmuls are compute-bound; 0 = none
    int64_t largestFitting = 0;          ///< largest batch whose footprint fits the device; 0 = none fits
    int64_t bestUnderTpot = 0;           ///< highest-throughput batch with time per token <= bound; 0 = none / no bound
    double bestThroughput = 0;           ///< tokens/s at bestUnderTpot

    /// Takes one more row (in increasing batch): a sweep streamed row by row needs no list of rows.
    void add(const SweepRow &r, double maxTpotS = 0);
};
/// `maxTpotS` <= 0 means no latency bound. Time per token = totals.timeS for decode, phases.tpotS for generate.
BatchAnswers answerBatchSweep(const std::vector<SweepRow> &rows, double maxTpotS = 0);

} // namespace memwall::core
