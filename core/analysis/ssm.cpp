// The state-space mixer (Mamba-1 or Mamba-2) of the state-space layers, with its norm and residual.
#include "core/analysis/passcontext.h"

namespace memwall::core::detail {

namespace {

/// Mamba-1's x_proj to dt (dt_rank), B and C (d_state each), its dt/B/C norms (Jamba), then dt_proj back to d_inner
/// with its bias and softplus (4 FLOPs).
void emitMamba1Projections(Ctx &c, const Pass &p, double lc, double inner, double n)
{
    const SsmShape &x = c.m.ssm;
    const double N = p.Bm * p.T, act = c.act;
    const double r = static_cast<double>(x.dtRank);
    emitLinear(c, "ssm.x_proj", p.phase, lc, N, inner, r + 2 * n, false, p.train);
    if (x.innerNorms)
        emitOp(c, "ssm.inner_norms", OpClass::Normalization, p.phase, lc,
               perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, r + 2 * n,
                          FlopName::DtRankAnd2DState),
               (r + 2 * n) * act, 2 * N * (r + 2 * n) * act, 0, p.train);
    emitOp(
        c, "ssm.dt_proj", OpClass::Matmul, p.phase, lc,
        plus(macs(N, FlopName::Tokens, r, FlopName::DtRank, inner, FlopName::DInner, 1, FlopName::None, c.flopFactor),
             5 * N * inner, FlopName::DtBiasAndSoftplus),
        (r * inner) * c.wpw + inner * act, N * r * act + N * inner * act, 0, p.train);
}

/// The scan. Recurrently (every decode step, and Mamba-1's scan over a prompt) each state element takes a decay
/// multiply, an input multiply-add and the output's multiply-add: 5 FLOPs per channel and state element, plus D's
/// skip (2 per channel). Mamba-2 runs a prompt in chunks of chunk_size (state-space duality, Dao and Gu 2024, section
/// 6): within a chunk C B^T over the causal pairs (2 d_state per group) weights the inputs (2 per channel, 1 for the
/// decay per head), and each chunk's state is built and read (2 d_state per channel each).
void emitScan(Ctx &c, const Pass &p, double lc, const SsmWidths &w, double stateRw)
{
    const SsmShape &x = c.m.ssm;
    const double N = p.Bm * p.T, act = c.act;
    const double inner = w.inner, n = w.state, heads = w.heads, groups = w.groups;
    const bool mamba2 = x.kind == SsmKind::Mamba2;
    FlopTerms scanFlops = perElement(5 * n + 2, FlopName::PerChannelScan, N, FlopName::Tokens, inner, FlopName::DInner);
    OpClass scanClass = OpClass::Elementwise;
    if (mamba2 && !p.decodeStep) {
        const double pairs = p.Bm * chunkedCausalPairs(0, p.T, static_cast<double>(x.chunkSize));
        scanFlops = plus(perElement(2 * n * groups + 2 * inner + heads, FlopName::PerChunkPair, pairs,
                                    FlopName::CausalPairsWithinChunks),
                         N * inner * (4 * n + 2), FlopName::ChunkStates);
        scanClass = OpClass::Attention; // its products run on the matrix units
    }
    const double scanIn = mamba2 ? inner + 2 * groups * n + heads : inner + 2 * n + inner; // x, B, C, dt
    emitOp(c, "ssm.scan", scanClass, p.phase, lc, scanFlops, (mamba2 ? 3 * heads : inner * n + inner) * act,
           N * scanIn * act + N * inner * act, stateRw * p.Bm * inner * n * c.stateb, p.train);
}

/// The state-space layers' mixer, `lc` times, per device: d_inner, heads and (when tp divides them) groups split by
/// tensor parallelism. Its state is read and written every decode step, as a KV cache is read: the state
/// (d_inner x d_state, in the model's state format: ModelShape::stateFormat) and the convolution's last d_conv - 1
/// inputs, in the KV cache's format.
void emitSsm(Ctx &c, const Pass &p, double lc)
{
    const SsmShape &x = c.m.ssm;
    const double N = p.Bm * p.T, act = c.act;
    const SsmWidths w = ssmWidths(c.m, c.s.tp);
    const double inner = w.inner, conv = w.conv;
    const double K = static_cast<double>(x.convKernel);
    const bool mamba2 = x.kind == SsmKind::Mamba2;
    // State traffic: a decode step reads and writes each sequence's state; a pass over a prompt writes it once.
    const double stateRw = p.decodeStep ? 2.0 : 1.0;

    emitLinear(c, "ssm.in_proj", p.phase, lc, N, c.h, w.inProj, x.projBias, p.train);
    // Causal depthwise convolution of width d_conv, its bias and SiLU (4): (2 d_conv + 1 + 4) FLOPs per channel.
    emitOp(c, "ssm.conv", OpClass::Elementwise, p.phase, lc,
           perElement(2 * K + 5, FlopName::PerChannelConv, N, FlopName::Tokens, conv, FlopName::ConvolvedChannels),
           conv * (K + 1) * act, 2 * N * conv * act, stateRw * p.Bm * (K - 1) * conv * c.kvb, p.train);
    if (!mamba2)
        emitMamba1Projections(c, p, lc, inner, w.state);
    emitScan(c, p, lc, w, stateRw);
    // The output gate: Mamba-2 a gated RMSNorm (y x SiLU(z), then the norm: 4 + 1 + 4), Mamba-1 y x SiLU(z).
    if (mamba2)
        emitOp(
            c, "ssm.gate_norm", OpClass::Normalization, p.phase, lc,
            perElement(kRmsNormFlops + 5, FlopName::PerElementGatedNorm, N, FlopName::Tokens, inner, FlopName::DInner),
            inner * act, 3 * N * inner * act, 0, p.train);
    else
        emitOp(c, "ssm.gate", OpClass::Elementwise, p.phase, lc,
               perElement(5, FlopName::PerElementGate, N, FlopName::Tokens, inner, FlopName::DInner), 0,
               3 * N * inner * act, 0, p.train);
    emitLinear(c, "ssm.out_proj", p.phase, lc, N, inner, c.h, x.projBias, p.train);
}

} // namespace

void emitSsmMixer(Ctx &c, const Pass &p, double lc)
{
    const double N = p.Bm * p.T;
    emitNorm(c, "ssm.in_norm", p.phase, lc, N, FlopName::Tokens, p.train);
    emitSsm(c, p, lc);
    emitResidual(c, "ssm.residual", p.phase, lc, N, p.train);
}

} // namespace memwall::core::detail
