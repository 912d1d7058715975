#pragma once
// The per-user preset folder and writing a preset into it: QtCore only, so that the command line loads and saves
// presets without Qt Widgets (the editors' widgets are in ui/dialogs/presetfiles.h).

#include <nlohmann/json.hpp>

#include <QString>

#include <functional>
#include <string>

namespace memwall::ui {

/// The per-user preset folder, <GenericDataLocation>/<application name>/presets (~/.local/share/MemWall/presets): the
/// command line loads presets/hardware and presets/models from it at start, overriding built-ins by id, and so
/// should the GUI (it is AppDataLocation when no organisation name is set).
QString userPresetDir();

/// Writes `preset` to userPresetDir()/`subfolder`/`id`.json atomically (QSaveFile: a failed write leaves the old file
/// untouched). Returns the path, or an empty string with `error` set to one line.
QString saveUserPreset(const QString &subfolder, const QString &id, const nlohmann::json &preset, QString *error);

/// An editor's Save: saveUserPreset(), after asking `confirm` whether to replace the built-in preset `builtinName`
/// (non-empty when `id` is a built-in's) or a user preset file other than `savedPath` (the one this editor wrote).
/// Returns the path written, or an empty string with `error` set to one line (the write failed) or cleared (the user
/// declined).
QString saveUserPresetAsking(const QString &subfolder, const QString &id, const QString &builtinName,
                             const nlohmann::json &preset, const QString &savedPath,
                             const std::function<bool(const QString &question)> &confirm, QString *error);

/// True for a preset compiled into the program (its origin is "presets/…"), false for user and --presets files.
bool isBuiltinPreset(const std::string &sourceFile);

} // namespace memwall::ui
