#include "ui/charts/breakdownchart.h"

#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QBarCategoryAxis>
#include <QBarLegendMarker>
#include <QBarSet>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QHorizontalBarSeries>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QPen>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

using namespace memwall::core;

// ---------------------------------------------------------------------------------------------------------------
namespace breakdownmath {

QString legendLabel(ShareClass c, double flopShare, double timeShare)
{
    return QObject::tr("%1: %2 of FLOPs, %3 of time")
        .arg(QString::fromLatin1(displayName(c)), formatPercent(flopShare), formatPercent(timeShare));
}

bool labelFits(double share, double barPixels, double labelPixels)
{
    return share > 0 && share * barPixels >= labelPixels + 6;
}

bool groupByOperator(Phase phase, const ClassShares &shares)
{
    return phase == Phase::Decode &&
           std::any_of(shares.timeShare.begin(), shares.timeShare.end(), [](double t) { return t >= kDominantShare; });
}

std::vector<OperatorRow> operatorRows(const Analysis &a, std::size_t maxRows)
{
    struct Sum
    {
        std::string_view name;
        double flops = 0, timeS = 0, weights = 0, kv = 0, activations = 0;
        bool link = false; ///< a communication operator's (Operator::onLink()): its time is in a.comm.timeS
    };
    std::vector<Sum> sums; // in the order the operators first appear
    for (const Operator &op : a.operators) {
        auto it = std::find_if(sums.begin(), sums.end(), [&](const Sum &x) { return x.name == op.name; });
        if (it == sums.end())
            it = sums.insert(sums.end(), Sum{op.name});
        it->link = op.onLink();
        it->flops += op.flops;
        it->timeS += op.timeS;
        it->weights += op.weightBytes;
        it->kv += op.kvBytes;
        it->activations += op.activationBytes;
    }
    std::vector<OperatorRow> rows;
    // The all-to-all's halves (Operator::onLink()) are rows of their own; the "communication" row is the rest of it.
    double flops = 0, time = a.comm.timeS, linkTime = 0;
    for (const Sum &x : sums)
        if (x.link)
            linkTime += x.timeS;
    time -= linkTime;
    for (const Sum &x : sums) {
        OperatorRow r;
        r.name = QString::fromLatin1(x.name.data(), static_cast<qsizetype>(x.name.size()));
        r.flops = x.flops;
        r.timeS = x.timeS;
        const double bytes = x.weights + x.kv + x.activations;
        if (bytes > 0 && !x.link) { // a link operator's bytes go over the link, not to and from memory
            // What most of its bytes are, if one kind is most of them.
            if (x.weights >= 0.5 * bytes)
                r.reads = QObject::tr("weights");
            else if (x.kv >= 0.5 * bytes)
                r.reads = QObject::tr("KV cache");
            else if (x.activations >= 0.5 * bytes)
                r.reads = QObject::tr("activations");
        }
        flops += x.flops;
        time += x.timeS;
        rows.push_back(std::move(r));
    }
    // The rest of the communication, where there is more than the rounding of the halves' sum.
    if (const double rest = a.comm.timeS - linkTime; rest > 1e-9 * a.comm.timeS) {
        OperatorRow r;
        r.name = QObject::tr("communication");
        r.timeS = rest;
        rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const OperatorRow &x, const OperatorRow &y) { return x.timeS > y.timeS; });
    maxRows = std::max<std::size_t>(maxRows, 2);
    if (rows.size() > maxRows) {
        OperatorRow rest;
        rest.operators = 0;
        for (std::size_t i = maxRows - 1; i < rows.size(); ++i) {
            rest.flops += rows[i].flops;
            rest.timeS += rows[i].timeS;
            rest.operators += rows[i].operators;
        }
        rest.name = QObject::tr("other (%1 operators)").arg(rest.operators);
        rows.resize(maxRows - 1);
        rows.push_back(std::move(rest));
    }
    for (OperatorRow &r : rows) {
        r.flopShare = flops > 0 ? r.flops / flops : 0.0;
        r.timeShare = time > 0 ? r.timeS / time : 0.0;
    }
    return rows;
}

} // namespace breakdownmath

