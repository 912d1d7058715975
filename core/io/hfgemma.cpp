// Gemma 4 (model_type gemma4_text, and the text_config of a gemma4 file), read into the block model: global layers
// with their own head size and KV heads, keys that are values, and the MoE block beside the dense MLP (issue #38).
#include "core/io/hfimport.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace memwall::core::hf {

namespace {

// The configuration classes whose defaults fill what a file leaves out (transformers' models/gemma4 and gemma3n).
constexpr std::string_view kGemma4Config = "Gemma4TextConfig", kGemma3nConfig = "Gemma3nTextConfig";

/// Gemma 4's full-attention layers and the sliding ones: layer_types, or (absent) Gemma4TextConfig's default, a
/// global layer every sixth; the global layers' own head size and KV heads, and keys that are values.
void readGemma4Attention(JsonReader &r, ModelShape &m, ImportLog &log)
{
    m.slidingWindow = slidingWindow(r, "sliding_window", 512);
    if (m.slidingWindow == 0)
        r.fail("sliding_window", "Gemma 4's sliding layers need a window, got null");
    if (r.has("layer_types")) {
        m.globalEvery = globalEveryFromLayerTypes(r, m);
    } else {
        // Gemma4TextConfig: every sixth layer full, and the last layer forced full (only the same pattern when the
        // layers are a multiple of six).
        if (m.layers % 6 != 0)
            r.fail("num_hidden_layers", std::to_string(m.layers) +
                                            " layers without layer_types: the default pattern (a full layer every "
                                            "sixth, and the last) is not periodic; give layer_types");
        m.globalEvery = 6;
        log.note("layer_types: left out; Gemma4TextConfig's default, a full-attention layer every sixth");
    }
    if (m.globalEvery == 0 || m.layers % m.globalEvery != 0)
        r.fail("layer_types", "Gemma 4's last layer attends to the whole context (transformers forces it), so the "
                              "full-attention layers must be every n-th with n dividing the layers");
    // Gemma4TextAttention: a full layer's heads are global_head_dim wide (when set, else head_dim); with
    // attention_k_eq_v it has num_global_key_value_heads KV heads (when set) and no v_proj: the value is k_proj's
    // output (v_norm'd, not rotated), and both are cached.
    m.global.headDim = defaultedSize(r, log, "global_head_dim", 512, kGemma4Config);
    m.global.keyIsValue = r.boolean("attention_k_eq_v", false);
    if (m.global.keyIsValue && r.has("num_global_key_value_heads")) {
        m.global.kvHeads = sizeField(r, "num_global_key_value_heads");
        if (m.heads % m.global.kvHeads != 0)
            r.fail("num_global_key_value_heads", std::to_string(m.global.kvHeads) +
                                                     " does not divide num_attention_heads (" +
                                                     std::to_string(m.heads) + ")");
    } else {
        r.integer("num_global_key_value_heads", 0); // read: without attention_k_eq_v transformers ignores it
    }
    if (m.global.headDim == m.headDim)
        m.global.headDim = 0; // the same as the sliding layers'
}

/// Gemma 4's FFN: the dense MLP (intermediate_size), and with enable_moe_block the routed experts beside it.
void readGemma4Ffn(JsonReader &r, ModelShape &m, ImportLog &log)
{
    const int64_t dense = requiredSize(r, {"intermediate_size"});
    if (!r.boolean("enable_moe_block", false)) {
        m.ffn = dense;
        for (auto key : {"num_experts", "top_k_experts", "moe_intermediate_size", "expert_intermediate_size"})
            if (r.has(key)) // read, so that a file with them set but the block off says so
                log.note(std::string(key) + ": ignored, enable_moe_block is false");
        return;
    }
    m.ffn = requiredSize(r, {"moe_intermediate_size"});
    m.experts = requiredSize(r, {"num_experts"});
    m.activeExperts = requiredSize(r, {"top_k_experts"});
    if (m.activeExperts > m.experts)
        r.fail("top_k_experts",
               std::to_string(m.activeExperts) + " exceeds num_experts (" + std::to_string(m.experts) + ")");
    m.denseFfn = dense;
    m.moeBesideDense = true;
}

/// Gemma 4 E2B/E4B: the last num_kv_shared_layers layers reuse the cache of the last earlier layer of their kind
/// (Gemma4TextAttention's is_kv_shared_layer), their MLP twice as wide with use_double_wide_mlp (Gemma4TextMLP), and
/// per-layer embeddings (hidden_size_per_layer_input, Gemma4TextModel's embed_tokens_per_layer). Gemma4TextConfig's
/// defaults: hidden_size_per_layer_input 256, vocab_size_per_layer_input 262144, num_kv_shared_layers 0.
void readGemma4SharingAndPerLayer(JsonReader &r, ModelShape &m, ImportLog &log)
{
    m.kvSharedLayers = r.integer("num_kv_shared_layers", 0);
    if (m.kvSharedLayers < 0 || m.kvSharedLayers >= m.layers)
        r.fail("num_kv_shared_layers", std::to_string(m.kvSharedLayers) + " must be at least 0 and fewer than the " +
                                           std::to_string(m.layers) + " layers");
    if (m.kvSharedLayers > 0) {
        // Each shared layer reads the last non-shared layer of its own kind: both kinds must come before them.
        const int64_t own = m.layers - m.kvSharedLayers;
        if (own < m.globalEvery)
            r.fail("num_kv_shared_layers", std::to_string(m.kvSharedLayers) +
                                               ": the layers before the shared ones hold no full-attention layer "
                                               "for the shared full-attention layers to read");
    }
    m.doubleWideSharedFfn = r.boolean("use_double_wide_mlp", false) && m.kvSharedLayers > 0;
    if (m.doubleWideSharedFfn && m.isMoe())
        r.fail("use_double_wide_mlp", "true with enable_moe_block: a double-wide MLP beside experts is not modelled");
    if (!r.has("hidden_size_per_layer_input"))
        log.note("hidden_size_per_layer_input: left out; Gemma4TextConfig's default 256");
    m.perLayerInput = r.integer("hidden_size_per_layer_input", 256);
    if (m.perLayerInput < 0)
        r.fail("hidden_size_per_layer_input", std::to_string(m.perLayerInput) + " must be 0 (none) or positive");
    if (m.perLayerInput > 0)
        m.perLayerVocab = defaultedSize(r, log, "vocab_size_per_layer_input", 262144, kGemma4Config);
    else
        r.integer("vocab_size_per_layer_input", 0); // read: without per-layer inputs there is no table
}

/// Gemma 3n's MLP width: intermediate_size, one for all layers or (MatFormer) one a layer; a list of differing
/// widths (a Mix-and-Match slice) is refused. Gemma3nTextConfig's default 16384.
int64_t gemma3nFfn(JsonReader &r, const ModelShape &m, ImportLog &log)
{
    if (!r.has("intermediate_size") || !r.raw("intermediate_size").is_array())
        return defaultedSize(r, log, "intermediate_size", 16384, kGemma3nConfig);
    const nlohmann::json &list = r.array("intermediate_size");
    if (static_cast<int64_t>(list.size()) != m.layers)
        r.fail("intermediate_size", "lists " + std::to_string(list.size()) + " widths for " + std::to_string(m.layers) +
                                        " layers (Gemma3nTextConfig wants one a layer)");
    int64_t width = 0;
    for (const nlohmann::json &v : list) {
        if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > kMaxShapeField)
            r.fail("intermediate_size", "holds " + v.dump() + ", not a positive whole width");
        if (width != 0 && v.get<int64_t>() != width)
            r.fail("intermediate_size", "per-layer MLP widths that differ (" + std::to_string(width) + " and " +
                                            v.dump() + ": a MatFormer slice) are not modelled");
        width = v.get<int64_t>();
    }
    log.note("intermediate_size: " + std::to_string(width) + " in each of the " + std::to_string(m.layers) + " layers");
    return width;
}

