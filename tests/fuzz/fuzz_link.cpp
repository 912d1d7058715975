// libFuzzer target: scenarioFromLink (a memwall: link, issue #41) against the built-in preset library.
// Contract: an InputError with a one-line message, or a scenario whose own link reads back to the same scenario.
#include "core/io/analysisjson.h"
#include "core/io/jsonreader.h"
#include "core/io/scenariolink.h"

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
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    try {
        const ScenarioFile f = scenarioFromLink(text, library());
        const ScenarioFile back = scenarioFromLink(scenarioLink(f, library()), library());
        if (toJson(back) != toJson(f))
            std::abort();
    } catch (const InputError &e) {
        if (std::string_view(e.what()).find('\n') != std::string_view::npos)
            std::abort();
    }
    return 0;
}
