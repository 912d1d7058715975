// libFuzzer target: parseJson + importHfConfig (a Hugging Face config.json dropped on the window), read as the
// window reads it: with Python's bare Infinity, -Infinity and NaN taken as null.
// Contract: InputError (one line) or a ModelShape that validates; nothing else escapes.
#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"
#include "core/model/modelshape.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace memwall::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    try {
        const nlohmann::json j = parseJson(text, "config.json", /*pythonFloats=*/true); // as importHfConfigFile()
        const ModelShape m = importHfConfig(j, "config.json");
        if (!validate(m).empty())
            std::abort(); // the importer must only return shapes that validate
        (void)paramCount(m);
    } catch (const InputError &e) {
        if (std::string_view(e.what()).find('\n') != std::string_view::npos)
            std::abort();
    }
    return 0;
}