// ---------------------------------------------------------------------------------------------------------------
namespace {

constexpr int kFlopsBar = 1; // category index: FLOPs on top
constexpr int kTimeBar = 0;

constexpr std::array<ShareClass, kShareClassCount> kClasses = {ShareClass::TensorContraction, ShareClass::Normalization,
                                                               ShareClass::Elementwise, ShareClass::Communication};
constexpr std::array<int, kShareClassCount> kColours = {0, 1, 2, 5};

QColor textOn(const QColor &fill)
{
    // Relative luminance (sRGB approximation): dark text on light fills.
    const double l = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return l > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

} // namespace

BreakdownChart::BreakdownChart(ScenarioDocument *doc, QObject *parent) : ChartBase(doc, parent)
{
    m_series = new QHorizontalStackedBarSeries;
    m_series->setBarWidth(0.6);
    for (std::size_t i = 0; i < kShareClassCount; ++i) {
        auto *set = new QBarSet(QString::fromLatin1(displayName(kClasses[i])));
        *set << 0 << 0; // [time, FLOPs]
        m_sets[i] = set;
        m_series->append(set);
        connect(set, &QBarSet::hovered, this, [this, i](bool status, int index) {
            if (!status) {
                m_callout->hide();
                return;
            }
            const bool time = index == kTimeBar;
            const ShareClass c = kClasses[i];
            double before = 0;
            for (std::size_t k = 0; k < i; ++k)
                before += m_sets[k]->at(index);
            const double mid = before + m_sets[i]->at(index) / 2;
            QString text = QString::fromLatin1(displayName(c));
            text += QStringLiteral("\n") +
                    tr("%1 of the FLOPs (%2)")
                        .arg(formatPercent(m_shares.flopShareOf(c)), formatSi(m_shares.flops[i], "FLOP"));
            text +=
                QStringLiteral("\n") +
                tr("%1 of the time (%2)").arg(formatPercent(m_shares.timeShareOf(c)), formatSeconds(m_shares.timeS[i]));
            if (c == ShareClass::TensorContraction)
                text += QStringLiteral("\n") + tr("matmuls and attention's score/context products");
            else if (c == ShareClass::Normalization)
                text += QStringLiteral("\n") + tr("LayerNorm/RMSNorm and softmax: few FLOPs, a full pass over memory");
            else if (c == ShareClass::Elementwise)
                text += QStringLiteral("\n") + tr("residual adds, activations, rotary, embedding, KV writes");
            else
                text += QStringLiteral("\n") + tr("all-reduces and transfers between devices: no FLOPs");
            m_callout->setText(text);
            m_callout->setAnchor(QPointF(mid, time ? kTimeBar : kFlopsBar), m_series);
            m_callout->show();
        });
    }
    m_chart->addSeries(m_series);

    // The decode view: a pair of bars per operator.
    m_opSeries = new QHorizontalBarSeries;
    m_opSeries->setBarWidth(0.8);
    m_opFlops = new QBarSet(tr("Share of FLOPs"));
    m_opTime = new QBarSet(tr("Share of time"));
    m_opSeries->append(m_opTime); // drawn below the FLOPs bar of its operator
    m_opSeries->append(m_opFlops);
    m_opSeries->setLabelsVisible(true);
    m_opSeries->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    m_opSeries->setLabelsFormat(QStringLiteral("@value %"));
    m_opSeries->setLabelsPrecision(3);
    m_chart->addSeries(m_opSeries);
    for (QBarSet *set : {m_opFlops, m_opTime})
        connect(set, &QBarSet::hovered, this, [this, set](bool status, int index) {
            if (!status) {
                m_callout->hide();
                return;
            }
            showOperatorCallout(static_cast<int>(m_rows.size()) - 1 - index, set == m_opTime);
        });

    m_categories = new QBarCategoryAxis;
    m_categories->append({tr("Share of time"), tr("Share of FLOPs")});
    m_categories->setGridLineVisible(false);
    m_percent = new QValueAxis;
    m_percent->setRange(0, 100);
    m_percent->setTickCount(11);
    m_percent->setLabelFormat(QStringLiteral("%d"));
    m_percent->setTitleText(tr("Share (%)"));
    m_chart->addAxis(m_categories, Qt::AlignLeft);
    m_chart->addAxis(m_percent, Qt::AlignBottom);
    m_series->attachAxis(m_categories);
    m_series->attachAxis(m_percent);
    m_opSeries->attachAxis(m_categories);
    m_opSeries->attachAxis(m_percent);
    m_chart->removeSeries(m_opSeries); // showMode() puts in the one shown
    m_opSeries->setParent(this);
    m_chart->legend()->setAlignment(Qt::AlignBottom);

    for (auto &label : m_labels) {
        label = new QGraphicsSimpleTextItem(m_chart);
        label->setZValue(20);
        label->setAcceptedMouseButtons(Qt::NoButton);
    }
    m_callout = new Callout(m_chart);
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { layoutOverlay(); });

