#include "ui/charts/scalingchart.h"

#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QAction>
#include <QActionGroup>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

using namespace memwall::core;

// ---------------------------------------------------------------------------------------------------------------
namespace scalingmath {

std::vector<int> deviceCounts(int maxDevices)
{
    std::vector<int> n;
    for (int d = 1; d <= maxDevices; d *= 2)
        n.push_back(d);
    return n;
}

double effectiveSerialFraction(std::optional<double> explicitFraction, const Analysis &a, const Scenario &s,
                               double fallback)
{
    if (explicitFraction)
        return std::clamp(std::isfinite(*explicitFraction) ? *explicitFraction : 0.0, 0.0, 1.0);
    const double measured = communicationFraction(a);
    if (int64_t{s.tp} * s.pp > 1 && measured > 0)
        return measured;
    return fallback;
}

} // namespace scalingmath

// ---------------------------------------------------------------------------------------------------------------
namespace {

QString kindName(ParallelKind k) { return k == ParallelKind::Tensor ? QStringLiteral("tp") : QStringLiteral("pp"); }

} // namespace

ScalingChart::ScalingChart(ScenarioDocument *doc, QObject *parent) : ChartBase(doc, parent)
{
    m_x = new QLogValueAxis;
    m_x->setBase(2);
    m_x->setLabelFormat(QStringLiteral("%d"));
    m_x->setRange(0.8, kMaxDevices * 1.25);
    m_x->setMinorTickCount(0);
    m_x->setTitleText(tr("Devices"));
    m_speedup = new QLogValueAxis;
    m_speedup->setBase(2);
    m_speedup->setLabelFormat(QStringLiteral("%g"));
    m_speedup->setRange(0.8, kMaxDevices * 1.25);
    m_speedup->setMinorTickCount(0);
    m_speedup->setTitleText(tr("Speedup (×)"));
    m_percent = new QValueAxis;
    m_percent->setRange(kPercentMin, kPercentMax);
    m_percent->setTickType(QValueAxis::TicksDynamic);
    m_percent->setTickAnchor(0);
    m_percent->setTickInterval(20);
    m_percent->setLabelFormat(QStringLiteral("%d"));
    m_percent->setTitleText(tr("Efficiency, comm. share (%)"));
    m_percent->setGridLineVisible(false);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_speedup, Qt::AlignLeft);
    m_chart->addAxis(m_percent, Qt::AlignRight);

    auto line = [this](QLogValueAxis *y) {
        auto *s = new QLineSeries;
        m_chart->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(y ? static_cast<QAbstractAxis *>(y) : static_cast<QAbstractAxis *>(m_percent));
        return s;
    };
    m_ideal = line(m_speedup);
    m_ideal->setName(tr("Ideal"));
    m_amdahl = line(m_speedup);
    m_gustafson = line(m_speedup);
    m_scenario = line(m_speedup);
    m_scenarioEff = line(nullptr);
    m_comm = new QScatterSeries;
    m_chart->addSeries(m_comm);
    m_comm->attachAxis(m_x);
    m_comm->attachAxis(m_percent);
    m_comm->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_scenario->setPointsVisible(true);
    m_scenarioEff->setPointsVisible(true);

    m_callout = new Callout(m_chart);
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { layoutOverlay(); });
    for (QXYSeries *s : {static_cast<QXYSeries *>(m_amdahl), static_cast<QXYSeries *>(m_gustafson),
                         static_cast<QXYSeries *>(m_scenario), static_cast<QXYSeries *>(m_scenarioEff),
                         static_cast<QXYSeries *>(m_comm)})
        connect(s, &QXYSeries::hovered, this, [this](const QPointF &p, bool st) { showCallout(p, st); });

    setTheme(theme());
    refresh();
}

ScalingChart::~ScalingChart() = default;

QString ScalingChart::title() const
{
    return tr("%1: %2 = n vs Amdahl and Gustafson (serial %3)")
        .arg(scenarioName(), kindName(m_kind), formatPercent(m_fraction));
}

QString ScalingChart::scenarioName() const
{
    const ScenarioDocument *doc = document();
    return tr("%1 %2 on %3")
        .arg(QString::fromStdString(doc->model().name), QString::fromLatin1(toString(doc->scenario().phase)),
             deviceNameWithoutVendor(doc->hardware()));
}

