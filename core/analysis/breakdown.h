#pragma once

#include "core/analysis/analysis.h"

#include <array>
#include <string_view>

namespace memwall::core {

/// Operator classes of the "FLOPs are not runtime" lesson (Ivanov et al., "Data Movement Is All You Need", MLSys
/// 2021: in BERT training tensor contractions are 99.8 % of the FLOPs but 61 % of the runtime; statistical
/// normalisations 0.17 % and 25.5 %; element-wise operators 0.03 % and 13.5 %).
enum class ShareClass {
    TensorContraction, ///< OpClass::Matmul + OpClass::Attention (score and context batched matmuls)
    Normalization,     ///< LayerNorm/RMSNorm and softmax
    Elementwise,       ///< residual adds, activations, rotary, embedding gather, KV writes, optimizer step
    Communication      ///< all-reduces and transfers between devices (Analysis::comm; 0 FLOPs)
};
inline constexpr std::size_t kShareClassCount = 4;
std::string_view toString(ShareClass c);
/// Human name: "Tensor contractions", "Normalization", "Element-wise", "Communication".
std::string_view displayName(ShareClass c);
ShareClass shareClassOf(OpClass c);

/// FLOPs and time per share class and their fractions of the total. Fractions sum to 1 whenever the total is > 0
/// (else all are 0). FLOPs and times are totals over the operators' `count`, as in Analysis.
struct ClassShares
{
    std::array<double, kShareClassCount> flops{};
    std::array<double, kShareClassCount> timeS{};
    std::array<double, kShareClassCount> flopShare{}; ///< 0..1
    std::array<double, kShareClassCount> timeShare{}; ///< 0..1
    double totalFlops = 0;
    double totalTimeS = 0;

    double flopShareOf(ShareClass c) const { return flopShare[static_cast<std::size_t>(c)]; }
    double timeShareOf(ShareClass c) const { return timeShare[static_cast<std::size_t>(c)]; }
};

/// Sums the analysis' operators by share class; communication time comes from Analysis::comm.
ClassShares classShares(const Analysis &a);

} // namespace memwall::core
