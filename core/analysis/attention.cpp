// The attention mixer: input norm, projections, the attention core per window, output projection, post-norm and
// residual (multi-head latent attention's own projections and core: mla.cpp).
#include "core/analysis/passcontext.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace memwall::core::detail {

/// A 4-token prompt: 1 + 2 + 3 + 4 = 10 of the 16 pairs; T tokens from scratch: T(T + 1)/2. The sum over positions
/// q = prefix + 1 .. prefix + T of min(q, window) (each query attends at most `window` keys, itself included).
double causalPairs(double prefix, double T, double window)
{
    const double first = prefix + 1, last = prefix + T;
    if (last <= window)
        return (first + last) * T / 2;
    if (first > window)
        return T * window;
    return (first + window) * (window - first + 1) / 2 + (last - window) * window;
}

/// Position q attends the ((q - 1) mod chunk) + 1 tokens of its own chunk so far. Over positions 1 .. n that is
/// k chunk(chunk + 1)/2 + r(r + 1)/2, with n = k chunk + r.
double chunkedCausalPairs(double prefix, double T, double chunk)
{
    auto upTo = [chunk](double n) {
        const double k = std::floor(n / chunk), r = n - k * chunk;
        return k * chunk * (chunk + 1) / 2 + r * (r + 1) / 2;
    };
    return upTo(prefix + T) - upTo(prefix);
}

/// Soft-capped scores (Gemma 2's attn_logit_softcapping): cap x tanh(score / cap) on every score before the softmax.
/// Fused, the scores stay on chip and the cap moves no bytes; unfused, it reads and writes the score matrix, as the
/// softmax does.
void emitScoreSoftmax(Ctx &c, const Pass &p, double lc, double pairs, const CoreNames &names)
{
    const double scores = p.Bm * c.hq * pairs, tA = p.train * p.trainAttn;
    const bool fused = c.s.fusedAttention;
    if (c.m.attentionSoftcap > 0)
        emitOp(c, names.softcap, OpClass::Elementwise, p.phase, lc,
               perElement(kSoftcapFlops, FlopName::PerScoreSoftcap, p.Bm, FlopName::Sequences, c.hq, FlopName::Heads,
                          pairs, FlopName::QueryKeyPairsPerHead),
               0, fused ? 0 : 2 * scores * c.act, 0, tA);
    emitOp(c, names.softmax, OpClass::Normalization, p.phase, lc,
           perElement(kSoftmaxFlops, FlopName::PerScoreSoftmax, p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs,
                      FlopName::QueryKeyPairsPerHead),
           0, fused ? 0 : 2 * scores * c.act, 0, tA);
}

