// Step-3.5 (model_type "step3p5": Step-3.5-Flash; vLLM's model_executor/models/step3p5.py and step3p5_mtp.py): a
// mixture of experts whose sliding-window layers have more query heads than its full-attention ones.
#include "core/io/hfimport.h"

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace memwall::core::hf {

namespace {

using json = nlohmann::json;

/// A per-layer list (layer_types, partial_rotary_factors), which must cover at least the model's layers; entries past
/// them describe the MTP modules' layers.
const json &perLayerList(JsonReader &r, std::string_view key, int64_t layers)
{
    const json &list = r.array(key);
    if (static_cast<int64_t>(list.size()) < layers)
        r.fail(key, "has " + std::to_string(list.size()) + " entries for " + std::to_string(layers) + " layers");
    return list;
}

/// The period P of layer_types' full-attention layers, which must lead each group of P (layers 0, P, 2P, ..., the
/// MTP modules' entries included), the others "sliding_attention"; 1 when every layer attends to the whole context.
int64_t fullFirstPeriod(JsonReader &r, int64_t layers)
{
    const json &types = perLayerList(r, "layer_types", layers);
    std::vector<bool> full;
    for (const json &t : types) {
        if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
            r.fail("layer_types", "expected \"sliding_attention\" or \"full_attention\", got " + brief(t));
        full.push_back(t == "full_attention");
    }
    if (!full[0])
        r.fail("layer_types", "layer 0 slides: only full attention leading each group (0, P, 2P, ...) is modelled");
    for (std::size_t p = 1; p <= full.size() && static_cast<int64_t>(p) <= kMaxPatternPeriod; ++p) {
        bool fits = true;
        for (std::size_t i = 0; i < full.size() && fits; ++i)
            fits = full[i] == (i % p == 0);
        if (fits)
            return static_cast<int64_t>(p);
    }
    r.fail("layer_types", "the full-attention layers are not every n-th layer from 0; such a pattern is not modelled");
}

/// The rotated share of the full-attention layers and of the sliding ones (partial_rotary_factors, one a layer),
/// each the same over its kind; absent: all of each head.
std::pair<double, double> rotaryShares(JsonReader &r, const ModelShape &m)
{
    if (!r.has("partial_rotary_factors"))
        return {1.0, 1.0};
    const json &list = perLayerList(r, "partial_rotary_factors", m.layers);
    double full = 0, sliding = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const json &v = list[i];
        if (!v.is_number() || !(v.get<double>() > 0 && v.get<double>() <= 1))
            r.fail("partial_rotary_factors", "expected shares above 0 and at most 1, got " + brief(v));
        const bool isFull = m.globalEvery > 0 && static_cast<int64_t>(i) % m.globalEvery == 0;
        double &kind = isFull ? full : sliding;
        if (kind != 0 && kind != v.get<double>())
            r.fail("partial_rotary_factors", "layer " + std::to_string(i) + "'s " + brief(v) +
                                                 " differs from the other " +
                                                 (isFull || m.slidingWindow == 0 ? "full" : "sliding") +
                                                 "-attention layers': one share per kind is modelled");
        kind = v.get<double>();
    }
    return {full > 0 ? full : 1.0, sliding > 0 ? sliding : 1.0};
}

/// The attention of both kinds: the config's heads and KV heads are the full-attention layers';
/// attention_other_setting gives the sliding layers' (Step3p5DecoderLayer), which are the shape's own.
void readStepAttention(JsonReader &r, ModelShape &m, ImportLog &log)
{
    if (r.string("att_impl_type", "GQA") != "GQA")
        r.fail("att_impl_type", "only GQA attention is modelled, got '" + r.string("att_impl_type") + "'");
    const int64_t fullHeads = m.heads;
    const int64_t fullKv = requiredSize(r, {"num_attention_groups"});
    m.headDim = requiredSize(r, {"head_dim"});
    m.slidingWindow = slidingWindow(r, "sliding_window", 0);
    const int64_t period = r.has("layer_types") && m.slidingWindow > 0 ? fullFirstPeriod(r, m.layers) : 0;
    if (period == 1) // every layer full: the window is unused
        m.slidingWindow = 0;
    m.globalEvery = period > 1 ? period : 0;
    m.globalFirst = m.globalEvery > 0;
    m.kvHeads = fullKv;
    if (m.globalEvery > 0 && r.has("attention_other_setting")) {
        JsonReader other = r.object("attention_other_setting");
        if (other.string("attention_type") != "sliding_attention")
            other.fail("attention_type", "only the sliding layers' own setting is modelled, got '" +
                                             other.string("attention_type") + "'");
        m.heads = requiredSize(other, {"num_attention_heads"});
        m.kvHeads = requiredSize(other, {"num_attention_groups"});
        if (optionalSize(other, {"head_dim"}, m.headDim) != m.headDim)
            other.fail("head_dim", "a head size of the sliding layers' own is not modelled");
        m.global.heads = fullHeads == m.heads ? 0 : fullHeads;
        m.global.kvHeads = fullKv == m.kvHeads ? 0 : fullKv;
    }
    checkKvHeads(r, m, "num_attention_groups", "num_attention_heads");
    const auto [full, sliding] = rotaryShares(r, m);
    m.rotaryFraction = sliding;
    m.global.rotaryFraction = m.globalEvery > 0 && full != sliding ? full : 0;
    m.qkNorm = r.boolean("use_qk_norm", false);
    m.headWiseGate = r.boolean("use_head_wise_attn_gate", false);
    m.qkvBias = r.boolean("attention_bias", false);
    if (r.has("use_rope_layers"))
        for (const json &v : r.array("use_rope_layers"))
            if (!v.is_boolean() || !v.get<bool>())
                r.fail("use_rope_layers", "layers without rotary positions are not modelled, got " + brief(v));
    if (m.globalEvery > 0)
        log.note("attention: " + std::to_string(m.heads) + " query heads in the sliding layers (window " +
                 std::to_string(m.slidingWindow) + "), " + std::to_string(fullHeads) + " in the full ones (every " +
                 std::to_string(m.globalEvery) + ", from layer 0)");
}

/// The layers moe_layers_enum lists: a comma-separated string, as Step-3.5's config.json writes it, or a list of
/// numbers, as its configuration class keeps its default.
std::vector<int64_t> listedLayers(JsonReader &r, int64_t layers)
{
    std::vector<int64_t> listed;
    auto add = [&](const std::string &item, const json *number) {
        std::size_t used = 0;
        int64_t layer = -1;
        if (number) {
            layer = number->is_number_integer() ? number->get<int64_t>() : -1;
            used = 1;
        } else {
            try {
                layer = std::stoll(item, &used);
            } catch (const std::exception &) {
                used = 0;
            }
        }
        if (used == 0 || item.find_first_not_of(" 0123456789") != std::string::npos || layer < 0 || layer >= layers)
            r.fail("moe_layers_enum", "expected layer numbers below " + std::to_string(layers) + ", got '" +
                                          (number ? brief(*number) : item) + "'");
        listed.push_back(layer);
    };
    if (r.node().at("moe_layers_enum").is_array()) {
        for (const json &v : r.array("moe_layers_enum"))
            add("", &v);
        return listed;
    }
    const std::string text = r.string("moe_layers_enum");
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        add(text.substr(at, comma - at), nullptr);
        at = comma + 1;
    }
    return listed;
}

