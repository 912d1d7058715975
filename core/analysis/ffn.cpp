// The FFN part of a layer: its norm, a dense FFN, or a mixture of experts (router, routed experts, shared expert),
// its post-norm and residual.
#include "core/analysis/passcontext.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace memwall::core::detail {

namespace {

/// One FFN of width `f` (per device) over `tokens` tokens, `touched` copies of its weights (`wpw` bytes each) read;
/// `downExtraFlops` more in the down projection (a shared expert's gated add).
/// `expertTokens` > 0: the routed experts' FFN, part of the fused MoE kernel at that many tokens per expert.
void emitFfn(Ctx &c, const Pass &p, double lc, double f, double tokens, double touched, double wpw,
             const FfnNames &names, double downExtraFlops = 0, double expertTokens = 0)
{
    const ModelShape &m = c.m;
    const double h = c.h, act = c.act;
    const double biasUp = m.ffnBias ? 1.0 : 0.0;
    const double kernelTouched = expertTokens > 0 ? touched : 0.0;
    for (std::string_view name : {names.up, names.gate}) {
        emitOp(c, name, OpClass::Matmul, p.phase, lc,
               plus(macs(tokens, FlopName::Tokens, h, FlopName::Hidden, f, FlopName::FfnWidth, 1, FlopName::None,
                         c.flopFactor),
                    biasUp * tokens * f, FlopName::BiasAddsTokensFfnWidth),
               touched * (h * f * wpw + biasUp * f * act), tokens * h * act + tokens * f * act, 0, p.train,
               name == names.up ? tokens * h : 0.0, expertTokens,
               kernelTouched); // the gate reads the same quantized input
        if (!m.gatedFfn)
            break; // a plain FFN has no gate
    }
    emitOp(c, names.act, OpClass::Elementwise, p.phase, lc,
           perElement(activationFlops(m.activation) + (m.gatedFfn ? 1 : 0),
                      m.gatedFfn ? FlopName::PerElementGatedActivation : FlopName::PerElementActivation, tokens,
                      FlopName::Tokens, f, FlopName::FfnWidth),
           0, (m.gatedFfn ? 3 : 2) * tokens * f * act, 0, p.train, 0, expertTokens, kernelTouched);
    emitOp(c, names.down, OpClass::Matmul, p.phase, lc,
           plus(macs(tokens, FlopName::Tokens, f, FlopName::FfnWidth, h, FlopName::Hidden, 1, FlopName::None,
                     c.flopFactor),
                biasUp * tokens * h + downExtraFlops,
                downExtraFlops > 0 ? FlopName::BiasAddsAndSharedExpertAdd : FlopName::BiasAddsTokensHidden),
           touched * (f * h * wpw + biasUp * h * act), tokens * f * act + tokens * h * act, 0, p.train, tokens * f,
           expertTokens, kernelTouched);
}

} // namespace

ExpertLoad expertLoad(double tokens, double experts, double active, double localExperts, int ep)
{
    // Expected number of distinct experts hit by N tokens choosing k of E each, and the local share of them.
    const double hit = 1.0 - std::pow(1.0 - active / experts, tokens);
    ExpertLoad l;
    l.tokens = tokens * active * localExperts / experts;
    l.touched = localExperts * hit;
    // With expert parallelism each layer waits for its busiest device: the E * hit experts hit lie on ep devices, so
    // one device holds at least ceil(E * hit / ep) of them (pigeonhole), and each one it holds reads its whole
    // weights for at least one token. At batch 1 top-2 over 8 experts on 8 devices, that is one whole expert per
    // layer, not the average device's quarter of one.
    if (ep > 1) {
        const double busiest = std::min(localExperts, std::ceil(experts * hit / ep - 1e-9));
        l.touched = std::max(l.touched, busiest);
        l.tokens = std::max(l.tokens, l.touched);
    }
    return l;
}