namespace {

/// Operator names of one kind of attention layer's projections: the ordinary layers', and Gemma 4's global layers'
/// (their own widths: "attn.global_qkv_proj").
struct ProjectionNames
{
    std::string_view qkv, qkNorm, vNorm, rope, outputGate, out;
    std::string_view q, qNorm, qRope; ///< the layers sharing an earlier layer's keys and values: queries alone
};
constexpr ProjectionNames kProjections{"attn.qkv_proj", "attn.qk_norm", "attn.v_norm", "attn.rope",  "attn.output_gate",
                                       "attn.out_proj", "attn.q_proj",  "attn.q_norm", "attn.q_rope"};
constexpr ProjectionNames kGlobalProjections{"attn.global_qkv_proj", "attn.global_qk_norm",     "attn.global_v_norm",
                                             "attn.global_rope",     "attn.global_output_gate", "attn.global_out_proj",
                                             "attn.global_q_proj",   "attn.global_q_norm",      "attn.global_q_rope"};

/// The q, k and v projection (keys that are values: no v, Gemma 4's global layers), the q/k norms, the values'
/// weightless norm and rotary positions of ordinary (MHA, GQA, MQA) attention, `roped` of the `lc` times rotated.
/// `shared` of the `lc` layers read an earlier layer's keys and values (Gemma 4 E2B/E4B's KV sharing): they project,
/// norm and rotate their queries alone.
void emitQkvProjections(Ctx &c, const Pass &p, double lc, double roped, const ProjectionNames &names, double shared = 0)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T, act = c.act, own = lc - shared;
    // Gated attention: q_proj also projects the output gate, one element per query element; a gate per head (g_proj,
    // Step-3.5) reads the same input, one element per head: counted with the projection.
    const double gate = (m.attentionOutputGate ? c.qd : 0.0) + (m.headWiseGate ? c.hq : 0.0);
    if (own > 0)
        emitLinear(c, names.qkv, p.phase, own, N, c.h, c.qd + gate + (c.valueProj ? 2 : 1) * c.kvd, m.qkvBias, p.train);
    if (shared > 0)
        emitLinear(c, names.q, p.phase, shared, N, c.h, c.qd + gate, m.qkvBias, p.train);
    if (m.qkNorm && own > 0)
        emitOp(c, names.qkNorm, OpClass::Normalization, p.phase, own,
               perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, c.qd + c.kvd,
                          FlopName::QAndKWidths),
               (m.qkNormFullWidth ? c.qd + c.kvd : 2 * c.d) * act, 2 * N * (c.qd + c.kvd) * act, 0, p.train);
    if (m.qkNorm && shared > 0)
        emitOp(c, names.qNorm, OpClass::Normalization, p.phase, shared,
               perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, c.qd, FlopName::QWidth),
               (m.qkNormFullWidth ? c.qd : c.d) * act, 2 * N * c.qd * act, 0, p.train);
    if (m.valueNorm && own > 0) // Gemma 4's v_norm: no weights
        emitOp(c, names.vNorm, OpClass::Normalization, p.phase, own,
               perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, c.kvd, FlopName::KvWidth), 0,
               2 * N * c.kvd * act, 0, p.train);
    // Partial rotary positions rotate the first rotaryFraction of each head and copy the rest; a kernel reads and
    // writes only the rotated part.
    if (m.positions != PositionEncoding::Rotary || roped <= 0)
        return;
    const double rotated = (c.qd + c.kvd) * c.rotary, ownRoped = roped * own / lc;
    if (ownRoped > 0)
        emitOp(c, names.rope, OpClass::Elementwise, p.phase, ownRoped,
               perElement(kRopeFlops, FlopName::PerRotatedElement, N, FlopName::Tokens, rotated,
                          c.rotary < 1 ? FlopName::RotatedQAndKWidths : FlopName::QAndKWidths),
               0, 2 * N * rotated * act, 0, p.train);
    const double rotatedQ = c.qd * c.rotary;
    if (shared > 0)
        emitOp(c, names.qRope, OpClass::Elementwise, p.phase, roped - ownRoped,
               perElement(kRopeFlops, FlopName::PerRotatedElement, N, FlopName::Tokens, rotatedQ, FlopName::QWidth), 0,
               2 * N * rotatedQ * act, 0, p.train);
}

/// The attention output's gate (gated attention) and the output projection of `lc` layers.
void emitOutput(Ctx &c, const Pass &p, double lc, const ProjectionNames &names)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T, act = c.act;
    if (m.attentionOutputGate) // the output times sigmoid(gate), before o_proj (Qwen3NextAttention)
        emitOp(c, names.outputGate, OpClass::Elementwise, p.phase, lc,
               perElement(5, FlopName::PerElementSigmoidGate, N, FlopName::Tokens, c.qd, FlopName::QWidth), 0,
               3 * N * c.qd * act, 0, p.train);
    // A gate per head (Step3p5Attention): each head's output times sigmoid of its own gate, 4 FLOPs a gate and 1 a
    // product.
    if (m.headWiseGate)
        emitOp(c, names.outputGate, OpClass::Elementwise, p.phase, lc,
               plus(perElement(1, FlopName::PerElementScale, N, FlopName::Tokens, c.qd, FlopName::QWidth), 4 * N * c.hq,
                    FlopName::SigmoidOfHeadGates),
               0, (2 * c.qd + c.hq) * N * act, 0, p.train);
    emitLinear(c, names.out, p.phase, lc, N,
               m.mixer == MixerKind::Mla ? c.hq * static_cast<double>(m.mla.vHeadDim) : c.qd, c.h, m.outBias, p.train);
}

