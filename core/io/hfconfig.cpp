#include "core/io/hfconfig.h"
#include "core/io/hfimport.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <initializer_list>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace memwall::core {

using nlohmann::json;

// Conventions of this importer (pinned by tests/core/tst_hfconfig.cpp):
// - Field names and defaults follow the Hugging Face `transformers` configuration class of each model_type: a key that
//   is absent (or null) takes that class's default where the default is harmless (tie_word_embeddings, biases,
//   max_position_embeddings, sliding_window ...); the sizes that decide the shape (hidden size, layers, heads, FFN
//   width, vocabulary) are required, so a truncated file is an error rather than a silently different model.
// - Parameters are then counted by paramCount() the way `sum(p.numel())` counts the Hugging Face model class named in
//   the comment of each family below (the *ForCausalLM class for decoders, BertModel and ViTModel with their poolers
//   for encoders).
// - Every error is an InputError whose what() is one line "FILE: FIELD: what is wrong", FIELD being the key in the
//   config.json (not MemWall's name for it).

namespace hf {

/// Lower-case, every run of characters outside [a-z0-9] becomes one '-', no leading or trailing '-'.
std::string slugify(std::string_view s)
{
    std::string out;
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) && u < 128)
            out += static_cast<char>(std::tolower(u));
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out;
}

/// The readable name of the model: the last part of `_name_or_path`, else the file's stem (a file called
/// config.json is named after its folder, as Hugging Face checkouts are).
std::string readableName(JsonReader &r, const std::string &file)
{
    std::string p = r.string("_name_or_path", "");
    while (!p.empty() && (p.back() == '/' || p.back() == '\\'))
        p.pop_back();
    if (auto cut = p.find_last_of("/\\"); cut != std::string::npos)
        p = p.substr(cut + 1);
    if (!p.empty())
        return p;
    namespace fs = std::filesystem;
    const fs::path path(file);
    std::string stem = path.stem().string();
    if (stem == "config" && path.has_parent_path()) {
        const std::string parent = path.parent_path().filename().string();
        if (!parent.empty() && parent != "." && parent != "..")
            stem = parent;
    }
    return stem.empty() ? std::string("model") : stem;
}

/// `key` as a positive whole number no larger than kMaxShapeField, checked as it is read: importers derive sizes
/// from it (4 x hidden_size) before the shape is validated.
int64_t sizeField(JsonReader &r, std::string_view key)
{
    const int64_t v = r.positiveInteger(key);
    if (v > kMaxShapeField)
        r.fail(key, "implausibly large, got " + std::to_string(v));
    return v;
}

/// The first of `keys` present (not null), as a size (sizeField()); a missing value is reported under keys[0].
int64_t requiredSize(JsonReader &r, std::initializer_list<std::string_view> keys)
{
    for (auto k : keys)
        if (r.has(k))
            return sizeField(r, k);
    r.fail(*keys.begin(), "missing");
}

/// The first of `keys` present, as a size (sizeField()), else `fallback`.
int64_t optionalSize(JsonReader &r, std::initializer_list<std::string_view> keys, int64_t fallback)
{
    for (auto k : keys)
        if (r.has(k))
            return sizeField(r, k);
    return fallback;
}

/// `key`, a size the file may leave out (absent or null): then the configuration class `cls`'s default `fallback`,
/// which the import report names (`where` before the key: "vision_config.").
int64_t defaultedSize(JsonReader &r, ImportLog &log, std::string_view key, int64_t fallback, std::string_view cls,
                      std::string_view where)
{
    if (r.has(key))
        return sizeField(r, key);
    log.note(std::string(where) + std::string(key) + ": left out; " + std::string(cls) + "'s default " +
             std::to_string(fallback));
    return fallback;
}

/// The first of `keys` present (not null), else "".
std::string_view presentKey(const JsonReader &r, std::initializer_list<std::string_view> keys)
{
    for (auto k : keys)
        if (r.has(k))
            return k;
    return {};
}

/// Maps Hugging Face activation names (ACT2FN keys) to MemWall's three kinds: every GELU variant (exact, tanh
/// approximation, "new", "fast", "quick") counts as GELU, SiLU/Swish as SiLU. (Squared ReLU, relu2, is Nemotron-H's
/// alone: importNemotronH() reads it.)
Activation activation(JsonReader &r, std::initializer_list<std::string_view> keys, Activation fallback)
{
    const std::string_view key = presentKey(r, keys);
    if (key.empty())
        return fallback;
    const std::string a = r.string(key);
    if (a.starts_with("gelu") || a == "quick_gelu")
        return Activation::Gelu;
    if (a == "silu" || a == "swish" || a == "swiglu")
        return Activation::Silu;
    if (a == "relu")
        return Activation::Relu;
    r.fail(key, "unsupported activation '" + a + "' (supported: gelu and its variants, silu, swish, relu)");
}

/// A sliding-window size that may be null (full attention) or absent (then `absent`).
int64_t slidingWindow(JsonReader &r, std::string_view key, int64_t absent)
{
    if (!r.node().contains(std::string(key)))
        return absent;
    if (!r.has(key))
        return 0; // null: full attention
    const int64_t w = r.integer(key);
    if (w < 0)
        r.fail(key, "must not be negative, got " + std::to_string(w));
    return w;
}

/// A logit soft-cap (cap x tanh(x / cap)) from `key`: absent, the configuration class's default `absent`; null, none
/// (0).
double softcap(JsonReader &r, std::string_view key, double absent)
{
    if (!r.node().contains(std::string(key)))
        return absent;
    if (!r.has(key))
        return 0;
    const double cap = r.number(key);
    if (cap < 0 || cap > 1e6)
        r.fail(key, "must be null (none) or a cap between 0 and 1e6, got " + std::to_string(cap));
    return cap;
}

/// head_dim from an explicit key, else hidden / heads (which must then divide evenly).
int64_t headDim(JsonReader &r, const ModelShape &m, std::string_view headsKey, std::string_view hiddenKey,
                int64_t explicitFallback)
{
    if (r.has("head_dim"))
        return sizeField(r, "head_dim");
    if (explicitFallback > 0)
        return explicitFallback;
    if (m.hidden % m.heads != 0)
        r.fail(headsKey, std::to_string(m.heads) + " does not divide " + std::string(hiddenKey) + " (" +
                             std::to_string(m.hidden) + "); give head_dim");
    return m.hidden / m.heads;
}

void checkKvHeads(JsonReader &r, const ModelShape &m, std::string_view kvKey, std::string_view headsKey)
{
    if (m.kvHeads > 0 && m.heads % m.kvHeads != 0)
        r.fail(kvKey, std::to_string(m.kvHeads) + " does not divide " + std::string(headsKey) + " (" +
                          std::to_string(m.heads) + ")");
}

/// The number of dense layers that `key` (a list of layer indices with a dense FFN, such as mlp_only_layers) puts at
/// the start of the model: the list must be 0, 1, ..., k - 1 (any order), as the block model's dense layers come
/// first. Absent or empty: 0.
int64_t denseLayerPrefix(JsonReader &r, std::string_view key)
{
    if (!r.has(key))
        return 0;
    const json &list = r.array(key);
    std::vector<int64_t> layers;
    for (const json &v : list) {
        if (!v.is_number_integer())
            r.fail(key, "expected layer numbers, got " + brief(v));
        layers.push_back(v.get<int64_t>());
    }
    std::sort(layers.begin(), layers.end());
    for (std::size_t i = 0; i < layers.size(); ++i)
        if (layers[i] != static_cast<int64_t>(i))
            r.fail(key, "only the first layers may be dense (0, 1, 2, ...), got layer " + std::to_string(layers[i]));
    return static_cast<int64_t>(layers.size());
}

/// The period P of the full-attention layers in a layer_types list ("full_attention" or `other` per layer), which
/// must put full attention on every P-th layer (P - 1, 2P - 1, ...). 0 when no layer is full.
int64_t fullAttentionPeriod(JsonReader &r, const ModelShape &m, std::string_view other)
{
    const json &types = r.array("layer_types");
    if (static_cast<int64_t>(types.size()) != m.layers)
        r.fail("layer_types",
               "has " + std::to_string(types.size()) + " entries for " + std::to_string(m.layers) + " layers");
    std::vector<bool> full;
    for (const json &t : types) {
        if (!t.is_string() || (t != other && t != "full_attention"))
            r.fail("layer_types", "expected \"" + std::string(other) + "\" or \"full_attention\", got " + brief(t));
        full.push_back(t == "full_attention");
    }
    if (std::none_of(full.begin(), full.end(), [](bool f) { return f; }))
        return 0;
    for (int64_t p = 1; p <= std::min<int64_t>(m.layers, kMaxPatternPeriod); ++p) {
        bool fits = true;
        for (int64_t i = 0; i < m.layers && fits; ++i)
            fits = full[static_cast<std::size_t>(i)] == (i % p == p - 1);
        if (fits)
            return p;
    }
    r.fail("layer_types", "the full-attention layers are not every n-th layer; such a pattern is not supported");
}

/// global_every from a layer_types list ("sliding_attention" / "full_attention" per layer): the period P at which
/// every P-th layer (P - 1, 2P - 1, ...) is full and the others sliding. 0 when every layer slides.
int64_t globalEveryFromLayerTypes(JsonReader &r, const ModelShape &m)
{
    return fullAttentionPeriod(r, m, "sliding_attention");
}