/// Gemma 3n's activation sparsity: activation_sparsity_pattern, a fraction a layer, or (absent or null)
/// Gemma3nTextConfig's default, 0.95 in the first 10 layers when there are more than 10. The sparse layers must be
/// the first ones (the published files' shape); any other placement is refused.
int64_t gemma3nSparseLayers(JsonReader &r, const ModelShape &m, ImportLog &log)
{
    if (!r.has("activation_sparsity_pattern")) {
        const int64_t n = m.layers > 10 ? 10 : 0;
        log.note("activation_sparsity_pattern: left out; Gemma3nTextConfig's default, 0.95 in the first " +
                 std::to_string(n) + " layers");
        return n;
    }
    const nlohmann::json &list = r.array("activation_sparsity_pattern");
    if (static_cast<int64_t>(list.size()) != m.layers)
        r.fail("activation_sparsity_pattern",
               "lists " + std::to_string(list.size()) + " fractions for " + std::to_string(m.layers) + " layers");
    int64_t sparse = 0;
    bool dense = false;
    for (const nlohmann::json &v : list) {
        if (!v.is_number() || !(v.get<double>() >= 0) || !(v.get<double>() < 1))
            r.fail("activation_sparsity_pattern", "holds " + v.dump() + ", not a fraction from 0 up to below 1");
        if (v.get<double>() > 0 && dense)
            r.fail("activation_sparsity_pattern", "a sparse layer after a dense one: only the first layers' top-k "
                                                  "is modelled");
        dense = dense || v.get<double>() == 0;
        sparse += v.get<double>() > 0 ? 1 : 0;
    }
    return sparse;
}

