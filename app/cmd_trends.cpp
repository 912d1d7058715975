// `memwall trends [--json]`: the hardware and model trend data behind the memory-wall paper, with the growth per
// two years fitted by least squares of log10(value) on the decimal year (core/trends/trends.h).
#include "cli.h"
#include "commands.h"

#include "core/io/jsonreader.h"
#include "core/trends/refit.h"
#include "core/trends/trends.h"

#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace memwall::app {

namespace {

std::string factorText(double f) { return core::formatFixed(f, f >= 100 ? 0 : f >= 10 ? 1 : 2) + "x"; }

/// A table cell: `s` cut to `width` columns (ending "...") or padded to them.
std::string cell(std::string s, std::size_t width, bool right = false)
{
    if (s.size() > width)
        s = s.substr(0, width - 3) + "...";
    return pad(std::move(s), width, right);
}

/// The refits with the devices of MemWall's presets after the paper's data (core/trends/refit.h), one line a series.
void printRefits(const core::TrendData &data, const std::vector<core::HardwareSpec> &devices)
{
    bool header = false;
    for (const core::TrendSeries &s : data.series) {
        const std::vector<core::AddedDevice> added = core::devicesAfterPaper(s, devices);
        if (added.empty())
            continue;
        if (!header) {
            std::cout << "\nRefits with the data-center GPUs and ASICs with HBM that MemWall's presets add after the "
                         "paper's data\n(not in the paper; the trends chart draws them as diamonds):\n";
            header = true;
        }
        const core::GrowthFit f = core::refit(s, added);
        std::string ids;
        for (const core::AddedDevice &d : added)
            ids += (ids.empty() ? "" : ", ") + d.id;
        std::cout << "  " << cell(s.id, 22) << "  " << factorText(f.factorPer2Years) << " per 2 years, r2 "
                  << core::formatFixed(f.r2, 3) << ", " << f.points << " points with " << added.size()
                  << " added: " << ids << "\n";
    }
}

void printTable(const core::TrendData &data)
{
    std::cout << "Trends behind \"AI and Memory Wall\" (Gholami et al., 2024). Growth per 2 years: least-squares fit\n"
                 "of log10(value) on the decimal year; \"paper\" is the figure the paper states.\n\n";
    std::cout << cell("series", 24) << "  " << cell("name", 44) << "  " << cell("unit", 16) << "  "
              << cell("points", 6, true) << "  " << cell("growth/2y", 9, true) << "  " << cell("r2", 5, true) << "  "
              << cell("paper", 6, true) << "\n";
    std::cout << std::string(24 + 44 + 16 + 6 + 9 + 5 + 6 + 12, '-') << "\n";
    for (const core::TrendSeries &s : data.series) {
        std::string growth = "-", r2 = "-", paper = "-", points = std::to_string(s.points.size());
        if (s.fitted) {
            const core::GrowthFit f = core::fitExponential(s.points);
            growth = factorText(f.factorPer2Years);
            r2 = core::formatFixed(f.r2, 3);
            if (f.points != static_cast<int>(s.points.size()))
                points = std::to_string(f.points) + "/" + points;
        }
        if (s.paperFactorPer2Years)
            paper = core::formatFixed(*s.paperFactorPer2Years, *s.paperFactorPer2Years >= 10 ? 0 : 1) + "x";
        std::cout << cell(s.id, 24) << "  " << cell(s.name, 44) << "  " << cell(s.unit, 16) << "  "
                  << cell(points, 6, true) << "  " << cell(growth, 9, true) << "  " << cell(r2, 5, true) << "  "
                  << cell(paper, 6, true) << "\n";
    }
    std::cout << "\npoints: fitted/total where the paper's line leaves some markers out; \"-\": no growth line.\n"
                 "Peak FLOPS mixes precisions: FP32 for older parts, FP16/BF16 tensor peaks for P100..H100 and TPUs.\n"
                 "Interconnect is the per-lane signalling rate of PCIe/NVLink generations, not device bandwidth.\n"
                 "Sources: memwall trends --json (\"source\" of each series).\n";
}

} // namespace

int cmdTrends(const CommandLine &cl)
{
    const core::TrendData data = core::loadBuiltinTrends();
    const std::vector<core::HardwareSpec> &devices = core::builtinRefitDevices();
    if (cl.json) {
        std::cout << core::toJsonWithRefits(data, devices).dump(2) << "\n";
    } else {
        printTable(data);
        printRefits(data, devices);
    }
    return 0;
}

} // namespace memwall::app
