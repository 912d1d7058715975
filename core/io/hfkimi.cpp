// Kimi-Linear (model_type kimi_linear, issue #38): Kimi Delta Attention layers between MLA layers without positions,
// and DeepSeek-V3's MoE, read into a ModelShape (a row of kFamilies in hfconfig.cpp); and Kimi K2.5's MoonViT vision
// tower with its projector (importKimiK25() in hfconfig.cpp reads the language model).
#include "core/io/hfimport.h"

#include <algorithm>
#include <string>

namespace memwall::core::hf {

namespace {

/// The 1-based layer numbers of `key` in linear_attn_config, each marked `mark` in `pattern` (one character a layer,
/// '?' where no list has put the layer yet).
void markLayers(JsonReader &cfg, std::string_view key, char mark, std::string &pattern)
{
    for (const auto &v : cfg.array(key)) {
        const auto n = static_cast<int64_t>(pattern.size());
        if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > n)
            cfg.fail(key,
                     "expected layer numbers from 1 to num_hidden_layers (" + std::to_string(n) + "), got " + brief(v));
        char &c = pattern[static_cast<std::size_t>(v.get<int64_t>() - 1)];
        if (c != '?')
            cfg.fail(key, "layer " + brief(v) + " is listed twice (kda_layers and full_attn_layers)");
        c = mark;
    }
}

/// The shortest period of `pattern` (it is its first P characters repeated), so that a regular pattern is short.
std::string shortestPeriod(const std::string &pattern)
{
    const std::size_t n = pattern.size();
    for (std::size_t p = 1; p < n; ++p) {
        bool repeats = true;
        for (std::size_t i = p; i < n && repeats; ++i)
            repeats = pattern[i] == pattern[i % p];
        if (repeats)
            return pattern.substr(0, p);
    }
    return pattern;
}

/// linear_attn_config: num_heads Kimi Delta Attention heads of head_dim (q, k and v alike; its gates' rank is head_dim
/// too: f_a_proj and g_a_proj project hidden_size to head_dim), short_conv_kernel_size, and the layers of each kind
/// (kda_layers and full_attn_layers, 1-based, as KimiLinearConfig.is_kda_layer reads them), which must cover every
/// layer once. use_full_rank_gate (a full-rank output gate, Kimi K3's) is refused.
void readKimiDelta(JsonReader &r, ModelShape &m, ImportLog &log)
{
    JsonReader cfg = r.object("linear_attn_config");
    if (cfg.boolean("use_full_rank_gate", false))
        cfg.fail("use_full_rank_gate", "a full-rank output gate (g_proj) is not modelled; Kimi-Linear's is low rank");
    LinearAttentionShape &x = m.linear;
    x.keyHeads = x.valueHeads = requiredSize(cfg, {"num_heads"});
    x.keyHeadDim = x.valueHeadDim = x.gateRank = requiredSize(cfg, {"head_dim"});
    x.convKernel = requiredSize(cfg, {"short_conv_kernel_size"});
    if (m.layers > kMaxPatternPeriod)
        r.fail("num_hidden_layers", "at most " + std::to_string(kMaxPatternPeriod) +
                                        " layers can be placed by kda_layers and full_attn_layers, got " +
                                        std::to_string(m.layers));
    std::string pattern(static_cast<std::size_t>(m.layers), '?');
    markLayers(cfg, "kda_layers", 'L', pattern);
    markLayers(cfg, "full_attn_layers", 'A', pattern);
    if (const auto gap = pattern.find('?'); gap != std::string::npos)
        cfg.fail("full_attn_layers", "layer " + std::to_string(gap + 1) + " is in neither kda_layers nor this list");
    if (pattern.find('L') == std::string::npos)
        cfg.fail("kda_layers", "no Kimi Delta Attention layer: import the model as MLA alone is not supported");
    m.linearPattern = shortestPeriod(pattern);
    // vLLM keeps the recurrent state in float32 whatever the model's format (MambaStateDtypeCalculator.kda_state_dtype
    // in vllm-project/vllm vllm/model_executor/layers/mamba/mamba_utils.py: the convolution's state in the model's or
    // cache's format, the recurrent one torch.float32); the config declares none.
    m.stateFormat = DType::FP32;
    const auto linear = static_cast<int64_t>(std::count(pattern.begin(), pattern.end(), 'L'));
    log.note("linear_attn_config: " + std::to_string(linear) + " Kimi Delta Attention layers (" +
             std::to_string(x.keyHeads) + " heads of " + std::to_string(x.keyHeadDim) +
             ", a per-channel decay and an output gate of rank " + std::to_string(x.gateRank) + ") and " +
             std::to_string(m.layers - linear) + " MLA layers; the recurrent state kept in float32, as vLLM keeps it");
}

/// Kimi-Linear's MLA (KimiMLAAttention): DeepSeek-V3's projections with queries projected directly (q_lora_rank must
/// be null: the module asserts it) and no rotary positions (mla_use_nope must be true: the module asserts it).
void readKimiMla(JsonReader &r, ModelShape &m)
{
    m.kvHeads = m.heads; // every head has its own keys and values, rebuilt from the one latent
    m.mixer = MixerKind::Mla;
    if (r.has("q_lora_rank"))
        r.fail("q_lora_rank",
               "KimiMLAAttention projects queries directly: must be null, got " + brief(r.raw("q_lora_rank")));
    m.mla.kvLoraRank = requiredSize(r, {"kv_lora_rank"});
    m.mla.qkNopeHeadDim = requiredSize(r, {"qk_nope_head_dim"});
    m.mla.qkRopeHeadDim = requiredSize(r, {"qk_rope_head_dim"});
    m.mla.vHeadDim = requiredSize(r, {"v_head_dim"});
    m.headDim = m.mla.qkNopeHeadDim + m.mla.qkRopeHeadDim;
    if (!r.boolean("mla_use_nope", false))
        r.fail("mla_use_nope", "KimiMLAAttention has no rotary positions: must be true");
    if (r.boolean("mla_use_output_gate", false))
        r.fail("mla_use_output_gate", "a gated MLA output (Kimi K3's) is not modelled");
    m.positions = PositionEncoding::None;
}

/// KimiSparseMoeBlock (DeepSeek-V3's): num_experts gated experts of moe_intermediate_size, num_experts_per_token a
/// token, a router with a bias per expert (KimiMoEGate's e_score_correction_bias, whatever
/// moe_router_activation_func), num_shared_experts experts as one FFN num_shared_experts x moe_intermediate_size wide;
/// layer i routed when i >= first_k_dense_replace and i % moe_layer_freq == 0, the others a dense MLP of
/// intermediate_size. KimiLinearConfig's defaults: no experts (num_experts null), 0 shared, 0 dense layers, freq 1.
void readKimiExperts(JsonReader &r, ModelShape &m)
{
    const int64_t dense = requiredSize(r, {"intermediate_size"});
    if (!r.has("num_experts")) {
        m.ffn = dense;
        return;
    }
    if (r.has("routed_expert_hidden_size"))
        r.fail("routed_expert_hidden_size", "experts in a latent space of their own (Kimi K3's) are not modelled");
    m.experts = requiredSize(r, {"num_experts"});
    readDeepseekMoe(r, m, {"num_experts", "num_experts_per_token", "num_shared_experts"}, dense);
    m.routerBias = true;
}

} // namespace

