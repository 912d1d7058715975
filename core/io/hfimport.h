#pragma once
// Internal to the config.json importer (hfconfig.cpp, hffamilies.cpp, hfquant.cpp), not public API: the readers of
// sizes that every family shares, the family readers that newer families build on, and the import log.

#include "core/io/jsonreader.h"
#include "core/model/modelshape.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core::hf {

/// What an import read, assumed or left out, one line each, for the import report (HfImport::report).
struct ImportLog
{
    std::vector<std::string> lines;
    void note(std::string line) { lines.push_back(std::move(line)); }
};

/// A family's reader: fills `m` from the config `r` of model_type `type`, noting what it assumed in `log`.
using FamilyReader = void (*)(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);

// The shared readers of hfconfig.cpp (their comments are there).
int64_t sizeField(JsonReader &r, std::string_view key);
int64_t requiredSize(JsonReader &r, std::initializer_list<std::string_view> keys);
int64_t optionalSize(JsonReader &r, std::initializer_list<std::string_view> keys, int64_t fallback);
int64_t defaultedSize(JsonReader &r, ImportLog &log, std::string_view key, int64_t fallback, std::string_view cls,
                      std::string_view where = "");
Activation activation(JsonReader &r, std::initializer_list<std::string_view> keys, Activation fallback);
int64_t slidingWindow(JsonReader &r, std::string_view key, int64_t absent);
double softcap(JsonReader &r, std::string_view key, double absent);
int64_t headDim(JsonReader &r, const ModelShape &m, std::string_view headsKey, std::string_view hiddenKey,
                int64_t explicitFallback);
void checkKvHeads(JsonReader &r, const ModelShape &m, std::string_view kvKey, std::string_view headsKey);
int64_t globalEveryFromLayerTypes(JsonReader &r, const ModelShape &m);
void importRotaryDecoder(JsonReader &r, ModelShape &m);
void importLlamaLike(JsonReader &r, ModelShape &m, const std::string &type);
void importDeepseek(JsonReader &r, ModelShape &m, const std::string &type);
/// The key names of DeepSeek-V3's MoE layout in one family's config (Kimi-Linear spells them its own way).
struct DeepseekMoeKeys
{
    std::string_view experts, perToken, shared;
};
/// DeepSeek-V3's MoE layout, m.experts already read from `keys.experts`: `keys.perToken` experts a token of width
/// moe_intermediate_size, `keys.shared` always-active experts as one FFN that many times as wide, and the layers
/// before first_k_dense_replace and off every moe_layer_freq-th one a dense MLP of width `dense`.
void readDeepseekMoe(JsonReader &r, ModelShape &m, const DeepseekMoeKeys &keys, int64_t dense);
void importNemotronH(JsonReader &r, ModelShape &m);
void importCohere(JsonReader &r, ModelShape &m);

// The families of hffamilies.cpp.
void importMinimaxM2(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importMimo(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importSparseMla(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importGlm4Moe(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importCohere2(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importGemma3Text(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importGemma3(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importQwen3Vl(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
// hfkimi.cpp
void importKimiLinear(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
/// Kimi K2.5's vision_config: the MoonViT tower and its patchmerger projector, into m.vision (m's language model read
/// first).
void readMoonViT(JsonReader &r, ModelShape &m, ImportLog &log);

// The families of hfgemma.cpp.
void importGemma3nText(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importGemma3n(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importGemma4Text(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importGemma4(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
// hfstep.cpp
void importStep35(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
void importStep37(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
// hfdeci.cpp
void importDeci(JsonReader &r, ModelShape &m, ImportLog &log, const std::string &type);
/// Llama 4's vision_config: the tower, its pixel-shuffle adapter and projector, into m.vision (m's language model
/// read first).
void readLlama4Vision(JsonReader &r, ModelShape &m, ImportLog &log);
/// The multi-token-prediction modules of `key` (num_nextn_predict_layers of DeepSeek-V3 and MiMo): 0 when absent;
/// noted in the log when present.
int64_t mtpModules(JsonReader &r, ImportLog &log, std::string_view key);
/// The recurrent state's format from `key` (Qwen3.5's mamba_ssm_dtype, Nemotron-3's mamba_ssm_cache_dtype) into
/// ModelShape::stateFormat, noted in the log; absent: unset (the KV cache's format).
void readStateFormat(JsonReader &r, ModelShape &m, ImportLog &log, std::string_view key);

// hfquant.cpp
/// Reads `quantization_config` (when present) into the shape's checkpoint formats and notes what it read.
void readQuantization(JsonReader &r, ModelShape &m, ImportLog &log);

} // namespace memwall::core::hf