/// The Llama lineage's FFN: dense, or Mixtral's, PhiMoE's and Qwen-MoE's experts (importLlamaLike()).
void importLlamaFfn(JsonReader &r, ModelShape &m, const std::string &type)
{
    if (type == "qwen2_moe" || type == "qwen3_moe") {
        // Qwen2MoeForCausalLM / Qwen3MoeForCausalLM: layer i is sparse when (i + 1) % decoder_sparse_step == 0 and i
        // is not in mlp_only_layers; the others have a dense FFN of width intermediate_size. Qwen2-MoE also has one
        // always-active shared expert per sparse layer (an FFN of width shared_expert_intermediate_size) scaled by a
        // sigmoid gate (hidden x 1); Qwen3-MoE has none.
        m.ffn = requiredSize(r, {"moe_intermediate_size"});
        m.experts = requiredSize(r, {"num_experts"});
        m.activeExperts = requiredSize(r, {"num_experts_per_tok"});
        if (type == "qwen2_moe") {
            m.sharedFfn = optionalSize(r, {"shared_expert_intermediate_size"}, 0);
            m.sharedExpertGate = m.sharedFfn > 0;
        }
        const int64_t step = r.integer("decoder_sparse_step", 1);
        if (step < 1 || step > kMaxPatternPeriod)
            r.fail("decoder_sparse_step",
                   "must be between 1 and " + std::to_string(kMaxPatternPeriod) + ", got " + std::to_string(step));
        m.moeEvery = step;
        m.moeOffset = step - 1;
        m.firstDenseLayers = denseLayerPrefix(r, "mlp_only_layers");
        if (m.moeEvery > 1 || m.firstDenseLayers > 0)
            m.denseFfn = requiredSize(r, {"intermediate_size"});
        else
            r.integer("intermediate_size", 0); // dense layers only; unused when every layer is sparse
    } else {
        m.ffn = requiredSize(r, {"intermediate_size"});
    }
    if (type == "mixtral" || type == "phimoe") {
        m.experts = requiredSize(r, {"num_local_experts"});
        m.activeExperts = requiredSize(r, {"num_experts_per_tok"});
    }
    if (m.activeExperts > m.experts)
        r.fail("num_experts_per_tok",
               std::to_string(m.activeExperts) + " exceeds the number of experts (" + std::to_string(m.experts) + ")");
}

/// The Llama lineage's biases and q/k norms, by family (importLlamaLike()).
void importLlamaBiases(JsonReader &r, ModelShape &m, const std::string &type)
{
    // Biases: Qwen2 has q/k/v biases and a bias-free o_proj; Llama-style configs switch all four with attention_bias
    // and the MLP's with mlp_bias (both false by default).
    if (type == "qwen2" || type == "qwen2_moe") {
        m.qkvBias = true;
        m.outBias = false;
    } else if (type == "qwen3" || type == "qwen3_moe") {
        // Qwen3: no q/k/v biases (attention_bias, false by default), and an RMSNorm over each head's q and k.
        m.qkvBias = m.outBias = r.boolean("attention_bias", false);
        m.qkNorm = true;
    } else if (type == "olmo2") {
        // Olmo2ForCausalLM: q_norm and k_norm are RMSNorms over the whole projected q (heads x head_dim) and k
        // (kv_heads x head_dim), not per head; the MLP has no biases (Olmo2Config has no mlp_bias). Its two norms a
        // layer (post_attention_layernorm, post_feedforward_layernorm) sit after attention and the MLP, before each
        // residual add, where a Llama layer has its two before them: the same weights, and the same FLOPs and bytes
        // per token, so the block counts them as its two norms (operators attn.norm and ffn.norm).
        m.qkvBias = m.outBias = r.boolean("attention_bias", false);
        m.qkNorm = m.qkNormFullWidth = true;
    } else if (type == "phimoe") {
        // PhimoeForCausalLM (Phi-3.5-MoE): Mixtral's block with LayerNorms (weight and bias; the eps is still called
        // rms_norm_eps), biases on q, k, v and o when attention_bias is set, bias-free experts and router, and an LM
        // head with a bias of its own when lm_head_bias is set (PhimoeConfig's defaults: both false). Its LongRoPE
        // scaling (rope_scaling) changes rotary frequencies, not weights or FLOPs.
        m.norm = NormKind::LayerNorm;
        m.qkvBias = m.outBias = r.boolean("attention_bias", false);
        m.headBias = r.boolean("lm_head_bias", false);
    } else {
        m.qkvBias = m.outBias = r.boolean("attention_bias", false);
        m.ffnBias = r.boolean("mlp_bias", false);
    }
}

/// The Llama lineage's trained context, sliding windows, local/global layer pattern and soft-caps (importLlamaLike()).
void importLlamaContext(JsonReader &r, ModelShape &m, const std::string &type)
{
    // Trained context and sliding window (transformers defaults: Mistral 4096 when the key is absent).
    const int64_t defaultPositions = type == "llama" || type == "olmo2" ? 2048
                                     : type == "phi3"                   ? 4096
                                     : type == "gemma"                  ? 8192
                                     : type == "phimoe"                 ? 131072
                                                                        : 32768;
    m.maxPositions = r.integer("max_position_embeddings", defaultPositions);
    if (type == "mistral")
        m.slidingWindow = slidingWindow(r, "sliding_window", 4096);
    else if (type == "mixtral" || type == "phi3" || type == "phimoe")
        m.slidingWindow = slidingWindow(r, "sliding_window", 0);
    else if (type == "qwen2" || type == "qwen2_moe" || type == "qwen3" || type == "qwen3_moe") {
        m.slidingWindow = r.boolean("use_sliding_window", false) ? slidingWindow(r, "sliding_window", 4096) : 0;
        if (m.slidingWindow > 0 && r.integer("max_window_layers", m.layers) < m.layers)
            r.fail("max_window_layers", "a window on only some layers is not supported; got " +
                                            std::to_string(r.integer("max_window_layers")) + " of " +
                                            std::to_string(m.layers) + " layers");
    }
    // gemma2 alternates local layers (sliding_window, 4096 tokens) and global ones, starting local: every second
    // layer is global. gemma3_text has five local layers (sliding_window, 512 or 1024 tokens) to each global one
    // (sliding_window_pattern 6, or the layer_types list of newer configs), and RMSNorms over each head's q and k.
    // Both have four RMSNorms per layer (the attention's and the FFN's outputs are normed too), and may soft-cap the
    // attention scores and the output logits (attn_logit_softcapping, final_logit_softcapping: Gemma2Config's
    // defaults 50 and 30, Gemma3TextConfig's none).
    if (type == "gemma2" || type == "gemma3_text") {
        m.attentionSoftcap = softcap(r, "attn_logit_softcapping", type == "gemma2" ? 50.0 : 0.0);
        m.finalSoftcap = softcap(r, "final_logit_softcapping", type == "gemma2" ? 30.0 : 0.0);
    }
    if (type == "gemma2") {
        m.postNorms = true;
        m.slidingWindow = slidingWindow(r, "sliding_window", 4096);
        m.globalEvery = m.slidingWindow > 0 ? 2 : 0;
    }
    if (type == "gemma3_text") {
        m.postNorms = true;
        m.qkNorm = true;
        m.slidingWindow = slidingWindow(r, "sliding_window", 4096);
        m.globalEvery = r.has("layer_types") ? globalEveryFromLayerTypes(r, m) : r.integer("sliding_window_pattern", 6);
        if (m.slidingWindow == 0)
            m.globalEvery = 0;
    }
}

/// The Llama lineage (LlamaForCausalLM and its descendants): pre-norm RMSNorm decoder, rotary positions, gated
/// (SwiGLU/GeGLU) FFN of three bias-free projections, optional grouped-query attention, untied LM head by default.
void importLlamaLike(JsonReader &r, ModelShape &m, const std::string &type)
{
    m.arch = Architecture::Decoder;
    m.hidden = requiredSize(r, {"hidden_size"});
    m.layers = requiredSize(r, {"num_hidden_layers"});
    m.heads = requiredSize(r, {"num_attention_heads"});
    m.kvHeads = optionalSize(r, {"num_key_value_heads"}, m.heads);
    checkKvHeads(r, m, "num_key_value_heads", "num_attention_heads");
    const bool gemma = type == "gemma" || type == "gemma2" || type == "gemma3_text";
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", gemma ? 256 : 0);
    m.vocab = requiredSize(r, {"vocab_size"});
    m.gatedFfn = true;
    m.positions = PositionEncoding::Rotary;
    m.norm = NormKind::RmsNorm;
    // Gemma names its activation hidden_activation (hidden_act is the legacy key, both GELU-tanh).
    m.activation = gemma ? activation(r, {"hidden_activation", "hidden_act"}, Activation::Gelu)
                         : activation(r, {"hidden_act"}, Activation::Silu);
    // transformers' defaults: Gemma ties its embeddings; the others do not.
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", gemma);
    importLlamaFfn(r, m, type);
    importLlamaBiases(r, m, type);
    importLlamaContext(r, m, type);
}

/// What the newer decoders share: sizes, gated FFN, rotary positions, RMSNorm, untied head unless the config ties it.
void importRotaryDecoder(JsonReader &r, ModelShape &m)
{
    m.arch = Architecture::Decoder;
    m.hidden = requiredSize(r, {"hidden_size"});
    m.layers = requiredSize(r, {"num_hidden_layers"});
    m.heads = requiredSize(r, {"num_attention_heads"});
    m.vocab = requiredSize(r, {"vocab_size"});
    m.gatedFfn = true;
    m.activation = activation(r, {"hidden_act"}, Activation::Silu);
    m.positions = PositionEncoding::Rotary;
    m.norm = NormKind::RmsNorm;
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", false);
}