/// The routed layers (moe_layers_enum): they must be the model's last layers from some layer on, the ones before them
/// dense (first_dense_layers).
int64_t denseLayersBeforeExperts(JsonReader &r, int64_t layers)
{
    if (!r.has("moe_layers_enum"))
        return 1; // Step3p5DecoderLayer's default: every layer but the first
    const std::vector<int64_t> listed = listedLayers(r, layers);
    const int64_t first = std::max<int64_t>(0, layers - static_cast<int64_t>(listed.size()));
    for (std::size_t i = 0; i < listed.size(); ++i)
        if (listed[i] != first + static_cast<int64_t>(i))
            r.fail("moe_layers_enum", "only the model's last layers may be routed, each once and in order (" +
                                          std::to_string(first) + " to " + std::to_string(layers - 1) +
                                          "), got layer " + std::to_string(listed[i]));
    return first;
}

/// The clamped SwiGLU of the layers a swiglu_limits list names: named in the report, its two comparisons an element
/// not counted.
void noteClampedLayers(JsonReader &r, ImportLog &log, std::string_view key)
{
    if (!r.has(key))
        return;
    std::string layers;
    const json &list = r.array(key);
    for (std::size_t i = 0; i < list.size(); ++i)
        if (list[i].is_number() && list[i].get<double>() != 0)
            layers += (layers.empty() ? "" : ", ") + std::to_string(i);
    if (!layers.empty())
        log.note(std::string(key) + ": layers " + layers +
                 " clamp their SwiGLU's inputs; the clamp's two comparisons an element are not counted");
}

} // namespace

