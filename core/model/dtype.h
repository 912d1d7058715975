#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace memwall::core {

/// Number formats the model distinguishes. The order is stable: it indexes per-dtype arrays. Floating-point formats
/// come first, widest first, then the integer formats.
/// FP6 and FP4 are the OCP microscaling element types (MXFP6 E2M3/E3M2, MXFP4 and NVIDIA's NVFP4 E2M1): their
/// per-block scales are a weight format's group scales ("fp4/g32/fp8" = MXFP4's one 8-bit scale per 32 elements,
/// "fp4/g16/fp8" = NVFP4's one FP8 scale per 16), not part of the element type.
enum class DType { FP64, FP32, TF32, BF16, FP16, FP8, FP6, FP4, INT8, INT4, Count };

inline constexpr std::size_t kDTypeCount = static_cast<std::size_t>(DType::Count);

inline constexpr std::array<DType, kDTypeCount> kAllDTypes = {DType::FP64, DType::FP32, DType::TF32, DType::BF16,
                                                              DType::FP16, DType::FP8,  DType::FP6,  DType::FP4,
                                                              DType::INT8, DType::INT4};

/// True for the integer formats (peaks in OP/s rather than FLOP/s).
constexpr bool isInteger(DType t) { return t == DType::INT8 || t == DType::INT4; }

/// Storage bits of one element (TF32 is stored as 32-bit words).
constexpr int bits(DType t)
{
    switch (t) {
    case DType::FP64: return 64;
    case DType::FP32:
    case DType::TF32: return 32;
    case DType::BF16:
    case DType::FP16: return 16;
    case DType::FP8:
    case DType::INT8: return 8;
    case DType::FP6: return 6;
    case DType::FP4:
    case DType::INT4: return 4;
    case DType::Count: break;
    }
    return 0;
}

/// Storage bytes of one element, fractional for sub-byte formats (INT4 = FP4 = 0.5, FP6 = 0.75).
constexpr double bytesOf(DType t) { return bits(t) / 8.0; }

/// Lower-case id used in files and on the command line: "fp16", "fp4", "int4", ...
std::string_view toString(DType t);
/// Every id, comma-separated, in the order of kAllDTypes: "fp64, fp32, ..., int4" (for messages).
std::string dtypeList();
/// Parses an id ("fp16", "bf16", "int4", also "float16"/"bfloat16"/"float32"); nullopt if unknown.
std::optional<DType> dtypeFromString(std::string_view s);

constexpr std::size_t index(DType t) { return static_cast<std::size_t>(t); }

/// A weight storage format: element type plus per-group scale overhead.
/// Example: INT4 with one FP16 scale per 128 weights costs 4 + 16/128 = 4.125 bits per weight.
struct WeightFormat
{
    DType type = DType::FP16;
    int groupSize = 0;             ///< weights sharing one scale; 0 = no scales
    DType scaleType = DType::FP16; ///< format of each scale

    /// Effective bits per weight including the scale overhead.
    constexpr double bitsPerWeight() const
    {
        return bits(type) + (groupSize > 0 ? static_cast<double>(bits(scaleType)) / groupSize : 0.0);
    }
    constexpr double bytesPerWeight() const { return bitsPerWeight() / 8.0; }
    friend constexpr bool operator==(const WeightFormat &, const WeightFormat &) = default;
};

/// Parses "fp16", "int4", "int4/g128" (INT4, one FP16 scale per 128 weights), "int8/g64/bf16", and the block formats
/// by name: "nvfp4" = "fp4/g16/fp8" (NVIDIA: one E4M3 scale per 16 elements), "mxfp4" = "fp4/g32/fp8" and "mxfp6" =
/// "fp6/g32/fp8" (OCP MX v1.0: one 8-bit E8M0 scale per 32 elements, counted as an 8-bit fp8 scale).
std::optional<WeightFormat> weightFormatFromString(std::string_view text);
std::string toString(const WeightFormat &w);

/// A weight format the command line (`--weights`, `search --precisions`) and the window (the Weights boxes of A and
/// B) offer: its id, as --weights reads it, and a longer label for a menu.
struct WeightChoice
{
    std::string_view id;    ///< "int4/g128"
    std::string_view label; ///< "int4 (g128 fp16 scales)"
    WeightFormat format;
};

/// The weight formats offered, one list for the command line and the window (issue #39). int4/g128 is GPTQ/AWQ-style
/// INT4 with one FP16 scale per 128 weights (4.125 bits). The block formats carry their scales the same way
/// (weightFormatFromString): MXFP6/MXFP4 one 8-bit scale per 32 elements (6.25/4.25 bits), NVFP4 one FP8 scale per
/// 16 (4.5 bits).
inline constexpr std::array<WeightChoice, 11> kWeightChoices{{
    {"fp32", "fp32", {DType::FP32, 0, DType::FP16}},
    {"bf16", "bf16", {DType::BF16, 0, DType::FP16}},
    {"fp16", "fp16", {DType::FP16, 0, DType::FP16}},
    {"fp8", "fp8", {DType::FP8, 0, DType::FP16}},
    {"fp6/g32/fp8", "mxfp6 (fp6, g32 8-bit scales)", {DType::FP6, 32, DType::FP8}},
    {"fp4", "fp4", {DType::FP4, 0, DType::FP16}},
    {"fp4/g16/fp8", "nvfp4 (fp4, g16 fp8 scales)", {DType::FP4, 16, DType::FP8}},
    {"fp4/g32/fp8", "mxfp4 (fp4, g32 8-bit scales)", {DType::FP4, 32, DType::FP8}},
    {"int8", "int8", {DType::INT8, 0, DType::FP16}},
    {"int4", "int4", {DType::INT4, 0, DType::FP16}},
    {"int4/g128", "int4 (g128 fp16 scales)", {DType::INT4, 128, DType::FP16}},
}};

/// The number formats offered for activations and for the KV cache (`--activations`, `--kv`, the window's boxes of A
/// and B): every format but FP64.
inline constexpr std::array<DType, 9> kScenarioDTypes{DType::FP32, DType::TF32, DType::BF16, DType::FP16, DType::FP8,
                                                      DType::FP6,  DType::FP4,  DType::INT8, DType::INT4};

/// The ids of kWeightChoices, comma-separated: "fp32, bf16, ..., int4/g128" (for help texts).
std::string weightChoiceList();

} // namespace memwall::core
