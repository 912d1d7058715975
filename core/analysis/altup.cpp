// Gemma 3n's AltUp and LAuReL (ModelShape::altupInputs, laurelRank; transformers' models/gemma3n/modeling_gemma3n.py:
// Gemma3nTextModel, Gemma3nTextAltUp, Gemma3nTextLaurelBlock, Gemma3nTextDecoderLayer) and its statistical top-k on
// the MLP gate (sparseFfnLayers, Gemma3nTextMLP._gaussian_topk). Per-token scalars (a magnitude's square root, a
// coefficient's clamp, the cut-off of the top-k) are a few FLOPs a token beside thousands an element and are left
// out, as the norms' are (docs/model.md, "Gemma 3n").
#include "core/analysis/passcontext.h"

namespace memwall::core::detail {

void emitAltUpExpand(Ctx &c, const Pass &p)
{
    const double n = static_cast<double>(c.m.altupInputs), N = p.Bm * p.T, h = c.h, act = c.act;
    // altup_projections: n - 1 linear layers hidden -> hidden without bias, on the embedding.
    emitLinear(c, "altup.proj", p.phase, p.headCount, N, h, (n - 1) * h, false, p.train);
    // Each projected stream rescaled to the embedding's RMS magnitude: the embedding's square and sum (2 an element),
    // each other stream's square, sum and rescale (3 an element); reads the n streams, writes the n - 1 rescaled.
    emitOp(c, "altup.expand", OpClass::Elementwise, p.phase, p.headCount,
           perElement(3 * n - 1, FlopName::PerElementAltupExpand, N, FlopName::Tokens, h, FlopName::Hidden), 0,
           (2 * n - 1) * N * h * act, 0, p.train);
}

void emitAltUpCollapse(Ctx &c, const Pass &p)
{
    // transformers collapses the streams inside the base model, for every token of the pass (before the final norm),
    // not only the tokens that get logits.
    const double n = static_cast<double>(c.m.altupInputs), N = p.Bm * p.T, h = c.h, act = c.act;
    emitLinear(c, "altup.unembed", p.phase, p.headCount, N, h, (n - 1) * h, false, p.train);
    // The magnitudes and rescale as in altup.expand ((3n - 1) an element), then the mean of the n streams (n - 1
    // adds and a scale); reads the n streams, writes one.
    emitOp(c, "altup.collapse", OpClass::Elementwise, p.phase, p.headCount,
           perElement(4 * n - 1, FlopName::PerElementAltupCollapse, N, FlopName::Tokens, h, FlopName::Hidden), 0,
           (n + 1) * N * h * act, 0, p.train);
}

void emitAltUpPredict(Ctx &c, const Pass &p, double lc)
{
    const ModelShape &m = c.m;
    const double n = static_cast<double>(m.altupInputs), N = p.Bm * p.T, h = c.h, act = c.act;
    if (m.altupInputs > 0) {
        // compute_router_modalities, twice a layer (predict on the active stream, correct on the layer's output):
        // router_norm (RMSNorm of hidden) times router_input_scale 1/hidden, modality_router hidden -> n.
        emitOp(
            c, "altup.router_norm", OpClass::Normalization, p.phase, 2 * lc,
            perElement(kRmsNormFlops + 1, FlopName::PerElementScaledRmsNorm, N, FlopName::Tokens, h, FlopName::Hidden),
            c.normW * act, 2 * N * h * act, 0, p.train);
        emitLinear(c, "altup.router", p.phase, 2 * lc, N, h, n, false, p.train);
        // The coefficients: tanh of both routers' n outputs, prediction_coefs (n -> n^2) and correction_coefs (n ->
        // n, plus 1); their n^3 + n^2 weights read, the router outputs in and the coefficients out.
        emitOp(c, "altup.coefs", OpClass::Elementwise, p.phase, lc,
               perElement(2 * n * n * n + 2 * n * n + 3 * n, FlopName::PerTokenAltupCoefs, N, FlopName::Tokens),
               (n * n * n + n * n) * c.wpw, (3 * n + n * n) * N * act, 0, p.train);
        // predict: each stream a combination of all n (2n FLOPs an element) plus itself; reads the n streams and
        // the n^2 coefficients, writes n predictions.
        emitOp(c, "altup.predict", OpClass::Elementwise, p.phase, lc,
               perElement(2 * n + 1, FlopName::PerElementAltupPredict, N, FlopName::Tokens, n, FlopName::AltupStreams,
                          h, FlopName::Hidden),
               0, (2 * n * h + n * n) * N * act, 0, p.train);
    }
    if (m.laurelRank <= 0)
        return;
    // LAuReL on the normed active stream: linear_left (hidden -> rank), linear_right (rank -> hidden), its norm,
    // and the sums: its input plus the normed output, plus the attention's residual, times 1/sqrt(2).
    const double r = static_cast<double>(m.laurelRank);
    emitLinear(c, "laurel.left", p.phase, lc, N, h, r, false, p.train);
    emitLinear(c, "laurel.right", p.phase, lc, N, r, h, false, p.train);
    emitNorm(c, "laurel.norm", p.phase, lc, N, FlopName::Tokens, p.train);
    emitOp(c, "laurel.combine", OpClass::Elementwise, p.phase, lc,
           perElement(3, FlopName::PerElementTwoAddsScale, N, FlopName::Tokens, h, FlopName::Hidden), 0,
           4 * N * h * act, 0, p.train);
}

void emitAltUpCorrect(Ctx &c, const Pass &p, double lc)
{
    const ModelShape &m = c.m;
    if (m.altupInputs <= 0)
        return;
    const double n = static_cast<double>(m.altupInputs), N = p.Bm * p.T, h = c.h, act = c.act;
    // correct: the innovation (the layer's output less the active prediction, 1 an element of hidden), each stream
    // plus its coefficient times the innovation (2 an element of n x hidden), and with altup_correct_scale the
    // active stream times correct_output_scale (1 an element of hidden, its hidden weights read). Reads the n
    // predictions, the output and the n coefficients; writes the n corrected streams.
    const double scale = m.altupCorrectScale ? 1.0 : 0.0;
    emitOp(c, "altup.correct", OpClass::Elementwise, p.phase, lc,
           plus(perElement(2, FlopName::PerElementAltupCorrect, N, FlopName::Tokens, n, FlopName::AltupStreams, h,
                           FlopName::Hidden),
                (1 + scale) * N * h, FlopName::PerElementAltupCorrect),
           scale * h * act, ((2 * n + 1) * h + n) * N * act, 0, p.train);
}

void emitGateTopk(Ctx &c, const Pass &p, double lc)
{
    // Gemma3nTextMLP._gaussian_topk on gate_proj's output, per token: its mean (1 an element), its standard deviation
    // (subtract, square, add: 3), relu(x - cutoff) (2); reads the gate's output, writes it cut. The down projection
    // stays dense (transformers multiplies the zeros), so the matmuls are unchanged.
    const double N = p.Bm * p.T;
    emitOp(c, "ffn.gate_topk", OpClass::Elementwise, p.phase, lc,
           perElement(6, FlopName::PerElementGaussianTopk, N, FlopName::Tokens, c.ffn, FlopName::FfnWidth), 0,
           2 * N * c.ffn * c.act, 0, p.train);
}

} // namespace memwall::core::detail
