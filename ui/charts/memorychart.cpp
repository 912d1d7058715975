#include "ui/charts/memorychart.h"

#include "ui/charts/labelplacer.h"

#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/charts/rooflinemath.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include "core/analysis/serving.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

using namespace memwall::core;
namespace rm = rooflinemath;

namespace {

constexpr double kGB = 1e9;     ///< the axis is plotted in GB
constexpr double kLeft = 1e-12; ///< bars start here (GB): far left of any view
constexpr double kBar = 0.62;   ///< bar thickness in rows

QString componentName(MemoryChart::Component c)
{
    switch (c) {
    case MemoryChart::Weights: return QObject::tr("Weights");
    case MemoryChart::KvCache: return QObject::tr("KV cache");
    case MemoryChart::Activations: return QObject::tr("Activations");
    case MemoryChart::Gradients: return QObject::tr("Gradients");
    case MemoryChart::Optimizer: return QObject::tr("Optimizer state");
    // The fixed state per sequence of state-space (Mamba) and linear-attention (Gated DeltaNet) layers.
    case MemoryChart::State: return QObject::tr("Recurrent state");
    case MemoryChart::ComponentCount: break;
    }
    return {};
}

const char *componentKey(MemoryChart::Component c)
{
    switch (c) {
    case MemoryChart::Weights: return "weights";
    case MemoryChart::KvCache: return "kv_cache";
    case MemoryChart::Activations: return "activations";
    case MemoryChart::Gradients: return "gradients";
    case MemoryChart::Optimizer: return "optimizer";
    case MemoryChart::State: return "ssm_state";
    case MemoryChart::ComponentCount: break;
    }
    return "";
}

double componentValue(const MemoryFootprint &m, MemoryChart::Component c)
{
    switch (c) {
    case MemoryChart::Weights: return m.weights;
    case MemoryChart::KvCache: return m.kv;
    case MemoryChart::Activations: return m.activations;
    case MemoryChart::Gradients: return m.gradients;
    case MemoryChart::Optimizer: return m.optimizer;
    case MemoryChart::State: return m.state;
    case MemoryChart::ComponentCount: break;
    }
    return 0;
}

int componentColor(MemoryChart::Component c)
{
    switch (c) {
    case MemoryChart::Weights: return 0;
    case MemoryChart::KvCache: return 1;
    case MemoryChart::Activations: return 2;
    case MemoryChart::Gradients: return 3;
    case MemoryChart::Optimizer: return 4;
    case MemoryChart::State: return 5;
    case MemoryChart::ComponentCount: break;
    }
    return 7;
}

/// Component `c`'s stripe in a footprint row, and how many stripes the row has (one per component with bytes);
/// {-1, n} when `c` has none.
std::pair<int, int> stripeOf(const MemoryFootprint &m, MemoryChart::Component c)
{
    int stripe = -1, stripes = 0;
    for (int k = 0; k < MemoryChart::ComponentCount; ++k)
        if (componentValue(m, MemoryChart::Component(k)) > 0) {
            if (k == c)
                stripe = stripes;
            ++stripes;
        }
    return {stripe, std::max(stripes, 1)};
}

/// The bytes a bar spans (a bar from the axis's left edge starts at 0); 0 while it is hidden or empty.
double barBytes(const QAreaSeries *bar)
{
    const QLineSeries *u = bar->upperSeries();
    if (u->count() < 2 || !bar->isVisible())
        return 0;
    const double x0 = u->at(0).x() <= kLeft ? 0.0 : u->at(0).x();
    return (u->at(1).x() - x0) * kGB;
}

} // namespace

MemoryChart::MemoryChart(ScenarioDocument *doc, QObject *parent) : ChartBase(doc, parent)
{
    m_x = new QLogValueAxis;
    m_x->setBase(10);
    m_x->setLabelFormat(QStringLiteral("%g"));
    m_x->setMinorTickCount(8);
    m_x->setTitleText(tr("Bytes per device (GB, log scale)"));
    m_y = new QCategoryAxis;
    m_y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_y->setGridLineVisible(false);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);

    for (int i = 0; i < 5; ++i)
        m_levels.push_back(makeBar(QStringLiteral("level")));
    for (int c = 0; c < ComponentCount; ++c) {
        m_components[c] = makeBar(QStringLiteral("component:") + QLatin1String(componentKey(Component(c))));
        m_components[c]->setName(componentName(Component(c)));
    }
    m_overflow = makeBar(QStringLiteral("overflow"));
    m_overflow->setName(tr("Over capacity"));
    m_offloadBar = makeBar(QStringLiteral("offloaded-kv"));
    m_offloadBar->setName(tr("KV cache offloaded"));
    m_offloadWeightBar = makeBar(QStringLiteral("offloaded-weights"));
    m_offloadWeightBar->setName(tr("Weights offloaded"));
    for (QLineSeries **line : {&m_capacityLine, &m_needLine}) {
        *line = new QLineSeries;
        m_chart->addSeries(*line);
        (*line)->attachAxis(m_x);
        (*line)->attachAxis(m_y);
    }
    m_capacityLine->setObjectName(QStringLiteral("capacity-line"));
    m_needLine->setObjectName(QStringLiteral("need-line"));
    // Scenario B: same component colours on its own row, its overflow and, on another device, its capacity.
    m_bCapacity = makeBar(QStringLiteral("compare-capacity"));
    for (int c = 0; c < ComponentCount; ++c) {
        m_bComponents[c] = makeBar(QStringLiteral("compare-component:") + QLatin1String(componentKey(Component(c))));
        m_bComponents[c]->setName(tr("B: %1").arg(componentName(Component(c))));
    }
    m_bOverflow = makeBar(QStringLiteral("compare-overflow"));
    m_bOverflow->setName(tr("B: over capacity"));
    m_bCapacityLine = new QLineSeries;
    m_bCapacityLine->setObjectName(QStringLiteral("compare-capacity-line"));
    m_chart->addSeries(m_bCapacityLine);
    m_bCapacityLine->attachAxis(m_x);
    m_bCapacityLine->attachAxis(m_y);
    for (QAbstractSeries *s : m_chart->series())
        setLegendVisible(s, false);
    // A component's legend entry stands for A's and B's part alike.
    QHash<QAbstractSeries *, QList<QAbstractSeries *>> bFollowsA;
    for (int c = 0; c < ComponentCount; ++c)
        bFollowsA.insert(m_components[c], {m_bComponents[c]});
    enableLegendToggle(bFollowsA);

    m_totalLabel = addLabel();
    m_bTotalLabel = addLabel();
    m_bCapacityLabel = addLabel();
    for (QGraphicsSimpleTextItem *label : {m_totalLabel, m_bTotalLabel, m_bCapacityLabel})
        label->hide();
    m_callout = new Callout(m_chart);
    connect(m_chart, &QChart::plotAreaChanged, this, &MemoryChart::layoutLabels);
    connect(m_x, &QLogValueAxis::rangeChanged, this, &MemoryChart::layoutLabels);

    refresh();
    setTheme(theme());
}