/// Gemma 4's attention: the global layers (their own head size and KV heads, ModelShape::global) and the windowed
/// ones each with their projections, core and output projection, under their own names.
void emitGlobalAndWindowed(Ctx &c, const Pass &p, double lc)
{
    const double attention = c.attnLayers, global = c.globalLayers, windowed = attention - global;
    const double lg = lc * global / attention, lw = lc * windowed / attention;
    // Of them, the layers that read an earlier layer's keys and values (Gemma 4 E2B/E4B).
    const double sg = lc * c.sharedFull / attention, sw = lc * c.sharedWindowed / attention;
    useAttentionWidths(c, c.globalWidths);
    emitQkvProjections(c, p, lg, c.m.globalNoPositions ? 0.0 : lg, kGlobalProjections, sg);
    emitAttentionCore(c, p, lg, 0.0, kGlobalCore, sg);
    emitOutput(c, p, lg, kGlobalProjections);
    useAttentionWidths(c, c.attnWidths);
    if (windowed > 0) {
        emitQkvProjections(c, p, lw, lw, kProjections, sw);
        emitAttentionCore(c, p, lw, static_cast<double>(c.m.slidingWindow), kLocalCore, sw);
        emitOutput(c, p, lw, kProjections);
    }
}

/// The KV-head counts of the attention layers and how many layers have each, in the order of their first layer:
/// one entry unless layers have their own KV heads (LayerBlock::kvHeads, DeciLM).
std::vector<std::pair<int64_t, double>> kvHeadCounts(const Ctx &c)
{
    std::vector<std::pair<int64_t, double>> counts;
    for (const LayerGroup &g : c.groups) {
        if (!g.block.attends())
            continue;
        const int64_t kv = g.block.kvHeads > 0 ? g.block.kvHeads : c.m.kvHeads;
        auto at = std::find_if(counts.begin(), counts.end(), [kv](const auto &x) { return x.first == kv; });
        if (at == counts.end())
            counts.emplace_back(kv, static_cast<double>(g.count));
        else
            at->second += static_cast<double>(g.count);
    }
    return counts;
}

/// Attention layers with different KV heads (DeciLM): each count's projections and core over its own layers, with
/// its K and V widths, under names that say the count ("attn.qkv_proj_kv4", "attn.score_kv4").
void emitPerKvHeads(Ctx &c, const Pass &p, double lc, const std::vector<std::pair<int64_t, double>> &counts)
{
    const double hkv = c.hkv, kvd = c.kvd;
    for (const auto &[kv, n] : counts) {
        const std::string s = "_kv" + std::to_string(kv);
        c.hkv = kvHeadsOnDevice(kv, c.s.tp);
        c.kvd = c.hkv * c.d;
        const double share = lc * n / c.attnLayers;
        const ProjectionNames names{internName("attn.qkv_proj" + s),
                                    internName("attn.qk_norm" + s),
                                    internName("attn.v_norm" + s),
                                    internName("attn.rope" + s),
                                    kProjections.outputGate,
                                    kProjections.out,
                                    kProjections.q,
                                    kProjections.qNorm,
                                    kProjections.qRope}; // no KV sharing beside per-layer KV heads (validate())
        emitQkvProjections(c, p, share, share, names);
        const CoreNames core{internName("attn.kv_write" + s), internName("attn.score" + s),
                             internName("attn.softcap" + s), internName("attn.softmax" + s),
                             internName("attn.context" + s)};
        emitAttentionCore(c, p, share, 0.0, core);
    }
    c.hkv = hkv;
    c.kvd = kvd;
}

} // namespace

void emitAttentionCore(Ctx &c, const Pass &p, double lc, double window, const CoreNames &names, double shared)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T, act = c.act;
    const bool fused = c.s.fusedAttention;
    const double W = window > 0 ? window : 1e300;
    const bool chunked = window > 0 && m.chunkedAttention;
    // Keys per query: the window caps them; a chunk holds the keys since its start (a decode step's last position).
    const double C = chunked && p.decodeStep ? std::fmod(p.keyTokens - 1, W) + 1 : std::min(p.keyTokens, W);
    const double cached = std::min(p.cachedToks, C);
    double pairs = p.T * C;
    if (p.causalPrefix >= 0)
        pairs = chunked ? chunkedCausalPairs(p.causalPrefix, p.T, W) : causalPairs(p.causalPrefix, p.T, W);
    if (m.mixer == MixerKind::Mla) {
        if (m.hasIndexer())
            emitSparseMlaCore(c, p, lc, names);
        else
            emitMlaCore(c, p, lc, C, cached, pairs, names);
        return;
    }
    const double scores = p.Bm * c.hq * pairs;
    const double tA = p.train * p.trainAttn;
    // The layers sharing an earlier layer's keys and values write none, but read the shared cache as their own.
    if (p.kvWrite && lc > shared)
        emitOp(c, names.kvWrite, OpClass::Elementwise, p.phase, lc - shared, FlopTerms{}, 0, N * 2 * c.kvd * act,
               N * 2 * c.kvd * c.kvb, p.train);
    const double kvReadBytes = p.Bm * cached * c.kvd * c.kvb;
    const double kvFreshBytes = p.Bm * (C - cached) * c.kvd * act;
    emitOp(c, names.score, OpClass::Attention, p.phase, lc,
           macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, c.d,
                FlopName::HeadDim),
           0, N * c.qd * act + kvFreshBytes + (fused ? 0 : scores * act), kvReadBytes, tA);
    emitScoreSoftmax(c, p, lc, pairs, names);
    emitOp(c, names.context, OpClass::Attention, p.phase, lc,
           macs(p.Bm, FlopName::Sequences, c.hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, c.d,
                FlopName::HeadDim),
           0, (fused ? 0 : scores * act) + kvFreshBytes + N * c.qd * act, kvReadBytes, tA);
}