    setTheme(theme());
    refresh();
}

BreakdownChart::~BreakdownChart() = default;
QString BreakdownChart::title() const
{
    const ScenarioDocument *doc = document();
    const Scenario &s = doc->scenario();
    return tr("Time breakdown: %1 %2 on %3%4")
        .arg(QString::fromStdString(doc->model().name), QString::fromLatin1(toString(s.phase)),
             deviceNameWithoutVendor(doc->hardware()), s.fusedAttention ? QString() : tr(" (unfused attention)"));
}

void BreakdownChart::refresh()
{
    const Analysis &a = document()->analysis();
    m_shares = classShares(a);
    for (std::size_t i = 0; i < kShareClassCount; ++i) {
        m_sets[i]->replace(kTimeBar, m_shares.timeShare[i] * 100.0);
        m_sets[i]->replace(kFlopsBar, m_shares.flopShare[i] * 100.0);
    }
    m_byOperator = breakdownmath::groupByOperator(document()->scenario().phase, m_shares);
    m_rows = m_byOperator ? breakdownmath::operatorRows(a) : std::vector<breakdownmath::OperatorRow>{};
    // Bottom to top: the largest time at the top.
    QList<qreal> flops, time;
    for (std::size_t i = m_rows.size(); i-- > 0;) { // clang 14 cannot read libstdc++ 12's reverse_view
        flops << m_rows[i].flopShare * 100.0;
        time << m_rows[i].timeShare * 100.0;
    }
    for (auto [set, values] : {std::pair{m_opFlops, &flops}, std::pair{m_opTime, &time}}) {
        if (set->count() != values->size()) {
            set->remove(0, set->count());
            set->append(*values);
        } else {
            for (int i = 0; i < values->size(); ++i)
                set->replace(i, (*values)[i]);
        }
    }
    showMode();
    layoutOverlay();
}

QStringList BreakdownChart::categories() const { return m_categories->categories(); }

void BreakdownChart::showMode()
{
    QStringList cats;
    if (m_byOperator) {
        for (std::size_t i = m_rows.size(); i-- > 0;) {
            const breakdownmath::OperatorRow &row = m_rows[i];
            cats << (row.reads.isEmpty() ? row.name : tr("%1 (%2)").arg(row.name, row.reads));
        }
    } else {
        cats << tr("Share of time") << tr("Share of FLOPs");
    }
    if (m_categories->categories() != cats) {
        m_categories->clear();
        m_categories->append(cats);
    }
    // Only the shown bar series is in the chart: Qt Charts sets the bar series of a chart side by side in each
    // category, hidden ones too.
    QAbstractBarSeries *shown = m_byOperator ? static_cast<QAbstractBarSeries *>(m_opSeries) : m_series;
    QAbstractBarSeries *hidden = m_byOperator ? static_cast<QAbstractBarSeries *>(m_series) : m_opSeries;
    if (m_chart->series().contains(hidden)) {
        m_chart->removeSeries(hidden);
        hidden->setParent(this); // out of the chart, ours (addSeries() gives it back to the chart)
    }
    if (!m_chart->series().contains(shown)) {
        m_chart->addSeries(shown);
        shown->attachAxis(m_categories);
        shown->attachAxis(m_percent);
        styleLegend(); // new entries: styled as the first ones were
    }
    if (m_byOperator) {
        double top = 0;
        for (const auto &r : m_rows)
            top = std::max({top, r.flopShare, r.timeShare});
        // Room right of the longest bar for its label.
        chartfit::setZeroBasedRange(m_percent, std::min(100.0, top * 100.0 * 1.25), 6);
        ShareClass dominant = ShareClass::TensorContraction;
        for (std::size_t i = 0; i < kShareClassCount; ++i)
            if (m_shares.timeShare[i] > m_shares.timeShareOf(dominant))
                dominant = kClasses[i];
        const QString name = QString::fromLatin1(displayName(dominant)).toLower();
        const QString share = formatPercent(m_shares.timeShareOf(dominant));
        m_percentTitles = {tr("Share (%): %1 take %2 of the time, so by operator").arg(name, share),
                           tr("Share (%): %1 take %2 of the time").arg(name, share),
                           tr("Share (%): %1 %2 of the time").arg(name, share), tr("Share (%)")};
    } else {
        m_percent->setTickType(QValueAxis::TicksFixed);
        m_percent->setLabelFormat(QStringLiteral("%d"));
        m_percent->setRange(0, 100);
        m_percentTitles = {tr("Share (%)")};
    }
}