MemoryChart::~MemoryChart() = default;

QAreaSeries *MemoryChart::makeBar(const QString &object)
{
    auto *upper = new QLineSeries(this);
    auto *lower = new QLineSeries(this);
    auto *area = new QAreaSeries(upper, lower);
    area->setObjectName(object);
    m_chart->addSeries(area);
    area->attachAxis(m_x);
    area->attachAxis(m_y);
    connect(area, &QAreaSeries::hovered, this, [this, area](const QPointF &p, bool state) {
        if (!state) {
            m_callout->hide();
            return;
        }
        m_callout->setText(m_tips.value(area));
        m_callout->setAnchor(p, area);
        m_callout->show();
    });
    return area;
}

void MemoryChart::setBar(QAreaSeries *bar, double x0, double x1, double row, int stripe, int stripes)
{
    const double h = kBar / stripes;
    const double top = m_rows - 1 - row + kBar / 2 - stripe * h;
    bar->upperSeries()->replace(QList<QPointF>{{x0, top}, {x1, top}});
    bar->lowerSeries()->replace(QList<QPointF>{{x0, top - h}, {x1, top - h}});
}

double MemoryChart::stripeRow(double row, int stripe, int stripes)
{
    return row - kBar / 2 + (stripe + 0.5) * kBar / stripes;
}

void MemoryChart::clearBar(QAreaSeries *bar)
{
    bar->upperSeries()->clear();
    bar->lowerSeries()->clear();
    showSeries(bar, false);
}

QString MemoryChart::title() const
{
    const ScenarioDocument *doc = document();
    const Scenario &s = doc->scenario();
    QString par;
    if (s.tp > 1 || s.pp > 1 || s.dp > 1 || s.ep > 1)
        par = tr(", tp %1 · pp %2 · dp %3").arg(s.tp).arg(s.pp).arg(s.dp);
    const std::string_view phase = toString(s.phase);
    return tr("Memory per device — %1 %2, batch %3%4 on %5")
        .arg(QString::fromStdString(doc->model().name), qs(phase))
        .arg(s.batch)
        .arg(par, QString::fromStdString(doc->hardware().name));
}

QString MemoryChart::verdictText(double total, double capacity, bool over)
{
    if (over)
        return tr("does not fit: %1 > %2").arg(formatBytes(total), formatBytes(capacity));
    return tr("fits: %1 of %2 (%3)")
        .arg(formatBytes(total), formatBytes(capacity), formatPercent(capacity > 0 ? total / capacity : 0));
}

QString MemoryChart::fitText() const
{
    // The tiers by their row names ("Host", "NVMe"): the verdict is one line above the bars.
    const QString kvTier = m_rowNames.value(m_offloadRow), weightTier = m_rowNames.value(m_offloadWeightRow);
    QStringList moved;
    if (m_offloadBytes > 0 && m_offloadWeightBytes > 0 && m_offloadRow == m_offloadWeightRow)
        moved << tr("%1 of KV cache and %2 of weights in %3")
                     .arg(formatBytes(m_offloadBytes), formatBytes(m_offloadWeightBytes), kvTier);
    else {
        if (m_offloadBytes > 0)
            moved << tr("%1 of KV cache in %2").arg(formatBytes(m_offloadBytes), kvTier);
        if (m_offloadWeightBytes > 0)
            moved << tr("%1 of weights in %2").arg(formatBytes(m_offloadWeightBytes), weightTier);
    }
    if (!moved.isEmpty())
        return tr("%1 in main memory, %2")
            .arg(verdictText(m_total - m_offloadBytes - m_offloadWeightBytes, m_capacity, m_over),
                 moved.join(tr(" and ")));
    return verdictText(m_total, m_capacity, m_over);
}

double MemoryChart::componentBytes(Component c) const { return barBytes(m_components[c]); }

QList<QAreaSeries *> MemoryChart::levelSeries() const
{
    QList<QAreaSeries *> out;
    for (int i = 0; i < m_levelCount && i < static_cast<int>(m_levels.size()); ++i)
        out << m_levels[static_cast<std::size_t>(i)];
    return out;
}

double MemoryChart::compareComponentBytes(Component c) const { return barBytes(m_bComponents[c]); }

