#include "ui/widgets/comparepanel.h"

#include "ui/controls/presetpicker.h"
#include "ui/document/scenariodocument.h"
#include "ui/widgets/comparemetrics.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace memwall::ui {

namespace {
// Okabe–Ito bluish green and vermillion: which device a row favours, readable with colour-vision deficiencies.
const QColor kFavoursB("#009E73");
const QColor kFavoursA("#D55E00");
enum Column { MetricColumn, AColumn, BColumn, RatioColumn };
} // namespace

ComparePanel::ComparePanel(ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_picker(new PresetPicker(this)), m_swap(new QToolButton(this)),
      m_table(new QTableWidget(0, 4, this)), m_status(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *row = new QHBoxLayout;
    auto *label = new QLabel(tr("Compare &with:"), this);
    label->setBuddy(m_picker);
    row->addWidget(label);
    m_picker->setObjectName("compareDevicePicker");
    m_picker->addItem(tr("None (compare off)"), QString());
    for (const auto &hw : doc->presets().hardware()) {
        const QString tip = tr("%1 · %2 · %3 GB at %4 GB/s")
                                .arg(QString::fromStdString(hw.vendor), QString::fromStdString(hw.category))
                                .arg(hw.mainMemory().capacityBytes.value / 1e9, 0, 'g', 4)
                                .arg(hw.mainMemory().bandwidthBytesPerS.value / 1e9, 0, 'g', 5);
        m_picker->addPreset(QString::fromStdString(hw.id), QString::fromStdString(hw.name), tip);
    }
    m_picker->setToolTip(tr("Device B: the same model and scenario on another device (type to search; None turns "
                            "comparison off)"));
    row->addWidget(m_picker, 1);
    m_swap->setObjectName("swapButton");
    m_swap->setText(tr("Swap A ↔ B"));
    m_swap->setToolTip(tr("Make B the current device and compare with the current one (undo restores it)"));
    row->addWidget(m_swap);
    layout->addLayout(row);

    m_table->setObjectName("compareTable");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(MetricColumn, QHeaderView::Stretch);
    m_table->setAlternatingRowColors(true);
    m_table->setToolTip(
        tr("A: the current device (with what-if factors); B: the chosen preset as published. "
           "B / A below 1 means B has less of it: green where that favours B, orange where it favours A."));
    layout->addWidget(m_table, 1);
    m_status->setObjectName("compareStatus");
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    connect(m_picker, &PresetPicker::idActivated, this, &ComparePanel::setCompareId);
    connect(m_swap, &QToolButton::clicked, this, &ComparePanel::swap);
    connect(doc, &ScenarioDocument::analysisChanged, this, &ComparePanel::refresh);
    refresh();
}

void ComparePanel::setCompareId(const QString &id)
{
    const auto *hw = id.isEmpty() ? nullptr : m_doc->presets().findHardware(id.toStdString());
    if (hw)
        m_doc->setCompareHardware(*hw);
    else
        m_doc->setCompareHardware(std::nullopt);
}

void ComparePanel::swap()
{
    const auto &b = m_doc->compareHardware();
    if (!b)
        return;
    const core::HardwareSpec newB = m_doc->baseHardware();
    const core::HardwareSpec newA = *b;
    m_doc->setHardware(newA, !m_doc->presets().findHardware(newA.id));
    m_doc->setCompareHardware(newB);
}

void ComparePanel::refresh()
{
    const auto &hwB = m_doc->compareHardware();
    {
        const QSignalBlocker block(m_picker);
        m_picker->setCurrentId(hwB ? QString::fromStdString(hwB->id) : QString(),
                               hwB ? QString::fromStdString(hwB->name) : QString());
    }
    m_swap->setEnabled(hwB.has_value());
    const QString nameA = QString::fromStdString(m_doc->hardware().name);
    m_table->setHorizontalHeaderLabels({tr("Metric"), tr("A: %1").arg(nameA),
                                        hwB ? tr("B: %1").arg(QString::fromStdString(hwB->name)) : tr("B"),
                                        tr("B / A")});
    m_table->horizontalHeaderItem(AColumn)->setToolTip(nameA);

    if (!hwB) {
        m_table->setRowCount(0);
        m_status->setText(
            tr("Pick a device B to compare %1 on both.").arg(QString::fromStdString(m_doc->model().name)));
        return;
    }
    if (!m_doc->analysisError().isEmpty() || !m_doc->compareAnalysis()) {
        m_table->setRowCount(0);
        m_status->setText(!m_doc->analysisError().isEmpty()
                              ? tr("A cannot run this scenario: %1").arg(m_doc->analysisError())
                              : tr("%1 cannot run this scenario.").arg(QString::fromStdString(hwB->name)));
        return;
    }
    const auto rows = compareMetrics(m_doc->analysis(), *m_doc->compareAnalysis(), m_doc->scenario());
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
            ratio = QStringLiteral("%1×").arg(QString::number(m.ratio, 'g', 3));
        const QString favour = m.better == Better::B   ? tr("favours B")
                               : m.better == Better::A ? tr("favours A")
                                                       : QString();
        QTableWidgetItem *item = set(r, RatioColumn, ratio, favour.isEmpty() ? m.toolTip : favour, Qt::AlignRight);
        if (m.better != Better::Neither)
            item->setForeground(m.better == Better::B ? kFavoursB : kFavoursA);
    }
    m_status->setText(tr("%1 on A and B: same model, scenario and parallelism. B / A > 1 means B has more.")
                          .arg(QString::fromStdString(m_doc->model().name)));
}

} // namespace memwall::ui