namespace {

/// The fraction at which a decode step's MLA layer runs on a device that measured the module whole
/// (OperatorRoofs::mla), at the heads and sequences of one rank and the tokens cached before the step; 0 elsewhere (a
/// prompt, a layer with DeepSeek-V3.2's indexer, which the table does not hold, or no table).
double mlaModuleFraction(const Ctx &c, const Pass &p)
{
    if (!c.roofs.mla || !p.decodeStep || c.m.hasIndexer())
        return 0;
    const MlaModuleTable *t = c.roofs.mla->mlaTableFor(c.roofs.mlaFormat, c.hq);
    // The table's context is the tokens cached before the step (its kernels then attend one more).
    return t ? t->fractionAt(p.Bm, p.keyTokens - p.T) : 0.0;
}

} // namespace

void emitAttentionMixer(Ctx &c, const Pass &p, double lc)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T;
    emitNorm(c, "attn.norm", p.phase, lc, N, FlopName::Tokens, p.train);
    // Layers with their own KV heads (DeciLM; validate() allows no window or global layers beside them): projections
    // and core per count.
    const auto counts = m.layerBlocks.empty() ? std::vector<std::pair<int64_t, double>>{} : kvHeadCounts(c);
    if (c.globalLayers > 0) { // Gemma 4: global layers of their own widths
        emitGlobalAndWindowed(c, p, lc);
    } else if (counts.size() > 1) {
        emitPerKvHeads(c, p, lc, counts);
        emitOutput(c, p, lc, kProjections);
    } else {
        if (m.mixer == MixerKind::Mla) {
            c.moduleFraction = mlaModuleFraction(c, p);
            emitMlaProjections(c, p, lc);
            if (m.hasIndexer())
                emitIndexer(c, p, lc);
        } else {
            // Layers without positions (Cohere2's global layers) rotate nothing: only the windowed ones run it.
            const double roped = m.globalNoPositions && c.attnLayers > 0 ? lc * c.windowedLayers / c.attnLayers : lc;
            emitQkvProjections(c, p, lc, roped, kProjections, lc * (c.sharedFull + c.sharedWindowed) / c.attnLayers);
        }
        // The attention core per window: the layers with the whole context first, then the windowed ones. Without
        // both kinds there is one core, under the plain names.
        const double attention = c.attnLayers, windowed = c.windowedLayers;
        const double window = static_cast<double>(m.slidingWindow);
        const double sg = lc * c.sharedFull / attention, sw = lc * c.sharedWindowed / attention;
        if (windowed == 0 || windowed == attention) {
            emitAttentionCore(c, p, lc, windowed == 0 ? 0.0 : window, kGlobalCore, sg + sw);
        } else {
            emitAttentionCore(c, p, lc * (attention - windowed) / attention, 0.0, kGlobalCore, sg);
            emitAttentionCore(c, p, lc * windowed / attention, window, kLocalCore, sw);
        }
        emitOutput(c, p, lc, kProjections);
        c.moduleFraction = 0;
    }
    if (m.postNorms)
        emitNorm(c, "attn.post_norm", p.phase, lc, N, FlopName::Tokens, p.train);
    emitResidual(c, "attn.residual", p.phase, lc, N, p.train);
}

} // namespace memwall::core::detail