double MemoryChart::compareCapacityBytes() const { return barBytes(m_bCapacity); }

QString MemoryChart::compareFitText() const
{
    if (m_bRow < 0)
        return {};
    return tr("%1 — %2").arg(document()->compareLabel(), verdictText(m_bTotal, m_bCapacityBytes, m_bOver));
}

void MemoryChart::setFootprint(const std::array<QAreaSeries *, ComponentCount> &bars, const MemoryFootprint &mem,
                               double row, const QString &who)
{
    // One stripe per component, each from the axis's left edge to its own bytes: on a log axis only a bar that
    // starts at the edge reads as its value. Stacked, a 767 GB KV cache after 13.5 GB of weights looked smaller
    // than the weights.
    const double total = mem.total();
    for (int c = 0; c < ComponentCount; ++c) {
        QAreaSeries *bar = bars[c];
        const double v = componentValue(mem, Component(c));
        if (v > 0) {
            const auto [stripe, stripes] = stripeOf(mem, Component(c));
            setBar(bar, kLeft, v / kGB, row, stripe, stripes);
        }
        showSeries(bar, v > 0); // B's parts follow A's legend entries (one entry per component for both)
        m_tips.insert(bar, tr("%1%2 per device\n%3 (%4 of the footprint)\nMain memory: %5")
                               .arg(who, componentName(Component(c)), formatBytes(v),
                                    formatPercent(total > 0 ? v / total : 0), formatBytes(mem.capacity)));
    }
}

void MemoryChart::refresh()
{
    const ScenarioDocument *doc = document();
    const Analysis &a = doc->analysis();
    const HardwareSpec &hw = doc->hardware();
    const auto &cmp = doc->compareAnalysis();
    const bool compare = doc->isComparing() && cmp.has_value();
    const HardwareSpec *hwB =
        compare && doc->compareHardware() && !doc->compareDevice().memory.empty() ? &doc->compareDevice() : nullptr;
    ByteSpan span;
    refreshRows(hw, compare, hwB);
    refreshLevels(hw, span);
    refreshOffload(hw, a.memory);
    refreshFootprint(a.memory, compare, span);
    refreshCompare(compare ? &*cmp : nullptr, hwB, span);
    refreshGuides(span);
    m_callout->hide();
    restyleBars();
    layoutLabels();
}

/// Rows: A's footprint on top, B's under it, then every level of A's device, fastest first, then B's main memory
/// when B runs on another device.
void MemoryChart::refreshRows(const HardwareSpec &hw, bool compare, const HardwareSpec *hwB)
{
    QStringList names;
    const QString model = QString::fromStdString(document()->model().name);
    names << (compare ? tr("A: %1\nper device").arg(model) : tr("%1\nper device").arg(model));
    m_bRow = -1;
    if (compare) {
        m_bRow = static_cast<int>(names.size());
        names << tr("B\nper device"); // what B is: in its verdict under the bar
    }
    m_levelRow = static_cast<int>(names.size());
    for (std::size_t i = 0; i < hw.memory.size(); ++i) {
        QString n = rm::levelShortName(hw.memory[i].kind, QString::fromStdString(hw.memory[i].name));
        if (names.contains(n))
            n += QStringLiteral(" (%1)").arg(i + 1);
        names << n;
    }
    m_bCapacityRow = -1;
    if (hwB) {
        const MemoryLevel &lvl = hwB->mainMemory();
        m_bCapacityRow = static_cast<int>(names.size());
        names << tr("B: %1").arg(rm::levelShortName(lvl.kind, QString::fromStdString(lvl.name)));
    }
    m_rows = static_cast<int>(names.size());
    m_levelCount = static_cast<int>(hw.memory.size());
    m_mainRow = static_cast<int>(hw.memory.empty() ? 0 : hw.mainMemoryIndex()) + m_levelRow;
    if (names != m_rowNames) {
        for (const QString &l : m_y->categoriesLabels())
            m_y->remove(l);
        m_y->setStartValue(-0.5);
        for (int r = m_rows - 1; r >= 0; --r)
            m_y->append(names[r], m_rows - 1 - r);
        m_rowNames = names;
    }
    m_y->setRange(-0.5, m_rows - 0.5);
}

/// A capacity bar for every level of A's device (this also starts the tooltips afresh).
void MemoryChart::refreshLevels(const HardwareSpec &hw, ByteSpan &span)
{
    const std::size_t mainIndex = hw.memory.empty() ? 0 : hw.mainMemoryIndex();
    while (m_levels.size() < hw.memory.size()) {
        m_levels.push_back(makeBar(QStringLiteral("level")));
        setLegendVisible(m_levels.back(), false);
    }
    m_tips.clear();
    for (std::size_t i = 0; i < m_levels.size(); ++i) {
        QAreaSeries *bar = m_levels[i];
        if (i < hw.memory.size()) {
            const MemoryLevel &lvl = hw.memory[i];
            const double cap = lvl.capacityBytes.value;
            setBar(bar, kLeft, cap / kGB, static_cast<double>(i) + m_levelRow);
            bar->setName(i == mainIndex ? (m_shortLegend ? tr("Main memory") : tr("Capacity (main memory)"))
                                        : tr("Capacity"));
            bar->setVisible(true);
            m_tips.insert(bar, tr("%1\nCapacity %2\nBandwidth %3%4")
                                   .arg(QString::fromStdString(lvl.name), formatBytes(cap),
                                        formatSi(lvl.bandwidthBytesPerS.value, "B/s"),
                                        i == mainIndex ? tr("\nHolds weights and KV cache") : QString()));
            span.add(cap);
        } else {
            clearBar(bar);
        }
        setLegendVisible(bar, i == mainIndex && i < hw.memory.size());
    }
}