/// Gemma 3n's attention layers: layer_types or (absent) Gemma3nTextConfig's default, a full-attention layer every
/// fifth ((i + 1) % 5 == 0, whatever the number of layers); KV sharing in the last num_kv_shared_layers (default 15),
/// whose layers keep their unused k_proj, v_proj and k_norm (Gemma3nTextAttention builds them in every layer).
void readGemma3nAttention(JsonReader &r, ModelShape &m, ImportLog &log)
{
    m.slidingWindow = slidingWindow(r, "sliding_window", 512);
    if (m.slidingWindow == 0)
        r.fail("sliding_window", "Gemma 3n's sliding layers need a window, got null");
    if (r.has("layer_types")) {
        m.globalEvery = globalEveryFromLayerTypes(r, m);
    } else {
        m.globalEvery = 5;
        log.note("layer_types: left out; Gemma3nTextConfig's default, a full-attention layer every fifth");
    }
    m.kvSharedLayers = r.has("num_kv_shared_layers")
                           ? r.integer("num_kv_shared_layers")
                           : defaultedSize(r, log, "num_kv_shared_layers", 15, kGemma3nConfig);
    if (m.kvSharedLayers < 0 || m.kvSharedLayers >= m.layers)
        r.fail("num_kv_shared_layers", std::to_string(m.kvSharedLayers) + " must be at least 0 and fewer than the " +
                                           std::to_string(m.layers) + " layers");
    if (m.kvSharedLayers > 0 && m.globalEvery > 0 && m.layers - m.kvSharedLayers < m.globalEvery)
        r.fail("num_kv_shared_layers", std::to_string(m.kvSharedLayers) +
                                           ": the layers before the shared ones hold no full-attention layer for the "
                                           "shared full-attention layers to read");
    m.sharedKvKeepsWeights = m.kvSharedLayers > 0;
}

/// Gemma 3n's own parts: per-layer embeddings (as Gemma 4 E2B's), AltUp, LAuReL and the sparse gates.
void readGemma3nParts(JsonReader &r, ModelShape &m, ImportLog &log)
{
    m.perLayerInput = r.has("hidden_size_per_layer_input")
                          ? r.integer("hidden_size_per_layer_input")
                          : defaultedSize(r, log, "hidden_size_per_layer_input", 256, kGemma3nConfig);
    if (m.perLayerInput < 0 || m.perLayerInput > kMaxShapeField)
        r.fail("hidden_size_per_layer_input", std::to_string(m.perLayerInput) + " must be 0 (none) or positive");
    m.perLayerVocab = m.perLayerInput > 0 ? defaultedSize(r, log, "vocab_size_per_layer_input", 262144, kGemma3nConfig)
                                          : r.integer("vocab_size_per_layer_input", 0);
    m.altupInputs = r.has("altup_num_inputs") ? r.integer("altup_num_inputs")
                                              : defaultedSize(r, log, "altup_num_inputs", 4, kGemma3nConfig);
    if (m.altupInputs < 1 || m.altupInputs > 64)
        r.fail("altup_num_inputs", std::to_string(m.altupInputs) + " must be from 1 to 64");
    const int64_t active = r.integer("altup_active_idx", 0);
    if (active < 0 || active >= m.altupInputs)
        r.fail("altup_active_idx", std::to_string(active) + " must name one of the " + std::to_string(m.altupInputs) +
                                       " streams (0 to " + std::to_string(m.altupInputs - 1) + ")");
    m.altupCorrectScale = r.boolean("altup_correct_scale", true);
    if (r.has("altup_coef_clip"))
        r.number("altup_coef_clip"); // a clamp of the coefficient weights (in training), no FLOPs counted
    m.laurelRank =
        r.has("laurel_rank") ? r.integer("laurel_rank") : defaultedSize(r, log, "laurel_rank", 64, kGemma3nConfig);
    if (m.laurelRank < 1 || m.laurelRank > kMaxShapeField)
        r.fail("laurel_rank", std::to_string(m.laurelRank) + " must be positive (Gemma3nTextLaurelBlock has one)");
    m.sparseFfnLayers = gemma3nSparseLayers(r, m, log);
    log.note("AltUp (" + std::to_string(m.altupInputs) + " streams), LAuReL (rank " + std::to_string(m.laurelRank) +
             ") and the statistical top-k of the first " + std::to_string(m.sparseFfnLayers) +
             " layers' MLP gates counted; the top-k leaves the MLP's matmuls dense (as transformers computes them), "
             "and the coefficients' clamp (altup_coef_clip, in training) and per-token scalars are not counted");
}

