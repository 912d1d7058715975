#pragma once

#include "core/model/dtype.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

enum class Architecture { Decoder, Encoder };
enum class PositionEncoding { Learned, Rotary, Alibi, None };
enum class NormKind { LayerNorm, RmsNorm };
enum class Activation { Gelu, Silu, Relu, Relu2 }; ///< Relu2: squared ReLU, relu(x)^2 (Nemotron-H's relu2)
/// What mixes information between tokens in a layer.
enum class MixerKind {
    Attention, ///< multi-head attention over a per-token K/V cache: MHA, GQA or MQA by kv_heads
    Mla,       ///< multi-head latent attention (DeepSeek-V2/V3): one compressed latent per token is cached
};

std::string_view toString(Architecture a);
std::string_view toString(PositionEncoding p);
std::string_view toString(NormKind n);
std::string_view toString(Activation a);
std::string_view toString(MixerKind k);
std::optional<Architecture> architectureFromString(std::string_view s);
std::optional<PositionEncoding> positionEncodingFromString(std::string_view s);
std::optional<NormKind> normKindFromString(std::string_view s);
std::optional<Activation> activationFromString(std::string_view s);
std::optional<MixerKind> mixerKindFromString(std::string_view s);

/// State-space mixers (Mamba). A layer's state per sequence has a fixed size, whatever the context: no per-token cache.
enum class SsmKind {
    None,
    Mamba1, ///< selective scan (Gu and Dao 2023): x_proj and dt_proj per layer, a state of d_state per channel
    Mamba2, ///< state-space duality (Dao and Gu 2024): heads of head_dim channels, B and C shared by groups
};
std::string_view toString(SsmKind k);
std::optional<SsmKind> ssmKindFromString(std::string_view s);

struct SsmShape
{
    SsmKind kind = SsmKind::None;
    int64_t stateSize = 0;   ///< d_state: state elements per channel
    int64_t innerSize = 0;   ///< d_inner = expand x hidden: channels
    int64_t heads = 0;       ///< Mamba-2: heads (d_inner / head_dim); Mamba-1: 0
    int64_t groups = 1;      ///< Mamba-2: groups of heads sharing B and C
    int64_t convKernel = 4;  ///< d_conv: width of the causal convolution (its last d_conv - 1 inputs are state)
    int64_t dtRank = 0;      ///< Mamba-1: rank of the step-size projection
    int64_t chunkSize = 256; ///< Mamba-2: chunk of the chunked scan over a prompt
    bool convBias = true;
    bool projBias = false;   ///< in_proj and out_proj biases
    bool innerNorms = false; ///< Mamba-1 in Jamba: RMSNorms over dt (dt_rank), B and C (d_state each)
    /// Inputs of the convolution per token: Mamba-2 convolves x, B and C; Mamba-1 only x.
    int64_t convDim() const { return kind == SsmKind::Mamba2 ? innerSize + 2 * groups * stateSize : innerSize; }
};

/// Gated DeltaNet linear attention (Yang, Kautz and Hatamizadeh 2024, "Gated Delta Networks", ICLR 2025; as
/// transformers' Qwen3NextGatedDeltaNet and Qwen3_5GatedDeltaNet build it). Per layer: in_proj to q and k
/// (key_heads x key_head_dim each), v and the output gate z (value_heads x value_head_dim each), and b and a (one
/// each per value head); a causal depthwise convolution of conv_kernel over q, k and v without a bias; dt_bias and
/// A_log per value head; a gated RMSNorm of value_head_dim weights; out_proj back to hidden, no biases. Each value
/// head keeps a key_head_dim x value_head_dim state per sequence (q and k are shared by value_heads / key_heads value
/// heads), whatever the context, and the convolution's last conv_kernel - 1 inputs.
struct LinearAttentionShape
{
    int64_t keyHeads = 0;     ///< linear_num_key_heads; 0: the model has no linear attention
    int64_t valueHeads = 0;   ///< linear_num_value_heads
    int64_t keyHeadDim = 0;   ///< linear_key_head_dim
    int64_t valueHeadDim = 0; ///< linear_value_head_dim
    int64_t convKernel = 4;   ///< linear_conv_kernel_dim
    /// Tokens per chunk of the chunked scan over a prompt: 64, flash-linear-attention's chunk_gated_delta_rule (and
    /// transformers' torch_chunk_gated_delta_rule's chunk_size default).
    int64_t chunkSize = 64;
    /// Kimi Delta Attention (Kimi Linear tech report, arXiv 2510.26692; the KimiDeltaAttention module of
    /// moonshotai/Kimi-Linear-48B-A3B-Instruct's modeling_kimi.py): with gateRank > 0 the decay is per key channel, not
    /// per head, from a low-rank path (f_a_proj hidden -> gateRank, f_b_proj gateRank -> value dim) with dt_bias per
    /// channel (value dim), and the output gate is low rank too (g_a_proj hidden -> gateRank, g_b_proj gateRank ->
    /// value dim) through a sigmoid; q, k and v are separate projections (q_proj, k_proj, v_proj) and beta is b_proj
    /// (hidden -> value heads). 0: Gated DeltaNet (a scalar decay per head from `a`, the full-rank output gate z).
    int64_t gateRank = 0;
    bool kimiDelta() const { return gateRank > 0; }
    int64_t keyDim() const { return keyHeads * keyHeadDim; }
    int64_t valueDim() const { return valueHeads * valueHeadDim; }
    int64_t convDim() const { return 2 * keyDim() + valueDim(); } ///< q, k and v are convolved
};

