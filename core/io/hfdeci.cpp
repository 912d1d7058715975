// DeciLM / Nemotron-NAS (model_type "deci", "nemotron-nas": Llama-3.3-Nemotron-Super-49B, Llama-3.1-Nemotron-51B,
// Llama-3.1-Nemotron-Ultra-253B): a Llama decoder whose layers a neural architecture search made unlike one another.
#include "core/io/hfimport.h"

#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace memwall::core::hf {

namespace {

/// DeciLM's FFN width of `ffnMult` at hidden size `hidden`: int(2 x ffn_mult x hidden / 3), rounded up to a multiple
/// of 256 (_ffn_mult_to_intermediate_size and _find_multiple of NVIDIA's modeling_decilm.py, which vLLM's
/// nemotron_nas.py and llama.cpp's DeciModel converter repeat). Super-49B's ffn_mult 5.25 at 8192: 28,672.
int64_t ffnMultWidth(double ffnMult, int64_t hidden)
{
    const auto width = static_cast<int64_t>(2.0 * ffnMult * static_cast<double>(hidden) / 3.0);
    return width % 256 == 0 ? width : width + 256 - width % 256;
}

/// A block_configs entry's key that MemWall does not model: refused unless it is absent, null or false.
void refuseSet(JsonReader &part, std::string_view key, std::string_view what)
{
    const nlohmann::json &node = part.node();
    const auto it = node.find(key);
    if (it == node.end() || it->is_null() || (it->is_boolean() && !it->get<bool>()))
        return;
    part.fail(key, std::string(what) + " is not modelled, got " + it->dump());
}

/// One layer's attention (block_configs[i].attention) into `b`; its KV heads (num_attention_heads / n_heads_in_group)
/// into `kvHeads`, 0 for a layer without attention (importDeci() keeps them in the block where they differ from the
/// shape's).
void readDeciAttention(JsonReader &a, const ModelShape &m, LayerBlock &b, int64_t &kvHeads)
{
    refuseSet(a, "window_length", "a sliding window on some layers");
    refuseSet(a, "num_sink_tokens", "sink-token attention");
    refuseSet(a, "sparsify", "sparsified attention");
    kvHeads = 0;
    if (a.boolean("no_op", false)) {
        b.mixer = LayerMixer::None;
        return;
    }
    if (a.boolean("replace_with_linear", false)) {
        b.mixer = LayerMixer::Linear;
        return;
    }
    b.mixer = LayerMixer::Attention;
    const int64_t group = sizeField(a, "n_heads_in_group");
    if (m.heads % group != 0)
        a.fail("n_heads_in_group",
               std::to_string(group) + " does not divide num_attention_heads (" + std::to_string(m.heads) + ")");
    kvHeads = m.heads / group;
}

/// One layer's FFN (block_configs[i].ffn) into `b`: its width from ffn_mult (or intermediate_size, which newer
/// configs give instead).
void readDeciFfn(JsonReader &f, const ModelShape &m, LayerBlock &b, const std::string &act)
{
    refuseSet(f, "sparsify", "a sparsified FFN");
    if (f.has("hidden_act") && f.string("hidden_act") != act)
        f.fail("hidden_act", "an FFN activation other than the model's (" + act + ") is not modelled, got \"" +
                                 f.string("hidden_act") + "\"");
    if (f.boolean("no_op", false)) {
        b.ffn = LayerFfn::None;
        return;
    }
    if (f.boolean("replace_with_linear", false)) {
        b.ffn = LayerFfn::Linear;
        return;
    }
    b.ffn = LayerFfn::Dense;
    if (f.has("ffn_mult")) {
        const double mult = f.positive("ffn_mult");
        const int64_t width = ffnMultWidth(mult, m.hidden);
        if (width <= 0 || width > kMaxShapeField)
            f.fail("ffn_mult", "gives an implausible FFN width " + std::to_string(width));
        b.ffnWidth = width;
    } else {
        b.ffnWidth = requiredSize(f, {"intermediate_size"});
    }
}

} // namespace

