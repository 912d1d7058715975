// The families added for issue #38 (each a row of kFamilies in hfconfig.cpp), and the multi-token-prediction modules.
#include "core/io/hfimport.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>

namespace memwall::core::hf {

void readStateFormat(JsonReader &r, ModelShape &m, ImportLog &log, std::string_view key)
{
    if (!r.has(key))
        return;
    const std::string text = r.string(key);
    const auto t = dtypeFromString(text);
    if (!t || (*t != DType::FP32 && *t != DType::BF16 && *t != DType::FP16))
        r.fail(key, "expected float32, bfloat16 or float16, got '" + text + "'");
    m.stateFormat = *t;
    log.note(std::string(key) + ": the recurrent state is kept in " + std::string(toString(*t)) +
             " (its convolution inputs in the KV cache's format)");
}

int64_t mtpModules(JsonReader &r, ImportLog &log, std::string_view key)
{
    const int64_t n = r.integer(key, 0);
    if (n < 0 || n > 16)
        r.fail(key, "must be between 0 and 16 modules, got " + std::to_string(n));
    if (n > 0)
        log.note(std::string(key) + ": " + std::to_string(n) +
                 " multi-token-prediction module(s), counted apart from the model (ParamCounts::mtp) and loaded "
                 "only to draft tokens (--draft-model mtp)");
    return n;
}

/// DeepseekV32ForCausalLM (DeepSeek-V3.2, V3.2-Exp) and GlmMoeDsaForCausalLM (GLM-5): DeepSeek-V3's layout
/// (importDeepseek(): MLA, dense first layers, routed and shared experts, a router bias) with DeepSeek Sparse
/// Attention's lightning indexer in every layer (index_n_heads heads of index_head_dim, index_topk tokens attended;
/// transformers' DeepseekV32Config and GlmMoeDsaConfig default them to 64 and 32 heads, 128 and 2048). The
/// multi-token-prediction module is a layer like the model's next, with its own indexer. DeepSeek-V3.2's checkpoint
/// stores copies of the embedding and head in it as DeepSeek-V3's does; GLM-5's is counted without them (the GLM-5.x
/// checkpoints that public loaders describe hold no model.layers.78.embed_tokens or shared_head.head, and serving
/// engines bind the main model's to the module; GLM-4.6's has none either). GLM-5.x's
/// shared indexer layers (indexer_types "shared", index_topk_freq), which reuse an earlier layer's top-k, are refused.
void importSparseMla(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type)
{
    importDeepseek(r, m, type);
    const bool glm = type == "glm_moe_dsa";
    if (m.mla.qLoraRank <= 0)
        r.fail("q_lora_rank", "the lightning indexer reads the queries' latent: q_lora_rank must be positive");
    m.indexer.heads = optionalSize(r, {"index_n_heads"}, glm ? 32 : 64);
    m.indexer.headDim = optionalSize(r, {"index_head_dim"}, 128);
    m.indexer.topk = optionalSize(r, {"index_topk"}, 2048);
    if (m.indexer.headDim < m.mla.qkRopeHeadDim)
        r.fail("index_head_dim", "must hold the rotary part (qk_rope_head_dim " + std::to_string(m.mla.qkRopeHeadDim) +
                                     "), got " + std::to_string(m.indexer.headDim));
    if (r.integer("index_topk_freq", 1) != 1 || r.has("index_topk_pattern"))
        r.fail(r.has("index_topk_pattern") ? "index_topk_pattern" : "index_topk_freq",
               "layers that reuse another layer's top-k (shared indexer layers) are not modelled");
    if (r.has("indexer_types"))
        for (const auto &t : r.array("indexer_types"))
            if (!t.is_string() || t.get<std::string>() != "full")
                r.fail("indexer_types", brief(t) + ": layers that reuse another layer's top-k are not modelled");
    log.note("lightning indexer: " + std::to_string(m.indexer.heads) + " heads of " +
             std::to_string(m.indexer.headDim) + ", top " + std::to_string(m.indexer.topk) +
             " tokens attended; its keys cached in FP8 with an FP32 scale per 128");
    m.mtpLayers = mtpModules(r, log, "num_nextn_predict_layers");
    m.mtpStoresCopies = m.mtpLayers > 0 && !glm;
}

/// MiniMaxM2ForCausalLM (MiniMax-M2, M2.5; the modeling_minimax_m2.py the checkpoints ship, and transformers'
/// minimax_m2): grouped-query attention without biases (head_dim), rotary positions on rotary_dim of each head, an
/// RMSNorm over the whole projected q (heads x head_dim) and k (kv_heads x head_dim) when use_qk_norm with
/// qk_norm_type per_layer; every layer routes over num_local_experts gated experts of intermediate_size
/// (num_experts_per_tok per token) with a sigmoid router that has a bias per expert (e_score_correction_bias, by
/// use_routing_bias); no shared expert. Its MTP modules (use_mtp, num_mtp_modules) are not in the published
/// checkpoint's weights and are not counted.
void importMinimaxM2(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    importRotaryDecoder(r, m);
    m.kvHeads = optionalSize(r, {"num_key_value_heads"}, m.heads);
    checkKvHeads(r, m, "num_key_value_heads", "num_attention_heads");
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", 0);
    m.maxPositions = r.integer("max_position_embeddings", 196608);
    m.ffn = requiredSize(r, {"intermediate_size"});
    m.experts = requiredSize(r, {"num_local_experts"});
    m.activeExperts = requiredSize(r, {"num_experts_per_tok"});
    if (m.activeExperts > m.experts)
        r.fail("num_experts_per_tok",
               std::to_string(m.activeExperts) + " exceeds num_local_experts (" + std::to_string(m.experts) + ")");
    if (const int64_t shared = r.integer("shared_intermediate_size", 0); shared != 0)
        r.fail("shared_intermediate_size", "a MiniMax-M2 shared expert is not modelled, got " + std::to_string(shared));
    m.routerBias = r.boolean("use_routing_bias", true);
    if (r.boolean("use_qk_norm", true)) {
        const std::string kind = r.string("qk_norm_type", "per_layer");
        if (kind != "per_layer")
            r.fail("qk_norm_type", "only per_layer (one norm over all heads) is modelled, got '" + kind + "'");
        m.qkNorm = m.qkNormFullWidth = true;
    }
    if (r.boolean("use_mtp", false))
        log.note("use_mtp: the MTP modules (num_mtp_modules) are not among the published weights; not counted");
}

/// MiMoForCausalLM (XiaomiMiMo/MiMo-7B, its modeling_mimo.py): Qwen2's decoder (q, k and v biases, a bias-free
/// o_proj, gated SiLU FFN, untied head) and num_nextn_predict_layers MTP layers (MiMoMTPLayers: token_layernorm,
/// hidden_layernorm, input_proj 2 hidden x hidden without bias, a Qwen2 decoder layer, final_layernorm), which
/// the checkpoint stores under model.mtp_layers.
void importMimo(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    importLlamaLike(r, m, "qwen2");
    m.family = "mimo";
    m.mtpLayers = mtpModules(r, log, "num_nextn_predict_layers");
}

/// Glm4MoeForCausalLM (glm4_moe: GLM-4.5, GLM-4.6, GLM-4.5-Air; transformers' modeling_glm4_moe, defaults from
/// Glm4MoeConfig): grouped-query attention over head_dim with biases on q, k and v only (attention_bias; o_proj has
/// none), rotary positions on partial_rotary_factor (0.5) of each head, per-head RMSNorms over q and k when
/// use_qk_norm (GLM-4.5, not Air); the first first_k_dense_replace layers have a dense gated FFN of
/// intermediate_size, the others n_routed_experts gated experts of moe_intermediate_size (num_experts_per_tok a token)
/// with a sigmoid router that has a bias per expert (Glm4MoeTopkRouter's e_score_correction_bias) and n_shared_experts
/// always-active experts forming one FFN n_shared_experts x moe_intermediate_size wide. Two RMSNorms a layer, untied
/// head. The num_nextn_predict_layers MTP layers are DeepSeek-V3's (enorm, hnorm, eh_proj, a decoder layer,
/// shared_head.norm), and the checkpoint stores a copy of the embedding and of the LM head in each
/// (model.layers.46.embed_tokens and shared_head.head in GLM-4.5-Air): counted apart, as DeepSeek-V3's.
void importGlm4Moe(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    importRotaryDecoder(r, m);
    m.kvHeads = optionalSize(r, {"num_key_value_heads"}, 8);
    checkKvHeads(r, m, "num_key_value_heads", "num_attention_heads");
    m.headDim = headDim(r, m, "num_attention_heads", "hidden_size", 0);
    m.qkvBias = r.boolean("attention_bias", false);
    m.outBias = false;
    m.qkNorm = r.boolean("use_qk_norm", false);
    m.rotaryFraction = r.number("partial_rotary_factor", 0.5);
    if (!(m.rotaryFraction > 0 && m.rotaryFraction <= 1))
        r.fail("partial_rotary_factor", "must be above 0 and at most 1, got " + std::to_string(m.rotaryFraction));
    m.maxPositions = r.integer("max_position_embeddings", 131072);
    m.ffn = optionalSize(r, {"moe_intermediate_size"}, 1408);
    m.experts = optionalSize(r, {"n_routed_experts"}, 128);
    m.activeExperts = optionalSize(r, {"num_experts_per_tok"}, 8);
    if (m.activeExperts > m.experts)
        r.fail("num_experts_per_tok",
               std::to_string(m.activeExperts) + " exceeds n_routed_experts (" + std::to_string(m.experts) + ")");
    const int64_t shared = r.integer("n_shared_experts", 1);
    if (shared < 0 || shared > kMaxShapeField / m.ffn)
        r.fail("n_shared_experts",
               "must be between 0 and " + std::to_string(kMaxShapeField / m.ffn) + ", got " + std::to_string(shared));
    m.sharedFfn = shared * m.ffn;
    m.routerBias = true;
    m.firstDenseLayers = r.integer("first_k_dense_replace", 1);
    if (m.firstDenseLayers < 0 || m.firstDenseLayers > m.layers)
        r.fail("first_k_dense_replace",
               "must be between 0 and num_hidden_layers, got " + std::to_string(m.firstDenseLayers));
    m.denseFfn = m.firstDenseLayers > 0 ? requiredSize(r, {"intermediate_size"}) : 0;
    m.mtpLayers = mtpModules(r, log, "num_nextn_predict_layers");
    m.mtpStoresCopies = m.mtpLayers > 0;
}

/// Cohere2ForCausalLM (cohere2: Command R7B, Command A; transformers' modeling_cohere2, defaults from Cohere2Config):
/// Command R's layer (importCohere(): attention and the FFN read one LayerNorm without a bias, in parallel; tied
/// embeddings; no q/k norms) with three layers of four attending within sliding_window (4096) tokens with rotary
/// positions, and every fourth layer (sliding_window_pattern 4, or the layer_types list) attending to the whole
/// context without positions. Its logit_scale is a constant, not a parameter.
void importCohere2(JsonReader &r, ModelShape &m, ImportLog &, const std::string &)
{
    importCohere(r, m);
    m.slidingWindow = slidingWindow(r, "sliding_window", 4096);
    if (m.slidingWindow == 0)
        return;
    m.globalEvery = r.has("layer_types") ? globalEveryFromLayerTypes(r, m) : r.integer("sliding_window_pattern", 4);
    if (m.globalEvery < 0 || m.globalEvery > std::min<int64_t>(m.layers, kMaxPatternPeriod))
        r.fail("sliding_window_pattern", "must be between 1 and the layers, got " + std::to_string(m.globalEvery));
    m.globalNoPositions = m.globalEvery > 0;
}

/// Gemma3ForCausalLM's text config (model_type gemma3_text; also the text_config of a gemma3 file): the Gemma rows of
/// importLlamaLike(), after the keys the file leaves out are given Gemma3TextConfig's defaults (transformers @
/// 008f5c8c, src/transformers/models/gemma3/configuration_gemma3.py), as transformers gives them: Gemma 3 27B's
/// published text_config omits vocab_size (262,208) among others. The sizes that decide the shape (hidden_size,
/// intermediate_size, num_hidden_layers, num_attention_heads) are not defaulted: a truncated file stays an error.
/// The import report names every key defaulted.
void importGemma3Text(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    const std::array<std::pair<const char *, nlohmann::json>, 8> defaults{{
        {"vocab_size", 262208},
        {"num_key_value_heads", 4},
        {"head_dim", 256},
        {"hidden_activation", "gelu_pytorch_tanh"},
        {"max_position_embeddings", 131072},
        {"tie_word_embeddings", true},
        {"sliding_window", 4096},
        {"sliding_window_pattern", 6},
    }};
    nlohmann::json filled = r.node();
    std::string named;
    for (const auto &[key, value] : defaults) {
        if (filled.contains(key) ||
            (std::string_view(key) == "sliding_window_pattern" && filled.contains("layer_types")))
            continue;
        filled[key] = value;
        named += (named.empty() ? "" : ", ") + std::string(key) + " " + value.dump();
    }
    if (!named.empty())
        log.note("defaulted from transformers' Gemma3TextConfig (keys the file leaves out): " + named);
    JsonReader full(filled, r.file());
    importLlamaLike(full, m, "gemma3_text");
}

// ---- multimodal wrappers: the language model and its vision tower together ----

namespace {

/// `key` of a vision_config, a size: required, or (when the file leaves it out) the configuration class's default
/// `fallback` (> 0), which the import report names.
int64_t visionSize(JsonReader &v, ImportLog &log, std::string_view key, int64_t fallback, std::string_view cls)
{
    if (fallback <= 0)
        return sizeField(v, key);
    return defaultedSize(v, log, key, fallback, cls, "vision_config.");
}

/// The patches of a square image of `image` pixels in patches of `patch`: (image / patch)^2.
int64_t squarePatches(JsonReader &v, int64_t image, int64_t patch)
{
    if (image % patch != 0)
        v.fail("patch_size", std::to_string(patch) + " does not divide image_size (" + std::to_string(image) + ")");
    const int64_t side = image / patch;
    if (side > 65536)
        v.fail("image_size", "implausibly many patches of " + std::to_string(patch) + ", got " + std::to_string(image));
    return side * side;
}

/// The activation of a vision tower: every GELU variant (its FLOPs are GELU's); anything else is refused.
Activation visionActivation(JsonReader &v, ImportLog &log, std::string_view fallback, std::string_view cls)
{
    if (!v.has("hidden_act"))
        log.note("vision_config.hidden_act: left out; " + std::string(cls) + "'s default " + std::string(fallback));
    const std::string a = v.string("hidden_act", fallback);
    if (!a.starts_with("gelu"))
        v.fail("hidden_act", "only a GELU vision tower is modelled, got '" + a + "'");
    return Activation::Gelu;
}

} // namespace

/// Gemma3ForConditionalGeneration (model_type gemma3; transformers @ 008f5c8c, models/gemma3/modeling_gemma3.py and
/// models/siglip/modeling_siglip.py): the language model is the text_config (importGemma3Text(), with its omitted
/// keys defaulted), the tower a SiglipVisionModel without its pooling head (vision_use_head false): a patch
/// convolution with a bias, (image_size / patch_size)^2 learned positions, num_hidden_layers blocks and a
/// post_layernorm. Gemma3MultiModalProjector averages 4 x 4 patches into each of mm_tokens_per_image tokens
/// (AvgPool2d), normalises them (mm_soft_emb_norm, an RMSNorm of the tower's width) and projects them
/// (mm_input_projection_weight, tower width x text hidden, no bias). SiglipVisionConfig's defaults fill what the file
/// leaves out of the tower's keys that are not sizes (num_channels 3, hidden_act gelu_pytorch_tanh).
void importGemma3(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    JsonReader text = r.object("text_config");
    const std::string textType = text.string("model_type", "gemma3_text");
    if (textType != "gemma3_text")
        text.fail("model_type", "expected \"gemma3_text\" for Gemma 3's language model, got \"" + textType + "\"");
    importGemma3Text(text, m, log, textType);
    m.family = "gemma3";
    JsonReader v = r.object("vision_config");
    const std::string visionType = v.string("model_type", "siglip_vision_model");
    if (visionType != "siglip_vision_model")
        v.fail("model_type", "expected \"siglip_vision_model\", got \"" + visionType + "\"");
    if (v.boolean("vision_use_head", true))
        v.fail("vision_use_head", "SigLIP's attention-pooling head is not modelled (Gemma 3's tower has none)");
    VisionShape &t = m.vision;
    constexpr std::string_view cls = "SiglipVisionConfig";
    t.hidden = visionSize(v, log, "hidden_size", 0, cls);
    t.ffn = visionSize(v, log, "intermediate_size", 0, cls);
    t.layers = visionSize(v, log, "num_hidden_layers", 0, cls);
    t.heads = visionSize(v, log, "num_attention_heads", 0, cls);
    const int64_t image = visionSize(v, log, "image_size", 0, cls);
    const int64_t patch = visionSize(v, log, "patch_size", 0, cls);
    const int64_t channels = visionSize(v, log, "num_channels", 3, cls);
    t.activation = visionActivation(v, log, "gelu_pytorch_tanh", cls);
    t.patchInputs = channels * patch * patch;
    t.patches = squarePatches(v, image, patch);
    t.positionRows = t.patches;
    t.postNorm = true;
    t.imageSize = image;
    if (!r.has("mm_tokens_per_image"))
        log.note("mm_tokens_per_image: left out; Gemma3Config's default 256");
    const int64_t tokens = r.integer("mm_tokens_per_image", 256);
    if (tokens <= 0 || t.patches % tokens != 0)
        r.fail("mm_tokens_per_image",
               "must divide the " + std::to_string(t.patches) + " patches of an image, got " + std::to_string(tokens));
    t.merge = t.patches / tokens;
    t.mergePool = true;
    t.projectorNorm = ProjectorNorm::RmsNormAfterMerge;
    t.projector = {m.hidden, 0, 0};
    t.projectorLayers = 1;
    t.projectorBias = false;
    log.note("vision tower: SigLIP, " + std::to_string(t.layers) + " layers; an image of " + std::to_string(image) +
             " px is " + std::to_string(t.patches) + " patches, pooled to " + std::to_string(tokens) +
             " image tokens (--images)");
}

/// Qwen3VLForConditionalGeneration and Qwen3VLMoeForConditionalGeneration (model_type qwen3_vl, qwen3_vl_moe;
/// transformers @ 008f5c8c, models/qwen3_vl/modeling_qwen3_vl.py): the language model is the text_config, a Qwen3
/// (qwen3_vl_text) or Qwen3-MoE (qwen3_vl_moe_text) decoder with q/k norms; tie_word_embeddings at the top wins. The
/// tower (Qwen3VLVisionModel): a Conv3d patch embedding with a bias over in_channels x temporal_patch_size x
/// patch_size^2 values, num_position_embeddings learned positions (bilinearly interpolated to the image's grid),
/// `depth` blocks (qkv and proj with biases, linear_fc1/fc2 with biases), and the merger: a LayerNorm of the tower's
/// width on each patch, 2 x 2 patches concatenated, linear_fc1 (4 x width square) and linear_fc2 (to
/// out_hidden_size) with biases and GELU between; one more merger per deepstack_visual_indexes entry, with its
/// LayerNorm over the concatenated width. An image is taken at the grid of its learned positions:
/// sqrt(num_position_embeddings) x patch_size pixels a side (48 x 16 = 768 px: 2,304 patches, 576 image tokens);
/// the processor resizes a real image to its own size within its pixel limits, and a larger image has more tokens.
/// Video (frames through the same tower) is not modelled.
void importQwen3Vl(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type)
{
    JsonReader text = r.object("text_config");
    const std::string expected = type == "qwen3_vl_moe" ? "qwen3_vl_moe_text" : "qwen3_vl_text";
    const std::string textType = text.string("model_type", expected);
    if (textType != expected)
        text.fail("model_type",
                  "expected \"" + expected + "\" for " + type + "'s language model, got \"" + textType + "\"");
    importLlamaLike(text, m, type == "qwen3_vl_moe" ? "qwen3_moe" : "qwen3");
    m.family = type;
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", m.tiedEmbeddings);
    JsonReader v = r.object("vision_config");
    VisionShape &t = m.vision;
    constexpr std::string_view cls = "Qwen3VLVisionConfig";
    t.layers = visionSize(v, log, "depth", 0, cls);
    t.hidden = visionSize(v, log, "hidden_size", 0, cls);
    t.ffn = visionSize(v, log, "intermediate_size", 0, cls);
    t.heads = visionSize(v, log, "num_heads", 0, cls);
    t.activation = visionActivation(v, log, "gelu_pytorch_tanh", cls);
    const int64_t channels = visionSize(v, log, "in_channels", 3, cls);
    const int64_t patch = visionSize(v, log, "patch_size", 0, cls);
    const int64_t temporal = visionSize(v, log, "temporal_patch_size", 2, cls);
    const int64_t merge = visionSize(v, log, "spatial_merge_size", 2, cls);
    t.positionRows = visionSize(v, log, "num_position_embeddings", 0, cls);
    const int64_t out = visionSize(v, log, "out_hidden_size", 0, cls);
    if (out != m.hidden)
        v.fail("out_hidden_size", std::to_string(out) + " differs from the language model's hidden_size (" +
                                      std::to_string(m.hidden) + ")");
    auto side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(t.positionRows))));
    if (side * side != t.positionRows || side % merge != 0)
        v.fail("num_position_embeddings", "must be a square grid whose side spatial_merge_size (" +
                                              std::to_string(merge) + ") divides, got " +
                                              std::to_string(t.positionRows));
    t.patchInputs = channels * temporal * patch * patch;
    t.patches = t.positionRows;
    t.imageSize = side * patch;
    t.merge = merge * merge;
    t.projectorNorm = ProjectorNorm::LayerNormBeforeMerge;
    t.projector = {t.hidden * t.merge, out, 0};
    t.projectorLayers = 2;
    t.projectorBias = true;
    t.rotary = true; // Qwen3VLVisionRotaryEmbedding(head_dim / 2), doubled: 2D positions on every q and k element
    if (v.has("deepstack_visual_indexes")) {
        const auto &list = v.array("deepstack_visual_indexes");
        for (const auto &i : list)
            if (!i.is_number_integer() || i.get<int64_t>() < 0 || i.get<int64_t>() >= t.layers)
                v.fail("deepstack_visual_indexes",
                       "expected block numbers below depth " + std::to_string(t.layers) + ", got " + brief(i));
        t.deepstack = static_cast<int64_t>(list.size());
    }
    log.note("vision tower: " + std::to_string(t.layers) + " layers; an image is taken at " +
             std::to_string(t.imageSize) + " x " + std::to_string(t.imageSize) +
             " px (the grid of num_position_embeddings at patch_size " + std::to_string(patch) +
             "): " + std::to_string(t.patches) + " patches, " + std::to_string(t.tokensPerImage()) +
             " image tokens (--images); video is not modelled");
}

