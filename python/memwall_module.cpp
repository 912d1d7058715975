// The Python face of memwall_core (`import memwall`): pybind11 bindings that build a scenario with the same option
// table, presets and errors as the command line (core::assembleScenario), and return the same JSON objects as
// `memwall analyze|presets|search|validate --json`, as Python dicts. Sweeps fill numpy arrays in place.
// The public API (keyword names, docs, pandas and matplotlib helpers) is python/memwall/__init__.py.
#include "core/analysis/analysis.h"
#include "core/analysis/assemble.h"
#include "core/analysis/options.h"
#include "core/analysis/serving.h"
#include "core/analysis/sweep.h"
#include "core/io/analysisjson.h"
#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"
#include "core/io/outputs.h"
#include "core/io/presets.h"
#include "core/io/scenariofile.h"
#include "core/io/scenariolink.h"
#include "core/search/search.h"
#include "core/validation/validation.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>

namespace py = pybind11;
using namespace memwall::core;
using nlohmann::json;

namespace {

PyObject *g_inputError = nullptr; // memwall.InputError, a ValueError with file, field and message

/// Raises memwall.InputError(message) with its `file`, `field` and `message` attributes (None where unknown).
[[noreturn]] void raiseInput(const std::string &what, const std::string &file, const std::string &field,
                             const std::string &message)
{
    py::object type = py::reinterpret_borrow<py::object>(g_inputError);
    py::object e = type(what);
    e.attr("file") = file.empty() ? py::none() : py::object(py::str(file));
    e.attr("field") = field.empty() ? py::none() : py::object(py::str(field));
    e.attr("message") = py::str(message);
    PyErr_SetObject(g_inputError, e.ptr());
    throw py::error_already_set();
}

/// Every error of the core becomes one memwall.InputError; anything else stays what it is.
template <typename F>
auto guarded(F &&body) -> decltype(body())
{
    try {
        return body();
    } catch (const InputError &e) {
        raiseInput(e.what(), e.origin(), e.field(), e.message());
    } catch (const RequestError &e) {
        raiseInput(e.what(), "", e.field(), e.what());
    } catch (const AnalysisError &e) {
        raiseInput(e.what(), "", "", e.what());
    }
}

/// nlohmann::json to Python objects (dict, list, str, int, float, bool, None).
py::object toPython(const json &j)
{
    switch (j.type()) {
    case json::value_t::object: {
        py::dict d;
        for (auto it = j.begin(); it != j.end(); ++it)
            d[py::str(it.key())] = toPython(it.value());
        return d;
    }
    case json::value_t::array: {
        py::list l(j.size());
        for (std::size_t i = 0; i < j.size(); ++i)
            l[i] = toPython(j[i]);
        return l;
    }
    case json::value_t::string: return py::str(j.get_ref<const std::string &>());
    case json::value_t::boolean: return py::bool_(j.get<bool>());
    case json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case json::value_t::number_float: return py::float_(j.get<double>());
    default: return py::none();
    }
}

/// The presets a call works with: the built-ins, then `dir` when given (as the command line's --presets DIR).
/// Libraries are kept by folder: loading the built-ins once per process keeps a call cheap.
std::shared_ptr<const PresetLibrary> presetsFor(const std::string &dir)
{
    static std::map<std::string, std::shared_ptr<const PresetLibrary>> cache;
    if (auto it = cache.find(dir); it != cache.end())
        return it->second;
    auto lib = std::make_shared<PresetLibrary>();
    lib->loadBuiltin();
    if (!dir.empty())
        lib->loadDirectory(dir, true);
    cache.emplace(dir, lib);
    return lib;
}

/// A request from Python: where the device and model come from, and option values as the command line's words.
struct Request
{
    ScenarioSource source;
    std::string presetsDir;
    std::optional<std::string> scenarioJson; ///< a Scenario object's JSON (memwall.Scenario), instead of a file
    std::vector<std::pair<std::string, std::string>> options; ///< (key, text)
};

Request requestFrom(const py::dict &src, const std::vector<std::pair<std::string, std::string>> &options)
{
    Request r;
    auto text = [&src](const char *key) -> std::optional<std::string> {
        if (!src.contains(key) || src[key].is_none())
            return std::nullopt;
        return py::str(src[key]).cast<std::string>();
    };
    r.source.hardware = text("hardware");
    r.source.model = text("model");
    r.source.modelConfig = text("model_config");
    r.source.scenarioFile = text("scenario_file");
    r.scenarioJson = text("scenario_json");
    r.presetsDir = text("presets").value_or("");
    r.options = options;
    return r;
}

const ScenarioOption &optionByKey(const std::string &key)
{
    if (const ScenarioOption *o = findOption(key))
        return *o;
    if (const ScenarioOption *o = findOption(key, OptionSection::WhatIf))
        return *o;
    throw RequestError(key, "unknown option '" + key + "' (memwall.options() lists them)");
}

ScenarioFile assemble(const Request &r, const PresetLibrary &lib)
{
    std::vector<OptionSetting> settings;
    settings.reserve(r.options.size());
    for (const auto &[key, text] : r.options)
        settings.push_back(parseSetting(optionByKey(key), text));
    ScenarioSource source = r.source;
    if (r.scenarioJson)
        source.scenarioJson = parseJson(*r.scenarioJson, "<Scenario>");
    return assembleScenario(source, settings, lib);
}

py::object analyzeCall(const py::dict &src, const std::vector<std::pair<std::string, std::string>> &options)
{
    return guarded([&] {
        const Request r = requestFrom(src, options);
        const auto lib = presetsFor(r.presetsDir);
        const ScenarioFile f = assemble(r, *lib);
        const HardwareSpec hw = effectiveHardware(f);
        return toPython(analyzeOutputJson(hw, f, analyze(hw, f.model, f.scenario), *lib));
    });
}

/// For memwall-bench: the mean seconds of the C++ side of analyze() (the scenario built, analysed and written as
/// JSON: what a Python call costs less the conversion to Python objects) over `n` calls.
double cppAnalyzeSeconds(const py::dict &src, const std::vector<std::pair<std::string, std::string>> &options, int n)
{
    return guarded([&] {
        const Request r = requestFrom(src, options);
        const auto lib = presetsFor(r.presetsDir);
        std::size_t sink = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
            const ScenarioFile f = assemble(r, *lib);
            const HardwareSpec hw = effectiveHardware(f);
            sink += analyzeOutputJson(hw, f, analyze(hw, f.model, f.scenario), *lib).size();
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return sink > 0 ? s / n : 0.0;
    });
}

/// Checks for Ctrl+C (with the GIL) every `kEvery` rows of a sweep that runs without it.
constexpr std::size_t kSignalEvery = 1 << 14;

void checkSignals()
{
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0)
        throw py::error_already_set();
}

