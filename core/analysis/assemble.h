#pragma once

#include "core/analysis/options.h"
#include "core/io/presets.h"
#include "core/io/scenariofile.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace memwall::core {

/// A request that names something that does not exist or asks for two alternatives at once ("unknown hardware
/// 'h100' (closest: ...)", "--model and --model-config are alternatives"). The command line reports it as a usage
/// error (exit 2), the Python module as an InputError on `field`.
class RequestError : public std::runtime_error
{
public:
    RequestError(std::string field, const std::string &message) : std::runtime_error(message), m_field(std::move(field))
    {
    }
    /// The request's key: "hardware", "model", "model_config" or a scenario option's key; empty for a rule
    /// between options.
    const std::string &field() const { return m_field; }

private:
    std::string m_field;
};

/// Where the device, the model and a saved scenario come from; unset parts take the defaults below.
struct ScenarioSource
{
    std::optional<std::string> hardware;    ///< preset id (default kDefaultHardware)
    std::optional<std::string> model;       ///< preset id (default kDefaultModel)
    std::optional<std::string> modelConfig; ///< a Hugging Face config.json instead of a model preset
    /// A saved .memwall.json, read first; the rest override it. A `memwall:` link in its place (isScenarioLink()) is
    /// read as the scenario it holds.
    std::optional<std::string> scenarioFile;
    /// A saved scenario's content instead of its file (the Python module's Scenario object), read the same way.
    std::optional<nlohmann::json> scenarioJson;
};

inline constexpr const char *kDefaultHardware = "h100-sxm";
inline constexpr const char *kDefaultModel = "llama-2-70b";

/// One scenario option's value, already parsed and range-checked (checkOption()).
struct OptionSetting
{
    const ScenarioOption *option;
    OptionValue value;
};

/// The one way a scenario is built from a request, for the command line and the Python module alike: the saved
/// scenario first, then the device and the model (presets by id, or a config.json), then what the model implies (an
/// encoder's forward pass, an image's patches) unless the settings say otherwise, then the settings in order.
/// Throws RequestError (unknown preset, alternatives given together, relations between options), InputError (a file).
ScenarioFile assembleScenario(const ScenarioSource &source, const std::vector<OptionSetting> &settings,
                              const PresetLibrary &lib);

/// The part of assembleScenario() after the device and the model are chosen, shared with the memwall: link's reader
/// (core/io/scenariolink.h): what the model implies (its checkpoint's formats unless `keepFormats`, an encoder's
/// forward pass, an image's patches) unless the settings say otherwise, then the settings in order, then validate().
/// Throws RequestError for a rule between options.
void applySettings(ScenarioFile &f, const std::vector<OptionSetting> &settings, bool keepFormats);
/// The start scenario's one rule (the window's first launch, and `memwall export` given no scenario): `f` at the
/// fewest tensor-parallel devices of 1, 2, 4 and 8 that hold it, so the product opens on a scenario that fits, not
/// a red "does not fit" (Llama 2 70B's 138 GB of FP16 weights go over two H100s, 69 GB each of 80 GB). Keeps the
/// largest tried (8) when none fits, and skips a degree that does not divide the heads.
ScenarioFile startScenario(ScenarioFile f);

/// Parses `text` as the value of option `o` and checks its range: the command line's and Python's values go through
/// the same words. Throws RequestError naming the option's key.
OptionSetting parseSetting(const ScenarioOption &o, std::string_view text);

} // namespace memwall::core
