// The families added for issue #38 (each a row of kFamilies in hfconfig.cpp), and the multi-token-prediction modules.
#include "core/io/hfimport.h"

#include <array>
#include <string>
#include <utility>

namespace memwall::core::hf {

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
