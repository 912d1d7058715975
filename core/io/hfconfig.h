#pragma once

#include "core/io/jsonreader.h"
#include "core/model/modelshape.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace memwall::core {

/// Builds a ModelShape from a Hugging Face `config.json` object, for the families MemWall knows (model_type):
/// llama, mistral, mixtral, qwen2, qwen2_moe, gemma, gemma2, phi3, gpt2, bert, opt, falcon, gpt_neox, vit, ...
/// `file` names the origin in messages; the id/name are derived from `_name_or_path` or the file name.
/// Throws InputError with one line naming the file and the missing/unknown field, or the model_type with the part
/// MemWall does not model.
ModelShape importHfConfig(const nlohmann::json &config, const std::string &file);

/// Reads `path` and imports it (size limit, syntax errors with line and column).
ModelShape importHfConfigFile(const std::string &path);

/// An imported model and the import report: one line for each thing the importer read beyond the shape's keys
/// (quantization_config, multi-token-prediction modules), assumed (a key left out of the file and given the
/// transformers configuration class's default) or left out (a part that is not modelled).
struct HfImport
{
    ModelShape shape;
    std::vector<std::string> report;
};
HfImport importHfConfigReport(const nlohmann::json &config, const std::string &file);
HfImport importHfConfigFileReport(const std::string &path);

} // namespace memwall::core
