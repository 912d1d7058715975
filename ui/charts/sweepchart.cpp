#include "ui/charts/sweepchart.h"

#include "ui/charts/labelplacer.h"

#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/charts/rooflinemath.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include "core/io/outputs.h"
#include "core/util/csv.h"

#include <QApplication>
#include <QAreaSeries>
#include <QChart>
#include <QCursor>
#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>

namespace memwall::ui {

using namespace memwall::core;

// ---------------------------------------------------------------------------------------------------------------
namespace sweepmath {

std::vector<int64_t> batchSizes(int64_t maxBatch)
{
    std::vector<int64_t> b;
    for (int64_t v = 1; v <= maxBatch; v *= 2)
        b.push_back(v);
    return b;
}

int64_t nearestPowerOfTwo(double batch, int64_t lo, int64_t hi)
{
    if (!(batch > 0) || !std::isfinite(batch))
        return lo;
    const double e = std::round(std::log2(batch));
    if (e < 0)
        return lo;
    if (e > 62)
        return hi;
    return std::clamp<int64_t>(int64_t{1} << static_cast<int>(e), lo, hi);
}

bool perToken(Phase p) { return p == Phase::Decode || p == Phase::Generate; }

double latencyS(const SweepRow &row)
{
    return row.scenario.phase == Phase::Generate ? row.phases.tpotS : row.totals.timeS;
}

double latencyS(const Analysis &a, Phase p) { return p == Phase::Generate ? a.phases.tpotS : a.totals.timeS; }

int axisBase(double plotWidthPx, double labelWidthPx, int64_t maxBatch)
{
    const int doublings = static_cast<int>(std::round(std::log2(static_cast<double>(std::max<int64_t>(maxBatch, 2)))));
    for (int base : {2, 4, 8, 16}) {
        const int labels = doublings / static_cast<int>(std::round(std::log2(base))) + 1;
        if (labels * (labelWidthPx + 8) <= plotWidthPx)
            return base;
    }
    return 16;
}

} // namespace sweepmath

// ---------------------------------------------------------------------------------------------------------------
namespace {

/// Invisible item over the plot area, under the series: a left click (press and release without dragging) reports
/// where it happened. Presses on data points go to the series above it.
class ClickCatcher : public QGraphicsItem
{
public:
    ClickCatcher(QChart *chart, std::function<void(const QPointF &)> onClick)
        : QGraphicsItem(chart), m_chart(chart), m_onClick(std::move(onClick))
    {
        setAcceptedMouseButtons(Qt::LeftButton);
        setAcceptHoverEvents(false);
        setZValue(3.5); // above grid (2) and axes (3), below the series (4 and up)
        setCursor(Qt::PointingHandCursor);
        setToolTip(QObject::tr("Click to set the batch size (nearest power of two)"));
    }
    QRectF boundingRect() const override { return m_chart->plotArea(); }
    void paint(QPainter *, const QStyleOptionGraphicsItem *, QWidget *) override {}
    void sync() { prepareGeometryChange(); }

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent *e) override
    {
        m_pressScreen = e->screenPos();
        e->accept();
    }
    void mouseReleaseEvent(QGraphicsSceneMouseEvent *e) override
    {
        // The same threshold at which ChartView starts panning: a press and release closer than that is a click.
        if ((e->screenPos() - m_pressScreen).manhattanLength() < QApplication::startDragDistance())
            m_onClick(e->pos());
        e->accept();
    }

private:
    QChart *m_chart;
    std::function<void(const QPointF &)> m_onClick;
    QPoint m_pressScreen;
};

QString rate(double r) { return formatSiNumber(r) + QStringLiteral(" tokens/s"); }

QList<QPointF> vertical(double x, double y0, double y1) { return {QPointF(x, y0), QPointF(x, y1)}; }

using sweepmath::Curves;
using sweepmath::Extent;

/// The curves of `rows`, split at batch `limit` (the largest that fits); widens `ext` to every point.
Curves curves(const std::vector<SweepRow> &rows, int64_t limit, Extent &ext)
{
    Curves c;
    for (const SweepRow &r : rows) {
        if (!r.error.empty())
            continue;
        const double b = static_cast<double>(r.scenario.batch);
        const double t = sweepmath::latencyS(r) * 1e3;
        const double k = r.totals.tokensPerS;
        if (!(t > 0) || !(k > 0))
            continue;
        ext.add(t, k);
        if (r.scenario.batch <= limit) {
            c.time.append({b, t});
            c.rate.append({b, k});
        }
        // The dashed part starts at the last fitting point so the curve stays continuous.
        if (r.scenario.batch >= limit) {
            c.timeOver.append({b, t});
            c.rateOver.append({b, k});
        }
    }
    if (c.timeOver.size() < 2)
        c.timeOver.clear();
    if (c.rateOver.size() < 2)
        c.rateOver.clear();
    return c;
}

nlohmann::json rowsJson(const std::vector<SweepRow> &rows)
{
    auto out = nlohmann::json::array();
    for (const SweepRow &r : rows) {
        nlohmann::json row = core::sweepRowToJson(r); // the schema of `memwall sweep --json`
        if (r.error.empty()) {
            // The window's names before it shared the command line's rows; kept for one release (CHANGELOG).
            row["latency_s"] = sweepmath::latencyS(r);
            row["tokens_per_s"] = r.totals.tokensPerS;
            row["bound"] = std::string(toString(r.totals.bound));
            row["memory_bytes"] = r.memory.total();
            row["fits"] = r.memory.fits;
        }
        out.push_back(std::move(row));
    }
    return out;
}

/// latency_s,tokens_per_s,bound,memory_bytes,fits,error of one row.
/// The row's cells in the one sweep CSV schema (core::sweepCsvColumns()), as one CSV text without the line end.
QString csvCells(const SweepRow &r)
{
    QString row = QString::fromStdString(core::csvRow(core::sweepCsvCells(r)));
    row.chop(1);
    return row;
}

} // namespace

