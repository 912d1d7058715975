#pragma once

#include "core/analysis/analysis.h"
#include "core/analysis/options.h"
#include "core/analysis/serving.h"
#include "core/io/jsonreader.h"

#include <nlohmann/json.hpp>

namespace memwall::core {

/// The scenario's inputs in the command line's words (the `scenario` echo of `analyze --json`, scenario files).
nlohmann::json toJson(const Scenario &s);
/// Reads a scenario object; every field optional (defaults from Scenario{}); unknown fields are errors.
Scenario scenarioFromJson(const nlohmann::json &j, const std::string &file);

/// The options of one section of the scenario file, by the option table.
nlohmann::json optionsToJson(OptionSection section, const Scenario &s, const WhatIf &w);
/// Reads every option of `section` present in `r` (absent ones keep their value); fails naming the key.
void optionsFromJson(JsonReader &r, OptionSection section, Scenario &s, WhatIf &w);

/// `memwall analyze --json`: the command-line contract (SI units, no rounding).
/// The serving objects of `memwall analyze --json`: "request", "speculative", "chunked_prefill", "admission",
/// "disaggregation",
/// "offload", "energy", "cost" (null where the scenario does not ask for it or the device lacks the figure).
nlohmann::json servingToJson(const ServingReport &r);

nlohmann::json analysisToJson(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const Analysis &a);
/// The "memory" object of analyze's and sweep's JSON: each part of the footprint per device, its total and capacity.
nlohmann::json toJson(const MemoryFootprint &m);

} // namespace memwall::core
