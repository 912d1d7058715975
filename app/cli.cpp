#include "cli.h"

#include "ui/util/savefile.h"

#include "core/analysis/analysis.h"
#include "core/io/analysisjson.h"
#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"
#include "core/util/format.h"
#include "core/util/oneline.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace memwall::app {

using namespace memwall::core;

const std::vector<CliOption> &scenarioSourceOptions()
{
    static const std::vector<CliOption> options = {
        {"--hardware", "ID", "device preset (default h100-sxm; see `memwall presets`)"},
        {"--model", "ID", "model preset (default llama-2-70b)"},
        {"--model-config", "FILE", "a Hugging Face config.json instead of a preset"},
        {"--scenario", "FILE", "a saved .memwall.json scenario (options after it override it)"},
        {"--save-scenario", "FILE", "save the resolved scenario as .memwall.json"},
        {"--presets", "DIR", "extra preset folder (overrides built-ins with the same id)"},
    };
    return options;
}

std::optional<std::string> CommandLine::value(const std::string &opt) const
{
    auto range = extra.equal_range(opt);
    if (range.first == range.second)
        return std::nullopt;
    return std::prev(range.second)->second;
}

CommandLine parseCommandLine(const std::string &command, const std::vector<std::string> &args,
                             const std::vector<CliOption> &options, bool scenario)
{
    auto find = [](const std::vector<CliOption> &list, std::string_view name) -> const CliOption * {
        for (const CliOption &o : list)
            if (o.name == name)
                return &o;
        return nullptr;
    };
    CommandLine cl;
    cl.command = command;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string opt = args[i], val;
        bool hasInline = false;
        if (opt.starts_with("--")) {
            if (auto eq = opt.find('='); eq != std::string::npos) {
                val = opt.substr(eq + 1);
                opt = opt.substr(0, eq);
                hasInline = true;
            }
        }
        auto takeValue = [&]() -> std::string {
            if (hasInline)
                return val;
            if (i + 1 >= args.size())
                throw UsageError(opt + " needs a value");
            return args[++i];
        };
        bool negated = false;
        const CliOption *own = find(options, opt);
        if (!own && scenario)
            own = find(scenarioSourceOptions(), opt);
        if (opt == "--help" || opt == "-h") {
            cl.help = true;
        } else if (own && own->metavar.empty()) {
            if (hasInline)
                throw UsageError(opt + " takes no value");
            cl.extraFlags.insert(opt);
        } else if (own) {
            cl.extra.emplace(opt, takeValue());
        } else if (const core::ScenarioOption *o = scenario ? core::findOptionByFlag(opt, &negated) : nullptr) {
            core::OptionValue v = !negated;
            if (o->kind != core::OptionKind::Switch || hasInline) {
                const std::string text = takeValue();
                if (auto e = core::parseOptionText(*o, text, &v); !e.empty())
                    throw UsageError(opt + ": " + e);
                if (negated)
                    throw UsageError(opt + " takes no value");
            }
            if (auto e = core::checkOption(*o, v); !e.empty())
                throw UsageError(opt + ": " + e);
            cl.overrides.push_back({o, std::move(v)});
        } else if (scenario && !opt.starts_with("-") && !cl.value("--scenario") && opt.ends_with(".json")) {
            cl.extra.emplace("--scenario", opt); // positional [scenario]
        } else {
            throw UsageError("unknown option '" + opt + "' (try --help)");
        }
    }
    cl.json = cl.extraFlags.count("--json") > 0;
    cl.csv = cl.extraFlags.count("--csv") > 0;
    cl.hardware = cl.value("--hardware");
    cl.model = cl.value("--model");
    cl.modelConfig = cl.value("--model-config");
    cl.scenarioFile = cl.value("--scenario");
    cl.saveScenario = cl.value("--save-scenario");
    cl.presetsDir = cl.value("--presets");
    if (cl.modelConfig && cl.model)
        throw UsageError("--model and --model-config are alternatives: give one");
    return cl;
}