// Long because the constructor only creates and wires what the chart draws (axes, band, A's and
// B's curves and markers, the limit lines and their texts, hover connections), each a few lines, in the z-order
// they are painted; split, the order would be spread over several functions.
SweepChart::SweepChart(ScenarioDocument *doc, QObject *parent) : ChartBase(doc, parent)
{
    m_x = new QLogValueAxis;
    m_x->setBase(2);
    m_x->setLabelFormat(QStringLiteral("%d"));
    m_x->setTitleText(tr("Batch size (sequences)"));
    m_x->setRange(0.8, sweepmath::kMaxBatch * 1.25);
    m_x->setMinorTickCount(0);
    m_yTime = new QLogValueAxis;
    m_yTime->setBase(10);
    m_yTime->setLabelFormat(QStringLiteral("%g"));
    m_yTime->setMinorTickCount(-1);
    m_yRate = new QLogValueAxis;
    m_yRate->setBase(10);
    m_yRate->setLabelFormat(QStringLiteral("%g"));
    m_yRate->setTitleText(tr("Throughput, tokens/s"));
    m_yRate->setMinorTickCount(-1);
    m_yRate->setGridLineVisible(false);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_yTime, Qt::AlignLeft);
    m_chart->addAxis(m_yRate, Qt::AlignRight);

    auto add = [this](QAbstractSeries *s, QLogValueAxis *y) {
        m_chart->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(y);
    };
    m_time = new QLineSeries;
    m_timeOver = new QLineSeries;
    m_rate = new QLineSeries;
    m_rateOver = new QLineSeries;
    m_computeLine = new QLineSeries;
    m_memoryLine = new QLineSeries;
    m_currentTime = new QScatterSeries;
    m_currentRate = new QScatterSeries;
    m_rate->setName(tr("tokens/s"));
    m_computeLine->setName(tr("Turns compute-bound"));
    m_memoryLine->setName(tr("Largest batch that fits"));
    m_bandUpper = new QLineSeries(this);
    m_bandLower = new QLineSeries(this);
    m_band = new QAreaSeries(m_bandUpper, m_bandLower);
    m_band->setObjectName(QStringLiteral("band"));
    m_band->setName(tr("where measured runs fell"));
    add(m_band, m_yTime); // under every line
    add(m_computeLine, m_yTime);
    add(m_memoryLine, m_yTime);
    add(m_time, m_yTime);
    add(m_timeOver, m_yTime);
    add(m_rate, m_yRate);
    add(m_rateOver, m_yRate);
    // Scenario B, drawn under A's current-batch markers (drawing order is insertion order).
    m_bTime = new QLineSeries;
    m_bTimeOver = new QLineSeries;
    m_bRate = new QLineSeries;
    m_bRateOver = new QLineSeries;
    m_bCurrent = new QScatterSeries;
    m_bCurrentRate = new QScatterSeries;
    m_bCurrentRate->setObjectName(QStringLiteral("compare-current-rate"));
    m_bCurrentRate->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_bTime->setObjectName(QStringLiteral("compare-time"));
    m_bTimeOver->setObjectName(QStringLiteral("compare-time-over"));
    m_bRate->setObjectName(QStringLiteral("compare-rate"));
    m_bRateOver->setObjectName(QStringLiteral("compare-rate-over"));
    m_bCurrent->setObjectName(QStringLiteral("compare-current"));
    m_bCurrent->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_bRate->setName(tr("B: tokens/s"));
    add(m_bTime, m_yTime);
    add(m_bTimeOver, m_yTime);
    add(m_bRate, m_yRate);
    add(m_bRateOver, m_yRate);
    add(m_bCurrent, m_yTime);
    add(m_bCurrentRate, m_yRate);
    for (QAbstractSeries *s : compareSeries()) {
        s->setVisible(false);
        setLegendVisible(s, false);
    }
    add(m_currentTime, m_yTime);
    add(m_currentRate, m_yRate);
    for (QLineSeries *s : {m_time, m_timeOver, m_rate, m_rateOver, m_bTime, m_bTimeOver, m_bRate, m_bRateOver})
        s->setPointsVisible(true);
    for (QAbstractSeries *s :
         {static_cast<QAbstractSeries *>(m_timeOver), static_cast<QAbstractSeries *>(m_rateOver),
          static_cast<QAbstractSeries *>(m_currentRate), static_cast<QAbstractSeries *>(m_computeLine),
          static_cast<QAbstractSeries *>(m_memoryLine)})
        setLegendVisible(s, false);
    m_currentTime->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_currentRate->setMarkerShape(QScatterSeries::MarkerShapeCircle);

    m_computeText = new QGraphicsSimpleTextItem(m_chart);
    m_memoryText = new QGraphicsSimpleTextItem(m_chart);
    m_currentText = new QGraphicsSimpleTextItem(m_chart);
    m_computeText->setZValue(20);
    m_memoryText->setZValue(20);
    m_currentText->setZValue(20);
    m_computeText->setToolTip(tr("Below this batch the step waits on memory (weights, KV cache); from here on the "
                                 "arithmetic dominates: the roofline's ridge for the whole model."));
    m_memoryText->setToolTip(tr("Weights + KV cache + activations per device must fit the device's main memory. "
                                "Batches past this line are drawn dashed: they would not run."));
    auto *catcher = new ClickCatcher(m_chart, [this](const QPointF &pos) {
        if (const int64_t b = batchAt(pos))
            selectBatch(b);
    });
    m_catcher = catcher;
    m_callout = new Callout(m_chart);
    // A zoom moves the vertical lines on screen: separate them (and place their labels) again.
    connect(m_x, &QLogValueAxis::rangeChanged, this, [this] { placeLabels(); });
    connect(m_chart, &QChart::plotAreaChanged, this, [this, catcher] {
        catcher->sync();
        layoutOverlay();
    });
    for (QLineSeries *s : {m_time, m_timeOver, m_bTime, m_bTimeOver}) {
        const bool b = s == m_bTime || s == m_bTimeOver;
        connect(s, &QLineSeries::hovered, this, [this, b](const QPointF &p, bool st) { showCallout(p, st, false, b); });
    }
    for (QLineSeries *s : {m_rate, m_rateOver, m_bRate, m_bRateOver}) {
        const bool b = s == m_bRate || s == m_bRateOver;
        connect(s, &QLineSeries::hovered, this, [this, b](const QPointF &p, bool st) { showCallout(p, st, true, b); });
    }
    // A click on a curve (above the catcher) selects that batch too.
    for (QLineSeries *s : {m_time, m_timeOver, m_rate, m_rateOver, m_bTime, m_bTimeOver, m_bRate, m_bRateOver})
        connect(s, &QLineSeries::clicked, this,
                [this](const QPointF &p) { selectBatch(sweepmath::nearestPowerOfTwo(p.x())); });

    // A click on a legend entry hides its curve with the curve's dashed part past the memory limit (and B's curve
    // with B's marker on it); the current batch's entry hides its markers on both curves.
    enableLegendToggle({{m_time, {m_timeOver}},
                        {m_rate, {m_rateOver}},
                        {m_currentTime, {m_currentRate}},
                        {m_bTime, {m_bTimeOver, m_bCurrent}},
                        {m_bRate, {m_bRateOver, m_bCurrentRate}}});

    setTheme(theme());
    refresh();
}