/// KimiLinearForCausalLM (model_type kimi_linear: moonshotai/Kimi-Linear-48B-A3B-Instruct and -Base; the
/// modeling_kimi.py and configuration_kimi.py the checkpoints ship): embeddings, num_hidden_layers layers of two
/// RMSNorms, a mixer and an FFN, a final RMSNorm and an untied LM head. The mixer is Kimi Delta Attention
/// (LinearAttentionShape with gateRank) in the kda_layers and MLA without positions in the full_attn_layers; the FFN
/// DeepSeek-V3's MoE. KimiLinearConfig has no max_position_embeddings: the trained context is model_max_length
/// (1,048,576), 0 (unknown) without it. Kimi K3's extensions of the same model_type (attention residuals, a latent
/// MoE, a gated MLA output, a full-rank KDA gate) and multi-token-prediction layers are refused by name.
void importKimiLinear(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    importRotaryDecoder(r, m);
    m.family = "kimi_linear";
    if (r.has("attn_res_block_size"))
        r.fail("attn_res_block_size", "attention residuals across blocks of layers (Kimi K3's) are not modelled");
    if (const int64_t n = r.integer("num_nextn_predict_layers", 0); n != 0)
        r.fail("num_nextn_predict_layers",
               "KimiLinearForCausalLM has no multi-token-prediction layers, got " + std::to_string(n));
    if (m.activation != Activation::Silu)
        r.fail("hidden_act", "Kimi-Linear's experts are SwiGLU: expected silu, got '" + r.string("hidden_act") + "'");
    readKimiMla(r, m);
    readKimiExperts(r, m);
    readKimiDelta(r, m, log);
    m.maxPositions = r.integer("model_max_length", 0);
    if (m.maxPositions < 0 || m.maxPositions > kMaxShapeField)
        r.fail("model_max_length", "must be between 0 and 2^31, got " + std::to_string(m.maxPositions));
}

