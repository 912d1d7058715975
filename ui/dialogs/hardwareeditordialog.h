#pragma once

#include "core/hardware/hardwarespec.h"
#include "core/io/presets.h"

#include <nlohmann/json.hpp>

#include <QDialog>
#include <QHash>

#include <array>
#include <functional>
#include <optional>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;
class QTableWidgetItem;

namespace memwall::ui {

class PresetPicker;
class ScenarioDocument;

/// Edits a device as a copy of a preset (or of the current device) and saves it as a user preset
/// (presets/hardware/<id>.json in the per-user folder), usable in the GUI and on the command line by id.
///
/// Every edit is validated by round-tripping the would-be file through core::hardwareFromJson(), so the rules are
/// exactly those of preset files; the message appears next to the field it names and Save is disabled meanwhile.
/// Numbers are shown in TFLOP/s, GB, GB/s and µs and converted to SI base units. Each field group has one source text;
/// a number left unchanged keeps its own published source unless the group's source text is edited.
class HardwareEditorDialog : public QDialog
{
    Q_OBJECT
public:
    HardwareEditorDialog(const core::PresetLibrary &presets, const core::HardwareSpec &start,
                         QWidget *parent = nullptr);

    /// Fills every field from `spec` as it is (same id).
    void setSpec(const core::HardwareSpec &spec);
    /// Fills every field from a preset; a built-in preset (or any, with `newId`) gets a new id ("<id>-custom") so it
    /// is not replaced by accident.
    void copyFrom(const core::HardwareSpec &preset, bool newId = false);

    bool isValid() const { return m_error.isEmpty(); }
    /// The core's one-line message for the current fields ("" when valid).
    const QString &validationError() const { return m_error; }
    /// The field that message is about, core::InputError::field() ("memory[2].bandwidth_bytes_per_s.value"), "" when
    /// valid.
    const QString &errorField() const { return m_errorField; }
    /// Marks the field `e` is about (its field(), never its text: the wording may change) and shows its message()
    /// next to it, numbers in the units shown. Every edit calls it with the core's error; tests may call it too.
    void showError(const core::InputError &e);
    /// The last valid device (after Save: the saved one).
    const core::HardwareSpec &spec() const { return m_spec; }
    /// The preset file the fields describe (schema: presets/README.md).
    const nlohmann::json &presetJson() const { return m_json; }

    /// Writes the preset file; asks before replacing a built-in preset or an existing user file. False (with `error`
    /// set, empty if the user declined) when nothing was written.
    bool save(QString *error);
    const QString &savedPath() const { return m_savedPath; }

    /// Replaces the yes/no question asked before an id replaces an existing preset (tests answer it without a dialog).
    void setConfirm(std::function<bool(const QString &question)> confirm) { m_confirm = std::move(confirm); }

    /// Runs the dialog starting from `start`; on Save switches `doc` to the new device and returns it.
    /// `newPreset`: "New device…" (always a new id); otherwise "Edit current device…" (a user preset keeps its id, a
    /// built-in one is copied under a new id).
    static std::optional<core::HardwareSpec> editInto(ScenarioDocument *doc, const core::HardwareSpec &start,
                                                      QWidget *parent, bool newPreset = false);

public slots:
    void accept() override;

private:
    enum Group { DeviceGroup, ComputeGroup, MemoryGroup, LinkGroup, GroupCount };

    void buildUi();
    void revalidate();
    nlohmann::json collect() const;
    nlohmann::json sourced(const nlohmann::json &value, const std::optional<core::Sourced> &original, Group g) const;
    void clearErrors();
    void markCell(QTableWidget *table, int row, int column, const QString &message);
    void addMemoryRow(int at, const core::MemoryLevel &level, bool original);
    void addLinkRow(int at, const core::Interconnect &link, bool original);
    void moveRow(QTableWidget *table, int from, int to);
    void setRowKindCombo(int row, core::MemoryKind kind);

    const core::PresetLibrary &m_presets;
    core::HardwareSpec m_base; ///< what the fields were filled from (keeps price, achievable fractions, sources)
    core::HardwareSpec m_spec;
    nlohmann::json m_json;
    QString m_error, m_errorField, m_savedPath;
    bool m_filling = false;
    std::function<bool(const QString &)> m_confirm;

    PresetPicker *m_copyFrom = nullptr;
    QLineEdit *m_id = nullptr, *m_name = nullptr, *m_vendor = nullptr, *m_tdp = nullptr, *m_notes = nullptr;
    QComboBox *m_category = nullptr;
    QSpinBox *m_year = nullptr;
    std::array<QLineEdit *, core::kDTypeCount> m_peaks{};
    std::array<QLineEdit *, GroupCount> m_source{};
    std::array<QString, GroupCount> m_initialSource;
    QTableWidget *m_memory = nullptr, *m_links = nullptr;
    QLabel *m_summary = nullptr, *m_generalError = nullptr;
    QHash<QString, QLabel *> m_errorLabels; ///< by top-level field: "id", "year", "peak_flops", "memory", ...
    QHash<QString, QWidget *> m_fieldWidgets;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace memwall::ui