/// Multi-head latent attention (DeepSeek-V2, section 2.1): keys and values are rebuilt from a latent of kv_lora_rank
/// per token, and a rotary key of qk_rope_head_dim shared by all heads rides beside it. Only these two are cached:
/// (kv_lora_rank + qk_rope_head_dim) elements per token and layer, whatever the number of heads.
struct MlaShape
{
    int64_t qLoraRank = 0;     ///< width of the queries' low-rank path; 0: queries are projected directly
    int64_t kvLoraRank = 0;    ///< width of the cached latent
    int64_t qkNopeHeadDim = 0; ///< per head: the part of q and k without rotary positions
    int64_t qkRopeHeadDim = 0; ///< per head: the rotary part (the key's is shared by all heads and cached)
    int64_t vHeadDim = 0;      ///< per head: width of a value
    int64_t cachedPerToken() const { return kvLoraRank + qkRopeHeadDim; }
};

/// DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2-Exp technical report, section 2.1; the reference
/// Indexer of deepseek-ai/DeepSeek-V3.2-Exp inference/model.py and transformers' DeepseekV32Indexer), beside MLA:
/// wq_b (q_lora_rank -> heads x head_dim, from the queries' normed latent), wk (hidden -> one head_dim key per token,
/// shared by its heads), k_norm (a LayerNorm of head_dim with its bias), weights_proj (hidden -> one weight per head),
/// no biases. Each query scores every earlier token, sum over heads of weight x ReLU(q . k), and attention reads only
/// the top_k tokens of highest score. Its keys are cached beside the latent, in FP8 with one FP32 scale per 128
/// (the reference's k_cache float8_e4m3fn and k_scale_cache, block_size 128), whatever the KV cache's format.
struct IndexerShape
{
    int64_t heads = 0;   ///< index_n_heads; 0: no indexer (dense MLA)
    int64_t headDim = 0; ///< index_head_dim
    int64_t topk = 0;    ///< index_topk: tokens each query attends
    /// Bytes one token's indexer key takes in one layer: head_dim FP8 values and one FP32 scale per 128 of them
    /// (DeepSeek-V3.2: 128 + 4 = 132 B).
    double keyBytesPerToken() const
    {
        return static_cast<double>(headDim) + 4.0 * static_cast<double>((headDim + 127) / 128);
    }
};

/// Gemma 4's full-attention layers (global_head_dim, num_global_key_value_heads, attention_k_eq_v; transformers'
/// Gemma4TextAttention): with ModelShape::globalEvery, the layers that attend to the whole context have heads of
/// headDim (0: the shape's head_dim) and kvHeads KV heads (0: the shape's kv_heads). With keyIsValue they have no
/// v_proj: the value is the key projection's output, before the key's norm and rotation. Both are still cached, K
/// normed and rotated, V normed by a weightless RMSNorm (transformers caches key_states and value_states), so a
/// global layer caches 2 x kvHeads x headDim elements per token like any other.
/// Step-3.5's full-attention layers (its config's num_attention_heads, where attention_other_setting gives the
/// sliding layers theirs; vLLM's Step3p5Attention) have query heads of their own, `heads` (0: the shape's), and rotate
/// a share of each head of their own, `rotaryFraction` (partial_rotary_factors per layer; 0: the shape's).
struct GlobalAttentionShape
{
    int64_t headDim = 0;
    int64_t kvHeads = 0;
    bool keyIsValue = false;
    int64_t heads = 0;
    double rotaryFraction = 0;
    bool present() const { return headDim > 0 || kvHeads > 0 || keyIsValue || heads > 0 || rotaryFraction > 0; }
};

/// Where the projector of a vision tower normalises (VisionShape::projectorNorm).
enum class ProjectorNorm : uint8_t {
    None,                 ///< no norm (Llama 4's pixel-shuffle adapter and projector)
    LayerNormBeforeMerge, ///< a LayerNorm (weight and bias) of the tower's width on every patch (Qwen3-VL's merger)
    RmsNormAfterMerge, ///< an RMSNorm (weight) of the tower's width on every pooled token (Gemma 3's mm_soft_emb_norm)
};

/// A multimodal wrapper's vision tower: the ViT encoder that turns an image into image tokens of the language model
/// (Gemma 3's SigLIP, Qwen3-VL's, Llama 4's). Its `layers` blocks are all alike: a LayerNorm (weight and bias) before
/// attention and before the MLP, bidirectional attention over one image's patches with q, k, v and o of
/// hidden x hidden and biases, and an MLP of two matrices with biases (hidden x ffn, ffn x hidden) and `activation`.
/// Before them: the patch embedding (patchInputs x hidden, a bias with patchBias), a class token (classToken), the
/// learned positions (positionRows rows), a LayerNorm (preNorm); after them a LayerNorm (postNorm). Then `merge`
/// patches become one image token (averaged with mergePool, else concatenated: hidden x merge wide) and the projector's
/// linear layers (projector[0 .. projectorLayers - 1] outputs, the last the language model's hidden; biases with
/// projectorBias; `activation` between them) make it a token of the language model. Qwen3-VL's deepstack mergers
/// (deepstack) are more such projectors, each with a LayerNorm over the merged width first, fed by earlier blocks.
struct VisionShape
{
    int64_t layers = 0; ///< encoder blocks; 0: the model has no vision tower
    int64_t hidden = 0;
    int64_t heads = 0;
    int64_t ffn = 0;
    Activation activation = Activation::Gelu;
    int64_t patchInputs = 0;  ///< values one patch embeds: channels x temporal_patch_size x patch_size^2
    bool patchBias = true;    ///< the patch embedding has a bias (Llama 4's unfold-linear has none)
    int64_t patches = 0;      ///< patches per image (without the class token)
    bool classToken = false;  ///< a learned class token leads each image (Llama 4), dropped before the projector
    int64_t positionRows = 0; ///< learned position rows
    bool preNorm = false;     ///< a LayerNorm before the first block (Llama 4's layernorm_pre)
    bool postNorm = false;    ///< a LayerNorm after the last (SigLIP's post_layernorm, Llama 4's layernorm_post)
    int64_t merge = 1;        ///< patches per image token (Gemma 3: 4 x 4 pooled; Qwen3-VL and Llama 4: 2 x 2)
    bool mergePool = false;   ///< the merged patches are averaged (Gemma 3), not concatenated
    ProjectorNorm projectorNorm = ProjectorNorm::None;
    std::array<int64_t, 3>
        projector{}; ///< the projector's linear layers' outputs, the last the language model's hidden
    int64_t projectorLayers = 0;
    bool projectorBias = false;
    int64_t deepstack = 0; ///< Qwen3-VL's deepstack mergers (deepstack_visual_indexes)
    /// Every block rotates q and k by 2D rotary positions (Kimi K2.5's MoonViT: Rope2DPosEmbRepeated, on every
    /// element of each head); no weights.
    bool rotary = false;
    int64_t imageSize = 0; ///< the image side in pixels the patches come from (for the report; patches decide)
    bool present() const { return layers > 0; }
    /// Tokens the encoder attends over per image: its patches and the class token.
    int64_t encoderTokens() const { return patches + (classToken ? 1 : 0); }
    /// Image tokens one image becomes in the language model's prompt.
    int64_t tokensPerImage() const { return merge > 0 ? patches / merge : 0; }
    /// Width of a merged token, the projector's input.
    int64_t mergedWidth() const { return mergePool ? hidden : hidden * merge; }
};

