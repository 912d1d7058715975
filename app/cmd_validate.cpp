// `memwall validate [--runs FILE] [--json]`: public measured end-to-end runs against the ideal roofline and the
// achievable model (core/validation/validation.h).
#include "cli.h"
#include "commands.h"

#include "core/io/jsonreader.h"
#include "core/io/presets.h"
#include "core/util/format.h"
#include "core/validation/validation.h"

#include <iostream>
#include <string>

namespace memwall::app {

namespace {

std::string valueText(core::RunMetric m, double v)
{
    switch (m) {
    case core::RunMetric::DecodeTokensPerS:
    case core::RunMetric::OutputTokensPerS: return core::formatFixed(v, v >= 100 ? 0 : 1) + " tok/s";
    case core::RunMetric::TtftS:
    case core::RunMetric::TpotS:
    case core::RunMetric::E2eS:
    case core::RunMetric::ServedTpotS: return core::formatSeconds(v);
    }
    return {};
}

std::string percent(double share) { return core::formatPercent(share); }

std::string signedError(double ratio) { return core::formatPercentChange(ratio - 1); }

/// Per metric, family, device and engine: runs, achievable median error and share within 25 %, ideal bound.
void printGroups(const core::ValidationReport &r)
{
    std::cout << "\n"
              << pad("by", 10) << "  " << pad("name", 22) << "  " << pad("metric", 14) << "  " << pad("runs", 5, true)
              << "  " << pad("predicted", 9, true) << "  " << pad("median err", 10, true) << "  "
              << pad("within 25 %", 11, true) << "  " << pad("ideal bound", 11, true) << "\n"
              << std::string(10 + 22 + 14 + 5 + 9 + 10 + 11 + 11 + 14, '-') << "\n";
    for (const core::ValidationGroup &g : r.groups) {
        const core::ValidationSummary &s = g.summary;
        std::cout << pad(g.by, 10) << "  " << pad(g.name, 22) << "  " << pad(std::string(toString(g.metric)), 14)
                  << "  " << pad(std::to_string(s.runs), 5, true) << "  " << pad(std::to_string(s.predicted), 9, true)
                  << "  " << pad(s.predicted ? percent(s.medianError) : "", 10, true) << "  "
                  << pad(s.predicted ? percent(s.within25) : "", 11, true) << "  "
                  << pad(s.runs ? percent(s.idealBound) : "", 11, true) << "\n";
    }
}

void printTable(const core::ValidationReport &r)
{
    std::cout << "Measured runs against MemWall's predictions. Time error = predicted time / measured time - 1\n"
                 "(negative: the prediction is faster than the run). Ideal is a bound: it should never be slower.\n\n";
    std::cout << pad("run", 40) << "  " << pad("measured", 13, true) << "  " << pad("ideal", 13, true) << "  "
              << pad("achievable", 13, true) << "  " << pad("ideal err", 9, true) << "  " << pad("ach. err", 9, true)
              << "\n"
              << std::string(40 + 13 * 3 + 9 * 2 + 10, '-') << "\n";
    for (const core::ValidatedRun &v : r.rows) {
        std::cout << pad(v.run.id.size() > 40 ? v.run.id.substr(0, 37) + "..." : v.run.id, 40) << "  "
                  << pad(valueText(v.run.metric, v.run.value), 13, true) << "  ";
        if (!v.error.empty()) {
            std::cout << "not analysed: " << v.error << "\n";
            continue;
        }
        std::cout << pad(valueText(v.run.metric, v.ideal), 13, true) << "  "
                  << pad(v.predicted ? valueText(v.run.metric, v.achievable) : "no data", 13, true) << "  "
                  << pad(signedError(v.idealRatio), 9, true) << "  "
                  << pad(v.predicted ? signedError(v.achievableRatio) : "", 9, true) << "\n";
    }
    const core::ValidationSummary &s = r.summary;
    std::cout << "\n"
              << s.runs << " runs analysed" << (s.failed ? ", " + std::to_string(s.failed) + " not" : "")
              << ".\nAchievable, on the " << s.predicted << " runs whose device has microbenchmarks (\"no data\": none "
              << "in its preset): median error " << percent(s.medianError) << ", worst " << percent(s.worstError)
              << ", " << percent(s.within25) << " of runs within 25 %.\n"
              << "Ideal not slower than the run in " << percent(s.idealBound) << " of runs.\n"
              << "Measured time / achievable time: " << core::formatFixed(s.ratioLow, 2) << " to "
              << core::formatFixed(s.ratioHigh, 2) << " (10th to 90th percentile), the band shown beside achievable "
              << "times.\nSources: memwall validate --json (\"source\" of each run).\n";
    printGroups(r);
}

} // namespace

int cmdValidate(const CommandLine &cl)
{
    const auto lib = loadPresets(cl);
    std::vector<core::MeasuredRun> runs;
    if (auto file = cl.value("--runs"))
        runs = core::runsFromJson(core::readJsonFile(*file), *file);
    else if (auto set = cl.value("--set"))
        runs = core::builtinRunSet(*set);
    else
        runs = core::builtinRuns();
    const core::ValidationReport report = core::validateRuns(runs, *lib);
    if (cl.json)
        std::cout << core::toJson(report).dump(2) << "\n";
    else
        printTable(report);
    return report.summary.failed > 0 ? 1 : 0;
}

} // namespace memwall::app
