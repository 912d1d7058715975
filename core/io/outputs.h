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

/// One operator of an analysis, the one operator schema: "name", "class", "phase", "count", "flops", "bytes",
/// "weight_bytes", "activation_bytes", "kv_bytes", "arithmetic_intensity", "compute_dtype", "time_s", "bound".
/// `analyze --json`'s "operators" (and so the Python module's) and the roofline chart's data, which adds its plot's
/// fields to each, are written by it.
nlohmann::json operatorToJson(const Operator &op);
/// Every operator of `a`, in order, as operatorToJson() writes it.
nlohmann::json operatorsToJson(const Analysis &a);

/// `presets --json`: {"hardware": [{"id", "name", "vendor", ...}], "models": [{"id", "name", "params", ...}]}.
nlohmann::json presetsToJson(const PresetLibrary &lib);

/// One row of `sweep --json`: the scenario's inputs, then "totals", "memory" (and "phases" for generate), or
/// "error" for a point that cannot be analysed.
nlohmann::json sweepRowToJson(const SweepRow &r);

/// The "answers" of a batch sweep; `maxBatch` is the exact largest batch that fits; `maxTpotS` > 0 adds the best
/// batch under that bound.
nlohmann::json batchAnswersToJson(const BatchAnswers &a, int64_t maxBatch, double maxTpotS);

/// The columns of a sweep row in CSV after its axis fields, for `memwall sweep --csv` and the window's sweep
/// export: time_s (one step), tokens_per_s, flops, bytes, arithmetic_intensity, bound, memory_bytes, fits, error,
/// then tpot_s (a generate point's time per output token; empty otherwise).
const std::vector<std::string> &sweepCsvColumns();
/// The cells of `r` for sweepCsvColumns(), numbers with 17 significant digits (they read back exactly); a point
/// that could not be analysed has only its error.
std::vector<std::string> sweepCsvCells(const SweepRow &r);

/// One search point as JSON: the scenario's fields (the device as "hardware"), then the point's figures.
nlohmann::json searchPointToJson(const SearchPoint &p, const SearchSpace &space, EfficiencyMode efficiency);

/// `search --csv` and the window's search export: a header, then a row per Pareto point and, when nothing meets
/// the targets, the nearest miss (its "nearest" column 1).
std::string searchToCsv(const SearchSpace &space, const SearchCandidates &candidates, const SearchFront &front);

/// `search --json`: counts, targets, the Pareto front and, when nothing meets the targets, the nearest miss.
nlohmann::json searchToJson(const ModelShape &m, const SearchSpace &space, const SearchTargets &targets,
                            const SearchCandidates &candidates, const SearchFront &front);

} // namespace memwall::core
