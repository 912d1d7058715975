#pragma once

#include "core/io/jsonreader.h"
#include "core/model/modelshape.h"

#include <nlohmann/json.hpp>

#include <string>

namespace memwall::core {

/// Builds a ModelShape from a Hugging Face `config.json` object, for the families MemWall knows (model_type):
/// llama, mistral, mixtral, qwen2, qwen2_moe, gemma, gemma2, phi3, gpt2, bert, opt, falcon, gpt_neox, vit, ...
/// `file` names the origin in messages; the id/name are derived from `_name_or_path` or the file name.
/// Throws InputError with one line naming the file and the missing/unknown field or unsupported model_type.
ModelShape importHfConfig(const nlohmann::json &config, const std::string &file);

/// Reads `path` and imports it (size limit, syntax errors with line and column).
ModelShape importHfConfigFile(const std::string &path);

} // namespace memwall::core
