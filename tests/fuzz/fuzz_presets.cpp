// libFuzzer target: PresetLibrary::loadText on arbitrary bytes (hardware and model preset files).
// Contract: never crashes, never throws; a broken file returns false and leaves exactly one issue naming the origin.
#include "core/io/presets.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace memwall::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    PresetLibrary lib;
    const bool ok = lib.loadText(text, "fuzz.json");
    if (ok != lib.issues().empty() || lib.issues().size() > 1)
        std::abort();
    if (!ok && (lib.issues().front().message.rfind("fuzz.json", 0) != 0 ||
                lib.issues().front().message.find('\n') != std::string::npos))
        std::abort(); // messages are one line starting with the file name
    if (ok) {
        // Whatever loads must round-trip through its JSON form.
        for (const auto &hw : lib.hardware())
            (void)hardwareFromJson(toJson(hw), "roundtrip");
        for (const auto &m : lib.models())
            (void)paramCount(m.shape);
    }
    return 0;
}
