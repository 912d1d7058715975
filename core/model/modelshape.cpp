#include "core/model/modelshape.h"

#include "core/util/enumnames.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

namespace memwall::core {

namespace {
constexpr NameTable<Architecture, 2> kArch{{{Architecture::Decoder, "decoder"}, {Architecture::Encoder, "encoder"}}};
constexpr NameTable<PositionEncoding, 4> kPos{{{PositionEncoding::Learned, "learned"},
                                               {PositionEncoding::Rotary, "rotary"},
                                               {PositionEncoding::Alibi, "alibi"},
                                               {PositionEncoding::None, "none"}}};
constexpr NameTable<NormKind, 2> kNorm{{{NormKind::LayerNorm, "layernorm"}, {NormKind::RmsNorm, "rmsnorm"}}};
constexpr NameTable<Activation, 4> kAct{
    {{Activation::Gelu, "gelu"}, {Activation::Silu, "silu"}, {Activation::Relu, "relu"}, {Activation::Relu2, "relu2"}}};
constexpr NameTable<MixerKind, 2> kMixer{{{MixerKind::Attention, "attention"}, {MixerKind::Mla, "mla"}}};
constexpr NameTable<LayerMixer, 9> kLayerMixer{{{LayerMixer::Attention, "attention"},
                                                {LayerMixer::Sliding, "sliding"},
                                                {LayerMixer::Chunked, "chunked"},
                                                {LayerMixer::Latent, "latent"},
                                                {LayerMixer::SparseLatent, "sparse-latent"},
                                                {LayerMixer::LinearRecurrent, "linear-recurrent"},
                                                {LayerMixer::Ssm, "ssm"},
                                                {LayerMixer::None, "none"},
                                                {LayerMixer::Linear, "linear"}}};
constexpr NameTable<LayerFfn, 5> kLayerFfn{{{LayerFfn::Dense, "dense"},
                                            {LayerFfn::Moe, "moe"},
                                            {LayerFfn::DenseAndMoe, "dense-and-moe"},
                                            {LayerFfn::None, "none"},
                                            {LayerFfn::Linear, "linear"}}};
constexpr NameTable<SsmKind, 3> kSsm{
    {{SsmKind::None, "none"}, {SsmKind::Mamba1, "mamba1"}, {SsmKind::Mamba2, "mamba2"}}};

/// One state-space layer's mixer (Hugging Face's MambaMixer / Mamba2Mixer, mamba_ssm's Mamba / Mamba2).
int64_t ssmParams(const ModelShape &m)
{
    const SsmShape &x = m.ssm;
    const int64_t h = m.hidden, i = x.innerSize, n = x.stateSize;
    const int64_t conv = x.convDim() * x.convKernel + (x.convBias ? x.convDim() : 0);
    if (x.kind == SsmKind::Mamba2) {
        // in_proj: h -> z and x (2 d_inner), B and C (2 groups d_state), dt (heads); dt_bias, A_log and D per head;
        // the gated RMSNorm over d_inner; out_proj: d_inner -> h.
        const int64_t in = 2 * i + 2 * x.groups * n + x.heads;
        return h * in + (x.projBias ? in : 0) + conv + 3 * x.heads + i + i * h + (x.projBias ? h : 0);
    }
    // Mamba-1: in_proj h -> x and z; x_proj d_inner -> dt_rank + B + C; dt_proj dt_rank -> d_inner with a bias;
    // A_log (d_inner x d_state) and D (d_inner); out_proj d_inner -> h.
    int64_t p = h * 2 * i + (x.projBias ? 2 * i : 0) + conv + i * (x.dtRank + 2 * n) + x.dtRank * i + i + i * n + i +
                i * h + (x.projBias ? h : 0);
    if (x.innerNorms)
        p += x.dtRank + 2 * n;
    return p;
}

/// One linear-attention layer's mixer (transformers' Qwen3NextGatedDeltaNet; Qwen3.5 splits in_proj into
/// in_proj_qkv, in_proj_z, in_proj_b and in_proj_a, the same weights): in_proj h -> q, k (key dim each), v, z (value
/// dim each), b and a (value heads each); conv1d over q, k and v (conv_kernel weights a channel, no bias); dt_bias and
/// A_log per value head; the gated RMSNorm (value_head_dim); out_proj value dim -> h. No biases.
/// Kimi Delta Attention (gateRank r > 0; KimiDeltaAttention): q_proj, k_proj (key dim each) and v_proj (value dim)
/// from h; the three short convolutions (conv_kernel weights a channel, no bias); A_log per head; f_a_proj h -> r and
/// f_b_proj r -> value dim (the per-channel decay) with dt_bias per channel (value dim); b_proj h -> value heads;
/// g_a_proj h -> r and g_b_proj r -> value dim (the output gate); o_norm (value_head_dim); o_proj value dim -> h.
int64_t linearParams(const ModelShape &m)
{
    const LinearAttentionShape &x = m.linear;
    if (x.kimiDelta()) {
        const int64_t lowRank = 2 * (m.hidden * x.gateRank + x.gateRank * x.valueDim());
        return m.hidden * (2 * x.keyDim() + x.valueDim() + x.valueHeads) + x.convDim() * x.convKernel + x.valueHeads +
               x.valueDim() + lowRank + x.valueHeadDim + x.valueDim() * m.hidden;
    }
    const int64_t in = 2 * x.keyDim() + 2 * x.valueDim() + 2 * x.valueHeads;
    return m.hidden * in + x.convDim() * x.convKernel + 2 * x.valueHeads + x.valueHeadDim + x.valueDim() * m.hidden;
}

/// One layer's FFN of width `ffn` with the shape's projections and biases.
int64_t ffnParams(const ModelShape &m, int64_t ffn)
{
    int64_t p = (m.gatedFfn ? 3 : 2) * m.hidden * ffn;
    if (m.ffnBias)
        p += (m.gatedFfn ? 2 : 1) * ffn + m.hidden;
    return p;
}

/// One layer's token mixer: attention's (of widths `w`) or MLA's projections, biases and per-head norms.
int64_t mixerParams(const ModelShape &m, const AttentionWidths &w)
{
    const int64_t h = m.hidden;
    if (m.mixer == MixerKind::Mla) {
        const MlaShape &a = m.mla;
        const int64_t qHead = a.qkNopeHeadDim + a.qkRopeHeadDim;
        // q: h -> q_lora (+ its RMSNorm) -> heads x qHead, or h -> heads x qHead directly.
        int64_t p =
            a.qLoraRank > 0 ? h * a.qLoraRank + a.qLoraRank + a.qLoraRank * m.heads * qHead : h * m.heads * qHead;
        // kv_a_proj_with_mqa: h -> latent + shared rotary key; the latent's RMSNorm; kv_b_proj: latent -> heads x
        // (k_nope + v); o_proj: heads x v -> h.
        p += h * a.cachedPerToken() + a.kvLoraRank + a.kvLoraRank * m.heads * (a.qkNopeHeadDim + a.vHeadDim);
        p += m.heads * a.vHeadDim * h;
        if (m.outBias)
            p += h;
        // The lightning indexer (DeepseekV32Indexer): wq_b q_lora -> heads x head_dim, wk h -> head_dim, k_norm a
        // LayerNorm (weight and bias), weights_proj h -> heads; no biases.
        if (m.hasIndexer()) {
            const IndexerShape &x = m.indexer;
            p += a.qLoraRank * x.heads * x.headDim + h * x.headDim + 2 * x.headDim + h * x.heads;
        }
        return p;
    }
    const int64_t q = w.qDim(), kv = w.kvDim();
    const int64_t qOut = m.attentionOutputGate ? 2 * q : q; // gated attention: q_proj also gives the gate
    const int64_t kvOut = w.valueProjection ? 2 * kv : kv;  // keys that are values: no v_proj (Gemma 4)
    int64_t p = h * (qOut + kvOut) + q * h;
    if (m.qkvBias)
        p += qOut + kvOut;
    if (m.outBias)
        p += h;
    if (m.qkNorm)
        p += m.qkNormFullWidth ? q + kv : 2 * w.headDim;
    if (m.attentionSinks)
        p += w.heads;
    if (m.headWiseGate) // g_proj: hidden -> one gate per head, no bias (Step-3.5)
        p += h * w.heads;
    return p;
}
} // namespace

std::string_view toString(Architecture a) { return enumName(kArch, a); }
std::string_view toString(PositionEncoding p) { return enumName(kPos, p); }
std::string_view toString(NormKind n) { return enumName(kNorm, n); }
std::string_view toString(Activation a) { return enumName(kAct, a); }
std::optional<Architecture> architectureFromString(std::string_view s) { return enumFromName(kArch, s); }
std::optional<PositionEncoding> positionEncodingFromString(std::string_view s) { return enumFromName(kPos, s); }
std::optional<NormKind> normKindFromString(std::string_view s) { return enumFromName(kNorm, s); }
std::optional<Activation> activationFromString(std::string_view s) { return enumFromName(kAct, s); }
std::string_view toString(MixerKind k) { return enumName(kMixer, k); }
std::optional<MixerKind> mixerKindFromString(std::string_view s) { return enumFromName(kMixer, s); }
std::string_view toString(SsmKind k) { return enumName(kSsm, k); }
std::optional<SsmKind> ssmKindFromString(std::string_view s) { return enumFromName(kSsm, s); }

std::string_view toString(LayerMixer k) { return enumName(kLayerMixer, k); }
std::string_view toString(LayerFfn k) { return enumName(kLayerFfn, k); }
std::optional<LayerMixer> layerMixerFromString(std::string_view s) { return enumFromName(kLayerMixer, s); }
std::optional<LayerFfn> layerFfnFromString(std::string_view s) { return enumFromName(kLayerFfn, s); }

void LayerGroups::push(const LayerGroup &g)
{
    if (m_size < kInline) {
        m_inline[m_size++] = g;
        return;
    }
    if (m_heap.empty())
        m_heap.assign(m_inline.begin(), m_inline.end());
    m_heap.push_back(g);
    ++m_size;
}

namespace {
/// The attention kind of the shape's attending layers, with the layer's window (0: the whole context).
LayerMixer attentionKind(const ModelShape &m, int64_t window)
{
    if (m.mixer == MixerKind::Mla)
        return m.hasIndexer() ? LayerMixer::SparseLatent : LayerMixer::Latent;
    if (window == 0)
        return LayerMixer::Attention;
    return m.chunkedAttention ? LayerMixer::Chunked : LayerMixer::Sliding;
}
} // namespace

int64_t denseFfnWidth(const ModelShape &m, const LayerBlock &b)
{
    if (b.ffnWidth > 0) // DeciLM: the layer's own
        return b.ffnWidth;
    const int64_t f = m.isMoe() ? m.denseFfn : m.ffn;
    return b.sharesKv && m.doubleWideSharedFfn ? 2 * f : f; // Gemma 4 E2B/E4B: the KV-sharing layers' twice as wide
}

double kvHeadsOnDevice(int64_t kvHeads, int tp) { return static_cast<double>(kvHeads % tp == 0 ? kvHeads / tp : 1); }

LayerBlock layerBlock(const ModelShape &m, int64_t i)
{
    if (i >= 0 && i < static_cast<int64_t>(m.layerBlocks.size()))
        return m.layerBlocks[static_cast<std::size_t>(i)]; // heterogeneous layers: each given
    LayerBlock b;
    const bool global = m.globalEvery > 0 && i % m.globalEvery == (m.globalFirst ? 0 : m.globalEvery - 1);
    const int64_t window = global ? 0 : m.slidingWindow;
    const bool moe = m.isMoe() && i >= m.firstDenseLayers && m.moeEvery > 0 && i % m.moeEvery == m.moeOffset;
    b.ffn = m.ffn <= 0 ? LayerFfn::None
            : moe      ? (m.moeBesideDense ? LayerFfn::DenseAndMoe : LayerFfn::Moe)
                       : LayerFfn::Dense; // Mamba has no FFN
    const bool attends =
        m.linearPattern.empty()
            ? m.attentionEvery > 0 && i % m.attentionEvery == m.attentionOffset
            : m.linearPattern[static_cast<std::size_t>(i % static_cast<int64_t>(m.linearPattern.size()))] == 'A';
    b.mixer = attends                       ? attentionKind(m, window)
              : m.ssm.kind != SsmKind::None ? LayerMixer::Ssm
              : m.hasLinearAttention()      ? LayerMixer::LinearRecurrent
                                            : attentionKind(m, window);
    if (!m.layerPattern.empty()) {
        const char part = m.layerPattern[static_cast<std::size_t>(i % static_cast<int64_t>(m.layerPattern.size()))];
        b.mixer = part == 'M'                  ? LayerMixer::Ssm
                  : part == '-' || part == 'E' ? LayerMixer::None
                                               : attentionKind(m, window);
        b.ffn = part == '-' ? LayerFfn::Dense : part == 'E' ? LayerFfn::Moe : LayerFfn::None;
    }
    b.window = b.attends() ? window : 0; // only attention has a window
    b.sharesKv = b.attends() && m.kvSharedLayers > 0 && i >= m.layers - m.kvSharedLayers;
    return b;
}

LayerBlock mtpBlock(const ModelShape &m, int64_t j)
{
    LayerBlock b = layerBlock(m, m.layers + j);
    if (m.mtpDenseFfn && b.routed())
        b.ffn = LayerFfn::Dense;
    return b;
}

SsmWidths ssmWidths(const ModelShape &m, int tp)
{
    const SsmShape &x = m.ssm;
    SsmWidths w;
    w.inner = static_cast<double>(x.innerSize / tp);
    w.state = static_cast<double>(x.stateSize);
    if (x.kind == SsmKind::Mamba2) {
        w.heads = static_cast<double>(x.heads / tp);
        w.groups = static_cast<double>(x.groups % tp == 0 ? x.groups / tp : x.groups);
        w.conv = w.inner + 2 * w.groups * w.state;
        w.inProj = 2 * w.inner + 2 * w.groups * w.state + w.heads;
    } else {
        w.conv = w.inner;
        w.inProj = 2 * w.inner;
    }
    return w;
}

double stateElements(const ModelShape &m, int tp)
{
    if (m.ssm.kind == SsmKind::None)
        return 0;
    const SsmWidths w = ssmWidths(m, tp);
    return w.inner * w.state + static_cast<double>(m.ssm.convKernel - 1) * w.conv;
}

double ssmRecurrentElements(const ModelShape &m, int tp)
{
    if (m.ssm.kind == SsmKind::None)
        return 0;
    const SsmWidths w = ssmWidths(m, tp);
    return w.inner * w.state;
}

double linearRecurrentElements(const ModelShape &m, int tp)
{
    if (!m.hasLinearAttention())
        return 0;
    const LinearAttentionShape &x = m.linear;
    return static_cast<double>(x.valueHeads / tp) * static_cast<double>(x.keyHeadDim * x.valueHeadDim);
}

namespace {
int64_t layersWith(const LayerGroups &groups, bool (*is)(const LayerBlock &))
{
    int64_t n = 0;
    for (const LayerGroup &g : groups)
        if (is(g.block))
            n += g.count;
    return n;
}
} // namespace

double linearStateElements(const ModelShape &m, int tp)
{
    if (!m.hasLinearAttention())
        return 0;
    const LinearAttentionShape &x = m.linear;
    const double heads = static_cast<double>(x.valueHeads / tp);
    const double conv = static_cast<double>(x.convDim() / tp);
    return heads * static_cast<double>(x.keyHeadDim * x.valueHeadDim) + static_cast<double>(x.convKernel - 1) * conv;
}

int64_t ssmLayers(const LayerGroups &groups)
{
    return layersWith(groups, [](const LayerBlock &b) { return b.mixer == LayerMixer::Ssm; });
}

int64_t linearLayers(const LayerGroups &groups)
{
    return layersWith(groups, [](const LayerBlock &b) { return b.mixer == LayerMixer::LinearRecurrent; });
}

int64_t sparseLatentLayers(const LayerGroups &groups)
{
    return layersWith(groups, [](const LayerBlock &b) { return b.mixer == LayerMixer::SparseLatent; });
}

double indexerKeyBytes(const ModelShape &m, const LayerGroups &groups, double tokens)
{
    return m.hasIndexer() ? static_cast<double>(sparseLatentLayers(groups)) * m.indexer.keyBytesPerToken() * tokens
                          : 0.0;
}

int64_t attentionLayers(const LayerGroups &groups)
{
    return layersWith(groups, [](const LayerBlock &b) { return b.attends(); });
}

LayerGroups layerGroups(const ModelShape &m)
{
    // Counted in closed form, not layer by layer (layers may be up to 2^31): the first dense layers, then one period
    // of the window, attention and MoE patterns, each residue counted over the remaining layers.
    LayerGroups groups;
    // The periods of the patterns (1: no pattern).
    const int64_t every = m.slidingWindow > 0 && m.globalEvery > 0 ? m.globalEvery : 1;
    const bool recurrent = m.ssm.kind != SsmKind::None || m.hasLinearAttention();
    const int64_t attention = !m.linearPattern.empty() && m.hasLinearAttention()
                                  ? static_cast<int64_t>(m.linearPattern.size())
                              : recurrent && m.attentionEvery > 0 ? m.attentionEvery
                                                                  : 1;
    const int64_t moeEvery = m.isMoe() ? std::max<int64_t>(1, m.moeEvery) : 1;
    const int64_t dense = std::clamp<int64_t>(m.isMoe() ? m.firstDenseLayers : 0, 0, m.layers);
    const int64_t parts = std::max<int64_t>(1, static_cast<int64_t>(m.layerPattern.size()));
    const bool listed = !m.layerBlocks.empty(); // heterogeneous layers: walked one by one (validate() caps them)
    // Most models have one kind of layer: no pattern to walk (analyses build groups millions of times in a search).
    const int64_t shared = std::clamp<int64_t>(m.kvSharedLayers, 0, m.layers);
    if (every == 1 && attention == 1 && moeEvery == 1 && dense == 0 && parts == 1 && !listed && shared == 0) {
        if (m.layers > 0)
            groups.push({layerBlock(m, 0), m.layers, 0});
        return groups;
    }
    auto add = [&](int64_t at, const LayerBlock &b, int64_t n) {
        if (n <= 0)
            return;
        auto g = std::find_if(groups.begin(), groups.end(), [&](const LayerGroup &x) { return x.block == b; });
        if (g == groups.end()) {
            groups.push({b, n, at});
            return;
        }
        g->count += n;
        g->firstLayer = std::min(g->firstLayer, at);
    };
    // Each residue r of a period P from `from` on stands for the layers from + r, from + r + P, ... below `to`.
    auto addPeriod = [&](int64_t from, int64_t to, int64_t period) {
        for (int64_t r = 0; r < period && from + r < to; ++r)
            add(from + r, layerBlock(m, from + r), (to - 1 - from - r) / period + 1);
    };
    const int64_t period = std::lcm(std::lcm(every, attention), parts);
    if (listed) {
        addPeriod(0, m.layers, m.layers);
    } else {
        addPeriod(0, dense, period); // the first dense layers of a MoE model
        // The last layers that share their keys and values (Gemma 4 E2B/E4B) are kinds of their own.
        const int64_t own = std::max(dense, m.layers - shared);
        addPeriod(dense, own, std::lcm(period, moeEvery));
        addPeriod(own, m.layers, std::lcm(period, moeEvery));
    }
    // In the order of each kind's first layer (a stable insertion sort: a few kinds).
    for (auto a = groups.begin(); a != groups.end(); ++a)
        for (auto b = a; b != groups.begin() && b->firstLayer < (b - 1)->firstLayer; --b)
            std::swap(*b, *(b - 1));
    return groups;
}

double cachedElementsPerToken(const ModelShape &m, const LayerBlock &b, int tp)
{
    if (!b.attends() || b.sharesKv) // a layer sharing an earlier layer's keys and values caches none
        return 0;
    if (m.mixer == MixerKind::Mla)
        return static_cast<double>(m.mla.cachedPerToken());
    const AttentionWidths w = attentionWidths(m, b);
    return 2.0 * kvHeadsOnDevice(w.kvHeads, tp) * static_cast<double>(w.headDim);
}

double cachedElements(const ModelShape &m, const LayerGroups &groups, double tokens, int tp)
{
    double e = 0;
    for (const LayerGroup &g : groups) {
        if (!g.block.attends() || g.block.sharesKv)
            continue; // a state (stateElements()), no mixer at all, or an earlier layer's cache
        const double kept = g.block.window > 0 ? std::min(tokens, static_cast<double>(g.block.window)) : tokens;
        e += static_cast<double>(g.count) * cachedElementsPerToken(m, g.block, tp) * kept;
    }
    return e;
}

int64_t visionTowerParams(const VisionShape &v)
{
    if (!v.present())
        return 0;
    const int64_t h = v.hidden;
    const int64_t layerNorm = 2 * h;
    // A block: two LayerNorms, q, k, v and o (h x h and a bias each), fc1 (h x ffn + ffn), fc2 (ffn x h + h).
    const int64_t block = 2 * layerNorm + 4 * (h * h + h) + (h * v.ffn + v.ffn) + (v.ffn * h + h);
    return v.patchInputs * h + (v.patchBias ? h : 0) + (v.classToken ? h : 0) + v.positionRows * h +
           (v.preNorm ? layerNorm : 0) + (v.postNorm ? layerNorm : 0) + v.layers * block;
}

int64_t visionProjectorParams(const VisionShape &v)
{
    if (!v.present())
        return 0;
    int64_t linears = 0, in = v.mergedWidth();
    for (int64_t i = 0; i < v.projectorLayers; ++i) {
        const int64_t out = v.projector[static_cast<std::size_t>(i)];
        linears += in * out + (v.projectorBias ? out : 0);
        in = out;
    }
    const int64_t norm = v.projectorNorm == ProjectorNorm::LayerNormBeforeMerge ? 2 * v.hidden
                         : v.projectorNorm == ProjectorNorm::RmsNormAfterMerge  ? v.hidden
                                                                                : 0;
    // Each deepstack merger: a LayerNorm over the merged width, then the same linear layers.
    return norm + linears + v.deepstack * (2 * v.mergedWidth() + linears);
}

namespace {
/// Parameters a layer sharing an earlier layer's keys and values does not have: k_proj, v_proj (with their biases)
/// and k_norm. Gemma 3n's sharing layers keep them, unused (ModelShape::sharedKvKeepsWeights).
int64_t sharedKvSaving(const ModelShape &m, const LayerBlock &b)
{
    if (!b.sharesKv || m.sharedKvKeepsWeights)
        return 0;
    const AttentionWidths w = attentionWidths(m, b);
    const int64_t kvOut = (w.valueProjection ? 2 : 1) * w.kvDim();
    return m.hidden * kvOut + (m.qkvBias ? kvOut : 0) + (m.qkNorm ? (m.qkNormFullWidth ? w.kvDim() : w.headDim) : 0);
}

/// After the last layer: the final norm, the LM head unless tied (and its bias), the pooler.
int64_t headParams(const ModelShape &m, int64_t normParams)
{
    const int64_t h = m.hidden;
    int64_t head = normParams; // final norm (BERT has none after the last layer: see below)
    if (m.arch == Architecture::Encoder && !m.finalNorm)
        head = 0; // post-norm encoders end on the layer's own norm
    if (!m.tiedEmbeddings && m.arch == Architecture::Decoder)
        head += m.vocab * h;
    if (m.headBias && m.arch == Architecture::Decoder)
        head += m.vocab;
    if (m.pooler)
        head += h * h + h;
    return head;
}
} // namespace

ParamCounts paramCount(const ModelShape &m) { return paramCount(m, layerGroups(m)); }

int64_t altupLayerParams(const ModelShape &m)
{
    const int64_t h = m.hidden, n = m.altupInputs;
    // AltUp: correct_output_scale and router_norm (hidden each), correction_coefs (n x n), prediction_coefs
    // (n x n^2), modality_router (hidden x n); LAuReL: linear_left and linear_right (hidden x rank each) and
    // post_laurel_norm (hidden). No biases (transformers' Gemma3nTextAltUp and Gemma3nTextLaurelBlock).
    const int64_t altup = n > 0 ? 2 * h + n * n + n * n * n + h * n : 0;
    const int64_t laurel = m.laurelRank > 0 ? 2 * h * m.laurelRank + h : 0;
    return altup + laurel;
}

ParamCounts paramCount(const ModelShape &m, const LayerGroups &groups)
{
    const int64_t h = m.hidden;
    const int64_t normParams = m.norm == NormKind::LayerNorm && m.normBias ? 2 * h : h;

    ParamCounts p;
    p.embedding = m.vocab * h;
    if (m.patchInputs > 0) // the patch projection's weights and bias, and the class token
        p.embedding += m.patchInputs * h + h + h;
    if (m.positions == PositionEncoding::Learned)
        p.embedding += (m.maxPositions + m.positionOffset) * h;
    p.embedding += m.tokenTypes * h;
    if (m.embeddingNorm)
        p.embedding += normParams;
    // Per-layer embeddings (Gemma 4 E2B/E4B): the table, the model projection and its RMSNorm.
    if (m.perLayerInput > 0) {
        const int64_t wide = m.layers * m.perLayerInput;
        p.perLayerTable = m.perLayerVocab * wide;
        p.embedding += p.perLayerTable + h * wide + m.perLayerInput;
    }

    // The ordinary attention layers' mixer, counted once: only layers of other widths (attentionWidths(): Gemma 4's
    // global layers, DeciLM's own KV heads) count their own.
    const AttentionWidths ordinary{m.heads, m.kvHeads, m.headDim, true, m.rotaryFraction};
    const int64_t attn = mixerParams(m, ordinary);
    const int64_t expert = ffnParams(m, m.ffn);
    // The router's E columns (and DeepSeek-V3's bias per expert); the shared expert is one more FFN of width
    // sharedFfn (with the routed experts' biases), plus its gate.
    // Gemma 4's router scales its input per channel and each expert's weight (moeBesideDense).
    const int64_t router =
        m.isMoe() ? h * m.experts + (m.routerBias ? m.experts : 0) + (m.moeBesideDense ? h + m.experts : 0) : 0;
    const int64_t shared = m.sharedFfn > 0 ? ffnParams(m, m.sharedFfn) + (m.sharedExpertGate ? h : 0) : 0;
    const int64_t norms = ((m.parallelAttention && m.sharedLayerNorm ? 1 : 2) + (m.postNorms ? 2 : 0)) * normParams;

    const int64_t ssm = m.ssm.kind != SsmKind::None ? ssmParams(m) : 0;
    const int64_t linear = m.hasLinearAttention() ? linearParams(m) : 0;
    auto mixerOf = [&](const LayerBlock &b) -> int64_t {
        switch (b.mixer) {
        case LayerMixer::Ssm: return ssm;
        case LayerMixer::None: return 0;
        case LayerMixer::Linear: return h * h; // DeciLM's linear_attn: hidden x hidden, no bias
        case LayerMixer::LinearRecurrent: return linear;
        // Gemma 4's global layers and DeciLM's layers with their own KV heads: their own widths (attentionWidths()).
        case LayerMixer::Attention: {
            const AttentionWidths w = attentionWidths(m, b);
            return w == ordinary ? attn : mixerParams(m, w);
        }
        case LayerMixer::Sliding:
        case LayerMixer::Chunked:
        case LayerMixer::Latent:
        case LayerMixer::SparseLatent: return attn;
        }
        return attn;
    };
    // Per-layer embeddings: the gate (h -> perLayerInput), the projection back and its RMSNorm; Gemma 3n's AltUp,
    // LAuReL.
    const int64_t perLayerInput =
        (m.perLayerInput > 0 ? 2 * h * m.perLayerInput + normParams : 0) + altupLayerParams(m);
    auto ffnOf = [&](const LayerBlock &b, int64_t experts) -> int64_t {
        switch (b.ffn) {
        case LayerFfn::Moe: return expert * experts + shared + router;
        case LayerFfn::Dense: return ffnParams(m, denseFfnWidth(m, b));
        // Gemma 4: the dense MLP beside the experts, and three more norms (moeBesideDense).
        case LayerFfn::DenseAndMoe:
            return ffnParams(m, denseFfnWidth(m, b)) + expert * experts + shared + router + 3 * normParams;
        case LayerFfn::Linear: return h * h; // DeciLM's linear_mlp: hidden x hidden, no bias
        case LayerFfn::None: return 0;
        }
        return 0;
    };
    auto layerOwn = [&](const LayerBlock &b, int64_t experts) -> int64_t {
        const int64_t mixer = mixerOf(b);
        const bool hasMixer = b.mixer != LayerMixer::None, hasFfn = b.ffn != LayerFfn::None;
        if (!hasMixer && !hasFfn) // DeciLM: both no_op, the layer is empty
            return 0;
        // One part alone (Mamba; Nemotron-H's 'M', '*', '-' and 'E' layers; DeciLM's no_op halves): its one norm.
        if (!hasMixer || !hasFfn)
            return mixer + ffnOf(b, experts) + normParams;
        return mixer + ffnOf(b, experts) + norms;
    };
    auto layer = [&](const LayerBlock &b, int64_t experts) {
        return layerOwn(b, experts) - sharedKvSaving(m, b) + perLayerInput;
    };
    for (const LayerGroup &g : groups) {
        p.layers += g.count * layer(g.block, m.experts);
        p.layersActive += g.count * layer(g.block, m.activeExperts);
        p.routed += g.block.routed() ? g.count * expert * m.experts : 0;
    }
    if (m.layers > 0) { // perLayer* describe the last layer
        const LayerBlock last = layerBlock(m, m.layers - 1);
        p.perLayer = layer(last, m.experts);
        p.perLayerActive = layer(last, m.activeExperts);
        p.perLayerRouted = last.routed() ? expert * m.experts : 0;
    }

    p.head = headParams(m, normParams);

    p.vision = visionTowerParams(m.vision) + visionProjectorParams(m.vision);
    p.altup = m.altupInputs > 1 ? 2 * (m.altupInputs - 1) * h * h : 0; // Gemma 3n's projections in and out
    p.total = p.embedding + p.layers + p.head + p.vision + p.altup;
    p.active = p.embedding + p.layersActive + p.head + p.altup;
    // Multi-token prediction (DeepSeek-V3 README_WEIGHTS.md): enorm, hnorm, eh_proj (2h x h), the decoder layer that
    // would follow the model's last, and shared_head.norm.
    for (int64_t j = 0; j < m.mtpLayers; ++j) {
        const LayerBlock b = mtpBlock(m, j);
        p.mtp += 3 * normParams + 2 * h * h + layer(b, m.experts);
        p.mtpRouted += b.routed() ? expert * m.experts : 0;
        // A copy of the embedding (unless the module reads the model's) and of an untied LM head.
        const int64_t copies = (m.mtpSharesEmbedding ? 0 : 1) + (m.tiedEmbeddings ? 0 : 1);
        p.mtpCopies += m.mtpStoresCopies ? m.vocab * h * copies : 0;
    }
    p.checkpoint = p.total + p.mtp + p.mtpCopies;
    return p;
}

std::string tensorParallelIssue(const ModelShape &m, int tp)
{
    // Checked on every analysis: the message is built only when there is one.
    auto t = [tp] { return "tp " + std::to_string(tp); };
    if (m.heads % tp != 0)
        return t() + " does not divide the " + std::to_string(m.heads) + " attention heads of " + m.id;
    if (m.global.heads % tp != 0)
        return t() + " does not divide the " + std::to_string(m.global.heads) +
               " attention heads of the global layers of " + m.id;
    if (m.kvHeads % tp != 0 && tp % m.kvHeads != 0)
        return t() + " and the " + std::to_string(m.kvHeads) + " key/value heads of " + m.id +
               " do not divide one another";
    if (const int64_t g = m.global.kvHeads; g > 0 && g % tp != 0 && tp % g != 0)
        return t() + " and the " + std::to_string(g) + " key/value heads of the global layers of " + m.id +
               " do not divide one another";
    if (m.ffn % tp != 0)
        return t() + " does not divide the FFN width " + std::to_string(m.ffn) + " of " + m.id;
    for (std::size_t i = 0; i < m.layerBlocks.size(); ++i) {
        const LayerBlock &b = m.layerBlocks[i];
        if (b.ffnWidth % tp != 0)
            return t() + " does not divide the FFN width " + std::to_string(b.ffnWidth) + " of layer " +
                   std::to_string(i) + " of " + m.id;
        if (b.kvHeads > 0 && b.kvHeads % tp != 0 && tp % b.kvHeads != 0)
            return t() + " and the " + std::to_string(b.kvHeads) + " key/value heads of layer " + std::to_string(i) +
                   " of " + m.id + " do not divide one another";
    }
    if (m.ssm.kind != SsmKind::None && m.ssm.innerSize % tp != 0)
        return t() + " does not divide the state-space layers' " + std::to_string(m.ssm.innerSize) + " channels of " +
               m.id;
    if (m.hasLinearAttention() && (m.linear.keyHeads % tp != 0 || m.linear.valueHeads % tp != 0))
        return t() + " does not divide the linear-attention layers' " + std::to_string(m.linear.keyHeads) +
               " key heads and " + std::to_string(m.linear.valueHeads) + " value heads of " + m.id;
    if (m.ssm.kind == SsmKind::Mamba2 && m.ssm.heads % tp != 0)
        return t() + " does not divide the state-space layers' " + std::to_string(m.ssm.heads) + " heads of " + m.id;
    if (m.isMoe() && m.denseFfn % tp != 0)
        return t() + " does not divide the dense layers' FFN width " + std::to_string(m.denseFfn) + " of " + m.id;
    if (m.sharedFfn % tp != 0)
        return t() + " does not divide the shared expert's FFN width " + std::to_string(m.sharedFfn) + " of " + m.id;
    if (tp > 1 && (m.altupInputs > 0 || m.laurelRank > 0))
        return t() +
               ": Gemma 3n's AltUp and LAuReL weights are not split by tensor parallelism (transformers' tp "
               "plan replicates them), which is not modelled for " +
               m.id;
    if (m.vision.present() && (m.vision.heads % tp != 0 || m.vision.ffn % tp != 0))
        return t() + " does not divide the vision tower's " + std::to_string(m.vision.heads) + " heads and MLP width " +
               std::to_string(m.vision.ffn) + " of " + m.id;
    return {};
}

namespace {
/// Gemma 3n's parts: AltUp's streams, LAuReL's rank, the sparse-gate layers, and KV-sharing layers that keep their
/// unused key and value weights.
ShapeIssue validateGemma3n(const ModelShape &m)
{
    constexpr int64_t kMaxAltupInputs = 64; // the coefficients grow as its cube; Gemma 3n has 4
    if (m.altupInputs < 0 || m.altupInputs > kMaxAltupInputs)
        return {{"altup_inputs"},
                "altup_inputs must be 0 (none) or 1 to " + std::to_string(kMaxAltupInputs) + ", got " +
                    std::to_string(m.altupInputs)};
    if (m.laurelRank < 0 || m.laurelRank > kMaxShapeField)
        return {{"laurel_rank"},
                "laurel_rank must be 0 (none) or positive (at most 2^31), got " + std::to_string(m.laurelRank)};
    if (m.sparseFfnLayers < 0 || m.sparseFfnLayers > m.layers || (m.sparseFfnLayers > 0 && !m.gatedFfn) ||
        (m.sparseFfnLayers > 0 && (m.isMoe() || !m.layerBlocks.empty() || !m.layerPattern.empty())))
        return {{"sparse_ffn_layers"},
                "sparse_ffn_layers must be between 0 and the layers (" + std::to_string(m.layers) +
                    "), of a dense gated FFN in every layer, got " + std::to_string(m.sparseFfnLayers)};
    if (m.sharedKvKeepsWeights && m.kvSharedLayers == 0)
        return {{"shared_kv_weights", "kv_shared_layers"}, "shared_kv_weights needs kv_shared_layers > 0"};
    return {};
}

/// Step-3.5's fields: the global layers' own query heads and rotary share, the global layer first in its group, the
/// gate per head, and the MTP modules' own head and dense FFN.
ShapeIssue validateStep35(const ModelShape &m)
{
    const GlobalAttentionShape &g = m.global;
    const int64_t kv = g.kvHeads > 0 ? g.kvHeads : m.kvHeads;
    if (g.heads < 0 || g.heads > kMaxShapeField || (g.heads > 0 && kv > 0 && g.heads % kv != 0))
        return {{"global_heads", "global_kv_heads"},
                "global_heads must be 0 (the shape's) or a positive multiple of the global layers' KV heads (" +
                    std::to_string(kv) + "), got " + std::to_string(g.heads)};
    if (g.rotaryFraction < 0 || g.rotaryFraction > 1 || g.rotaryFraction != g.rotaryFraction)
        return {{"global_rotary_fraction"},
                "global_rotary_fraction must be 0 (the shape's) or above 0 and at most 1, got " +
                    std::to_string(g.rotaryFraction)};
    if (m.globalFirst && m.globalEvery <= 0)
        return {{"global_first", "global_every"}, "global_first needs global layers (global_every > 0)"};
    if (m.headWiseGate && m.mixer != MixerKind::Attention)
        return {{"head_wise_gate", "mixer"}, "head_wise_gate needs the attention mixer, not MLA"};
    if (m.mtpSharesEmbedding && !m.mtpStoresCopies)
        return {{"mtp_shares_embedding", "mtp_stores_copies"}, "mtp_shares_embedding needs mtp_stores_copies"};
    if (m.mtpDenseFfn && (m.mtpLayers == 0 || !m.isMoe() || m.denseFfn <= 0 || m.denseFfn > kMaxShapeField))
        return {{"mtp_dense_ffn", "dense_ffn"},
                "mtp_dense_ffn needs mtp_layers > 0 in a mixture of experts with a dense_ffn (> 0), got " +
                    std::to_string(m.denseFfn)};
    return {};
}

/// Heterogeneous layers (layer_blocks): one block a layer, each an attention, no or linear mixer and a dense (of its
/// own width, at most ffn), no or linear FFN, without windows; none of the other layer patterns beside them.
ShapeIssue validateLayerBlocks(const ModelShape &m)
{
    const int64_t n = static_cast<int64_t>(m.layerBlocks.size());
    if (n != m.layers || n > kMaxPatternPeriod)
        return {{"layer_blocks", "layers"},
                "layer_blocks must list one block for each of the " + std::to_string(m.layers) + " layers (at most " +
                    std::to_string(kMaxPatternPeriod) + "), got " + std::to_string(n)};
    if (m.isMoe() || m.ssm.kind != SsmKind::None || m.hasLinearAttention() || !m.layerPattern.empty() ||
        m.slidingWindow != 0 || m.mtpLayers != 0 || m.mixer != MixerKind::Attention || !m.linearPattern.empty() ||
        m.kvSharedLayers != 0 || m.global.present() || m.perLayerInput != 0)
        return {{"layer_blocks"},
                "layer_blocks cannot be combined with experts, ssm, linear attention, layer_pattern, linear_pattern, "
                "sliding_window, mtp_layers, MLA, kv_shared_layers, global layers or per_layer_input"};
    for (int64_t i = 0; i < n; ++i) {
        const LayerBlock &b = m.layerBlocks[static_cast<std::size_t>(i)];
        const std::string at = "layer_blocks[" + std::to_string(i) + "]";
        if (b.mixer != LayerMixer::Attention && b.mixer != LayerMixer::None && b.mixer != LayerMixer::Linear)
            return {{"layer_blocks"},
                    at + ": mixer must be attention, none or linear, got " + std::string(toString(b.mixer))};
        if (b.ffn == LayerFfn::Moe)
            return {{"layer_blocks"}, at + ": ffn must be dense, none or linear, got moe"};
        if (b.window != 0)
            return {{"layer_blocks"}, at + ": window must be 0, got " + std::to_string(b.window)};
        if (b.kvHeads < 0 || (b.kvHeads > 0 && (b.mixer != LayerMixer::Attention || m.heads % b.kvHeads != 0)))
            return {{"layer_blocks", "heads"},
                    at + ": kv_heads must be 0 or, in an attention layer, divide heads (" + std::to_string(m.heads) +
                        "), got " + std::to_string(b.kvHeads)};
        const bool dense = b.ffn == LayerFfn::Dense;
        if (dense ? b.ffnWidth <= 0 || b.ffnWidth > m.ffn : b.ffnWidth != 0)
            return {{"layer_blocks", "ffn"},
                    at + ": ffn_width must be " +
                        (dense ? "positive and at most ffn (" + std::to_string(m.ffn) + ")" : std::string("0")) +
                        " for " +
                        (dense ? std::string("a dense FFN") : "an FFN of kind " + std::string(toString(b.ffn))) +
                        ", got " + std::to_string(b.ffnWidth)};
    }
    return {};
}

/// The linear-attention fields: sizes within range, value heads a multiple of the key heads (each key head serves
/// value_heads / key_heads value heads), no state-space layers beside them, the attention layers' period.
ShapeIssue validateLinear(const ModelShape &m)
{
    const LinearAttentionShape &x = m.linear;
    for (auto [f, v] : {std::pair{"linear_key_heads", x.keyHeads},
                        {"linear_value_heads", x.valueHeads},
                        {"linear_key_head_dim", x.keyHeadDim},
                        {"linear_value_head_dim", x.valueHeadDim},
                        {"linear_conv_kernel", x.convKernel},
                        {"linear_chunk", x.chunkSize}})
        if (v <= 0 || v > kMaxShapeField)
            return {{f}, std::string(f) + " must be positive for linear attention, got " + std::to_string(v)};
    if (x.valueHeads % x.keyHeads != 0)
        return {{"linear_value_heads", "linear_key_heads"},
                "linear_value_heads (" + std::to_string(x.valueHeads) + ") must be a multiple of linear_key_heads (" +
                    std::to_string(x.keyHeads) + ")"};
    if (!m.layerPattern.empty())
        return {{"layer_pattern", "linear_key_heads"}, "layer_pattern's layers cannot be linear attention"};
    if (x.gateRank < 0 || x.gateRank > kMaxShapeField)
        return {{"linear_gate_rank"},
                "linear_gate_rank must be 0 (Gated DeltaNet) or a positive rank, got " + std::to_string(x.gateRank)};
    if (x.kimiDelta() && (x.keyHeads != x.valueHeads || x.keyHeadDim != x.valueHeadDim))
        return {{"linear_gate_rank", "linear_value_heads"},
                "Kimi Delta Attention (linear_gate_rank > 0) has as many key as value heads, of one size; got " +
                    std::to_string(x.keyHeads) + " of " + std::to_string(x.keyHeadDim) + " and " +
                    std::to_string(x.valueHeads) + " of " + std::to_string(x.valueHeadDim)};
    if (const std::string &lp = m.linearPattern; !lp.empty()) {
        if (static_cast<int64_t>(lp.size()) > std::min<int64_t>(m.layers, kMaxPatternPeriod))
            return {{"linear_pattern"},
                    "linear_pattern must have at most as many characters as layers (at most " +
                        std::to_string(kMaxPatternPeriod) + "), got " + std::to_string(lp.size())};
        if (const auto bad = lp.find_first_not_of("LA"); bad != std::string::npos)
            return {{"linear_pattern"},
                    "linear_pattern may hold only L (linear attention) and A (attention), got '" +
                        std::string(1, lp[bad]) + "'"};
        if (m.attentionEvery != 0 || m.attentionOffset != 0)
            return {{"linear_pattern", "attention_every"},
                    "linear_pattern places the attention layers: attention_every and attention_offset must be 0"};
    }
    if (m.attentionEvery < 0 || m.attentionEvery > std::min<int64_t>(m.layers, kMaxPatternPeriod) ||
        m.attentionOffset < 0 || (m.attentionEvery > 0 && m.attentionOffset >= m.attentionEvery))
        return {{"attention_every", "attention_offset"},
                "attention_every must be between 0 and the layers (at most " + std::to_string(kMaxPatternPeriod) +
                    ") and attention_offset below it, got " + std::to_string(m.attentionEvery) + " and " +
                    std::to_string(m.attentionOffset)};
    return {};
}
/// The vision tower's fields (keys of the preset's "vision" object): sizes within range, heads dividing the width,
/// the merge dividing the patches, one to three projector layers ending on the language model's hidden size.
ShapeIssue validateVision(const ModelShape &m)
{
    const VisionShape &v = m.vision;
    for (auto [f, val] : {std::pair{"vision.layers", v.layers},
                          {"vision.hidden", v.hidden},
                          {"vision.heads", v.heads},
                          {"vision.ffn", v.ffn},
                          {"vision.patch_inputs", v.patchInputs},
                          {"vision.patches", v.patches},
                          {"vision.merge", v.merge}})
        if (val <= 0 || val > kMaxShapeField)
            return {{"vision"}, std::string(f) + " must be positive and at most 2^31, got " + std::to_string(val)};
    if (v.positionRows < 0 || v.positionRows > kMaxShapeField)
        return {{"vision"}, "vision.position_rows must be between 0 and 2^31, got " + std::to_string(v.positionRows)};
    if (v.hidden % v.heads != 0)
        return {{"vision"},
                "vision.heads (" + std::to_string(v.heads) + ") must divide vision.hidden (" +
                    std::to_string(v.hidden) + ")"};
    if (v.patches % v.merge != 0)
        return {{"vision"},
                "vision.merge (" + std::to_string(v.merge) + ") must divide vision.patches (" +
                    std::to_string(v.patches) + ")"};
    if (v.projectorLayers < 1 || v.projectorLayers > 3)
        return {{"vision"}, "vision.projector must have 1 to 3 layers, got " + std::to_string(v.projectorLayers)};
    for (int64_t i = 0; i < v.projectorLayers; ++i)
        if (const int64_t w = v.projector[static_cast<std::size_t>(i)]; w <= 0 || w > kMaxShapeField)
            return {{"vision"}, "vision.projector widths must be positive, got " + std::to_string(w)};
    if (v.projector[static_cast<std::size_t>(v.projectorLayers - 1)] != m.hidden)
        return {{"vision", "hidden"},
                "vision.projector must end on the language model's hidden size " + std::to_string(m.hidden) + ", got " +
                    std::to_string(v.projector[static_cast<std::size_t>(v.projectorLayers - 1)])};
    if (v.deepstack < 0 || v.deepstack > v.layers)
        return {{"vision"}, "vision.deepstack must be between 0 and vision.layers, got " + std::to_string(v.deepstack)};
    if (m.arch != Architecture::Decoder)
        return {{"vision", "arch"}, "a vision tower needs a decoder language model"};
    return {};
}
} // namespace

// Long because it is one pass over the shape's rules, which analyze() runs on every call. Split into six helpers
// it cost 240 to 430 more instructions per analysis (valgrind), and the search pays that for every configuration.
ShapeIssue validate(const ModelShape &m)
{
    for (auto [f, v] : {std::pair{"layers", m.layers},
                        {"hidden", m.hidden},
                        {"heads", m.heads},
                        {"kv_heads", m.kvHeads},
                        {"head_dim", m.headDim},
                        {"experts", m.experts},
                        {"active_experts", m.activeExperts}})
        if (v <= 0)
            return {{f}, std::string(f) + " must be positive, got " + std::to_string(v)};
    // A model of image patches embeds its tokens by projecting them, so it has no vocabulary; every other has one.
    if (m.patchInputs < 0)
        return {{"patch_inputs"},
                "patch_inputs must be 0 (text tokens) or positive, got " + std::to_string(m.patchInputs)};
    if (m.patchInputs == 0 && m.vocab <= 0)
        return {{"vocab"},
                "vocab must be positive, got " + std::to_string(m.vocab) +
                    " (only a model of image patches, patch_inputs > 0, has none)"};
    if (m.patchInputs > 0 && m.vocab != 0)
        return {{"vocab", "patch_inputs"},
                "vocab must be 0 for a model of image patches (patch_inputs " + std::to_string(m.patchInputs) +
                    "), got " + std::to_string(m.vocab)};
    if (m.patchInputs > 0 && m.arch != Architecture::Encoder)
        return {{"patch_inputs", "arch"},
                "patch_inputs needs an encoder: a decoder's head predicts tokens of a vocabulary"};
    if (m.finalNorm && m.arch != Architecture::Encoder)
        return {{"final_norm", "arch"}, "final_norm is an encoder's: a decoder always has its final norm"};
    // A state-space model may have no FFN at all (Mamba), and a layer pattern without '-' layers; every other layer
    // has one.
    const bool pureSsm = m.layerPattern.empty() ? m.ssm.kind != SsmKind::None && m.attentionEvery == 0 && !m.isMoe()
                                                : m.layerPattern.find_first_of("-E") == std::string::npos;
    if (m.ffn < 0 || (m.ffn == 0 && !pureSsm))
        return {{"ffn"},
                pureSsm ? "ffn must not be negative, got " + std::to_string(m.ffn)
                        : "ffn must be positive, got " + std::to_string(m.ffn)};
    if (m.heads % m.kvHeads != 0)
        return {{"heads", "kv_heads"},
                "heads (" + std::to_string(m.heads) + ") must be a multiple of kv_heads (" + std::to_string(m.kvHeads) +
                    ")"};
    if (m.activeExperts > m.experts)
        return {{"active_experts", "experts"},
                "active_experts (" + std::to_string(m.activeExperts) + ") exceeds experts (" +
                    std::to_string(m.experts) + ")"};
    if (m.sharedFfn > 0 && !m.isMoe())
        return {{"shared_ffn", "experts"},
                "shared_ffn (" + std::to_string(m.sharedFfn) + ") needs a mixture-of-experts model (experts > 1)"};
    // The issue (a message on the heap) is built only when there is one: every analysis checks its model.
    ShapeIssue negative;
    for (auto [f, v] : {std::pair{"max_positions", m.maxPositions},
                        {"position_offset", m.positionOffset},
                        {"token_types", m.tokenTypes},
                        {"sliding_window", m.slidingWindow},
                        {"shared_ffn", m.sharedFfn}})
        if (v < 0)
            negative.fields.emplace_back(f);
    if (!negative.fields.empty()) {
        negative.message = "max_positions, position_offset, token_types, sliding_window and shared_ffn must not be "
                           "negative";
        return negative;
    }
    // The layer pattern: every field within the model's layers, so that layerGroups() stays a short loop.
    if (m.globalEvery < 0 || m.globalEvery > std::min<int64_t>(m.layers, kMaxPatternPeriod))
        return {{"global_every"},
                "global_every must be between 0 and the layers (at most " + std::to_string(kMaxPatternPeriod) +
                    "), got " + std::to_string(m.globalEvery)};
    if (m.globalEvery > 0 && m.slidingWindow <= 0)
        return {{"global_every", "sliding_window"}, "global_every needs a sliding_window (> 0) for the other layers"};
    if (m.global.present() && (m.globalEvery <= 0 || m.mixer != MixerKind::Attention))
        return {{"global_head_dim", "global_every"},
                "global_head_dim, global_kv_heads, global_heads, global_rotary_fraction and global_k_eq_v need "
                "global layers (global_every > 0) of the attention mixer"};
    if (m.global.headDim < 0 || m.global.headDim > kMaxShapeField || m.global.kvHeads < 0 ||
        m.global.kvHeads > kMaxShapeField)
        return {{"global_head_dim", "global_kv_heads"},
                "global_head_dim and global_kv_heads must be 0 (the shape's) or positive and at most 2^31, got " +
                    std::to_string(m.global.headDim) + " and " + std::to_string(m.global.kvHeads)};
    if (m.global.kvHeads > 0 && m.heads % m.global.kvHeads != 0)
        return {{"heads", "global_kv_heads"},
                "heads (" + std::to_string(m.heads) + ") must be a multiple of global_kv_heads (" +
                    std::to_string(m.global.kvHeads) + ")"};
    if (m.moeBesideDense && (m.firstDenseLayers != 0 || m.moeEvery != 1 || !m.layerPattern.empty()))
        return {{"moe_beside_dense", "first_dense_layers", "moe_every"},
                "moe_beside_dense puts the experts beside the dense MLP in every layer: first_dense_layers 0, "
                "moe_every 1 and no layer_pattern"};
    if (m.moeBesideDense && (!m.isMoe() || m.denseFfn <= 0 || m.denseFfn > kMaxShapeField))
        return {{"moe_beside_dense", "dense_ffn"},
                "moe_beside_dense needs routed experts (experts > 1) and the dense MLP's width dense_ffn (> 0), got " +
                    std::to_string(m.denseFfn)};
    if (m.kvSharedLayers < 0 || m.kvSharedLayers >= std::max<int64_t>(1, m.layers) ||
        (m.kvSharedLayers > 0 && (m.mixer == MixerKind::Mla || m.ssm.kind != SsmKind::None || m.hasLinearAttention() ||
                                  !m.layerPattern.empty())))
        return {{"kv_shared_layers"},
                "kv_shared_layers must be 0, or fewer than the layers (" + std::to_string(m.layers) +
                    ") of a model whose every layer attends (no MLA, state or pattern), got " +
                    std::to_string(m.kvSharedLayers)};
    // Each sharing layer reads the last earlier layer of its kind: the layers before them hold a full one.
    if (m.kvSharedLayers > 0 && m.globalEvery > 0 && m.slidingWindow > 0 && m.layers - m.kvSharedLayers < m.globalEvery)
        return {{"kv_shared_layers", "global_every"},
                "kv_shared_layers " + std::to_string(m.kvSharedLayers) + " leaves " +
                    std::to_string(m.layers - m.kvSharedLayers) + " layers before the sharing ones, fewer than " +
                    "global_every (" + std::to_string(m.globalEvery) +
                    "): no global layer for the sharing global layers to read"};
    if (m.doubleWideSharedFfn && (m.kvSharedLayers == 0 || m.isMoe()))
        return {{"double_wide_shared_ffn", "kv_shared_layers"},
                "double_wide_shared_ffn widens the dense MLP of the layers sharing keys and values: it needs "
                "kv_shared_layers > 0 and no experts"};
    if (m.perLayerInput < 0 || m.perLayerInput > kMaxShapeField ||
        (m.perLayerInput > 0 && (m.perLayerVocab <= 0 || m.perLayerVocab > kMaxShapeField)))
        return {{"per_layer_input", "per_layer_vocab"},
                "per_layer_input must be 0 or positive, with per_layer_vocab positive (at most 2^31), got " +
                    std::to_string(m.perLayerInput) + " and " + std::to_string(m.perLayerVocab)};
    if (m.globalNoPositions && (m.globalEvery <= 0 || m.positions != PositionEncoding::Rotary))
        return {{"global_nope", "global_every"},
                "global_nope needs global layers (global_every > 0) among rotary windowed ones"};
    for (auto [f, v] : {std::pair{"attention_softcap", m.attentionSoftcap}, {"final_softcap", m.finalSoftcap}})
        if (!(v >= 0) || v > 1e6) // also NaN
            return {{f}, std::string(f) + " must be 0 (none) or a positive cap up to 1e6, got " + std::to_string(v)};
    if (m.qkNormFullWidth && !m.qkNorm)
        return {{"qk_norm_full_width", "qk_norm"}, "qk_norm_full_width needs qk_norm"};
    if (m.headBias && m.arch != Architecture::Decoder)
        return {{"head_bias", "arch"}, "head_bias needs a decoder (an encoder has no LM head)"};
    if (m.chunkedAttention && m.slidingWindow <= 0)
        return {{"chunked_attention", "sliding_window"}, "chunked_attention needs its chunk size in sliding_window"};
    if (m.moeEvery < 1 || m.moeEvery > std::min<int64_t>(m.layers, kMaxPatternPeriod))
        return {{"moe_every"},
                "moe_every must be between 1 and the layers (at most " + std::to_string(kMaxPatternPeriod) + "), got " +
                    std::to_string(m.moeEvery)};
    if (m.moeOffset < 0 || m.moeOffset >= m.moeEvery)
        return {{"moe_offset", "moe_every"},
                "moe_offset (" + std::to_string(m.moeOffset) + ") must be between 0 and moe_every - 1 (" +
                    std::to_string(m.moeEvery - 1) + ")"};
    if (m.firstDenseLayers < 0 || m.firstDenseLayers > m.layers)
        return {{"first_dense_layers", "layers"},
                "first_dense_layers (" + std::to_string(m.firstDenseLayers) + ") must be between 0 and the layers (" +
                    std::to_string(m.layers) + ")"};
    const bool denseLayers = m.isMoe() && (m.firstDenseLayers > 0 || m.moeEvery > 1);
    if (denseLayers && (m.denseFfn <= 0 || m.denseFfn > kMaxShapeField))
        return {{"dense_ffn"},
                "a MoE model with dense layers needs their FFN width dense_ffn (> 0), got " +
                    std::to_string(m.denseFfn)};
    if ((m.firstDenseLayers > 0 || m.moeEvery > 1) && !m.isMoe())
        return {{"first_dense_layers", "moe_every", "experts"},
                "first_dense_layers and moe_every need a mixture-of-experts model (experts > 1)"};
    if (m.ssm.kind != SsmKind::None && m.hasLinearAttention())
        return {{"ssm", "linear_key_heads"}, "a model has state-space or linear-attention layers, not both"};
    if (m.linear.keyHeads < 0)
        return {{"linear_key_heads"},
                "linear_key_heads must be 0 (none) or positive, got " + std::to_string(m.linear.keyHeads)};
    if (m.ssm.kind != SsmKind::None) {
        const SsmShape &x = m.ssm;
        for (auto [f, v] : {std::pair{"ssm_state_size", x.stateSize},
                            {"ssm_inner_size", x.innerSize},
                            {"ssm_conv_kernel", x.convKernel}})
            if (v <= 0 || v > kMaxShapeField)
                return {{f}, std::string(f) + " must be positive for a state-space model, got " + std::to_string(v)};
        if (x.kind == SsmKind::Mamba2) {
            for (auto [f, v] : {std::pair{"ssm_heads", x.heads}, {"ssm_groups", x.groups}, {"ssm_chunk", x.chunkSize}})
                if (v <= 0 || v > kMaxShapeField)
                    return {{f}, std::string(f) + " must be positive for Mamba-2, got " + std::to_string(v)};
            if (x.innerSize % x.heads != 0 || x.heads % x.groups != 0)
                return {{"ssm_heads", "ssm_groups"},
                        "ssm_heads (" + std::to_string(x.heads) + ") must divide ssm_inner_size (" +
                            std::to_string(x.innerSize) + ") and be a multiple of ssm_groups (" +
                            std::to_string(x.groups) + ")"};
        } else if (x.dtRank <= 0 || x.dtRank > kMaxShapeField) {
            return {{"ssm_dt_rank"}, "ssm_dt_rank must be positive for Mamba-1, got " + std::to_string(x.dtRank)};
        }
        if (m.attentionEvery < 0 || m.attentionEvery > std::min<int64_t>(m.layers, kMaxPatternPeriod) ||
            m.attentionOffset < 0 || (m.attentionEvery > 0 && m.attentionOffset >= m.attentionEvery))
            return {{"attention_every", "attention_offset"},
                    "attention_every must be between 0 and the layers (at most " + std::to_string(kMaxPatternPeriod) +
                        ") and attention_offset below it, got " + std::to_string(m.attentionEvery) + " and " +
                        std::to_string(m.attentionOffset)};
    } else if (m.hasLinearAttention()) {
        if (auto e = validateLinear(m); !e.empty())
            return e;
    } else if (!m.linearPattern.empty()) {
        return {{"linear_pattern", "linear_key_heads"}, "linear_pattern needs linear-attention layers"};
    } else if (m.attentionEvery != 0 || m.attentionOffset != 0) {
        return {{"attention_every", "ssm"},
                "attention_every and attention_offset need state-space (ssm) or linear-attention layers"};
    }
    if (m.vision.present() || m.vision.layers < 0)
        if (auto e = validateVision(m); !e.empty())
            return e;
    if (!m.layerBlocks.empty())
        if (auto e = validateLayerBlocks(m); !e.empty())
            return e;
    if (auto e = validateGemma3n(m); !e.empty())
        return e;
    if (auto e = validateStep35(m); !e.empty())
        return e;
    if (!(m.rotaryFraction > 0 && m.rotaryFraction <= 1)) // also NaN
        return {{"rotary_fraction"},
                "rotary_fraction must be above 0 and at most 1, got " + std::to_string(m.rotaryFraction)};
    if (m.attentionOutputGate && m.mixer != MixerKind::Attention)
        return {{"attention_output_gate", "mixer"}, "attention_output_gate needs the attention mixer, not MLA"};
    if (!m.layerPattern.empty()) {
        const std::string &lp = m.layerPattern;
        const auto size = static_cast<int64_t>(lp.size());
        if (size > std::min<int64_t>(m.layers, kMaxPatternPeriod))
            return {{"layer_pattern"},
                    "layer_pattern must have at most as many characters as layers (at most " +
                        std::to_string(kMaxPatternPeriod) + "), got " + std::to_string(size)};
        if (const auto bad = lp.find_first_not_of("M*-E"); bad != std::string::npos)
            return {{"layer_pattern"},
                    "layer_pattern may hold only M (state space), * (attention), - (FFN) and E (experts), got '" +
                        std::string(1, lp[bad]) + "'"};
        if (lp.find('M') != std::string::npos && m.ssm.kind == SsmKind::None)
            return {{"layer_pattern", "ssm"}, "layer_pattern's M layers need state-space layers (ssm)"};
        if (m.attentionEvery != 0)
            return {{"layer_pattern", "attention_every"},
                    "layer_pattern places the attention layers itself: attention_every must be 0"};
        const bool routed = lp.find('E') != std::string::npos;
        if (routed != m.isMoe())
            return {{"layer_pattern", "experts"},
                    routed ? "layer_pattern's E layers need routed experts (experts > 1)"
                           : "a mixture of experts with a layer_pattern needs E layers for its experts"};
        if (m.isMoe() && (m.firstDenseLayers != 0 || m.moeEvery != 1))
            return {{"layer_pattern", "first_dense_layers", "moe_every"},
                    "layer_pattern places the experts itself: first_dense_layers 0 and moe_every 1"};
        if (m.isMoe() && lp.find('-') != std::string::npos && (m.denseFfn <= 0 || m.denseFfn > kMaxShapeField))
            return {{"dense_ffn"},
                    "layer_pattern's - layers beside E layers need their FFN width dense_ffn (> 0), got " +
                        std::to_string(m.denseFfn)};
        if (m.postNorms || m.parallelAttention)
            return {{"layer_pattern", m.postNorms ? "post_norms" : "parallel_attention"},
                    "layer_pattern's layers have one part and one norm each: no post_norms or parallel_attention"};
    }
    {
        // The whole pattern repeats every lcm of its periods; layerGroups() walks one period.
        const int64_t period =
            std::lcm(std::lcm(std::lcm(std::lcm(std::max<int64_t>(1, m.globalEvery), std::max<int64_t>(1, m.moeEvery)),
                                       std::max<int64_t>(1, m.attentionEvery)),
                              std::max<int64_t>(1, static_cast<int64_t>(m.layerPattern.size()))),
                     std::max<int64_t>(1, static_cast<int64_t>(m.linearPattern.size())));
        if (period > kMaxPatternPeriod)
            return {{"global_every", "moe_every", "attention_every", "layer_pattern", "linear_pattern"},
                    "the layer pattern repeats only every " + std::to_string(period) + " layers (at most " +
                        std::to_string(kMaxPatternPeriod) + ")"};
    }
    if (m.mixer == MixerKind::Mla) {
        const MlaShape &a = m.mla;
        for (auto [f, v] : {std::pair{"kv_lora_rank", a.kvLoraRank},
                            {"qk_nope_head_dim", a.qkNopeHeadDim},
                            {"qk_rope_head_dim", a.qkRopeHeadDim},
                            {"v_head_dim", a.vHeadDim}})
            if (v <= 0 || v > kMaxShapeField)
                return {{f}, std::string(f) + " must be positive for MLA attention, got " + std::to_string(v)};
        if (a.qLoraRank < 0 || a.qLoraRank > kMaxShapeField)
            return {{"q_lora_rank"},
                    "q_lora_rank must be 0 (no low-rank queries) or positive, got " + std::to_string(a.qLoraRank)};
    }
    if (m.indexer.heads != 0) { // the lightning indexer reads the queries' latent: MLA with q_lora_rank
        if (m.mixer != MixerKind::Mla || m.mla.qLoraRank <= 0)
            return {{"index_heads", "mixer"},
                    "index_heads needs MLA with low-rank queries (q_lora_rank > 0): the indexer's queries come from "
                    "their latent"};
        for (auto [f, v] : {std::pair{"index_heads", m.indexer.heads},
                            {"index_head_dim", m.indexer.headDim},
                            {"index_topk", m.indexer.topk}})
            if (v <= 0 || v > kMaxShapeField)
                return {{f}, std::string(f) + " must be positive for the lightning indexer, got " + std::to_string(v)};
    }
    if (m.positions == PositionEncoding::Learned && m.maxPositions <= 0)
        return {{"max_positions", "positions"}, "learned positions need max_positions > 0"};
    // Size limits that keep paramCount() (int64) and everything derived from it far from overflow: every field below
    // 2^31 and at most 1e15 parameters (over a thousand times the largest published model), estimated in double.
    for (auto [f, v] : {std::pair{"layers", m.layers},
                        {"hidden", m.hidden},
                        {"heads", m.heads},
                        {"head_dim", m.headDim},
                        {"ffn", m.ffn},
                        {"vocab", m.vocab},
                        {"patch_inputs", m.patchInputs},
                        {"experts", m.experts},
                        {"max_positions", m.maxPositions},
                        {"position_offset", m.positionOffset},
                        {"token_types", m.tokenTypes},
                        {"sliding_window", m.slidingWindow},
                        {"shared_ffn", m.sharedFfn}})
        if (v > kMaxShapeField)
            return {{f}, std::string(f) + " is implausibly large, got " + std::to_string(v)};
    const double h = static_cast<double>(m.hidden),
                 q = static_cast<double>(std::max(m.heads, m.global.heads)) *
                     static_cast<double>(std::max(m.headDim, m.global.headDim)); // Gemma 4's, Step-3.5's global
    const double ffn = static_cast<double>(m.ffn), experts = static_cast<double>(m.experts);
    const double ffnTotal = ffn * experts + static_cast<double>(m.sharedFfn) + static_cast<double>(m.denseFfn);
    const double linear = static_cast<double>(m.linear.keyHeads) * static_cast<double>(m.linear.keyHeadDim) * 2 +
                          static_cast<double>(m.linear.valueHeads) * static_cast<double>(m.linear.valueHeadDim) * 3;
    const double perLayer = h * (2 * q + 2 * q) + 3 * h * ffnTotal + 2 * ffnTotal + h * experts + 7 * h +
                            (h + static_cast<double>(m.linear.convKernel)) * linear;
    const double rows =
        static_cast<double>(m.vocab + m.patchInputs + 2 + m.maxPositions + m.positionOffset + m.tokenTypes);
    const double estimate = static_cast<double>(m.layers) * perLayer + 2 * rows * h + h * h + 10 * h;
    if (estimate > 1e15)
        return {{},
                "the shape is implausibly large: about " + std::to_string(static_cast<long long>(estimate / 1e12)) +
                    " T parameters (the limit is 1000 T)"};
    return {};
}

} // namespace memwall::core