void readDeepseekMoe(JsonReader &r, ModelShape &m, const DeepseekMoeKeys &keys, int64_t dense)
{
    m.activeExperts = requiredSize(r, {keys.perToken});
    if (m.activeExperts > m.experts)
        r.fail(keys.perToken, std::to_string(m.activeExperts) + " exceeds " + std::string(keys.experts) + " (" +
                                  std::to_string(m.experts) + ")");
    m.ffn = requiredSize(r, {"moe_intermediate_size"});
    const int64_t shared = r.integer(keys.shared, 0);
    if (shared < 0 || shared > kMaxShapeField / m.ffn) // checked before the product, which must not overflow
        r.fail(keys.shared,
               "must be between 0 and " + std::to_string(kMaxShapeField / m.ffn) + ", got " + std::to_string(shared));
    m.sharedFfn = m.ffn * shared;
    m.firstDenseLayers = r.integer("first_k_dense_replace", 0);
    if (m.firstDenseLayers < 0 || m.firstDenseLayers > m.layers)
        r.fail("first_k_dense_replace",
               "must be between 0 and num_hidden_layers, got " + std::to_string(m.firstDenseLayers));
    // DeepseekV2/V3 DecoderLayer: routed when layer_idx >= first_k_dense_replace and layer_idx % moe_layer_freq == 0.
    m.moeEvery = r.integer("moe_layer_freq", 1);
    if (m.moeEvery < 1 || m.moeEvery > std::min<int64_t>(m.layers, kMaxPatternPeriod))
        r.fail("moe_layer_freq", "must be between 1 and the layers, got " + std::to_string(m.moeEvery));
    m.moeOffset = 0;
    m.denseFfn = dense;
}

/// DeepseekV2ForCausalLM / DeepseekV3ForCausalLM (and Kimi K2, a DeepSeek-V3 layout): multi-head latent attention,
/// first_k_dense_replace dense layers of width intermediate_size, then (every moe_layer_freq-th layer) n_routed_experts
/// experts of width moe_intermediate_size with num_experts_per_tok per token, and n_shared_experts always-active
/// experts that form one FFN n_shared_experts x moe_intermediate_size wide. DeepSeek-V3's router ("noaux_tc") has a
/// bias per expert (e_score_correction_bias). Group-limited routing (n_group, topk_group) picks among the same
/// experts, so it changes neither the parameters nor the experts a token reads. The multi-token-prediction module
/// (num_nextn_predict_layers) is not part of the *ForCausalLM model: importDeepseekV3() counts it apart.
void importDeepseek(JsonReader &r, ModelShape &m, const std::string &type)
{
    importRotaryDecoder(r, m);
    m.kvHeads = m.heads; // every head has its own keys and values, rebuilt from the one latent
    m.mixer = MixerKind::Mla;
    m.mla.qLoraRank = optionalSize(r, {"q_lora_rank"}, 0); // null: queries projected directly (V2-Lite)
    m.mla.kvLoraRank = requiredSize(r, {"kv_lora_rank"});
    m.mla.qkNopeHeadDim = requiredSize(r, {"qk_nope_head_dim"});
    m.mla.qkRopeHeadDim = requiredSize(r, {"qk_rope_head_dim"});
    m.mla.vHeadDim = requiredSize(r, {"v_head_dim"});
    m.headDim = m.mla.qkNopeHeadDim + m.mla.qkRopeHeadDim;
    m.qkvBias = m.outBias = r.boolean("attention_bias", false);
    if (m.qkvBias)
        r.fail("attention_bias", "biases in multi-head latent attention are not supported");
    m.maxPositions = r.integer("max_position_embeddings", 2048);

    const int64_t routed = optionalSize(r, {"n_routed_experts"}, 0);
    const int64_t dense = requiredSize(r, {"intermediate_size"});
    if (routed == 0) { // a dense DeepSeek model
        m.ffn = dense;
        return;
    }
    m.experts = routed;
    readDeepseekMoe(r, m, {"n_routed_experts", "num_experts_per_tok", "n_shared_experts"}, dense);
    m.routerBias = r.string("topk_method", type == "deepseek_v2" ? "greedy" : "noaux_tc") == "noaux_tc";
}

/// GptOssForCausalLM: grouped-query attention with biases on q, k, v and o and one learned sink logit per head;
/// layers alternate a sliding window (sliding_window, 128 tokens) and full attention (layer_types); every layer has
/// num_local_experts gated experts of width intermediate_size with biases, experts_per_token per token, and a router
/// with a bias. The experts ship in MXFP4 and the rest in BF16: analyse it with --expert-weights mxfp4.
void importGptOss(JsonReader &r, ModelShape &m)
{
    importRotaryDecoder(r, m);
    m.kvHeads = optionalSize(r, {"num_key_value_heads"}, m.heads);
    checkKvHeads(r, m, "num_key_value_heads", "num_attention_heads");
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", 0);
    m.qkvBias = m.outBias = r.boolean("attention_bias", true);
    m.attentionSinks = true;
    m.ffn = requiredSize(r, {"intermediate_size"});
    m.ffnBias = true;
    m.experts = requiredSize(r, {"num_local_experts"});
    m.activeExperts = requiredSize(r, {"num_experts_per_tok", "experts_per_token"});
    if (m.activeExperts > m.experts)
        r.fail("num_experts_per_tok",
               std::to_string(m.activeExperts) + " exceeds num_local_experts (" + std::to_string(m.experts) + ")");
    m.routerBias = true;
    m.maxPositions = r.integer("max_position_embeddings", 131072);
    m.slidingWindow = slidingWindow(r, "sliding_window", 128);
    if (m.slidingWindow > 0)
        m.globalEvery = r.has("layer_types") ? globalEveryFromLayerTypes(r, m) : 2;
}

/// CohereForCausalLM (Command R): attention and the FFN read one LayerNorm's output in parallel; the LayerNorm has
/// no bias; grouped-query attention without biases, a gated SiLU FFN, rotary positions, tied embeddings by default.
/// Its logit_scale is a constant, not a parameter. Per-head q/k LayerNorms (use_qk_norm, Command R+) are refused:
/// their weights are per head, which the block model's q/k norm is not.
void importCohere(JsonReader &r, ModelShape &m)
{
    importRotaryDecoder(r, m);
    m.kvHeads = optionalSize(r, {"num_key_value_heads"}, m.heads);
    checkKvHeads(r, m, "num_key_value_heads", "num_attention_heads");
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", 0);
    m.ffn = requiredSize(r, {"intermediate_size"});
    m.norm = NormKind::LayerNorm;
    m.normBias = false;
    m.parallelAttention = m.sharedLayerNorm = true;
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", true);
    m.qkvBias = m.outBias = r.boolean("attention_bias", false);
    m.maxPositions = r.integer("max_position_embeddings", 8192);
    if (r.boolean("use_qk_norm", false))
        r.fail("use_qk_norm", "per-head q/k LayerNorms are not supported");
}

/// dt_rank: a number, or "auto" = ceil(hidden / 16) as in Mamba's reference code.
int64_t dtRank(JsonReader &r, std::string_view key, int64_t hidden)
{
    if (r.has(key) && r.raw(key).is_string()) {
        if (r.string(key) != "auto")
            r.fail(key, "expected a number or \"auto\", got \"" + r.string(key) + "\"");
        return (hidden + 15) / 16;
    }
    return r.has(key) ? sizeField(r, key) : (hidden + 15) / 16;
}

/// d_inner = expand x hidden, the factor read from `key` of `r` (default 2) and checked before it multiplies.
int64_t ssmInnerSize(JsonReader &r, int64_t hidden, std::string_view key = "expand")
{
    const int64_t expand = optionalSize(r, {key}, 2);
    if (expand > kMaxShapeField / hidden)
        r.fail(key, "implausibly large, got " + std::to_string(expand));
    return expand * hidden;
}

/// A layer period of `key` (at least 1, at most the layers) and its offset `offsetKey` (below the period), as the
/// block model's layer patterns take them.
std::pair<int64_t, int64_t> layerPeriod(JsonReader &r, const ModelShape &m, std::string_view key, int64_t period,
                                        std::string_view offsetKey, int64_t offset)
{
    const int64_t every = r.integer(key, period);
    if (every < 1 || every > std::min<int64_t>(m.layers, kMaxPatternPeriod))
        r.fail(key, "must be between 1 and the layers (at most " + std::to_string(kMaxPatternPeriod) + "), got " +
                        std::to_string(every));
    const int64_t at = r.integer(offsetKey, offset);
    if (at < 0 || at >= every)
        r.fail(offsetKey, "must be between 0 and " + std::string(key) + " - 1 (" + std::to_string(every - 1) +
                              "), got " + std::to_string(at));
    return {every, at};
}

/// A pure state-space model has no attention; its attention fields name the state-space heads (one for Mamba-1) so
/// that the shape stays valid.
void nameSsmHeads(ModelShape &m)
{
    m.heads = m.kvHeads = m.ssm.kind == SsmKind::Mamba2 ? m.ssm.heads : 1;
    m.headDim = m.ssm.innerSize / m.heads;
}

/// MambaForCausalLM (model_type mamba, Mamba-1) and Mamba2ForCausalLM (mamba2): every layer a norm and the
/// state-space mixer, no attention and no FFN; RMSNorm; the LM head tied by default for Mamba-1.
void importMamba(JsonReader &r, ModelShape &m, const std::string &type)
{
    m.arch = Architecture::Decoder;
    m.hidden = requiredSize(r, {"hidden_size"});
    m.layers = requiredSize(r, {"num_hidden_layers"});
    m.vocab = requiredSize(r, {"vocab_size"});
    m.positions = PositionEncoding::None;
    m.norm = NormKind::RmsNorm;
    m.ffn = 0;
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", type == "mamba");
    SsmShape &x = m.ssm;
    x.stateSize = optionalSize(r, {"state_size"}, type == "mamba" ? 16 : 128);
    x.innerSize = ssmInnerSize(r, m.hidden);
    x.convKernel = optionalSize(r, {"conv_kernel"}, 4);
    x.convBias = r.boolean("use_conv_bias", true);
    x.projBias = r.boolean("use_bias", false);
    if (type == "mamba") {
        x.kind = SsmKind::Mamba1;
        x.dtRank = dtRank(r, "time_step_rank", m.hidden);
    } else {
        x.kind = SsmKind::Mamba2;
        x.heads = requiredSize(r, {"num_heads"});
        x.groups = optionalSize(r, {"n_groups"}, 1);
        x.chunkSize = optionalSize(r, {"chunk_size"}, 256);
    }
    nameSsmHeads(m);
}

