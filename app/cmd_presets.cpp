#include "cli.h"
#include "commands.h"
#include "core/util/oneline.h"

#include "core/io/outputs.h"
#include "core/io/presets.h"
#include "core/util/format.h"

#include <cstdio>
#include <iostream>

namespace memwall::app {

using namespace memwall::core;

int cmdPresets(const CommandLine &cl)
{
    const auto presets = loadPresets(cl);
    const PresetLibrary &lib = *presets;
    if (cl.json) {
        std::cout << presetsToJson(lib).dump(2) << "\n";
        return 0;
    }
    std::printf("Hardware (%zu)\n", lib.hardware().size());
    for (const HardwareSpec &h : lib.hardware())
        std::printf("  %-18s %-38s %4.0f  %12s fp16  %8s  %10s\n", oneLine(h.id).c_str(), oneLine(h.name).c_str(),
                    h.year.value, formatSi(h.peak(h.computeType(DType::FP16)), "FLOP/s").c_str(),
                    formatBytes(h.mainMemory().capacityBytes.value).c_str(),
                    formatSi(h.mainMemory().bandwidthBytesPerS.value, "B/s").c_str());
    std::printf("\nModels (%zu)\n", lib.models().size());
    for (const ModelPreset &m : lib.models())
        std::printf("  %-22s %-30s %10s params  %3lld layers  %s\n", oneLine(m.shape.id).c_str(),
                    oneLine(m.shape.name).c_str(),
                    formatSiNumber(static_cast<double>(paramCount(m.shape).total)).c_str(),
                    static_cast<long long>(m.shape.layers), std::string(toString(m.shape.arch)).c_str());
    return 0;
}

} // namespace memwall::app
