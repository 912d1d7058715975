#include "cli.h"

#include "ui/util/savefile.h"

#include "core/analysis/analysis.h"
#include "core/analysis/assemble.h"
#include "core/io/analysisjson.h"
#include "core/io/jsonreader.h"
#include "core/io/scenariolink.h"
#include "core/util/format.h"
#include "core/util/oneline.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <new>

namespace memwall::app {

using namespace memwall::core;

const std::vector<CliOption> &scenarioSourceOptions()
{
    static const std::vector<CliOption> options = {
        {"--hardware", "ID", "device preset (default h100-sxm; see `memwall presets`)"},
        {"--model", "ID", "model preset (default llama-2-70b)"},
        {"--model-config", "FILE", "a Hugging Face config.json instead of a preset"},
        {"--scenario", "FILE",
         "a saved .memwall.json scenario, or a memwall: link (Edit > Copy link); options after it override it"},
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
            std::string text;
            if (o->kind != core::OptionKind::Switch || hasInline) {
                text = takeValue();
                if (auto e = core::parseOptionText(*o, text, &v); !e.empty())
                    throw UsageError(opt + ": " + e);
                if (negated)
                    throw UsageError(opt + " takes no value");
            }
            // A number out of range is quoted as it was typed ("1e-320", not "9.99988867182683e-321").
            const bool number = std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v);
            if (number && !core::checkOption(*o, v).empty())
                throw UsageError(opt + ": " + core::outOfRange(*o, text));
            if (auto e = core::checkOption(*o, v); !e.empty())
                throw UsageError(opt + ": " + e);
            cl.overrides.push_back({o, std::move(v)});
        } else if (scenario && !opt.starts_with("-") && !cl.value("--scenario") &&
                   (opt.ends_with(".json") || core::isScenarioLink(opt))) {
            cl.extra.emplace("--scenario", opt); // positional [scenario]: a file or a link
        } else {
            throw UsageError("unknown option '" + echoValue(opt) + "' (try --help)");
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
    return cl;
}

int64_t parseCount(const std::string &opt, const std::string &text, int64_t min, int64_t max)
{
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    const bool digits = ptr == text.data() + text.size() && !text.empty();
    if (!digits || (ec != std::errc() && ec != std::errc::result_out_of_range))
        throw UsageError(opt + ": '" + echoValue(text) + "' is not a whole number");
    if (ec == std::errc::result_out_of_range || v < min || v > max) // too many digits for any count: not wrapped
        throw UsageError(opt + ": must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                         echoValue(text));
    return v;
}

double parseReal(const std::string &opt, const std::string &text, double min, double max)
{
    double v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
        throw UsageError(opt + ": '" + echoValue(text) + "' is not a number");
    if (v < min || v > max)
        throw UsageError(opt + ": must be between " + formatSiNumber(min) + " and " + formatSiNumber(max) + ", got " +
                         echoValue(text));
    return v;
}

ScenarioFile resolveScenario(const CommandLine &cl, const PresetLibrary &lib)
{
    try {
        return assembleScenario({cl.hardware, cl.model, cl.modelConfig, cl.scenarioFile, {}}, cl.overrides, lib);
    } catch (const RequestError &e) {
        throw UsageError(e.what());
    }
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
    } catch (const std::bad_alloc &) {
        std::cerr << "memwall " << command << ": out of memory\n"; // not "std::bad_alloc"
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