/// JambaForCausalLM (Jamba, Jamba 1.5): Mamba-1 layers with a few attention layers and experts. Layer i attends when
/// i % attn_layer_period == attn_layer_offset (grouped-query attention without biases or positions); every other
/// layer's mixer is Jamba's Mamba-1 (mamba_d_state, mamba_d_conv, mamba_expand x hidden channels, mamba_dt_rank, a
/// conv bias by mamba_conv_bias, in/out projection biases by mamba_proj_bias) with RMSNorms over dt, B and C. Layer
/// i's FFN routes over num_experts gated experts (num_experts_per_tok per token, a router without bias) when
/// i % expert_layer_period == expert_layer_offset, else it is one dense gated FFN; both are intermediate_size wide.
/// Two RMSNorms a layer, untied LM head by default (JambaConfig's defaults: periods 8 and 2, offsets 4 and 1).
void importJamba(JsonReader &r, ModelShape &m)
{
    importRotaryDecoder(r, m);
    m.positions = PositionEncoding::None;
    m.kvHeads = optionalSize(r, {"num_key_value_heads"}, m.heads);
    checkKvHeads(r, m, "num_key_value_heads", "num_attention_heads");
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", 0);
    m.ffn = requiredSize(r, {"intermediate_size"});
    m.maxPositions = r.integer("max_position_embeddings", 262144);
    m.slidingWindow = slidingWindow(r, "sliding_window", 0);
    SsmShape &x = m.ssm;
    x.kind = SsmKind::Mamba1;
    x.stateSize = optionalSize(r, {"mamba_d_state"}, 16);
    x.convKernel = optionalSize(r, {"mamba_d_conv"}, 4);
    x.innerSize = ssmInnerSize(r, m.hidden, "mamba_expand");
    x.dtRank = dtRank(r, "mamba_dt_rank", m.hidden);
    x.convBias = r.boolean("mamba_conv_bias", true);
    x.projBias = r.boolean("mamba_proj_bias", false);
    x.innerNorms = true;
    std::tie(m.attentionEvery, m.attentionOffset) = layerPeriod(r, m, "attn_layer_period", 8, "attn_layer_offset", 4);
    m.experts = optionalSize(r, {"num_experts"}, 16);
    m.activeExperts = optionalSize(r, {"num_experts_per_tok"}, 2);
    if (m.activeExperts > m.experts)
        r.fail("num_experts_per_tok",
               std::to_string(m.activeExperts) + " exceeds num_experts (" + std::to_string(m.experts) + ")");
    if (m.isMoe()) {
        std::tie(m.moeEvery, m.moeOffset) = layerPeriod(r, m, "expert_layer_period", 2, "expert_layer_offset", 1);
        if (m.moeEvery > 1)
            m.denseFfn = m.ffn; // JambaMLP of intermediate_size in the other layers
    } else {
        m.activeExperts = 1;
    }
}

/// NemotronHForCausalLM (Nemotron-H, model_type nemotron_h; transformers' modeling_nemotron_h): hybrid_override_pattern
/// gives each layer one block, an RMSNorm, one part and a residual add: 'M' Mamba-2 (mamba_num_heads heads of
/// mamba_head_dim channels, ssm_state_size, n_groups, conv_kernel with a bias by use_conv_bias, in/out projection
/// biases by use_bias, chunk_size), '*' grouped-query attention without positions (attention_head_dim, biases by
/// attention_bias), '-' an MLP of two matrices (up and down, intermediate_size, biases by mlp_bias) and its
/// mlp_hidden_act (relu2: squared ReLU). A final RMSNorm and an untied LM head by default. Not read: expand (the
/// channels are the heads x head_dim), mamba_proj_bias (the mixer takes its biases from use_bias), the step-size
/// limits and initialisation (time_step_*, whose Infinity reads as null) and residual_in_fp32 (FP32 residual adds).
/// 'E' layers (Nemotron-3) are routed experts alone: readNemotronExperts().
/// Nemotron-3's 'E' layers (transformers' NemotronHMoE): n_routed_experts experts of moe_intermediate_size with
/// up and down projections and no gate or bias (NemotronHExperts, mlp_hidden_act), num_experts_per_tok a token,
/// DeepSeek-V3's sigmoid router with a bias per expert (NemotronHTopkRouter: e_score_correction_bias), and one shared
/// expert, an MLP of moe_shared_expert_intermediate_size (NemotronHMLP). The '-' layers keep intermediate_size.
/// Refused: the latent projections around the experts (moe_latent_size, Nemotron-3 Super) and MLP biases beside
/// experts, which have none.
void readNemotronExperts(JsonReader &r, ModelShape &m)
{
    if (r.has("moe_latent_size"))
        r.fail("moe_latent_size", "the latent projections around the experts (fc1_latent_proj, fc2_latent_proj) "
                                  "are not modelled, got " +
                                      std::to_string(r.integer("moe_latent_size")));
    if (m.ffnBias)
        r.fail("mlp_bias", "biases beside bias-free experts are not modelled");
    if (m.layerPattern.find('-') != std::string::npos)
        m.denseFfn = m.ffn;
    m.ffn = requiredSize(r, {"moe_intermediate_size"});
    m.experts = requiredSize(r, {"n_routed_experts"});
    m.activeExperts = requiredSize(r, {"num_experts_per_tok"});
    if (m.experts < 2 || m.activeExperts > m.experts)
        r.fail("num_experts_per_tok", std::to_string(m.activeExperts) + " of n_routed_experts (" +
                                          std::to_string(m.experts) + "): at least 2 experts, at most all of them");
    m.sharedFfn = optionalSize(r, {"moe_shared_expert_intermediate_size"}, 0);
    m.routerBias = true;
}

void importNemotronH(JsonReader &r, ModelShape &m)
{
    m.arch = Architecture::Decoder;
    m.hidden = requiredSize(r, {"hidden_size"});
    m.layers = requiredSize(r, {"num_hidden_layers"});
    m.heads = requiredSize(r, {"num_attention_heads"});
    m.kvHeads = requiredSize(r, {"num_key_value_heads"});
    checkKvHeads(r, m, "num_key_value_heads", "num_attention_heads");
    m.headDim = requiredSize(r, {"attention_head_dim", "head_dim"}); // Nemotron-3 spells it head_dim
    m.vocab = requiredSize(r, {"vocab_size"});
    m.ffn = requiredSize(r, {"intermediate_size"});
    m.gatedFfn = false;
    m.activation = r.string("mlp_hidden_act", "relu2") == "relu2"
                       ? Activation::Relu2
                       : activation(r, {"mlp_hidden_act"}, Activation::Relu2);
    m.positions = PositionEncoding::None;
    m.maxPositions = r.integer("max_position_embeddings", 4096);
    m.norm = NormKind::RmsNorm;
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", false);
    m.qkvBias = m.outBias = r.boolean("attention_bias", false);
    m.ffnBias = r.boolean("mlp_bias", false);
    if (slidingWindow(r, "sliding_window", 0) != 0)
        r.fail("sliding_window", "a window in Nemotron-H's attention layers is not supported, got " +
                                     std::to_string(r.integer("sliding_window")));
    if (const std::string act = r.string("mamba_hidden_act", "silu"); act != "silu")
        r.fail("mamba_hidden_act", "Mamba-2 with a gate other than silu is not supported, got '" + act + "'");
    SsmShape &x = m.ssm;
    x.kind = SsmKind::Mamba2;
    x.stateSize = requiredSize(r, {"ssm_state_size"});
    x.heads = requiredSize(r, {"mamba_num_heads"});
    const int64_t headdim = requiredSize(r, {"mamba_head_dim"});
    if (x.heads > kMaxShapeField / headdim)
        r.fail("mamba_head_dim", "implausibly large with mamba_num_heads " + std::to_string(x.heads) + ", got " +
                                     std::to_string(headdim));
    x.innerSize = x.heads * headdim;
    x.groups = optionalSize(r, {"n_groups"}, 8);
    x.convKernel = optionalSize(r, {"conv_kernel"}, 4);
    x.convBias = r.boolean("use_conv_bias", true);
    x.projBias = r.boolean("use_bias", false);
    x.chunkSize = optionalSize(r, {"chunk_size"}, 128);
    const std::string pattern = r.string("hybrid_override_pattern");
    if (static_cast<int64_t>(pattern.size()) != m.layers)
        r.fail("hybrid_override_pattern",
               "has " + std::to_string(pattern.size()) + " layers for num_hidden_layers " + std::to_string(m.layers));
    if (const auto bad = pattern.find_first_not_of("M*-E"); bad != std::string::npos)
        r.fail("hybrid_override_pattern", "layer " + std::to_string(bad) + " is '" + std::string(1, pattern[bad]) +
                                              "'; only M (Mamba-2), * (attention), - (MLP) and E (MoE) are supported");
    if (m.layers > kMaxPatternPeriod)
        r.fail("hybrid_override_pattern", "at most " + std::to_string(kMaxPatternPeriod) +
                                              " layers are supported, got " + std::to_string(m.layers));
    m.layerPattern = pattern;
    if (pattern.find('E') != std::string::npos)
        readNemotronExperts(r, m);
}

