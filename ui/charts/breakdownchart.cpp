#include "ui/charts/breakdownchart.h"

#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

using namespace memwall::core;

// ---------------------------------------------------------------------------------------------------------------
namespace breakdownmath {

QString percent(double share)
{
    const double p = share * 100.0;
    if (!(p > 0))
        return QStringLiteral("0 %");
    if (p < 0.01)
        return QStringLiteral("< 0.01 %");
    if (p >= 99.95 && p < 100)
        return QStringLiteral("> 99.9 %");
    if (p < 1)
        return QString::number(p, 'g', 2) + QStringLiteral(" %");
    return QString::number(p, 'f', 1) + QStringLiteral(" %");
}

QString legendLabel(ShareClass c, double flopShare, double timeShare)
{
    return QObject::tr("%1: %2 of FLOPs, %3 of time")
        .arg(QString::fromLatin1(displayName(c)), percent(flopShare), percent(timeShare));
}

bool labelFits(double share, double barPixels, double labelPixels)
{
    return share > 0 && share * barPixels >= labelPixels + 6;
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
                        .arg(breakdownmath::percent(m_shares.flopShareOf(c)), formatSi(m_shares.flops[i], "FLOP"));
            text += QStringLiteral("\n") + tr("%1 of the time (%2 ms)")
                                               .arg(breakdownmath::percent(m_shares.timeShareOf(c)))
                                               .arg(m_shares.timeS[i] * 1e3, 0, 'g', 3);
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
    return tr("Tensor contractions: %1 of the FLOPs, %2 of the time — %3 %4 on %5%6")
        .arg(breakdownmath::percent(m_shares.flopShareOf(ShareClass::TensorContraction)),
             breakdownmath::percent(m_shares.timeShareOf(ShareClass::TensorContraction)),
             QString::fromStdString(doc->model().name), QString::fromLatin1(toString(s.phase)),
             QString::fromStdString(doc->hardware().name), s.fusedAttention ? QString() : tr(" (unfused attention)"));
}

void BreakdownChart::refresh()
{
    m_shares = classShares(document()->analysis());
    for (std::size_t i = 0; i < kShareClassCount; ++i) {
        m_sets[i]->replace(kTimeBar, m_shares.timeShare[i] * 100.0);
        m_sets[i]->replace(kFlopsBar, m_shares.flopShare[i] * 100.0);
    }
    layoutOverlay();
}

QStringList BreakdownChart::titles() const
{
    const QString f = breakdownmath::percent(m_shares.flopShareOf(ShareClass::TensorContraction));
    const QString t = breakdownmath::percent(m_shares.timeShareOf(ShareClass::TensorContraction));
    return {title(), tr("Tensor contractions: %1 of the FLOPs, %2 of the time").arg(f, t),
            tr("Contractions: %1 of FLOPs, %2 of time").arg(f, t), tr("FLOPs %1, time %2").arg(f, t)};
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
    for (int bar = 0; bar < 2; ++bar) {
        double start = 0;
        for (std::size_t i = 0; i < kShareClassCount; ++i) {
            QGraphicsSimpleTextItem *label = m_labels[static_cast<std::size_t>(bar) * kShareClassCount + i];
            const double v = m_sets[i]->at(bar);
            label->setText(breakdownmath::percent(v / 100.0));
            if (!breakdownmath::labelFits(v / 100.0, area.width(), label->boundingRect().width()))
                label->setText(QString::number(std::round(v)) + QStringLiteral("%")); // "14%" when "14.1 %" is too wide
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
    m_callout->setTheme(th);
    layoutOverlay();
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
    return j;
}

QString BreakdownChart::csv() const
{
    QString out = QStringLiteral("class,flops,time_s,flop_share,time_share\n");
    for (std::size_t i = 0; i < kShareClassCount; ++i)
        out += QStringLiteral("%1,%2,%3,%4,%5\n")
                   .arg(QString::fromLatin1(toString(kClasses[i])))
                   .arg(m_shares.flops[i], 0, 'g', 12)
                   .arg(m_shares.timeS[i], 0, 'g', 12)
                   .arg(m_shares.flopShare[i], 0, 'g', 12)
                   .arg(m_shares.timeShare[i], 0, 'g', 12);
    return out;
}

} // namespace memwall::ui
