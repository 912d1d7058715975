#include "core/analysis/options.h"

#include "core/util/oneline.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>

// The table's rows name only the fields that differ from the defaults; GCC 12 warns about every other field.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif

namespace memwall::core {

namespace {

constexpr double kMaxDegree = 65536; ///< tp, pp, dp, ep and micro-batches
/// Lowest compute or memory efficiency: 0.1 % of peak. A real kernel reaching less is a bug, not a scenario, and the
/// times of smaller fractions (5e-324 divides to infinity) stop being numbers (issue #42).
constexpr double kMinEfficiency = 0.001;

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

template <typename T>
ScenarioOption integer(ScenarioOption o, T Scenario::*field)
{
    o.kind = OptionKind::Integer;
    o.get = [field](const Scenario &s, const WhatIf &) { return OptionValue(static_cast<int64_t>(s.*field)); };
    o.set = [field](Scenario &s, WhatIf &, const OptionValue &v) {
        s.*field = static_cast<T>(std::get<int64_t>(v));
        return std::string();
    };
    return o;
}

ScenarioOption real(ScenarioOption o, double Scenario::*field)
{
    o.kind = OptionKind::Real;
    o.get = [field](const Scenario &s, const WhatIf &) { return OptionValue(s.*field); };
    o.set = [field](Scenario &s, WhatIf &, const OptionValue &v) {
        s.*field = std::get<double>(v);
        return std::string();
    };
    return o;
}

ScenarioOption optionalReal(ScenarioOption o, std::optional<double> Scenario::*field)
{
    o.kind = OptionKind::Real;
    o.nullable = true;
    o.get = [field](const Scenario &s, const WhatIf &) { return s.*field ? OptionValue(*(s.*field)) : OptionValue(); };
    o.set = [field](Scenario &s, WhatIf &, const OptionValue &v) {
        s.*field = std::holds_alternative<double>(v) ? std::optional(std::get<double>(v)) : std::nullopt;
        return std::string();
    };
    return o;
}

ScenarioOption whatIf(ScenarioOption o, double WhatIf::*field)
{
    o.kind = OptionKind::Real;
    o.section = OptionSection::WhatIf;
    o.group = "What-if";
    o.min = 0.01;
    o.max = 100;
    o.typicalMin = 0.25;
    o.typicalMax = 8;
    o.metavar = "X";
    o.get = [field](const Scenario &, const WhatIf &w) { return OptionValue(w.*field); };
    o.set = [field](Scenario &, WhatIf &w, const OptionValue &v) {
        w.*field = std::get<double>(v);
        return std::string();
    };
    return o;
}

ScenarioOption toggle(ScenarioOption o, bool Scenario::*field)
{
    o.kind = OptionKind::Switch;
    o.get = [field](const Scenario &s, const WhatIf &) { return OptionValue(s.*field); };
    o.set = [field](Scenario &s, WhatIf &, const OptionValue &v) {
        s.*field = std::get<bool>(v);
        return std::string();
    };
    return o;
}

/// An enumeration's choice: names from toString(), parsed by `parse`.
template <typename E, typename List>
ScenarioOption choice(ScenarioOption o, E Scenario::*field, std::optional<E> (*parse)(std::string_view),
                      const List &all)
{
    o.kind = OptionKind::Choice;
    for (E e : all)
        o.choices.emplace_back(toString(e));
    o.get = [field](const Scenario &s, const WhatIf &) { return OptionValue(std::string(toString(s.*field))); };
    o.set = [field, parse, names = o.choices](Scenario &s, WhatIf &, const OptionValue &v) {
        const auto e = parse(std::get<std::string>(v));
        if (!e) {
            std::string list;
            for (const auto &n : names)
                list += (list.empty() ? "" : ", ") + n;
            return "'" + echoValue(std::get<std::string>(v)) + "' is not one of " + list;
        }
        s.*field = *e;
        return std::string();
    };
    return o;
}

template <typename E>
ScenarioOption choice(ScenarioOption o, E Scenario::*field, std::optional<E> (*parse)(std::string_view),
                      std::initializer_list<E> all)
{
    return choice<E, std::initializer_list<E>>(std::move(o), field, parse, all);
}

// Long because this is the option table itself, one row per option in --help and GUI order. Its rows are data
// (key, flag, help, range, accessor); splitting it would scatter the one home of these facts.
std::vector<ScenarioOption> makeOptions()
{
    const double tokens = static_cast<double>(kMaxTokens);
    std::vector<ScenarioOption> t;
    // ---- workload ----
    t.push_back(
        choice({.key = "phase",
                .flag = "--phase",
                .metavar = "P",
                .label = "Phase",
                .help = "Which phase to analyse: the prompt (prefill), one new token (decode), both (generate), "
                        "an encoder pass (encode) or a training step (train).",
                .group = "Workload"},
               &Scenario::phase, phaseFromString,
               {Phase::Prefill, Phase::Decode, Phase::Generate, Phase::Encode, Phase::Train}));
    t.push_back(integer({.key = "batch",
                         .flag = "--batch",
                         .metavar = "N",
                         .label = "Batch",
                         .help = "Sequences processed together (global batch, split over the data-parallel replicas).",
                         .group = "Workload",
                         .min = 1,
                         .max = tokens,
                         .typicalMax = 4096},
                        &Scenario::batch));
    t.push_back(integer({.key = "seq",
                         .flag = "--seq",
                         .metavar = "N",
                         .label = "Prompt",
                         .help = "Prompt tokens per sequence (prefill, generate, encode, train).",
                         .group = "Workload",
                         .min = 1,
                         .max = tokens,
                         .typicalMax = 131072},
                        &Scenario::seq));
    t.push_back(integer({.key = "context",
                         .flag = "--context",
                         .metavar = "N",
                         .label = "Context",
                         .help = "Tokens already in the KV cache when the new token is decoded (decode).",
                         .group = "Workload",
                         .min = 0,
                         .max = tokens,
                         .typicalMax = 131072},
                        &Scenario::context));
    t.push_back(integer({.key = "output",
                         .flag = "--output",
                         .metavar = "N",
                         .label = "Output",
                         .help = "Tokens generated after the prompt (generate).",
                         .group = "Workload",
                         .min = 1,
                         .max = tokens,
                         .typicalMax = 131072},
                        &Scenario::output));
    t.push_back(integer({.key = "images",
                         .flag = "--images",
                         .metavar = "N",
                         .label = "Images",
                         .help = "Images per request, for a model with a vision tower: each becomes the model's image "
                                 "tokens, encoded by the tower in prefill and then prefilled and cached with the "
                                 "prompt.",
                         .group = "Workload",
                         .min = 0,
                         .max = 1024,
                         .typicalMax = 16},
                        &Scenario::images));
    // ---- precision ----
    {
        ScenarioOption w{
            .key = "weights",
            .flag = "--weights",
            .metavar = "F",
            .label = "Weights",
            .help = "How weights are stored; int4/g128 adds an FP16 scale per 128 weights. The block formats by "
                    "name: nvfp4 = fp4/g16/fp8, mxfp4 = fp4/g32/fp8, mxfp6 = fp6/g32/fp8.",
            .group = "Precision",
            .kind = OptionKind::Choice,
            .openChoice = true};
        for (const WeightChoice &c : kWeightChoices) // the one list the window offers too
            w.choices.emplace_back(c.id);
        w.get = [](const Scenario &s, const WhatIf &) { return OptionValue(toString(s.weights)); };
        w.set = [](Scenario &s, WhatIf &, const OptionValue &v) {
            const auto f = weightFormatFromString(std::get<std::string>(v));
            if (!f)
                return "'" + std::get<std::string>(v) +
                       "' is not a weight format (fp16, bf16, fp8, fp4, nvfp4, mxfp4, int8, int4, int4/g128, ...)";
            s.weights = *f;
            return std::string();
        };
        t.push_back(std::move(w));
    }
    {
        ScenarioOption w{.key = "expert_weights",
                         .flag = "--expert-weights",
                         .metavar = "F",
                         .label = "Expert weights",
                         .help = "Mixture-of-experts models: how the routed experts are stored, when it differs from "
                                 "the other weights (gpt-oss ships MXFP4 experts and BF16 attention); same: as "
                                 "Weights.",
                         .group = "Precision",
                         .kind = OptionKind::Choice,
                         .choices = {"same", "fp8", "fp4/g32/fp8", "fp4/g16/fp8", "int8", "int4/g128"},
                         .openChoice = true};
        w.get = [](const Scenario &s, const WhatIf &) {
            return OptionValue(s.expertWeights ? toString(*s.expertWeights) : std::string("same"));
        };
        w.set = [](Scenario &s, WhatIf &, const OptionValue &v) {
            const std::string &text = std::get<std::string>(v);
            if (text == "same") {
                s.expertWeights.reset();
                return std::string();
            }
            const auto f = weightFormatFromString(text);
            if (!f)
                return "'" + text + "' is not a weight format (same, fp8, mxfp4, nvfp4, int4/g128, ...)";
            s.expertWeights = *f;
            return std::string();
        };
        t.push_back(std::move(w));
    }
    t.push_back(choice({.key = "activations",
                        .flag = "--activations",
                        .metavar = "DTYPE",
                        .label = "Activations",
                        .help = "Format of activations; matmuls run in it where the device supports it.",
                        .group = "Precision"},
                       &Scenario::activations, dtypeFromString, kScenarioDTypes));
    t.push_back(choice({.key = "kv",
                        .flag = "--kv",
                        .metavar = "DTYPE",
                        .label = "KV cache",
                        .help = "Format of the cached keys and values.",
                        .group = "Precision"},
                       &Scenario::kv, dtypeFromString, kScenarioDTypes));
    // ---- parallelism ----
    auto degree = [](std::string_view key, std::string_view flag, std::string_view label, std::string_view help,
                     int Scenario::*field) {
        return integer({.key = key,
                        .flag = flag,
                        .metavar = "N",
                        .label = label,
                        .help = help,
                        .group = "Parallelism",
                        .min = 1,
                        .max = kMaxDegree},
                       field);
    };
    t.push_back(
        degree("tp", "--tp", "Tensor (tp)",
               "Tensor parallelism: splits heads and FFN columns over devices, adding two all-reduces per layer.",
               &Scenario::tp));
    t.push_back(degree("pp", "--pp", "Pipeline (pp)",
                       "Pipeline parallelism: splits the layers into stages, adding transfers and a pipeline bubble.",
                       &Scenario::pp));
    t.push_back(degree("dp", "--dp", "Data (dp)", "Data parallelism: replicas that each take a share of the batch.",
                       &Scenario::dp));
    t.push_back(degree("ep", "--ep", "Experts (ep)",
                       "Expert parallelism (mixture of experts): splits the experts over devices, adding all-to-alls.",
                       &Scenario::ep));
    t.push_back(degree("attention_dp", "--attention-dp", "Attention DP",
                       "Attention data parallelism (MoE): each rank runs attention for its share of the batch and "
                       "keeps its KV cache; the experts are split over all ranks.",
                       &Scenario::attentionDp));
    t.push_back(integer({.key = "moe_tp",
                         .flag = "--moe-tp",
                         .metavar = "N",
                         .label = "Expert TP",
                         .help = "Splits each routed expert's columns over N devices; moe_tp x moe_ep = tp x "
                                 "attention_dp x ep (0: tp).",
                         .group = "Parallelism",
                         .min = 0,
                         .max = kMaxDegree,
                         .zeroMeans = "auto"},
                        &Scenario::moeTp));
    t.push_back(integer({.key = "moe_ep",
                         .flag = "--moe-ep",
                         .metavar = "N",
                         .label = "Expert EP",
                         .help = "Splits the routed experts over N devices, with all-to-all dispatch and combine "
                                 "(0: ep x attention_dp).",
                         .group = "Parallelism",
                         .min = 0,
                         .max = kMaxDegree,
                         .zeroMeans = "auto"},
                        &Scenario::moeEp));
    t.push_back(real({.key = "moe_imbalance",
                      .flag = "--moe-imbalance",
                      .metavar = "X",
                      .label = "Expert imbalance",
                      .help = "The busiest expert-parallel rank's routed tokens over the mean: a MoE layer waits for "
                              "it (1 = balanced).",
                      .group = "Parallelism",
                      .min = 1,
                      .max = 64,
                      .typicalMin = 1,
                      .typicalMax = 4},
                     &Scenario::moeImbalance));
    t.push_back(degree("micro_batches", "--micro-batches", "Micro-batches",
                       "Pipeline micro-batches per step: more of them shrink the pipeline bubble.",
                       &Scenario::microBatches));
    // ---- options ----
    t.push_back(toggle({.key = "fused_attention",
                        .flag = "--fused-attention",
                        .label = "Fused attention",
                        .help = "FlashAttention-style kernels: the score matrix never goes to memory.",
                        .group = "Options"},
                       &Scenario::fusedAttention));
    t.push_back(toggle({.key = "kv_cache",
                        .flag = "--kv-cache",
                        .label = "KV cache",
                        .help = "Keep keys and values of past tokens; without it decode recomputes them over the "
                                "whole context.",
                        .group = "Options"},
                       &Scenario::kvCache));
    t.push_back(toggle({.key = "causal",
                        .flag = "--causal",
                        .label = "Causal mask",
                        .help = "Decoders attend only to earlier tokens: fused attention skips the masked half of the "
                                "prompt's scores (prefill). Encoders are bidirectional and ignore it.",
                        .group = "Options"},
                       &Scenario::causal));
    t.push_back(toggle({.key = "mla_absorb",
                        .flag = "--mla-absorb",
                        .label = "Absorbed MLA",
                        .help = "Models with multi-head latent attention (DeepSeek-V2/V3): decode folds the key and "
                                "value up-projections into the queries and output and attends the cached latent "
                                "directly. Off: each step first lifts the whole cached latent to keys and values.",
                        .group = "Options"},
                       &Scenario::mlaAbsorb));
    t.push_back(toggle({.key = "weight_zero_points",
                        .flag = "--weight-zero-points",
                        .label = "Zero points",
                        .help = "Each group of quantized weights also stores a zero point in the weight format "
                                "(asymmetric quantization, as GPTQ and AWQ checkpoints do): int4/g128 is then "
                                "4 + 16/128 + 4/128 bits per weight.",
                        .group = "Options"},
                       &Scenario::weightZeroPoints));
    t.push_back(toggle({.key = "unquantized_embeddings",
                        .flag = "--unquantized-embeddings",
                        .label = "16-bit embeddings",
                        .help = "The token embedding and the LM head stay 16-bit while the other weights take the "
                                "weight format (GPTQ and AWQ quantize only the transformer blocks).",
                        .group = "Options"},
                       &Scenario::unquantizedEmbeddings));
    t.push_back(choice({.key = "efficiency",
                        .flag = "--efficiency",
                        .metavar = "M",
                        .label = "Efficiency",
                        .help = "Ideal uses datasheet peaks; achievable models each kernel from the device's published "
                                "GEMM size sweeps, copy bandwidth, kernel launch cost and all-reduce curve.",
                        .group = "Options"},
                       &Scenario::efficiency, efficiencyModeFromString,
                       {EfficiencyMode::Ideal, EfficiencyMode::Achievable}));
    t.push_back(choice({.key = "execution",
                        .flag = "--execution",
                        .metavar = "E",
                        .label = "Kernel launches",
                        .help = "Achievable efficiency: graphs (CUDA/HIP graphs or compiled kernels, as serving "
                                "engines decode) or eager (each kernel launched from the host). Ideal ignores it.",
                        .group = "Options"},
                       &Scenario::execution, executionFromString, {Execution::Graphs, Execution::Eager}));
    t.push_back(choice({.key = "allreduce",
                        .flag = "--allreduce",
                        .metavar = "A",
                        .label = "All-reduce",
                        .help = "Achievable efficiency with tensor parallelism: library (NCCL/RCCL, as nccl-tests "
                                "measure) or custom (the engine's own all-reduce kernel, as TensorRT-LLM, vLLM and "
                                "SGLang run small messages over NVLink; the library's where the device has no "
                                "measured custom sweep). Ideal ignores it.",
                        .group = "Options"},
                       &Scenario::allReduce, allReduceFromString, {AllReduce::Library, AllReduce::Custom}));
    t.push_back(choice({.key = "activation_scales",
                        .flag = "--activation-scales",
                        .metavar = "Q",
                        .label = "Activation scales",
                        .help = "Achievable efficiency with FP8 activations: fused (the kernel before a linear layer "
                                "writes FP8 itself, as TensorRT engines build it: no cost of its own), static (a "
                                "quantize kernel with the checkpoint's calibrated scale before each linear layer) or "
                                "dynamic (that kernel and one that finds the scale at run time, as vLLM's online "
                                "--quantization fp8 runs). Charged where the device's tables time those kernels. "
                                "Ideal ignores it.",
                        .group = "Options"},
                       &Scenario::activationScales, activationScalesFromString,
                       {ActivationScales::Fused, ActivationScales::Static, ActivationScales::Dynamic}));
    // TensorRT-LLM's gpt-oss deployment guide (nvidia.github.io/TensorRT-LLM/deployment-guide/
    // deployment-guide-for-gpt-oss-on-trtllm.html, "MoE Backend Support Matrix"): B200/GB200/B300/GB300 run the MXFP4
    // experts with MXFP8 activations (TRTLLM backend, the default), the H200 with BF16 (TRITON); likewise
    // examples/models/core/gpt_oss/README.md of NVIDIA/TensorRT-LLM. vLLM's MXFP4 backend oracle picks only BF16
    // activations unless VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8 is set (vllm/model_executor/layers/fused_moe/oracle/
    // mxfp4.py, _get_priority_backends), so `same` is its default.
    t.push_back(choice({.key = "expert_activations",
                        .flag = "--expert-activations",
                        .metavar = "A",
                        .label = "Expert activations",
                        .help = "Achievable efficiency with MXFP4 experts: same (the fused MoE kernel takes the "
                                "activations' format: 16-bit runs the MXFP4 x BF16 kernel, FP8 the MXFP4 x MXFP8 one) "
                                "or mxfp8 (the kernel quantizes its input to MXFP8 itself, as TensorRT-LLM runs "
                                "gpt-oss on Blackwell by default). Picks the device's MoE table; ideal ignores it.",
                        .group = "Options"},
                       &Scenario::expertActivations, expertActivationsFromString,
                       {ExpertActivations::Same, ExpertActivations::Mxfp8}));
    t.push_back(optionalReal({.key = "compute_efficiency",
                              .flag = "--compute-efficiency",
                              .metavar = "X",
                              .label = "Compute efficiency",
                              .help = "Fraction of peak compute reached, overriding the efficiency mode (auto: the "
                                      "mode decides).",
                              .group = "Options",
                              .min = kMinEfficiency,
                              .max = 1},
                             &Scenario::computeEfficiency));
    t.push_back(optionalReal({.key = "memory_efficiency",
                              .flag = "--memory-efficiency",
                              .metavar = "X",
                              .label = "Memory efficiency",
                              .help = "Fraction of peak bandwidth reached, overriding the efficiency mode (auto: the "
                                      "mode decides).",
                              .group = "Options",
                              .min = kMinEfficiency,
                              .max = 1},
                             &Scenario::memoryEfficiency));
    t.push_back(
        real({.key = "structured_sparsity",
              .flag = "--structured-sparsity",
              .metavar = "X",
              .label = "Structured sparsity",
              .help = "Fraction of weights pruned in hardware-usable blocks (2:4 is 0.5): saves bytes and FLOPs.",
              .group = "Options",
              .min = 0,
              .max = 0.95},
             &Scenario::structuredSparsity));
    t.push_back(real({.key = "unstructured_sparsity",
                      .flag = "--unstructured-sparsity",
                      .metavar = "X",
                      .label = "Unstructured sparsity",
                      .help = "Fraction of weights pruned anywhere: saves bytes (plus a 1-bit mask), not dense FLOPs.",
                      .group = "Options",
                      .min = 0,
                      .max = 0.99},
                     &Scenario::unstructuredSparsity));
    // ---- serving ----
    t.push_back(real({.key = "prompt_cache_hit_rate",
                      .flag = "--prompt-cache-hit-rate",
                      .metavar = "X",
                      .label = "Prompt cache hits",
                      .help = "Fraction of each prompt whose keys and values are already cached (prefix caching): "
                              "prefill computes only the rest of the prompt and reads the cached part.",
                      .group = "Serving",
                      .min = 0,
                      .max = 1},
                     &Scenario::promptCacheHitRate));
    t.push_back(integer({.key = "speculative_k",
                         .flag = "--speculative-k",
                         .metavar = "K",
                         .label = "Speculative tokens",
                         .help = "Draft tokens proposed per step and checked by one verification step of the model; "
                                 "0 turns speculative decoding off.",
                         .group = "Serving",
                         .min = 0,
                         .max = 16,
                         .zeroMeans = "off"},
                        &Scenario::speculativeK));
    t.push_back(real({.key = "acceptance",
                      .flag = "--acceptance",
                      .metavar = "A",
                      .label = "Acceptance rate",
                      .help = "Probability that the model accepts each draft token (speculative decoding), 0 to 0.99.",
                      .group = "Serving",
                      .min = 0,
                      .max = 0.99},
                     &Scenario::acceptance));
    {
        ScenarioOption d{.key = "draft_model",
                         .flag = "--draft-model",
                         .metavar = "ID",
                         .label = "Draft model",
                         .help = "What proposes the draft tokens: mtp (the model's own multi-token-prediction module, "
                                 "one transformer block and the shared head) or a model preset id.",
                         .group = "Serving",
                         .kind = OptionKind::Choice,
                         .choices = {"mtp"},
                         .openChoice = true};
        d.get = [](const Scenario &s, const WhatIf &) { return OptionValue(s.draftModel); };
        d.set = [](Scenario &s, WhatIf &, const OptionValue &v) {
            const std::string &id = std::get<std::string>(v);
            const bool ok = !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char ch) {
                return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_';
            });
            if (!ok)
                return "'" + id + "' is not mtp or a model preset id (lower-case letters, digits, '-', '.', '_')";
            s.draftModel = id;
            return std::string();
        };
        t.push_back(std::move(d));
    }
    t.push_back(integer({.key = "chunked_prefill",
                         .flag = "--chunked-prefill",
                         .metavar = "TOKENS",
                         .label = "Prefill chunk",
                         .help = "Prompt tokens per mixed step: each step runs one prefill chunk together with the "
                                 "batch's decodes (chunked prefill); 0 turns it off.",
                         .group = "Serving",
                         .min = 0,
                         .max = static_cast<double>(kMaxTokens),
                         .typicalMin = 0,
                         .typicalMax = 8192},
                        &Scenario::chunkedPrefill));
    // Engine defaults (docs/model.md, "Engine admission"): vLLM V1 8,192 for its server on devices of 70 GiB and more
    // but the A100, else 2,048 (vllm-project/vllm, vllm/engine/arg_utils.py, get_batch_defaults); SGLang 8,192 below
    // 160 GB of device memory, 16,384 above (sgl-project/sglang, python/sglang/srt/server_args.py,
    // chunked_prefill_size); TensorRT-LLM 8,192 (NVIDIA/TensorRT-LLM, tensorrt_llm/llmapi/llm_args.py, max_num_tokens).
    t.push_back(integer({.key = "max_batched_tokens",
                         .flag = "--max-batched-tokens",
                         .metavar = "TOKENS",
                         .label = "Tokens per step",
                         .help = "Engine admission: tokens an engine step runs, the decodes first and prompt chunks in "
                                 "the rest (vLLM max-num-batched-tokens 8192, SGLang chunked-prefill-size 8192 or "
                                 "16384, TensorRT-LLM max_num_tokens 8192); batch is the concurrency; 0 turns it off.",
                         .group = "Serving",
                         .min = 0,
                         .max = static_cast<double>(kMaxTokens),
                         .typicalMin = 0,
                         .typicalMax = 16384},
                        &Scenario::maxBatchedTokens));
    t.push_back(
        choice({.key = "arrivals",
                .flag = "--arrivals",
                .metavar = "A",
                .label = "Arrivals",
                .help = "Engine admission: spread (requests at random phases: the steady state, and the bound) or "
                        "together (a benchmark client at a fixed concurrency: its requests arrive at once "
                        "and, of equal lengths, stay in step, so each prompt waits behind the others of its "
                        "wave) or rounds (aiperf at a fixed concurrency, as aiconfigurator's benchmark runs it: "
                        "the first of 20 rounds arrives together, the later ones as the first was admitted).",
                .group = "Serving"},
               &Scenario::arrivals, arrivalsFromString, {Arrivals::Spread, Arrivals::Together, Arrivals::Rounds}));
    {
        ScenarioOption pd{.key = "disaggregate",
                          .flag = "--disaggregate",
                          .metavar = "P:D",
                          .label = "Disaggregation",
                          .help = "Prefill on P devices and decode on D others, the KV cache of each request moving "
                                  "over the device's interconnect; off runs both on the same devices.",
                          .group = "Serving",
                          .kind = OptionKind::Choice,
                          .choices = {"off", "1:1", "1:2", "1:3", "2:1"},
                          .openChoice = true};
        pd.get = [](const Scenario &s, const WhatIf &) {
            return OptionValue(s.prefillDevices > 0
                                   ? std::to_string(s.prefillDevices) + ":" + std::to_string(s.decodeDevices)
                                   : std::string("off"));
        };
        pd.set = [](Scenario &s, WhatIf &, const OptionValue &v) {
            const std::string &text = std::get<std::string>(v);
            if (text == "off") {
                s.prefillDevices = s.decodeDevices = 0;
                return std::string();
            }
            const auto colon = text.find(':');
            int p = 0, d = 0;
            const auto parse = [](std::string_view part, int *out) {
                const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), *out);
                return ec == std::errc() && end == part.data() + part.size() && *out >= 1 &&
                       *out <= kMaxDeploymentDevices;
            };
            if (colon == std::string::npos || !parse(std::string_view(text).substr(0, colon), &p) ||
                !parse(std::string_view(text).substr(colon + 1), &d))
                return "'" + text + "' is not off or P:D with P and D from 1 to " +
                       std::to_string(kMaxDeploymentDevices);
            s.prefillDevices = p;
            s.decodeDevices = d;
            return std::string();
        };
        t.push_back(std::move(pd));
    }
    t.push_back(integer({.key = "prefill_batch",
                         .flag = "--prefill-batch",
                         .metavar = "N",
                         .label = "Prefill batch",
                         .help = "Disaggregation: prompts one copy of the model in the prefill pool runs together "
                                 "(each request then waits for that prefill, not the whole batch's); 0 prefills "
                                 "the decode batch (batch / dp) at once.",
                         .group = "Serving",
                         .min = 0,
                         .max = static_cast<double>(kMaxTokens),
                         .typicalMin = 0,
                         .typicalMax = 256},
                        &Scenario::prefillBatch));
    t.push_back(choice({.key = "kv_offload",
                        .flag = "--kv-offload",
                        .metavar = "TIER",
                        .label = "KV offload",
                        .help = "Where KV-cache bytes that do not fit main memory live: none, host (host DRAM over "
                                "PCIe or NVLink-C2C) or storage (NVMe); each decode step streams them back.",
                        .group = "Serving"},
                       &Scenario::kvOffload, kvOffloadFromString,
                       {KvOffload::None, KvOffload::Host, KvOffload::Storage}));
    t.push_back(optionalReal({.key = "kv_offload_fraction",
                              .flag = "--kv-offload-fraction",
                              .metavar = "X",
                              .label = "KV offloaded",
                              .help = "With kv_offload host or storage: the share of the KV cache kept there; auto "
                                      "keeps in main memory what fits and offloads the rest.",
                              .group = "Serving",
                              .min = 0,
                              .max = 1},
                             &Scenario::kvOffloadFraction));
    t.push_back(choice({.key = "weight_offload",
                        .flag = "--weight-offload",
                        .metavar = "TIER",
                        .label = "Weight offload",
                        .help = "Where weights that do not fit main memory live: none, host (host DRAM over PCIe or "
                                "NVLink-C2C) or storage (NVMe); every step streams them in, as FlexGen and "
                                "ZeRO-Inference do.",
                        .group = "Serving"},
                       &Scenario::weightOffload, kvOffloadFromString,
                       {KvOffload::None, KvOffload::Host, KvOffload::Storage}));
    t.push_back(optionalReal({.key = "weight_offload_fraction",
                              .flag = "--weight-offload-fraction",
                              .metavar = "X",
                              .label = "Weights offloaded",
                              .help = "With weight_offload host or storage: the share of the weights kept there; auto "
                                      "offloads what still does not fit once the KV cache is placed.",
                              .group = "Serving",
                              .min = 0,
                              .max = 1},
                             &Scenario::weightOffloadFraction));
    t.push_back(real({.key = "power_utilization",
                      .flag = "--power-utilization",
                      .metavar = "X",
                      .label = "Power draw",
                      .help = "Fraction of the device's rated power (TDP) drawn while serving, for joules per token; "
                              "1 counts the full TDP, an upper bound.",
                      .group = "Serving",
                      .min = 0.05,
                      .max = 1},
                     &Scenario::powerUtilization));
    t.push_back(
        optionalReal({.key = "usd_per_device_hour",
                      .flag = "--usd-per-device-hour",
                      .metavar = "USD",
                      .label = "Price per device-hour",
                      .help = "Rental price of one device, US dollars per hour, for $/million tokens; auto uses "
                              "the device preset's public on-demand price where it has one.",
                      .group = "Serving",
                      .min = 0.01,
                      .max = 10000},
                     &Scenario::usdPerDeviceHour));
    // ---- training ----
    t.push_back(choice({.key = "recompute",
                        .flag = "--recompute",
                        .metavar = "R",
                        .label = "Recompute",
                        .help = "Activation recomputation in training: none, the attention core (selective) or every "
                                "layer (full).",
                        .group = "Training"},
                       &Scenario::recompute, recomputeFromString,
                       {Recompute::None, Recompute::Selective, Recompute::Full}));
    t.push_back(choice({.key = "optimizer",
                        .flag = "--optimizer",
                        .metavar = "O",
                        .label = "Optimizer",
                        .help = "Optimizer state kept per parameter in training: Adam (two moments) or SGD (momentum).",
                        .group = "Training"},
                       &Scenario::optimizer, optimizerFromString, {Optimizer::Adam, Optimizer::Sgd}));
    t.push_back(integer({.key = "zero_stage",
                         .flag = "--zero",
                         .metavar = "S",
                         .label = "ZeRO stage",
                         .help = "Shards optimizer state (1), plus gradients (2), plus weights (3) over the "
                                 "data-parallel replicas.",
                         .group = "Training",
                         .min = 0,
                         .max = 3},
                        &Scenario::zeroStage));
    // ---- hardware what-if ----
    t.push_back(whatIf({.key = "compute",
                        .flag = "--what-if-compute",
                        .label = "Compute",
                        .help = "Multiplies the device's peak FLOP/s in every number format."},
                       &WhatIf::compute));
    t.push_back(
        whatIf({.key = "bandwidth",
                .flag = "--what-if-bandwidth",
                .label = "Bandwidth",
                .help = "Multiplies the bandwidth of every memory level; the ridge point moves by the inverse."},
               &WhatIf::bandwidth));
    t.push_back(whatIf({.key = "capacity",
                        .flag = "--what-if-capacity",
                        .label = "Capacity",
                        .help = "Multiplies the capacity of every memory level."},
                       &WhatIf::capacity));
    return t;
}

} // namespace