namespace {

/// The router of `lm` routed layers: its GEMM over the E experts' columns (and the shared expert's sigmoid gate as
/// one more: Qwen2-MoE), then each token's top-k: softmax over its E scores, or DeepSeek-V3's sigmoid plus a bias per
/// expert, and a selection keeping k of them (a heap of k: log2 k compares per score, counted as operations). It
/// reads the scores and writes k indices (int32) and k weights per token.
void emitRouting(Ctx &c, const Pass &p, double lm, double N)
{
    const ModelShape &m = c.m;
    const double h = c.h, act = c.act;
    const double E = static_cast<double>(m.experts), k = static_cast<double>(m.activeExperts);
    const double cols = E + (m.sharedExpertGate ? 1.0 : 0.0);
    emitOp(c, "ffn.router", OpClass::Matmul, p.phase, lm,
           macs(N, FlopName::Tokens, h, FlopName::Hidden, cols, FlopName::RouterColumns), h * cols * c.wpw,
           N * h * act + N * cols * act, 0, p.train);
    const double perScore = (m.routerBias ? kSigmoidBiasFlops : kSoftmaxFlops) + std::log2(std::max(k, 2.0));
    // Gemma 4's router then scales each chosen expert's weight by one of E per-expert weights: a multiply per routed
    // copy (N x k), E weights read.
    const FlopTerms topk =
        perElement(perScore, FlopName::PerRouterScore, N, FlopName::Tokens, E, FlopName::RouterColumns);
    emitOp(c, "moe.topk", OpClass::Elementwise, p.phase, lm,
           m.moeBesideDense ? plus(topk, N * k, FlopName::RoutedCopies) : topk,
           (m.routerBias ? E * 4 : 0.0) + (m.moeBesideDense ? E * c.wpw : 0.0), N * E * act + N * k * (4 + act), 0,
           p.train);
}

/// The routed layers' FFN, `lm` times: the router, the experts local to this device (top-k routing) inside the fused
/// MoE kernel (permute each routed token copy to its expert, the experts' FFN, unpermute and weight the copies back
/// into their tokens), and the shared expert.
void emitMoe(Ctx &c, const Pass &p, double lm)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T, h = c.h, act = c.act;
    const double E = static_cast<double>(m.experts), k = static_cast<double>(m.activeExperts);
    emitRouting(c, p, lm, N);
    // The experts see the tokens of every attention-DP rank: the copy's N x attention_dp, k each, over moe_ep
    // devices; the layer waits for the busiest of them, which gets moe_imbalance times the mean.
    const double copyTokens = N * c.s.attentionDp;
    ExpertLoad load = expertLoad(copyTokens, E, k, c.localExperts, moeEp(c.s));
    if (c.s.moeImbalance > 1)
        load.tokens = std::min(load.tokens * c.s.moeImbalance, copyTokens * std::min(k, c.localExperts));
    // Tokens per expert on the busiest device: what the grouped GEMMs' efficiency depends on.
    const double perExpert = load.touched > 0 ? load.tokens / load.touched : 0.0;
    // Permute: each routed copy's hidden vector read and written once, grouped by expert (a gather).
    emitOp(c, "moe.permute", OpClass::Elementwise, p.phase, lm, FlopTerms{}, 0, 2 * load.tokens * h * act, 0, p.train,
           0, perExpert, load.touched);
    emitFfn(c, p, lm, c.ffn, load.tokens, load.touched, c.expertWpw, kFfn, 0, perExpert);
    // Unpermute: each copy read, scaled by its router weight and added into its token (a multiply-add per element),
    // and the token written.
    emitOp(c, "moe.unpermute", OpClass::Elementwise, p.phase, lm,
           perElement(2, FlopName::PerElementWeightedAdd, load.tokens, FlopName::RoutedCopies, h, FlopName::Hidden), 0,
           2 * load.tokens * h * act, 0, p.train, 0, perExpert, load.touched);
    // The shared expert: one more FFN that every token goes through, on every expert-parallel rank (it is replicated
    // there, split only by tensor parallelism). Its output is scaled by the gate and added to the routed experts'
    // sum: a multiply-add per element, 2 FLOPs, counted in the down projection.
    if (m.sharedFfn > 0)
        emitFfn(c, p, lm, c.sharedFfn, N, 1, c.wpw, kSharedFfn, 2 * N * h);
}

