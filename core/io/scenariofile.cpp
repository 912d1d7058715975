#include "core/io/scenariofile.h"

#include "core/io/analysisjson.h"
#include "core/util/oneline.h"

namespace memwall::core {

using nlohmann::json;

std::string unknownPresetMessage(const PresetLibrary &lib, bool hardware, std::string_view id)
{
    const auto near = hardware ? lib.closestHardware(id) : lib.closestModels(id);
    std::string msg = std::string("unknown ") + (hardware ? "hardware" : "model") + " '" + echoValue(id) + "'";
    if (!near.empty()) {
        msg += " (closest: ";
        for (std::size_t i = 0; i < near.size(); ++i)
            msg += (i ? ", " : "") + near[i];
        msg += ")";
    }
    return msg;
}

HardwareSpec effectiveHardware(const ScenarioFile &f)
{
    return f.whatIf.isIdentity() ? f.hardware
                                 : scaled(f.hardware, f.whatIf.compute, f.whatIf.bandwidth, f.whatIf.capacity);
}

json toJson(const ScenarioFile &f)
{
    json j{{"kind", "scenario"}, {"schema", kScenarioSchema}};
    j["hardware"] = f.hardwareInline ? toJson(f.hardware) : json(f.hardware.id);
    j["model"] = f.modelInline ? toJson(f.model) : json(f.model.id);
    j["scenario"] = toJson(f.scenario);
    j["what_if"] = optionsToJson(OptionSection::WhatIf, f.scenario, f.whatIf);
    return j;
}

ScenarioFile scenarioFileFromJson(const json &j, const std::string &file, const PresetLibrary &lib)
{
    JsonReader r(j, file);
    const std::string kind = r.string("kind", "scenario");
    if (kind != "scenario")
        r.fail("kind", "expected \"scenario\", got \"" + kind + "\"");
    const int64_t schema = r.integer("schema");
    if (schema > kScenarioSchema)
        r.fail("schema", "version " + std::to_string(schema) + " was written by a newer MemWall (this one reads " +
                             std::to_string(kScenarioSchema) + ")");
    if (schema < 1)
        r.fail("schema", "must be at least 1, got " + std::to_string(schema));
    ScenarioFile f;
    const json &hw = r.raw("hardware");
    if (hw.is_string()) {
        const auto *p = lib.findHardware(hw.get<std::string>());
        if (!p)
            r.fail("hardware", unknownPresetMessage(lib, true, hw.get<std::string>()));
        f.hardware = *p;
    } else if (hw.is_object()) {
        f.hardware = hardwareFromJson(hw, file + ": hardware");
        f.hardwareInline = true;
    } else {
        r.fail("hardware", "expected a preset id or an object, got " + brief(hw));
    }
    const json &model = r.raw("model");
    if (model.is_string()) {
        const auto *p = lib.findModel(model.get<std::string>());
        if (!p)
            r.fail("model", unknownPresetMessage(lib, false, model.get<std::string>()));
        f.model = p->shape;
    } else if (model.is_object()) {
        f.model = modelShapeFromJson(model, file + ": model");
        f.modelInline = true;
    } else {
        r.fail("model", "expected a preset id or an object, got " + brief(model));
    }
    if (r.has("scenario"))
        f.scenario = scenarioFromJson(r.raw("scenario"), file);
    if (r.has("what_if")) {
        JsonReader w = r.object("what_if");
        optionsFromJson(w, OptionSection::WhatIf, f.scenario, f.whatIf);
        w.rejectUnknown();
    } else {
        r.string("what_if", "");
    }
    r.rejectUnknown();
    return f;
}

ScenarioFile readScenarioFile(const std::string &path, const PresetLibrary &lib)
{
    return scenarioFileFromJson(readJsonFile(path), path, lib);
}

} // namespace memwall::core
