#include "ui/dialogs/hardwareeditordialog.h"

#include "core/io/jsonreader.h"
#include "ui/controls/presetpicker.h"
#include "ui/dialogs/presetfiles.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace memwall::ui {

using nlohmann::json;

namespace {

const QString kHardwareOrigin = QStringLiteral("hardware editor");

// Display units.
constexpr double kTera = 1e12, kGiga = 1e9, kMicro = 1e-6;

enum MemoryColumn { MemName, MemKind, MemCapacity, MemBandwidth };
enum LinkColumn { LinkName, LinkBandwidth, LinkLatency, LinkMaxDevices };

constexpr int kOriginalValueRole = Qt::UserRole;
constexpr int kOriginalSourceRole = Qt::UserRole + 1;

bool sameNumber(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

/// Scale and unit of a field, for turning "got 5e+09" back into the unit the user typed.
std::pair<double, QString> unitOf(const QString &key)
{
    if (key == QLatin1String("capacity_bytes"))
        return {kGiga, QStringLiteral("GB")};
    if (key == QLatin1String("bandwidth_bytes_per_s"))
        return {kGiga, QStringLiteral("GB/s")};
    if (key == QLatin1String("latency_s"))
        return {kMicro, QStringLiteral("µs")};
    if (key == QLatin1String("peak_flops"))
        return {kTera, QStringLiteral("TFLOP/s")};
    return {1.0, QString()};
}

/// The error's message with its numbers, which core::InputError holds as members in base units, in the unit the
/// editor shows for `key` ("must be positive, got -5 GB/s"). No text is read: a field without a unit, or an error
/// made from text alone, shows its message as it is.
QString inDisplayUnits(const core::InputError &e, const QString &key)
{
    const auto [scale, unit] = unitOf(key);
    if (unit.isEmpty())
        return qs(e.message());
    const double s = scale;
    const QString u = unit;
    return qs(e.message([s, u](double v) { return (textFromNumber(v, s) + QLatin1Char(' ') + u).toStdString(); }));
}

/// "memory[2]" → {"memory", 2}; a name without an index → {name, -1}.
std::pair<QString, int> splitIndex(const QString &segment)
{
    const qsizetype open = segment.indexOf(QLatin1Char('['));
    if (open < 0 || !segment.endsWith(QLatin1Char(']')))
        return {segment, -1};
    bool ok = false;
    const int index = segment.mid(open + 1, segment.size() - open - 2).toInt(&ok);
    return {segment.left(open), ok ? index : -1};
}

QString humanKey(const QString &key)
{
    static const QHash<QString, QString> names{{"name", QObject::tr("name")},
                                               {"kind", QObject::tr("kind")},
                                               {"capacity_bytes", QObject::tr("capacity")},
                                               {"bandwidth_bytes_per_s", QObject::tr("bandwidth")},
                                               {"latency_s", QObject::tr("latency")},
                                               {"max_devices", QObject::tr("max devices")},
                                               {"source", QObject::tr("source")}};
    return names.value(key, key);
}

} // namespace

HardwareEditorDialog::HardwareEditorDialog(const core::PresetLibrary &presets, const core::HardwareSpec &start,
                                           QWidget *parent)
    : PresetEditorDialog(presets, QStringLiteral("hardware"), tr("Cannot save the device"), parent)
{
    setWindowTitle(tr("Device Editor"));
    buildUi();
    if (isBuiltinPreset(start.sourceFile))
        copyFrom(start);
    else
        setSpec(start);
}

void HardwareEditorDialog::buildUi()
{
    auto *top = new QVBoxLayout(this);

    // ---- copy from ----
    addCopyFromRow(top, tr("Fill every field from a preset (type to search). A built-in preset is copied under a "
                           "new id, so it is never replaced by accident."));
    for (const auto &hw : m_presets.hardware())
        m_copyFrom->addPreset(QString::fromStdString(hw.id), QString::fromStdString(hw.name),
                              QString::fromStdString(hw.vendor + " " + hw.category));
    connect(m_copyFrom, &PresetPicker::idActivated, this, [this](const QString &id) {
        if (const auto *hw = m_presets.findHardware(id.toStdString()))
            copyFrom(*hw);
    });

    auto *columns = new QHBoxLayout;
    top->addLayout(columns, 1);
    auto *left = new QVBoxLayout;
    auto *right = new QVBoxLayout;
    columns->addLayout(left, 2);
    columns->addLayout(right, 3);

    left->addWidget(buildDeviceBox());
    left->addWidget(buildComputeBox());
    left->addStretch(1);

    right->addWidget(
        buildTableBox({tr("Memory hierarchy (fastest first)"),
                       "memoryTable",
                       {tr("Name"), tr("Kind"), tr("Capacity (GB)"), tr("Bandwidth (GB/s)")},
                       tr("One row per level, fastest and smallest first: capacity rises and bandwidth falls from "
                          "row to row (a host level may be smaller). Capacity in GB (10⁹ bytes), aggregate "
                          "device-wide bandwidth in GB/s. The first DRAM level holds weights and KV cache."),
                       &m_memory,
                       "memory",
                       MemoryGroup,
                       tr("Where the capacities and bandwidths come from."),
                       [this](int at) {
                           core::MemoryLevel l;
                           l.name = "new level";
                           addMemoryRow(at, l, false);
                       }}),
        3);
    right->addWidget(
        buildTableBox({tr("Interconnects (the first is used for collectives)"),
                       "linkTable",
                       {tr("Name"), tr("Bandwidth (GB/s per direction)"), tr("Latency (µs)"), tr("Max devices")},
                       tr("Device-to-device links. Bandwidth per direction and per device in GB/s, latency per "
                          "message in µs, devices in one scale-up domain (0 = unknown)."),
                       &m_links,
                       "interconnects",
                       LinkGroup,
                       tr("Where the link numbers come from."),
                       [this](int at) {
                           core::Interconnect l;
                           l.name = "new link";
                           addLinkRow(at, l, false);
                       }}),
        2);

    m_summary = new QLabel(this);
    m_summary->setObjectName("summaryLabel");
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setToolTip(tr("Key numbers of the device as entered"));
    top->addWidget(m_summary);
    m_generalError = makeErrorLabel(this);
    m_generalError->setObjectName("generalError");
    top->addWidget(m_generalError);

    addButtons(top);
    resize(1100, 720);
}

QLineEdit *HardwareEditorDialog::fieldEdit(const QString &key, const QString &tip)
{
    auto *e = new QLineEdit(this);
    e->setObjectName(key + "Edit");
    e->setToolTip(tip);
    connect(e, &QLineEdit::textChanged, this, &HardwareEditorDialog::revalidate);
    m_fieldWidgets.insert(key, e);
    return e;
}

QLineEdit *HardwareEditorDialog::sourceEdit(Group g, const QString &tip)
{
    auto *e = new QLineEdit(this);
    e->setObjectName(QStringLiteral("source%1Edit").arg(int(g)));
    e->setPlaceholderText(tr("datasheet, paper or page, with URL"));
    e->setToolTip(tip + tr("\nNumbers you leave unchanged keep their own published source unless you edit this "
                           "text; changed numbers get this text."));
    connect(e, &QLineEdit::textChanged, this, &HardwareEditorDialog::revalidate);
    m_source[g] = e;
    return e;
}

void HardwareEditorDialog::errorRow(QFormLayout *form, const QString &key)
{
    QLabel *l = makeErrorLabel(this);
    l->setObjectName(key + "Error");
    form->addRow(QString(), l);
    m_errorLabels.insert(key, l);
}

QGroupBox *HardwareEditorDialog::buildDeviceBox()
{
    auto *device = new QGroupBox(tr("Device"), this);
    auto *form = new QFormLayout(device);
    m_id = fieldEdit("id", tr("Preset id: lower-case letters, digits and dashes. Use it on the command line: "
                              "memwall analyze --hardware ID"));
    form->addRow(tr("&Id:"), m_id);
    errorRow(form, "id");
    m_name = fieldEdit("name", tr("Display name, e.g. \"NVIDIA H100 SXM5 80GB\""));
    form->addRow(tr("&Name:"), m_name);
    errorRow(form, "name");
    m_vendor = fieldEdit("vendor", tr("Manufacturer"));
    form->addRow(tr("&Vendor:"), m_vendor);
    errorRow(form, "vendor");
    m_category = new QComboBox(this);
    m_category->setObjectName("categoryCombo");
    m_category->addItems({"gpu", "cpu", "asic", "wafer-scale"});
    m_category->setToolTip(tr("Kind of device"));
    connect(m_category, &QComboBox::currentTextChanged, this, &HardwareEditorDialog::revalidate);
    m_fieldWidgets.insert("category", m_category);
    form->addRow(tr("C&ategory:"), m_category);
    errorRow(form, "category");
    m_year = new QSpinBox(this);
    m_year->setObjectName("yearSpin");
    m_year->setRange(0, 2100);
    m_year->setToolTip(tr("Year of announcement or first shipment (the trends chart places the device by it)"));
    connect(m_year, &QSpinBox::valueChanged, this, &HardwareEditorDialog::revalidate);
    m_fieldWidgets.insert("year", m_year);
    form->addRow(tr("&Year:"), m_year);
    errorRow(form, "year");
    m_tdp = fieldEdit("tdp_w", tr("Thermal design power in watts"));
    auto *tdpRow = new QHBoxLayout;
    tdpRow->addWidget(m_tdp);
    tdpRow->addWidget(new QLabel(tr("W"), this));
    auto *tdpLabel = new QLabel(tr("&TDP:"), this);
    tdpLabel->setBuddy(m_tdp);
    form->addRow(tdpLabel, tdpRow);
    errorRow(form, "tdp_w");
    form->addRow(tr("Source:"), sourceEdit(DeviceGroup, tr("Where the year and TDP come from.")));
    errorRow(form, "source0");
    m_notes = fieldEdit("notes", tr("Free text saved with the preset"));
    form->addRow(tr("N&otes:"), m_notes);
    errorRow(form, "notes");
    return device;
}

QGroupBox *HardwareEditorDialog::buildComputeBox()
{
    auto *compute = new QGroupBox(tr("Dense peak compute (empty = not supported)"), this);
    compute->setToolTip(tr("Dense peaks only (never the 2:4 sparsity figure). Integer formats in TOP/s."));
    auto *cform = new QFormLayout(compute);
    for (core::DType t : core::kAllDTypes) {
        const QString key = qs(core::toString(t));
        QLineEdit *e =
            fieldEdit("peak_flops." + key, tr("Dense peak %1 throughput in %2; leave empty if the device has "
                                              "no native %1 support")
                                               .arg(key.toUpper(), core::isInteger(t) ? "TOP/s" : "TFLOP/s"));
        e->setObjectName("peak_" + key + "Edit");
        m_peaks[core::index(t)] = e;
        auto *row = new QHBoxLayout;
        row->addWidget(e);
        auto *unit = new QLabel(core::isInteger(t) ? tr("TOP/s") : tr("TFLOP/s"), this);
        unit->setMinimumWidth(unit->fontMetrics().horizontalAdvance("TFLOP/s"));
        row->addWidget(unit);
        cform->addRow(key.toUpper() + ":", row);
    }
    errorRow(cform, "peak_flops");
    cform->addRow(tr("Source:"), sourceEdit(ComputeGroup, tr("Where the peak numbers come from.")));
    errorRow(cform, "source1");
    return compute;
}

QGroupBox *HardwareEditorDialog::buildTableBox(const TableBox &spec)
{
    auto *box = new QGroupBox(spec.title, this);
    auto *v = new QVBoxLayout(box);
    auto *table = new QTableWidget(0, spec.headers.size(), this);
    table->setObjectName(spec.objectName);
    table->setHorizontalHeaderLabels(spec.headers);
    table->setToolTip(spec.tip);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(QComboBox().sizeHint().height() + 2);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    connect(table, &QTableWidget::itemChanged, this, [this] {
        if (!m_filling)
            revalidate();
    });
    *spec.out = table;
    v->addWidget(table, 1);
    v->addLayout(rowButtons(table, spec.objectName, spec.addRow));
    QLabel *err = makeErrorLabel(this);
    err->setObjectName(spec.errorKey + "Error");
    m_errorLabels.insert(spec.errorKey, err);
    v->addWidget(err);
    auto *sform = new QFormLayout;
    sform->addRow(tr("Source:"), sourceEdit(spec.group, spec.sourceTip));
    v->addLayout(sform);
    QLabel *serr = makeErrorLabel(this);
    serr->setObjectName(QStringLiteral("source%1Error").arg(int(spec.group)));
    m_errorLabels.insert(QStringLiteral("source%1").arg(int(spec.group)), serr);
    v->addWidget(serr);
    return box;
}

QHBoxLayout *HardwareEditorDialog::rowButtons(QTableWidget *table, const QString &objectName,
                                              const std::function<void(int)> &addRow)
{
    auto *buttons = new QHBoxLayout;
    auto button = [&](const QString &text, const QString &buttonTip, const QString &name) {
        auto *b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(buttonTip);
        b->setObjectName(objectName + name);
        buttons->addWidget(b);
        return b;
    };
    auto *add = button(tr("Add"), tr("Insert a row below the selected one"), "Add");
    auto *remove = button(tr("Remove"), tr("Remove the selected row"), "Remove");
    auto *up = button(tr("Move up"),
                      tr("Move the selected row up (rows run from fastest/smallest to slowest/"
                         "largest)"),
                      "Up");
    auto *down = button(tr("Move down"), tr("Move the selected row down"), "Down");
    buttons->addStretch(1);
    connect(add, &QToolButton::clicked, this, [this, table, addRow] {
        const int at = table->currentRow() >= 0 ? table->currentRow() + 1 : table->rowCount();
        addRow(at);
        table->setCurrentCell(at, 0);
        revalidate();
    });
    connect(remove, &QToolButton::clicked, this, [this, table] {
        if (table->currentRow() >= 0) {
            table->removeRow(table->currentRow());
            revalidate();
        }
    });
    connect(up, &QToolButton::clicked, this, [this, table] {
        const int r = table->currentRow();
        if (r > 0)
            moveRow(table, r, r - 1);
    });
    connect(down, &QToolButton::clicked, this, [this, table] {
        const int r = table->currentRow();
        if (r >= 0 && r + 1 < table->rowCount())
            moveRow(table, r, r + 1);
    });
    return buttons;
}

void HardwareEditorDialog::setRowKindCombo(int row, core::MemoryKind kind)
{
    auto *combo = new QComboBox(m_memory);
    for (core::MemoryKind k : {core::MemoryKind::Sram, core::MemoryKind::Cache, core::MemoryKind::Dram,
                               core::MemoryKind::Host, core::MemoryKind::Storage})
        combo->addItem(qs(core::toString(k)));
    combo->setCurrentText(qs(core::toString(kind)));
    combo->setToolTip(
        tr("sram: on-chip SRAM / registers; cache: L2 / last-level cache; dram: HBM, GDDR or DDR "
           "(holds the weights); host: host memory over the host link; storage: NVMe storage beside the device"));
    connect(combo, &QComboBox::currentTextChanged, this, [this] {
        if (!m_filling)
            revalidate();
    });
    m_memory->setCellWidget(row, MemKind, combo);
}

void HardwareEditorDialog::addMemoryRow(int at, const core::MemoryLevel &level, bool original)
{
    const bool wasFilling = m_filling;
    m_filling = true;
    m_memory->insertRow(at);
    m_memory->setItem(at, MemName, new QTableWidgetItem(QString::fromStdString(level.name)));
    m_memory->setItem(at, MemKind, new QTableWidgetItem);
    setRowKindCombo(at, level.kind);
    auto numberItem = [original](const core::Sourced &s, double scale) {
        auto *item = new QTableWidgetItem(original || s.value > 0 ? textFromNumber(s.value, scale) : QString());
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (original) {
            item->setData(kOriginalValueRole, s.value);
            item->setData(kOriginalSourceRole, QString::fromStdString(s.source));
        }
        return item;
    };
    m_memory->setItem(at, MemCapacity, numberItem(level.capacityBytes, kGiga));
    m_memory->setItem(at, MemBandwidth, numberItem(level.bandwidthBytesPerS, kGiga));
    m_filling = wasFilling;
}

void HardwareEditorDialog::addLinkRow(int at, const core::Interconnect &link, bool original)
{
    const bool wasFilling = m_filling;
    m_filling = true;
    m_links->insertRow(at);
    m_links->setItem(at, LinkName, new QTableWidgetItem(QString::fromStdString(link.name)));
    auto numberItem = [original](const core::Sourced &s, double scale) {
        auto *item = new QTableWidgetItem(original || s.value > 0 ? textFromNumber(s.value, scale) : QString());
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (original) {
            item->setData(kOriginalValueRole, s.value);
            item->setData(kOriginalSourceRole, QString::fromStdString(s.source));
        }
        return item;
    };
    m_links->setItem(at, LinkBandwidth, numberItem(link.bandwidthBytesPerS, kGiga));
    m_links->setItem(at, LinkLatency, numberItem(link.latencyS, kMicro));
    auto *max = new QTableWidgetItem(QString::number(link.maxDevices));
    max->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_links->setItem(at, LinkMaxDevices, max);
    m_filling = wasFilling;
}

void HardwareEditorDialog::moveRow(QTableWidget *table, int from, int to)
{
    const bool wasFilling = m_filling;
    m_filling = true;
    QString kind;
    if (table == m_memory)
        if (auto *c = qobject_cast<QComboBox *>(table->cellWidget(from, MemKind)))
            kind = c->currentText();
    QList<QTableWidgetItem *> items;
    for (int c = 0; c < table->columnCount(); ++c)
        items.append(table->takeItem(from, c));
    table->removeRow(from);
    table->insertRow(to);
    for (int c = 0; c < table->columnCount(); ++c)
        table->setItem(to, c, items[c]);
    if (table == m_memory)
        setRowKindCombo(to, core::memoryKindFromString(kind.toStdString()).value_or(core::MemoryKind::Dram));
    table->setCurrentCell(to, 0);
    m_filling = wasFilling;
    revalidate();
}

void HardwareEditorDialog::setSpec(const core::HardwareSpec &spec)
{
    m_base = spec;
    m_filling = true;
    m_id->setText(QString::fromStdString(spec.id));
    m_name->setText(QString::fromStdString(spec.name));
    m_vendor->setText(QString::fromStdString(spec.vendor));
    m_category->setCurrentText(QString::fromStdString(spec.category));
    m_year->setValue(static_cast<int>(spec.year.value));
    m_tdp->setText(spec.tdpW ? textFromNumber(spec.tdpW->value, 1.0) : QString());
    m_notes->setText(QString::fromStdString(spec.notes));
    m_notes->setCursorPosition(0);
    m_initialSource[DeviceGroup] = QString::fromStdString(spec.year.source);
    m_initialSource[ComputeGroup].clear();
    for (core::DType t : core::kAllDTypes) {
        const auto &p = spec.peakFlops[core::index(t)];
        m_peaks[core::index(t)]->setText(p ? textFromNumber(p->value, kTera) : QString());
        if (p && m_initialSource[ComputeGroup].isEmpty())
            m_initialSource[ComputeGroup] = QString::fromStdString(p->source);
    }
    m_memory->setRowCount(0);
    m_initialSource[MemoryGroup] =
        spec.memory.empty() ? QString() : QString::fromStdString(spec.memory.front().capacityBytes.source);
    for (const auto &m : spec.memory)
        addMemoryRow(m_memory->rowCount(), m, true);
    m_links->setRowCount(0);
    m_initialSource[LinkGroup] = spec.interconnects.empty()
                                     ? QString()
                                     : QString::fromStdString(spec.interconnects.front().bandwidthBytesPerS.source);
    for (const auto &l : spec.interconnects)
        addLinkRow(m_links->rowCount(), l, true);
    for (int g = 0; g < GroupCount; ++g) {
        m_source[g]->setText(m_initialSource[g]);
        m_source[g]->setCursorPosition(0);
    }
    m_copyFrom->setCurrentId(QString::fromStdString(spec.id), tr("(custom device)"));
    m_filling = false;
    revalidate();
}

void HardwareEditorDialog::copyFrom(const core::HardwareSpec &preset, bool newId)
{
    core::HardwareSpec copy = preset;
    if (newId || isBuiltinPreset(preset.sourceFile)) {
        copy.id = preset.id + "-custom";
        copy.name = preset.name + " (custom)";
    }
    setSpec(copy);
    m_copyFrom->setCurrentId(QString::fromStdString(preset.id));
}

json HardwareEditorDialog::sourced(const json &value, const std::optional<core::Sourced> &original, Group g) const
{
    json v = value;
    std::string source = m_source[g]->text().toStdString();
    if (original && v.is_number() && sameNumber(v.get<double>(), original->value)) {
        v = original->value; // keep the published number exactly, not its round trip through the display unit
        if (m_source[g]->text() == m_initialSource[g])
            source = original->source;
    }
    return json{{"value", v}, {"source", source}};
}

json HardwareEditorDialog::collect() const
{
    json j{{"kind", "hardware"},
           {"schema", 1},
           {"id", m_id->text().trimmed().toStdString()},
           {"name", m_name->text().trimmed().toStdString()},
           {"vendor", m_vendor->text().trimmed().toStdString()},
           {"category", m_category->currentText().toStdString()}};
    j["year"] = sourced(m_year->value(), m_base.year, DeviceGroup);
    if (!m_tdp->text().trimmed().isEmpty()) // left empty where the vendor publishes no power figure
        j["tdp_w"] = sourced(numberFromText(m_tdp->text(), 1.0), m_base.tdpW, DeviceGroup);
    if (m_base.priceUsd)
        j["price_usd"] = json{{"value", m_base.priceUsd->value}, {"source", m_base.priceUsd->source}};
    if (m_base.usdPerHour)
        j["usd_per_hour"] = json{{"value", m_base.usdPerHour->value}, {"source", m_base.usdPerHour->source}};

    json peaks = json::object();
    for (core::DType t : core::kAllDTypes) {
        const json v = numberFromText(m_peaks[core::index(t)]->text(), kTera);
        if (!v.is_null())
            peaks[std::string(core::toString(t))] = sourced(v, m_base.peakFlops[core::index(t)], ComputeGroup);
    }
    j["peak_flops"] = peaks;

    auto original = [](const QTableWidgetItem *item) -> std::optional<core::Sourced> {
        if (!item || !item->data(kOriginalValueRole).isValid())
            return std::nullopt;
        return core::Sourced{item->data(kOriginalValueRole).toDouble(),
                             item->data(kOriginalSourceRole).toString().toStdString()};
    };
    auto text = [](const QTableWidgetItem *item) { return item ? item->text() : QString(); };

    json levels = json::array();
    for (int r = 0; r < m_memory->rowCount(); ++r) {
        const auto *combo = qobject_cast<const QComboBox *>(m_memory->cellWidget(r, MemKind));
        levels.push_back(
            {{"name", text(m_memory->item(r, MemName)).trimmed().toStdString()},
             {"kind", combo ? combo->currentText().toStdString() : std::string("dram")},
             {"capacity_bytes", sourced(numberFromText(text(m_memory->item(r, MemCapacity)), kGiga),
                                        original(m_memory->item(r, MemCapacity)), MemoryGroup)},
             {"bandwidth_bytes_per_s", sourced(numberFromText(text(m_memory->item(r, MemBandwidth)), kGiga),
                                               original(m_memory->item(r, MemBandwidth)), MemoryGroup)}});
    }
    j["memory"] = levels;

    if (m_links->rowCount() > 0) {
        json links = json::array();
        for (int r = 0; r < m_links->rowCount(); ++r) {
            json maxDevices = numberFromText(text(m_links->item(r, LinkMaxDevices)), 1.0);
            if (maxDevices.is_null())
                maxDevices = 0;
            links.push_back(
                {{"name", text(m_links->item(r, LinkName)).trimmed().toStdString()},
                 {"bandwidth_bytes_per_s", sourced(numberFromText(text(m_links->item(r, LinkBandwidth)), kGiga),
                                                   original(m_links->item(r, LinkBandwidth)), LinkGroup)},
                 {"latency_s", sourced(numberFromText(text(m_links->item(r, LinkLatency)), kMicro),
                                       original(m_links->item(r, LinkLatency)), LinkGroup)},
                 {"max_devices", maxDevices}});
        }
        j["interconnects"] = links;
    }
    if (!m_base.achievable.empty())
        j["achievable"] = core::toJson(m_base.achievable);
    const std::string notes = m_notes->text().trimmed().toStdString();
    if (!notes.empty())
        j["notes"] = notes;
    return j;
}

void HardwareEditorDialog::clearErrors()
{
    PresetEditorDialog::clearErrors();
    for (QLineEdit *e : m_source)
        setInvalid(e, false);
    const bool wasFilling = m_filling;
    m_filling = true;
    for (QTableWidget *t : {m_memory, m_links})
        for (int r = 0; r < t->rowCount(); ++r)
            for (int c = 0; c < t->columnCount(); ++c)
                if (QTableWidgetItem *item = t->item(r, c)) {
                    item->setData(Qt::BackgroundRole, QVariant());
                    item->setToolTip(QString());
                }
    m_filling = wasFilling;
}

void HardwareEditorDialog::markCell(QTableWidget *table, int row, int column, const QString &message)
{
    const bool wasFilling = m_filling;
    m_filling = true;
    if (QTableWidgetItem *item = table->item(row, column)) {
        item->setBackground(kInvalidBackground);
        item->setToolTip(message);
    }
    m_filling = wasFilling;
}

void HardwareEditorDialog::showError(const core::InputError &e)
{
    const QString field = qs(e.field());
    const QString message = qs(e.message());
    const QStringList parts = field.split(QLatin1Char('.'));
    const QString head = parts.value(0);
    auto show = [this](const QString &key, const QString &text) {
        QLabel *l = m_errorLabels.value(key);
        if (!l)
            l = m_generalError;
        l->setText(text);
        l->show();
    };
    if (const auto [table, row] = splitIndex(head);
        row >= 0 && (table == QLatin1String("memory") || table == QLatin1String("interconnects"))) {
        const bool memory = table == QLatin1String("memory");
        const QString key = parts.value(1);
        const QString text = inDisplayUnits(e, key);
        if (parts.value(2) == QLatin1String("source")) {
            const Group g = memory ? MemoryGroup : LinkGroup;
            setInvalid(m_source[g], true);
            show(QStringLiteral("source%1").arg(int(g)), tr("Source: %1").arg(text));
            return;
        }
        int column = 0;
        if (memory)
            column = key == "kind"                    ? MemKind
                     : key == "capacity_bytes"        ? MemCapacity
                     : key == "bandwidth_bytes_per_s" ? MemBandwidth
                                                      : MemName;
        else
            column = key == "bandwidth_bytes_per_s" ? LinkBandwidth
                     : key == "latency_s"           ? LinkLatency
                     : key == "max_devices"         ? LinkMaxDevices
                                                    : LinkName;
        markCell(memory ? m_memory : m_links, row, column, text);
        show(table, tr("Row %1, %2: %3").arg(row + 1).arg(humanKey(key), text));
        return;
    }
    if (head == QLatin1String("peak_flops")) {
        if (parts.value(2) == QLatin1String("source")) {
            setInvalid(m_source[ComputeGroup], true);
            show("source1", tr("Source: %1").arg(message));
            return;
        }
        if (parts.size() > 1) {
            setInvalid(m_fieldWidgets.value("peak_flops." + parts[1]), true);
            show("peak_flops", tr("%1: %2").arg(parts[1].toUpper(), inDisplayUnits(e, "peak_flops")));
        } else {
            show("peak_flops", message);
        }
        return;
    }
    if (head == QLatin1String("year") || head == QLatin1String("tdp_w")) {
        if (parts.value(1) == QLatin1String("source")) {
            setInvalid(m_source[DeviceGroup], true);
            show("source0", tr("Source: %1").arg(message));
        } else {
            setInvalid(m_fieldWidgets.value(head), true);
            show(head, message);
        }
        return;
    }
    if (m_errorLabels.contains(head)) {
        setInvalid(m_fieldWidgets.value(head), true);
        show(head, message);
        return;
    }
    show(QString(), qs(e.detail()));
}

void HardwareEditorDialog::check(const json &file)
{
    core::HardwareSpec hw = core::hardwareFromJson(file, kHardwareOrigin.toStdString());
    hw.sourceFile = m_savedPath.toStdString();
    m_spec = std::move(hw);
}

QString HardwareEditorDialog::presetId() const { return QString::fromStdString(m_spec.id); }

QString HardwareEditorDialog::builtinNameFor(const QString &id) const
{
    const auto *existing = m_presets.findHardware(id.toStdString());
    return existing && isBuiltinPreset(existing->sourceFile) ? QString::fromStdString(existing->name) : QString();
}

void HardwareEditorDialog::saved(const QString &path) { m_spec.sourceFile = path.toStdString(); }

void HardwareEditorDialog::showSummary(bool valid)
{
    if (valid) {
        const core::MemoryLevel &main = m_spec.mainMemory();
        const core::DType t =
            m_spec.supports(core::DType::FP16) ? core::DType::FP16 : m_spec.computeType(core::DType::FP16);
        m_summary->setText(tr("Main memory: %1 %2 GB at %3 GB/s · ridge point (%4): %5 FLOP/byte")
                               .arg(QString::fromStdString(main.name), textFromNumber(main.capacityBytes.value, kGiga),
                                    textFromNumber(main.bandwidthBytesPerS.value, kGiga),
                                    qs(core::toString(t)).toUpper(), formatFixed(m_spec.ridge(t), 0)));
    } else {
        m_summary->setText(tr("Fix the field marked in red to save."));
    }
}

std::optional<core::HardwareSpec> HardwareEditorDialog::editInto(ScenarioDocument *doc, const core::HardwareSpec &start,
                                                                 QWidget *parent, bool newPreset)
{
    HardwareEditorDialog dialog(doc->presets(), start, parent);
    if (newPreset)
        dialog.copyFrom(start, true);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    doc->setHardware(dialog.spec(), true);
    return dialog.spec();
}

} // namespace memwall::ui