/// The columns of a sweep, filled in place: the varied fields, then the CSV's figures.
struct SweepColumns
{
    std::vector<py::array_t<int64_t>> fields;
    py::array_t<double> time, tokens, flops, bytes, intensity, memory;
    py::array_t<int8_t> bound; ///< index into kBounds; -1 for a point with an error
    py::array_t<bool> fits;

    explicit SweepColumns(std::size_t n, std::size_t axes)
        : time(n), tokens(n), flops(n), bytes(n), intensity(n), memory(n), bound(n), fits(n)
    {
        for (std::size_t i = 0; i < axes; ++i)
            fields.emplace_back(n);
    }
};

py::object sweepCall(const py::dict &src, const std::vector<std::pair<std::string, std::string>> &options,
                     const std::vector<std::string> &vary)
{
    return guarded([&]() -> py::object {
        const Request r = requestFrom(src, options);
        const auto lib = presetsFor(r.presetsDir);
        const ScenarioFile f = assemble(r, *lib);
        const HardwareSpec hw = effectiveHardware(f);
        std::vector<SweepAxis> axes;
        std::size_t n = 1;
        for (const std::string &v : vary) {
            axes.push_back(parseSweepAxis(v));
            for (std::size_t k = 0; k + 1 < axes.size(); ++k)
                if (axes[k].field == axes.back().field)
                    throw RequestError(axes.back().field, "'" + axes.back().field + "' is varied twice");
            n *= axes.back().values.size();
        }
        if (axes.empty())
            throw RequestError("vary", "needs at least one field to vary, e.g. vary={'batch': '1:4096'}");
        if (n > (std::size_t(1) << 22))
            throw RequestError("vary", "too many points (" + std::to_string(n) + "; the limit is 4194304)");
        SweepColumns c(n, axes.size());
        std::vector<int64_t *> fieldOut;
        for (auto &a : c.fields)
            fieldOut.push_back(a.mutable_data());
        double *time = c.time.mutable_data(), *tokens = c.tokens.mutable_data(), *flops = c.flops.mutable_data(),
               *bytes = c.bytes.mutable_data(), *intensity = c.intensity.mutable_data(),
               *memory = c.memory.mutable_data();
        int8_t *bound = c.bound.mutable_data();
        bool *fits = c.fits.mutable_data();
        std::vector<const ScenarioOption *> opts;
        for (const auto &a : axes)
            opts.push_back(findOption(a.field));
        std::map<std::size_t, std::string> errors;
        std::size_t i = 0;
        {
            py::gil_scoped_release nogil;
            sweepEach(hw, f.model, f.scenario, axes, [&](const SweepRow &row) {
                for (std::size_t k = 0; k < opts.size(); ++k)
                    fieldOut[k][i] = std::get<int64_t>(opts[k]->get(row.scenario, WhatIf{}));
                time[i] = row.totals.timeS;
                tokens[i] = row.totals.tokensPerS;
                flops[i] = row.totals.flops;
                bytes[i] = row.totals.bytes;
                intensity[i] = row.totals.intensity;
                memory[i] = row.memory.total();
                bound[i] = row.error.empty() ? static_cast<int8_t>(row.totals.bound) : int8_t(-1);
                fits[i] = row.error.empty() && row.memory.fits;
                if (!row.error.empty())
                    errors.emplace(i, row.error);
                if (++i % kSignalEvery == 0)
                    checkSignals();
            });
        }
        py::dict out;
        for (std::size_t k = 0; k < axes.size(); ++k)
            out[py::str(axes[k].field)] = c.fields[k];
        out["time_s"] = c.time;
        out["tokens_per_s"] = c.tokens;
        out["flops"] = c.flops;
        out["bytes"] = c.bytes;
        out["arithmetic_intensity"] = c.intensity;
        out["bound"] = c.bound;
        out["memory_bytes"] = c.memory;
        out["fits"] = c.fits;
        py::dict err;
        for (const auto &[row, message] : errors)
            err[py::int_(row)] = message;
        out["error"] = err;
        return out;
    });
}

