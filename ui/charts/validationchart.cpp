#include "ui/charts/validationchart.h"

#include "ui/charts/labelplacer.h"
#include "ui/charts/plotlabels.h"

#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include "core/io/presets.h"

#include <optional>

#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>

#include <algorithm>
#include <cmath>
#include <limits>

namespace memwall::ui {

using core::ValidatedRun;

namespace {

bool analysed(const ValidatedRun &v) { return v.error.empty() && v.run.value > 0 && v.ideal > 0; }

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

} // namespace

ValidationChart::ValidationChart(ScenarioDocument *doc, QObject *parent) : ChartBase(doc, parent)
{
    m_x = chartfit::addLogAxis(m_chart, Qt::AlignBottom, tr("Measured time (s)"));
    m_y = chartfit::addLogAxis(m_chart, Qt::AlignLeft, tr("Predicted time (s)"));
    const auto attach = [this](QXYSeries *s) { chartfit::addSeries(m_chart, s, m_x, m_y); };
    m_diagonal = new QLineSeries;
    m_diagonal->setName(tr("Predicted = measured"));
    attach(m_diagonal);
    m_over = new QLineSeries;
    m_over->setName(tr("±25 %"));
    attach(m_over);
    m_under = new QLineSeries;
    m_under->setName(tr("−25 %"));
    attach(m_under);
    m_ideal = new QScatterSeries;
    m_ideal->setName(tr("Ideal roofline (a bound)"));
    m_ideal->setObjectName(QStringLiteral("ideal"));
    attach(m_ideal);
    m_achievable = new QScatterSeries;
    m_achievable->setName(tr("Achievable (a prediction)"));
    m_achievable->setObjectName(QStringLiteral("achievable"));
    attach(m_achievable);
    m_current = new QScatterSeries;
    m_current->setObjectName(QStringLiteral("current device"));
    attach(m_current);
    for (QXYSeries *line : {m_diagonal, m_over, m_under})
        drawInBackground(line);
    for (QScatterSeries *s : {m_ideal, m_achievable, m_current}) {
        connect(s, &QScatterSeries::hovered, this, [this, s](const QPointF &p, bool on) { showCallout(s, p, on); });
    }

    m_summaryBox = new QGraphicsRectItem(m_chart);
    m_summaryBox->setZValue(20);
    m_summaryBox->setAcceptedMouseButtons(Qt::NoButton);
    m_summary = addLabel();
    m_summary->setZValue(21);
    m_callout = new Callout(m_chart);
    m_callout->setZValue(30);
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { layoutOverlay(); });
    enableLegendToggle();

    setTheme(theme());
    refresh();
}

ValidationChart::~ValidationChart() = default;

QPointF ValidationChart::achievablePoint(const ValidatedRun &v)
{
    return {core::timeOf(v.run, v.run.value), core::timeOf(v.run, v.achievable)};
}

QPointF ValidationChart::idealPoint(const ValidatedRun &v)
{
    return {core::timeOf(v.run, v.run.value), core::timeOf(v.run, v.ideal)};
}

