// `memwall measure [--json] [--seconds X]`: measures this computer's own roofline (core/measure/measure.h):
// STREAM-style triad bandwidth, FP32 matrix-vector and matrix-matrix rates, with all threads.
#include "cli.h"
#include "commands.h"

#include "core/analysis/analysis.h"
#include "core/measure/measure.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace memwall::app {

namespace {

constexpr double kMinSeconds = 0.5;
constexpr double kMaxSeconds = 60.0;

bool stderrIsTerminal()
{
#if defined(__unix__) || defined(__APPLE__)
    return isatty(STDERR_FILENO) != 0;
#else
    return false;
#endif
}

void printSummary(const core::MeasureResult &r)
{
    const double bw = r.memoryBandwidthBytesPerS;
    const double peak = r.peakFlops;
    std::cout << "This computer, measured with " << r.threads << " thread" << (r.threads == 1 ? "" : "s") << " in "
              << core::formatSeconds(r.elapsedS) << (r.cancelled ? " (cancelled: partial results)" : "") << "\n\n";
    std::cout << "  memory bandwidth  " << pad(core::formatFixed(bw / 1e9, 1), 9, true)
              << " GB/s      (STREAM-style triad, best repetition)\n";
    std::cout << "  peak FP32         " << pad(core::formatFixed(peak / 1e9, 1), 9, true)
              << " GFLOP/s   (best matrix-matrix rate: a measured roof)\n";
    if (bw > 0 && peak > 0)
        std::cout << "  ridge point       " << pad(core::formatFixed(peak / bw, 1), 9, true)
                  << " FLOP/byte (below it work is bandwidth-bound)\n";
    std::cout << "\n"
              << pad("kernel", 20) << pad("FLOP/byte", 11, true) << pad("GFLOP/s", 11, true) << pad("roof", 11, true)
              << pad("of roof", 9, true) << "  bound\n";
    std::cout << std::string(20 + 11 * 3 + 9 + 8, '-') << "\n";
    for (const core::MeasuredKernel &k : r.points) {
        const double ai = k.arithmeticIntensity();
        const double roof = std::min(peak, ai * bw);
        const bool memoryBound = bw > 0 && ai < peak / bw;
        std::cout << pad(k.name, 20) << pad(core::formatFixed(ai, 2), 11, true)
                  << pad(core::formatFixed(k.flopsPerS() / 1e9, 1), 11, true)
                  << pad(core::formatFixed(roof / 1e9, 1), 11, true)
                  << pad(roof > 0 ? core::formatPercent(k.flopsPerS() / roof) : "-", 9, true) << "  "
                  << (memoryBound ? "memory" : "compute") << "\n";
    }
    std::cout << "\nroof = min(peak, intensity x bandwidth). Matrix-vector work stays on the bandwidth slope however\n"
                 "fast the arithmetic is: that is the memory wall. JSON: memwall measure --json\n";
}

} // namespace

int cmdMeasure(const CommandLine &cl)
{
    core::MeasureOptions options;
    if (auto v = cl.value("--seconds"))
        options.budgetSeconds = parseReal("--seconds", *v, kMinSeconds, kMaxSeconds);
    const bool tty = stderrIsTerminal();
    std::string lastStage;
    int lastPercent = -100;
    auto progress = [&](double p, std::string_view stage) {
        const int percent = static_cast<int>(p * 100.0);
        // On a terminal: one line rewritten in place. Otherwise: a line per stage only (logs stay short).
        if (tty) {
            if (percent != lastPercent || stage != lastStage)
                std::cerr << "\rmeasuring: " << pad(std::string(stage), 14) << pad(std::to_string(percent), 3, true)
                          << " %" << std::flush;
        } else if (stage != lastStage) {
            std::cerr << "measuring: " << stage << " (" << percent << " %)\n";
        }
        lastPercent = percent;
        lastStage = std::string(stage);
        return true;
    };

    const core::MeasureResult r = core::measureMachine(options, progress);
    if (tty)
        std::cerr << "\n";
    if (cl.json)
        std::cout << core::toJson(r).dump(2) << "\n";
    else
        printSummary(r);
    if (!(r.memoryBandwidthBytesPerS > 0) || !(r.peakFlops > 0))
        throw core::AnalysisError("the measurement produced no result");
    return 0;
}

} // namespace memwall::app