SweepChart::~SweepChart() = default;

void SweepChart::legendToggled() { placeLabels(); }

QString SweepChart::title() const
{
    const Scenario &s = document()->scenario();
    QString what;
    switch (s.phase) {
    case Phase::Decode: what = tr("decode at context %1").arg(s.context); break;
    case Phase::Generate: what = tr("generate %1 + %2 tokens").arg(s.seq).arg(s.output); break;
    default: what = tr("%1 of %2 tokens").arg(QString::fromLatin1(toString(s.phase))).arg(s.seq); break;
    }
    QString par;
    if (s.tp > 1 || s.pp > 1)
        par = tr(", tp %1 pp %2").arg(s.tp).arg(s.pp);
    const QString vsB = document()->isComparing() ? tr(" vs %1").arg(document()->compareLabel()) : QString();
    return tr("Batch sweep: %1 %2 on %3%4%5")
        .arg(QString::fromStdString(document()->model().name), what,
             QString::fromStdString(document()->hardware().name), par, vsB);
}

void SweepChart::refresh()
{
    const ScenarioDocument *doc = document();
    const Scenario &sc = doc->scenario();
    SweepAxis axis{"batch", sweepmath::batchSizes()};
    m_rows = sweep(doc->hardware(), doc->model(), sc, {axis});
    m_answers = answerBatchSweep(m_rows);

    Extent ext;
    const Curves a = curves(m_rows, m_answers.largestFitting, ext);
    // Include the current batch (it may lie between powers of two or beyond 4096).
    QPointF curT, curR;
    if (doc->analysisError().isEmpty()) {
        const double b = static_cast<double>(sc.batch);
        const double t = sweepmath::latencyS(doc->analysis(), sc.phase) * 1e3;
        const double k = doc->analysis().totals.tokensPerS;
        if (t > 0 && k > 0) {
            curT = {b, t};
            curR = {b, k};
            ext.add(t, k);
        }
    }
    refreshBand(a.time, ext);
    m_time->replace(a.time);
    m_timeOver->replace(a.timeOver);
    m_rate->replace(a.rate);
    m_rateOver->replace(a.rateOver);
    m_currentTime->replace(curT.isNull() ? QList<QPointF>{} : QList<QPointF>{curT});
    m_currentRate->replace(curR.isNull() ? QList<QPointF>{} : QList<QPointF>{curR});

    refreshCompare(ext);
    const auto [tmin, tmax] = refreshAxes(ext);
    refreshMarkers(tmin, tmax);
    layoutOverlay();
}