const std::vector<ScenarioOption> &scenarioOptions()
{
    static const std::vector<ScenarioOption> table = makeOptions();
    return table;
}

const ScenarioOption *findOption(std::string_view key, OptionSection section)
{
    for (const auto &o : scenarioOptions())
        if (o.key == key && o.section == section)
            return &o;
    return nullptr;
}

const ScenarioOption *findOptionByFlag(std::string_view flag, bool *negated)
{
    for (const auto &o : scenarioOptions()) {
        const bool plain = o.flag == flag;
        const bool no = o.kind == OptionKind::Switch && flag.starts_with("--no-") && o.flag.substr(2) == flag.substr(5);
        if (plain || no) {
            if (negated)
                *negated = no;
            return &o;
        }
    }
    return nullptr;
}

std::string describeValues(const ScenarioOption &o)
{
    switch (o.kind) {
    case OptionKind::Integer:
    case OptionKind::Real:
        return (o.minOpen ? "above " + number(o.min) + " up to " : number(o.min) + " to ") + number(o.max) +
               (o.nullable ? ", or auto" : "");
    case OptionKind::Choice: {
        std::string list;
        for (const auto &c : o.choices)
            list += (list.empty() ? "" : ", ") + c;
        return o.openChoice ? list + ", ..." : list;
    }
    case OptionKind::Switch: return "on or off";
    }
    return {};
}