/// Runs `work` on its own thread without the GIL, checking for Ctrl+C every 50 ms; on one, sets `cancel`, waits
/// for the work to stop and raises KeyboardInterrupt.
template <typename T>
T cancellable(std::atomic<bool> &cancel, std::function<T()> work)
{
    auto future = std::async(std::launch::async, std::move(work));
    for (;;) {
        {
            py::gil_scoped_release nogil;
            if (future.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready)
                break;
        }
        if (PyErr_CheckSignals() != 0) {
            cancel = true;
            {
                py::gil_scoped_release nogil;
                future.wait();
            }
            throw py::error_already_set();
        }
    }
    return future.get();
}

struct SearchArgs
{
    std::vector<std::string> devices; ///< preset ids; empty: every GPU preset
    int maxDevices = 64;
    int threads = 0;
    double maxTtftS = 0, maxTpotS = 0, minTokensPerSPerUser = 0;
    std::vector<int64_t> batches;        ///< sequences per replica; empty: the search's default
    std::vector<std::string> precisions; ///< "fp16", "int4/g128:fp8", ...; empty: the default
    std::vector<std::string> kvFormats;  ///< "fp16", "fp8", ...; empty: the default
    std::vector<int> speculativeKs;      ///< empty: plain decode only
    std::vector<int64_t> prefillChunks;  ///< empty: 0 and 512
    bool disaggregate = true;
    uint64_t maxConfigs = kDefaultMaxSearchConfigurations; ///< a larger space is refused before searching
};