struct LayerBlock; // below: one kind of layer

/// The shape of a transformer: everything that decides its parameter count, FLOPs and bytes.
/// Sizes are element counts. Parameter counting follows Hugging Face (`sum(p.numel())`), see paramCount().
struct ModelShape
{
    std::string id;     ///< lower-case with dashes: "llama-2-7b"
    std::string name;   ///< display name: "Llama 2 7B"
    std::string family; ///< "llama", "gpt2", "bert", "opt", "falcon", ...
    Architecture arch = Architecture::Decoder;

    int64_t layers = 0;
    int64_t hidden = 0;    ///< d_model
    int64_t heads = 0;     ///< query heads
    int64_t kvHeads = 0;   ///< key/value heads (== heads for MHA, 1 for MQA, in between for GQA)
    int64_t headDim = 0;   ///< may differ from hidden/heads (e.g. Gemma)
    int64_t ffn = 0;       ///< FFN inner width (per expert for MoE)
    bool gatedFfn = false; ///< SwiGLU/GeGLU: up and gate projections
    Activation activation = Activation::Gelu;
    int64_t vocab = 0;
    int64_t maxPositions = 0; ///< context the model was trained for
    PositionEncoding positions = PositionEncoding::Rotary;
    int64_t positionOffset = 0; ///< extra learned position rows (OPT: 2)
    int64_t tokenTypes = 0;     ///< BERT token-type embeddings (2), else 0
    /// A model of image patches (ViT): the values of one patch, num_channels x patch_size^2; 0 for a model of text
    /// tokens. Its embedding projects each patch linearly (patchInputs x hidden weights and a bias: the patch
    /// convolution, whose kernel and stride are the patch) instead of looking up a vocab x hidden table, and a learned
    /// class token (hidden weights) leads each image's patches. Such a model has no vocabulary: vocab 0.
    int64_t patchInputs = 0;
    bool tiedEmbeddings = false;
    bool headBias = false; ///< the LM head has a bias per vocabulary entry (Phi-3.5-MoE's lm_head_bias)
    NormKind norm = NormKind::RmsNorm;
    bool normBias = true; ///< a LayerNorm has a bias besides its weight (Cohere's has none); RMSNorm never has one
    bool embeddingNorm = false; ///< a norm right after the embeddings (BERT, Falcon-RW ...)
    bool qkvBias = false;
    bool outBias = false;
    bool ffnBias = false;
    bool parallelAttention = false; ///< attention and FFN read the same normed input (GPT-J, Falcon)
    bool sharedLayerNorm = false;   ///< with parallelAttention: one norm per layer instead of two
    /// A norm on the attention's and on the FFN's output too, before each residual add (Gemma 2: four RMSNorms per
    /// layer instead of two).
    bool postNorms = false;
    bool pooler = false; ///< an encoder's pooler on its first token (BERT, ViT): hidden x hidden + bias
    /// An encoder's norm after its last layer: a pre-norm encoder (ViT) has one, a post-norm encoder (BERT) ends on its
    /// last layer's own norm. A decoder always has its final norm, so only an encoder may set it.
    bool finalNorm = false;
    int64_t experts = 1;       ///< MoE experts per layer (1 = dense)
    int64_t activeExperts = 1; ///< experts each token is routed to
    /// MoE: inner width of the always-active shared expert FFN (Qwen2-MoE's shared_expert_intermediate_size,
    /// DeepSeek-MoE's n_shared_experts x moe_intermediate_size); 0 = none. Every token uses it, and expert
    /// parallelism replicates it on every rank instead of splitting it.
    int64_t sharedFfn = 0;
    bool sharedExpertGate = false; ///< a sigmoid gate (hidden x 1) scales the shared expert's output (Qwen2-MoE)
    int64_t slidingWindow = 0;     ///< attention window in tokens; 0 = full attention
    /// With slidingWindow: the window is chunked local attention (Llama 4): a token attends only to the earlier
    /// tokens of its own chunk of slidingWindow tokens, not to the slidingWindow tokens before it.
    bool chunkedAttention = false;
    /// With slidingWindow: every globalEvery-th layer (layers globalEvery - 1, 2 globalEvery - 1, ... counted from 0)
    /// attends to the whole context, the others use the window. Gemma 2 and gpt-oss: 2, Gemma 3: 6, Llama 4: 4.
    /// 0: every layer uses the window.
    int64_t globalEvery = 0;
    /// With globalEvery: the global layer leads each group of globalEvery (layers 0, globalEvery, 2 globalEvery, ...:
    /// Step-3.5's layer_types), instead of ending it.
    bool globalFirst = false;
    /// With globalEvery: the global layers have no positions, rotary positions rotate only the windowed layers' q and
    /// k (Cohere2: "a fourth layer uses global attention without positional embeddings").
    bool globalNoPositions = false;
    /// With globalEvery: the global layers' own attention (Gemma 4's full_attention layers, transformers'
    /// Gemma4TextAttention): a head size and KV heads of their own, and keys that are values.
    GlobalAttentionShape global;

