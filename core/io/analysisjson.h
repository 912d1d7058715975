#pragma once

#include "analysis/analysis.h"
#include "io/jsonreader.h"

#include <nlohmann/json.hpp>

namespace memwall::core {

/// The scenario's inputs in the command line's words (the `scenario` echo of `analyze --json`, scenario files).
nlohmann::json toJson(const Scenario &s);
/// Reads a scenario object; every field optional (defaults from Scenario{}); unknown fields are errors.
Scenario scenarioFromJson(const nlohmann::json &j, const std::string &file);

/// `memwall analyze --json`: the command-line contract (SI units, no rounding).
nlohmann::json analysisToJson(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const Analysis &a);

/// Parses "fp16", "int4", "int4/g128" (INT4, one FP16 scale per 128 weights), "int8/g64/bf16".
std::optional<WeightFormat> weightFormatFromString(std::string_view text);
std::string toString(const WeightFormat &w);

} // namespace memwall::core
