// ---- KV cache ----: what the step caches per token in its attention layers, and the fixed state its state-space
// layers keep per sequence.
#include "core/analysis/passcontext.h"

namespace memwall::core::detail {

double cachedTokensPerSequence(const Scenario &s, const ModelShape &m, const Step &st)
{
    double cachedTokens = 0;
    switch (s.phase) {
    case Phase::Prefill: cachedTokens = st.seq; break;
    case Phase::Decode: cachedTokens = st.ctx + st.stepTokens; break;
    case Phase::Generate: cachedTokens = st.seq + s.output; break;
    case Phase::Encode:
    case Phase::Train: cachedTokens = 0; break;
    }
    if (!s.kvCache || m.arch == Architecture::Encoder)
        cachedTokens = 0;
    return cachedTokens;
}

double stateBytes(const Ctx &c, int tp)
{
    const double ssmRec = ssmRecurrentElements(c.m, tp), linRec = linearRecurrentElements(c.m, tp);
    const double ssm = ssmRec * c.stateb + (stateElements(c.m, tp) - ssmRec) * c.kvb;
    const double lin = linRec * c.stateb + (linearStateElements(c.m, tp) - linRec) * c.kvb;
    return c.ssmLayers * ssm + c.linearLayers * lin;
}

double addKvCache(const Ctx &c, const Step &st, Analysis &a)
{
    const ModelShape &m = c.m;
    const Scenario &s = c.s;
    // Attention layers cache per token; state-space layers keep a fixed state instead (below).
    // A sparse-latent layer also caches its indexer's key, in its own format (FP8 and a scale), beside the latent.
    // One token in every attending layer (each layer's own KV heads where it has them; a window keeps at least one).
    a.kvCache.bytesPerToken =
        cachedElements(m, c.groups, 1.0, static_cast<double>(m.kvHeads)) * c.kvb + indexerKeyBytes(m, c.groups, 1);
    const double cachedTokens = cachedTokensPerSequence(s, m, st);
    a.kvCache.totalBytes = (cachedElements(m, c.groups, cachedTokens, static_cast<double>(m.kvHeads)) * c.kvb +
                            indexerKeyBytes(m, c.groups, cachedTokens)) *
                           st.B;
    a.kvCache.cachedTokens = cachedTokens;
    a.kvCache.sequences = st.B;
    a.kvCache.bytesPerElement = c.kvb;
    // State-space and linear-attention layers keep a state per sequence instead, whatever the context: its recurrent
    // part in the model's state format (ModelShape::stateFormat), the convolution's inputs in the KV cache's.
    a.kvCache.stateBytesPerSequence = stateBytes(c, 1);
    a.kvCache.stateBytes = holdsState(s) ? a.kvCache.stateBytesPerSequence * st.B : 0.0;
    return cachedTokens;
}

} // namespace memwall::core::detail
