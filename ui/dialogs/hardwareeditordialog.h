#pragma once

#include "core/hardware/hardwarespec.h"
#include "core/io/presets.h"
#include "ui/dialogs/preseteditordialog.h"

#include <QStringList>

#include <array>
#include <functional>
#include <optional>

class QComboBox;
class QFormLayout;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;
class QTableWidgetItem;

namespace memwall::ui {

class ScenarioDocument;

/// Edits a device as a copy of a preset (or of the current device) and saves it as a user preset
/// (presets/hardware/<id>.json in the per-user folder), usable in the GUI and on the command line by id.
///
/// Every edit is validated by round-tripping the would-be file through core::hardwareFromJson(), so the rules are
/// exactly those of preset files; the message appears next to the field it names and Save is disabled meanwhile.
/// Numbers are shown in TFLOP/s, GB, GB/s and µs and converted to SI base units. Each field group has one source text;
/// a number left unchanged keeps its own published source unless the group's source text is edited.
class HardwareEditorDialog : public PresetEditorDialog
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

    /// Marks the field `e` is about (its field(), never its text: the wording may change) and shows its message()
    /// next to it, numbers in the units shown. Every edit calls it with the core's error; tests may call it too.
    void showError(const core::InputError &e) override;
    /// The last valid device (after Save: the saved one).
    const core::HardwareSpec &spec() const { return m_spec; }
    /// Runs the dialog starting from `start`; on Save switches `doc` to the new device and returns it.
    /// `newPreset`: "New device…" (always a new id); otherwise "Edit current device…" (a user preset keeps its id, a
    /// built-in one is copied under a new id).
    static std::optional<core::HardwareSpec> editInto(ScenarioDocument *doc, const core::HardwareSpec &start,
                                                      QWidget *parent, bool newPreset = false);

private:
    enum Group { DeviceGroup, ComputeGroup, MemoryGroup, LinkGroup, GroupCount };

    /// A table box's settings: the memory levels' or the links'.
    struct TableBox
    {
        QString title, objectName;
        QStringList headers;
        QString tip;
        QTableWidget **out; ///< set to the box's table
        QString errorKey;   ///< the key of the box's error label (the file's key: "memory", "interconnects")
        Group group;        ///< the source text the box's numbers share
        QString sourceTip;
        std::function<void(int)> addRow; ///< adds a new row at an index
    };

    void buildUi();
    /// A line edit for the file's `key`, revalidating on every change.
    QLineEdit *fieldEdit(const QString &key, const QString &tip);
    /// The source text of group `g`.
    QLineEdit *sourceEdit(Group g, const QString &tip);
    /// An error label under the row of `key` in `form`, hidden until an error names it.
    void errorRow(QFormLayout *form, const QString &key);
    QGroupBox *buildDeviceBox();  ///< id, name, vendor, category, year, TDP, their source, notes
    QGroupBox *buildComputeBox(); ///< a dense peak per number format, their source
    /// A table with add / remove / up / down buttons, its error label and its source text.
    QGroupBox *buildTableBox(const TableBox &spec);
    /// The add / remove / up / down buttons of `table`.
    QHBoxLayout *rowButtons(QTableWidget *table, const QString &objectName, const std::function<void(int)> &addRow);
    nlohmann::json collect() const override;
    void check(const nlohmann::json &file) override;
    void clearErrors() override;
    void showSummary(bool valid) override;
    QString presetId() const override;
    QString builtinNameFor(const QString &id) const override;
    void saved(const QString &path) override;
    nlohmann::json sourced(const nlohmann::json &value, const std::optional<core::Sourced> &original, Group g) const;
    void markCell(QTableWidget *table, int row, int column, const QString &message);
    void addMemoryRow(int at, const core::MemoryLevel &level, bool original);
    void addLinkRow(int at, const core::Interconnect &link, bool original);
    void moveRow(QTableWidget *table, int from, int to);
    void setRowKindCombo(int row, core::MemoryKind kind);

    core::HardwareSpec m_base; ///< what the fields were filled from (keeps price, achievable fractions, sources)
    core::HardwareSpec m_spec;

    QLineEdit *m_id = nullptr, *m_name = nullptr, *m_vendor = nullptr, *m_tdp = nullptr, *m_notes = nullptr;
    QComboBox *m_category = nullptr;
    QSpinBox *m_year = nullptr;
    std::array<QLineEdit *, core::kDTypeCount> m_peaks{};
    std::array<QLineEdit *, GroupCount> m_source{};
    std::array<QString, GroupCount> m_initialSource;
    QTableWidget *m_memory = nullptr, *m_links = nullptr;
    QLabel *m_summary = nullptr;
};

} // namespace memwall::ui