/// The band measured runs fell in, around the batches that fit (a time at achievable efficiency is a prediction).
void SweepChart::refreshBand(const QList<QPointF> &time, Extent &ext)
{
    const ScenarioDocument *doc = document();
    const Scenario &sc = doc->scenario();
    QList<QPointF> upper, lower;
    if (const std::optional<core::TimeBand> band = achievableBand(doc->hardware(), sc)) {
        for (const QPointF &p : time) {
            upper.append({p.x(), p.y() * band->high});
            lower.append({p.x(), p.y() * band->low});
            ext.addTime(p.y() * band->high);
            ext.addTime(p.y() * band->low);
        }
    }
    // Untouched when unchanged: at ideal efficiency (no band) a slider tick does no band work at all.
    if (m_bandUpper->points() != upper || m_bandLower->points() != lower) {
        m_bandUpper->replace(upper);
        m_bandLower->replace(lower);
    }
    showSeries(m_band, upper.size() > 1);
    setLegendVisible(m_band, upper.size() > 1);
}

/// Scenario B over the same batches, on its own device and formats.
void SweepChart::refreshCompare(Extent &ext)
{
    const ScenarioDocument *doc = document();
    const Scenario &sc = doc->scenario();
    const bool tok = sweepmath::perToken(sc.phase);
    const SweepAxis axis{"batch", sweepmath::batchSizes()};
    m_bRows.clear();
    m_bAnswers = {};
    Curves b;
    QPointF curB, curBRate;
    if (doc->isComparing()) {
        m_bRows = sweep(doc->compareDevice(), doc->model(), doc->compareScenario(), {axis});
        m_bAnswers = answerBatchSweep(m_bRows);
        b = curves(m_bRows, m_bAnswers.largestFitting, ext);
        if (const auto &cmp = doc->compareAnalysis()) {
            const double t = sweepmath::latencyS(*cmp, sc.phase) * 1e3;
            if (t > 0 && cmp->totals.tokensPerS > 0) {
                curB = {static_cast<double>(sc.batch), t};
                curBRate = {static_cast<double>(sc.batch), cmp->totals.tokensPerS};
                ext.add(t, cmp->totals.tokensPerS);
            }
        }
    }
    const bool compare = !b.time.isEmpty() || !b.timeOver.isEmpty();
    m_bTime->replace(b.time);
    m_bTimeOver->replace(b.timeOver);
    m_bRate->replace(b.rate);
    m_bRateOver->replace(b.rateOver);
    m_bCurrent->replace(curB.isNull() ? QList<QPointF>{} : QList<QPointF>{curB});
    m_bCurrentRate->replace(curBRate.isNull() ? QList<QPointF>{} : QList<QPointF>{curBRate});
    if (compare) {
        // Constant for a given B: a legend name that followed the batch would re-lay out the chart every tick.
        const QString name = tok ? tr("B: ms per token") : tr("B: ms per step");
        if (m_bTime->name() != name)
            m_bTime->setName(name);
    }
    for (QAbstractSeries *s : compareSeries()) {
        showSeries(s, compare);
        // Two legend entries name B's curves; the dotted parts and the marker go without.
        setLegendVisible(s, compare && (s == m_bTime || s == m_bRate));
    }
}