std::string optionText(const OptionValue &v)
{
    if (std::holds_alternative<bool>(v))
        return std::get<bool>(v) ? "on" : "off";
    if (std::holds_alternative<int64_t>(v))
        return std::to_string(std::get<int64_t>(v));
    if (std::holds_alternative<double>(v))
        return number(std::get<double>(v));
    if (std::holds_alternative<std::string>(v))
        return std::get<std::string>(v);
    return "auto";
}

std::string outOfRange(const ScenarioOption &o, std::string_view got)
{
    return (o.minOpen ? "must be above " + number(o.min) + " and at most "
                      : "must be between " + number(o.min) + " and ") +
           number(o.max) + ", got " + echoValue(got);
}

bool optionAccepts(const ScenarioOption &o, const OptionValue &v)
{
    switch (o.kind) {
    case OptionKind::Integer: {
        const int64_t *n = std::get_if<int64_t>(&v);
        return n && static_cast<double>(*n) >= o.min && static_cast<double>(*n) <= o.max;
    }
    case OptionKind::Real: {
        if (std::holds_alternative<std::monostate>(v))
            return o.nullable;
        const double *x = std::get_if<double>(&v);
        return x && std::isfinite(*x) && *x <= o.max && *x >= o.min && !(o.minOpen && *x <= o.min);
    }
    case OptionKind::Choice:
    case OptionKind::Switch: return checkOption(o, v).empty();
    }
    return true;
}

