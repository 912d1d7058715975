#include "cli.h"

#include "ui/util/savefile.h"

#include "analysis/analysis.h"
#include "io/analysisjson.h"
#include "io/hfconfig.h"
#include "io/jsonreader.h"

#include <QCoreApplication>
#include <QStandardPaths>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace memwall::app {

using namespace memwall::core;

namespace {
const std::set<std::string> kScenarioValued = {"--phase",       "--batch",   "--seq",         "--context",
                                               "--output",      "--weights", "--activations", "--kv",
                                               "--tp",          "--pp",      "--dp",          "--ep",
                                               "--micro-batches", "--efficiency", "--compute-efficiency",
                                               "--memory-efficiency", "--recompute", "--optimizer", "--zero",
                                               "--structured-sparsity", "--unstructured-sparsity",
                                               "--what-if-compute", "--what-if-bandwidth", "--what-if-capacity"};
const std::set<std::string> kScenarioFlags = {"--fused-attention", "--no-fused-attention", "--no-kv-cache", "--kv-cache"};
} // namespace

std::optional<std::string> CommandLine::value(const std::string &opt) const
{
    auto range = extra.equal_range(opt);
    if (range.first == range.second)
        return std::nullopt;
    return std::prev(range.second)->second;
}

CommandLine parseCommandLine(const std::string &command, const std::vector<std::string> &args,
                             const std::set<std::string> &valued, const std::set<std::string> &flags)
{
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
        if (opt == "--json")
            cl.json = true;
        else if (opt == "--csv")
            cl.csv = true;
        else if (opt == "--help" || opt == "-h")
            cl.help = true;
        else if (opt == "--hardware")
            cl.hardware = takeValue();
        else if (opt == "--model")
            cl.model = takeValue();
        else if (opt == "--model-config")
            cl.modelConfig = takeValue();
        else if (opt == "--scenario")
            cl.scenarioFile = takeValue();
        else if (opt == "--save-scenario")
            cl.saveScenario = takeValue();
        else if (opt == "--presets")
            cl.presetsDir = takeValue();
        else if (kScenarioValued.count(opt))
            cl.overrides.emplace_back(opt, takeValue());
        else if (kScenarioFlags.count(opt))
            cl.overrides.emplace_back(opt, "");
        else if (valued.count(opt))
            cl.extra.emplace(opt, takeValue());
        else if (flags.count(opt))
            cl.extraFlags.insert(opt);
        else if (!opt.starts_with("-") && !cl.scenarioFile && opt.ends_with(".json"))
            cl.scenarioFile = opt; // positional [scenario]
        else
            throw UsageError("unknown option '" + opt + "' (try --help)");
    }
    if (cl.modelConfig && cl.model)
        throw UsageError("--model and --model-config are alternatives: give one");
    return cl;
}

PresetLibrary loadPresets(const CommandLine &cl)
{
    PresetLibrary lib;
    lib.loadBuiltin();
    if (QCoreApplication::applicationName().isEmpty() || QCoreApplication::applicationName() == "memwall")
        QCoreApplication::setApplicationName("MemWall");
    const QString user = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (!user.isEmpty())
        lib.loadDirectory((user + "/presets").toStdString());
    if (cl.presetsDir)
        lib.loadDirectory(*cl.presetsDir, true);
    for (const auto &issue : lib.issues())
        std::cerr << "memwall: skipped preset: " << issue.message << "\n";
    return lib;
}