std::pair<double, double> SweepChart::refreshAxes(const Extent &ext)
{
    const Scenario &sc = document()->scenario();
    const bool tok = sweepmath::perToken(sc.phase);
    const double tmin = ext.tmin, tmax = ext.tmax, rmin = ext.rmin, rmax = ext.rmax;

    auto ty = tmax > 0 ? rooflinemath::decadeRange(tmin, tmax, 0.1) : rooflinemath::LogRange{1, 1000};
    auto ry = rmax > 0 ? rooflinemath::decadeRange(rmin, rmax, 0.1) : rooflinemath::LogRange{1, 1000};
    // Both axes span the same number of decades, so the right axis's ticks fall on the grid of the left one.
    const double decades = std::max(std::round(std::log10(ty.max / ty.min)), std::round(std::log10(ry.max / ry.min)));
    ty.max = ty.min * std::pow(10.0, decades);
    ry.max = ry.min * std::pow(10.0, decades);
    chartfit::setLogRange(m_yTime, ty.min, ty.max);
    chartfit::setLogRange(m_yRate, ry.min, ry.max);
    m_yTime->setTitleText(tok ? tr("Time per token, ms") : tr("Time per step, ms"));
    m_time->setName(tok ? tr("ms per token") : tr("ms per step"));
    m_currentTime->setName(
        tr("current batch")); // a constant: a legend that changed every tick would re-lay out the chart
    const double xmax = std::max<double>(sweepmath::kMaxBatch * 1.25, static_cast<double>(sc.batch) * 1.25);
    m_x->setRange(0.8, xmax);
    return {ty.min, ty.max};
}

void SweepChart::refreshMarkers(double tmin, double tmax)
{
    const ScenarioDocument *doc = document();
    const Scenario &sc = doc->scenario();
    // Vertical markers span the whole left axis.
    // Where decode turns compute-bound: the whole step if it does, else the weight matmuls (attention over a long
    // KV cache can keep the whole step memory-bound at every batch).
    const int64_t computeBatch =
        m_answers.firstComputeBound > 0 ? m_answers.firstComputeBound : m_answers.firstLinearComputeBound;
    m_computeX = static_cast<double>(std::max<int64_t>(computeBatch, 0));
    if (computeBatch > 0)
        m_computeLine->replace(vertical(m_computeX, tmin, tmax));
    else
        m_computeLine->clear();
    // The memory limit is exact (largest batch that fits), not the last power of two in the sweep that does.
    const core::FitLimits &limits = doc->fitLimits();
    m_memoryX = static_cast<double>(std::max<int64_t>(limits.batch, 0));
    if (limits.batch > 0)
        m_memoryLine->replace(vertical(m_memoryX, tmin, tmax));
    else
        m_memoryLine->clear();

    const double cap = doc->hardware().memory.empty() ? 0 : doc->hardware().mainMemory().capacityBytes.value;
    m_computeText->setText(m_answers.firstComputeBound > 0
                               ? tr("compute-bound from batch %1").arg(m_answers.firstComputeBound)
                           : m_answers.firstLinearComputeBound > 0
                               ? tr("weight matmuls compute-bound from batch %1; attention stays memory-bound")
                                     .arg(m_answers.firstLinearComputeBound)
                               : tr("memory-bound at every batch up to %1").arg(sweepmath::kMaxBatch));
    m_memoryText->setText(limits.batchUnbounded ? tr("fits at every batch (%1)").arg(formatBytes(cap))
                          : limits.batch > 0    ? tr("fits up to batch %1 (%2)").arg(limits.batch).arg(formatBytes(cap))
                                                : tr("does not fit in %1 at any batch").arg(formatBytes(cap)));
    m_computeText->setData(0, m_computeText->text());
    m_memoryText->setData(0, m_memoryText->text());
    m_currentText->setText(tr("batch %1").arg(sc.batch));
}

int64_t SweepChart::memoryLimitBatch() const { return document()->fitLimits().batch; }

QStringList SweepChart::titles() const
{
    const ScenarioDocument *doc = document();
    const QString model = QString::fromStdString(doc->model().name);
    QStringList out{title()};
    const QString phase = QString::fromLatin1(toString(doc->scenario().phase));
    if (doc->isComparing()) // what B is, as long as the title has room for it
        out << tr("Batch sweep: %1 %2 on %3 vs %4")
                   .arg(model, phase, QString::fromStdString(doc->hardware().name), doc->compareLabel())
            << tr("Batch sweep: %1 vs %2").arg(model, doc->compareLabel());
    out << tr("Batch sweep: %1 %2 on %3").arg(model, phase, QString::fromStdString(doc->hardware().name))
        << tr("Batch sweep: %1").arg(model) << tr("Batch sweep");
    return out;
}

void SweepChart::layoutOverlay()
{
    chartfit::applyTitle(m_chart, titles(), theme().titleFont());
    chartfit::placeLegend(m_chart);
    // Every power of two when there is room, else every second or third one.
    const QRectF area = m_chart->plotArea();
    if (!area.isEmpty()) {
        const QFontMetricsF fm(theme().tickFont());
        const int base =
            sweepmath::axisBase(area.width(), fm.horizontalAdvance(QStringLiteral("4096")), sweepmath::kMaxBatch);
        if (static_cast<int>(m_x->base()) != base)
            m_x->setBase(base);
    }
    placeLabels();
    m_callout->updateGeometry();
}

