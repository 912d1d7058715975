// The linear-attention mixer (Gated DeltaNet: Qwen3-Next, Qwen3.5; Kimi Delta Attention: Kimi-Linear) of the
// linear-attention layers, with its norm and residual. The operators follow transformers'
// Qwen3NextGatedDeltaNet.forward: in_proj, the causal convolution over q, k and v, the decay and beta gates (with q and
// k L2-normed in the kernel), the gated delta rule (recurrent in a decode step, chunked over a prompt), the gated
// RMSNorm and out_proj. Kimi Delta Attention (KimiDeltaAttention.forward of Kimi-Linear's modeling_kimi.py) differs in
// its gates: the decay is per key channel from a low-rank path (f_a_proj, which in_proj holds, then linear.f_b_proj),
// and the output gate too (g_a_proj in in_proj, then linear.g_b_proj), through a sigmoid. Like a state-space layer it
// keeps a fixed state per sequence instead of a per-token cache.
#include "core/analysis/passcontext.h"

#include <cmath>

namespace memwall::core::detail {

namespace {

/// A linear-attention layer's widths on one of `tp` tensor-parallel devices: tp splits the key and value heads (vLLM
/// and SGLang shard Gated DeltaNet by heads, as attention).
struct LinearWidths
{
    double keyHeads = 0, valueHeads = 0, dk = 0, dv = 0;
    double key = 0, value = 0; ///< q (and k) width, v (and z) width
    double conv = 0;           ///< convolved channels: q, k and v
    double inProj = 0;         ///< in_proj's outputs: q, k, v, z, b and a (Kimi Delta: q, k, v, b, f_a and g_a)
    double rank = 0;  ///< Kimi Delta Attention's gate rank (f_a and g_a outputs, replicated); 0: Gated DeltaNet
    double decay = 0; ///< decay values a token: one per value head, or (Kimi Delta) one per channel
};
LinearWidths linearWidths(const ModelShape &m, int tp)
{
    const LinearAttentionShape &x = m.linear;
    LinearWidths w;
    w.keyHeads = static_cast<double>(x.keyHeads / tp);
    w.valueHeads = static_cast<double>(x.valueHeads / tp);
    w.dk = static_cast<double>(x.keyHeadDim);
    w.dv = static_cast<double>(x.valueHeadDim);
    w.key = w.keyHeads * w.dk;
    w.value = w.valueHeads * w.dv;
    w.conv = 2 * w.key + w.value;
    w.inProj = 2 * w.key + 2 * w.value + 2 * w.valueHeads;
    w.decay = w.valueHeads;
    if (x.kimiDelta()) { // vLLM replicates f_a_proj and g_a_proj and splits f_b_proj and g_b_proj by heads
        w.rank = static_cast<double>(x.gateRank);
        w.inProj = 2 * w.key + w.value + w.valueHeads + 2 * w.rank;
        w.decay = w.value;
    }
    return w;
}

/// The gated delta rule per value head and token, recurrently (a decode step; transformers'
/// torch_recurrent_gated_delta_rule): decay the d_k x d_v state (1 FLOP an element), read it with k (2), form the
/// delta (v - read) x beta (2 per d_v), add k x delta to the state (2 an element), read it with q (2):
/// 7 d_k d_v + 2 d_v.
double recurrentFlops(double dk, double dv) { return 7 * dk * dv + 2 * dv; }

/// The same over a prompt in chunks of C tokens (torch_chunk_gated_delta_rule, the reference of flash-linear-
/// attention's chunk kernel), per chunk and head in multiply-accumulates: K_beta K^T and the decay-masked q K^T
/// (C^2 d_k each), the triangular solve of the WY factors (the row loop, C^3 / 3), those factors times v_beta and
/// k_beta (C^2 d_v + C^2 d_k), the intra-chunk output (C^2 d_v), and the state read by the chunk's keys and queries and
/// updated (3 C d_k d_v). Per token, at 2 FLOPs a multiply-accumulate: 2 (C (3 d_k + 2 d_v) + C^2 / 3 + 3 d_k d_v).
double chunkedFlops(double C, double dk, double dv) { return 2 * (C * (3 * dk + 2 * dv) + C * C / 3 + 3 * dk * dv); }

/// The causal depthwise convolution of width conv_kernel over q, k and v, without a bias, and its SiLU (4):
/// (2 conv_kernel + 4) FLOPs a channel. Its last conv_kernel - 1 inputs are state: read and written every decode step.
void emitConv(Ctx &c, const Pass &p, double lc, const LinearWidths &w, double stateRw)
{
    const double N = p.Bm * p.T, act = c.act;
    const double K = static_cast<double>(c.m.linear.convKernel);
    emitOp(
        c, "linear.conv", OpClass::Elementwise, p.phase, lc,
        perElement(2 * K + 4, FlopName::PerChannelConvNoBias, N, FlopName::Tokens, w.conv, FlopName::ConvolvedChannels),
        w.conv * K * act, 2 * N * w.conv * act, stateRw * p.Bm * (K - 1) * w.conv * c.kvb, p.train);
}

/// The gates: q and k L2-normed (3 FLOPs an element), and per value head the decay g = -exp(A_log) x
/// softplus(a + dt_bias) and beta = sigmoid(b) (11 FLOPs). It reads A_log and dt_bias. Kimi Delta Attention
/// (flash-linear-attention's fused_kda_gate) forms the decay per channel, -exp(A_log) x softplus(f + dt_bias) (7 FLOPs
/// an element of the value width), and beta = sigmoid(b) per value head (4); it reads A_log (per head) and dt_bias (per
/// channel).
void emitGates(Ctx &c, const Pass &p, double lc, const LinearWidths &w)
{
    const double N = p.Bm * p.T, act = c.act;
    const FlopTerms l2 =
        perElement(3, FlopName::PerElementL2Norm, N, FlopName::Tokens, 2 * w.key, FlopName::QAndKWidths);
    if (w.rank > 0) {
        emitOp(c, "linear.gates", OpClass::Elementwise, p.phase, lc,
               plus(l2, 7 * N * w.value + 4 * N * w.valueHeads, FlopName::ChannelDecayAndBetaGates),
               (w.valueHeads + w.value) * act, 2 * N * (2 * w.key + w.value + w.valueHeads) * act, 0, p.train);
        return;
    }
    emitOp(c, "linear.gates", OpClass::Elementwise, p.phase, lc,
           plus(l2, 11 * N * w.valueHeads, FlopName::DecayAndBetaGates), 2 * w.valueHeads * act,
           2 * N * (2 * w.key + 2 * w.valueHeads) * act, 0, p.train);
}

/// The gated delta rule: recurrent in a decode step (elementwise), chunked over a prompt (its products run on the
/// matrix units, as Mamba-2's chunked scan; the reference pads the prompt to whole chunks). It reads q, k, v, g and
/// beta, writes its output, and writes each value head's d_k x d_v state once (read and written in a decode step).
/// Kimi Delta Attention runs the same products with the decay per key channel (its g is value-width, one per
/// channel): the recurrent step still decays each state element once, and the chunk kernel's extra scaling of q and k
/// by the cumulative decay (a few FLOPs per key channel, token and head: under 1 % of the chunk's) is not counted.
void emitDeltaRule(Ctx &c, const Pass &p, double lc, const LinearWidths &w, double stateRw)
{
    const double N = p.Bm * p.T, act = c.act;
    const double C = static_cast<double>(c.m.linear.chunkSize);
    FlopTerms flops = perElement(recurrentFlops(w.dk, w.dv), FlopName::PerHeadRecurrentUpdate, N, FlopName::Tokens,
                                 w.valueHeads, FlopName::ValueHeads);
    OpClass cls = OpClass::Elementwise;
    if (!p.decodeStep) {
        const double padded = p.Bm * std::ceil(p.T / C) * C;
        flops = perElement(chunkedFlops(C, w.dk, w.dv), FlopName::PerHeadChunkedScan, padded,
                           FlopName::TokensPaddedToChunks, w.valueHeads, FlopName::ValueHeads);
        cls = OpClass::Attention;
    }
    emitOp(c, "linear.scan", cls, p.phase, lc, flops, 0, N * (2 * w.key + 2 * w.value + w.decay + w.valueHeads) * act,
           stateRw * p.Bm * w.valueHeads * w.dk * w.dv * c.stateb, p.train);
}

} // namespace

void emitLinearAttentionMixer(Ctx &c, const Pass &p, double lc)
{
    const double N = p.Bm * p.T, act = c.act;
    const LinearWidths w = linearWidths(c.m, c.s.tp);
    // State traffic: a decode step reads and writes each sequence's state; a pass over a prompt writes it once.
    const double stateRw = p.decodeStep ? 2.0 : 1.0;
    emitNorm(c, "linear.norm", p.phase, lc, N, FlopName::Tokens, p.train);
    emitLinear(c, "linear.in_proj", p.phase, lc, N, c.h, w.inProj, false, p.train);
    emitConv(c, p, lc, w, stateRw);
    if (w.rank > 0) // Kimi Delta Attention's low-rank gates: the decay's f_b_proj here, the output gate's g_b_proj
        emitLinear(c, "linear.f_b_proj", p.phase, lc, N, w.rank, w.value, false, p.train);
    emitGates(c, p, lc, w);
    emitDeltaRule(c, p, lc, w, stateRw);
    if (w.rank > 0)
        emitLinear(c, "linear.g_b_proj", p.phase, lc, N, w.rank, w.value, false, p.train);
    // The gated RMSNorm per value head (Qwen3NextRMSNormGated): the norm (4) with its d_v weights, times SiLU(z) (5);
    // Kimi Delta Attention's o_norm (FusedRMSNormGated with a sigmoid) times sigmoid(g) (5).
    emitOp(c, "linear.gate_norm", OpClass::Normalization, p.phase, lc,
           perElement(kRmsNormFlops + 5, FlopName::PerElementGatedNorm, N, FlopName::Tokens, w.value,
                      FlopName::ValueWidth),
           w.dv * act, 3 * N * w.value * act, 0, p.train);
    emitLinear(c, "linear.out_proj", p.phase, lc, N, w.value, c.h, false, p.train);
    emitResidual(c, "linear.residual", p.phase, lc, N, p.train);
}

} // namespace memwall::core::detail