int64_t parseCount(const std::string &opt, const std::string &text, int64_t min, int64_t max)
{
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw UsageError(opt + ": '" + text + "' is not a whole number");
    if (v < min || v > max)
        throw UsageError(opt + ": must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + text);
    return v;
}

double parseReal(const std::string &opt, const std::string &text, double min, double max)
{
    double v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
        throw UsageError(opt + ": '" + text + "' is not a number");
    if (v < min || v > max)
        throw UsageError(opt + ": must be between " + si(min) + " and " + si(max) + ", got " + text);
    return v;
}

namespace {
template <typename T, typename F>
T parseChoice(const std::string &opt, const std::string &text, F parse, const char *choices)
{
    auto v = parse(text);
    if (!v)
        throw UsageError(opt + ": '" + text + "' is not one of " + choices);
    return *v;
}

DType parseDType(const std::string &opt, const std::string &text)
{
    return parseChoice<DType>(opt, text, dtypeFromString, "fp32, tf32, bf16, fp16, fp8, int8, int4");
}

void applyOverride(ScenarioFile &f, const std::string &opt, const std::string &v)
{
    Scenario &s = f.scenario;
    constexpr int64_t kMaxTokens = int64_t(1) << 24;
    if (opt == "--phase")
        s.phase = parseChoice<Phase>(opt, v, phaseFromString, "prefill, decode, generate, encode, train");
    else if (opt == "--batch")
        s.batch = parseCount(opt, v, 1, kMaxTokens);
    else if (opt == "--seq")
        s.seq = parseCount(opt, v, 1, kMaxTokens);
    else if (opt == "--context")
        s.context = parseCount(opt, v, 0, kMaxTokens);
    else if (opt == "--output")
        s.output = parseCount(opt, v, 1, kMaxTokens);
    else if (opt == "--weights") {
        auto w = weightFormatFromString(v);
        if (!w)
            throw UsageError(opt + ": '" + v + "' is not a weight format (fp16, bf16, fp8, int8, int4, int4/g128, ...)");
        s.weights = *w;
    } else if (opt == "--activations")
        s.activations = parseDType(opt, v);
    else if (opt == "--kv")
        s.kv = parseDType(opt, v);
    else if (opt == "--tp")
        s.tp = static_cast<int>(parseCount(opt, v, 1, 65536));
    else if (opt == "--pp")
        s.pp = static_cast<int>(parseCount(opt, v, 1, 65536));
    else if (opt == "--dp")
        s.dp = static_cast<int>(parseCount(opt, v, 1, 65536));
    else if (opt == "--ep")
        s.ep = static_cast<int>(parseCount(opt, v, 1, 65536));
    else if (opt == "--micro-batches")
        s.microBatches = static_cast<int>(parseCount(opt, v, 1, 65536));
    else if (opt == "--efficiency")
        s.efficiency = parseChoice<EfficiencyMode>(opt, v, efficiencyModeFromString, "ideal, achievable");
    else if (opt == "--compute-efficiency")
        s.computeEfficiency = parseReal(opt, v, 0.001, 1.0);
    else if (opt == "--memory-efficiency")
        s.memoryEfficiency = parseReal(opt, v, 0.001, 1.0);
    else if (opt == "--recompute")
        s.recompute = parseChoice<Recompute>(opt, v, recomputeFromString, "none, selective, full");
    else if (opt == "--optimizer")
        s.optimizer = parseChoice<Optimizer>(opt, v, optimizerFromString, "adam, sgd");
    else if (opt == "--zero")
        s.zeroStage = static_cast<int>(parseCount(opt, v, 0, 3));
    else if (opt == "--structured-sparsity")
        s.structuredSparsity = parseReal(opt, v, 0.0, 0.95);
    else if (opt == "--unstructured-sparsity")
        s.unstructuredSparsity = parseReal(opt, v, 0.0, 0.99);
    else if (opt == "--fused-attention")
        s.fusedAttention = true;
    else if (opt == "--no-fused-attention")
        s.fusedAttention = false;
    else if (opt == "--no-kv-cache")
        s.kvCache = false;
    else if (opt == "--kv-cache")
        s.kvCache = true;
    else if (opt == "--what-if-compute")
        f.whatIf.compute = parseReal(opt, v, 0.01, 100);
    else if (opt == "--what-if-bandwidth")
        f.whatIf.bandwidth = parseReal(opt, v, 0.01, 100);
    else if (opt == "--what-if-capacity")
        f.whatIf.capacity = parseReal(opt, v, 0.01, 100);
}
} // namespace

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
    // An encoder has no decode phase: unless a phase was asked for, analyse its forward pass.
    const bool phaseGiven = std::any_of(cl.overrides.begin(), cl.overrides.end(), [](const auto &o) { return o.first == "--phase"; });
    if (!phaseGiven && f.model.arch == Architecture::Encoder &&
        (f.scenario.phase == Phase::Decode || f.scenario.phase == Phase::Generate))
        f.scenario.phase = Phase::Encode;
    for (const auto &[opt, v] : cl.overrides)
        applyOverride(f, opt, v);
    if (auto e = validate(f.scenario); !e.empty())
        throw UsageError(e);
    return f;
}