/// A Gemma text config's defaults where Gemma3nTextConfig's and Gemma4TextConfig's differ.
struct GemmaDefaults
{
    std::string_view configClass;
    int64_t kvHeads, maxPositions;
    double finalSoftcap;
};

/// What Gemma 3n's and Gemma 4's text models share (transformers' Gemma3nTextConfig and Gemma4TextConfig): the sizes
/// (KV heads and head size defaulted, noted in the report), a GeGLU MLP, rotary positions, RMSNorms before and after
/// attention and the MLP, per-head q and k norms and a weightless v_norm, tied embeddings unless the file unties
/// them, and the final logit soft-cap.
void readGemmaDecoder(JsonReader &r, ModelShape &m, ImportLog &log, const GemmaDefaults &d)
{
    m.arch = Architecture::Decoder;
    m.hidden = requiredSize(r, {"hidden_size"});
    m.layers = requiredSize(r, {"num_hidden_layers"});
    m.heads = requiredSize(r, {"num_attention_heads"});
    m.kvHeads = defaultedSize(r, log, "num_key_value_heads", d.kvHeads, d.configClass);
    checkKvHeads(r, m, "num_key_value_heads", "num_attention_heads");
    m.headDim = defaultedSize(r, log, "head_dim", 256, d.configClass);
    m.vocab = requiredSize(r, {"vocab_size"});
    m.maxPositions = r.integer("max_position_embeddings", d.maxPositions);
    m.gatedFfn = true;
    m.activation = activation(r, {"hidden_activation"}, Activation::Gelu);
    m.positions = PositionEncoding::Rotary;
    m.norm = NormKind::RmsNorm;
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", true);
    m.qkvBias = m.outBias = r.boolean("attention_bias", false);
    m.postNorms = true;
    m.qkNorm = true;
    m.valueNorm = true;
    m.finalSoftcap = softcap(r, "final_logit_softcapping", d.finalSoftcap);
}

} // namespace

/// Gemma3nForCausalLM's text model (model_type gemma3n_text; transformers' models/gemma3n/configuration_gemma3n.py
/// and modeling_gemma3n.py, Gemma3nTextConfig, Gemma3nTextModel, Gemma3nTextDecoderLayer, Gemma3nTextAttention,
/// Gemma3nTextAltUp, Gemma3nTextLaurelBlock, Gemma3nTextMLP). A Gemma 3 layer (RMSNorms before and after attention
/// and the MLP, per-head q and k RMSNorms, a weightless v_norm, a GeGLU MLP, tied embeddings, a final logit
/// soft-cap) with Gemma 4 E2B's per-layer embeddings and KV sharing (readGemma3nAttention()), and AltUp, LAuReL and
/// the first layers' statistical top-k on the MLP gate (readGemma3nParts()). Keys a file leaves out take
/// Gemma3nTextConfig's defaults, each noted in the report.
void importGemma3nText(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    // The other keys MemWall reads whose Gemma3nTextConfig defaults fill a file that leaves them out.
    for (auto [key, fallback] : {std::pair{"max_position_embeddings", "32768"},
                                 {"sliding_window", "512"},
                                 {"hidden_activation", "gelu_pytorch_tanh"},
                                 {"tie_word_embeddings", "true"},
                                 {"attention_bias", "false"},
                                 {"altup_active_idx", "0"},
                                 {"altup_correct_scale", "true"}})
        if (!r.has(key))
            log.note(std::string(key) + ": left out; Gemma3nTextConfig's default " + fallback);
    if (!r.has("final_logit_softcapping"))
        log.note("final_logit_softcapping: left out; Gemma3nTextConfig's default 30");
    readGemmaDecoder(r, m, log, {kGemma3nConfig, 2, 32768, 30.0});
    m.ffn = gemma3nFfn(r, m, log);
    readGemma3nAttention(r, m, log);
    readGemma3nParts(r, m, log);
}