/// Offload: the shares of the KV cache and of the weights that live in host DRAM or NVMe, on that level's row. (The
/// request timeline chart and the command line say why an offload cannot run.)
void MemoryChart::refreshOffload(const HardwareSpec &hw, const MemoryFootprint &mem)
{
    m_offloadBytes = m_offloadWeightBytes = 0;
    m_offloadRow = m_offloadWeightRow = -1;
    m_offloadLevel.clear();
    m_offloadWeightLevel.clear();
    if (const auto &off = document()->offloadReport(); off.report) {
        const OffloadReport &o = *off.report;
        const auto rowOf = [&](const std::string &level) {
            for (std::size_t i = 0; i < hw.memory.size(); ++i)
                if (!level.empty() && hw.memory[i].name == level)
                    return static_cast<int>(i) + m_levelRow;
            return -1;
        };
        const auto bandwidthOf = [&](const std::string &level) {
            for (const OffloadTier &t : o.tiers)
                if (t.level == level)
                    return t.bandwidth;
            return 0.0;
        };
        // The offload step is a decode step (at the mean context of a request): its KV cache, not this phase's.
        m_offloadRow = rowOf(o.level);
        m_offloadBytes = m_offloadRow >= 0 ? std::min(o.offloadedBytes, mem.kv) : 0;
        m_offloadLevel = qs(o.level);
        m_offloadWeightRow = rowOf(o.weightLevel);
        m_offloadWeightBytes = m_offloadWeightRow >= 0 ? std::min(o.offloadedWeightBytes, mem.weights) : 0;
        m_offloadWeightLevel = qs(o.weightLevel);
        // Alone, an offloaded bar fills the lower half of its tier's row; KV cache and weights in one tier
        // share that half, one quarter each (stacking them would hide the smaller one on the log axis).
        const bool shared = m_offloadBytes > 0 && m_offloadWeightBytes > 0 && m_offloadRow == m_offloadWeightRow;
        m_offloadStripe = shared ? std::pair{2, 4} : std::pair{1, 2};
        m_offloadWeightStripe = shared ? std::pair{3, 4} : std::pair{1, 2};
        if (m_offloadBytes > 0) {
            setBar(m_offloadBar, kLeft, m_offloadBytes / kGB, m_offloadRow, m_offloadStripe.first,
                   m_offloadStripe.second);
            showSeries(m_offloadBar, true);
            m_tips.insert(m_offloadBar, tr("KV cache offloaded to %1\n%2 (%3 of the KV cache)\nstreamed back over "
                                           "%4 every decode step")
                                            .arg(m_offloadLevel, formatBytes(m_offloadBytes),
                                                 formatPercent(mem.kv > 0 ? m_offloadBytes / mem.kv : 0),
                                                 formatSi(bandwidthOf(o.level), "B/s")));
        }
        if (m_offloadWeightBytes > 0) {
            setBar(m_offloadWeightBar, kLeft, m_offloadWeightBytes / kGB, m_offloadWeightRow,
                   m_offloadWeightStripe.first, m_offloadWeightStripe.second);
            showSeries(m_offloadWeightBar, true);
            m_tips.insert(m_offloadWeightBar,
                          tr("Weights offloaded to %1\n%2 (%3 of the weights)\nstreamed in "
                             "over %4 every step")
                              .arg(m_offloadWeightLevel, formatBytes(m_offloadWeightBytes),
                                   formatPercent(mem.weights > 0 ? m_offloadWeightBytes / mem.weights : 0),
                                   formatSi(bandwidthOf(o.weightLevel), "B/s")));
        }
    }
    if (!(m_offloadBytes > 0)) {
        m_offloadBytes = 0;
        m_offloadRow = -1;
        clearBar(m_offloadBar);
    }
    if (!(m_offloadWeightBytes > 0)) {
        m_offloadWeightBytes = 0;
        m_offloadWeightRow = -1;
        clearBar(m_offloadWeightBar);
    }
    setLegendVisible(m_offloadBar, m_offloadBytes > 0);
    setLegendVisible(m_offloadWeightBar, m_offloadWeightBytes > 0);
}

/// A's stacked footprint, and what overflows its main memory (after refreshOffload(): what is offloaded does not).
void MemoryChart::refreshFootprint(const MemoryFootprint &mem, bool compare, ByteSpan &span)
{
    m_total = mem.total();
    m_capacity = mem.capacity;
    const double inMain = m_total - m_offloadBytes - m_offloadWeightBytes;
    m_over = inMain > m_capacity && m_capacity > 0;
    setFootprint(m_components, mem, 0, compare ? tr("A: ") : QString());
    for (int c = 0; c < ComponentCount; ++c) {
        const double v = componentValue(mem, Component(c));
        m_components[c]->setName(m_shortLegend ? componentName(Component(c))
                                               : tr("%1 %2").arg(componentName(Component(c)), formatBytes(v)));
        setLegendVisible(m_components[c], v > 0);
    }
    span.add(m_total);
    if (m_over) {
        setBar(m_overflow, m_capacity / kGB, inMain / kGB, 0);
        m_overflow->setVisible(true);
        m_tips.insert(m_overflow,
                      tr("Does not fit\n%1 needed, %2 available\n%3 over: more devices (tp/pp), "
                         "a smaller weight format or a shorter context")
                          .arg(formatBytes(inMain), formatBytes(m_capacity), formatBytes(inMain - m_capacity)));
    } else {
        clearBar(m_overflow);
    }
    setLegendVisible(m_overflow, m_over);
}

