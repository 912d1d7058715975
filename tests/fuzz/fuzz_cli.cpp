// libFuzzer target: the command line (app/cli.cpp parseCommandLine + resolveScenario) on argv split from the input
// at newlines, then --vary parsing and the analysis of the resolved scenario.
// Contract: UsageError / InputError / AnalysisError with one-line messages, or a finite analysis.
// File options (--scenario, --model-config, a positional *.json) are redirected into a private folder holding one
// valid scenario and one config.json, so the fuzzer never reads arbitrary files of the machine.
#include "cli.h"

#include "core/analysis/analysis.h"
#include "core/analysis/sweep.h"
#include "core/io/jsonreader.h"
#include "core/io/scenariofile.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

using namespace memwall;

namespace {
const core::PresetLibrary &library()
{
    static const core::PresetLibrary lib = [] {
        core::PresetLibrary l;
        l.loadBuiltin();
        return l;
    }();
    return lib;
}

/// A private folder with "s.memwall.json" and "config.json"; created once per process.
const std::string &sandbox()
{
    static const std::string dir = [] {
        namespace fs = std::filesystem;
        const fs::path d = fs::temp_directory_path() / ("memwall-fuzz-cli-" + std::to_string(::getpid()));
        fs::create_directories(d);
        std::ofstream(d / "s.memwall.json")
            << R"({"kind":"scenario","schema":1,"hardware":"a100-80gb-sxm","model":"llama-2-7b",)"
               R"("scenario":{"phase":"decode","batch":8,"context":4096}})";
        fs::copy_file(MEMWALL_SOURCE_DIR "/tests/data/configs/Mistral-7B-v0.1.json", d / "config.json",
                      fs::copy_options::overwrite_existing);
        // Removed at exit; the path is copied to a never-destroyed string (statics may be gone by then).
        static const auto *const path = new std::string(d.string());
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(*path, ec);
        });
        return d.string();
    }();
    return dir;
}

void confine(std::optional<std::string> &path)
{
    if (!path)
        return;
    const auto slash = path->find_last_of('/');
    *path = sandbox() + "/" + (slash == std::string::npos ? *path : path->substr(slash + 1));
}

void checkOneLine(const char *what)
{
    if (std::string_view(what).find('\n') != std::string_view::npos)
        std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    std::vector<std::string> args;
    for (std::size_t start = 0; start <= text.size();) {
        const auto nl = text.find('\n', start);
        args.emplace_back(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
        if (nl == std::string_view::npos)
            break;
        start = nl + 1;
    }
    if (args.size() > 64)
        return 0;
    try {
        app::CommandLine cl =
            app::parseCommandLine("sweep", args, {{"--vary", "SPEC", ""}, {"--max-tpot", "MS", ""}}, true);
        confine(cl.scenarioFile);
        confine(cl.modelConfig);
        cl.saveScenario.reset(); // never write
        cl.presetsDir.reset();   // loadPresets() is not exercised: it reads the user's folders
        std::vector<core::SweepAxis> axes;
        for (auto [it, end] = cl.extra.equal_range("--vary"); it != end; ++it)
            axes.push_back(core::parseSweepAxis(it->second));
        const core::ScenarioFile f = app::resolveScenario(cl, library());
        const core::Analysis a = core::analyze(core::effectiveHardware(f), f.model, f.scenario);
        if (!std::isfinite(a.totals.timeS) || !(a.totals.timeS > 0) || !std::isfinite(a.memory.total()))
            std::abort();
    } catch (const app::UsageError &e) {
        checkOneLine(e.what());
    } catch (const core::InputError &e) {
        checkOneLine(e.what());
    } catch (const core::AnalysisError &e) {
        checkOneLine(e.what());
    }
    return 0;
}
