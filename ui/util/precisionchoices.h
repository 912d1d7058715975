#pragma once

#include "core/model/dtype.h"

#include <QString>

#include <array>

namespace memwall::ui {

/// The number formats the precision pickers offer (the controls panel for A, the compare panel for B). One list, so
/// both sides offer the same choices and name them the same way.
namespace precision {

struct WeightChoice
{
    const char *label; ///< "int4 (g128 fp16 scales)"
    core::WeightFormat format;
};

// int4-g128 is GPTQ/AWQ-style INT4 with one FP16 scale per 128 weights (4.125 bits). The block formats carry their
// scales the same way (core::weightFormatFromString): MXFP6/MXFP4 one 8-bit scale per 32 elements (6.25/4.25 bits),
// NVFP4 one FP8 scale per 16 (4.5 bits).
inline constexpr std::array<WeightChoice, 10> kWeightChoices{
    {{"fp32", {core::DType::FP32, 0, core::DType::FP16}},
     {"bf16", {core::DType::BF16, 0, core::DType::FP16}},
     {"fp16", {core::DType::FP16, 0, core::DType::FP16}},
     {"fp8", {core::DType::FP8, 0, core::DType::FP16}},
     {"mxfp6 (fp6, g32 8-bit scales)", {core::DType::FP6, 32, core::DType::FP8}},
     {"nvfp4 (fp4, g16 fp8 scales)", {core::DType::FP4, 16, core::DType::FP8}},
     {"mxfp4 (fp4, g32 8-bit scales)", {core::DType::FP4, 32, core::DType::FP8}},
     {"int8", {core::DType::INT8, 0, core::DType::FP16}},
     {"int4", {core::DType::INT4, 0, core::DType::FP16}},
     {"int4 (g128 fp16 scales)", {core::DType::INT4, 128, core::DType::FP16}}}};
inline constexpr std::array<core::DType, 7> kActivationTypes{core::DType::FP32, core::DType::BF16, core::DType::FP16,
                                                             core::DType::FP8,  core::DType::FP6,  core::DType::FP4,
                                                             core::DType::INT8};
inline constexpr std::array<core::DType, 7> kKvTypes{core::DType::FP32, core::DType::BF16, core::DType::FP16,
                                                     core::DType::FP8,  core::DType::FP4,  core::DType::INT8,
                                                     core::DType::INT4};

/// Index into kWeightChoices of the choice with the same element type and group size; -1 if none.
int weightChoiceIndex(const core::WeightFormat &w);
/// "fp16", "int4", "int4-g128" (a group size not in the list still shows: "int4-g64"): short enough for a legend.
QString weightLabel(const core::WeightFormat &w);
/// "fp16", "int4".
QString dtypeLabel(core::DType t);

} // namespace precision
} // namespace memwall::ui