/// Scenario B (`cmp`, nullptr when not comparing): its footprint, its verdict against its own device, and that
/// device's main memory (`hwB`, nullptr when B runs on A's device).
void MemoryChart::refreshCompare(const Analysis *cmp, const HardwareSpec *hwB, ByteSpan &span)
{
    m_bTotal = cmp ? cmp->memory.total() : 0;
    m_bCapacityBytes = cmp ? cmp->memory.capacity : 0;
    m_bOver = cmp && m_bTotal > m_bCapacityBytes && m_bCapacityBytes > 0;
    if (cmp) {
        setFootprint(m_bComponents, cmp->memory, m_bRow, tr("B: "));
        span.add(m_bTotal);
    } else {
        for (QAreaSeries *bar : m_bComponents)
            clearBar(bar);
    }
    if (m_bOver) {
        setBar(m_bOverflow, m_bCapacityBytes / kGB, m_bTotal / kGB, m_bRow);
        m_bOverflow->setVisible(true);
        m_tips.insert(m_bOverflow, tr("B does not fit\n%1 needed, %2 available\n%3 over")
                                       .arg(formatBytes(m_bTotal), formatBytes(m_bCapacityBytes),
                                            formatBytes(m_bTotal - m_bCapacityBytes)));
    } else {
        clearBar(m_bOverflow);
    }
    if (hwB) {
        const MemoryLevel &lvl = hwB->mainMemory();
        const double cap = lvl.capacityBytes.value;
        setBar(m_bCapacity, kLeft, cap / kGB, m_bCapacityRow);
        m_bCapacity->setVisible(true);
        m_tips.insert(m_bCapacity, tr("B: %1\n%2\nCapacity %3\nBandwidth %4")
                                       .arg(QString::fromStdString(hwB->name), QString::fromStdString(lvl.name),
                                            formatBytes(cap), formatSi(lvl.bandwidthBytesPerS.value, "B/s")));
        m_bCapacityLine->replace(
            QList<QPointF>{{cap / kGB, m_rows - 1 - m_bRow - 0.5}, {cap / kGB, m_rows - 1 - m_bRow + 0.5}});
        m_bCapacityLine->setVisible(cap > 0);
        span.add(cap);
    } else {
        clearBar(m_bCapacity);
        m_bCapacityLine->clear();
        m_bCapacityLine->setVisible(false);
    }
    for (QAbstractSeries *bSeries :
         {static_cast<QAbstractSeries *>(m_bOverflow), static_cast<QAbstractSeries *>(m_bCapacity),
          static_cast<QAbstractSeries *>(m_bCapacityLine)})
        setLegendVisible(bSeries, false);
    for (QAreaSeries *bar : m_bComponents)
        setLegendVisible(bar, false); // A's entries name the colours
}

/// Vertical guides across all rows (A's main-memory capacity and A's footprint total), and the x range: the bars
/// with room on the right of the footprint for the component labels, unless the user zoomed.
void MemoryChart::refreshGuides(const ByteSpan &span)
{
    m_capacityLine->replace(QList<QPointF>{{m_capacity / kGB, -0.5}, {m_capacity / kGB, m_rows - 0.5}});
    m_needLine->replace(QList<QPointF>{{m_total / kGB, -0.5}, {m_total / kGB, m_rows - 0.5}});
    m_capacityLine->setVisible(m_capacity > 0);
    m_needLine->setVisible(m_total > 0);
    setLegendVisible(m_capacityLine, false);
    setLegendVisible(m_needLine, false);
    if (!isUserView()) {
        const rm::LogRange r = rm::decadeRange(span.lo / kGB, span.hi / kGB * 3.0, 0.15);
        const rm::LogRange labelled = rm::decadeRange(span.lo / kGB, std::max(m_total, m_bTotal) / kGB * 60.0, 0.15);
        const double xmax = std::max(r.max, labelled.max);
        chartfit::setLogRange(m_x, r.min, xmax);
    }
}

void MemoryChart::restyleBars()
{
    const Theme &t = theme();
    QColor capFill = t.foreground;
    capFill.setAlphaF(t.darkWindow ? 0.22 : 0.14);
    QColor capMain = t.foreground;
    capMain.setAlphaF(t.darkWindow ? 0.38 : 0.30);
    const std::size_t mainIndex = static_cast<std::size_t>(m_mainRow - m_levelRow);
    for (std::size_t i = 0; i < m_levels.size(); ++i) {
        const bool main = i == mainIndex;
        m_levels[i]->setBrush(main ? capMain : capFill);
        QPen pen(main && m_over ? t.warning : t.foreground, main ? 1.5 * t.lineWidth / 2 : 1);
        if (!main)
            pen.setColor(capMain);
        m_levels[i]->setPen(pen);
    }
    for (int c = 0; c < ComponentCount; ++c) {
        m_components[c]->setBrush(t.color(componentColor(Component(c))));
        m_components[c]->setPen(QPen(t.background, 1));
        // B in the same colours: one legend entry per component stands for both; the row labels tell them apart.
        m_bComponents[c]->setBrush(t.color(componentColor(Component(c))));
        m_bComponents[c]->setPen(QPen(t.background, 1));
    }
    // B's device: its main memory like A's, and a dashed mark of its capacity across B's bar.
    m_bCapacity->setBrush(capMain);
    m_bCapacity->setPen(QPen(m_bOver ? t.warning : t.foreground, 1.5 * t.lineWidth / 2));
    // A solid translucent fill over the footprint's end: the components stay readable under it, and every output
    // (PNG, SVG, PDF) draws it the same way.
    QColor warn = t.warning;
    warn.setAlphaF(t.darkWindow ? 0.6 : 0.7);
    m_overflow->setBrush(warn);
    m_overflow->setPen(QPen(t.warning, t.lineWidth));
    m_offloadBar->setBrush(t.color(componentColor(KvCache)));
    m_offloadBar->setPen(QPen(t.foreground, 1, Qt::DashLine));
    m_offloadWeightBar->setBrush(t.color(componentColor(Weights)));
    m_offloadWeightBar->setPen(QPen(t.foreground, 1, Qt::DashLine));
    m_bOverflow->setBrush(warn);
    m_bOverflow->setPen(QPen(t.warning, t.lineWidth));
    m_bCapacityLine->setPen(QPen(m_bOver ? t.warning : t.foreground, std::max(1.0, t.lineWidth * 0.75), Qt::DashLine));
    QPen cap(m_over ? t.warning : t.foreground, std::max(1.0, t.lineWidth * 0.75), Qt::DashLine);
    m_capacityLine->setPen(cap);
    QColor need = t.foreground;
    need.setAlphaF(0.6);
    m_needLine->setPen(QPen(need, std::max(1.0, t.lineWidth * 0.6), Qt::DotLine));
}

