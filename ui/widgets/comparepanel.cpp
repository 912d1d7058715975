#include "ui/widgets/comparepanel.h"

#include "ui/controls/presetpicker.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/combobox.h"
#include "ui/util/precisionchoices.h"
#include "ui/util/text.h"
#include "ui/widgets/comparemetrics.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace memwall::ui {

using namespace memwall::core;

namespace {
// Okabe–Ito bluish green and vermillion: which device a row favours, readable with colour-vision deficiencies.
const QColor kFavoursB("#009E73");
const QColor kFavoursA("#D55E00");
enum Column { MetricColumn, AColumn, BColumn, RatioColumn };
constexpr int kSameAsA = -1; ///< item data of every format picker's first entry

/// Shows B's format `data` in its picker; one the picker does not list shows as "same as A".
void selectFormat(QComboBox *box, int data) { selectData(box, box->findData(data) >= 0 ? data : kSameAsA); }

void setFirstText(QComboBox *box, const QString &text)
{
    if (box->itemText(0) != text)
        box->setItemText(0, text);
}
} // namespace

QString ComparePanel::sameDeviceId() { return QStringLiteral("=a"); }

ComparePanel::ComparePanel(ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_picker(new PresetPicker(this)), m_swap(new QToolButton(this)),
      m_weights(new QComboBox(this)), m_kv(new QComboBox(this)), m_activations(new QComboBox(this)),
      m_table(new QTableWidget(0, 4, this)), m_status(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *row = new QHBoxLayout;
    auto *label = new QLabel(tr("Compare &with:"), this);
    label->setBuddy(m_picker);
    row->addWidget(label);
    m_picker->setObjectName("compareDevicePicker");
    m_picker->addItem(tr("None (compare off)"), QString());
    m_picker->setItemData(0, tr("No scenario B: the charts show A alone"), Qt::ToolTipRole);
    m_picker->addItem(tr("Same device as A"), sameDeviceId());
    m_picker->setItemData(1, tr("B runs on A's device, what-if factors included: compare formats on one device"),
                          Qt::ToolTipRole);
    for (const auto &hw : doc->presets().hardware()) {
        const QString tip = tr("%1 · %2 · %3 at %4")
                                .arg(QString::fromStdString(hw.vendor), QString::fromStdString(hw.category),
                                     formatBytes(hw.mainMemory().capacityBytes.value),
                                     formatSi(hw.mainMemory().bandwidthBytesPerS.value, "B/s"));
        m_picker->addPreset(QString::fromStdString(hw.id), QString::fromStdString(hw.name), tip);
    }
    m_pickerTip = tr("Device B: the same model and scenario on another device, or on A's own device (type to search; "
                     "None turns comparison off)");
    m_picker->setToolTip(m_pickerTip);
    row->addWidget(m_picker, 1);
    m_swap->setObjectName("swapButton");
    m_swap->setText(tr("&Swap A ↔ B"));
    m_swap->setToolTip(tr("Make B current (its device and formats) and compare with what was current (undo restores "
                          "it)"));
    row->addWidget(m_swap);
    layout->addLayout(row);

    // B's formats: "same as A" follows A's controls; any other choice overrides them for B only.
    auto *form = new QFormLayout;
    m_weights->setObjectName("compareWeights");
    m_weights->addItem(QString(), kSameAsA);
    for (std::size_t i = 0; i < precision::kWeightChoices.size(); ++i)
        m_weights->addItem(qs(precision::kWeightChoices[i].label), static_cast<int>(i));
    m_weights->setToolTip(tr("How B stores its weights (bytes per weight, including any per-group scales); "
                             "\"same as A\" follows the Precision controls"));
    m_kv->setObjectName("compareKv");
    m_kv->addItem(QString(), kSameAsA);
    for (DType t : precision::kKvTypes)
        m_kv->addItem(precision::dtypeLabel(t), static_cast<int>(t));
    m_kv->setToolTip(tr("Format of B's cached keys and values; \"same as A\" follows the Precision controls"));
    m_activations->setObjectName("compareActivations");
    m_activations->addItem(QString(), kSameAsA);
    for (DType t : precision::kActivationTypes)
        m_activations->addItem(precision::dtypeLabel(t), static_cast<int>(t));
    m_activations->setToolTip(tr("Format of B's activations (B's matmuls run in it where its device supports it); "
                                 "\"same as A\" follows the Precision controls"));
    // The combos and the picker do not ask for their longest item's width: the dock would then be wider than a
    // 1024-pixel screen leaves it, and the window grew past the screen's edge with Swap and B / A cut off.
    for (QComboBox *box : {static_cast<QComboBox *>(m_picker), m_weights, m_kv, m_activations}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(kComboChars);
    }
    form->addRow(tr("B w&eights:"), m_weights);
    form->addRow(tr("B &KV cache:"), m_kv);
    form->addRow(tr("B a&ctivations:"), m_activations);
    layout->addLayout(form);

    m_table->setObjectName("compareTable");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    // The figures as wide as their contents; the metric names take the rest and wrap onto a second line, so the
    // B / A column is never cut (it was at 1600 px, behind a sideways scroll bar).
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(40);
    m_table->setWordWrap(true);
    m_table->setTextElideMode(Qt::ElideNone);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setAlternatingRowColors(true);
    m_table->setToolTip(
        tr("A: the current device (with what-if factors) and formats; B: A with the changes its column names (a "
           "device B runs as published). B / A below 1 means B has less of it: green where that favours B, orange "
           "where it favours A."));
    layout->addWidget(m_table, 1);
    m_status->setObjectName("compareStatus");
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    connect(m_picker, &PresetPicker::idActivated, this, &ComparePanel::setCompareId);
    connect(m_swap, &QToolButton::clicked, this, &ComparePanel::swap);
    for (QComboBox *box : {m_weights, m_kv, m_activations})
        connect(box, &QComboBox::activated, this, &ComparePanel::applyPrecision);
    connect(doc, &ScenarioDocument::analysisChanged, this, &ComparePanel::followDocument);
    refresh();
}

void ComparePanel::followDocument()
{
    // Its window is on screen but the panel is not (the dock is closed, or a tab behind the Controls): nothing to
    // draw until it is shown. A panel whose window is not shown (a test, an export) follows at once.
    if (window()->isVisible() && !isVisible()) {
        m_stale = true;
        return;
    }
    refresh();
}

void ComparePanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void ComparePanel::setCompareId(const QString &id)
{
    if (id == sameDeviceId()) {
        CompareSpec spec = m_doc->compare().value_or(CompareSpec{});
        spec.hardware.reset();
        m_doc->setCompare(spec);
        return;
    }
    const auto *hw = id.isEmpty() ? nullptr : m_doc->presets().findHardware(id.toStdString());
    if (hw)
        m_doc->setCompareHardware(*hw);
    else
        m_doc->setCompare(std::nullopt);
}

void ComparePanel::applyPrecision()
{
    // Choosing a format while comparison is off compares A with itself in that format.
    CompareSpec spec = m_doc->compare().value_or(CompareSpec{});
    const int w = m_weights->currentData().toInt();
    spec.weights =
        w == kSameAsA ? std::nullopt : std::optional(precision::kWeightChoices[static_cast<std::size_t>(w)].format);
    const int kv = m_kv->currentData().toInt();
    spec.kv = kv == kSameAsA ? std::nullopt : std::optional(static_cast<DType>(kv));
    const int act = m_activations->currentData().toInt();
    spec.activations = act == kSameAsA ? std::nullopt : std::optional(static_cast<DType>(act));
    m_doc->setCompare(spec);
}

void ComparePanel::swap()
{
    const auto &spec = m_doc->compare();
    if (!spec || spec->isEmpty())
        return;
    // A takes B's device and formats in one undo step; B takes A's where they differed.
    ScenarioFile f = m_doc->file();
    CompareSpec newB;
    if (spec->hardware) {
        newB.hardware = m_doc->baseHardware();
        f.hardware = *spec->hardware;
        f.hardwareInline = !m_doc->presets().findHardware(spec->hardware->id);
    }
    if (spec->weights) {
        newB.weights = f.scenario.weights;
        f.scenario.weights = *spec->weights;
    }
    if (spec->kv) {
        newB.kv = f.scenario.kv;
        f.scenario.kv = *spec->kv;
    }
    if (spec->activations) {
        newB.activations = f.scenario.activations;
        f.scenario.activations = *spec->activations;
    }
    const QString text = tr("Swap A and B (%1)").arg(m_doc->compareSummary());
    m_doc->setFile(f, text);
    m_doc->setCompare(newB);
}

void ComparePanel::refresh()
{
    m_stale = false;
    const auto &spec = m_doc->compare();
    const auto &hwB = m_doc->compareHardware();
    if (!spec)
        m_picker->setCurrentId(QString());
    else if (!hwB)
        m_picker->setCurrentId(sameDeviceId());
    else
        m_picker->setCurrentId(QString::fromStdString(hwB->id), QString::fromStdString(hwB->name));
    const QString itemTip = m_picker->currentIndex() >= 0
                                ? m_picker->itemData(m_picker->currentIndex(), Qt::ToolTipRole).toString()
                                : QString();
    const QString pickerTip = itemTip.isEmpty() ? m_pickerTip : m_pickerTip + QStringLiteral("\n") + itemTip;
    if (m_picker->toolTip() != pickerTip)
        m_picker->setToolTip(pickerTip);

    const Scenario &sa = m_doc->scenario();
    setFirstText(m_weights, tr("same as A (%1)").arg(precision::weightLabel(sa.weights)));
    setFirstText(m_kv, tr("same as A (%1)").arg(precision::dtypeLabel(sa.kv)));
    setFirstText(m_activations, tr("same as A (%1)").arg(precision::dtypeLabel(sa.activations)));
    selectFormat(m_weights, spec && spec->weights ? precision::weightChoiceIndex(*spec->weights) : kSameAsA);
    selectFormat(m_kv, spec && spec->kv ? static_cast<int>(*spec->kv) : kSameAsA);
    selectFormat(m_activations, spec && spec->activations ? static_cast<int>(*spec->activations) : kSameAsA);

    m_swap->setEnabled(spec && !spec->isEmpty());
    const QString nameA = deviceNameWithoutVendor(m_doc->hardware());
    const QString summary = m_doc->compareSummary();
    // B's header names what B changes, one change per line (a narrow dock keeps all four columns in view).
    const QString headerB =
        spec ? tr("B: %1").arg(summary.split(QStringLiteral(", ")).join(QLatin1Char('\n'))) : tr("B");
    const QStringList headers{tr("Metric"), tr("A: %1").arg(nameA), headerB, tr("B / A")};
    for (int c = 0; c < headers.size(); ++c)
        if (!m_table->horizontalHeaderItem(c) || m_table->horizontalHeaderItem(c)->text() != headers[c])
            m_table->setHorizontalHeaderItem(c, new QTableWidgetItem(headers[c]));
    m_table->horizontalHeaderItem(AColumn)->setToolTip(QString::fromStdString(m_doc->hardware().name));
    m_table->horizontalHeaderItem(BColumn)->setToolTip(spec ? m_doc->compareLabel() : QString());

    const QString model = QString::fromStdString(m_doc->model().name);
    if (!spec) {
        m_table->setRowCount(0);
        m_status->setText(tr("Pick a device or formats for B to compare %1 on both.").arg(model));
        return;
    }
    if (!m_doc->analysisError().isEmpty() || !m_doc->compareAnalysis()) {
        m_table->setRowCount(0);
        m_status->setText(!m_doc->analysisError().isEmpty()
                              ? tr("A cannot run this scenario: %1").arg(m_doc->analysisError())
                              : tr("B (%1) cannot run this scenario: %2").arg(summary, m_doc->compareError()));
        return;
    }
    const auto rows = compareMetrics(m_doc->analysis(), *m_doc->compareAnalysis(), sa, m_doc->compareScenario());
    m_table->setRowCount(static_cast<int>(rows.size()));
    auto set = [this](int r, int c, const QString &text, const QString &tip, Qt::Alignment align) {
        QTableWidgetItem *item = m_table->item(r, c);
        if (!item) {
            item = new QTableWidgetItem;
            m_table->setItem(r, c, item);
        }
        item->setText(text);
        item->setToolTip(tip);
        item->setTextAlignment(align | Qt::AlignVCenter);
        item->setData(Qt::ForegroundRole, QVariant());
        return item;
    };
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const CompareMetric &m = rows[static_cast<std::size_t>(r)];
        set(r, MetricColumn, m.name, m.toolTip, Qt::AlignLeft);
        set(r, AColumn, m.a, m.toolTip, Qt::AlignRight);
        set(r, BColumn, m.b, m.toolTip, Qt::AlignRight);
        QString ratio;
        if (!m.numeric)
            ratio = m.a == m.b ? tr("same") : tr("differs");
        else if (m.valueA == 0 && m.valueB == 0)
            ratio = tr("—");
        else if (m.valueA == 0)
            ratio = tr("∞");
        else
            ratio = formatNumber(m.ratio) + QStringLiteral("×");
        const QString favour = m.better == Better::B   ? tr("favours B")
                               : m.better == Better::A ? tr("favours A")
                                                       : QString();
        QTableWidgetItem *item = set(r, RatioColumn, ratio, favour.isEmpty() ? m.toolTip : favour, Qt::AlignRight);
        if (m.better != Better::Neither)
            item->setForeground(m.better == Better::B ? kFavoursB : kFavoursA);
    }
    m_status->setText(tr("B: %1 — otherwise the same model (%2), scenario and parallelism as A. B / A > 1 means B has "
                         "more.")
                          .arg(summary, model));
    // The panel is as narrow as its figures allow (the combos no longer widen it): the figure columns whole, the
    // metric names at their least, wrapping.
    const QHeaderView *header = m_table->horizontalHeader();
    int need =
        header->minimumSectionSize() + 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width();
    for (int c : {AColumn, BColumn, RatioColumn})
        need +=
            std::max(static_cast<const QAbstractItemView *>(m_table)->sizeHintForColumn(c), header->sectionSizeHint(c));
    if (m_table->minimumWidth() != need)
        m_table->setMinimumWidth(need);
}

} // namespace memwall::ui
