#include "cli.h"
#include "commands.h"
#include "core/util/oneline.h"

#include "core/io/presets.h"
#include "core/util/format.h"

#include <cstdio>
#include <iostream>

namespace memwall::app {

using namespace memwall::core;
using nlohmann::json;

int cmdPresets(const CommandLine &cl)
{
    const auto presets = loadPresets(cl);
    const PresetLibrary &lib = *presets;
    if (cl.json) {
        json hw = json::array(), models = json::array();
        for (const HardwareSpec &h : lib.hardware()) {
            json peaks = json::object();
            for (DType t : kAllDTypes)
                if (h.supports(t))
                    peaks[std::string(toString(t))] = h.peak(t);
            hw.push_back({{"id", h.id},
                          {"name", h.name},
                          {"vendor", h.vendor},
                          {"category", h.category},
                          {"year", h.year.value},
                          {"peak_flops", peaks},
                          {"memory_bytes", h.mainMemory().capacityBytes.value},
                          {"memory_bandwidth_bytes_per_s", h.mainMemory().bandwidthBytesPerS.value},
                          {"ridge_fp16", h.ridge(DType::FP16)},
                          {"file", h.sourceFile}});
        }
        for (const ModelPreset &m : lib.models()) {
            const ParamCounts p = paramCount(m.shape);
            json j{{"id", m.shape.id},         {"name", m.shape.name},
                   {"family", m.shape.family}, {"arch", toString(m.shape.arch)},
                   {"params", p.total},        {"active_params", p.active},
                   {"layers", m.shape.layers}, {"hidden", m.shape.hidden},
                   {"heads", m.shape.heads},   {"kv_heads", m.shape.kvHeads},
                   {"year", m.year},           {"source", m.source},
                   {"file", m.sourceFile}};
            if (m.paramsOfficial)
                j["params_official"] = m.paramsOfficial->value;
            models.push_back(j);
        }
        std::cout << json{{"hardware", hw}, {"models", models}}.dump(2) << "\n";
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