QStringList MemoryChart::titles() const
{
    const ScenarioDocument *doc = document();
    const Scenario &s = doc->scenario();
    const std::string_view phase = toString(s.phase);
    const QString model = QString::fromStdString(doc->model().name);
    return {title(), tr("Memory per device — %1 %2, batch %3").arg(model, qs(phase)).arg(s.batch),
            tr("Memory per device — %1").arg(model), tr("Memory per device")};
}

void MemoryChart::layoutLabels()
{
    chartfit::applyTitle(m_chart, titles(), theme().titleFont());
    fitLegendNames();
    chartfit::placeLegend(m_chart);
    const QRectF area = m_chart->plotArea();
    if (area.width() < 10 || area.height() < 10 || m_rows == 0)
        return;
    while (m_levelLabels.size() < m_levels.size()) {
        m_levelLabels.push_back(addLabel());
        m_levelLabels.back()->hide();
    }
    // The dashed capacity lines and the dotted footprint line run through no label; no label covers another.
    LabelPlacer placer(area);
    QAbstractSeries *ref = m_components[Weights];
    for (const QLineSeries *line : {m_capacityLine, m_needLine, m_bCapacityLine})
        if (line->isVisible())
            for (int i = 0; i + 1 < line->count(); ++i)
                placer.addCurve(
                    QLineF(m_chart->mapToPosition(line->at(i), ref), m_chart->mapToPosition(line->at(i + 1), ref)));
    // The footprint totals and verdicts first (the chart's answer), under each footprint bar.
    placeVerdict(placer, m_totalLabel, fitText(), m_total, m_capacity, m_over, 0);
    if (m_bRow >= 0)
        placeVerdict(placer, m_bTotalLabel, compareFitText(), m_bTotal, m_bCapacityBytes, m_bOver, m_bRow);
    else
        m_bTotalLabel->hide();
    labelCapacities(placer);
    // Every component the legend names is labelled at the end of its stripe: its bytes and share of the footprint.
    const ScenarioDocument *doc = document();
    labelStripes(placer, m_components, m_componentLabels, doc->analysis().memory, 0, m_capacity);
    if (const auto &cmp = doc->compareAnalysis(); cmp && m_bRow >= 0)
        labelStripes(placer, m_bComponents, m_bComponentLabels, cmp->memory, m_bRow, m_bCapacityBytes);
    else
        labelStripes(placer, m_bComponents, m_bComponentLabels, MemoryFootprint{}, -1, 0);
    if (m_callout->isVisible())
        m_callout->updateGeometry();
}

/// Legend: components with their sizes when that fits in one row under the plot, else the bare names (the sizes are
/// in the tooltips and the total under the bar); a legend at the side would squeeze the bars.
void MemoryChart::fitLegendNames()
{
    const MemoryFootprint &mem = document()->analysis().memory;
    QStringList full;
    for (int c = 0; c < ComponentCount; ++c)
        if (componentValue(mem, Component(c)) > 0)
            full << tr("%1 %2").arg(componentName(Component(c)), formatBytes(componentValue(mem, Component(c))));
    full << tr("Capacity (main memory)");
    if (m_over)
        full << tr("Over capacity");
    const qreal width = m_chart->size().width() - m_chart->margins().left() - m_chart->margins().right();
    const bool shortLegend = width > 0 && !chartfit::legendFitsInRow(full, theme().labelFont(), width * 0.95);
    if (shortLegend == m_shortLegend)
        return;
    m_shortLegend = shortLegend;
    for (int c = 0; c < ComponentCount; ++c) {
        const double v = componentValue(mem, Component(c));
        m_components[c]->setName(m_shortLegend ? componentName(Component(c))
                                               : tr("%1 %2").arg(componentName(Component(c)), formatBytes(v)));
    }
    const std::size_t mainIndex = static_cast<std::size_t>(m_mainRow - m_levelRow);
    if (mainIndex < m_levels.size())
        m_levels[mainIndex]->setName(m_shortLegend ? tr("Main memory") : tr("Capacity (main memory)"));
}

QPointF MemoryChart::barPoint(double x, double row) const
{
    return m_chart->mapToPosition(QPointF(x, m_rows - 1 - row), m_components[Weights]);
}

