// The parts of a layer that DeciLM / Nemotron-NAS replaced by one linear layer (block_configs' replace_with_linear):
// the attention (self_attn.linear_attn) or the FFN (mlp.linear_mlp), each a hidden x hidden matrix without a bias
// after the part's own RMSNorm, then the residual add (NVIDIA's modeling_decilm.py, DeciLMDecoderLayer).
#include "core/analysis/passcontext.h"

namespace memwall::core::detail {

namespace {
struct ReplacedNames
{
    std::string_view norm, linear, residual;
};
constexpr ReplacedNames kLinearAttention{"attn.linear_norm", "attn.linear", "attn.linear_residual"};
constexpr ReplacedNames kLinearFfn{"ffn.linear_norm", "ffn.linear", "ffn.linear_residual"};

/// `lc` executions of one replaced part: its norm, the linear layer (tensor parallelism splits its inputs, as it
/// does o_proj's and down_proj's, and an all-reduce joins the partial sums: communication.cpp) and the residual.
void emitReplaced(Ctx &c, const Pass &p, double lc, const ReplacedNames &names)
{
    const double N = p.Bm * p.T;
    emitNorm(c, names.norm, p.phase, lc, N, FlopName::Tokens, p.train);
    emitLinear(c, names.linear, p.phase, lc, N, c.h / c.s.tp, c.h, false, p.train);
    emitResidual(c, names.residual, p.phase, lc, N, p.train);
}
} // namespace

void emitReplacedParts(Ctx &c, const Pass &p)
{
    const double lc = p.layerCount, L = static_cast<double>(c.m.layers);
    if (c.linearMixerLayers > 0)
        emitReplaced(c, p, lc * c.linearMixerLayers / L, kLinearAttention);
    if (c.linearFfnLayers > 0)
        emitReplaced(c, p, lc * c.linearFfnLayers / L, kLinearFfn);
}

} // namespace memwall::core::detail
