#pragma once

#include "analysis/analysis.h"

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

/// `value` with an SI prefix and `significant` digits: formatSi(1.38e11, "B") == "138 GB",
/// formatSi(9.89e14, "FLOP/s") == "989 TFLOP/s", formatSi(0.0412, "s") == "41.2 ms", formatSi(8e10, "B") == "80 GB"
/// (trailing zeros dropped). Zero is "0 unit".
std::string formatSi(double value, std::string_view unit, int significant = 3);

/// An intensity or ratio for prose: one decimal below 10 ("1.0", "8.0"), whole numbers above ("295", "1800").
std::string formatRatio(double value);

/// A percentage with no decimals above 10 % and one below ("61 %", "0.4 %").
std::string formatPercent(double fraction);

} // namespace memwall::core
