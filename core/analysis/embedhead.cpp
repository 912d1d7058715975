// The first stage's embeddings (token rows, positions, token types, an image model's patch projection) and the last
// stage's head (final norm and LM head of a decoder; an encoder's final norm and pooler). The matmuls of the
// embeddings' side count their weights at embedWpw (timeOperator() reads 16-bit ones at the main memory's bandwidth).
#include "core/analysis/passcontext.h"

#include <algorithm>

namespace memwall::core::detail {

void emitPerLayerEmbeddings(Ctx &c, const Pass &p);

void emitEmbeddings(Ctx &c, const Pass &p)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T, h = c.h, act = c.act;
    if (m.patchInputs > 0) {
        // A model of image patches: the patch convolution (kernel and stride the patch) is a matmul of each patch's
        // values by patchInputs x hidden weights, plus a bias. The class token leading each image is a copy of learned
        // weights, not projected. `embed` then adds the positions: its weights are the position rows where a text
        // model's are its token rows, and its input the projected patches.
        const double patches = p.Bm * std::max(0.0, p.T - 1), in = static_cast<double>(m.patchInputs);
        emitOp(c, "patch_embed", OpClass::Matmul, p.phase, p.headCount,
               plus(macs(patches, FlopName::Patches, in, FlopName::PatchInputs, h, FlopName::Hidden), patches * h,
                    FlopName::BiasAddsPatchesHidden),
               in * h * c.embedWpw + h * act, patches * in * act + patches * h * act, 0, p.train);
    }
    double adds = 0, aBytes = N * h * act;
    if (m.positions == PositionEncoding::Learned) {
        adds += 1;
        aBytes += N * h * act;
    }
    if (m.tokenTypes > 0) {
        adds += 1;
        aBytes += N * h * act;
    }
    emitOp(c, "embed", OpClass::Elementwise, p.phase, p.headCount,
           perElement(adds, FlopName::EmbeddingAdds, N, FlopName::Tokens, h, FlopName::Hidden), N * h * c.embedWpw,
           aBytes, 0, p.train);
    if (m.embeddingNorm)
        emitNorm(c, "embed.norm", p.phase, p.headCount, N, FlopName::Tokens, p.train);
    if (m.perLayerInput > 0)
        emitPerLayerEmbeddings(c, p);
    if (m.altupInputs > 1) // Gemma 3n: the extra streams of AltUp
        emitAltUpExpand(c, p);
}

/// Per-layer embeddings (Gemma 4 E2B/E4B; transformers' Gemma4TextModel.get_per_layer_inputs and
/// project_per_layer_inputs), on the embeddings' side: each token reads its row of the table, layers x
/// perLayerInput values, not the whole table (a gather, like the token embedding); the model projection of the
/// scaled token embedding (hidden -> layers x perLayerInput), scaled by 1 / sqrt(hidden); its RMSNorm per layer's
/// slice (perLayerInput weights); the sum with the row, scaled by 1 / sqrt(2): with the projection's scale 3 FLOPs an
/// element. The table and the
/// projection are stored with the embeddings (ParamCounts::embedding, in their format: embedWpw).
void emitPerLayerEmbeddings(Ctx &c, const Pass &p)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T, h = c.h, act = c.act;
    // Split by tensor parallelism like the other weights (the memory's weightsPerDevice()): each device holds and
    // computes 1/tp of the layers x perLayerInput columns.
    const double ple = static_cast<double>(m.perLayerInput);
    const double wide = static_cast<double>(m.layers) * ple / c.s.tp;
    emitOp(c, "ple.embed", OpClass::Elementwise, p.phase, p.headCount,
           perElement(1, FlopName::PerElementScale, N, FlopName::Tokens, wide, FlopName::AllPerLayerInputs),
           N * wide * c.embedWpw, N * wide * act, 0, p.train);
    emitOp(c, "ple.model_proj", OpClass::Matmul, p.phase, p.headCount,
           macs(N, FlopName::Tokens, h, FlopName::Hidden, wide, FlopName::AllPerLayerInputs), h * wide * c.embedWpw,
           N * h * act + N * wide * act, 0, p.train, N * h);
    emitOp(
        c, "ple.norm", OpClass::Normalization, p.phase, p.headCount,
        perElement(kRmsNormFlops, FlopName::PerElementRmsNorm, N, FlopName::Tokens, wide, FlopName::AllPerLayerInputs),
        ple * act, 2 * N * wide * act, 0, p.train);
    emitOp(c, "ple.combine", OpClass::Elementwise, p.phase, p.headCount,
           perElement(3, FlopName::PerElementScaledSum, N, FlopName::Tokens, wide, FlopName::AllPerLayerInputs), 0,
           3 * N * wide * act, 0, p.train);
}