std::string checkOption(const ScenarioOption &o, const OptionValue &v)
{
    switch (o.kind) {
    case OptionKind::Integer: {
        if (!std::holds_alternative<int64_t>(v))
            return "expects a whole number, got " + echoValue(optionText(v));
        const int64_t n = std::get<int64_t>(v);
        if (static_cast<double>(n) < o.min || static_cast<double>(n) > o.max)
            return outOfRange(o, std::to_string(n));
        return {};
    }
    case OptionKind::Real: {
        if (std::holds_alternative<std::monostate>(v))
            return o.nullable ? std::string() : "expects a number";
        if (!std::holds_alternative<double>(v))
            return "expects a number, got " + echoValue(optionText(v));
        const double x = std::get<double>(v);
        if (!std::isfinite(x) || x > o.max || x < o.min || (o.minOpen && x <= o.min))
            return outOfRange(o, number(x));
        return {};
    }
    case OptionKind::Choice: {
        if (!std::holds_alternative<std::string>(v))
            return "expects one of " + describeValues(o);
        Scenario s;
        WhatIf w;
        return o.set(s, w, v); // the setter knows which names it understands
    }
    case OptionKind::Switch:
        return std::holds_alternative<bool>(v) ? std::string() : "expects on or off, got " + echoValue(optionText(v));
    }
    return {};
}