void SweepChart::placeLabels()
{
    const QRectF area = m_chart->plotArea();
    if (area.isEmpty())
        return;
    const qreal pad = 6;
    // "fits up to batch N" and "compute-bound from batch N" can mark the same batch, or batches a pixel apart: the
    // memory line, drawn last and wider, then hid the compute line. Lines closer than their strokes plus a gap are
    // drawn that far apart, centred on where they belong, the lower batch's to the left with its label on its left.
    const bool both = m_computeLine->count() > 0 && m_memoryLine->count() > 0;
    int side = 0; // -1: the compute line is the left one of a separated pair, +1: the right one
    for (auto [line, value] : {std::pair{m_computeLine, m_computeX}, std::pair{m_memoryLine, m_memoryX}}) {
        if (line->count() < 2)
            continue;
        double x = value;
        if (both) {
            const qreal xc = m_chart->mapToPosition(QPointF(m_computeX, 1), m_computeLine).x();
            const qreal xm = m_chart->mapToPosition(QPointF(m_memoryX, 1), m_memoryLine).x();
            const qreal gap = (m_computeLine->pen().widthF() + m_memoryLine->pen().widthF()) / 2 + 4;
            if (std::abs(xc - xm) < gap) {
                side = m_computeX <= m_memoryX ? -1 : 1;
                const qreal mid = (xc + xm) / 2;
                const int s = line == m_computeLine ? side : -side;
                const QPointF v = m_chart->mapToValue(QPointF(mid + s * gap / 2, area.center().y()), line);
                x = v.x();
            }
        }
        if (line->at(0).x() != x)
            line->replace(vertical(x, line->at(0).y(), line->at(1).y()));
    }
    // No curve runs through a label and no label covers a marker or another label (a LabelPlacer): the vertical
    // lines, the time and throughput curves of A and B.
    // Where the curves leave no room at all (a crowded chart in the presentation font), a label is still shown,
    // clear of the two vertical lines and the other labels only (`linesOnly`): the chart's two answers stay readable.
    LabelPlacer placer(area), linesOnly(area);
    for (QLineSeries *line : {m_computeLine, m_memoryLine})
        if (line->isVisible() && line->count() >= 2)
            linesOnly.addCurve(
                QLineF(m_chart->mapToPosition(line->at(0), line), m_chart->mapToPosition(line->at(1), line)),
                line->pen().widthF() / 2 + 1);
    for (QLineSeries *line : {m_computeLine, m_memoryLine, m_time, m_timeOver, m_rate, m_rateOver, m_bTime, m_bTimeOver,
                              m_bRate, m_bRateOver}) {
        if (!line->isVisible() || line->count() < 2)
            continue;
        QPolygonF poly;
        for (const QPointF &p : line->points())
            poly << m_chart->mapToPosition(p, line);
        placer.addCurve(poly, line->pen().widthF() / 2 + 1);
    }
    for (QScatterSeries *marker : {m_currentTime, m_currentRate, m_bCurrent, m_bCurrentRate})
        if (marker->isVisible() && marker->count() > 0) {
            const qreal r = marker->markerSize() / 2;
            placer.addObstacle(
                QRectF(m_chart->mapToPosition(marker->at(0), marker) - QPointF(r, r), QSizeF(2 * r, 2 * r)));
        }
    // A label goes beside its own line (right, else left; the left line of a separated pair: left first), else beyond
    // both lines, from the top of the plot down; a long one that fits nowhere is wrapped, one that still fits nowhere
    // is hidden.
    auto place = [&](QGraphicsSimpleTextItem *item, QLineSeries *line, QLineSeries *other, int lineSide) {
        // the label's one-line text (refresh() sets it)
        const QString full = item->data(0).toString().isEmpty() ? item->text() : item->data(0).toString();
        item->setData(0, full);
        const bool hasLine = line->count() > 0;
        const qreal px = hasLine ? m_chart->mapToPosition(QPointF(line->at(0).x(), 1), line).x() : area.left();
        const bool hasOther = other->count() > 0 && other->isVisible();
        const qreal ox = hasOther ? m_chart->mapToPosition(QPointF(other->at(0).x(), 1), other).x() : px;
        for (LabelPlacer *p : {&placer, &linesOnly}) {
            QString text = full;
            for (const auto &[at, by] : {std::pair{"", ""}, std::pair{"; ", ";\n"}, std::pair{" from ", "\nfrom "}}) {
                if (*at && !text.contains(QLatin1String(at)))
                    continue;
                if (*at)
                    text.replace(QLatin1String(at), QLatin1String(by));
                if (item->text() != text)
                    item->setText(text);
                const QSizeF sz = item->boundingRect().size();
                const qreal right = px + pad, left = px - pad - sz.width();
                const qreal beyondRight = std::max(px, ox) + pad, beyondLeft = std::min(px, ox) - pad - sz.width();
                const std::array<qreal, 4> xs = lineSide < 0 ? std::array{left, right, beyondLeft, beyondRight}
                                                             : std::array{right, left, beyondRight, beyondLeft};
                std::vector<QPointF> candidates;
                for (qreal y = area.top() + pad; y + sz.height() <= area.bottom(); y += sz.height() / 2)
                    for (qreal x : xs)
                        candidates.emplace_back(x, y);
                if (const auto r = p->place(sz, candidates)) {
                    (p == &placer ? linesOnly : placer).addObstacle(*r);
                    item->setPos(r->topLeft());
                    item->show();
                    return;
                }
            }
        }
        item->hide();
    };
    place(m_computeText, m_computeLine, m_memoryLine, side);
    place(m_memoryText, m_memoryLine, m_computeLine, -side);
    // The current batch's number below its marker on the time curve (above it when the marker sits low), else beside.
    const bool current = m_currentTime->count() > 0 && m_currentTime->isVisible();
    std::optional<QRectF> at;
    if (current) {
        const QPointF p = m_chart->mapToPosition(m_currentTime->at(0), m_currentTime);
        const QSizeF sz = m_currentText->boundingRect().size();
        const qreal r = m_currentTime->markerSize() / 2 + 3;
        at = placer.place(sz, {QPointF(p.x() - sz.width() / 2, p.y() + r),
                               QPointF(p.x() - sz.width() / 2, p.y() - r - sz.height()), QPointF(p.x() + r, p.y() + r),
                               QPointF(p.x() - r - sz.width(), p.y() + r), QPointF(p.x() + r, p.y() - r - sz.height()),
                               QPointF(p.x() - r - sz.width(), p.y() - r - sz.height())});
        if (at)
            m_currentText->setPos(at->topLeft());
    }
    m_currentText->setVisible(at.has_value());
}