    MixerKind mixer = MixerKind::Attention;
    MlaShape mla; ///< with MixerKind::Mla
    /// With MixerKind::Mla: a lightning indexer that makes every MLA layer sparse (LayerMixer::SparseLatent).
    IndexerShape indexer;
    /// Gated attention (Qwen3-Next's attn_output_gate): q_proj also projects a gate per query element, and the
    /// attention's output is multiplied by sigmoid(gate) before o_proj. q_proj is twice as wide.
    bool attentionOutputGate = false;
    /// A gate per head (Step-3.5's use_head_wise_attn_gate; vLLM's Step3p5Attention): g_proj (hidden -> heads, no
    /// bias) reads the layer's normed input, and each head's attention output is multiplied by sigmoid of its gate
    /// before o_proj.
    bool headWiseGate = false;
    /// Partial rotary positions (partial_rotary_factor): the share of each q and k head that is rotated (1: all).
    double rotaryFraction = 1;
    bool qkNorm = false; ///< an RMSNorm over each head's query and key (Qwen3, Gemma 3: head_dim weights each)
    /// An RMSNorm without weights over each head's values (Gemma 4's v_norm): FLOPs, no parameters.
    bool valueNorm = false;
    /// With qkNorm: the norms span the whole projected query (heads x head_dim weights) and key (kv_heads x head_dim),
    /// not one head (OLMo 2's q_norm and k_norm). The same FLOPs per element; more weights.
    bool qkNormFullWidth = false;
    bool attentionSinks = false; ///< one learned sink logit per head and layer (gpt-oss)
    /// Logit soft-capping, cap x tanh(x / cap) (Gemma 2: 50 on every attention score, 30 on every output logit); 0:
    /// none. No weights: they change FLOPs (and an unfused score matrix's bytes), not the parameter count.
    double attentionSoftcap = 0;
    double finalSoftcap = 0;

    /// State-space layers: with ssm.kind set, every layer's mixer is the SSM, except (hybrids) layer i with
    /// i % attentionEvery == attentionOffset, which attends. Jamba: attention in one layer of 8 (offset 4).
    /// A pure state-space model (Mamba) has no FFN: ffn 0.
    SsmShape ssm;
    /// Linear-attention layers (Qwen3-Next, Qwen3.5): with linear.keyHeads > 0, every layer's mixer is linear
    /// attention except layer i with i % attentionEvery == attentionOffset, which attends (full_attention_interval 4:
    /// layers 3, 7, ...). A model has state-space or linear-attention layers, not both.
    LinearAttentionShape linear;
    int64_t attentionEvery = 0;
    int64_t attentionOffset = 0;
    /// With linear attention: which layers attend, one character a layer ('L' linear attention, 'A' attention),
    /// repeated when shorter than the layers, in place of attentionEvery (which must then be 0). Kimi-Linear's
    /// full_attn_layers put attention on layers 3, 7, ..., 23 and on its last layer, 26: no period.
    std::string linearPattern;
    /// Layers of one part each (Nemotron-H's hybrid_override_pattern): one character per layer, repeated when shorter
    /// than the layers: 'M' the state-space mixer alone, '*' attention alone, '-' the FFN alone (of width denseFfn in
    /// a mixture of experts), 'E' the routed experts alone (with the shared expert and the router; Nemotron-3), each
    /// after its own norm and with its residual add. Empty: every layer has a mixer and an FFN (ffn 0: a mixer alone).
    std::string layerPattern;

    /// Heterogeneous layers, one block per layer (DeciLM / Nemotron-NAS block_configs): each layer's mixer (attention,
    /// with its own kvHeads where they differ, none, or a linear replacement), its FFN (dense of its own ffnWidth,
    /// none, or a linear replacement). Empty: the
    /// patterns here decide every layer's block. Attention layers have the shape's heads, and its kv_heads unless the
    /// block gives its own; `ffn` is the widest layer's width. Not combined with experts, state-space or
    /// linear-attention layers, a layer pattern, a window or MTP modules (validate()).
    std::vector<LayerBlock> layerBlocks;

