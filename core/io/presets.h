#pragma once

#include "core/analysis/scenario.h"
#include "core/hardware/hardwarespec.h"
#include "core/io/jsonreader.h"
#include "core/model/modelshape.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace memwall::core {

/// A model from the library: its shape plus the officially stated parameter counts and where the shape comes from.
struct ModelPreset
{
    ModelShape shape;
    std::optional<Sourced> paramsOfficial;       ///< total parameters as published
    std::optional<Sourced> activeParamsOfficial; ///< MoE: parameters active per token as published
    std::string source;                          ///< where the shape (config.json) comes from
    int year = 0;
    std::string notes;
    std::string sourceFile;
};

/// A preset file that could not be used, and why (one line naming file, field and value); or, when `skipped` is
/// false, a file that was used but hides another user file with the same id.
struct PresetIssue
{
    std::string file;
    std::string message;
    bool skipped = true;
};

// ---- JSON <-> values (schema: presets/README.md) ----
HardwareSpec hardwareFromJson(const nlohmann::json &j, const std::string &file); ///< throws InputError
nlohmann::json toJson(const HardwareSpec &hw);
/// The "achievable" block of a hardware preset (the editor carries it through unchanged).
nlohmann::json toJson(const AchievableModel &m);
ModelPreset modelPresetFromJson(const nlohmann::json &j, const std::string &file); ///< throws InputError
/// A model shape in MemWall's own field names (the "shape" object of a model preset, inline models in scenarios).
ModelShape modelShapeFromJson(const nlohmann::json &j, const std::string &file);
nlohmann::json toJson(const ModelShape &m);

/// All hardware and model presets: built-ins (compiled into the program from presets/) plus user folders, the
/// later overriding earlier ones with the same id. Broken files are skipped and reported in issues().
class PresetLibrary
{
public:
    /// Loads the presets compiled into the binary. Files loaded later override them by id, silently: that is how a
    /// user's edited copy of a built-in device takes its place. Two user files with one id are reported in issues().
    void loadBuiltin();
    /// Loads every *.json under DIR/hardware and DIR/models (or DIR itself, sorted by the "kind" inside).
    /// A missing folder is not an error unless `mustExist`.
    void loadDirectory(const std::string &dir, bool mustExist = false);
    /// Parses one preset file's text; returns false (and records an issue) if it is broken.
    bool loadText(std::string_view text, const std::string &origin);

    void add(HardwareSpec hw);   ///< adds or replaces by id
    void add(ModelPreset model); ///< adds or replaces by id

    /// Every device, by vendor, then year, then name (the order every list shows them in).
    const std::vector<HardwareSpec> &hardware() const { return m_hardware; }
    const std::vector<ModelPreset> &models() const { return m_models; }
    const HardwareSpec *findHardware(std::string_view id) const;
    const ModelPreset *findModel(std::string_view id) const;
    /// The draft model of a scenario's speculative decoding: nullptr for "mtp" (the model's own prediction module),
    /// else the preset; throws AnalysisError "draft_model: unknown model 'ID' (closest: ...)" for an unknown id.
    const ModelShape *draftModel(const Scenario &s) const;
    /// Up to `n` ids closest to `id` (edit distance, substring matches first), for "did you mean" messages.
    std::vector<std::string> closestHardware(std::string_view id, std::size_t n = 3) const;
    std::vector<std::string> closestModels(std::string_view id, std::size_t n = 3) const;

    const std::vector<PresetIssue> &issues() const { return m_issues; }

private:
    std::vector<HardwareSpec> m_hardware;
    std::vector<ModelPreset> m_models;
    std::vector<PresetIssue> m_issues;
    bool m_loadingBuiltin = false;
    std::map<std::string, std::string> m_userFiles; ///< "hardware:ID" / "model:ID" -> the user file that defined it
    /// Indices by id, so that adding ten thousand presets is not quadratic (issue #42).
    std::unordered_map<std::string, std::size_t> m_hardwareAt, m_modelAt;
    bool m_batch = false; ///< loading a folder: add() appends, and the folder is sorted once at the end

    void noteUserFile(const std::string &kind, const std::string &id, const std::string &file);
    void sortHardware(); ///< display order, and m_hardwareAt rebuilt
    friend class PresetBatch;
};

/// The preset files compiled into the program: {relative path, JSON text}. Generated at build time from presets/.
struct EmbeddedFile
{
    const char *path;
    const char *text;
};
const std::vector<EmbeddedFile> &builtinPresetFiles();

/// Levenshtein distance, for suggestions.
std::size_t editDistance(std::string_view a, std::string_view b);

} // namespace memwall::core
