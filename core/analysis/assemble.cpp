#include "core/analysis/assemble.h"

#include "core/analysis/analysis.h"

#include "core/io/hfconfig.h"
#include "core/io/scenariolink.h"

#include <algorithm>

namespace memwall::core {

namespace {

void takeHardware(ScenarioFile &f, const std::string &id, const PresetLibrary &lib)
{
    const HardwareSpec *hw = lib.findHardware(id);
    if (!hw)
        throw RequestError("hardware", unknownPresetMessage(lib, true, id));
    f.hardware = *hw;
    f.hardwareInline = false;
}

void takeModel(ScenarioFile &f, const std::string &id, const PresetLibrary &lib)
{
    const ModelPreset *m = lib.findModel(id);
    if (!m)
        throw RequestError("model", unknownPresetMessage(lib, false, id));
    f.model = m->shape;
    f.modelInline = false;
}

} // namespace

ScenarioFile assembleScenario(const ScenarioSource &source, const std::vector<OptionSetting> &settings,
                              const PresetLibrary &lib)
{
    if (source.model && source.modelConfig)
        throw RequestError("model", "--model and --model-config are alternatives: give one");
    ScenarioFile f;
    const bool fromFile = source.scenarioFile || source.scenarioJson;
    if (source.scenarioFile) // a file, or a memwall: link in its place (core/io/scenariolink.h)
        f = isScenarioLink(*source.scenarioFile) ? scenarioFromLink(*source.scenarioFile, lib)
                                                 : readScenarioFile(*source.scenarioFile, lib);
    else if (source.scenarioJson)
        f = scenarioFileFromJson(*source.scenarioJson, "<Scenario>", lib);
    if (source.hardware || !fromFile)
        takeHardware(f, source.hardware.value_or(kDefaultHardware), lib);
    if (source.modelConfig) {
        f.model = importHfConfigFile(*source.modelConfig);
        f.modelInline = true;
    } else if (source.model || !fromFile) {
        takeModel(f, source.model.value_or(kDefaultModel), lib);
    }
    // A scenario file keeps its formats unless the model is given anew; options given on the line come after.
    applySettings(f, settings, fromFile && !source.model && !source.modelConfig);
    return f;
}

void applySettings(ScenarioFile &f, const std::vector<OptionSetting> &settings, bool keepFormats)
{
    const auto given = [&settings](std::string_view key) {
        return std::any_of(settings.begin(), settings.end(), [key](const auto &o) { return o.option->key == key; });
    };
    adaptToModel(f.scenario, f.model, given("phase"), given("seq"), keepFormats);
    for (const auto &[option, v] : settings)
        option->set(f.scenario, f.whatIf, v); // checked when parsed
    if (auto e = validate(f.scenario); !e.empty())
        throw RequestError("", e);
}

OptionSetting parseSetting(const ScenarioOption &o, std::string_view text)
{
    OptionValue v;
    if (auto e = parseOptionText(o, text, &v); !e.empty())
        throw RequestError(std::string(o.key), e);
    if (auto e = checkOption(o, v); !e.empty())
        throw RequestError(std::string(o.key), e);
    return {&o, std::move(v)};
}

ScenarioFile startScenario(ScenarioFile f)
{
    const HardwareSpec hw = effectiveHardware(f);
    for (int tp : {1, 2, 4, 8}) {
        f.scenario.tp = tp;
        try {
            if (analyze(hw, f.model, f.scenario).memory.fits)
                break;
        } catch (const AnalysisError &) {
            // tp not dividing the heads: try the next
        }
    }
    return f;
}

} // namespace memwall::core
