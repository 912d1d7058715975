// Multi-head latent attention (DeepSeek-V2/V3): its low-rank projections, and its attention core, absorbed (a decode
// step with mla_absorb) or unabsorbed.
#include "core/analysis/passcontext.h"

#include <algorithm>
#include <cmath>

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
    // Kimi-Linear's MLA layers (mla_use_nope) rotate nothing: the qk_rope_head_dim part of each head is an ordinary
    // part of q and k there, and the latent and shared key are cached as DeepSeek's are.
    if (c.m.positions == PositionEncoding::Rotary)
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

namespace {

/// The indexer's projections (the reference Indexer.forward): wq_b from the queries' normed latent (q_a_norm's
/// output, already quantized for q_b_proj), wk and weights_proj from the layer's normed input (shared with q_a_proj),
/// k_norm (a LayerNorm, 7 FLOPs an element, weight and bias), and rotary positions on the first qk_rope_head_dim of
/// every indexer query head and of the key. The indexer is replicated on every tensor-parallel rank, as the reference
/// and the serving engines run it (wq_b and wk are plain, not column-parallel, linears).
void emitIndexerProjections(Ctx &c, const Pass &p, double lc)
{
    const IndexerShape &x = c.m.indexer;
    const double N = p.Bm * p.T, act = c.act, rq = static_cast<double>(c.m.mla.qLoraRank);
    const double nh = static_cast<double>(x.heads), d = static_cast<double>(x.headDim);
    const double rope = static_cast<double>(c.m.mla.qkRopeHeadDim);
    emitLinear(c, "attn.indexer_q_proj", p.phase, lc, N, rq, nh * d, false, p.train, true);
    emitLinear(c, "attn.indexer_k_proj", p.phase, lc, N, c.h, d, false, p.train, true);
    emitOp(c, "attn.indexer_k_norm", OpClass::Normalization, p.phase, lc,
           perElement(kLayerNormFlops, FlopName::PerElementLayerNorm, N, FlopName::Tokens, d, FlopName::IndexHeadDim),
           2 * d * act, 2 * N * d * act, 0, p.train);
    emitOp(c, "attn.indexer_rope", OpClass::Elementwise, p.phase, lc,
           perElement(kRopeFlops, FlopName::PerRotatedElement, N, FlopName::Tokens, nh + 1, FlopName::IndexHeadsAndKey,
                      rope, FlopName::QkRopeHeadDim),
           0, 2 * N * (nh + 1) * rope * act, 0, p.train);
    emitLinear(c, "attn.indexer_weights_proj", p.phase, lc, N, c.h, nh, false, p.train, true);
}

} // namespace

/// The lightning indexer of a sparse-latent layer, after its projections: the new keys appended to its own cache
/// (IndexerShape::keyBytesPerToken() a token, FP8 with a scale), every query's scores against every earlier key
/// (index_heads x index_head_dim multiply-accumulates a pair, then ReLU and the weighted sum over heads; the logits,
/// FP32, written for the top-k kernel, as DeepGEMM's fp8_mqa_logits writes them), and the top-k selection over each
/// query's scores (log2 index_topk compares a score; it reads the logits and writes index_topk int32 indices). Unlike
/// attention, the indexer reads the whole context: its cost grows with it.
void emitIndexer(Ctx &c, const Pass &p, double lc)
{
    emitIndexerProjections(c, p, lc);
    const IndexerShape &x = c.m.indexer;
    const double N = p.Bm * p.T, act = c.act, keyBytes = x.keyBytesPerToken();
    const double nh = static_cast<double>(x.heads), d = static_cast<double>(x.headDim);
    const double topk = static_cast<double>(x.topk), tA = p.train * p.trainAttn;
    const double keys = p.keyTokens, cached = std::min(p.cachedToks, keys);
    // Query-key pairs the indexer scores: every earlier key (a causal prompt: its causal pairs).
    const double pairs = p.causalPrefix >= 0 ? causalPairs(p.causalPrefix, p.T, 1e300) : p.T * keys;
    const double logits = p.Bm * pairs * 4; // FP32
    if (p.kvWrite)
        emitOp(c, "attn.indexer_kv_write", OpClass::Elementwise, p.phase, lc, FlopTerms{}, 0, N * d * act, N * keyBytes,
               p.train);
    emitOp(c, kIndexerScore, OpClass::Attention, p.phase, lc,
           plus(macs(p.Bm, FlopName::Sequences, nh, FlopName::IndexHeads, pairs, FlopName::QueryKeyPairsPerHead, d,
                     FlopName::IndexHeadDim),
                3 * p.Bm * nh * pairs, FlopName::PerIndexerScore),
           0, N * nh * (d + 1) * act + p.Bm * (keys - cached) * keyBytes + logits, p.Bm * cached * keyBytes, tA);
    emitOp(c, "attn.indexer_topk", OpClass::Elementwise, p.phase, lc,
           perElement(std::log2(std::max(2.0, topk)), FlopName::PerIndexerTopk, p.Bm, FlopName::Sequences, pairs,
                      FlopName::QueryKeyPairsPerHead),
           0, logits + N * std::min(topk, keys) * 4, 0, tA);
}

void emitSparseMlaCore(Ctx &c, const Pass &p, double lc, const CoreNames &names)
{
    // Each query attends the index_topk keys its indexer chose (all of them while there are fewer): the causal pairs
    // of a window of top_k keys. A decode step reads only the chosen latents; over a prompt each query chooses its
    // own, so the unabsorbed path still lifts every token's latent once.
    const double topk = static_cast<double>(c.m.indexer.topk);
    const double chosen = std::min(p.keyTokens, topk);
    const double pairs = p.causalPrefix >= 0 ? causalPairs(p.causalPrefix, p.T, topk) : p.T * chosen;
    const double lifted = p.decodeStep ? chosen : p.keyTokens;
    emitMlaCore(c, p, lc, lifted, std::min(p.cachedToks, lifted), pairs, names);
}

} // namespace memwall::core::detail