/// Llama4ForCausalLM, the language model of Llama 4 (its own config, model_type llama4_text, or the text_config of a
/// llama4 config). Grouped-query attention (head_dim), no biases by default; three layers of four attend with rotary
/// positions in chunks of attention_chunk_size tokens and every no_rope_layer_interval-th layer (3, 7, ...) attends
/// to the whole context without positions. Layer i is a MoE layer when it is in moe_layers (by default every
/// interleave_moe_layer_step-th layer: step - 1, 2 step - 1, ...): num_local_experts gated experts of
/// intermediate_size, num_experts_per_tok per token, a router without bias, and one always-active shared expert of
/// the same width (Llama4TextMoe.shared_expert, which no key declares); the other layers have a dense gated FFN of
/// intermediate_size_mlp. Two RMSNorms a layer, untied LM head by default.
/// Not counted: Scout's q/k norm (use_qk_norm) is an L2 norm without weights, a few FLOPs per element of q and k;
/// the NoPE layers' attention temperature tuning scales q by a constant per position.
void importLlama4Text(JsonReader &r, ModelShape &m)
{
    importRotaryDecoder(r, m);
    m.family = "llama4";
    m.kvHeads = optionalSize(r, {"num_key_value_heads"}, m.heads);
    checkKvHeads(r, m, "num_key_value_heads", "num_attention_heads");
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", 0);
    m.qkvBias = m.outBias = r.boolean("attention_bias", false);
    m.maxPositions = r.integer("max_position_embeddings", 131072);
    m.ffn = requiredSize(r, {"intermediate_size"});
    m.experts = requiredSize(r, {"num_local_experts"});
    m.activeExperts = requiredSize(r, {"num_experts_per_tok"});
    if (m.experts < 2)
        r.fail("num_local_experts",
               "a Llama 4 MoE layer of one routed expert is not supported, got " + std::to_string(m.experts));
    if (m.activeExperts > m.experts)
        r.fail("num_experts_per_tok",
               std::to_string(m.activeExperts) + " exceeds num_local_experts (" + std::to_string(m.experts) + ")");
    m.sharedFfn = m.ffn;
    const int64_t step = r.integer("interleave_moe_layer_step", 1);
    if (step < 1 || step > std::min<int64_t>(m.layers, kMaxPatternPeriod))
        r.fail("interleave_moe_layer_step", "must be between 1 and the layers (at most " +
                                                std::to_string(kMaxPatternPeriod) + "), got " + std::to_string(step));
    if (r.has("moe_layers")) {
        const json &list = r.array("moe_layers");
        bool fits = static_cast<int64_t>(list.size()) == m.layers / step;
        for (std::size_t i = 0; fits && i < list.size(); ++i)
            fits = list[i].is_number_integer() && list[i].get<int64_t>() == step - 1 + static_cast<int64_t>(i) * step;
        if (!fits)
            r.fail("moe_layers", "only every interleave_moe_layer_step-th layer (" + std::to_string(step - 1) + ", " +
                                     std::to_string(2 * step - 1) + ", ...) may be a MoE layer");
    }
    m.moeEvery = step;
    m.moeOffset = step - 1;
    if (step > 1)
        m.denseFfn = requiredSize(r, {"intermediate_size_mlp"});
    else
        r.integer("intermediate_size_mlp", 0); // the dense layers' width; unused when every layer has experts
    m.slidingWindow = slidingWindow(r, "attention_chunk_size", 8192);
    if (m.slidingWindow > 0) {
        m.chunkedAttention = true;
        // no_rope_layers: 1 for a layer with rotary positions (chunked), 0 for a NoPE layer (global); empty or
        // absent: every no_rope_layer_interval-th layer is NoPE.
        m.globalEvery = r.integer("no_rope_layer_interval", 4);
        if (m.globalEvery < 1 || m.globalEvery > std::min<int64_t>(m.layers, kMaxPatternPeriod))
            r.fail("no_rope_layer_interval", "must be between 1 and the layers, got " + std::to_string(m.globalEvery));
        if (r.has("no_rope_layers") && !r.array("no_rope_layers").empty()) {
            const json &list = r.array("no_rope_layers");
            bool fits = static_cast<int64_t>(list.size()) == m.layers;
            for (std::size_t i = 0; fits && i < list.size(); ++i)
                fits = list[i].is_number_integer() &&
                       list[i].get<int64_t>() == (static_cast<int64_t>(i) % m.globalEvery == m.globalEvery - 1 ? 0 : 1);
            if (!fits)
                r.fail("no_rope_layers", "only every no_rope_layer_interval-th layer (" +
                                             std::to_string(m.globalEvery - 1) + ", " +
                                             std::to_string(2 * m.globalEvery - 1) + ", ...) may be a NoPE layer");
        }
    }
}

/// Llama4ForConditionalGeneration (model_type llama4): the language model (text_config) and, when the file has its
/// vision_config, the vision encoder and its projector (readLlama4Vision()); a file without one (a trimmed copy) is
/// the language model alone, and its name says so.
void importLlama4(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    JsonReader text = r.object("text_config");
    const std::string textType = text.string("model_type", "llama4_text");
    if (textType != "llama4_text")
        text.fail("model_type", "expected \"llama4_text\", got \"" + textType + "\"");
    importLlama4Text(text, m);
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", m.tiedEmbeddings); // Llama4Config keeps it at the top
    if (r.has("vision_config"))
        readLlama4Vision(r, m, log); // the full published file: the tower and projector too
    else
        m.name += " (language model)";
}

/// Linear-attention hybrids (Gated DeltaNet) of the Qwen3-Next lineage.
/// ---------------------------------------------------------------------------------------------------------------

/// The period of the full-attention layers among linear-attention ones: from layer_types ("linear_attention" /
/// "full_attention" per layer, which must put full attention on every P-th layer: P - 1, 2P - 1, ...), else
/// full_attention_interval (Qwen3NextConfig: layer i is full when (i + 1) % interval == 0; default 4). 0: no full
/// layer.
int64_t fullAttentionEvery(JsonReader &r, const ModelShape &m)
{
    if (!r.has("layer_types")) {
        const int64_t every = r.integer("full_attention_interval", 4);
        if (every < 1 || every > std::min<int64_t>(m.layers, kMaxPatternPeriod))
            r.fail("full_attention_interval", "must be between 1 and the layers (at most " +
                                                  std::to_string(kMaxPatternPeriod) + "), got " +
                                                  std::to_string(every));
        return every;
    }
    return fullAttentionPeriod(r, m, "linear_attention");
}

/// partial_rotary_factor: in rope_parameters (transformers 5), rope_scaling, or at the top (older configs); the
/// Qwen3NextConfig default 0.25 when absent.
double rotaryFraction(JsonReader &r)
{
    double f = r.number("partial_rotary_factor", 0.25);
    std::string_view key = "partial_rotary_factor";
    for (std::string_view outer : {"rope_scaling", "rope_parameters"})
        if (r.has(outer) && r.raw(outer).is_object()) {
            JsonReader rope = r.object(outer);
            if (rope.has("partial_rotary_factor")) {
                f = rope.number("partial_rotary_factor");
                key = outer;
            }
        }
    if (!(f > 0 && f <= 1))
        r.fail(key, "partial_rotary_factor must be above 0 and at most 1, got " + std::to_string(f));
    return f;
}

/// The Gated DeltaNet layers (Qwen3NextGatedDeltaNet): linear_num_key_heads and linear_num_value_heads heads of
/// linear_key_head_dim and linear_value_head_dim, a convolution of linear_conv_kernel_dim (Qwen3NextConfig's defaults
/// 16, 32, 128, 128 and 4), and which layers attend instead.
void readGatedDeltaNet(JsonReader &r, ModelShape &m)
{
    LinearAttentionShape &x = m.linear;
    x.keyHeads = optionalSize(r, {"linear_num_key_heads"}, 16);
    x.valueHeads = optionalSize(r, {"linear_num_value_heads"}, 32);
    x.keyHeadDim = optionalSize(r, {"linear_key_head_dim"}, 128);
    x.valueHeadDim = optionalSize(r, {"linear_value_head_dim"}, 128);
    x.convKernel = optionalSize(r, {"linear_conv_kernel_dim"}, 4);
    if (x.valueHeads % x.keyHeads != 0)
        r.fail("linear_num_value_heads", std::to_string(x.valueHeads) + " is not a multiple of linear_num_key_heads (" +
                                             std::to_string(x.keyHeads) + ")");
    const int64_t every = fullAttentionEvery(r, m);
    m.attentionEvery = every;
    m.attentionOffset = every > 0 ? every - 1 : 0;
}

/// The FFN of a Qwen3-Next or Qwen3.5-MoE layer: Qwen2MoeSparseMoeBlock's num_experts gated experts of
/// moe_intermediate_size (num_experts_per_tok a token, a router without bias), one shared expert of
/// shared_expert_intermediate_size and its sigmoid gate (hidden x 1). Qwen3-Next places them as Qwen2-MoE does
/// (decoder_sparse_step, mlp_only_layers; dense layers of intermediate_size); Qwen3.5-MoE has them in every layer.
void readQwenNextExperts(JsonReader &r, ModelShape &m, bool placed)
{
    m.ffn = optionalSize(r, {"moe_intermediate_size"}, 512);
    m.experts = optionalSize(r, {"num_experts"}, 512);
    m.activeExperts = optionalSize(r, {"num_experts_per_tok"}, 10);
    if (m.activeExperts > m.experts)
        r.fail("num_experts_per_tok",
               std::to_string(m.activeExperts) + " exceeds num_experts (" + std::to_string(m.experts) + ")");
    m.sharedFfn = optionalSize(r, {"shared_expert_intermediate_size"}, 512);
    m.sharedExpertGate = true;
    if (!placed)
        return;
    const int64_t step = r.integer("decoder_sparse_step", 1); // sparse when (i + 1) % step == 0
    if (step < 1 || step > std::min<int64_t>(m.layers, kMaxPatternPeriod))
        r.fail("decoder_sparse_step", "must be between 1 and the layers (at most " + std::to_string(kMaxPatternPeriod) +
                                          "), got " + std::to_string(step));
    m.moeEvery = step;
    m.moeOffset = step - 1;
    m.firstDenseLayers = denseLayerPrefix(r, "mlp_only_layers");
    if (m.moeEvery > 1 || m.firstDenseLayers > 0)
        m.denseFfn = requiredSize(r, {"intermediate_size"});
}