void ScalingChart::setSerialFraction(std::optional<double> fraction)
{
    m_explicitFraction = fraction;
    refresh();
    syncOptions();
}

void ScalingChart::setParallelKind(ParallelKind kind)
{
    if (kind == m_kind)
        return;
    m_kind = kind;
    refresh();
    syncOptions();
}

QList<QAction *> ScalingChart::optionActions()
{
    if (!m_options.isEmpty())
        return m_options;
    m_fractionMenu = std::make_unique<QMenu>(tr("&Serial fraction"));
    m_fractionMenu->setToolTipsVisible(true);
    m_fractionMenu->menuAction()->setObjectName(QStringLiteral("option:serialFraction"));
    m_fractionMenu->menuAction()->setToolTip(
        tr("The share of the work that does not parallelise, for Amdahl's and Gustafson's laws"));
    m_fractionGroup = new QActionGroup(this);
    m_autoFraction = new QAction(tr("Scenario's &communication share"), this);
    m_autoFraction->setObjectName(QStringLiteral("option:serialFraction:auto"));
    m_autoFraction->setToolTip(tr("The scenario's measured communication share of the step when it is split over "
                                  "devices (tp × pp > 1), else 5 %"));
    m_autoFraction->setCheckable(true);
    m_autoFraction->setActionGroup(m_fractionGroup);
    connect(m_autoFraction, &QAction::triggered, this, [this] { setSerialFraction(std::nullopt); });
    m_fractionMenu->addAction(m_autoFraction);
    m_fractionMenu->addSeparator();
    for (double f : kFractionChoices) {
        auto *a = new QAction(formatPercent(f), this);
        a->setObjectName(QStringLiteral("option:serialFraction:%1").arg(std::lround(f * 100)));
        a->setData(f);
        a->setCheckable(true);
        a->setToolTip(tr("Amdahl and Gustafson with %1 of the work serial").arg(formatPercent(f)));
        a->setActionGroup(m_fractionGroup);
        connect(a, &QAction::triggered, this, [this, f] { setSerialFraction(f); });
        m_fractionMenu->addAction(a);
    }
    auto *kinds = new QActionGroup(this);
    m_tensorAction = new QAction(tr("&Tensor parallel"), this);
    m_tensorAction->setObjectName(QStringLiteral("option:parallel:tensor"));
    m_tensorAction->setToolTip(tr("Scale the scenario by splitting every layer's heads and FFN columns over n devices "
                                  "(tp = n): two all-reduces per layer"));
    m_pipelineAction = new QAction(tr("&Pipeline parallel"), this);
    m_pipelineAction->setObjectName(QStringLiteral("option:parallel:pipeline"));
    m_pipelineAction->setToolTip(tr("Scale the scenario by giving each of n devices a slice of the layers (pp = n): "
                                    "point-to-point transfers and a pipeline bubble"));
    for (QAction *a : {m_tensorAction, m_pipelineAction}) {
        a->setCheckable(true);
        a->setActionGroup(kinds);
    }
    connect(m_tensorAction, &QAction::triggered, this, [this] { setParallelKind(ParallelKind::Tensor); });
    connect(m_pipelineAction, &QAction::triggered, this, [this] { setParallelKind(ParallelKind::Pipeline); });
    m_options = {m_fractionMenu->menuAction(), m_tensorAction, m_pipelineAction};
    syncOptions();
    return m_options;
}

void ScalingChart::syncOptions()
{
    if (m_options.isEmpty())
        return;
    m_autoFraction->setChecked(!m_explicitFraction);
    for (QAction *a : m_fractionGroup->actions())
        if (a != m_autoFraction)
            a->setChecked(m_explicitFraction && std::abs(a->data().toDouble() - *m_explicitFraction) < 1e-9);
    m_tensorAction->setChecked(m_kind == ParallelKind::Tensor);
    m_pipelineAction->setChecked(m_kind == ParallelKind::Pipeline);
}