/// Llama4ForConditionalGeneration's vision_config (transformers @ 008f5c8c, models/llama4/modeling_llama4.py):
/// Llama4VisionModel has an unfold-linear patch embedding without a bias (num_channels x patch_size^2 inputs), a class
/// embedding, (image_size / patch_size)^2 + 1 learned positions, layernorm_pre and layernorm_post, num_hidden_layers
/// blocks (q, k, v, o and fc1, fc2 with biases, GELU); its Llama4VisionPixelShuffleMLP shuffles 2 x 2 patches into
/// one (pixel_shuffle_ratio 0.5: hidden x 4 wide) and runs fc1 (to projector_input_dim) and fc2 (to
/// projector_output_dim) without biases, GELU after each; Llama4MultiModalProjector's linear_1 (vision_output_dim x
/// text hidden, multi_modal_projector_bias) makes them language-model tokens. An image is one tile of image_size
/// pixels (336: 576 patches, 144 image tokens); the processor cuts a larger image into up to 16 such tiles and a
/// global one.
void readLlama4Vision(JsonReader &r, ModelShape &m, ImportLog &log)
{
    JsonReader v = r.object("vision_config");
    VisionShape &t = m.vision;
    constexpr std::string_view cls = "Llama4VisionConfig";
    t.hidden = visionSize(v, log, "hidden_size", 0, cls);
    t.ffn = visionSize(v, log, "intermediate_size", 0, cls);
    t.layers = visionSize(v, log, "num_hidden_layers", 0, cls);
    t.heads = visionSize(v, log, "num_attention_heads", 0, cls);
    t.activation = visionActivation(v, log, "gelu", cls);
    const int64_t image = visionSize(v, log, "image_size", 0, cls);
    const int64_t patch = visionSize(v, log, "patch_size", 0, cls);
    const int64_t channels = visionSize(v, log, "num_channels", 3, cls);
    const double ratio = v.number("pixel_shuffle_ratio", 0.5);
    if (ratio != 0.5)
        v.fail("pixel_shuffle_ratio", "only 0.5 (2 x 2 patches a token) is modelled, got " + std::to_string(ratio));
    const int64_t inner = visionSize(v, log, "projector_input_dim", 0, cls);
    const int64_t outer = visionSize(v, log, "projector_output_dim", 0, cls);
    const int64_t feature = visionSize(v, log, "vision_output_dim", 0, cls);
    if (feature != outer)
        v.fail("vision_output_dim",
               std::to_string(feature) + " differs from projector_output_dim (" + std::to_string(outer) + ")");
    const bool bias = v.boolean("multi_modal_projector_bias", false);
    if (bias)
        v.fail("multi_modal_projector_bias", "a projector with a bias beside its bias-free adapter is not modelled");
    t.patchInputs = channels * patch * patch;
    t.patchBias = false;
    t.patches = squarePatches(v, image, patch);
    t.classToken = true;
    t.positionRows = t.patches + 1;
    t.preNorm = t.postNorm = true;
    t.merge = 4;
    t.projector = {inner, outer, m.hidden};
    t.projectorLayers = 3;
    t.projectorBias = false;
    t.rotary = true; // Llama4VisionRotaryEmbedding: 2D positions on every q and k element (none on the class token)
    t.imageSize = image;
    log.note("vision tower: " + std::to_string(t.layers) + " layers; an image is one tile of " + std::to_string(image) +
             " px: " + std::to_string(t.patches) + " patches, " + std::to_string(t.tokensPerImage()) +
             " image tokens (--images)");
}

} // namespace memwall::core::hf