std::string applyOption(const ScenarioOption &o, Scenario &s, WhatIf &w, const OptionValue &v)
{
    if (auto e = checkOption(o, v); !e.empty())
        return e;
    return o.set(s, w, v);
}

std::string parseOptionText(const ScenarioOption &o, std::string_view text, OptionValue *out)
{
    const char *end = text.data() + text.size();
    switch (o.kind) {
    case OptionKind::Integer: {
        if (!o.zeroMeans.empty() && text == o.zeroMeans) {
            *out = int64_t{0};
            return {};
        }
        int64_t n = 0;
        auto [ptr, ec] = std::from_chars(text.data(), end, n);
        if (!text.empty() && ec == std::errc::result_out_of_range && ptr == end)
            return outOfRange(o, text); // digits all the way, too many for any count: not wrapped
        if (text.empty() || ec != std::errc() || ptr != end)
            return "'" + echoValue(text) + "' is not a whole number";
        *out = n;
        return {};
    }
    case OptionKind::Real: {
        if (o.nullable && text == "auto") {
            *out = std::monostate{};
            return {};
        }
        double x = 0;
        auto [ptr, ec] = std::from_chars(text.data(), end, x);
        if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(x))
            return "'" + echoValue(text) + "' is not a number";
        *out = x;
        return {};
    }
    case OptionKind::Choice: *out = std::string(text); return {};
    case OptionKind::Switch:
        for (auto [name, on] : {std::pair{"true", true},
                                {"on", true},
                                {"yes", true},
                                {"1", true},
                                {"false", false},
                                {"off", false},
                                {"no", false},
                                {"0", false}})
            if (text == name) {
                *out = on;
                return {};
            }
        return "'" + echoValue(text) + "' is not on or off";
    }
    return {};
}

std::vector<std::string_view> sweepableFields()
{
    std::vector<std::string_view> keys;
    for (const auto &o : scenarioOptions())
        if (o.kind == OptionKind::Integer && o.section == OptionSection::Scenario)
            keys.push_back(o.key);
    return keys;
}

bool setIntegerOption(Scenario &s, std::string_view key, int64_t value)
{
    const ScenarioOption *o = findOption(key);
    if (!o || o->kind != OptionKind::Integer)
        return false;
    WhatIf unused;
    o->set(s, unused, value);
    return true;
}

} // namespace memwall::core
