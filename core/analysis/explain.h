#pragma once

#include "core/analysis/analysis.h"
#include "core/util/format.h" // the numbers in the sentence

#include <string>
#include <string_view>

namespace memwall::core {

/// One plain-language sentence saying what limits the analysed run and why, with every number taken from the
/// analysis (nothing typed in). Cases, in order of precedence:
/// - does not fit: the per-device footprint against the main-memory capacity, and what dominates it;
/// - communication-bound: the share of the step spent moving data between devices over the link;
/// - memory-bound: the intensity against the ridge point, and the weight/KV bytes each step reads;
/// - compute-bound: the intensity beyond the ridge, and the compute roof that then sets the speed.
/// Example: "At batch 1, decode reaches 1.0 FLOP/byte, far left of the NVIDIA H100 SXM5 80GB's ridge at 295: each
/// token reads all 138 GB of weights, so memory bandwidth sets the speed."
std::string explain(const HardwareSpec &hw, const ModelShape &model, const Scenario &s, const Analysis &a);

} // namespace memwall::core