    /// MoE layer pattern: layer i (from 0) has routed experts when i >= firstDenseLayers and i % moeEvery == moeOffset;
    /// the others have a dense FFN of width denseFfn. DeepSeek-V3: the first 3 layers dense; Llama 4 Maverick and
    /// Jamba: every second layer sparse (moeEvery 2, moeOffset 1). Uniform MoE models: 0, 1, 0.
    int64_t firstDenseLayers = 0;
    int64_t moeEvery = 1;
    int64_t moeOffset = 0;
    int64_t denseFfn = 0; ///< FFN width of a MoE model's dense layers
    /// Gemma 4's MoE block (enable_moe_block; transformers' Gemma4TextDecoderLayer): every MoE layer also runs a dense
    /// MLP of width denseFfn beside its routed experts (LayerFfn::DenseAndMoe). The MLP reads the FFN's pre-norm; the
    /// experts read the layer's input through a pre-norm of their own (pre_feedforward_layernorm_2); each branch's
    /// output is RMS-normed (post_feedforward_layernorm_1 and _2) and the two summed before the FFN's post-norm: three
    /// more norms of hidden weights. The router (Gemma4TextRouter) RMS-norms its input without weights, scales it by a
    /// weight per channel (scale, hidden) and each chosen expert's weight by one per expert (per_expert_scale).
    bool moeBesideDense = false;
    /// Gemma 4 E2B/E4B's KV sharing (num_kv_shared_layers; transformers' Gemma4TextAttention): the last
    /// kvSharedLayers layers compute no keys or values (no k_proj, v_proj, k_norm) and cache nothing: each attends
    /// over the cache of the last earlier layer of its own kind (sliding or full), which every shared layer still
    /// reads. With doubleWideSharedFfn (use_double_wide_mlp) their dense MLP is twice ffn wide.
    int64_t kvSharedLayers = 0;
    bool doubleWideSharedFfn = false;
    /// Gemma 4 E2B/E4B's per-layer embeddings (hidden_size_per_layer_input, vocab_size_per_layer_input;
    /// Gemma4TextModel): a table of perLayerVocab rows of layers x perLayerInput (each token reads its row), the
    /// model projection (hidden -> layers x perLayerInput, no bias) and its RMSNorm (perLayerInput) on the
    /// embeddings' side; in each layer, after the FFN's residual, a gate (hidden -> perLayerInput, no bias), its
    /// activation times the layer's slice, a projection back (perLayerInput -> hidden) and an RMSNorm (hidden).
    /// 0: none.
    int64_t perLayerInput = 0;
    int64_t perLayerVocab = 0;
    bool routerBias = false; ///< the router has a bias per expert (DeepSeek-V3's e_score_correction_bias)
    /// Gemma 3n's KV-sharing layers (ModelShape::kvSharedLayers) keep their k_proj, v_proj and k_norm weights,
    /// unused: transformers' Gemma3nTextAttention builds them in every layer and the checkpoint stores them. They
    /// count in the parameters and the memory; no operator reads them. Gemma 4's sharing layers have none.
    bool sharedKvKeepsWeights = false;
    /// Gemma 3n's AltUp (altup_num_inputs; transformers' Gemma3nTextAltUp and Gemma3nTextModel): the hidden state is
    /// altupInputs streams of hidden each. The model projects the embedding into the other altupInputs - 1 streams
    /// (altup_projections, hidden x hidden each, no bias) and back before the final norm (altup_unembed_projections),
    /// each stream rescaled to the first one's RMS magnitude, and the streams averaged. Each layer predicts the
    /// streams from one another (router_norm RMSNorm of hidden, modality_router hidden -> altupInputs, tanh,
    /// prediction_coefs altupInputs -> altupInputs^2, no biases), runs on the active stream, corrects the streams with
    /// the layer's output (correction_coefs altupInputs -> altupInputs) and scales the active one
    /// (correct_output_scale, hidden; with altupCorrectScale). 0: none.
    int64_t altupInputs = 0;
    bool altupCorrectScale = true;
    /// Gemma 3n's LAuReL (laurel_rank; Gemma3nTextLaurelBlock): in each layer, beside attention, linear_left
    /// (hidden -> rank) and linear_right (rank -> hidden) without biases on the normed input, an RMSNorm
    /// (post_laurel_norm, hidden), added to the input and then to the attention's residual, scaled by 1/sqrt(2).
    /// 0: none.
    int64_t laurelRank = 0;
    /// Gemma 3n's activation sparsity (activation_sparsity_pattern; Gemma3nTextMLP._gaussian_topk): the first
    /// sparseFfnLayers layers keep the gate's values above mean + std x icdf(sparsity) of each token's gate output
    /// (relu(x - cutoff)). transformers computes the down projection densely, so the matmuls stay dense; the
    /// statistics and the cut are elementwise work over the gate's outputs.
    int64_t sparseFfnLayers = 0;

    /// Multi-token-prediction modules (DeepSeek-V3's and GLM-4.5's num_nextn_predict_layers, MiMo's
    /// num_nextn_predict_layers): each an RMSNorm of the next token's embedding and one of the hidden state (enorm,
    /// hnorm), a projection of the two concatenated (eh_proj, 2 hidden x hidden, no bias), one decoder layer like the
    /// model's next one (layer index layers + j), and an RMSNorm before the shared LM head. Not part of the
    /// *ForCausalLM model: counted apart in ParamCounts::mtp, and loaded only to draft tokens (draft_model mtp).
    int64_t mtpLayers = 0;
    /// Each module's checkpoint also stores a copy of the embedding and the LM head (DeepSeek-V3's
    /// model.layers.61.embed_tokens and shared_head.head): ParamCounts::mtpCopies.
    bool mtpStoresCopies = false;
    /// With mtpStoresCopies: each module stores its own LM head but no copy of the embedding (Step-3.5's
    /// shared_head.output; the predictor reads the model's embed_tokens).
    bool mtpSharesEmbedding = false;
    /// The modules' decoder layer has a dense FFN of width dense_ffn even where the model's next layer would have
    /// routed experts (Step-3.5: moe_layers_enum lists only the model's own layers).
    bool mtpDenseFfn = false;
    /// The formats the checkpoint's quantization_config declares (core/io/hfquant.cpp): the weights' and the routed
    /// experts', when it quantizes them, and whether the embedding and LM head stay 16-bit. adaptToModel() makes them
    /// the scenario's formats unless the user chose others.
    std::optional<WeightFormat> checkpointWeights;
    std::optional<WeightFormat> checkpointExpertWeights;
    bool checkpointUnquantizedEmbeddings = false;
    bool checkpointZeroPoints = false; ///< asymmetric groups: a zero point per group (AWQ, GPTQ with sym false)
    /// The format the model keeps its recurrent state in, where the config declares one (Qwen3.5's mamba_ssm_dtype,
    /// Nemotron-3's mamba_ssm_cache_dtype: float32, as vLLM and SGLang then allocate it): a state-space layer's
    /// d_inner x d_state and a Gated DeltaNet layer's key x value matrix per head. The convolution's last inputs stay
    /// in the KV cache's format. Unset: the whole state in the KV cache's format.
    std::optional<DType> stateFormat;