/// The lists of a search as `memwall search` takes them (--precisions, --kv-formats, ...).
void fillLists(SearchSpace &space, const SearchArgs &args)
{
    space.batches = args.batches;
    for (const std::string &text : args.precisions) {
        const auto p = searchPrecisionFromString(text);
        if (!p)
            throw RequestError("precisions", "'" + text + "' is not a format (fp16, fp8, int4/g128, nvfp4, ...)");
        space.precisions.push_back(*p);
    }
    for (const std::string &text : args.kvFormats) {
        const auto t = dtypeFromString(text);
        if (!t)
            throw RequestError("kv_formats", "'" + text + "' is not a format (fp16, bf16, fp8, int8, int4, ...)");
        space.kvFormats.push_back(*t);
    }
    for (int k : args.speculativeKs)
        if (k < 0 || k > 16)
            throw RequestError("speculative_ks", "must be between 0 and 16, got " + std::to_string(k));
    space.speculativeKs = args.speculativeKs;
    space.prefillChunks = args.prefillChunks;
    space.disaggregate = args.disaggregate;
    space.maxConfigurations = args.maxConfigs;
}

py::object searchCall(const py::dict &src, const std::vector<std::pair<std::string, std::string>> &options,
                      const SearchArgs &args)
{
    return guarded([&]() -> py::object {
        const Request r = requestFrom(src, options);
        const auto lib = presetsFor(r.presetsDir);
        const ScenarioFile f = assemble(r, *lib);
        SearchSpace space;
        for (const std::string &id : args.devices) {
            const HardwareSpec *hw = lib->findHardware(id);
            if (!hw)
                throw RequestError("devices", unknownPresetMessage(*lib, true, id));
            space.devices.push_back(*hw);
        }
        if (args.devices.empty())
            for (const HardwareSpec &hw : lib->hardware())
                if (hw.category == "gpu")
                    space.devices.push_back(hw);
        space.base = f.scenario;
        space.maxDevices = args.maxDevices;
        space.threads = args.threads;
        fillLists(space, args);
        space.draft = lib->draftModel(f.scenario);
        std::atomic<bool> cancel{false};
        // The search reports its progress now and then from one of its threads; throwing there stops it.
        space.progress = [&cancel](uint64_t, uint64_t) {
            if (cancel)
                throw AnalysisError("search cancelled");
        };
        SearchTargets targets{args.maxTtftS, args.maxTpotS, args.minTokensPerSPerUser};
        const json out = cancellable<json>(cancel, [&] {
            const SearchCandidates candidates = searchCandidates(f.model, space);
            const SearchFront front = selectFront(candidates, targets, f.model, space);
            return searchToJson(f.model, space, targets, candidates, front);
        });
        return toPython(out);
    });
}

py::object validateCall(const std::string &runsFile, const std::string &presetsDir)
{
    return guarded([&] {
        const auto lib = presetsFor(presetsDir);
        const std::vector<MeasuredRun> runs =
            runsFile.empty() ? builtinRuns() : runsFromJson(readJsonFile(runsFile), runsFile);
        json out;
        {
            py::gil_scoped_release nogil;
            out = toJson(validateRuns(runs, *lib));
        }
        return toPython(out);
    });
}

/// The option table for Python: key, flag, kind, accepted values, default, help.
py::list optionsTable()
{
    py::list out;
    const Scenario defaults;
    const WhatIf whatIf;
    for (const ScenarioOption &o : scenarioOptions()) {
        py::dict d;
        d["key"] = std::string(o.key);
        d["flag"] = std::string(o.flag);
        d["section"] = o.section == OptionSection::Scenario ? "scenario" : "what_if";
        static const char *kinds[] = {"integer", "real", "choice", "switch"};
        d["kind"] = kinds[static_cast<int>(o.kind)];
        d["values"] = describeValues(o);
        d["default"] = optionText(o.get(defaults, whatIf));
        d["label"] = std::string(o.label);
        d["help"] = std::string(o.help);
        out.append(d);
    }
    return out;
}

} // namespace

