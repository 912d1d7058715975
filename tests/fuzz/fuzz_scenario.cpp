// libFuzzer target: scenarioFileFromJson against the built-in preset library, then the analysis of what it reads.
// Contract: InputError / AnalysisError with one-line messages, or a scenario whose analysis is finite.
#include "core/analysis/analysis.h"
#include "core/io/jsonreader.h"
#include "core/io/scenariofile.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace memwall::core;

namespace {
const PresetLibrary &library()
{
    static const PresetLibrary lib = [] {
        PresetLibrary l;
        l.loadBuiltin();
        return l;
    }();
    return lib;
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
    try {
        const nlohmann::json j = parseJson(text, "s.memwall.json");
        const ScenarioFile f = scenarioFileFromJson(j, "s.memwall.json", library());
        const HardwareSpec hw = effectiveHardware(f);
        if (!validate(f.scenario).empty())
            return 0;
        const Analysis a = analyze(hw, f.model, f.scenario);
        if (!std::isfinite(a.totals.timeS) || !std::isfinite(a.totals.flops) || !std::isfinite(a.memory.total()))
            std::abort();
        // The saved form must read back to the same scenario.
        const ScenarioFile back = scenarioFileFromJson(toJson(f), "roundtrip", library());
        if (!(back.scenario == f.scenario))
            std::abort();
    } catch (const InputError &e) {
        checkOneLine(e.what());
    } catch (const AnalysisError &e) {
        checkOneLine(e.what());
    }
    return 0;
}
