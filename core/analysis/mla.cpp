// Multi-head latent attention (DeepSeek-V2/V3): its low-rank projections, and its attention core, absorbed (a decode
// step with mla_absorb) or unabsorbed.
#include "core/analysis/passcontext.h"

namespace memwall::core::detail {

void emitMlaProjections(Ctx &c, const Pass &p, double lc)
{
    // The latent paths (q_a, kv_a) are replicated on every tensor-parallel rank; the per-head ones are split.
    const MlaShape &a = c.m.mla;
    const double N = p.Bm * p.T, h = c.h, act = c.act;
    const double qk = static_cast<double>(a.qkNopeHeadDim + a.qkRopeHeadDim);
    const double rq = static_cast<double>(a.qLoraRank), lat = static_cast<double>(a.cachedPerToken());
    const double r = static_cast<double>(a.kvLoraRank), rope = static_cast<double>(a.qkRopeHeadDim);
    if (a.qLoraRank > 0) {
        emitLinear(c, "attn.q_a_proj", p.phase, lc, N, h, rq, false, p.train);
        emitOp(c, "attn.q_a_norm", OpClass::Normalization, p.phase, lc,
               perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, rq, FlopName::QLoraRank),
               rq * act, 2 * N * rq * act, 0, p.train);
        emitLinear(c, "attn.q_b_proj", p.phase, lc, N, rq, c.hq * qk, false, p.train);
    } else {
        emitLinear(c, "attn.q_proj", p.phase, lc, N, h, c.hq * qk, false, p.train);
    }
    emitLinear(c, "attn.kv_a_proj", p.phase, lc, N, h, lat, false, p.train, true);
    emitOp(c, "attn.kv_a_norm", OpClass::Normalization, p.phase, lc,
           perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, r, FlopName::KvLoraRank),
           r * act, 2 * N * r * act, 0, p.train);
    emitOp(c, "attn.rope", OpClass::Elementwise, p.phase, lc,
           perElement(kRopeFlops, FlopName::PerRotatedElement, N, FlopName::Tokens, c.hq + 1,
                      FlopName::HeadsAndSharedKey, rope, FlopName::QkRopeHeadDim),
           0, 2 * N * (c.hq + 1) * rope * act, 0, p.train);
}

namespace {

/// Absorbed (DeepSeek-V2, appendix; FlashMLA): the key up-projection is folded into each query (q_nope x W_UK:
/// hq x nope -> hq x kv_lora), the scores run against the latent itself (kv_lora + rope per pair and head), the
/// context stays in latent space and W_UV lifts it to hq x v afterwards. All heads share one read of the latent:
/// decode reads lat elements per cached token, not 2 x heads x head_dim.
void emitMlaAbsorbedCore(Ctx &c, const Pass &p, double lc, double C, double cached, double pairs,
                         const CoreNames &names)
{
    const MlaShape &a = c.m.mla;
    const double N = p.Bm * p.T, act = c.act, scores = p.Bm * c.hq * pairs, tA = p.train * p.trainAttn;
    const bool fused = c.s.fusedAttention;
    const double lat = static_cast<double>(a.cachedPerToken()), r = static_cast<double>(a.kvLoraRank);
    const double nope = static_cast<double>(a.qkNopeHeadDim), v = static_cast<double>(a.vHeadDim);
    const double latentRead = p.Bm * cached * lat * c.kvb, latentFresh = p.Bm * (C - cached) * lat * act;
    emitOp(c, "attn.q_absorb", OpClass::Matmul, p.phase, lc,
           macs(N, FlopName::Tokens, c.hq, FlopName::Heads, nope, FlopName::QkNopeHeadDim, r, FlopName::KvLoraRank,
                c.flopFactor),
           c.hq * nope * r * c.wpw, N * c.hq * nope * act + N * c.hq * r * act, 0, p.train);
    emitOp(c, names.score, OpClass::Attention, p.phase, lc,
           macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, lat,
                FlopName::LatentAndRope),
           0, N * c.hq * lat * act + latentFresh + (fused ? 0 : scores * act), latentRead, tA);
    emitScoreSoftmax(c, p, lc, pairs, names);
    emitOp(c, names.context, OpClass::Attention, p.phase, lc,
           macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, r,
                FlopName::KvLoraRank),
           0, (fused ? 0 : scores * act) + N * c.hq * r * act, 0, tA);
    emitOp(
        c, "attn.v_absorb", OpClass::Matmul, p.phase, lc,
        macs(N, FlopName::Tokens, c.hq, FlopName::Heads, r, FlopName::KvLoraRank, v, FlopName::VHeadDim, c.flopFactor),
        c.hq * r * v * c.wpw, N * c.hq * r * act + N * c.hq * v * act, 0, p.train);
}

} // namespace

void emitMlaCore(Ctx &c, const Pass &p, double lc, double C, double cached, double pairs, const CoreNames &names)
{
    // Cached per token: the latent and the shared rotary key (lat elements).
    const MlaShape &a = c.m.mla;
    const double N = p.Bm * p.T, act = c.act, scores = p.Bm * c.hq * pairs, tA = p.train * p.trainAttn;
    const bool fused = c.s.fusedAttention;
    const double lat = static_cast<double>(a.cachedPerToken()), r = static_cast<double>(a.kvLoraRank);
    const double nope = static_cast<double>(a.qkNopeHeadDim), rope = static_cast<double>(a.qkRopeHeadDim);
    const double v = static_cast<double>(a.vHeadDim);
    if (p.kvWrite)
        emitOp(c, names.kvWrite, OpClass::Elementwise, p.phase, lc, FlopTerms{}, 0, N * lat * act, N * lat * c.kvb,
               p.train);
    if (p.decodeStep && c.s.mlaAbsorb) {
        emitMlaAbsorbedCore(c, p, lc, C, cached, pairs, names);
        return;
    }
    // Unabsorbed: kv_b_proj lifts every attended token's latent to its keys' no-rotary part and its values, then
    // attention runs per head on head dims nope + rope (scores) and v (context).
    const double kvb = static_cast<double>(a.kvLoraRank) * c.hq * (nope + v);
    emitOp(c, "attn.kv_b_proj", OpClass::Matmul, p.phase, lc,
           macs(p.Bm, FlopName::Sequences, C, FlopName::AttendedTokens, r, FlopName::KvLoraRank, c.hq * (nope + v),
                FlopName::HeadsTimesNopeAndV, c.flopFactor),
           kvb * c.wpw, p.Bm * (C - cached) * r * act + p.Bm * C * c.hq * (nope + v) * act, p.Bm * cached * r * c.kvb,
           p.train);
    emitOp(c, names.score, OpClass::Attention, p.phase, lc,
           macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, nope + rope,
                FlopName::QkHeadDim),
           0, N * c.hq * (nope + rope) * act + p.Bm * C * (c.hq * nope + rope) * act + (fused ? 0 : scores * act), 0,
           tA);
    emitScoreSoftmax(c, p, lc, pairs, names);
    emitOp(c, names.context, OpClass::Attention, p.phase, lc,
           macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, v,
                FlopName::VHeadDim),
           0, (fused ? 0 : scores * act) + p.Bm * C * c.hq * v * act + N * c.hq * v * act, 0, tA);
}

} // namespace memwall::core::detail
