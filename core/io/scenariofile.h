#pragma once

#include "core/analysis/scenario.h"
#include "core/hardware/hardwarespec.h"
#include "core/io/presets.h"
#include "core/model/modelshape.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace memwall::core {

/// Everything needed to reproduce an analysis: device and model (by preset id, or inline when custom/imported),
/// the scenario and the what-if factors. Saved as `.memwall.json` (schema 1).
struct ScenarioFile
{
    HardwareSpec hardware;
    ModelShape model;
    bool hardwareInline = false; ///< not a preset: written out in full
    bool modelInline = false;
    Scenario scenario;
    WhatIf whatIf;
};

inline constexpr int kScenarioSchema = 1;

/// The device the analysis runs on: the file's hardware with its what-if factors applied.
HardwareSpec effectiveHardware(const ScenarioFile &f);

/// Serialises; presets are referenced by id unless marked inline.
nlohmann::json toJson(const ScenarioFile &f);
/// Reads a scenario file; ids are resolved in `lib`. Throws InputError (file, field, value) — unknown ids name the
/// closest ones; a file from a newer schema is refused.
ScenarioFile scenarioFileFromJson(const nlohmann::json &j, const std::string &file, const PresetLibrary &lib);
ScenarioFile readScenarioFile(const std::string &path, const PresetLibrary &lib);

/// "unknown hardware 'h100' (closest: h100-sxm, h100-pcie, h200-sxm)".
std::string unknownPresetMessage(const PresetLibrary &lib, bool hardware, std::string_view id);

} // namespace memwall::core
