#pragma once

#include "core/io/jsonreader.h"
#include "core/io/presets.h"

#include <nlohmann/json.hpp>

#include <QDialog>
#include <QHash>

#include <functional>

class QBoxLayout;
class QDialogButtonBox;
class QLabel;
class QWidget;

namespace memwall::ui {

class PresetPicker;

/// What the device and model editors share: a preset file built from the fields and validated by the core's own
/// reader on every edit (its InputError marks the fields it names, Save disabled meanwhile), the "start from a copy
/// of" picker, and saving as a user preset (asking before an id replaces a built-in or existing file).
///
/// A subclass builds its fields, and supplies the file (collect()), the reading of it (check()), where an error
/// shows (showError()) and the figures shown when it is valid (showSummary()).
class PresetEditorDialog : public QDialog
{
    Q_OBJECT
public:
    bool isValid() const { return m_error.isEmpty(); }
    /// The core's one-line message for the current fields ("" when valid).
    const QString &validationError() const { return m_error; }
    /// The field that message is about, core::InputError::field() ("kv_heads",
    /// "memory[2].bandwidth_bytes_per_s.value"), "" when valid.
    const QString &errorField() const { return m_errorField; }
    /// Marks the fields `e` is about (its field() and fields(), never its text: the wording may change) and shows its
    /// message next to the first. Every edit calls it with the core's error; tests may call it too.
    virtual void showError(const core::InputError &e) = 0;
    /// The preset file the fields describe (schema: presets/README.md).
    const nlohmann::json &presetJson() const { return m_json; }

    /// Writes the preset file; asks before replacing a built-in preset or an existing user file. False (with `error`
    /// set, empty if the user declined) when nothing was written.
    bool save(QString *error);
    const QString &savedPath() const { return m_savedPath; }
    /// Replaces the yes/no question asked before an id replaces an existing preset (tests answer it without a dialog).
    void setConfirm(std::function<bool(const QString &question)> confirm) { m_confirm = std::move(confirm); }

public slots:
    void accept() override;

protected:
    /// `folder`: the user preset folder written to ("hardware", "models"); `saveFailedTitle`: the title of the
    /// message box when a save fails.
    PresetEditorDialog(const core::PresetLibrary &presets, QString folder, QString saveFailedTitle, QWidget *parent);

    /// The preset file the fields describe.
    virtual nlohmann::json collect() const = 0;
    /// Reads `file` as the core reads a preset file and keeps the result; throws core::InputError when it is not a
    /// valid preset.
    virtual void check(const nlohmann::json &file) = 0;
    /// Clears every mark and message of the last error (the base clears its error labels and field widgets).
    virtual void clearErrors();
    /// Shows the live figures of the last valid preset, or says what to fix when `valid` is false.
    virtual void showSummary(bool valid) = 0;
    /// The id the preset is saved under, and the display name of the built-in preset it would replace ("" if none).
    virtual QString presetId() const = 0;
    virtual QString builtinNameFor(const QString &id) const = 0;
    /// Called after a successful save with the file written.
    virtual void saved(const QString &path) { Q_UNUSED(path); }

    /// Rebuilds the file from the fields and checks it (nothing while the fields are being filled).
    void revalidate();
    /// Adds the Save and Cancel buttons to `layout`; Save's tooltip names the user preset folder.
    void addButtons(QBoxLayout *layout);
    /// A "Start from a copy of:" row with the picker (objectName "copyFrom"), added to `layout`.
    PresetPicker *addCopyFromRow(QBoxLayout *layout, const QString &tooltip);

    const core::PresetLibrary &m_presets;
    nlohmann::json m_json;
    QString m_error, m_errorField, m_savedPath;
    bool m_filling = false; ///< the fields are being filled from a preset: no revalidation per field
    PresetPicker *m_copyFrom = nullptr;
    QHash<QString, QLabel *> m_errorLabels; ///< by field key
    QHash<QString, QWidget *> m_fieldWidgets;
    QLabel *m_generalError = nullptr; ///< an error no field label shows
    QDialogButtonBox *m_buttons = nullptr;

private:
    QString m_folder, m_saveFailedTitle;
    std::function<bool(const QString &)> m_confirm;
};

} // namespace memwall::ui