void BreakdownChart::showOperatorCallout(int row, bool time)
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return;
    const breakdownmath::OperatorRow &r = m_rows[static_cast<std::size_t>(row)];
    QString text = r.name;
    text +=
        QStringLiteral("\n") + tr("%1 of the FLOPs (%2)").arg(formatPercent(r.flopShare), formatSi(r.flops, "FLOP"));
    text += QStringLiteral("\n") + tr("%1 of the time (%2)").arg(formatPercent(r.timeShare), formatSeconds(r.timeS));
    if (!r.reads.isEmpty())
        text += QStringLiteral("\n") + tr("mostly reading %1").arg(r.reads);
    m_callout->setText(text);
    m_callout->setAnchor(QPointF((time ? r.timeShare : r.flopShare) * 100.0, static_cast<int>(m_rows.size()) - 1 - row),
                         m_opSeries);
    m_callout->show();
}

QStringList BreakdownChart::titles() const
{
    const ScenarioDocument *doc = document();
    const QString model = QString::fromStdString(doc->model().name);
    const QString phase = QString::fromLatin1(toString(doc->scenario().phase));
    return {title(), tr("%1 %2 on %3").arg(model, phase, deviceNameWithoutVendor(doc->hardware())),
            tr("Time breakdown: %1 %2").arg(model, phase), tr("%1 %2").arg(model, phase)};
}

void BreakdownChart::layoutOverlay()
{
    const qreal width = m_chart->size().width() - 40;
    chartfit::applyTitle(m_chart, titles(), theme().titleFont());
    // Legend: "Class: x % of FLOPs, y % of time" when a row of those fits, else the class names (right-hand side if
    // even they do not fit in a row).
    QStringList full;
    for (std::size_t i = 0; i < kShareClassCount; ++i)
        full << breakdownmath::legendLabel(kClasses[i], m_shares.flopShare[i], m_shares.timeShare[i]);
    const bool long_ = chartfit::legendFitsInRow(full, theme().labelFont(), width * 0.95);
    for (std::size_t i = 0; i < kShareClassCount; ++i) {
        const QString label = long_ ? full[static_cast<qsizetype>(i)] : QString::fromLatin1(displayName(kClasses[i]));
        if (m_sets[i]->label() != label)
            m_sets[i]->setLabel(label);
    }
    chartfit::placeLegend(m_chart);
    // Percent ticks every 10, 20 or 50 so the labels never run into each other.
    const QRectF area = m_chart->plotArea();
    if (!area.isEmpty()) {
        const QString t = chartfit::fittingTitle(m_percentTitles, theme().labelFont(), area.width());
        if (m_percent->titleText() != t)
            m_percent->setTitleText(t);
    }
    if (!area.isEmpty() && !m_byOperator) {
        const qreal labelW = QFontMetricsF(theme().tickFont()).horizontalAdvance(QStringLiteral("100")) * 1.5;
        const int ticks = area.width() / 10 >= labelW ? 11 : area.width() / 5 >= labelW ? 6 : 3;
        if (m_percent->tickCount() != ticks)
            m_percent->setTickCount(ticks);
    }
    placeLabels();
    m_callout->updateGeometry();
}

double BreakdownChart::plotted(ShareClass c, bool time) const
{
    return m_sets[static_cast<std::size_t>(c)]->at(time ? kTimeBar : kFlopsBar);
}

QStringList BreakdownChart::legendLabels() const
{
    QStringList l;
    for (const QBarSet *s : m_sets)
        l << s->label();
    return l;
}

QStringList BreakdownChart::visibleSegmentLabels() const
{
    QStringList l;
    for (const auto *label : m_labels)
        if (label->isVisible())
            l << label->text();
    return l;
}

