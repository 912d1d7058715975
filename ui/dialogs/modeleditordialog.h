#pragma once

#include "core/io/presets.h"
#include "core/model/dtype.h"
#include "core/model/modelshape.h"

#include <nlohmann/json.hpp>

#include <QDialog>
#include <QHash>

#include <functional>
#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace memwall::ui {

class PresetPicker;
class ScenarioDocument;

/// Edits a model shape as a copy of a preset (or of the current model) and saves it as a user model preset
/// ({"kind": "model", "schema": 1, "id", "name", "source", "shape": {…}} in presets/models/<id>.json of the per-user
/// folder), usable in the GUI and on the command line by id.
///
/// Every edit is validated through core::modelPresetFromJson() (which applies core::validate() to the shape), the
/// message shown next to the field it names, Save disabled meanwhile. The parameter count (core::paramCount) and
/// the KV-cache bytes per token update live.
class ModelEditorDialog : public QDialog
{
    Q_OBJECT
public:
    /// `kv` is the KV-cache format the bytes-per-token figure is shown for (the scenario's).
    ModelEditorDialog(const core::PresetLibrary &presets, const core::ModelShape &start, QWidget *parent = nullptr,
                      core::DType kv = core::DType::FP16);

    /// Fills every field from `shape` (same id); `source` is the preset's source text.
    void setShape(const core::ModelShape &shape, const QString &source = QString(), int year = 0);
    /// Fills from a preset; a built-in (or any, with `newId`) gets a new id ("<id>-custom").
    void copyFrom(const core::ModelPreset &preset, bool newId = false);

    bool isValid() const { return m_error.isEmpty(); }
    const QString &validationError() const { return m_error; }
    /// The field the message is about, core::InputError::field() ("kv_heads", "id"), "" when valid.
    const QString &errorField() const { return m_errorField; }
    /// Marks every field `e` is about (its fields(), never its text) and shows the message under the first.
    void showError(const core::InputError &e);
    /// The last valid shape (id and name included).
    const core::ModelShape &shape() const { return m_shape; }
    const nlohmann::json &presetJson() const { return m_json; }
    /// Parameter count of the last valid shape.
    const core::ParamCounts &params() const { return m_params; }
    /// KV-cache bytes per token of the last valid shape at the chosen KV format.
    double kvBytesPerToken() const;

    bool save(QString *error);
    const QString &savedPath() const { return m_savedPath; }
    void setConfirm(std::function<bool(const QString &question)> confirm) { m_confirm = std::move(confirm); }

    /// Runs the dialog starting from `start`; on Save switches `doc` to the new model and returns its shape.
    /// `newPreset`: "New model…" (always a new id); otherwise a user preset keeps its id.
    static std::optional<core::ModelShape> editInto(ScenarioDocument *doc, const core::ModelShape &start,
                                                    QWidget *parent, bool newPreset = false);

public slots:
    void accept() override;

private:
    void buildUi();
    void revalidate();
    nlohmann::json collect() const;

    const core::PresetLibrary &m_presets;
    core::DType m_kv;
    core::ModelShape m_base; ///< what the fields were filled from: keeps the fields the dialog does not show
    core::ModelShape m_shape;
    core::ParamCounts m_params;
    nlohmann::json m_json;
    QString m_error, m_errorField, m_savedPath;
    bool m_filling = false;
    std::function<bool(const QString &)> m_confirm;

    PresetPicker *m_copyFrom = nullptr;
    QLineEdit *m_id = nullptr, *m_name = nullptr, *m_family = nullptr, *m_source = nullptr;
    QSpinBox *m_year = nullptr;
    QHash<QString, QSpinBox *> m_ints;    ///< by JSON key: layers, hidden, heads, kv_heads, ...
    QHash<QString, QCheckBox *> m_bools;  ///< gated_ffn, tied_embeddings, qkv_bias, ...
    QHash<QString, QComboBox *> m_combos; ///< arch, activation, positions, norm
    QHash<QString, QLabel *> m_errorLabels;
    QHash<QString, QWidget *> m_fieldWidgets;
    QLabel *m_paramsLabel = nullptr, *m_kvLabel = nullptr, *m_generalError = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace memwall::ui
