// A checkpoint's quantization_config (config.json) or ModelOpt hf_quant_config.json: the weight formats it declares,
// as the scenario's --weights, --expert-weights and --unquantized-embeddings would give them.
#include "core/io/hfimport.h"

#include <string>
#include <string_view>
#include <vector>

namespace memwall::core::hf {

using nlohmann::json;

namespace {

/// What the modules a config keeps unquantized (modules_to_not_convert, exclude_modules, ignore) cover, by the
/// names transformers, ModelOpt and compressed-tensors give them.
struct Unquantized
{
    bool head = false;              ///< lm_head
    bool attention = false;         ///< self_attn (every layer's, or some)
    bool router = false;            ///< the MoE router (mlp.gate, mlp.router, block_sparse_moe.gate)
    bool shared = false;            ///< the shared experts
    bool dense = false;             ///< the dense layers' MLP projections (mlp.gate_proj, mlp.up_proj, mlp.down_proj)
    std::vector<std::string> other; ///< whole layers or MLPs: not expressible as the two formats
};

bool endsWith(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

void classify(std::string_view name, Unquantized &u)
{
    const auto has = [name](std::string_view part) { return name.find(part) != std::string_view::npos; };
    if (has("lm_head") || name == "head")
        u.head = true;
    else if (has("embed") || has("norm") || has("e_score_correction_bias") || has("vision") || has("visual"))
        return; // not a linear layer (embeddings, norms, the router's bias) or a tower MemWall does not count
    else if (has("shared_expert"))
        u.shared = true;
    else if (has("attn"))
        u.attention = true;
    else if (has("mlp") && !has("expert") && (has("gate_proj") || has("up_proj") || has("down_proj") || has("(gate|")))
        u.dense = true;
    else if (has("router") || name == "gate" || endsWith(name, ".gate") || endsWith(name, "mlp.gate*"))
        u.router = true;
    else
        u.other.emplace_back(name);
}

Unquantized unquantizedModules(JsonReader &q)
{
    Unquantized u;
    for (std::string_view key : {"modules_to_not_convert", "exclude_modules", "ignore"}) {
        if (!q.has(key))
            continue;
        for (const json &v : q.array(key)) {
            if (!v.is_string())
                q.fail(key, "expected module names, got " + brief(v));
            classify(v.get<std::string>(), u);
        }
    }
    return u;
}

/// A weights scheme of compressed-tensors or ModelOpt (config_groups.*.weights): num_bits, type, group_size.
WeightFormat groupScheme(JsonReader &w, std::string_view format)
{
    const int64_t bitsPer = w.integer("num_bits");
    const std::string type = w.string("type", "int");
    const int64_t group = w.has("group_size") ? w.integer("group_size") : 0;
    if (bitsPer == 4 && type == "float")
        return *weightFormatFromString(group == 16 ? "nvfp4" : "mxfp4"); // NVFP4: E4M3 per 16; MXFP4: E8M0 per 32
    if (bitsPer == 8 && type == "float")
        return {DType::FP8, 0, DType::FP32}; // per tensor or per channel: one FP32 scale a tensor or row
    if ((bitsPer == 4 || bitsPer == 8) && type == "int" && group >= 0 && group <= 1 << 20)
        return {bitsPer == 4 ? DType::INT4 : DType::INT8, static_cast<int>(group), DType::BF16};
    w.fail("num_bits", "the scheme " + std::to_string(bitsPer) + "-bit " + type + " (" + std::string(format) +
                           ") is not one MemWall models (4 or 8 bits, int or float)");
}

/// The format quantization_config `q` gives the quantized weights, and a note saying what it read.
WeightFormat quantFormat(JsonReader &q, ImportLog &log, ModelShape &m)
{
    const std::string method = q.string("quant_method", q.has("quant_algo") ? "modelopt" : "");
    if (method == "fp8" && !q.has("config_groups")) {
        // DeepSeek-V3 README_WEIGHTS.md: E4M3 weights with one FP32 weight_scale_inv per 128 x 128 block.
        int64_t block = 0;
        if (q.has("weight_block_size")) {
            const json &b = q.array("weight_block_size");
            if (b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer() || b[0].get<int64_t>() < 1 ||
                b[1].get<int64_t>() < 1 || b[0].get<int64_t>() * b[1].get<int64_t>() > (1 << 24))
                q.fail("weight_block_size", "expected two block sides, got " + brief(b));
            block = b[0].get<int64_t>() * b[1].get<int64_t>();
        }
        log.note("quantization_config: fp8 (E4M3)" +
                 (block > 0 ? ", one FP32 scale per " + std::to_string(block) + "-weight block" : std::string()));
        return {DType::FP8, static_cast<int>(block), DType::FP32};
    }
    if (method == "mxfp4") {
        log.note("quantization_config: mxfp4 (E2M1, one 8-bit E8M0 scale per 32 weights)");
        return *weightFormatFromString("mxfp4");
    }
    if (method == "awq" || method == "gptq") {
        const int64_t bitsPer = q.integer(q.has("bits") ? "bits" : "w_bit", 4);
        const int64_t group = q.integer(q.has("group_size") ? "group_size" : "q_group_size", 128);
        if ((bitsPer != 4 && bitsPer != 8) || group < 1 || group > (1 << 20))
            q.fail("bits", method + " with " + std::to_string(bitsPer) + " bits in groups of " + std::to_string(group) +
                               " is not modelled (4 or 8 bits, a positive group size)");
        // AWQ's qzeros and GPTQ's qzeros (AutoGPTQ stores them whatever sym) hold one zero point a group.
        m.checkpointZeroPoints = method == "gptq" || q.boolean("zero_point", true);
        log.note("quantization_config: " + method + ", " + std::to_string(bitsPer) + "-bit groups of " +
                 std::to_string(group) + " with an FP16 scale" + (m.checkpointZeroPoints ? " and a zero point" : ""));
        return {bitsPer == 4 ? DType::INT4 : DType::INT8, static_cast<int>(group), DType::FP16};
    }
    if (method == "compressed-tensors" || method == "modelopt") {
        if (!q.has("config_groups")) { // ModelOpt's hf_quant_config.json form: quant_algo and group_size
            const std::string algo = q.string("quant_algo");
            if (algo != "NVFP4" && algo != "FP8")
                q.fail("quant_algo", "'" + algo + "' is not modelled (NVFP4 or FP8)");
            log.note("quantization_config: " + method + " " + algo);
            return algo == "NVFP4" ? *weightFormatFromString("nvfp4") : WeightFormat{DType::FP8, 0, DType::FP32};
        }
        JsonReader groups = q.object("config_groups");
        if (groups.node().size() != 1)
            q.fail("config_groups", "only one scheme for every quantized layer is modelled, got " +
                                        std::to_string(groups.node().size()));
        JsonReader group = groups.object(groups.node().begin().key());
        JsonReader w = group.object("weights");
        const WeightFormat f = groupScheme(w, method);
        log.note("quantization_config: " + method + ", weights " + toString(f));
        return f;
    }
    q.fail("quant_method", "'" + method + "' is not modelled (fp8, mxfp4, modelopt, compressed-tensors, awq, gptq)");
}

/// What the weights' one format cannot say about the modules the checkpoint keeps unquantized, as notes: the dense
/// and shared-expert FFNs go with the attention into the weights' format, the router too.
void notePartialFormats(const Unquantized &u, const ModelShape &m, const WeightFormat &f, ImportLog &log)
{
    const bool dense = m.isMoe() && (m.firstDenseLayers > 0 || m.moeEvery > 1);
    const bool shared = m.isMoe() && m.sharedFfn > 0;
    const std::string q = toString(f);
    if (u.attention) {
        log.note("attention kept in 16 bits: weights bf16, routed experts " + q);
        if (dense && !u.dense)
            log.note("the dense layers' FFNs are " + q + " in the checkpoint but counted in bf16 with the attention");
        if (shared && !u.shared)
            log.note("the shared experts are " + q + " in the checkpoint but counted in bf16 with the attention");
    } else {
        if (dense && u.dense)
            log.note("the dense layers' FFNs are kept in 16 bits in the checkpoint but counted in " + q);
        if (shared && u.shared)
            log.note("the shared experts are kept in 16 bits in the checkpoint but counted in " + q);
    }
    if (m.isMoe() && f.type != DType::BF16)
        log.note("the MoE router stays 16-bit in the checkpoint; it is counted in the weights' format " +
                 toString(u.attention ? WeightFormat{DType::BF16, 0, DType::BF16} : f));
}

} // namespace

void readQuantization(JsonReader &r, ModelShape &m, ImportLog &log)
{
    if (!r.has("quantization_config"))
        return;
    JsonReader q = r.object("quantization_config");
    const WeightFormat f = quantFormat(q, log, m);
    const Unquantized u = unquantizedModules(q);
    // The embedding is no linear layer: no method quantizes it. transformers' fp8 and mxfp4 loaders keep lm_head too.
    const std::string method = q.string("quant_method", "");
    m.checkpointUnquantizedEmbeddings = u.head || method == "fp8" || method == "mxfp4";
    if (!m.checkpointUnquantizedEmbeddings)
        log.note("the LM head is quantized but the embedding is not: both are counted in " + toString(f));
    m.checkpointExpertWeights = m.isMoe() ? std::optional<WeightFormat>(f) : std::nullopt;
    m.checkpointWeights = u.attention ? WeightFormat{DType::BF16, 0, DType::BF16} : f;
    notePartialFormats(u, m, f, log);
    if (!u.other.empty())
        log.note("other modules the checkpoint keeps unquantized (" + u.other.front() +
                 (u.other.size() > 1 ? " and " + std::to_string(u.other.size() - 1) + " more" : std::string()) +
                 ") are counted in the formats above");
}

} // namespace memwall::core::hf