/// Kimi K2.5's vision_config (KimiK25VisionConfig; its MoonViT3dPretrainedModel and KimiK25MultiModalProjector, as
/// vLLM's kimi_k25_vit.py builds them): a Conv2d patch embedding with a bias over 3 x patch_size^2 values (the module's
/// in_dim, 3: the config has no key), a learned init_pos_emb_height x init_pos_emb_width grid of positions (bicubically
/// interpolated to other grids; its temporal sin-cos table is a buffer, not a weight), vt_num_hidden_layers blocks
/// (LayerNorms with biases, wqkv and wo with biases, 2D rotary positions on q and k, a GELU-tanh MLP fc0/fc1 with
/// biases) and a final LayerNorm; merge_kernel_size patches concatenated into one token (sd2_tpool: an image has one
/// frame, so the temporal mean is the patch itself); the projector (patchmerger) LayerNorms each patch (pre_norm),
/// then linear_1 (merged width square) and linear_2 (to text_hidden_size) with biases and GELU between. An image is
/// taken at the grid of its learned positions, init_pos_emb x patch_size pixels a side (64 x 14 = 896 px: 4,096
/// patches, 1,024 image tokens); the processor resizes a real image within its own patch limits
/// (preprocessor_config.json, not read), and a larger image has more tokens. Video is not modelled.
void readMoonViT(JsonReader &r, ModelShape &m, ImportLog &log)
{
    JsonReader v = r.object("vision_config");
    if (const std::string t = v.string("merge_type", "sd2_tpool"); t != "sd2_tpool")
        v.fail("merge_type", "only sd2_tpool (2 x 2 patches a token, frames averaged) is modelled, got '" + t + "'");
    if (const std::string t = v.string("mm_projector_type", "patchmerger"); t != "patchmerger")
        v.fail("mm_projector_type",
               "only patchmerger (pre_norm, two linear layers with biases) is modelled, got '" + t + "'");
    if (const std::string t = v.string("pos_emb_type", "divided_fixed"); t != "divided_fixed")
        v.fail("pos_emb_type", "only divided_fixed (a learned 2D grid) is modelled, got '" + t + "'");
    if (const std::string a = v.string("projector_hidden_act", "gelu"); !a.starts_with("gelu"))
        v.fail("projector_hidden_act", "only a GELU projector is modelled, got '" + a + "'");
    VisionShape &t = m.vision;
    t.layers = sizeField(v, "vt_num_hidden_layers");
    t.hidden = sizeField(v, "vt_hidden_size");
    t.ffn = sizeField(v, "vt_intermediate_size");
    t.heads = sizeField(v, "vt_num_attention_heads");
    t.activation = Activation::Gelu;
    const int64_t patch = sizeField(v, "patch_size");
    const int64_t rows = sizeField(v, "init_pos_emb_height"), cols = sizeField(v, "init_pos_emb_width");
    const nlohmann::json &kernel = v.array("merge_kernel_size");
    if (kernel.size() != 2 || !kernel[0].is_number_integer() || !kernel[1].is_number_integer() ||
        kernel[0].get<int64_t>() <= 0 || kernel[1].get<int64_t>() <= 0 || rows % kernel[0].get<int64_t>() != 0 ||
        cols % kernel[1].get<int64_t>() != 0)
        v.fail("merge_kernel_size", "expected two sizes that divide the position grid (" + std::to_string(rows) +
                                        " x " + std::to_string(cols) + "), got " + brief(kernel));
    if (rows > 4096 || cols > 4096 || patch > 4096)
        v.fail("init_pos_emb_height", "implausibly large position grid or patch, got " + std::to_string(rows) + " x " +
                                          std::to_string(cols) + " in patches of " + std::to_string(patch));
    const int64_t out = sizeField(v, "text_hidden_size");
    if (out != m.hidden)
        v.fail("text_hidden_size", std::to_string(out) + " differs from the language model's hidden_size (" +
                                       std::to_string(m.hidden) + ")");
    t.patchInputs = 3 * patch * patch;
    t.patches = t.positionRows = rows * cols;
    t.imageSize = rows == cols ? rows * patch : 0;
    t.postNorm = true;
    t.rotary = true;
    t.merge = kernel[0].get<int64_t>() * kernel[1].get<int64_t>();
    t.projectorNorm = ProjectorNorm::LayerNormBeforeMerge;
    t.projector = {t.hidden * t.merge, out, 0};
    t.projectorLayers = 2;
    t.projectorBias = true;
    log.note("vision tower: MoonViT, " + std::to_string(t.layers) + " layers; an image is taken at " +
             std::to_string(rows * patch) + " x " + std::to_string(cols * patch) +
             " px (the grid of its learned positions at patch_size " + std::to_string(patch) +
             "): " + std::to_string(t.patches) + " patches, " + std::to_string(t.tokensPerImage()) +
             " image tokens (--images); video is not modelled");
}

} // namespace memwall::core::hf