void MemoryChart::placeAtBarEnd(LabelPlacer &placer, QGraphicsSimpleTextItem *label, double xEnd, double row,
                                double xBeyond)
{
    const QPointF p = barPoint(xEnd, row);
    const QSizeF sz = label->boundingRect().size();
    label->setBrush(theme().foreground);
    // Right of the bar's end; else right of the guide at xBeyond (a capacity line the label would cross); only then
    // left of the end, over the bar itself.
    std::vector<double> xs{p.x() + 6};
    if (xBeyond > xEnd)
        xs.push_back(barPoint(xBeyond, row).x() + 6);
    xs.push_back(p.x() - 6 - sz.width());
    std::vector<QPointF> candidates;
    for (double x : xs)
        for (double dy : {0.0, -0.5, 0.5, -1.0, 1.0})
            candidates.emplace_back(x, p.y() - sz.height() / 2 + dy * sz.height());
    const auto r = placer.place(sz, candidates);
    if (r)
        label->setPos(r->topLeft());
    label->setVisible(r.has_value());
}

/// The capacity of each level of A's device, the offloaded KV cache and weights (each on its tier's row) and B's
/// main memory, at the end of their bars.
void MemoryChart::labelCapacities(LabelPlacer &placer)
{
    const QFont font = theme().tickFont();
    QFont bold = font;
    bold.setBold(true);
    const HardwareSpec &hw = document()->hardware();
    for (std::size_t i = 0; i < m_levelLabels.size(); ++i) {
        QGraphicsSimpleTextItem *label = m_levelLabels[i];
        if (i >= hw.memory.size()) {
            label->hide();
            continue;
        }
        const bool main = static_cast<int>(i) + m_levelRow == m_mainRow;
        label->setFont(main ? bold : font);
        label->setText(formatBytes(hw.memory[i].capacityBytes.value));
        placeAtBarEnd(placer, label, hw.memory[i].capacityBytes.value / kGB,
                      static_cast<double>(i + static_cast<std::size_t>(m_levelRow)));
    }
    const auto labelOffload = [&](QGraphicsSimpleTextItem *&label, const QAbstractSeries *bar, int row, double bytes,
                                  std::pair<int, int> stripe, const QString &what) {
        if (!label) {
            label = addLabel();
            label->hide();
        }
        if (row < 0 || !bar->isVisible()) {
            label->hide();
            return;
        }
        label->setFont(bold);
        label->setText(QStringLiteral("%1 %2").arg(what, formatBytes(bytes)));
        placeAtBarEnd(placer, label, bytes / kGB, stripeRow(row, stripe.first, stripe.second));
    };
    labelOffload(m_offloadLabel, m_offloadBar, m_offloadRow, m_offloadBytes, m_offloadStripe, tr("KV cache"));
    labelOffload(m_offloadWeightLabel, m_offloadWeightBar, m_offloadWeightRow, m_offloadWeightBytes,
                 m_offloadWeightStripe, tr("Weights"));
    if (m_bCapacityRow >= 0 && m_bCapacity->isVisible()) {
        m_bCapacityLabel->setFont(bold);
        m_bCapacityLabel->setText(formatBytes(compareCapacityBytes()));
        placeAtBarEnd(placer, m_bCapacityLabel, compareCapacityBytes() / kGB, m_bCapacityRow);
    } else {
        m_bCapacityLabel->hide();
    }
}

/// Labels each component of `mem` (footprint `row`, -1 to hide them all) with its bytes and share, in a column right
/// of the footprint's total (the dotted line), so no guide runs through a label; the font shrinks (down to the
/// theme's minimum, LabelPlacer::minimumPointSize()) until the label fits its stripe's height and the room on the
/// right.
void MemoryChart::labelStripes(LabelPlacer &placer, const std::array<QAreaSeries *, ComponentCount> &bars,
                               std::array<QGraphicsSimpleTextItem *, ComponentCount> &labels,
                               const MemoryFootprint &mem, double row, double capacityBytes)
{
    const QFont font = theme().tickFont();
    const qreal minPoints = LabelPlacer::minimumPointSize(theme());
    const QRectF area = m_chart->plotArea();
    for (int c = 0; c < ComponentCount; ++c) {
        if (!labels[c]) {
            labels[c] = addLabel();
            labels[c]->hide();
        }
        const double v = componentValue(mem, Component(c));
        const auto [stripe, stripes] = stripeOf(mem, Component(c));
        if (row < 0 || !(v > 0) || stripe < 0 || !bars[c]->isVisible()) {
            labels[c]->hide();
            continue;
        }
        labels[c]->setText(
            tr("%1 %2 · %3").arg(componentName(Component(c)), formatBytes(v), formatPercent(v / mem.total())));
        const double anchor = std::max(v, mem.total()) / kGB;
        const double stripePx = std::abs(barPoint(anchor, row + kBar / stripes).y() - barPoint(anchor, row).y());
        const double room = area.right() - 2 - (barPoint(anchor, row).x() + 6);
        QFont f = font;
        labels[c]->setFont(f);
        while (f.pointSizeF() - 0.5 >= minPoints &&
               (labels[c]->boundingRect().height() > stripePx * 1.15 || labels[c]->boundingRect().width() > room)) {
            f.setPointSizeF(f.pointSizeF() - 0.5);
            labels[c]->setFont(f);
        }
        placeAtBarEnd(placer, labels[c], anchor, stripeRow(row, stripe, stripes), capacityBytes / kGB);
    }
}