namespace {
/// What a Gemma wrapper's refusals and its text_config check name.
struct GemmaWrapper
{
    std::string_view family, vision, audio, textType;
};

/// A Gemma wrapper (gemma3n, gemma4): its language model is its text_config, of model_type `w.textType`, read by
/// `importText`; a file with a vision or audio tower is refused, naming it, rather than counted without it.
void importGemmaWrapper(JsonReader &r, ModelShape &m, ImportLog &log, const GemmaWrapper &w,
                        void (*importText)(JsonReader &, ModelShape &, ImportLog &, const std::string &))
{
    const std::string textType(w.textType);
    for (const auto &[key, tower] : {std::pair{"vision_config", w.vision}, std::pair{"audio_config", w.audio}})
        if (r.has(key))
            r.fail(key, std::string(w.family) + "'s " + std::string(tower) +
                            " is not modelled; import the text_config (model_type " + textType +
                            ") for the language model alone");
    JsonReader text = r.object("text_config");
    const std::string type = text.string("model_type", textType);
    if (type != textType)
        text.fail("model_type", "expected \"" + textType + "\" for " + std::string(w.family) +
                                    "'s language model, got \"" + type + "\"");
    importText(text, m, log, type);
}
} // namespace

/// Gemma3nForConditionalGeneration (model_type gemma3n): the language model is its text_config
/// (importGemma3nText()). Its vision tower (vision_config, the MobileNet-V5 of timm) and audio tower (audio_config,
/// a USM Conformer), with their embedders into the language model (embed_vision, embed_audio), are not modelled: a
/// file that has either is refused, naming it, rather than counted without it (as a gemma4 file is).
void importGemma3n(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    importGemmaWrapper(r, m, log,
                       {"Gemma 3n", "MobileNet-V5 vision tower (gemma3n_vision)",
                        "audio tower (gemma3n_audio, a USM Conformer)", "gemma3n_text"},
                       importGemma3nText);
}

/// Gemma4ForCausalLM's text model (model_type gemma4_text; transformers' models/gemma4/configuration_gemma4.py and
/// modeling_gemma4.py, Gemma4TextConfig, Gemma4TextAttention, Gemma4TextDecoderLayer, Gemma4TextRouter and
/// Gemma4TextExperts). A Gemma 3 layer (RMSNorms before and after attention and the FFN, per-head q and k RMSNorms,
/// a GeGLU MLP, tied embeddings, a final logit soft-cap) with: a v_norm without weights; full-attention layers of
/// their own head size and KV heads whose keys may be their values (readGemma4Attention()); and, with
/// enable_moe_block, routed experts beside the dense MLP in every layer (ModelShape::moeBesideDense). The
/// full-attention layers' "proportional" RoPE rotates every element of a head (the frequencies past
/// partial_rotary_factor are zero), so its FLOPs are whole-head rotary's. E2B and E4B add KV sharing, a double-wide
/// MLP in the sharing layers and per-layer embeddings (readGemma4SharingAndPerLayer()). Refused: bidirectional
/// attention over all tokens.
void importGemma4Text(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    readGemmaDecoder(r, m, log, {kGemma4Config, 4, 131072, 0.0});
    if (r.has("use_bidirectional_attention") && r.string("use_bidirectional_attention") == "all")
        r.fail("use_bidirectional_attention", "'all': bidirectional attention over every token is not modelled");
    readGemma4Attention(r, m, log);
    readGemma4Ffn(r, m, log);
    readGemma4SharingAndPerLayer(r, m, log);
}

/// Gemma4ForConditionalGeneration (model_type gemma4): the language model is its text_config (importGemma4Text()).
/// Its vision tower (vision_config, Gemma4VisionModel: a ViT with 2-D rotary positions, q/k/v norms and a gated MLP,
/// pooled into soft tokens) and audio tower (audio_config, a Conformer) are not modelled: a file that has either is
/// refused, naming it, rather than counted without it.
void importGemma4(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    importGemmaWrapper(r, m, log,
                       {"Gemma 4", "vision tower (gemma4_vision)", "audio tower (gemma4_audio)", "gemma4_text"},
                       importGemma4Text);
}

} // namespace memwall::core::hf