/// Gemma 4's MoE block beside its dense MLP (LayerFfn::DenseAndMoe), `lb` times: the dense MLP on the FFN's pre-norm
/// and its post-norm; the router's weightless RMSNorm of the layer's input, scaled per channel (a weight each) and by
/// 1 / sqrt(hidden): 4 + 2 FLOPs an element; the experts' own pre-norm, the experts, their post-norm; the two
/// branches summed.
void emitDenseAndMoe(Ctx &c, const Pass &p, double lb)
{
    const double N = p.Bm * p.T, act = c.act;
    emitFfn(c, p, lb, c.denseFfn, N, 1, c.wpw, kDenseFfn);
    emitNorm(c, "ffn.dense_post_norm", p.phase, lb, N, FlopName::Tokens, p.train);
    emitOp(c, "moe.router_norm", OpClass::Normalization, p.phase, lb,
           perElement(kRmsNormFlops + 2, FlopName::PerElementRmsNorm, N, FlopName::Tokens, c.h, FlopName::Hidden),
           c.h * c.wpw, 2 * N * c.h * act, 0, p.train);
    emitNorm(c, "moe.pre_norm", p.phase, lb, N, FlopName::Tokens, p.train);
    emitMoe(c, p, lb);
    emitNorm(c, "moe.post_norm", p.phase, lb, N, FlopName::Tokens, p.train);
    emitResidual(c, "ffn.branch_add", p.phase, lb, N, p.train);
}

} // namespace

namespace {

/// The operator names of the dense FFNs of width `width` of a model whose layers have several widths (DeciLM's
/// ffn_mult per layer): "ffn.up_28672", ...
FfnNames widthFfnNames(int64_t width)
{
    const std::string w = "_" + std::to_string(width);
    return {internName("ffn.up" + w), internName("ffn.gate" + w), internName("ffn.act" + w),
            internName("ffn.down" + w)};
}

/// The dense FFNs of a model with one block a layer (ModelShape::layerBlocks), `lc` executions of all layers: one FFN
/// per width, over the layers of that width, under the plain names when there is one width.
void emitListedDenseFfns(Ctx &c, const Pass &p, double lc)
{
    const double N = p.Bm * p.T, L = static_cast<double>(c.m.layers);
    std::vector<std::pair<int64_t, int64_t>> widths; // width, layers; in the order of each width's first layer
    for (const LayerGroup &g : c.groups) {
        if (g.block.ffn != LayerFfn::Dense)
            continue;
        const int64_t w = denseFfnWidth(c.m, g.block);
        auto at = std::find_if(widths.begin(), widths.end(), [w](const auto &x) { return x.first == w; });
        if (at == widths.end())
            widths.emplace_back(w, g.count);
        else
            at->second += g.count;
    }
    for (const auto &[w, n] : widths)
        emitFfn(c, p, lc * static_cast<double>(n) / L, static_cast<double>(w / c.s.tp), N, 1, c.wpw,
                widths.size() == 1 ? kFfn : widthFfnNames(w));
}

} // namespace

void emitFfnBlock(Ctx &c, const Pass &p)
{
    const ModelShape &m = c.m;
    const double N = p.Bm * p.T, lc = p.layerCount, L = static_cast<double>(m.layers);
    // The layers with an FFN: all of them, but a layer pattern's mixer-only ones (Nemotron-H's 'M' and '*').
    const double lf = lc * c.ffnLayers / L;
    if (!(m.parallelAttention && m.sharedLayerNorm))
        emitNorm(c, "ffn.norm", p.phase, lf, N, FlopName::Tokens, p.train);
    // Dense, or MoE with top-k routing over the experts local to this device.
    const double sparse = c.sparseLayers, beside = c.besideLayers;
    const double wide = c.wideFfnLayers; // Gemma 4 E2B/E4B: the KV-sharing layers' MLP twice as wide
    if (!m.layerBlocks.empty())
        emitListedDenseFfns(c, p, lc);
    else if (sparse + wide < c.ffnLayers) // a dense model's FFN, or a MoE model's dense layers
        emitFfn(c, p, lc * (c.ffnLayers - sparse - wide) / L, m.isMoe() ? c.denseFfn : c.ffn, N, 1, c.wpw,
                sparse > 0 ? kDenseFfn : kFfn);
    if (wide > 0)
        emitFfn(c, p, lc * wide / L, 2 * c.ffn, N, 1, c.wpw, kWideFfn);
    if (sparse > beside)
        emitMoe(c, p, lc * (sparse - beside) / L);
    if (beside > 0) // Gemma 4: the experts beside a dense MLP
        emitDenseAndMoe(c, p, lc * beside / L);
    if (m.sparseFfnLayers > 0) // Gemma 3n: the first layers' statistical top-k on the gate (altup.cpp)
        emitGateTopk(c, p, lc * static_cast<double>(m.sparseFfnLayers) / L);
    if (m.postNorms)
        emitNorm(c, "ffn.post_norm", p.phase, lf, N, FlopName::Tokens, p.train);
    emitResidual(c, "ffn.residual", p.phase, lf, N, p.train);
}

} // namespace memwall::core::detail
