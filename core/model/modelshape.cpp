#include "core/model/modelshape.h"

#include "core/util/enumnames.h"

#include <array>
#include <utility>

namespace memwall::core {

namespace {
constexpr NameTable<Architecture, 2> kArch{{{Architecture::Decoder, "decoder"}, {Architecture::Encoder, "encoder"}}};
constexpr NameTable<PositionEncoding, 4> kPos{{{PositionEncoding::Learned, "learned"},
                                               {PositionEncoding::Rotary, "rotary"},
                                               {PositionEncoding::Alibi, "alibi"},
                                               {PositionEncoding::None, "none"}}};
constexpr NameTable<NormKind, 2> kNorm{{{NormKind::LayerNorm, "layernorm"}, {NormKind::RmsNorm, "rmsnorm"}}};
constexpr NameTable<Activation, 3> kAct{
    {{Activation::Gelu, "gelu"}, {Activation::Silu, "silu"}, {Activation::Relu, "relu"}}};
} // namespace

std::string_view toString(Architecture a) { return enumName(kArch, a); }
std::string_view toString(PositionEncoding p) { return enumName(kPos, p); }
std::string_view toString(NormKind n) { return enumName(kNorm, n); }
std::string_view toString(Activation a) { return enumName(kAct, a); }
std::optional<Architecture> architectureFromString(std::string_view s) { return enumFromName(kArch, s); }
std::optional<PositionEncoding> positionEncodingFromString(std::string_view s) { return enumFromName(kPos, s); }
std::optional<NormKind> normKindFromString(std::string_view s) { return enumFromName(kNorm, s); }
std::optional<Activation> activationFromString(std::string_view s) { return enumFromName(kAct, s); }

ParamCounts paramCount(const ModelShape &m)
{
    const int64_t h = m.hidden;
    const int64_t normParams = m.norm == NormKind::LayerNorm ? 2 * h : h;

    ParamCounts p;
    p.embedding = m.vocab * h;
    if (m.positions == PositionEncoding::Learned)
        p.embedding += (m.maxPositions + m.positionOffset) * h;
    p.embedding += m.tokenTypes * h;
    if (m.embeddingNorm)
        p.embedding += normParams;

    const int64_t q = m.qDim(), kv = m.kvDim();
    int64_t attn = h * (q + 2 * kv) + q * h;
    if (m.qkvBias)
        attn += q + 2 * kv;
    if (m.outBias)
        attn += h;

    int64_t expert = (m.gatedFfn ? 3 : 2) * h * m.ffn;
    if (m.ffnBias)
        expert += (m.gatedFfn ? 2 : 1) * m.ffn + h;
    const int64_t router = m.isMoe() ? h * m.experts : 0;
    // The shared expert is one more FFN of width sharedFfn (with the routed experts' biases), plus its gate.
    int64_t shared = 0;
    if (m.sharedFfn > 0) {
        shared = (m.gatedFfn ? 3 : 2) * h * m.sharedFfn + (m.sharedExpertGate ? h : 0);
        if (m.ffnBias)
            shared += (m.gatedFfn ? 2 : 1) * m.sharedFfn + h;
    }
    const int64_t norms = ((m.parallelAttention && m.sharedLayerNorm ? 1 : 2) + (m.postNorms ? 2 : 0)) * normParams;

    p.perLayerRouted = m.isMoe() ? expert * m.experts : 0;
    p.perLayer = attn + expert * m.experts + shared + router + norms;
    p.perLayerActive = attn + expert * m.activeExperts + shared + router + norms;

    p.head = normParams; // final norm (BERT has none after the last layer: see below)
    if (m.arch == Architecture::Encoder)
        p.head = 0; // post-norm encoders end on the layer's own norm
    if (!m.tiedEmbeddings && m.arch == Architecture::Decoder)
        p.head += m.vocab * h;
    if (m.pooler)
        p.head += h * h + h;

    p.total = p.embedding + m.layers * p.perLayer + p.head;
    p.active = p.embedding + m.layers * p.perLayerActive + p.head;
    return p;
}

ShapeIssue validate(const ModelShape &m)
{
    for (auto [f, v] : {std::pair{"layers", m.layers},
                        {"hidden", m.hidden},
                        {"heads", m.heads},
                        {"kv_heads", m.kvHeads},
                        {"head_dim", m.headDim},
                        {"ffn", m.ffn},
                        {"vocab", m.vocab},
                        {"experts", m.experts},
                        {"active_experts", m.activeExperts}})
        if (v <= 0)
            return {{f}, std::string(f) + " must be positive, got " + std::to_string(v)};
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
    ShapeIssue negative{
        {}, "max_positions, position_offset, token_types, sliding_window and shared_ffn must not be negative"};
    for (auto [f, v] : {std::pair{"max_positions", m.maxPositions},
                        {"position_offset", m.positionOffset},
                        {"token_types", m.tokenTypes},
                        {"sliding_window", m.slidingWindow},
                        {"shared_ffn", m.sharedFfn}})
        if (v < 0)
            negative.fields.emplace_back(f);
    if (!negative.fields.empty())
        return negative;
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
                        {"experts", m.experts},
                        {"max_positions", m.maxPositions},
                        {"position_offset", m.positionOffset},
                        {"token_types", m.tokenTypes},
                        {"sliding_window", m.slidingWindow},
                        {"shared_ffn", m.sharedFfn}})
        if (v > kMaxShapeField)
            return {{f}, std::string(f) + " is implausibly large, got " + std::to_string(v)};
    const double h = static_cast<double>(m.hidden), q = static_cast<double>(m.heads) * static_cast<double>(m.headDim);
    const double ffn = static_cast<double>(m.ffn), experts = static_cast<double>(m.experts);
    const double ffnTotal = ffn * experts + static_cast<double>(m.sharedFfn);
    const double perLayer = h * (2 * q + 2 * q) + 3 * h * ffnTotal + 2 * ffnTotal + h * experts + 7 * h;
    const double rows = static_cast<double>(m.vocab + m.maxPositions + m.positionOffset + m.tokenTypes);
    const double estimate = static_cast<double>(m.layers) * perLayer + 2 * rows * h + h * h + 10 * h;
    if (estimate > 1e15)
        return {{},
                "the shape is implausibly large: about " + std::to_string(static_cast<long long>(estimate / 1e12)) +
                    " T parameters (the limit is 1000 T)"};
    return {};
}

} // namespace memwall::core