void emitPerLayerInput(Ctx &c, const Pass &p, double lc)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T, h = c.h, act = c.act;
    const double ple = static_cast<double>(m.perLayerInput) / c.s.tp; // the gate's columns split by tp
    // per_layer_input_gate (h -> ple, no bias), its activation times the layer's slice of the per-layer inputs,
    // per_layer_projection (ple -> h), post_per_layer_input_norm, and the residual add.
    emitLinear(c, "ple.gate", p.phase, lc, N, h, ple, false, p.train);
    emitOp(c, "ple.act", OpClass::Elementwise, p.phase, lc,
           perElement(activationFlops(m.activation) + 1, FlopName::PerElementGatedActivation, N, FlopName::Tokens, ple,
                      FlopName::PerLayerInputWidth),
           0, 3 * N * ple * act, 0, p.train);
    emitLinear(c, "ple.proj", p.phase, lc, N, ple, h, false, p.train);
    emitNorm(c, "ple.post_norm", p.phase, lc, N, FlopName::Tokens, p.train);
    if (m.altupInputs == 0) {
        emitResidual(c, "ple.residual", p.phase, lc, N, p.train);
        return;
    }
    // Gemma 3n: added to every AltUp stream but the active one (corrected_predictions[1:]), 1 an element; reads the
    // n - 1 streams and the projection, writes the streams.
    const double extra = static_cast<double>(m.altupInputs - 1);
    if (extra > 0)
        emitOp(c, "ple.residual", OpClass::Elementwise, p.phase, lc,
               perElement(kResidualFlops, FlopName::PerElementAdd, N, FlopName::Tokens, extra,
                          FlopName::ExtraAltupStreams, c.h, FlopName::Hidden),
               0, (2 * extra + 1) * N * c.h * act, 0, p.train);
}

namespace {

/// A decoder's head over the tokens that get logits: the final norm, the LM head (this device's share of the
/// vocabulary) and the logits' soft-cap.
void emitLmHead(Ctx &c, const Pass &p)
{
    const ModelShape &m = c.m;
    const double h = c.h, act = c.act;
    const double lmN = p.Bm * p.lmTokens;
    if (m.altupInputs > 1) // Gemma 3n: the streams back into one before the final norm
        emitAltUpCollapse(c, p);
    emitNorm(c, "final_norm", p.phase, p.headCount, lmN, FlopName::TokensWithLogits, p.train);
    const double vocabLocal = static_cast<double>(m.vocab) / c.s.tp;
    // A head bias (Phi-3.5-MoE's lm_head_bias) adds one value per logit and is read with the weights.
    const double headBias = m.headBias ? 1.0 : 0.0;
    emitOp(c, "lm_head", OpClass::Matmul, p.phase, p.headCount,
           plus(macs(lmN, FlopName::TokensWithLogits, h, FlopName::Hidden, vocabLocal, FlopName::VocabularyShare),
                headBias * lmN * vocabLocal, FlopName::BiasAddsLogits),
           h * vocabLocal * c.embedWpw + headBias * vocabLocal * act, lmN * h * act + lmN * vocabLocal * act, 0,
           p.train);
    // Soft-capped logits (Gemma 2's final_logit_softcapping): cap x tanh(logit / cap) on every logit, an operator of
    // its own that reads and writes the logits.
    if (m.finalSoftcap > 0)
        emitOp(c, "lm_head.softcap", OpClass::Elementwise, p.phase, p.headCount,
               perElement(kSoftcapFlops, FlopName::PerLogitSoftcap, lmN, FlopName::TokensWithLogits, vocabLocal,
                          FlopName::VocabularyShare),
               0, 2 * lmN * vocabLocal * act, 0, p.train);
}

} // namespace

void emitHead(Ctx &c, const Pass &p)
{
    const ModelShape &m = c.m;
    if (m.arch == Architecture::Decoder) {
        emitLmHead(c, p);
        return;
    }
    // An encoder: a pre-norm encoder's final norm over every token (ViT's layernorm), then the pooler on the first.
    const double h = c.h;
    if (m.finalNorm)
        emitNorm(c, "final_norm", p.phase, p.headCount, p.Bm * p.T, FlopName::Tokens, p.train);
    if (m.pooler)
        emitOp(c, "pooler", OpClass::Matmul, p.phase, p.headCount,
               plus(macs(p.Bm, FlopName::Sequences, h, FlopName::Hidden, h, FlopName::Hidden), p.Bm * h,
                    FlopName::BiasAddsSequencesHidden),
               (h * h) * c.wpw + h * c.act, 2 * p.Bm * h * c.act, 0, p.train);
}

} // namespace memwall::core::detail