void BreakdownChart::placeLabels()
{
    const QRectF area = m_chart->plotArea();
    if (m_byOperator) { // the operator bars carry Qt's own value labels
        for (auto *label : m_labels)
            label->setVisible(false);
        return;
    }
    for (int bar = 0; bar < 2; ++bar) {
        double start = 0;
        for (std::size_t i = 0; i < kShareClassCount; ++i) {
            QGraphicsSimpleTextItem *label = m_labels[static_cast<std::size_t>(bar) * kShareClassCount + i];
            const double v = m_sets[i]->at(bar);
            label->setText(formatPercent(v / 100.0));
            if (!breakdownmath::labelFits(v / 100.0, area.width(), label->boundingRect().width()))
                label->setText(formatPercentNumber(v / 100.0) + QLatin1Char('%')); // "14%" when "14 %" is too wide
            const QRectF br = label->boundingRect();
            const bool fits =
                !area.isEmpty() && v >= 0.5 && breakdownmath::labelFits(v / 100.0, area.width(), br.width());
            label->setVisible(fits);
            if (fits) {
                const QPointF c = m_chart->mapToPosition(QPointF(start + v / 2, bar), m_series);
                label->setPos(c.x() - br.width() / 2, c.y() - br.height() / 2);
            }
            start += v;
        }
    }
}

void BreakdownChart::restyle()
{
    const Theme &th = theme();
    QFont f = th.labelFont();
    f.setBold(true);
    for (std::size_t i = 0; i < kShareClassCount; ++i) {
        const QColor c = th.color(kColours[i]);
        m_sets[i]->setColor(c);
        m_sets[i]->setBorderColor(th.background);
        for (int bar = 0; bar < 2; ++bar) {
            auto *label = m_labels[static_cast<std::size_t>(bar) * kShareClassCount + i];
            label->setFont(f);
            label->setBrush(textOn(c));
        }
    }
    m_opFlops->setColor(th.color(0));
    m_opFlops->setBorderColor(th.background);
    m_opTime->setColor(th.color(1));
    m_opTime->setBorderColor(th.background);
    m_opSeries->setLabelsAngle(0);
    for (QBarSet *set : {m_opFlops, m_opTime}) {
        set->setLabelFont(th.tickFont());
        set->setLabelColor(th.foreground);
    }
    m_callout->setTheme(th);
    styleLegend();
    layoutOverlay();
}

void BreakdownChart::styleLegend()
{
    // A bar set's legend entry takes its pen when the entry is made, and not a later border colour: set it here, so
    // that an entry made again (the series put back into the chart) looks as the first one did.
    for (QLegendMarker *marker : m_chart->legend()->markers())
        if (auto *bar = qobject_cast<QBarLegendMarker *>(marker))
            marker->setPen(QPen(bar->barset()->color().darker(140), 1));
}

nlohmann::json BreakdownChart::data() const
{
    nlohmann::json j;
    j["chart"] = id().toStdString();
    j["hardware"] = document()->hardware().id;
    j["model"] = document()->model().id;
    j["phase"] = std::string(toString(document()->scenario().phase));
    j["fused_attention"] = document()->scenario().fusedAttention;
    j["total_flops"] = m_shares.totalFlops;
    j["total_time_s"] = m_shares.totalTimeS;
    auto &arr = j["classes"] = nlohmann::json::array();
    for (std::size_t i = 0; i < kShareClassCount; ++i)
        arr.push_back({{"class", std::string(toString(kClasses[i]))},
                       {"name", std::string(displayName(kClasses[i]))},
                       {"flops", m_shares.flops[i]},
                       {"time_s", m_shares.timeS[i]},
                       {"flop_share", m_shares.flopShare[i]},
                       {"time_share", m_shares.timeShare[i]}});
    j["grouped_by"] = m_byOperator ? "operator" : "class";
    if (m_byOperator) {
        auto &ops = j["operators"] = nlohmann::json::array();
        for (const auto &r : m_rows)
            ops.push_back({{"name", r.name.toStdString()},
                           {"reads", r.reads.toStdString()},
                           {"operators", r.operators},
                           {"flops", r.flops},
                           {"time_s", r.timeS},
                           {"flop_share", r.flopShare},
                           {"time_share", r.timeShare}});
    }
    return j;
}

QString BreakdownChart::csv() const
{
    QString out = QStringLiteral("class,flops,time_s,flop_share,time_share\n");
    for (std::size_t i = 0; i < kShareClassCount; ++i)
        out += QStringLiteral("%1,%2,%3,%4,%5\n")
                   .arg(QString::fromLatin1(toString(kClasses[i])))
                   .arg(csvNumber(m_shares.flops[i], 12), csvNumber(m_shares.timeS[i], 12),
                        csvNumber(m_shares.flopShare[i], 12), csvNumber(m_shares.timeShare[i], 12));
    return out;
}

} // namespace memwall::ui