/// DeciLMForCausalLM (NVIDIA's modeling_decilm.py; vLLM's nemotron_nas.py): Llama's embedding, rotary positions,
/// RMSNorms and untied head, and one block_configs entry per layer. A layer's attention is GQA with
/// num_attention_heads / n_heads_in_group KV heads, none (no_op: no norm either), or one hidden x hidden linear layer
/// after its norm (replace_with_linear); its FFN is Llama's gated MLP of the width ffn_mult gives, none (no_op), or one
/// hidden x hidden linear layer after its norm. The config's num_key_value_heads and intermediate_size are null.
void importDeci(JsonReader &r, ModelShape &m, ImportLog &log, const std::string & /*type*/)
{
    importRotaryDecoder(r, m);
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", 0);
    m.qkvBias = m.outBias = r.boolean("attention_bias", false);
    m.ffnBias = r.boolean("mlp_bias", false);
    m.maxPositions = r.integer("max_position_embeddings", 2048); // LlamaConfig's default, which DeciLMConfig keeps
    const std::string act = r.string("hidden_act", "silu");

    const nlohmann::json &blocks = r.array("block_configs");
    if (static_cast<int64_t>(blocks.size()) != m.layers)
        r.fail("block_configs", "must list one block for each of the " + std::to_string(m.layers) +
                                    " layers (num_hidden_layers), got " + std::to_string(blocks.size()));
    int64_t kvHeads = 0, attention = 0, linearMixers = 0, linearFfns = 0;
    std::map<int64_t, int64_t, std::greater<>> widths, kvLayers; // FFN width or KV heads -> layers, largest first
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        JsonReader layer = r.element(blocks[i], i, "block_configs");
        JsonReader a = layer.object("attention");
        JsonReader f = layer.object("ffn");
        LayerBlock b;
        int64_t kv = 0;
        readDeciAttention(a, m, b, kv);
        readDeciFfn(f, m, b, act);
        // The shape's KV heads are the first attention layer's; a layer with others keeps its own.
        if (kv > 0 && kvHeads == 0)
            kvHeads = kv;
        if (kv > 0 && kv != kvHeads)
            b.kvHeads = kv;
        if (kv > 0)
            ++kvLayers[kv];
        attention += b.mixer == LayerMixer::Attention ? 1 : 0;
        linearMixers += b.mixer == LayerMixer::Linear ? 1 : 0;
        linearFfns += b.ffn == LayerFfn::Linear ? 1 : 0;
        if (b.ffn == LayerFfn::Dense)
            ++widths[b.ffnWidth];
        m.layerBlocks.push_back(b);
    }
    if (widths.empty())
        r.fail("block_configs", "no layer has an FFN (every ffn is no_op or replace_with_linear)");
    m.kvHeads = kvHeads > 0 ? kvHeads : m.heads; // without attention layers nothing is cached
    m.ffn = widths.begin()->first;               // the widest layer's

    std::string widthList;
    for (const auto &[width, layers] : widths)
        widthList += (widthList.empty() ? "" : ", ") + std::to_string(layers) + " x " + std::to_string(width);
    const int64_t dense = std::accumulate(widths.begin(), widths.end(), int64_t{0},
                                          [](int64_t s, const auto &w) { return s + w.second; });
    std::string kvList;
    for (const auto &[kv, layers] : kvLayers)
        kvList += (kvList.empty() ? "" : ", ") + std::to_string(layers) + " with " + std::to_string(kv);
    log.note("block_configs: " + std::to_string(attention) + " attention layers (KV heads: " + kvList + "), " +
             std::to_string(linearMixers) + " with attention replaced by a linear layer, " +
             std::to_string(m.layers - attention - linearMixers) + " without attention; " + std::to_string(dense) +
             " FFNs (widths by ffn_mult: " + widthList + "), " + std::to_string(linearFfns) +
             " replaced by a linear layer, " + std::to_string(m.layers - dense - linearFfns) + " without an FFN");
}

} // namespace memwall::core::hf
