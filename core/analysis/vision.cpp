// A multimodal wrapper's vision tower in prefill (issue #38): each request's images through the patch embedding, the
// encoder's blocks and the projector, before the language model prefills their image tokens with the prompt
// (withImageTokens() adds them to the prompt). The tower runs on the first pipeline stage, once per micro-batch, like
// the embeddings; its matmuls and attention heads are split by tp as its parameters are (localParams()); the
// all-reduces tensor parallelism would add inside the tower are not counted.
#include "core/analysis/passcontext.h"

#include <array>

namespace memwall::core::detail {

namespace {

/// A LayerNorm (weight and bias, 7 FLOPs an element) or an RMSNorm (weight, 4) of `width` over `tokens` tokens.
void emitVisionNorm(Ctx &c, std::string_view name, double count, double tokens, double width, bool layerNorm,
                    FlopName widthName)
{
    emitOp(c, name, OpClass::Normalization, Phase::Prefill, count,
           perElement(layerNorm ? kLayerNormFlops : kRmsNormFlops,
                      layerNorm ? FlopName::PerElementLayerNorm : FlopName::PerElementRmsNorm, tokens, FlopName::Tokens,
                      width, widthName),
           (layerNorm ? 2 : 1) * width * c.act, 2 * tokens * width * c.act, 0, 1);
}

/// An add of two inputs into one output over `tokens` x `width` elements (1 FLOP each).
void emitVisionAdd(Ctx &c, std::string_view name, double count, double tokens, double width, FlopName widthName)
{
    emitOp(c, name, OpClass::Elementwise, Phase::Prefill, count,
           perElement(kResidualFlops, FlopName::PerElementAdd, tokens, FlopName::Tokens, width, widthName), 0,
           3 * tokens * width * c.act, 0, 1);
}

/// The encoder's blocks, `L` executions of each operator over `imgs` images of `n` tokens: bidirectional attention
/// over each image's tokens (n x n pairs a head, fused: the scores never reach memory) and the two-matrix MLP.
void emitVisionBlocks(Ctx &c, double L, double imgs, double n)
{
    const VisionShape &v = c.m.vision;
    const double tp = c.s.tp, act = c.act, N = imgs * n;
    const auto h = static_cast<double>(v.hidden);
    const double hq = static_cast<double>(v.heads) / tp, d = h / static_cast<double>(v.heads);
    const double ffn = static_cast<double>(v.ffn) / tp, pairs = n * n;
    const bool fused = c.s.fusedAttention;
    const double scores = imgs * hq * pairs;
    emitVisionNorm(c, "vision.attn.norm", L, N, h, true, FlopName::VisionHidden);
    emitLinear(c, "vision.attn.qkv_proj", Phase::Prefill, L, N, h, 3 * h / tp, true, 1);
    if (v.rotary) // MoonViT's 2D rotary positions on every q and k element (3 FLOPs each), read and written once
        emitOp(
            c, "vision.attn.rope", OpClass::Elementwise, Phase::Prefill, L,
            perElement(kRopeFlops, FlopName::PerRotatedElement, N, FlopName::Tokens, 2 * h / tp, FlopName::QAndKWidths),
            0, 2 * N * 2 * h / tp * act, 0, 1);
    emitOp(
        c, "vision.attn.score", OpClass::Attention, Phase::Prefill, L,
        macs(imgs, FlopName::Images, hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, d, FlopName::HeadDim),
        0, 2 * N * hq * d * act + (fused ? 0 : scores * act), 0, 1);
    emitOp(c, "vision.attn.softmax", OpClass::Normalization, Phase::Prefill, L,
           perElement(kSoftmaxFlops, FlopName::PerScoreSoftmax, imgs, FlopName::Images, hq, FlopName::Heads, pairs,
                      FlopName::QueryKeyPairsPerHead),
           0, fused ? 0 : 2 * scores * act, 0, 1);
    emitOp(
        c, "vision.attn.context", OpClass::Attention, Phase::Prefill, L,
        macs(imgs, FlopName::Images, hq, FlopName::Heads, pairs, FlopName::QueryKeyPairsPerHead, d, FlopName::HeadDim),
        0, 2 * N * hq * d * act + (fused ? 0 : scores * act), 0, 1);
    emitLinear(c, "vision.attn.out_proj", Phase::Prefill, L, N, h / tp, h, true, 1);
    emitVisionAdd(c, "vision.attn.residual", L, N, h, FlopName::VisionHidden);
    emitVisionNorm(c, "vision.ffn.norm", L, N, h, true, FlopName::VisionHidden);
    emitLinear(c, "vision.ffn.up", Phase::Prefill, L, N, h, ffn, true, 1);
    emitOp(c, "vision.ffn.act", OpClass::Elementwise, Phase::Prefill, L,
           perElement(activationFlops(v.activation), FlopName::PerElementActivation, N, FlopName::Tokens, ffn,
                      FlopName::VisionFfnWidth),
           0, 2 * N * ffn * act, 0, 1);
    emitLinear(c, "vision.ffn.down", Phase::Prefill, L, N, ffn, h, true, 1);
    emitVisionAdd(c, "vision.ffn.residual", L, N, h, FlopName::VisionHidden);
}

/// The projector's linear layers over `tokens` merged tokens, `count` times, with the tower's activation between
/// them; `names` the operators' names (the main projector's or the deepstack mergers').
void emitProjectorLinears(Ctx &c, double count, double tokens, const std::array<std::string_view, 4> &names)
{
    const VisionShape &v = c.m.vision;
    const double tp = c.s.tp;
    double in = static_cast<double>(v.mergedWidth());
    for (int64_t i = 0; i < v.projectorLayers; ++i) {
        const auto out = static_cast<double>(v.projector[static_cast<std::size_t>(i)]);
        emitLinear(c, names[static_cast<std::size_t>(i)], Phase::Prefill, count, tokens, in, out / tp, v.projectorBias,
                   1);
        if (i + 1 < v.projectorLayers)
            emitOp(c, names[3], OpClass::Elementwise, Phase::Prefill, count,
                   perElement(activationFlops(v.activation), FlopName::PerElementActivation, tokens, FlopName::Tokens,
                              out / tp, FlopName::Outputs),
                   0, 2 * tokens * out / tp * c.act, 0, 1);
        in = out;
    }
}

} // namespace

void emitVisionTower(Ctx &c, const Step &st)
{
    const VisionShape &v = c.m.vision;
    const double count = st.headCount, act = c.act, tp = c.s.tp;
    const double imgs = st.Bm * static_cast<double>(c.s.images);
    const auto n = static_cast<double>(v.encoderTokens()), h = static_cast<double>(v.hidden);
    const double N = imgs * n, patches = imgs * static_cast<double>(v.patches);
    const double tokens = imgs * static_cast<double>(v.tokensPerImage());
    // The patch embedding (a convolution whose kernel and stride are the patch: a matmul of each patch's values),
    // then the learned positions added to every token (Qwen3-VL interpolates its grid of positions bilinearly: the
    // four taps' weighting is not counted). A class token is a copy of learned weights.
    emitLinear(c, "vision.patch_embed", Phase::Prefill, count, patches, static_cast<double>(v.patchInputs), h / tp,
               v.patchBias, 1);
    emitOp(c, "vision.positions", OpClass::Elementwise, Phase::Prefill, count,
           perElement(kResidualFlops, FlopName::PerElementAdd, N, FlopName::Tokens, h, FlopName::VisionHidden),
           static_cast<double>(v.positionRows) * h * c.wpw, 2 * N * h * act, 0, 1);
    if (v.preNorm)
        emitVisionNorm(c, "vision.pre_norm", count, N, h, true, FlopName::VisionHidden);
    emitVisionBlocks(c, count * static_cast<double>(v.layers), imgs, n);
    if (v.postNorm)
        emitVisionNorm(c, "vision.post_norm", count, N, h, true, FlopName::VisionHidden);
    // The merge: Qwen3-VL's and Llama 4's concatenate neighbouring patches (a reshape: no operator); Gemma 3 averages
    // 4 x 4 patches (one add an input element, the divide folded into the norm that follows).
    if (v.projectorNorm == ProjectorNorm::LayerNormBeforeMerge)
        emitVisionNorm(c, "vision.merger.norm", count, patches, h, true, FlopName::VisionHidden);
    if (v.mergePool)
        emitOp(c, "vision.merger.pool", OpClass::Elementwise, Phase::Prefill, count,
               perElement(1, FlopName::PerElementAdd, patches, FlopName::Tokens, h, FlopName::VisionHidden), 0,
               (patches + tokens) * h * act, 0, 1);
    if (v.projectorNorm == ProjectorNorm::RmsNormAfterMerge)
        emitVisionNorm(c, "vision.merger.norm", count, tokens, h, false, FlopName::VisionHidden);
    emitProjectorLinears(
        c, count, tokens,
        {"vision.projector.fc1", "vision.projector.fc2", "vision.projector.fc3", "vision.projector.act"});
    if (v.deepstack > 0) {
        // Qwen3-VL's deepstack mergers: each takes an earlier block's output through its own LayerNorm (of the merged
        // width) and projector; the language model adds each into the image tokens' hidden states after one of its
        // first layers.
        const auto ds = static_cast<double>(v.deepstack), merged = static_cast<double>(v.mergedWidth());
        emitVisionNorm(c, "vision.deepstack.norm", count * ds, tokens, merged, true, FlopName::MergedWidth);
        emitProjectorLinears(
            c, count * ds, tokens,
            {"vision.deepstack.fc1", "vision.deepstack.fc2", "vision.deepstack.fc3", "vision.deepstack.act"});
        emitVisionAdd(c, "vision.deepstack.add", count * ds, tokens, static_cast<double>(c.m.hidden), FlopName::Hidden);
    }
}

} // namespace memwall::core::detail