void ValidationChart::refresh()
{
    const ScenarioDocument *doc = document();
    const core::PresetLibrary &lib = doc->presets();
    const bool libraryChanged = m_library != &lib;
    if (!libraryChanged && m_device == doc->hardware().id)
        return; // a scenario edit: the runs have their own settings
    if (libraryChanged) {
        m_report = core::validateRuns(core::builtinRuns(), lib);
        m_library = &lib;
    }
    m_device = doc->hardware().id;

    QList<QPointF> achievable, ideal, current;
    constexpr double inf = std::numeric_limits<double>::infinity();
    double lo = inf, hi = 0;
    for (const ValidatedRun &v : m_report.rows) {
        if (!analysed(v))
            continue;
        const QPointF i = idealPoint(v);
        ideal << i;
        QPointF shown = i;
        if (v.predicted) {
            shown = achievablePoint(v);
            achievable << shown;
        }
        if (v.run.device == m_device)
            current << shown;
        for (double t : {i.x(), i.y(), shown.y()}) {
            lo = std::min(lo, t);
            hi = std::max(hi, t);
        }
    }
    if (!(hi > 0)) {
        lo = 1e-3;
        hi = 1;
    }
    // One scale on both axes, so that the diagonal runs at 45 degrees.
    lo /= 1.6;
    hi *= 1.6;
    chartfit::setLogRange(m_x, lo, hi);
    chartfit::setLogRange(m_y, lo, hi);
    m_diagonal->replace({QPointF(lo, lo), QPointF(hi, hi)});
    m_over->replace({QPointF(lo, lo * (1 + kTolerance)), QPointF(hi / (1 + kTolerance), hi)});
    m_under->replace({QPointF(lo, lo * (1 - kTolerance)), QPointF(hi, hi * (1 - kTolerance))});
    m_ideal->replace(ideal);
    m_achievable->replace(achievable);
    m_current->replace(current);
    // The device without its vendor ("Runs on H100 SXM5 80GB"): the legend of a projector's chart cut the full name.
    m_current->setName(tr("Runs on %1").arg(deviceNameWithoutVendor(doc->hardware())));
    showSeries(m_current, !current.isEmpty());
    setLegendVisible(m_current, !current.isEmpty());
    setLegendVisible(m_under, false); // one legend entry for both tolerance lines
    if (m_callout->isVisible())
        m_callout->hide();
    layoutOverlay();
}

QString ValidationChart::title() const
{
    return tr("Predicted against measured: %1 public runs").arg(m_report.summary.runs);
}

void ValidationChart::layoutOverlay()
{
    chartfit::applyTitle(m_chart, {title(), tr("Predicted against measured"), tr("Validation")}, theme().titleFont());
    chartfit::placeLegend(m_chart);
    const core::ValidationSummary &s = m_report.summary;
    QStringList lines;
    lines << tr("Achievable, %1 runs on devices with microbenchmarks: median error %2, %3 within ±25 %")
                 .arg(s.predicted)
                 .arg(formatPercent(s.medianError), formatPercent(s.within25));
    lines << tr("Ideal roofline not slower than the run: %1 of runs (a bound lies on or below the diagonal)")
                 .arg(formatPercent(s.idealBound));
    const QRectF area = m_chart->plotArea();
    // Whole, on as many lines as the plot's width asks (never cut), in a corner no line runs through: top left
    // first, as the diagonal runs from bottom left to top right and the corner above it is the emptiest.
    // A small plot tries narrower blocks, then the smallest font a projector shows (LabelPlacer::minimumPointSize);
    // where no corner is free the summary is left out (its figures are in `memwall validate`).
    LabelPlacer placer(area);
    plotlabels::addCurves(placer, m_chart);
    std::optional<QRectF> at;
    QFont font = theme().labelFont();
    for (const qreal points : {font.pointSizeF(), LabelPlacer::minimumPointSize(theme())}) {
        font.setPointSizeF(std::max(points, LabelPlacer::minimumPointSize(theme())));
        m_summary->setFont(font);
        for (const qreal share : {0.6, 0.45, 0.35, 0.8}) {
            m_summary->setText(
                plotlabels::wrapLines(lines.join(QLatin1Char('\n')), font, std::max<qreal>(40, area.width() * share)));
            at = plotlabels::placeInCorner(placer, m_summary->boundingRect().size() + QSizeF(8, 4), area,
                                           {Qt::TopLeftCorner, Qt::BottomRightCorner}, 4);
            if (at)
                break;
        }
        if (at)
            break;
    }
    m_summary->setPos((at ? at->topLeft() : area.topLeft() + QPointF(4, 4)) + QPointF(4, 2));
    m_summary->setVisible(at.has_value());
    m_summaryBox->setVisible(at.has_value());
    m_summaryBox->setRect(m_summary->mapRectToParent(m_summary->boundingRect()).adjusted(-4, -2, 4, 2));
    m_callout->updateGeometry();
}

