#pragma once

#include "core/analysis/sweep.h"
#include "core/io/presets.h"
#include "core/io/scenariofile.h"
#include "core/search/search.h"

#include <nlohmann/json.hpp>

namespace memwall::core {

/// The JSON objects of the command line's outputs (beside analyze's, in analysisjson.h), built in one place so that
/// `memwall presets|sweep|search --json` and the Python module give the same fields.

/// `analyze --json`: analysisToJson(), the serving objects (null for an encoder, which serves no requests) and
/// "fit_limits" (the largest batch and context or prompt that fit).
nlohmann::json analyzeOutputJson(const HardwareSpec &hw, const ScenarioFile &f, const Analysis &a,
                                 const PresetLibrary &lib);

/// `presets --json`: {"hardware": [{"id", "name", "vendor", ...}], "models": [{"id", "name", "params", ...}]}.
nlohmann::json presetsToJson(const PresetLibrary &lib);

/// One row of `sweep --json`: the scenario's inputs, then "totals", "memory" (and "phases" for generate), or
/// "error" for a point that cannot be analysed.
nlohmann::json sweepRowToJson(const SweepRow &r);

/// The "answers" of a batch sweep; `maxBatch` is the exact largest batch that fits; `maxTpotS` > 0 adds the best
/// batch under that bound.
nlohmann::json batchAnswersToJson(const BatchAnswers &a, int64_t maxBatch, double maxTpotS);

/// `search --json`: counts, targets, the Pareto front and, when nothing meets the targets, the nearest miss.
nlohmann::json searchToJson(const ModelShape &m, const SearchSpace &space, const SearchTargets &targets,
                            const SearchCandidates &candidates, const SearchFront &front);

} // namespace memwall::core
