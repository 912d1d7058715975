#include "cli.h"
#include "commands.h"

#include "core/analysis/limits.h"
#include "core/analysis/options.h"
#include "core/analysis/sweep.h"
#include "core/io/analysisjson.h"
#include "core/io/outputs.h"
#include "core/util/csv.h"
#include "core/util/format.h"

#include <cstdio>
#include <iostream>

namespace memwall::app {

using namespace memwall::core;
using nlohmann::json;

int cmdSweep(const CommandLine &cl)
{
    if (cl.json && cl.csv)
        throw UsageError("--json and --csv are alternatives: give one");
    std::vector<SweepAxis> axes;
    for (auto [it, end] = cl.extra.equal_range("--vary"); it != end; ++it) {
        try {
            axes.push_back(parseSweepAxis(it->second));
        } catch (const AnalysisError &e) {
            throw UsageError(e.what());
        }
        // Two --vary of one field would print two columns of it and analyse only the last list (issue #42).
        for (std::size_t i = 0; i + 1 < axes.size(); ++i)
            if (axes[i].field == axes.back().field)
                throw UsageError("--vary " + axes.back().field +
                                 " is given twice: vary a field once (A,B,C lists "
                                 "every value)");
    }
    if (axes.empty())
        throw UsageError("needs at least one --vary FIELD=FROM:TO (e.g. --vary batch=1:4096)");
    std::size_t points = 1;
    for (const auto &a : axes)
        points *= a.values.size();
    if (points > (1u << 22))
        throw UsageError("too many points (" + std::to_string(points) + "; the limit is 4194304)");
    double maxTpot = 0;
    if (auto v = cl.value("--max-tpot"))
        maxTpot = parseReal("--max-tpot", *v, 1e-6, 1e9) / 1000.0;

    const auto presets = loadPresets(cl);
    const PresetLibrary &lib = *presets;
    const ScenarioFile f = resolveScenario(cl, lib);
    const HardwareSpec hw = effectiveHardware(f);
    maybeSaveScenario(cl, f);
    const bool batchOnly = axes.size() == 1 && axes[0].field == "batch";
    BatchAnswers answers;
    // The exact limit, not the largest swept batch that fits (batch 740 fits where the sweep stops at 512).
    const int64_t maxBatch = batchOnly ? fitLimits(hw, f.model, f.scenario).batch : 0;

    // Rows are written as they are computed: a sweep of millions of points never holds them all in memory.
    const char *sep = cl.csv ? "," : " ";
    if (cl.json) {
        std::cout << "{\"hardware\": " << json(hw.id).dump() << ", \"model\": " << json(f.model.id).dump()
                  << ", \"rows\": [";
    } else {
        for (const auto &a : axes)
            std::printf(cl.csv ? "%s%s" : "%10s%s", a.field.c_str(), sep);
        if (cl.csv)
            std::cout << csvRow(sweepCsvColumns());
        else
            std::printf("%12s %14s %12s %9s %12s %5s\n", "time", "tokens/s", "FLOP/byte", "bound", "memory", "fits");
    }
    std::vector<const ScenarioOption *> fields; // looked up once, not per row
    fields.reserve(axes.size());
    for (const auto &a : axes)
        fields.push_back(findOption(a.field)); // parseSweepAxis() accepted it, so it exists
    bool first = true;
    sweepEach(hw, f.model, f.scenario, axes, [&](const SweepRow &r) {
        if (batchOnly)
            answers.add(r, maxTpot);
        if (cl.json) {
            std::cout << (first ? "\n  " : ",\n  ") << sweepRowToJson(r).dump();
            first = false;
            return;
        }
        for (const ScenarioOption *o : fields) {
            const long long v = std::get<int64_t>(o->get(r.scenario, WhatIf{}));
            std::printf(cl.csv ? "%lld%s" : "%10lld%s", v, sep);
        }
        if (cl.csv) {
            std::cout << csvRow(sweepCsvCells(r));
        } else if (!r.error.empty()) {
            std::printf("  %s\n", r.error.c_str());
        } else {
            std::printf("%12s %14s %12s %9s %12s %5s\n", formatSeconds(r.totals.timeS).c_str(),
                        formatNumber(r.totals.tokensPerS).c_str(), formatNumber(r.totals.intensity).c_str(),
                        std::string(toString(r.totals.bound)).c_str(), formatBytes(r.memory.total()).c_str(),
                        r.memory.fits ? "yes" : "NO");
        }
    });
    if (cl.json) {
        std::cout << "\n]";
        if (batchOnly)
            std::cout << ", \"answers\": " << batchAnswersToJson(answers, maxBatch, maxTpot).dump(2);
        std::cout << "}\n";
        return 0;
    }
    if (batchOnly && !cl.csv) {
        std::printf("\nfirst compute-bound batch: %s\n",
                    answers.firstComputeBound ? std::to_string(answers.firstComputeBound).c_str() : "none in range");
        std::printf("first batch whose weight matmuls are compute-bound: %s\n",
                    answers.firstLinearComputeBound ? std::to_string(answers.firstLinearComputeBound).c_str()
                                                    : "none in range");
        std::printf("largest batch that fits: %s (largest swept: %s)\n",
                    maxBatch ? std::to_string(maxBatch).c_str() : "none",
                    answers.largestFitting ? std::to_string(answers.largestFitting).c_str() : "none");
        if (maxTpot > 0)
            std::printf("best batch under %g ms per token: %s\n", maxTpot * 1000,
                        answers.bestUnderTpot ? std::to_string(answers.bestUnderTpot).c_str() : "none");
    }
    return 0;
}

} // namespace memwall::app
