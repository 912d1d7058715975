// The families added for issue #38 (each a row of kFamilies in hfconfig.cpp), and the multi-token-prediction modules.
#include "core/io/hfimport.h"

#include <algorithm>
#include <array>
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

} // namespace memwall::core::hf