QList<QAbstractSeries *> SweepChart::compareSeries() const
{
    return {m_bTime, m_bTimeOver, m_bRate, m_bRateOver, m_bCurrent, m_bCurrentRate};
}

QPointF SweepChart::currentMarker() const { return m_currentTime->count() > 0 ? m_currentTime->at(0) : QPointF(); }
QPointF SweepChart::compareMarker() const
{
    return m_bCurrent->count() > 0 && m_bCurrent->isVisible() ? m_bCurrent->at(0) : QPointF();
}
QPointF SweepChart::compareRateMarker() const
{
    return m_bCurrentRate->count() > 0 && m_bCurrentRate->isVisible() ? m_bCurrentRate->at(0) : QPointF();
}
double SweepChart::computeLineX() const { return m_computeLine->count() > 0 ? m_computeX : 0.0; }
double SweepChart::memoryLineX() const { return m_memoryLine->count() > 0 ? m_memoryX : 0.0; }
QString SweepChart::computeLabel() const { return m_computeText->text(); }
QString SweepChart::memoryLabel() const { return m_memoryText->text(); }

int64_t SweepChart::batchAt(const QPointF &pos) const
{
    if (!m_chart->plotArea().contains(pos))
        return 0;
    const QPointF v = m_chart->mapToValue(pos, m_time);
    return sweepmath::nearestPowerOfTwo(v.x());
}

void SweepChart::selectBatch(int64_t batch)
{
    if (batch <= 0)
        return;
    Scenario s = document()->scenario();
    if (s.batch == batch)
        return;
    s.batch = batch;
    // A click is a discrete edit: its own undo step (no merge key, unlike a slider drag).
    document()->setScenario(s, tr("Batch %1").arg(batch));
}

void SweepChart::showCallout(const QPointF &point, bool state, bool rateSeries, bool compare)
{
    if (!state) {
        m_callout->hide();
        return;
    }
    const int64_t b = sweepmath::nearestPowerOfTwo(point.x());
    const std::vector<SweepRow> &rows = compare ? m_bRows : m_rows;
    const auto it = std::find_if(rows.begin(), rows.end(), [b](const SweepRow &r) { return r.scenario.batch == b; });
    if (it == rows.end() || !it->error.empty())
        return;
    const bool tok = sweepmath::perToken(it->scenario.phase);
    QString text = compare ? tr("%1\nBatch %2").arg(document()->compareLabel()).arg(b) : tr("Batch %1").arg(b);
    text += QStringLiteral("\n") +
            (tok ? tr("%1 per token") : tr("%1 per step")).arg(formatSeconds(sweepmath::latencyS(*it)));
    text += QStringLiteral("\n") + rate(it->totals.tokensPerS);
    text += QStringLiteral("\n") +
            tr("%1-bound, intensity %2 FLOP/B")
                .arg(QString::fromLatin1(toString(it->totals.bound)), formatSiNumber(it->totals.intensity));
    text += QStringLiteral("\n") + tr("needs %1 per device of %2%3")
                                       .arg(formatBytes(it->memory.total()), formatBytes(it->memory.capacity),
                                            it->memory.fits ? QString() : tr(" — does not fit"));
    m_callout->setText(text);
    m_callout->setAnchor(
        QPointF(static_cast<double>(b), rateSeries ? it->totals.tokensPerS : sweepmath::latencyS(*it) * 1e3),
        rateSeries ? static_cast<QAbstractSeries *>(m_rate) : static_cast<QAbstractSeries *>(m_time));
    m_callout->show();
}