    /// A multimodal wrapper's vision tower and projector (VisionShape::present()), counted in ParamCounts::vision.
    VisionShape vision;

    int64_t qDim() const { return heads * headDim; }
    int64_t kvDim() const { return kvHeads * headDim; }
    bool isMoe() const { return experts > 1; }
    bool hasLinearAttention() const { return linear.keyHeads > 0; }
    bool hasIndexer() const { return indexer.heads > 0; }
};

/// The token mixer of one layer: what its kind reads and keeps per sequence.
enum class LayerMixer : uint8_t {
    Attention, ///< attention over the whole context, a K/V cache per token (MHA, GQA, MQA)
    Sliding,   ///< attention over the last `window` tokens (a sliding window): at most `window` tokens cached
    Chunked,   ///< attention within chunks of `window` tokens (Llama 4): at most one chunk cached
    Latent,    ///< multi-head latent attention (DeepSeek-V2/V3): one compressed latent per token cached
    /// MLA with a lightning indexer (DeepSeek-V3.2, GLM-5): the latent and an indexer key cached per token; the
    /// indexer scores every earlier token, attention reads the top_k latents
    SparseLatent,
    LinearRecurrent, ///< linear attention (Gated DeltaNet): a fixed state per sequence, a recurrence in decode
    Ssm,             ///< a state-space mixer (Mamba): a fixed state per sequence
    None,            ///< no mixer: an FFN alone (Nemotron-H's '-' and 'E' layers, DeciLM's no_op attention)
    /// attention replaced by one hidden x hidden matrix without a bias, after the layer's norm (DeciLM's
    /// replace_with_linear: self_attn.linear_attn): no cache, nothing mixed between tokens
    Linear,
};
/// The FFN of one layer.
enum class LayerFfn : uint8_t {
    Dense, ///< one FFN (a MoE model's dense layers: of width dense_ffn)
    Moe,   ///< routed experts, with the shape's shared experts and their gate
    /// a dense FFN (of width dense_ffn) and the routed experts side by side, their outputs summed (Gemma 4's MoE block,
    /// ModelShape::moeBesideDense)
    DenseAndMoe,
    None, ///< no FFN: a mixer alone (Mamba, Nemotron-H's 'M' and '*' layers, DeciLM's no_op FFN)
    /// the FFN replaced by one hidden x hidden matrix without a bias, after the layer's norm (DeciLM's
    /// replace_with_linear: mlp.linear_mlp)
    Linear,
};
std::string_view toString(LayerMixer k);
std::string_view toString(LayerFfn k);
std::optional<LayerMixer> layerMixerFromString(std::string_view s);
std::optional<LayerFfn> layerFfnFromString(std::string_view s);

/// One kind of layer of a model: its mixer, its FFN and (attention) its window.
struct LayerBlock
{
    LayerMixer mixer = LayerMixer::Attention;
    LayerFfn ffn = LayerFfn::Dense;
    int64_t window = 0; ///< Sliding and Chunked: the window or chunk in tokens; 0: the whole context
    /// Dense: this layer's own FFN width (DeciLM's ffn_mult per layer, ModelShape::layerBlocks); 0: the shape's (ffn,
    /// or dense_ffn in a mixture of experts).
    int64_t ffnWidth = 0;
    /// Attention: this layer's own KV heads (DeciLM's num_attention_heads / n_heads_in_group per layer,
    /// ModelShape::layerBlocks); 0: the shape's kv_heads.
    int64_t kvHeads = 0;
    /// The layer reads an earlier layer's keys and values and caches none (ModelShape::kvSharedLayers)
    bool sharesKv = false;
    /// The layer attends, and so caches per token: attention of any kind.
    bool attends() const
    {
        return mixer == LayerMixer::Attention || mixer == LayerMixer::Sliding || mixer == LayerMixer::Chunked ||
               mixer == LayerMixer::Latent || mixer == LayerMixer::SparseLatent;
    }
    /// The layer keeps a fixed state per sequence instead of a per-token cache.
    bool keepsState() const { return mixer == LayerMixer::Ssm || mixer == LayerMixer::LinearRecurrent; }
    /// The layer has routed experts (alone, or beside a dense FFN).
    bool routed() const { return ffn == LayerFfn::Moe || ffn == LayerFfn::DenseAndMoe; }
    /// The layer has a dense FFN (alone, or beside routed experts).
    bool dense() const { return ffn == LayerFfn::Dense || ffn == LayerFfn::DenseAndMoe; }
    bool operator==(const LayerBlock &) const = default;
};

/// Layers of one kind, in the order their kind first appears in the model.
struct LayerGroup
{
    LayerBlock block;
    int64_t count = 0;
    int64_t firstLayer = 0; ///< the first layer (0-based) of this kind
};