int64_t parseCount(const std::string &opt, const std::string &text, int64_t min, int64_t max)
{
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw UsageError(opt + ": '" + text + "' is not a whole number");
    if (v < min || v > max)
        throw UsageError(opt + ": must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                         text);
    return v;
}

double parseReal(const std::string &opt, const std::string &text, double min, double max)
{
    double v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
        throw UsageError(opt + ": '" + text + "' is not a number");
    if (v < min || v > max)
        throw UsageError(opt + ": must be between " + formatSiNumber(min) + " and " + formatSiNumber(max) + ", got " +
                         text);
    return v;
}

ScenarioFile resolveScenario(const CommandLine &cl, const PresetLibrary &lib)
{
    ScenarioFile f;
    bool haveHw = false, haveModel = false;
    if (cl.scenarioFile) {
        f = readScenarioFile(*cl.scenarioFile, lib);
        haveHw = haveModel = true;
    }
    if (cl.hardware || !haveHw) {
        const std::string id = cl.hardware.value_or("h100-sxm");
        const HardwareSpec *hw = lib.findHardware(id);
        if (!hw)
            throw UsageError(unknownPresetMessage(lib, true, id));
        f.hardware = *hw;
        f.hardwareInline = false;
    }
    if (cl.modelConfig) {
        f.model = importHfConfigFile(*cl.modelConfig);
        f.modelInline = true;
    } else if (cl.model || !haveModel) {
        const std::string id = cl.model.value_or("llama-2-70b");
        const ModelPreset *m = lib.findModel(id);
        if (!m)
            throw UsageError(unknownPresetMessage(lib, false, id));
        f.model = m->shape;
        f.modelInline = false;
    }
    // What the model implies (an encoder's forward pass, an image's patches), unless the options say otherwise.
    const auto given = [&cl](std::string_view key) {
        return std::any_of(cl.overrides.begin(), cl.overrides.end(),
                           [key](const auto &o) { return o.option->key == key; });
    };
    adaptToModel(f.scenario, f.model, given("phase"), given("seq"));
    for (const auto &[option, v] : cl.overrides)
        option->set(f.scenario, f.whatIf, v); // checked when parsed
    if (auto e = validate(f.scenario); !e.empty())
        throw UsageError(e);
    return f;
}

QString outputPath(const std::string &path)
{
    if (!isValidUtf8(path))
        throw InputError(path, "",
                         "cannot write: the name is not valid UTF-8 (MemWall writes only to names it can spell "
                         "exactly)");
    return QString::fromStdString(path);
}

void writeFileAtomically(const std::string &path, const std::string &text)
{
    if (const QString why = ui::saveAtomically(outputPath(path), QByteArray::fromStdString(text)); !why.isEmpty())
        throw InputError(path + ": cannot write: " + why.toStdString());
}

void maybeSaveScenario(const CommandLine &cl, const ScenarioFile &f)
{
    if (cl.saveScenario)
        writeFileAtomically(*cl.saveScenario, core::jsonFileText(toJson(f), *cl.saveScenario));
}

int guarded(const std::string &command, const std::function<int()> &body)
{
    try {
        return body();
    } catch (const UsageError &e) {
        std::cerr << "memwall " << command << ": " << oneLine(e.what()) << "\n";
        return 2;
    } catch (const InputError &e) {
        std::cerr << "memwall: " << oneLine(e.what()) << "\n";
        return 1;
    } catch (const AnalysisError &e) {
        std::cerr << "memwall " << command << ": " << oneLine(e.what()) << "\n";
        return 1;
    } catch (const std::exception &e) {
        std::cerr << "memwall " << command << ": " << oneLine(e.what()) << "\n";
        return 1;
    }
}

std::string pad(std::string s, std::size_t width, bool right)
{
    if (s.size() >= width)
        return s;
    const std::string fill(width - s.size(), ' ');
    return right ? fill + s : s + fill;
}

} // namespace memwall::app