void MemoryChart::placeVerdict(LabelPlacer &placer, QGraphicsSimpleTextItem *label, const QString &text, double total,
                               double capacity, bool over, double row)
{
    const QRectF area = m_chart->plotArea();
    if (!(total > 0) || area.width() < 10 || area.height() < 10) {
        label->hide();
        return;
    }
    const Theme &t = theme();
    QFont bold = t.tickFont();
    bold.setBold(true);
    QAbstractSeries *ref = m_components[Weights];
    auto map = [&](double x, double r) { return m_chart->mapToPosition(QPointF(x, m_rows - 1 - r), ref); };
    // Under the bar, ending where the footprint ends.
    label->setFont(bold);
    label->setText(text);
    label->setBrush(over ? t.warning : t.foreground);
    const QSizeF sz = label->boundingRect().size();
    const QPointF end = map(total / kGB, row);
    const double barBottom = map(total / kGB, row + kBar / 2).y(); // +kBar/2 rows lower
    // Ending just left of the first vertical guide it would meet (the dashed capacity line when over capacity,
    // else the dotted footprint line), so no line runs through the text; else above the bar.
    const double guide = over && capacity > 0 ? map(capacity / kGB, row).x() : end.x();
    const double x =
        std::clamp(guide - 6 - sz.width(), area.left() + 4, std::max(area.left() + 4, area.right() - sz.width() - 2));
    const double barTop = map(total / kGB, row - kBar / 2).y();
    const auto r = placer.place(
        sz, {QPointF(x, barBottom + 3), QPointF(x, barTop - 3 - sz.height()), QPointF(area.left() + 4, barBottom + 3)});
    if (r)
        label->setPos(r->topLeft());
    label->setVisible(r.has_value() && end.y() >= area.top() && end.y() <= area.bottom());
}

void MemoryChart::restyle()
{
    m_callout->setTheme(theme());
    restyleBars();
    layoutLabels();
}

nlohmann::json MemoryChart::data() const
{
    using nlohmann::json;
    const ScenarioDocument *doc = document();
    const HardwareSpec &hw = doc->hardware();
    const MemoryFootprint &mem = doc->analysis().memory;
    json j;
    j["chart"] = id().toStdString();
    j["title"] = title().toStdString();
    j["units"] = "bytes";
    json levels = json::array();
    for (std::size_t i = 0; i < hw.memory.size(); ++i)
        levels.push_back({{"name", hw.memory[i].name},
                          {"kind", std::string(toString(hw.memory[i].kind))},
                          {"capacity_bytes", hw.memory[i].capacityBytes.value},
                          {"bandwidth_bytes_per_s", hw.memory[i].bandwidthBytesPerS.value},
                          {"main", i == hw.mainMemoryIndex()}});
    j["levels"] = levels;
    json fp;
    for (int c = 0; c < ComponentCount; ++c)
        fp[componentKey(Component(c))] = componentValue(mem, Component(c));
    fp["total"] = mem.total();
    j["footprint_per_device"] = fp;
    j["capacity_bytes"] = mem.capacity;
    j["fits"] = !m_over;
    j["verdict"] = fitText().toStdString();
    j["offloaded_kv_bytes"] = m_offloadBytes;
    if (m_offloadBytes > 0)
        j["offload_level"] = m_offloadLevel.toStdString();
    j["offloaded_weight_bytes"] = m_offloadWeightBytes;
    if (m_offloadWeightBytes > 0)
        j["weight_offload_level"] = m_offloadWeightLevel.toStdString();
    if (doc->isComparing()) {
        json b{{"label", doc->compareLabel().toStdString()}, {"hardware", doc->compareDevice().id}};
        if (const auto &cmp = doc->compareAnalysis()) {
            json bfp;
            for (int c = 0; c < ComponentCount; ++c)
                bfp[componentKey(Component(c))] = componentValue(cmp->memory, Component(c));
            bfp["total"] = cmp->memory.total();
            b["footprint_per_device"] = bfp;
            b["capacity_bytes"] = cmp->memory.capacity;
            b["fits"] = !m_bOver;
            b["verdict"] = compareFitText().toStdString();
        } else {
            b["error"] = doc->compareError().toStdString();
        }
        j["compare"] = b;
    }
    return j;
}

QString MemoryChart::csv() const
{
    const ScenarioDocument *doc = document();
    const HardwareSpec &hw = doc->hardware();
    const MemoryFootprint &mem = doc->analysis().memory;
    auto num = [](double v) { return csvNumber(v); };
    QStringList rows;
    rows << QStringLiteral("kind,name,bytes,bandwidth_bytes_per_s");
    for (const MemoryLevel &lvl : hw.memory)
        rows << QStringLiteral("level,%1,%2,%3")
                    .arg(csvField(QString::fromStdString(lvl.name)), num(lvl.capacityBytes.value),
                         num(lvl.bandwidthBytesPerS.value));
    for (int c = 0; c < ComponentCount; ++c)
        rows << QStringLiteral("footprint,%1,%2,")
                    .arg(QLatin1String(componentKey(Component(c))), num(componentValue(mem, Component(c))));
    rows << QStringLiteral("footprint,total,%1,").arg(num(mem.total()));
    if (const auto &cmp = doc->compareAnalysis()) {
        // Scenario B: its device's main memory, then its footprint.
        const MemoryLevel &lvl = doc->compareDevice().mainMemory();
        rows << QStringLiteral("b_level,%1,%2,%3")
                    .arg(csvField(QString::fromStdString(lvl.name)), num(lvl.capacityBytes.value),
                         num(lvl.bandwidthBytesPerS.value));
        for (int c = 0; c < ComponentCount; ++c)
            rows << QStringLiteral("b_footprint,%1,%2,")
                        .arg(QLatin1String(componentKey(Component(c))), num(componentValue(cmp->memory, Component(c))));
        rows << QStringLiteral("b_footprint,total,%1,").arg(num(cmp->memory.total()));
    }
    return rows.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace memwall::ui
