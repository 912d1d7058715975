#include "core/trends/refit.h"

#include "core/io/presets.h"
#include "core/trends/ridge.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

namespace memwall::core {

namespace {

constexpr std::string_view kFlopsSeries = "hw_peak_flops";
constexpr std::string_view kDramSeries = "dram_bandwidth";

bool startsWithHbm(const std::string &name)
{
    constexpr std::string_view hbm = "hbm";
    return name.size() >= hbm.size() && std::equal(hbm.begin(), hbm.end(), name.begin(), [](char a, char b) {
               return a == std::tolower(static_cast<unsigned char>(b));
           });
}

/// A per-chip data-center accelerator with HBM main memory (see devicesAfterPaper()).
bool hbmAccelerator(const HardwareSpec &hw)
{
    if (hw.category != "gpu" && hw.category != "asic")
        return false;
    if (hw.memory.empty())
        return false;
    const MemoryLevel &main = hw.mainMemory();
    return main.kind == MemoryKind::Dram && startsWithHbm(main.name);
}

} // namespace

const std::vector<HardwareSpec> &builtinRefitDevices()
{
    static const PresetLibrary lib = [] {
        PresetLibrary l;
        l.loadBuiltin();
        return l;
    }();
    return lib.hardware();
}

std::vector<AddedDevice> devicesAfterPaper(const TrendSeries &series, const std::vector<HardwareSpec> &devices)
{
    const bool flops = series.id == kFlopsSeries;
    if (!flops && series.id != kDramSeries)
        return {};
    double last = -1;
    for (const TrendPoint &p : series.points)
        if (p.inFit)
            last = std::max(last, p.year);
    if (last < 0)
        return {};
    std::vector<AddedDevice> out;
    for (const HardwareSpec &hw : devices) {
        if (!(hw.year.value > 0) || std::floor(hw.year.value) <= std::floor(last) || !hbmAccelerator(hw))
            continue;
        AddedDevice d;
        d.id = hw.id;
        d.point.name = hw.name.empty() ? hw.id : hw.name;
        d.point.year = markerYear(hw.year.value);
        if (flops) {
            const std::optional<DType> format = ridgeFormat(hw);
            if (!format || (*format != DType::FP16 && *format != DType::BF16))
                continue;
            d.format = format;
            d.point.value = hw.peak(*format);
        } else {
            d.memory = hw.mainMemory().name;
            d.point.value = hw.mainMemory().bandwidthBytesPerS.value;
        }
        if (!(d.point.value > 0) || !std::isfinite(d.point.value))
            continue;
        out.push_back(std::move(d));
    }
    std::stable_sort(out.begin(), out.end(), [](const AddedDevice &a, const AddedDevice &b) {
        return a.point.year != b.point.year ? a.point.year < b.point.year : a.id < b.id;
    });
    return out;
}

nlohmann::json toJson(const AddedDevice &d)
{
    nlohmann::json j{{"id", d.id}, {"name", d.point.name}, {"year", d.point.year}, {"value", d.point.value}};
    if (d.format)
        j["format"] = std::string(toString(*d.format));
    if (!d.memory.empty())
        j["memory"] = d.memory;
    return j;
}

nlohmann::json toJsonWithRefits(const TrendData &data, const std::vector<HardwareSpec> &devices)
{
    nlohmann::json j = toJson(data);
    for (nlohmann::json &s : j["series"]) {
        const TrendSeries *series = data.find(s["id"].get<std::string>());
        const std::vector<AddedDevice> added =
            series ? devicesAfterPaper(*series, devices) : std::vector<AddedDevice>{};
        if (added.empty())
            continue;
        nlohmann::json &points = s["added_points"] = nlohmann::json::array();
        for (const AddedDevice &d : added)
            points.push_back(toJson(d));
        s["refit"] = toJson(refit(*series, added));
    }
    return j;
}

GrowthFit refit(const TrendSeries &series, const std::vector<AddedDevice> &added)
{
    std::vector<TrendPoint> points = series.points;
    points.reserve(points.size() + added.size());
    for (const AddedDevice &d : added)
        points.push_back(d.point);
    return fitExponential(points);
}

} // namespace memwall::core