void ScalingChart::refresh()
{
    const ScenarioDocument *doc = document();
    m_fraction = scalingmath::effectiveSerialFraction(m_explicitFraction, doc->analysis(), doc->scenario());
    const auto counts = scalingmath::deviceCounts(kMaxDevices);

    QList<QPointF> ideal, am, gu;
    // Smooth law curves: 8 samples per doubling.
    for (int k = 0; k <= 6 * 8; ++k) {
        const double n = std::pow(2.0, k / 8.0);
        ideal.append({n, n});
        const double a = amdahlSpeedup(m_fraction, n), g = gustafsonSpeedup(m_fraction, n);
        am.append({n, a});
        gu.append({n, g});
    }
    m_ideal->replace(ideal);
    m_amdahl->replace(am);
    m_gustafson->replace(gu);
    const QString f = formatPercent(m_fraction);
    m_amdahl->setName(tr("Amdahl %1").arg(f));
    m_gustafson->setName(tr("Gustafson %1").arg(f));

    // The scenario itself: only device counts that split the model. Keep data-parallel and the other degree as set.
    Scenario base = doc->scenario();
    m_points = scenarioScaling(doc->hardware(), doc->model(), base, counts, m_kind);
    QList<QPointF> sp, se, cs;
    for (const ScalingPoint &p : m_points) {
        sp.append({static_cast<double>(p.devices), std::max(p.speedup, 1e-3)});
        se.append({static_cast<double>(p.devices), 100 * p.efficiency});
        cs.append({static_cast<double>(p.devices), 100 * p.commShare});
    }
    m_scenario->replace(sp);
    m_scenarioEff->replace(se);
    m_comm->replace(cs);
    m_scenario->setName(tr("%1 speedup").arg(kindName(m_kind)));
    m_scenarioEff->setName(tr("%1 efficiency").arg(kindName(m_kind)));
    m_comm->setName(tr("Comm. share"));

    // Speedups below 1 (pipeline decode) need room under the axis; 0.8 keeps a marker at 1 off the frame.
    double lo = 0.8;
    for (const QPointF &p : sp)
        lo = std::min(lo, p.y() * 0.8);
    m_speedup->setRange(lo, kMaxDevices * 1.25);
    layoutOverlay();
}

QStringList ScalingChart::titles() const
{
    return {title(), tr("%1: scaling %2 = n").arg(scenarioName(), kindName(m_kind)), scenarioName(),
            tr("Scaling %1 = n").arg(kindName(m_kind))};
}

void ScalingChart::layoutOverlay()
{
    chartfit::applyTitle(m_chart, titles(), theme().titleFont());
    chartfit::placeLegend(m_chart); // one row under the plot where it fits (short names, small font), else beside it
    m_callout->updateGeometry();
}

QList<QPointF> ScalingChart::amdahlSpeedupPoints() const { return m_amdahl->points(); }
QList<QPointF> ScalingChart::gustafsonSpeedupPoints() const { return m_gustafson->points(); }
QList<QPointF> ScalingChart::scenarioSpeedupPoints() const { return m_scenario->points(); }
QList<QPointF> ScalingChart::commSharePoints() const { return m_comm->points(); }
QList<QPointF> ScalingChart::scenarioEfficiencyPoints() const { return m_scenarioEff->points(); }

void ScalingChart::showCallout(const QPointF &point, bool state)
{
    if (!state) {
        m_callout->hide();
        return;
    }
    // Snap to the nearest device count of the study.
    const int n = static_cast<int>(std::lround(std::pow(2.0, std::round(std::log2(std::max(1.0, point.x()))))));
    QString text = tr("%1 devices").arg(n);
    const double a = amdahlSpeedup(m_fraction, n), g = gustafsonSpeedup(m_fraction, n);
    text += QStringLiteral("\n") + tr("Amdahl %1× (%2 efficient)").arg(formatFixed(a, 2), formatPercent(a / n));
    text += QStringLiteral("\n") + tr("Gustafson %1× (%2 efficient)").arg(formatFixed(g, 2), formatPercent(g / n));
    const auto it =
        std::find_if(m_points.begin(), m_points.end(), [n](const ScalingPoint &p) { return p.devices == n; });
    QPointF anchor(n, a);
    QAbstractSeries *series = m_amdahl;
    if (it != m_points.end()) {
        text += QStringLiteral("\n") + tr("%1 %2: %3× (%4 efficient)")
                                           .arg(kindName(m_kind))
                                           .arg(n)
                                           .arg(formatFixed(it->speedup, 2), formatPercent(it->efficiency));
        text += QStringLiteral("\n") + tr("step %1 = operators %2 + communication %3 (%4)")
                                           .arg(formatSeconds(it->timeS), formatSeconds(it->computeTimeS),
                                                formatSeconds(it->commTimeS), formatPercent(it->commShare));
        anchor = QPointF(n, std::max(it->speedup, 1e-3));
        series = m_scenario;
    } else {
        text += QStringLiteral("\n") + tr("%1 = %2 does not split %3")
                                           .arg(kindName(m_kind))
                                           .arg(n)
                                           .arg(QString::fromStdString(document()->model().name));
    }
    m_callout->setText(text);
    m_callout->setAnchor(anchor, series);
    m_callout->show();
}

