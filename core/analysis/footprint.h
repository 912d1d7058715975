#pragma once

#include "core/analysis/scenario.h"
#include "core/model/modelshape.h"

namespace memwall::core {

/// Bytes per weight as the analysis counts them (Analysis::bytesPerWeight and the two beside it): the weight format's
/// with its scales, a zero point per group in the weight format (weight_zero_points: bits(type) / 8 / group more
/// bytes, as GPTQ and AWQ store them), less structured sparsity's removed weights, plus unstructured sparsity's
/// 1-bit mask; the routed experts' (expert_weights) and the token embedding's and LM head's (unquantized_embeddings:
/// 16 bits).
struct WeightBytes
{
    double weights = 2, experts = 2, embeddings = 2;
};
WeightBytes bytesPerWeight(const ModelShape &m, const Scenario &s);

/// The weights one device holds (MemoryFootprint::weights): the non-expert ones split by tp and pp, the routed experts
/// by tp, pp and ep, each at its own bytes per weight; ZeRO-3 training splits them over the replicas too. The one
/// count the analysis' footprint and the search's fit check both use.
double weightsPerDevice(const ModelShape &m, const ParamCounts &params, const Scenario &s);

} // namespace memwall::core
