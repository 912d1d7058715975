#pragma once

#include "core/analysis/analysis.h"
#include "core/util/format.h" // the numbers in the sentence

#include <cstdint>
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
/// When the scenario runs past the positions the model knows, positionNote()'s sentence follows.
std::string explain(const HardwareSpec &hw, const ModelShape &model, const Scenario &s, const Analysis &a);

/// The positions one sequence of the scenario reaches: its prompt (prefill, encode, train), its context and the new
/// token (decode), or its prompt and every generated token but the last, which is never fed back (generate).
int64_t positionsUsed(const Scenario &s);

/// One sentence when positionsUsed() is beyond the model's max_positions: a model with learned position embeddings
/// has no embedding for the rest, any other was trained on fewer tokens (its figures hold, its output may not). Empty
/// when the scenario stays within them, or when max_positions is unknown (0).
/// Example: "Note: this run reaches position 2,049, past the 1,024 positions GPT-2 (124M) learned; it has no position
/// embedding beyond them."
std::string positionNote(const ModelShape &model, const Scenario &s);

} // namespace memwall::core