/// Qwen3NextForCausalLM (qwen3_next, Qwen3-Next-80B-A3B) and the language models of Qwen3.5 (qwen3_5_text:
/// Qwen3_5TextModel, dense; qwen3_5_moe_text: Qwen3_5MoeTextModel): three Gated DeltaNet layers to each gated
/// full-attention layer (Qwen3NextAttention: q_proj twice as wide for the output gate, per-head RMSNorms over q and k,
/// rotary positions on partial_rotary_factor of each head, no biases by default), two RMSNorms a layer, untied LM head
/// by default. The RMSNorms are zero-centred (1 + weight): the same weights. Qwen3.5 splits in_proj_qkvz and
/// in_proj_ba into four projections: the same weights.
void importQwenNext(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type)
{
    importRotaryDecoder(r, m);
    m.family = type == "qwen3_next" ? "qwen3_next" : "qwen3_5";
    m.kvHeads = optionalSize(r, {"num_key_value_heads"}, 2);
    checkKvHeads(r, m, "num_key_value_heads", "num_attention_heads");
    m.headDim = optionalSize(r, {"head_dim"}, 256);
    m.qkvBias = m.outBias = r.boolean("attention_bias", false);
    m.qkNorm = true;
    m.attentionOutputGate = r.boolean("attn_output_gate", true);
    m.rotaryFraction = rotaryFraction(r);
    m.maxPositions = r.integer("max_position_embeddings", 32768);
    readGatedDeltaNet(r, m);
    readStateFormat(r, m, log, "mamba_ssm_dtype"); // Qwen3.5: float32
    if (type == "qwen3_5_text")
        m.ffn = requiredSize(r, {"intermediate_size"});
    else
        readQwenNextExperts(r, m, type == "qwen3_next");
}

/// Qwen3_5ForConditionalGeneration / Qwen3_5MoeForConditionalGeneration (qwen3_5, qwen3_5_moe): the language model
/// (text_config) beside a vision tower (vision_config), which MemWall does not model; the checkpoint also holds
/// mtp_num_hidden_layers multi-token-prediction layers, which the *ForCausalLM model does not count. The language
/// model is imported alone, and its name says so.
void importQwen35(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type)
{
    JsonReader text = r.object("text_config");
    const std::string expected = type + "_text";
    const std::string textType = text.string("model_type", expected);
    if (textType != expected)
        text.fail("model_type", "expected \"" + expected + "\", got \"" + textType + "\"");
    importQwenNext(text, m, log, textType);
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", text.boolean("tie_word_embeddings", false));
    m.name += r.has("vision_config") ? " (language model; its vision tower is not modelled)" : " (language model)";
}

/// A state-spaces/mamba checkpoint's own config.json (mamba_ssm's MambaConfig, no model_type): d_model, n_layer,
/// vocab_size padded to pad_vocab_size_multiple, ssm_cfg (layer "Mamba2" or Mamba-1 by default, with mamba_ssm's
/// defaults), an optional gated MLP of d_intermediate, RMSNorm or LayerNorm, tied embeddings by default. Attention
/// layers (attn_layer_idx) are refused: their pattern is not the block model's.
void importMambaSsm(JsonReader &r, ModelShape &m)
{
    m.arch = Architecture::Decoder;
    m.hidden = requiredSize(r, {"d_model"});
    m.layers = requiredSize(r, {"n_layer"});
    const int64_t vocab = requiredSize(r, {"vocab_size"});
    const int64_t multiple = optionalSize(r, {"pad_vocab_size_multiple"}, 8);
    m.vocab = vocab + (multiple - vocab % multiple) % multiple;
    m.positions = PositionEncoding::None;
    m.norm = r.boolean("rms_norm", true) ? NormKind::RmsNorm : NormKind::LayerNorm;
    m.tiedEmbeddings = r.boolean("tie_embeddings", true);
    if (r.has("attn_layer_idx") && !r.array("attn_layer_idx").empty())
        r.fail("attn_layer_idx", "attention layers inside a mamba_ssm model are not supported");
    m.ffn = r.integer("d_intermediate", 0);
    if (m.ffn < 0 || m.ffn > kMaxShapeField)
        r.fail("d_intermediate",
               "must be between 0 and " + std::to_string(kMaxShapeField) + ", got " + std::to_string(m.ffn));
    m.gatedFfn = true; // mamba_ssm's GatedMLP: fc1 to 2 x d_intermediate (gate and value), SiLU, fc2
    m.activation = Activation::Silu;
    const json empty = json::object();
    JsonReader ssm = r.has("ssm_cfg") ? r.object("ssm_cfg") : JsonReader(empty, r.file(), "ssm_cfg");
    SsmShape &x = m.ssm;
    const std::string layer = ssm.string("layer", "Mamba1");
    if (layer != "Mamba1" && layer != "Mamba2")
        ssm.fail("layer", "must be Mamba1 or Mamba2, got \"" + layer + "\"");
    x.kind = layer == "Mamba2" ? SsmKind::Mamba2 : SsmKind::Mamba1;
    const bool two = x.kind == SsmKind::Mamba2;
    x.stateSize = optionalSize(ssm, {"d_state"}, two ? 128 : 16);
    x.convKernel = optionalSize(ssm, {"d_conv"}, 4);
    x.innerSize = ssmInnerSize(ssm, m.hidden);
    x.convBias = ssm.boolean("conv_bias", true);
    x.projBias = ssm.boolean("bias", false);
    if (two) {
        const int64_t headdim = optionalSize(ssm, {"headdim"}, 64);
        if (x.innerSize % headdim != 0)
            ssm.fail("headdim",
                     std::to_string(headdim) + " does not divide d_inner (" + std::to_string(x.innerSize) + ")");
        x.heads = x.innerSize / headdim;
        x.groups = optionalSize(ssm, {"ngroups"}, 1);
        x.chunkSize = optionalSize(ssm, {"chunk_size"}, 256);
        if (!ssm.boolean("rmsnorm", true))
            ssm.fail("rmsnorm", "Mamba-2 without its gated RMSNorm is not supported");
    } else {
        x.dtRank = dtRank(ssm, "dt_rank", m.hidden);
    }
    nameSsmHeads(m);
    m.family = two ? "mamba2" : "mamba";
}

/// GPT2LMHeadModel: learned positions, pre-norm LayerNorm, biases everywhere, 4x GELU FFN, tied LM head.
void importGpt2(JsonReader &r, ModelShape &m)
{
    m.hidden = requiredSize(r, {"n_embd", "hidden_size"});
    m.layers = requiredSize(r, {"n_layer", "num_hidden_layers"});
    m.heads = requiredSize(r, {"n_head", "num_attention_heads"});
    m.kvHeads = m.heads;
    m.headDim =
        headDim(r, m, presentKey(r, {"n_head", "num_attention_heads"}), presentKey(r, {"n_embd", "hidden_size"}), 0);
    m.ffn = optionalSize(r, {"n_inner"}, 4 * m.hidden); // null means 4 x n_embd
    m.vocab = requiredSize(r, {"vocab_size"});
    m.maxPositions = requiredSize(r, {"n_positions", "max_position_embeddings"});
    m.positions = PositionEncoding::Learned;
    m.activation = activation(r, {"activation_function"}, Activation::Gelu);
    m.norm = NormKind::LayerNorm;
    m.qkvBias = m.outBias = m.ffnBias = true;
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", true);
}

/// GPTJForCausalLM: rotary (rotary_dim of each head), parallel attention and FFN on one LayerNorm, bias-free
/// attention, FFN with biases, untied LM head. The LM head's bias (vocab_size values) cannot be expressed in a
/// ModelShape and is not counted (GPT-J-6B: 50,400 of 6,050,882,784).
void importGptj(JsonReader &r, ModelShape &m)
{
    m.hidden = requiredSize(r, {"n_embd", "hidden_size"});
    m.layers = requiredSize(r, {"n_layer", "num_hidden_layers"});
    m.heads = requiredSize(r, {"n_head", "num_attention_heads"});
    m.kvHeads = m.heads;
    m.headDim =
        headDim(r, m, presentKey(r, {"n_head", "num_attention_heads"}), presentKey(r, {"n_embd", "hidden_size"}), 0);
    m.ffn = optionalSize(r, {"n_inner"}, 4 * m.hidden);
    m.vocab = requiredSize(r, {"vocab_size"});
    m.maxPositions = optionalSize(r, {"n_positions", "max_position_embeddings"}, 2048);
    m.positions = PositionEncoding::Rotary;
    m.activation = activation(r, {"activation_function"}, Activation::Gelu);
    m.norm = NormKind::LayerNorm;
    m.ffnBias = true;
    m.parallelAttention = m.sharedLayerNorm = true;
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", false);
}

/// What BERT's and ViT's configs share: an encoder of multi-head attention, sized by the same keys.
void importEncoderSizes(JsonReader &r, ModelShape &m)
{
    m.arch = Architecture::Encoder;
    m.hidden = requiredSize(r, {"hidden_size"});
    m.layers = requiredSize(r, {"num_hidden_layers"});
    m.heads = requiredSize(r, {"num_attention_heads"});
    m.kvHeads = m.heads;
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", 0);
    m.ffn = requiredSize(r, {"intermediate_size"});
}