/// A model's layers grouped by kind, any number of kinds. Analyses build one each (a search builds millions), so the
/// first kInline groups are held inline; a model with more kinds moves them all to the heap, once.
class LayerGroups
{
public:
    static constexpr std::size_t kInline = 8;
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const LayerGroup &operator[](std::size_t i) const { return data()[i]; }
    LayerGroup &operator[](std::size_t i) { return data()[i]; }
    const LayerGroup *begin() const { return data(); }
    const LayerGroup *end() const { return data() + m_size; }
    LayerGroup *begin() { return data(); }
    LayerGroup *end() { return data() + m_size; }
    /// Appends a group: inline while there is room, else every group on the heap.
    void push(const LayerGroup &g);

private:
    const LayerGroup *data() const { return m_heap.empty() ? m_inline.data() : m_heap.data(); }
    LayerGroup *data() { return m_heap.empty() ? m_inline.data() : m_heap.data(); }
    std::array<LayerGroup, kInline> m_inline{};
    std::vector<LayerGroup> m_heap; ///< all the groups, once there are more than kInline
    std::size_t m_size = 0;
};

/// The block of layer `i` (0-based) of `m`: its window and its FFN, from the shape's layer pattern.
LayerBlock layerBlock(const ModelShape &m, int64_t i);
/// The decoder layer of multi-token-prediction module `j` (0-based): the layer that would follow the model's last
/// (layerBlock(m, layers + j)), with a dense FFN under ModelShape::mtpDenseFfn.
LayerBlock mtpBlock(const ModelShape &m, int64_t j);
/// The widths of an attention layer (not MLA): its query heads, KV heads and head size, and whether it projects
/// values (else the key projection's output is the value too).
struct AttentionWidths
{
    int64_t heads = 0;
    int64_t kvHeads = 0;
    int64_t headDim = 0;
    bool valueProjection = true;
    double rotaryFraction = 1; ///< the share of each q and k head rotated
    int64_t qDim() const { return heads * headDim; }
    int64_t kvDim() const { return kvHeads * headDim; }
    bool operator==(const AttentionWidths &) const = default;
};
/// The widths of the layers of kind `b`: the shape's, but a model's global layers (mixer Attention, the whole context,
/// with globalEvery) take ModelShape::global's where it sets them (Gemma 4, Step-3.5), and a layer with its own KV
/// heads (LayerBlock::kvHeads, DeciLM) its own. Inline: the counts and the KV cache ask it for every kind of layer at
/// every analysis.
inline AttentionWidths attentionWidths(const ModelShape &m, const LayerBlock &b)
{
    AttentionWidths w{m.heads, b.kvHeads > 0 ? b.kvHeads : m.kvHeads, m.headDim, true, m.rotaryFraction}; // DeciLM
    if (m.global.present() && m.globalEvery > 0 && b.mixer == LayerMixer::Attention) {
        const GlobalAttentionShape &g = m.global;
        w.heads = g.heads > 0 ? g.heads : m.heads;
        w.kvHeads = g.kvHeads > 0 ? g.kvHeads : m.kvHeads;
        w.headDim = g.headDim > 0 ? g.headDim : m.headDim;
        w.valueProjection = !g.keyIsValue;
        w.rotaryFraction = g.rotaryFraction > 0 ? g.rotaryFraction : m.rotaryFraction;
    }
    return w;
}
/// The width of layer kind b's dense FFN: its own (LayerBlock::ffnWidth, DeciLM), else ffn (dense_ffn in a mixture of
/// experts), twice that in a layer sharing its keys and values with ModelShape::doubleWideSharedFfn (Gemma 4
/// E2B/E4B's Gemma4TextMLP).
int64_t denseFfnWidth(const ModelShape &m, const LayerBlock &b);
/// KV heads one of `tp` tensor-parallel devices holds of `kvHeads`: kvHeads / tp, or one (replicated) when tp exceeds
/// them.
double kvHeadsOnDevice(int64_t kvHeads, int tp);
/// The model's layers grouped by kind, in the order of each kind's first layer; one group for a model whose layers
/// are all alike. Counts sum to m.layers.
LayerGroups layerGroups(const ModelShape &m);
/// Elements of the cache one token adds to one layer of kind `b`: 2 x kv_heads x head_dim for attention (K and V, of
/// the layer's widths: attentionWidths()), kv_lora_rank + qk_rope_head_dim for MLA, 0 for a layer that does not
/// attend. On one of `tp` tensor-parallel devices: tp splits the KV heads (kvHeadsOnDevice()); MLA's latent is not
/// split: every rank caches all of it.
double cachedElementsPerToken(const ModelShape &m, const LayerBlock &b, int tp);
/// Cache elements of one sequence of `tokens` tokens over the layers `groups` (a window caps its layers' share;
/// chunked attention keeps at most one chunk), on one of `tp` devices. The one KV-cache formula.
double cachedElements(const ModelShape &m, const LayerGroups &groups, double tokens, int tp);
/// Bytes of the indexer keys one sequence of `tokens` tokens caches over the layers `groups` (sparse-latent layers
/// only; IndexerShape::keyBytesPerToken() each, not split by tensor parallelism). 0 for a model without an indexer.
double indexerKeyBytes(const ModelShape &m, const LayerGroups &groups, double tokens);
/// Layers of `groups` whose mixer is sparse latent attention (an indexer).
int64_t sparseLatentLayers(const LayerGroups &groups);
/// State elements one sequence keeps in one state-space layer, whatever its length: d_inner x d_state of the scan
/// and (d_conv - 1) x conv_dim of the convolution, with `tp` splitting the channels (Mamba-2's groups are split
/// when tp divides them, else every rank keeps them all). The one state formula.
double stateElements(const ModelShape &m, int tp);
/// State elements one sequence keeps in one linear-attention layer, whatever its length: value_heads x key_head_dim x
/// value_head_dim of the recurrence and (conv_kernel - 1) x conv_dim of the convolution, tp splitting the heads.
double linearStateElements(const ModelShape &m, int tp);
/// The recurrent part of stateElements(): d_inner x d_state a sequence and layer (the rest is the convolution's).
double ssmRecurrentElements(const ModelShape &m, int tp);
/// The recurrent part of linearStateElements(): value_heads x key_head_dim x value_head_dim (the rest is the
/// convolution's).
double linearRecurrentElements(const ModelShape &m, int tp);
/// A state-space layer's widths on one of `tp` tensor-parallel devices: tp splits the channels and heads, and the
/// groups when it divides them (else every rank keeps them all).
struct SsmWidths
{
    double inner = 0;  ///< d_inner channels
    double state = 0;  ///< d_state
    double heads = 0;  ///< Mamba-2 heads
    double groups = 0; ///< Mamba-2 groups of B and C
    double conv = 0;   ///< convolved channels per token (Mamba-2: x, B and C; Mamba-1: x)
    double inProj = 0; ///< in_proj's outputs per token (Mamba-2: z, x, B, C, dt; Mamba-1: x, z)
};
SsmWidths ssmWidths(const ModelShape &m, int tp);
/// Layers of `groups` whose mixer is the state-space layer.
int64_t ssmLayers(const LayerGroups &groups);
/// Layers of `groups` whose mixer is linear attention.
int64_t linearLayers(const LayerGroups &groups);
/// Layers of `groups` that attend (LayerBlock::attends()): the ones with a KV cache.
int64_t attentionLayers(const LayerGroups &groups);

