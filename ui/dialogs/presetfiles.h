#pragma once

#include <nlohmann/json.hpp>

#include <QColor>
#include <QString>

class QLabel;
class QWidget;

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

/// Number typed by the user in a display unit → JSON in base units: empty → null, a number → number × `scale`,
/// anything else → the text itself as a JSON string (so the core reports "expected a number, got \"abc\"").
nlohmann::json numberFromText(const QString &text, double scale);

/// Background of a field or table cell holding an invalid value, in both editors.
inline const QColor kInvalidBackground{0xfd, 0xe2, 0xe1};

/// A hidden, word-wrapped, selectable label in the editors' error colour, for a field's message.
QLabel *makeErrorLabel(QWidget *parent);

/// Gives `w` (null: nothing) the editors' background of an invalid value, or takes it away.
void setInvalid(QWidget *w, bool invalid);

/// A base-unit value shown in a display unit with up to 10 significant digits (no trailing zeros).
QString textFromNumber(double value, double scale);

} // namespace memwall::ui