/// BertModel / RobertaModel (what `AutoModel` loads, the pooler included, no MLM head): post-norm encoder,
/// learned absolute positions, token-type embeddings, LayerNorm after the embeddings, biases everywhere.
/// RoBERTa's max_position_embeddings already includes its padding offset (514 = 512 + 2).
void importBert(JsonReader &r, ModelShape &m)
{
    importEncoderSizes(r, m);
    m.vocab = requiredSize(r, {"vocab_size"});
    m.maxPositions = requiredSize(r, {"max_position_embeddings"});
    m.positions = PositionEncoding::Learned;
    const std::string pet = r.string("position_embedding_type", "absolute");
    if (pet != "absolute")
        r.fail("position_embedding_type", "unsupported '" + pet + "' (only absolute is modelled)");
    m.tokenTypes = r.integer("type_vocab_size", 2);
    if (m.tokenTypes < 0)
        r.fail("type_vocab_size", "must not be negative, got " + std::to_string(m.tokenTypes));
    m.activation = activation(r, {"hidden_act"}, Activation::Gelu);
    m.norm = NormKind::LayerNorm;
    m.embeddingNorm = true;
    m.qkvBias = m.outBias = m.ffnBias = true;
    m.pooler = true;
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", true); // the MLM head's decoder, not counted for encoders
}

/// ViTModel (model_type vit; what `AutoModel` loads, the pooler included): a pre-norm encoder over image patches.
/// The image_size x image_size image is cut into (image_size / patch_size)^2 patches; a Conv2d whose kernel and
/// stride are patch_size projects each patch's num_channels x patch_size^2 values to hidden_size (with a bias), a
/// learned class token leads them, and each of the patches + 1 positions has a learned embedding. Each layer: a
/// LayerNorm, attention (q/k/v biases by qkv_bias, the output's always), a LayerNorm, a plain FFN with biases. A
/// LayerNorm after the last layer (pre-norm), and the pooler (hidden_size x hidden_size with a bias, then tanh) on the
/// class token. The other ViT classes named in architectures add parts the block model lacks and are refused, as is a
/// pooler of another width (pooler_output_size). Not read: encoder_stride (ViTForMaskedImageModeling's decoder),
/// pooler_act (no weights; a pooler's FLOPs are its matmul's, as BERT's are), layer_norm_eps and the dropouts.
void importVit(JsonReader &r, ModelShape &m)
{
    if (r.has("architectures"))
        for (const json &a : r.array("architectures")) {
            if (!a.is_string())
                r.fail("architectures", "expected class names, got " + brief(a));
            const std::string cls = a.get<std::string>();
            if (cls == "ViTForImageClassification")
                r.fail("architectures", "ViTForImageClassification's classifier (hidden_size x num_labels, on a "
                                        "ViTModel without its pooler) is not modelled; only ViTModel is");
            if (cls == "ViTForMaskedImageModeling")
                r.fail("architectures", "ViTForMaskedImageModeling's decoder (a convolution to encoder_stride^2 x "
                                        "num_channels values per patch) is not modelled; only ViTModel is");
            if (cls != "ViTModel")
                r.fail("architectures", "'" + cls + "' is not modelled; only ViTModel is");
        }
    importEncoderSizes(r, m);
    m.activation = activation(r, {"hidden_act"}, Activation::Gelu);
    const int64_t image = requiredSize(r, {"image_size"});
    const int64_t patch = requiredSize(r, {"patch_size"});
    const int64_t channels = requiredSize(r, {"num_channels"});
    if (image % patch != 0)
        r.fail("patch_size", std::to_string(patch) + " does not divide image_size (" + std::to_string(image) +
                                 "): the patches must tile the image");
    const int64_t side = image / patch;
    if (side > (kMaxShapeField - 1) / side) // the positions (patches + 1) stay a size
        r.fail("image_size", "implausibly many patches of " + std::to_string(patch) + ", got " + std::to_string(image));
    if (patch > kMaxShapeField / patch || channels > kMaxShapeField / (patch * patch))
        r.fail("patch_size",
               "implausibly large with num_channels " + std::to_string(channels) + ", got " + std::to_string(patch));
    m.patchInputs = channels * patch * patch;
    m.vocab = 0;
    m.maxPositions = side * side + 1; // the patches and the class token
    m.positions = PositionEncoding::Learned;
    m.norm = NormKind::LayerNorm;
    m.qkvBias = r.boolean("qkv_bias", true);
    m.outBias = m.ffnBias = true;
    m.finalNorm = true;
    m.pooler = true;
    if (const int64_t pooled = optionalSize(r, {"pooler_output_size"}, m.hidden); pooled != m.hidden)
        r.fail("pooler_output_size", std::to_string(pooled) + " differs from hidden_size (" + std::to_string(m.hidden) +
                                         "): only a pooler of hidden_size x hidden_size is modelled");
}

/// OPTForCausalLM: learned positions with 2 extra rows (OPTLearnedPositionalEmbedding's offset), pre-norm
/// LayerNorm, biases everywhere (enable_bias), ReLU FFN of width ffn_dim, tied LM head.
void importOpt(JsonReader &r, ModelShape &m)
{
    m.hidden = requiredSize(r, {"hidden_size"});
    m.layers = requiredSize(r, {"num_hidden_layers"});
    m.heads = requiredSize(r, {"num_attention_heads"});
    m.kvHeads = m.heads;
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", 0);
    m.ffn = requiredSize(r, {"ffn_dim"});
    m.vocab = requiredSize(r, {"vocab_size"});
    m.maxPositions = optionalSize(r, {"max_position_embeddings"}, 2048);
    m.positions = PositionEncoding::Learned;
    m.positionOffset = 2;
    const int64_t proj = optionalSize(r, {"word_embed_proj_dim"}, m.hidden);
    if (proj != m.hidden)
        r.fail("word_embed_proj_dim", std::to_string(proj) + " differs from hidden_size (" + std::to_string(m.hidden) +
                                          "): OPT's project_in/project_out layers are not modelled");
    m.activation = activation(r, {"activation_function"}, Activation::Relu);
    m.norm = NormKind::LayerNorm;
    m.qkvBias = m.outBias = m.ffnBias = r.boolean("enable_bias", true);
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", true);
}

/// FalconForCausalLM, including the first releases' configs (model_type "RefinedWebModel" = Falcon-7B layout,
/// "RefinedWeb" = Falcon-40B layout with new_decoder_architecture, keys n_layer/n_head/n_head_kv):
/// - new_decoder_architecture: grouped KV heads (num_kv_heads), attention and FFN in parallel, two LayerNorms per
///   layer (num_ln_in_parallel_attn, default 2);
/// - otherwise multi_query means one KV head, parallel_attn means attention and FFN read one shared LayerNorm.
/// Rotary positions unless alibi; biases everywhere iff bias; FFN width ffn_hidden_size (4 x hidden); GELU; tied.
void importFalcon(JsonReader &r, ModelShape &m, const std::string &type)
{
    m.hidden = requiredSize(r, {"hidden_size"});
    m.layers = requiredSize(r, {"num_hidden_layers", "n_layer"});
    m.heads = requiredSize(r, {"num_attention_heads", "n_head"});
    const std::string_view headsKey = presentKey(r, {"num_attention_heads", "n_head"});
    m.headDim = headDim(r, m, headsKey, "hidden_size", 0);
    const bool newArch = r.boolean("new_decoder_architecture", type == "RefinedWeb");
    const bool multiQuery = r.boolean("multi_query", true);
    const bool parallel = r.boolean("parallel_attn", true);
    std::string_view kvKey = presentKey(r, {"num_kv_heads", "n_head_kv"});
    if (newArch) {
        m.kvHeads = optionalSize(r, {"num_kv_heads", "n_head_kv"}, m.heads);
        if (kvKey.empty())
            kvKey = "num_kv_heads";
    } else {
        m.kvHeads = multiQuery ? 1 : m.heads;
        kvKey = "multi_query";
    }
    checkKvHeads(r, m, kvKey, headsKey);
    m.ffn = optionalSize(r, {"ffn_hidden_size"}, 4 * m.hidden);
    m.vocab = requiredSize(r, {"vocab_size"});
    m.maxPositions = optionalSize(r, {"max_position_embeddings"}, 2048);
    m.positions = r.boolean("alibi", false) ? PositionEncoding::Alibi : PositionEncoding::Rotary;
    m.activation = activation(r, {"activation"}, Activation::Gelu);
    m.norm = NormKind::LayerNorm;
    m.qkvBias = m.outBias = m.ffnBias = r.boolean("bias", false);
    if (newArch) {
        const int64_t lns = optionalSize(r, {"num_ln_in_parallel_attn"}, 2);
        if (lns != 1 && lns != 2)
            r.fail("num_ln_in_parallel_attn", "must be 1 or 2, got " + std::to_string(lns));
        m.parallelAttention = true;
        m.sharedLayerNorm = lns == 1;
    } else {
        m.parallelAttention = parallel;
        m.sharedLayerNorm = parallel;
    }
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", true);
}

/// GPTNeoXForCausalLM: rotary on rotary_pct of each head (still rotary: no position parameters), two LayerNorms per
/// layer (use_parallel_residual only changes how they are wired), biases everywhere, untied embed_out.
void importGptNeox(JsonReader &r, ModelShape &m)
{
    m.hidden = requiredSize(r, {"hidden_size"});
    m.layers = requiredSize(r, {"num_hidden_layers"});
    m.heads = requiredSize(r, {"num_attention_heads"});
    m.kvHeads = m.heads;
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", 0);
    m.ffn = requiredSize(r, {"intermediate_size"});
    m.vocab = requiredSize(r, {"vocab_size"});
    m.maxPositions = optionalSize(r, {"max_position_embeddings"}, 2048);
    m.positions = PositionEncoding::Rotary;
    m.activation = activation(r, {"hidden_act"}, Activation::Gelu);
    m.norm = NormKind::LayerNorm;
    m.qkvBias = m.outBias = r.boolean("attention_bias", true);
    m.ffnBias = true;
    m.parallelAttention = r.boolean("use_parallel_residual", true);
    m.sharedLayerNorm = false;
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", false);
}

