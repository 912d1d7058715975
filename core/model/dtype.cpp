#include "model/dtype.h"

#include <algorithm>
#include <string>

namespace memwall::core {

std::string_view toString(DType t)
{
    switch (t) {
    case DType::FP64: return "fp64";
    case DType::FP32: return "fp32";
    case DType::TF32: return "tf32";
    case DType::BF16: return "bf16";
    case DType::FP16: return "fp16";
    case DType::FP8: return "fp8";
    case DType::INT8: return "int8";
    case DType::INT4: return "int4";
    case DType::Count: break;
    }
    return "?";
}

std::optional<DType> dtypeFromString(std::string_view s)
{
    std::string lower(s);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
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

} // namespace memwall::core