/// Parameters of a vision tower and its projector (VisionShape): the tower's own (visionTowerParams) and the
/// projector's with the deepstack mergers.
int64_t visionTowerParams(const VisionShape &v);
int64_t visionProjectorParams(const VisionShape &v);

/// Parameters counted the Hugging Face way: embeddings (+ learned positions incl. offset, + token types; or a patch
/// model's projection and class token), every layer's attention and FFN weights and biases, norms (LayerNorm: weight
/// and bias; RMSNorm: weight), MoE router, final norm (an encoder's only with finalNorm), the LM head unless tied, and
/// the pooler when present.
struct ParamCounts
{
    int64_t embedding = 0; ///< token (or patch and class token), position and token-type embeddings (+ norm)
    /// Of embedding: the per-layer embeddings' table (ModelShape::perLayerInput), of which a token reads one row
    int64_t perLayerTable = 0;
    int64_t perLayer = 0;       ///< one layer, all experts (routed and shared)
    int64_t perLayerActive = 0; ///< one layer, the experts a token uses (its routed ones and the shared one)
    int64_t perLayerRouted = 0; ///< one layer's routed experts: the weights expert parallelism splits
    // perLayer* describe the model's last layer; these sum over all layers, whatever their kinds.
    int64_t layers = 0;       ///< all layers
    int64_t layersActive = 0; ///< all layers, the experts a token uses
    int64_t routed = 0;       ///< all layers' routed experts
    int64_t head = 0;         ///< final norm, untied LM head, pooler
    /// Gemma 3n's AltUp projections into and out of the extra streams (ModelShape::altupInputs): in total and active.
    int64_t altup = 0;
    int64_t total = 0;
    int64_t active = 0; ///< parameters one token touches (MoE: activeExperts of experts)
    /// The multi-token-prediction modules (ModelShape::mtpLayers), not in total: their norms, projection, decoder
    /// layer and head norm; mtpRouted of it in routed experts. mtpCopies: the embedding and head copies the checkpoint
    /// stores in them. checkpoint = total + mtp + mtpCopies, what the checkpoint's tensors hold.
    int64_t mtp = 0;
    int64_t mtpRouted = 0;
    int64_t mtpCopies = 0;
    int64_t checkpoint = 0;
    /// A multimodal wrapper's vision tower and projector (ModelShape::vision), in total but not in active (a text
    /// token does not touch them); split by tp like the layers.
    int64_t vision = 0;
};
ParamCounts paramCount(const ModelShape &m);
/// Parameters Gemma 3n's AltUp (ModelShape::altupInputs) and LAuReL (laurelRank) add to each layer.
int64_t altupLayerParams(const ModelShape &m);
/// The same from the model's layerGroups(), when the caller has them (analyze() does).
ParamCounts paramCount(const ModelShape &m, const LayerGroups &groups);

/// What is wrong with a shape: one line naming the fields and values, and the fields it is about (keys of the
/// preset schema, the one to change first), so that an editor marks them without reading the line.
struct ShapeIssue
{
    std::vector<std::string> fields; ///< {"heads", "kv_heads"}; empty when no single field is to blame
    std::string message;             ///< "heads (32) must be a multiple of kv_heads (5)"; empty if the shape is fine
    bool empty() const { return message.empty(); }
};

/// The largest value any size field of a shape may take (2^31). Far beyond any published model, and it keeps
/// paramCount() (int64) and every product derived from it far from overflow; importers check it as they read.
constexpr int64_t kMaxShapeField = int64_t(1) << 31;
/// The longest period of a layer pattern (global_every, moe_every, attention_every, layer_pattern): layerGroups() walks
/// one period of all of them together, which validate() keeps below kMaxPatternPeriod too.
constexpr int64_t kMaxPatternPeriod = 1024;

/// Why `m` cannot be split over `tp` tensor-parallel devices (tp must divide the heads, the FFN widths, and the KV
/// heads or be divided by them), in one line; empty if it can.
std::string tensorParallelIssue(const ModelShape &m, int tp);

/// Checks the shape for consistency; an empty issue if fine.
ShapeIssue validate(const ModelShape &m);

} // namespace memwall::core