/// DeepSeek-V3 and Kimi K2: importDeepseek() and the multi-token-prediction modules (num_nextn_predict_layers), whose
/// checkpoint also stores a copy of the embedding and of the LM head in each (DeepSeek-V3 README_WEIGHTS.md:
/// model.layers.61.embed_tokens and shared_head.head).
void importDeepseekV3(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type)
{
    importDeepseek(r, m, type);
    m.mtpLayers = mtpModules(r, log, "num_nextn_predict_layers");
    m.mtpStoresCopies = m.mtpLayers > 0;
}

/// KimiK25ForConditionalGeneration (Kimi K2.5): the language model is its text_config, a Kimi K2 (DeepSeek-V3 layout)
/// with its own quantization_config, and the MoonViT vision tower with its projector is its vision_config
/// (readMoonViT() in hfkimi.cpp). A file without vision_config is the language model alone, and its name says so.
void importKimiK25(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    JsonReader text = r.object("text_config");
    const std::string type = text.string("model_type", "kimi_k2");
    if (type != "kimi_k2" && type != "deepseek_v3")
        text.fail("model_type", "expected kimi_k2 or deepseek_v3 for Kimi K2.5's language model, got '" + type + "'");
    importDeepseekV3(text, m, log, type);
    m.family = "kimi_k2";
    readQuantization(text, m, log);
    if (r.has("vision_config"))
        readMoonViT(r, m, log);
    else
        m.name += " (language model)";
}

/// Nemotron-H and Nemotron-3: importNemotronH() and the state format Nemotron-3 declares (mamba_ssm_cache_dtype).
void importNemotronHRow(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    importNemotronH(r, m);
    readStateFormat(r, m, log, "mamba_ssm_cache_dtype");
}

/// The readers with the shared signature (FamilyReader), from those that need neither the log nor the type.
template <void (*F)(JsonReader &, ModelShape &)>
void plain(JsonReader &r, ModelShape &m, ImportLog &, const std::string &)
{
    F(r, m);
}
template <void (*F)(JsonReader &, ModelShape &, const std::string &)>
void typed(JsonReader &r, ModelShape &m, ImportLog &, const std::string &type)
{
    F(r, m, type);
}

// Step-3 (stepfun-ai/step3; vLLM's step3_text.py, Step3TextAttention).
constexpr std::string_view kStep3Missing =
    "Step-3's multi-matrix factorization attention (queries through one shared low-rank projection of share_q_dim "
    "and its norm, then wq to the heads, over a single KV head) is not modelled, nor its vision tower";

/// One model_type: its reader, or (read nullptr) the part MemWall does not model, which the refusal names.
struct FamilyRow
{
    std::string_view type;
    FamilyReader read = nullptr;
    std::string_view missing = {};
};

/// Every model_type MemWall knows, read or refused: a new family is one row here (and its reader).
constexpr std::array kFamilies{
    FamilyRow{"llama", typed<importLlamaLike>},
    FamilyRow{"mistral", typed<importLlamaLike>},
    FamilyRow{"mixtral", typed<importLlamaLike>},
    FamilyRow{"qwen2", typed<importLlamaLike>},
    FamilyRow{"qwen2_moe", typed<importLlamaLike>},
    FamilyRow{"qwen3", typed<importLlamaLike>},
    FamilyRow{"qwen3_moe", typed<importLlamaLike>},
    FamilyRow{"gemma", typed<importLlamaLike>},
    FamilyRow{"gemma2", typed<importLlamaLike>},
    FamilyRow{"gemma3_text", importGemma3Text},
    FamilyRow{"phi3", typed<importLlamaLike>},
    FamilyRow{"phimoe", typed<importLlamaLike>},
    FamilyRow{"olmo2", typed<importLlamaLike>},
    FamilyRow{"gpt2", plain<importGpt2>},
    FamilyRow{"gptj", plain<importGptj>},
    FamilyRow{"bert", plain<importBert>},
    FamilyRow{"roberta", plain<importBert>},
    FamilyRow{"vit", plain<importVit>},
    FamilyRow{"opt", plain<importOpt>},
    FamilyRow{"falcon", typed<importFalcon>},
    FamilyRow{"RefinedWeb", typed<importFalcon>},
    FamilyRow{"RefinedWebModel", typed<importFalcon>},
    FamilyRow{"gpt_neox", plain<importGptNeox>},
    FamilyRow{"deepseek_v2", typed<importDeepseek>},
    FamilyRow{"deepseek_v3", importDeepseekV3},
    FamilyRow{"kimi_k2", importDeepseekV3},
    FamilyRow{"gpt_oss", plain<importGptOss>},
    FamilyRow{"mamba", typed<importMamba>},
    FamilyRow{"mamba2", typed<importMamba>},
    FamilyRow{"mamba_ssm", plain<importMambaSsm>}, // a state-spaces/mamba config: no model_type (see importHfConfig)
    FamilyRow{"cohere", plain<importCohere>},
    FamilyRow{"jamba", plain<importJamba>},
    FamilyRow{"nemotron_h", importNemotronHRow},
    FamilyRow{"llama4", importLlama4},
    FamilyRow{"llama4_text", plain<importLlama4Text>},
    FamilyRow{"minimax_m2", importMinimaxM2},
    FamilyRow{"mimo", importMimo},
    FamilyRow{"glm4_moe", importGlm4Moe},
    FamilyRow{"cohere2", importCohere2},
    FamilyRow{"kimi_k25", importKimiK25},
    FamilyRow{"gemma3", importGemma3},
    FamilyRow{"qwen3_vl", importQwen3Vl},
    FamilyRow{"qwen3_vl_moe", importQwen3Vl},
    FamilyRow{"qwen3_omni_moe", nullptr,
              "the audio encoder and the speech talker are not modelled (a qwen3_vl config's vision tower is)"},
    FamilyRow{"qwen3_next", importQwenNext},
    FamilyRow{"qwen3_5_text", importQwenNext},
    FamilyRow{"qwen3_5_moe_text", importQwenNext},
    FamilyRow{"qwen3_5", importQwen35},
    FamilyRow{"qwen3_5_moe", importQwen35},
    FamilyRow{"kimi_linear", importKimiLinear},
    FamilyRow{"deepseek_v32", importSparseMla},
    FamilyRow{"glm_moe_dsa", importSparseMla},
    FamilyRow{"gemma3n", importGemma3n},
    FamilyRow{"gemma3n_text", importGemma3nText},
    FamilyRow{"gemma4", importGemma4},
    FamilyRow{"gemma4_text", importGemma4Text},
    FamilyRow{"deci", importDeci},
    FamilyRow{"nemotron-nas", importDeci},
    FamilyRow{"step3p5", importStep35},
    FamilyRow{"step3p7", importStep37},
    FamilyRow{"step3_text", nullptr, kStep3Missing},
    FamilyRow{"step3_vl", nullptr, kStep3Missing},
};

const FamilyRow *findFamily(std::string_view type)
{
    for (const FamilyRow &row : kFamilies)
        if (row.type == type)
            return &row;
    return nullptr;
}

std::string supportedList()
{
    std::string s;
    for (const FamilyRow &row : kFamilies)
        if (row.read && row.type != "mamba_ssm")
            s += (s.empty() ? "" : ", ") + std::string(row.type);
    return s;
}

/// The model_type of `r`: a state-spaces/mamba checkpoint's config names none; its ssm_cfg or d_model and n_layer say
/// what it is ("mamba_ssm").
std::string modelType(JsonReader &r)
{
    if (!r.has("model_type") && (r.has("ssm_cfg") || (r.has("d_model") && r.has("n_layer"))))
        return "mamba_ssm";
    return r.string("model_type");
}

} // namespace hf

HfImport importHfConfigReport(const json &config, const std::string &file)
{
    using namespace hf;
    JsonReader r(config, file);
    const std::string type = modelType(r);
    const FamilyRow *row = findFamily(type);
    if (!row)
        r.fail("model_type",
               "unsupported '" + type + "': no reader for this model_type (supported: " + supportedList() + ")");
    if (!row->read)
        r.fail("model_type", "'" + type + "': " + std::string(row->missing));

    HfImport out;
    ModelShape &m = out.shape;
    const std::string name = readableName(r, file);
    m.name = name;
    m.id = slugify(name);
    if (m.id.empty())
        m.id = "model";
    m.family = (type == "RefinedWeb" || type == "RefinedWebModel") ? std::string("falcon") : type;
    ImportLog log;
    row->read(r, m, log, type);
    readQuantization(r, m, log);

    if (m.maxPositions < 0)
        r.fail("max_position_embeddings", "must not be negative, got " + std::to_string(m.maxPositions));
    if (auto e = validate(m); !e.empty())
        throw InputError::rule(file, e.fields, e.message);
    out.report = std::move(log.lines);
    return out;
}

ModelShape importHfConfig(const json &config, const std::string &file)
{
    return importHfConfigReport(config, file).shape;
}

HfImport importHfConfigFileReport(const std::string &path)
{
    return importHfConfigReport(readJsonFile(path, /*pythonFloats=*/true), path);
}

ModelShape importHfConfigFile(const std::string &path) { return importHfConfigFileReport(path).shape; }

} // namespace memwall::core