void ScalingChart::restyle()
{
    const Theme &th = theme();
    const qreal w = th.lineWidth;
    // Six series, six colours and six patterns: told apart in grey print and by colour-blind readers too.
    m_ideal->setPen(QPen(th.foreground, w, Qt::DotLine, Qt::RoundCap));
    m_amdahl->setPen(QPen(th.color(0), w, Qt::DashLine));
    m_gustafson->setPen(QPen(th.color(2), w, Qt::DashDotLine));
    m_scenario->setPen(QPen(th.color(5), w * 1.3, Qt::SolidLine));
    m_scenarioEff->setPen(QPen(th.color(1), w, Qt::DashDotDotLine));
    m_comm->setColor(th.color(3));
    m_comm->setBorderColor(th.color(3).darker(130));
    m_comm->setMarkerSize(10 * th.markerScale);
    m_percent->setGridLineVisible(false);
    m_chart->legend()->setFont(th.tickFont()); // six entries in one row under the plot, even on a slide
    m_callout->setTheme(th);
    layoutOverlay();
}

nlohmann::json ScalingChart::data() const
{
    nlohmann::json j;
    j["chart"] = id().toStdString();
    j["serial_fraction"] = m_fraction;
    j["serial_fraction_automatic"] = !m_explicitFraction.has_value();
    j["parallel_kind"] = m_kind == ParallelKind::Tensor ? "tensor" : "pipeline";
    auto &rows = j["rows"] = nlohmann::json::array();
    for (int n : scalingmath::deviceCounts(kMaxDevices)) {
        const double a = amdahlSpeedup(m_fraction, n), g = gustafsonSpeedup(m_fraction, n);
        nlohmann::json row{{"devices", n},
                           {"amdahl_speedup", a},
                           {"amdahl_efficiency", parallelEfficiency(a, n)},
                           {"gustafson_speedup", g},
                           {"gustafson_efficiency", parallelEfficiency(g, n)}};
        const auto it =
            std::find_if(m_points.begin(), m_points.end(), [n](const ScalingPoint &p) { return p.devices == n; });
        if (it != m_points.end()) {
            row["scenario"] = {{"time_s", it->timeS},          {"compute_time_s", it->computeTimeS},
                               {"comm_time_s", it->commTimeS}, {"speedup", it->speedup},
                               {"efficiency", it->efficiency}, {"comm_share", it->commShare}};
        }
        rows.push_back(std::move(row));
    }
    return j;
}

QString ScalingChart::csv() const
{
    QString out = QStringLiteral(
        "devices,amdahl_speedup,amdahl_efficiency,gustafson_speedup,gustafson_efficiency,"
        "scenario_time_s,scenario_comm_time_s,scenario_speedup,scenario_efficiency,scenario_comm_share\n");
    for (int n : scalingmath::deviceCounts(kMaxDevices)) {
        const double a = amdahlSpeedup(m_fraction, n), g = gustafsonSpeedup(m_fraction, n);
        out += QStringLiteral("%1,%2,%3,%4,%5")
                   .arg(n)
                   .arg(csvNumber(a, 12), csvNumber(parallelEfficiency(a, n), 12), csvNumber(g, 12),
                        csvNumber(parallelEfficiency(g, n), 12));
        const auto it =
            std::find_if(m_points.begin(), m_points.end(), [n](const ScalingPoint &p) { return p.devices == n; });
        if (it != m_points.end())
            out += QStringLiteral(",%1,%2,%3,%4,%5\n")
                       .arg(csvNumber(it->timeS, 12), csvNumber(it->commTimeS, 12), csvNumber(it->speedup, 12),
                            csvNumber(it->efficiency, 12), csvNumber(it->commShare, 12));
        else
            out += QStringLiteral(",,,,,\n");
    }
    return out;
}

} // namespace memwall::ui
