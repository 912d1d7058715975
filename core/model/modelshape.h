#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

enum class Architecture { Decoder, Encoder };
enum class PositionEncoding { Learned, Rotary, Alibi, None };
enum class NormKind { LayerNorm, RmsNorm };
enum class Activation { Gelu, Silu, Relu };

std::string_view toString(Architecture a);
std::string_view toString(PositionEncoding p);
std::string_view toString(NormKind n);
std::string_view toString(Activation a);
std::optional<Architecture> architectureFromString(std::string_view s);
std::optional<PositionEncoding> positionEncodingFromString(std::string_view s);
std::optional<NormKind> normKindFromString(std::string_view s);
std::optional<Activation> activationFromString(std::string_view s);

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
    bool tiedEmbeddings = false;
    NormKind norm = NormKind::RmsNorm;
    bool embeddingNorm = false; ///< a norm right after the embeddings (BERT, Falcon-RW ...)
    bool qkvBias = false;
    bool outBias = false;
    bool ffnBias = false;
    bool parallelAttention = false; ///< attention and FFN read the same normed input (GPT-J, Falcon)
    bool sharedLayerNorm = false;   ///< with parallelAttention: one norm per layer instead of two
    /// A norm on the attention's and on the FFN's output too, before each residual add (Gemma 2: four RMSNorms per
    /// layer instead of two).
    bool postNorms = false;
    bool pooler = false;       ///< BERT pooler dense layer (hidden x hidden + bias)
    int64_t experts = 1;       ///< MoE experts per layer (1 = dense)
    int64_t activeExperts = 1; ///< experts each token is routed to
    /// MoE: inner width of the always-active shared expert FFN (Qwen2-MoE's shared_expert_intermediate_size,
    /// DeepSeek-MoE's n_shared_experts x moe_intermediate_size); 0 = none. Every token uses it, and expert
    /// parallelism replicates it on every rank instead of splitting it.
    int64_t sharedFfn = 0;
    bool sharedExpertGate = false; ///< a sigmoid gate (hidden x 1) scales the shared expert's output (Qwen2-MoE)
    int64_t slidingWindow = 0;     ///< attention window in tokens; 0 = full attention

    int64_t qDim() const { return heads * headDim; }
    int64_t kvDim() const { return kvHeads * headDim; }
    bool isMoe() const { return experts > 1; }
};

/// Parameters counted the Hugging Face way: embeddings (+ learned positions incl. offset, + token types), every
/// layer's attention and FFN weights and biases, norms (LayerNorm: weight and bias; RMSNorm: weight), MoE router,
/// final norm, the LM head unless tied, and the pooler when present.
struct ParamCounts
{
    int64_t embedding = 0;      ///< token, position and token-type embeddings (+ embedding norm)
    int64_t perLayer = 0;       ///< one layer, all experts (routed and shared)
    int64_t perLayerActive = 0; ///< one layer, the experts a token uses (its routed ones and the shared one)
    int64_t perLayerRouted = 0; ///< one layer's routed experts: the weights expert parallelism splits
    int64_t head = 0;           ///< final norm, untied LM head, pooler
    int64_t total = 0;
    int64_t active = 0; ///< parameters one token touches (MoE: activeExperts of experts)
};
ParamCounts paramCount(const ModelShape &m);

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

/// Checks the shape for consistency; an empty issue if fine.
ShapeIssue validate(const ModelShape &m);

} // namespace memwall::core