/// Step3p5ForCausalLM (vLLM's step3p5.py; the Step-3.5-Flash model card): GQA attention in two kinds, layer_types'
/// full-attention layers leading each group (num_attention_heads and num_attention_groups KV heads, partial rotary
/// positions) and sliding-window ones (attention_other_setting's heads), each with per-head q/k norms
/// (GemmaRMSNorm, head_dim weights) and a gate per head (g_proj); dense first layers (intermediate_size) and then
/// moe_num_experts routed experts (moe_intermediate_size, moe_top_k a token, a sigmoid router with a bias per
/// expert, moe_layers_enum) beside a shared expert of share_expert_dim; two norms a layer, an untied head. The
/// num_nextn_predict_layers MTP modules (step3p5_mtp.py) are DeepSeek-V3's, each with a sliding layer whose FFN is
/// dense and its own LM head (shared_head.output), reading the model's embedding.
void importStep35(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    importRotaryDecoder(r, m);
    readStepAttention(r, m, log);
    m.maxPositions = r.integer("max_position_embeddings", 262144);
    if (!r.has("moe_num_experts") && (r.has("moe_layers_enum") || r.has("moe_top_k")))
        r.fail("moe_num_experts",
               "missing: the config routes layers (moe_layers_enum, moe_top_k) but gives no experts");
    m.experts = optionalSize(r, {"moe_num_experts"}, 1);
    if (m.experts > 1) {
        m.ffn = requiredSize(r, {"moe_intermediate_size"});
        m.activeExperts = requiredSize(r, {"moe_top_k"});
        if (m.activeExperts > m.experts)
            r.fail("moe_top_k",
                   std::to_string(m.activeExperts) + " exceeds moe_num_experts (" + std::to_string(m.experts) + ")");
        m.sharedFfn = optionalSize(r, {"share_expert_dim"}, 0);
        m.routerBias = r.boolean("use_moe_router_bias", true);
        m.firstDenseLayers = denseLayersBeforeExperts(r, m.layers);
        m.denseFfn = requiredSize(r, {"intermediate_size"});
        if (r.boolean("need_fp32_gate", false))
            log.note("need_fp32_gate: the router's weights are float32 in the checkpoint; counted in the weights' "
                     "format");
    } else {
        m.ffn = requiredSize(r, {"intermediate_size"});
    }
    noteClampedLayers(r, log, "swiglu_limits");
    noteClampedLayers(r, log, "swiglu_limits_shared");
    m.mtpLayers = mtpModules(r, log, "num_nextn_predict_layers");
    m.mtpStoresCopies = m.mtpLayers > 0;
    m.mtpSharesEmbedding = m.mtpLayers > 0;
    m.mtpDenseFfn = m.mtpLayers > 0 && m.isMoe();
}

/// Step3p7ForConditionalGeneration (model_type step3p7: Step-3.7-Flash): Step-3.5's language model (its text_config,
/// model_type step3p5) with a perception-encoder vision tower and its projector. The tower is not modelled: a file
/// that has it is refused, naming it, rather than counted without it.
void importStep37(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &)
{
    if (r.has("vision_config"))
        r.fail("vision_config", "Step-3.7's vision tower (perception_encoder) and its projector are not modelled; "
                                "import the text_config (model_type step3p5) for the language model alone");
    JsonReader text = r.object("text_config");
    const std::string type = text.string("model_type", "step3p5");
    if (type != "step3p5")
        text.fail("model_type", "expected \"step3p5\" for Step-3.7's language model, got \"" + type + "\"");
    importStep35(text, m, log, type);
}

} // namespace memwall::core::hf