void ValidationChart::restyle()
{
    const Theme &th = theme();
    m_diagonal->setPen(QPen(th.foreground, th.lineWidth));
    QColor tolerance = th.foreground;
    tolerance.setAlpha(120);
    for (QLineSeries *s : {m_over, m_under})
        s->setPen(QPen(tolerance, std::max<qreal>(1.0, th.lineWidth * 0.7), Qt::DashLine));
    m_achievable->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_achievable->setMarkerSize(9 * th.markerScale);
    m_achievable->setColor(th.color(0));
    m_achievable->setPen(markerPen(th.color(0).darker(130), 1));
    m_ideal->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
    m_ideal->setMarkerSize(8 * th.markerScale);
    QColor tint = th.color(1);
    tint.setAlpha(60);
    m_ideal->setColor(tint);
    m_ideal->setPen(markerPen(th.color(1), 1.5));
    m_current->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_current->setMarkerSize(16 * th.markerScale);
    m_current->setColor(Qt::transparent);
    m_current->setPen(markerPen(th.color(3), 2));
    // A ring's legend entry shows its colour (its own fill is transparent).
    for (QLegendMarker *marker : m_chart->legend()->markers(m_current))
        marker->setBrush(th.color(3));
    m_summary->setBrush(th.foreground);
    QColor box = th.background;
    box.setAlpha(225);
    m_summaryBox->setBrush(box);
    m_summaryBox->setPen(QPen(th.grid, 1));
    m_callout->setTheme(th);
    layoutOverlay();
}

const ValidatedRun *ValidationChart::rowAt(QScatterSeries *series, const QPointF &value) const
{
    for (const ValidatedRun &v : m_report.rows) {
        if (!analysed(v))
            continue;
        const QPointF at =
            series == m_ideal || (series == m_current && !v.predicted) ? idealPoint(v) : achievablePoint(v);
        if (series == m_achievable && !v.predicted)
            continue;
        if (series == m_current && v.run.device != m_device)
            continue;
        if (near(at.x(), value.x()) && near(at.y(), value.y()))
            return &v;
    }
    return nullptr;
}

void ValidationChart::showCallout(QScatterSeries *series, const QPointF &value, bool state)
{
    if (!state) {
        m_callout->hide();
        return;
    }
    const ValidatedRun *v = rowAt(series, value);
    if (!v)
        return;
    const auto error = [](double ratio) { return formatPercentChange(ratio - 1); };
    QStringList lines;
    lines << qs(v->run.id);
    lines << tr("%1 on %2, %3").arg(qs(v->run.model), qs(v->run.device), qs(v->run.framework));
    lines << tr("Measured %1").arg(formatSeconds(core::timeOf(v->run, v->run.value)));
    lines << tr("Ideal %1 (%2)").arg(formatSeconds(core::timeOf(v->run, v->ideal)), error(v->idealRatio));
    if (v->predicted)
        lines << tr("Achievable %1 (%2)")
                     .arg(formatSeconds(core::timeOf(v->run, v->achievable)), error(v->achievableRatio));
    else
        lines << tr("No microbenchmarks in the device's preset: no prediction");
    lines << tr("Source: %1").arg(qs(v->run.source));
    m_callout->setText(lines.join(QLatin1Char('\n')));
    m_callout->setAnchor(value, series);
    m_callout->show();
}

nlohmann::json ValidationChart::data() const
{
    nlohmann::json j = core::toJson(m_report);
    j["chart"] = id().toStdString();
    j["tolerance"] = kTolerance;
    return j;
}

QString ValidationChart::csv() const
{
    QString out = csvRow(QStringList{"id", "model", "device", "framework", "metric", "measured_s", "ideal_s",
                                     "achievable_s", "ideal_time_ratio", "achievable_time_ratio", "source"});
    const auto number = [](double v) { return csvNumber(v, 12); };
    for (const ValidatedRun &v : m_report.rows) {
        if (!analysed(v))
            continue;
        out += csvRow(QStringList{
            qs(v.run.id), qs(v.run.model), qs(v.run.device), qs(v.run.framework),
            qs(std::string(core::toString(v.run.metric))), number(core::timeOf(v.run, v.run.value)),
            number(core::timeOf(v.run, v.ideal)), v.predicted ? number(core::timeOf(v.run, v.achievable)) : QString(),
            number(v.idealRatio), v.predicted ? number(v.achievableRatio) : QString(), qs(v.run.source)});
    }
    return out;
}

} // namespace memwall::ui
