#include "core/model/dtype.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace memwall::core {

namespace {

std::string lowerCase(std::string_view s)
{
    std::string lower(s);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower;
}

} // namespace

std::string_view toString(DType t)
{
    switch (t) {
    case DType::FP64: return "fp64";
    case DType::FP32: return "fp32";
    case DType::TF32: return "tf32";
    case DType::BF16: return "bf16";
    case DType::FP16: return "fp16";
    case DType::FP8: return "fp8";
    case DType::FP6: return "fp6";
    case DType::FP4: return "fp4";
    case DType::INT8: return "int8";
    case DType::INT4: return "int4";
    case DType::Count: break;
    }
    return "?";
}

std::string dtypeList()
{
    std::string list;
    for (DType t : kAllDTypes)
        list += (list.empty() ? "" : ", ") + std::string(toString(t));
    return list;
}

std::string weightChoiceList()
{
    std::string list;
    for (const WeightChoice &c : kWeightChoices)
        list += (list.empty() ? "" : ", ") + std::string(c.id);
    return list;
}

std::optional<DType> dtypeFromString(std::string_view s)
{
    const std::string lower = lowerCase(s);
    for (DType t : kAllDTypes)
        if (lower == toString(t))
            return t;
    if (lower == "float64" || lower == "double")
        return DType::FP64;
    if (lower == "float32" || lower == "float")
        return DType::FP32;
    if (lower == "float16" || lower == "half")
        return DType::FP16;
    if (lower == "bfloat16")
        return DType::BF16;
    if (lower == "float8" || lower == "fp8_e4m3" || lower == "e4m3")
        return DType::FP8;
    return std::nullopt;
}

std::optional<WeightFormat> weightFormatFromString(std::string_view text)
{
    const std::string lower = lowerCase(text);
    if (lower == "nvfp4")
        return WeightFormat{DType::FP4, 16, DType::FP8};
    if (lower == "mxfp4")
        return WeightFormat{DType::FP4, 32, DType::FP8};
    if (lower == "mxfp6")
        return WeightFormat{DType::FP6, 32, DType::FP8};
    WeightFormat w;
    std::size_t slash = text.find('/');
    auto type = dtypeFromString(text.substr(0, slash));
    if (!type)
        return std::nullopt;
    w.type = *type;
    while (slash != std::string_view::npos) {
        text = text.substr(slash + 1);
        slash = text.find('/');
        const std::string_view part = text.substr(0, slash);
        if (part.size() > 1 && part[0] == 'g') {
            int g = 0;
            auto [ptr, ec] = std::from_chars(part.data() + 1, part.data() + part.size(), g);
            if (ec != std::errc() || ptr != part.data() + part.size() || g <= 0)
                return std::nullopt;
            w.groupSize = g;
        } else if (auto st = dtypeFromString(part)) {
            w.scaleType = *st;
        } else {
            return std::nullopt;
        }
    }
    return w;
}

std::string toString(const WeightFormat &w)
{
    std::string s(toString(w.type));
    if (w.groupSize > 0) {
        s += "/g" + std::to_string(w.groupSize);
        if (w.scaleType != DType::FP16)
            s += "/" + std::string(toString(w.scaleType));
    }
    return s;
}

} // namespace memwall::core