QList<QPointF> SweepChart::bandUpper() const { return m_bandUpper->points(); }
QList<QPointF> SweepChart::bandLower() const { return m_bandLower->points(); }

void SweepChart::restyle()
{
    const Theme &th = theme();
    const QColor tc = th.color(0), rc = th.color(1);
    QColor shade = tc;
    shade.setAlpha(45);
    m_band->setBrush(shade);
    m_band->setPen(Qt::NoPen);
    auto greyed = [&](QColor c) {
        c.setAlpha(110);
        return c;
    };
    m_time->setPen(QPen(tc, th.lineWidth));
    m_rate->setPen(QPen(rc, th.lineWidth));
    m_timeOver->setPen(QPen(greyed(tc), th.lineWidth, Qt::DashLine));
    m_rateOver->setPen(QPen(greyed(rc), th.lineWidth, Qt::DashLine));
    // B: a darker shade of each quantity's colour (the legend's swatches show colour only, not the dashes), dashed;
    // dotted and greyed past B's memory limit.
    const QColor btc = tc.darker(th.darkWindow ? 70 : 160), brc = rc.darker(th.darkWindow ? 70 : 160);
    m_bTime->setPen(QPen(btc, th.lineWidth, Qt::DashLine));
    m_bRate->setPen(QPen(brc, th.lineWidth, Qt::DashLine));
    m_bTimeOver->setPen(QPen(greyed(btc), th.lineWidth, Qt::DotLine));
    m_bRateOver->setPen(QPen(greyed(brc), th.lineWidth, Qt::DotLine));
    for (QScatterSeries *s : {m_bCurrent, m_bCurrentRate}) {
        s->setColor(th.background);
        s->setBorderColor(th.accent);
        s->setPen(markerPen(th.accent, 2 * th.markerScale));
        s->setMarkerSize(12 * th.markerScale);
    }
    QPen cpen(th.foreground, std::max<qreal>(1.0, th.lineWidth * 0.6), Qt::DashDotLine);
    m_computeLine->setPen(cpen);
    m_memoryLine->setPen(QPen(th.warning, th.lineWidth, Qt::DashLine));
    for (QScatterSeries *s : {m_currentTime, m_currentRate}) {
        s->setColor(th.accent);
        s->setBorderColor(th.foreground);
        s->setMarkerSize(14 * th.markerScale);
    }
    QFont f = th.labelFont();
    m_computeText->setFont(f);
    m_computeText->setBrush(th.foreground);
    m_memoryText->setFont(f);
    m_memoryText->setBrush(th.warning);
    QFont bold = th.tickFont();
    bold.setBold(true);
    m_currentText->setFont(bold);
    m_currentText->setBrush(th.foreground);
    m_yRate->setGridLineVisible(false);
    m_callout->setTheme(th);
    layoutOverlay();
}

nlohmann::json SweepChart::data() const
{
    nlohmann::json j;
    j["chart"] = id().toStdString();
    j["hardware"] = document()->hardware().id;
    j["model"] = document()->model().id;
    j["phase"] = std::string(toString(document()->scenario().phase));
    j["current_batch"] = document()->scenario().batch;
    j["first_compute_bound_batch"] = m_answers.firstComputeBound;
    j["largest_fitting_batch"] = document()->fitLimits().batch;
    j["latency"] = sweepmath::perToken(document()->scenario().phase) ? "time_per_token" : "time_per_step";
    j["rows"] = rowsJson(m_rows);
    // Achievable times are predictions: measured runs fell between these factors of them (memwall validate).
    if (const auto band = achievableBand(document()->hardware(), document()->scenario()))
        j["latency_band"] = {{"low", band->low}, {"high", band->high}};
    else
        j["latency_band"] = nullptr;
    if (document()->isComparing())
        j["compare"] = {{"label", document()->compareLabel().toStdString()},
                        {"hardware", document()->compareDevice().id},
                        {"first_compute_bound_batch", m_bAnswers.firstComputeBound},
                        {"largest_fitting_batch", m_bAnswers.largestFitting},
                        {"rows", rowsJson(m_bRows)}};
    return j;
}

QString SweepChart::csv() const
{
    // Scenario B's columns follow A's (same batches, row for row) while compare mode is on.
    const bool compare = document()->isComparing() && m_bRows.size() == m_rows.size();
    std::vector<std::string> columns{"batch"};
    for (const std::string &c : core::sweepCsvColumns())
        columns.push_back(c);
    if (compare)
        for (const std::string &c : core::sweepCsvColumns())
            columns.push_back("b_" + c);
    QString out = QString::fromStdString(core::csvRow(columns));
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        out += csvNumber(m_rows[i].scenario.batch) + QLatin1Char(',') + csvCells(m_rows[i]);
        if (compare)
            out += QLatin1Char(',') + csvCells(m_bRows[i]);
        out += QLatin1Char('\n');
    }
    return out;
}

} // namespace memwall::ui