PYBIND11_MODULE(_memwall, m)
{
    m.doc() = "MemWall's core: see the AI memory wall (bindings; use the memwall package)";
    g_inputError = PyErr_NewException("memwall.InputError", PyExc_ValueError, nullptr);
    m.attr("InputError") = py::handle(g_inputError);
    m.def("analyze", &analyzeCall, py::arg("source"), py::arg("options"));
    m.def("sweep", &sweepCall, py::arg("source"), py::arg("options"), py::arg("vary"));
    m.def(
        "search",
        [](const py::dict &src, const std::vector<std::pair<std::string, std::string>> &options,
           const SearchArgs &args) { return searchCall(src, options, args); },
        py::arg("source"), py::arg("options"), py::arg("args"));
    py::class_<SearchArgs>(m, "SearchArgs")
        .def(py::init<>())
        .def_readwrite("devices", &SearchArgs::devices)
        .def_readwrite("max_devices", &SearchArgs::maxDevices)
        .def_readwrite("threads", &SearchArgs::threads)
        .def_readwrite("max_ttft_s", &SearchArgs::maxTtftS)
        .def_readwrite("max_tpot_s", &SearchArgs::maxTpotS)
        .def_readwrite("min_tokens_per_s_per_user", &SearchArgs::minTokensPerSPerUser)
        .def_readwrite("batches", &SearchArgs::batches)
        .def_readwrite("precisions", &SearchArgs::precisions)
        .def_readwrite("kv_formats", &SearchArgs::kvFormats)
        .def_readwrite("speculative_ks", &SearchArgs::speculativeKs)
        .def_readwrite("prefill_chunks", &SearchArgs::prefillChunks)
        .def_readwrite("disaggregate", &SearchArgs::disaggregate)
        .def_readwrite("max_configs", &SearchArgs::maxConfigs);
    m.def("validate", &validateCall, py::arg("runs_file"), py::arg("presets"));
    m.def(
        "presets",
        [](const std::string &dir) { return guarded([&] { return toPython(presetsToJson(*presetsFor(dir))); }); },
        py::arg("presets"));
    m.def(
        "read_scenario",
        [](const std::string &path, const std::string &dir) {
            return guarded([&] { return toPython(toJson(readScenarioFile(path, *presetsFor(dir)))); });
        },
        py::arg("path"), py::arg("presets"));
    // memwall: links (core/io/scenariolink.h): Scenario.from_link and Scenario.to_link.
    m.def(
        "read_link",
        [](const std::string &link, const std::string &dir) {
            return guarded([&] { return toPython(toJson(scenarioFromLink(link, *presetsFor(dir)))); });
        },
        py::arg("link"), py::arg("presets"));
    m.def(
        "scenario_link",
        [](const std::string &scenarioJson, const std::string &dir) {
            return guarded([&] {
                const json j = parseJson(scenarioJson, "<Scenario>");
                const auto lib = presetsFor(dir);
                return scenarioLink(scenarioFileFromJson(j, "<Scenario>", *lib), *lib);
            });
        },
        py::arg("scenario_json"), py::arg("presets"));
    m.def(
        "scenario_json",
        [](const py::dict &src, const std::vector<std::pair<std::string, std::string>> &options) {
            return guarded([&] {
                const Request r = requestFrom(src, options);
                return toPython(toJson(assemble(r, *presetsFor(r.presetsDir))));
            });
        },
        py::arg("source"), py::arg("options"));
    m.def(
        "load_config",
        [](const std::string &path) {
            return guarded([&] {
                const HfImport in = importHfConfigFileReport(path);
                json j = toJson(in.shape);
                const ParamCounts p = paramCount(in.shape);
                j["params"] = p.total;
                j["active_params"] = p.active;
                j["mtp_params"] = p.mtp;
                j["checkpoint_params"] = p.checkpoint;
                j["vision_params"] = p.vision;
                j["import_report"] = in.report;
                return toPython(j);
            });
        },
        py::arg("path"));
    m.def("options", &optionsTable);
    m.def("_cpp_analyze_seconds", &cppAnalyzeSeconds, py::arg("source"), py::arg("options"), py::arg("n"));
    m.def("bounds", [] {
        py::list l;
        for (Bound b : {Bound::Compute, Bound::Memory, Bound::Communication})
            l.append(std::string(toString(b)));
        return l;
    });
}
