// `memwall measure [--json] [--seconds X]`: measures this computer's own roofline (core/measure/measure.h):
// STREAM-style triad bandwidth, FP32 matrix-vector and matrix-matrix rates, with all threads.
#include "cli.h"
#include "commands.h"

#include "measure/measure.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
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

constexpr const char *kMeasureUsage =
    "Usage: memwall measure [--json] [--seconds X]\n"
    "\n"
    "Measures this computer's own roofline with all hardware threads:\n"
    "  memory bandwidth  STREAM-style triad a[i] = b[i] + s*c[i] over 512 MiB of doubles, best repetition,\n"
    "                    counted as 3 x 8 B per element (non-temporal stores on x86-64: no write-allocate)\n"
    "  matrix-vector     y = A x in FP32, intensity ~0.5 FLOP/byte: bandwidth-bound\n"
    "  matrix-matrix     blocked FP32 GEMM, n = 128..1024, intensity n/6 FLOP/byte: compute-bound\n"
    "The peak is the best measured GEMM rate (a measured roof, not the datasheet peak). FLOPs count 2 per\n"
    "multiply-add; bytes are the compulsory memory traffic (matrix-vector: A, x, y once; GEMM: 3 matrices once).\n"
    "Progress goes to stderr. Results vary with what else runs on the machine.\n"
    "\n"
    "Options:\n"
    "  --json        print {\"memory_bandwidth_bytes_per_s\", \"peak_flops\", \"points\": [{\"name\",\n"
    "                \"arithmetic_intensity\", \"flops_per_s\", \"flops\", \"bytes\", \"seconds\"}], \"threads\",\n"
    "                \"elapsed_s\", \"cancelled\"} (SI units)\n"
    "  --seconds X   time budget of the whole run, 0.5..60 (default 8)\n"
    "  -h, --help    show this help\n";

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
              << core::formatSeconds(r.elapsedS) << (r.cancelled ? " (cancelled: partial results)" : "")
              << "\n\n";
    std::cout << "  memory bandwidth  " << pad(core::formatFixed(bw / 1e9, 1), 9, true)
              << " GB/s      (STREAM-style triad, best repetition)\n";
    std::cout << "  peak FP32         " << pad(core::formatFixed(peak / 1e9, 1), 9, true)
              << " GFLOP/s   (best matrix-matrix rate: a measured roof)\n";
    if (bw > 0 && peak > 0)
        std::cout << "  ridge point       " << pad(core::formatFixed(peak / bw, 1), 9, true)
                  << " FLOP/byte (below it work is bandwidth-bound)\n";
    std::cout << "\n"
              << pad("kernel", 20) << pad("FLOP/byte", 11, true) << pad("GFLOP/s", 11, true)
              << pad("roof", 11, true) << pad("of roof", 9, true) << "  bound\n";
    std::cout << std::string(20 + 11 * 3 + 9 + 8, '-') << "\n";
    for (const core::MeasuredKernel &k : r.points) {
        const double ai = k.arithmeticIntensity();
        const double roof = std::min(peak, ai * bw);
        const bool memoryBound = bw > 0 && ai < peak / bw;
        std::cout << pad(k.name, 20) << pad(core::formatFixed(ai, 2), 11, true)
                  << pad(core::formatFixed(k.flopsPerS() / 1e9, 1), 11, true) << pad(core::formatFixed(roof / 1e9, 1), 11, true)
                  << pad(roof > 0 ? core::formatFixed(100.0 * k.flopsPerS() / roof, 0) + " %" : "-", 9, true) << "  "
                  << (memoryBound ? "memory" : "compute") << "\n";
    }
    std::cout << "\nroof = min(peak, intensity x bandwidth). Matrix-vector work stays on the bandwidth slope however\n"
                 "fast the arithmetic is: that is the memory wall. JSON: memwall measure --json\n";
}

} // namespace

int cmdMeasure(const std::vector<std::string> &args)
{
    bool json = false;
    core::MeasureOptions options;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (a == "--help" || a == "-h") {
            std::cout << kMeasureUsage;
            return 0;
        }
        if (a == "--json") {
            json = true;
            continue;
        }
        if (a == "--seconds" || a.rfind("--seconds=", 0) == 0) {
            std::string text;
            if (a == "--seconds") {
                if (i + 1 >= args.size()) {
                    std::cerr << "memwall measure: --seconds needs a value (0.5..60)\n";
                    return 2;
                }
                text = args[++i];
            } else {
                text = a.substr(10);
            }
            char *end = nullptr;
            errno = 0;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v) ||
                v < kMinSeconds || v > kMaxSeconds) {
                std::cerr << "memwall measure: --seconds must be a number from 0.5 to 60, got '" << text << "'\n";
                return 2;
            }
            options.budgetSeconds = v;
            continue;
        }
        std::cerr << "memwall measure: unknown option '" << a << "' (try --help)\n";
        return 2;
    }

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

    try {
        const core::MeasureResult r = core::measureMachine(options, progress);
        if (tty)
            std::cerr << "\n";
        if (json)
            std::cout << core::toJson(r).dump(2) << "\n";
        else
            printSummary(r);
        if (!(r.memoryBandwidthBytesPerS > 0) || !(r.peakFlops > 0)) {
            std::cerr << "memwall measure: the measurement produced no result\n";
            return 1;
        }
    } catch (const std::exception &e) {
        std::cerr << "memwall measure: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

} // namespace memwall::app
