#pragma once

#include "core/model/dtype.h"

#include <QString>

#include <array>

namespace memwall::ui {

/// The number formats the precision pickers offer (the controls panel for A, the compare panel for B): the command
/// line's lists (core::kWeightChoices, core::kScenarioDTypes), so that the window and --help offer the same choices
/// and both sides name them the same way.
namespace precision {

// The lists themselves are the core's (core/model/dtype.h), the ones the command line offers.
using core::kWeightChoices;
inline constexpr const auto &kActivationTypes = core::kScenarioDTypes;
inline constexpr const auto &kKvTypes = core::kScenarioDTypes;

/// Index into kWeightChoices of the choice with the same element type and group size; -1 if none.
int weightChoiceIndex(const core::WeightFormat &w);
/// "fp16", "int4", "int4-g128" (a group size not in the list still shows: "int4-g64"): short enough for a legend.
QString weightLabel(const core::WeightFormat &w);
/// "fp16", "int4".
QString dtypeLabel(core::DType t);

} // namespace precision
} // namespace memwall::ui