HardwareSpec effectiveHardware(const ScenarioFile &f)
{
    return f.whatIf.isIdentity() ? f.hardware : scaled(f.hardware, f.whatIf.compute, f.whatIf.bandwidth, f.whatIf.capacity);
}

void writeFileAtomically(const std::string &path, const std::string &text)
{
    if (const QString why = ui::saveAtomically(QString::fromStdString(path), QByteArray::fromStdString(text)); !why.isEmpty())
        throw InputError(path + ": cannot write: " + why.toStdString());
}

void maybeSaveScenario(const CommandLine &cl, const ScenarioFile &f)
{
    if (cl.saveScenario)
        writeFileAtomically(*cl.saveScenario, toJson(f).dump(2) + "\n");
}

const char *scenarioHelp()
{
    return "scenario:\n"
           "  --hardware ID            device preset (default h100-sxm; see `memwall presets`)\n"
           "  --model ID               model preset (default llama-2-70b)\n"
           "  --model-config FILE      a Hugging Face config.json instead of a preset\n"
           "  --scenario FILE          a saved .memwall.json scenario (flags after it override it)\n"
           "  --phase P                prefill | decode | generate | encode | train (default decode)\n"
           "  --batch N  --seq N (prompt)  --context N (decode)  --output N (generate)\n"
           "  --weights F              fp16, bf16, fp8, int8, int4, int4/g128 (FP16 scale per 128 weights)\n"
           "  --activations DTYPE  --kv DTYPE\n"
           "  --tp N --pp N --dp N --ep N --micro-batches N\n"
           "  --fused-attention | --no-fused-attention   --no-kv-cache\n"
           "  --efficiency ideal|achievable  --compute-efficiency X  --memory-efficiency X\n"
           "  --recompute none|selective|full  --optimizer adam|sgd  --zero 0..3\n"
           "  --structured-sparsity X  --unstructured-sparsity X\n"
           "  --what-if-compute X  --what-if-bandwidth X  --what-if-capacity X\n"
           "common:\n"
           "  --presets DIR            extra preset folder (overrides built-ins with the same id)\n"
           "  --save-scenario FILE     save the resolved scenario as .memwall.json\n"
           "  --json                   machine-readable output\n";
}

int guarded(const std::string &command, const std::function<int()> &body)
{
    try {
        return body();
    } catch (const UsageError &e) {
        std::cerr << "memwall " << command << ": " << e.what() << "\n";
        return 2;
    } catch (const InputError &e) {
        std::cerr << "memwall: " << e.what() << "\n";
        return 1;
    } catch (const AnalysisError &e) {
        std::cerr << "memwall " << command << ": " << e.what() << "\n";
        return 1;
    } catch (const std::exception &e) {
        std::cerr << "memwall " << command << ": " << e.what() << "\n";
        return 1;
    }
}

std::string si(double v, int digits) { return formatSiNumber(v, digits); }

std::string pad(std::string s, std::size_t width, bool right)
{
    if (s.size() >= width)
        return s;
    const std::string fill(width - s.size(), ' ');
    return right ? fill + s : s + fill;
}

} // namespace memwall::app
