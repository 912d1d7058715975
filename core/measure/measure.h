#pragma once

#include "core/hardware/hardwarespec.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

/// How `measureMachine` runs. All fields have safe defaults; the default run takes well under 10 s.
struct MeasureOptions
{
    /// Wall-clock budget of the whole run in seconds (allocation and first touch included). It is split over the
    /// stages (bandwidth ~30 %, matrix-vector ~25 %, matrix-matrix ~45 %); every stage checks the clock after each
    /// repetition and stops early. A few repetitions of each kernel always run (5 for the triad, 3 otherwise;
    /// best-of-few resists other load), and allocating and first-touching the buffers cannot be interrupted, so a
    /// budget below ~2 s may be overrun by a fraction of a second (most on machines with slow page faults).
    double budgetSeconds = 8.0;
    /// Worker threads; 0 = std::thread::hardware_concurrency() (at least 1).
    int threads = 0;
    /// Bytes of the three triad arrays together (and the size of the largest matrix-vector matrix).
    /// 0 = 512 MiB: the free memory and last-level cache size are not knowable portably, and 512 MiB is far
    /// beyond the last-level cache of desktop and most server CPUs. Values below 8 MiB are raised to 8 MiB.
    std::size_t bandwidthBytes = 0;
};

/// One measured kernel run: a point on this computer's roofline.
struct MeasuredKernel
{
    std::string name;     ///< "triad", "matvec-8192x4096", "gemm-512", ...
    double flops = 0.0;   ///< floating-point operations of one repetition (2 per multiply-add)
    double bytes = 0.0;   ///< compulsory memory traffic of one repetition (bytes); see measureMachine
    double seconds = 0.0; ///< duration of the best repetition (s)

    /// FLOP per byte of compulsory traffic (0 when bytes is 0).
    double arithmeticIntensity() const { return bytes > 0.0 ? flops / bytes : 0.0; }
    /// Attained rate of the best repetition, FLOP/s (0 when seconds is 0).
    double flopsPerS() const { return seconds > 0.0 ? flops / seconds : 0.0; }
};

/// The measured roofline of this computer.
struct MeasureResult
{
    /// Best STREAM-style triad rate over all threads (bytes/s). Counted as 3 arrays x 8 B per element (two reads,
    /// one write); write-allocate traffic is NOT counted (STREAM convention; on x86-64 non-temporal stores avoid
    /// it, elsewhere the true traffic may be up to 4/3 of the counted).
    double memoryBandwidthBytesPerS = 0.0;
    /// Measured FP32 compute roof (FLOP/s): the best rate of the blocked matrix-matrix kernels. This is an attained
    /// roof, not the vendor's theoretical peak (which needs hand-written SIMD assembly to approach).
    double peakFlops = 0.0;
    /// Matrix-vector points (intensity ~0.5 FLOP/byte), then matrix-matrix points (increasing size and intensity).
    /// The triad itself is not a point (it is the bandwidth roof).
    std::vector<MeasuredKernel> points;
    int threads = 0;        ///< worker threads used
    double elapsedS = 0.0;  ///< wall-clock duration of the whole run (s)
    bool cancelled = false; ///< the progress callback returned false; fields hold what was measured until then
};

/// Progress callback: `progress01` in [0, 1] and a short stage name ("bandwidth", "matrix-vector",
/// "matrix-matrix", "done"). Return false to cancel. Called on the thread that called measureMachine, between
/// repetitions (at least every ~0.2 s on a typical machine).
using MeasureProgress = std::function<bool(double progress01, std::string_view stage)>;

/// Measures this computer's memory bandwidth and FP32 compute with all threads, bounded by
/// `options.budgetSeconds`.
///
/// - Bandwidth: a[i] = b[i] + s*c[i] over double arrays of `bandwidthBytes` together; each thread owns a
///   contiguous slice, first-touched by that thread; best of several repetitions. On x86-64 the stores are
///   non-temporal (no write-allocate traffic arises, and a large cache cannot absorb the writes); elsewhere the
///   write-allocate traffic is not counted either (STREAM convention).
/// - Matrix-vector: y = A x in FP32, row-major, 4096 columns, 3 sizes: 1/2, 3/4 and all of the triad's memory
///   (reused, so it is touched once; each thread's block of rows lies in its own first-touched slice). Bytes = the
///   matrix plus x and y once (4 B each), so the intensity is just below 0.5 FLOP/byte.
/// - Matrix-matrix: C = A B in FP32, square n x n (register-blocked, packed, vectorised by the compiler), 4 sizes.
///   Bytes = the compulsory traffic 3 n^2 x 4 B, so the intensity is n/6 FLOP/byte.
///
/// All timings use std::chrono::steady_clock; each point keeps its best repetition. Every reported rate is
/// finite and positive unless the run was cancelled before that stage. Points are never clamped to the roofline:
/// a matrix-vector point may exceed intensity x triad bandwidth slightly (it only reads, the triad also writes).
MeasureResult measureMachine(const MeasureOptions &options, const MeasureProgress &progress = {});

/// JSON: {"memory_bandwidth_bytes_per_s", "peak_flops", "points": [{"name", "arithmetic_intensity",
/// "flops_per_s", "flops", "bytes", "seconds"}], "threads", "elapsed_s", "cancelled"}. SI units, no rounding.
nlohmann::json toJson(const MeasureResult &result);

/// The measured machine as a device: id "this-computer", name "This computer (measured)", category "cpu",
/// FP32 peak = the measured roof, one Dram level with the measured bandwidth and the physical memory size
/// (0 where it cannot be queried). Every source reads "measured by memwall measure on YYYY-MM-DD".
HardwareSpec measuredDevice(const MeasureResult &result);

} // namespace memwall::core
