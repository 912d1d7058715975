#pragma once

#include "core/analysis/analysis.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

/// How one figure of an analysis came about, with the scenario's numbers substituted ("Show the formula" in the
/// window, `memwall analyze --explain FIELD`). Built from the quantities analyze() recorded (Operator::flopTerms, the
/// roofs and bandwidths each operator ran against, KvCache::cachedTokens ...) and the model's own counting functions
/// (cachedElements(), layerGroups()), never from a second copy of a formula: tests/core/tst_derivation.cpp checks that
/// `value` equals the analysis's figure for every field of many scenarios.
struct Derivation
{
    std::string field; ///< the canonical field name: "kv_cache.total_bytes", "op:ffn.up:flops"
    std::string title; ///< what the figure is: "KV cache of all sequences (one replica, whole model)"
    /// The derivation, one step a line: the formula in words and symbols, then the same with the numbers, then the
    /// result with its unit ("KV bytes = 2 × 80 layers × 8 KV heads × 128 × 2 B × 2048 tokens × 1 sequence",
    /// "= 671,088,640 B (671 MB)").
    std::vector<std::string> lines;
    double value =
        0; ///< the result in SI base units (B, s, FLOP, FLOP/B, tokens/s); bound: 1 compute, 0 memory, 2 communication
    std::string valueText; ///< the result as the last line states it: "671 MB", "memory"

    /// The title, then the lines, each on its own line (no newline at the end).
    std::string text() const;
};

/// A field derive() does not know: what() is one line naming it and listing the valid ones.
struct DerivationError : std::invalid_argument
{
    using std::invalid_argument::invalid_argument;
};

/// The fields derive() answers for `a`: the whole-step figures under their `memwall analyze --json` names
/// ("totals.time_s", "kv_cache.total_bytes", ...), then every operator's "op:NAME:flops|bytes|intensity|time|bound".
/// An operator that runs in both phases of a generate analysis is "op:NAME@prefill:..." and "op:NAME@decode:...".
std::vector<std::string> derivationFields(const Analysis &a);

/// The short names accepted for whole-step fields, each with the field it stands for: {"time", "totals.time_s"},
/// {"kv", "kv_cache.total_bytes"}, ...
const std::vector<std::pair<std::string_view, std::string_view>> &derivationAliases();

/// The key naming operator `index` of `a` in "op:KEY:FIELD": its name, with "@prefill"/"@decode" when the name occurs
/// in both phases.
std::string operatorKey(const Analysis &a, std::size_t index);

/// The derivation of `field` (a name of derivationFields() or an alias) of analysis `a` of `model` on `hw` (the device
/// with its what-if factors, as analysed) under `s`. `a` must be a full analyze() (with operators). Throws
/// DerivationError for an unknown field.
Derivation derive(const HardwareSpec &hw, const ModelShape &model, const Scenario &s, const Analysis &a,
                  std::string_view field);

} // namespace memwall::core
