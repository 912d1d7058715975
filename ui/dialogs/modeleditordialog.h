#pragma once

#include "core/io/presets.h"
#include "core/model/dtype.h"
#include "core/model/modelshape.h"
#include "ui/dialogs/preseteditordialog.h"

#include <QHash>

#include <optional>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace memwall::ui {

class ScenarioDocument;

/// Edits a model shape as a copy of a preset (or of the current model) and saves it as a user model preset
/// ({"kind": "model", "schema": 1, "id", "name", "source", "shape": {…}} in presets/models/<id>.json of the per-user
/// folder), usable in the GUI and on the command line by id.
///
/// Every edit is validated through core::modelPresetFromJson() (which applies core::validate() to the shape), the
/// message shown next to the field it names, Save disabled meanwhile. The parameter count (core::paramCount) and
/// the KV-cache bytes per token update live.
class ModelEditorDialog : public PresetEditorDialog
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

    /// Marks every field `e` is about (its fields(), never its text) and shows the message under the first.
    void showError(const core::InputError &e) override;
    /// The last valid shape (id and name included).
    const core::ModelShape &shape() const { return m_shape; }
    /// Parameter count of the last valid shape.
    const core::ParamCounts &params() const { return m_params; }
    /// KV-cache bytes per token of the last valid shape at the chosen KV format.
    double kvBytesPerToken() const;

    /// Runs the dialog starting from `start`; on Save switches `doc` to the new model and returns its shape.
    /// `newPreset`: "New model…" (always a new id); otherwise a user preset keeps its id.
    static std::optional<core::ModelShape> editInto(ScenarioDocument *doc, const core::ModelShape &start,
                                                    QWidget *parent, bool newPreset = false);

private:
    void buildUi();
    /// An error label under the row of `key` in `form`, hidden until an error names it.
    void errorRow(QFormLayout *form, const QString &key);
    /// A row of `form` editing the file's `key`; every control revalidates on each change.
    QLineEdit *addLineEdit(QFormLayout *form, const QString &key, const QString &label, const QString &tip);
    QSpinBox *addSpin(QFormLayout *form, const QString &key, const QString &label, const QString &tip);
    void addCombo(QFormLayout *form, const QString &key, const QString &label, const QStringList &items,
                  const QString &tip);
    void addCheck(QFormLayout *form, const QString &key, const QString &label, const QString &tip);
    QGroupBox *buildIdentityBox();  ///< id, name, family, source, year, architecture, activation, positions, norm
    QGroupBox *buildShapeBox();     ///< the whole-number sizes
    QGroupBox *buildStructureBox(); ///< the yes/no choices
    QGroupBox *buildComputedBox();  ///< parameters and KV cache per token, live
    nlohmann::json collect() const override;
    void check(const nlohmann::json &file) override;
    void showSummary(bool valid) override;
    QString presetId() const override;
    QString builtinNameFor(const QString &id) const override;

    core::DType m_kv;
    core::ModelShape m_base; ///< what the fields were filled from: keeps the fields the dialog does not show
    core::ModelShape m_shape;
    core::ParamCounts m_params;

    QLineEdit *m_id = nullptr, *m_name = nullptr, *m_family = nullptr, *m_source = nullptr;
    QSpinBox *m_year = nullptr;
    QHash<QString, QSpinBox *> m_ints;    ///< by JSON key: layers, hidden, heads, kv_heads, ...
    QHash<QString, QCheckBox *> m_bools;  ///< gated_ffn, tied_embeddings, qkv_bias, ...
    QHash<QString, QComboBox *> m_combos; ///< arch, activation, positions, norm
    QLabel *m_paramsLabel = nullptr, *m_kvLabel = nullptr;
};

} // namespace memwall::ui
