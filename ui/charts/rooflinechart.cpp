#include "ui/charts/rooflinechart.h"

#include "ui/document/measuredpoints.h"
#include "ui/util/text.h"

#include "ui/charts/callout.h"
#include "ui/charts/markerlayer.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/precisionchoices.h"

#include "core/io/outputs.h"

#include "ui/charts/chartfit.h"
#include "ui/charts/labelplacer.h"

#include <QAction>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QPolygonF>
#include <QScatterSeries>
#include <QScopedValueRollback>
#include <QTransform>

#include <algorithm>
#include <cmath>
#include <limits>

namespace memwall::ui {

using namespace memwall::core;
namespace rm = rooflinemath;

namespace {

constexpr double kFarLeft = 1e-6; ///< slopes start here (FLOP/byte): left of any sensible view
constexpr double kFarRight = 1e9; ///< ceilings end here
constexpr double kFloor = 1e-12;  ///< the ridge drop line starts here (plotted units)

QString className(OpClass c)
{
    switch (c) {
    case OpClass::Matmul: return QObject::tr("Matmul");
    case OpClass::Attention: return QObject::tr("Attention");
    case OpClass::Normalization: return QObject::tr("Normalization");
    case OpClass::Elementwise: return QObject::tr("Element-wise");
    case OpClass::Communication: return QObject::tr("Communication");
    }
    return {};
}

/// The class's legend name where the full names do not fit in one row (a projector's window in the presentation
/// theme): Qt would elide them to "Normaliz…", which names nothing.
QString shortClassName(OpClass c)
{
    switch (c) {
    case OpClass::Normalization: return QObject::tr("Norm");
    case OpClass::Elementwise: return QObject::tr("Elementwise");
    case OpClass::Communication: return QObject::tr("Comm");
    default: return className(c);
    }
}

/// Palette slot per class (Okabe–Ito: blue, orange, green, sky blue, yellow).
int classColor(OpClass c)
{
    switch (c) {
    case OpClass::Matmul: return 0;
    case OpClass::Attention: return 1;
    case OpClass::Normalization: return 2;
    case OpClass::Elementwise: return 4;
    case OpClass::Communication: return 6;
    }
    return 7;
}

QString shortDeviceName(const HardwareSpec &hw) { return QString::fromStdString(hw.name.empty() ? hw.id : hw.name); }

QScatterSeries *makeScatter(QChart *chart, QAbstractAxis *x, QAbstractAxis *y, const QString &name,
                            const QString &object, QScatterSeries::MarkerShape shape)
{
    auto *s = new QScatterSeries;
    s->setName(name);
    s->setObjectName(object);
    s->setMarkerShape(shape);
    chart->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
    return s;
}

/// Replaces the series' points unless they are the same: a replace() makes Qt Charts recompute the line and the
/// plot background compare it again, and the roofs do not move on a slider tick.
void setPoints(QXYSeries *s, const QList<QPointF> &points)
{
    if (s->count() != points.size() || s->points() != points)
        s->replace(points);
}

QLineSeries *makeLine(QChart *chart, QAbstractAxis *x, QAbstractAxis *y, const QString &object)
{
    auto *s = new QLineSeries;
    s->setObjectName(object);
    chart->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
    return s;
}

} // namespace

// Long because the constructor only creates and wires what the chart draws (axes, the pools of
// roofs, operator markers, stars, ridge, serving steps, measured kernels, scenario B, labels and their connections),
// each a few lines, in the z-order they are painted; split, the order would be spread over several functions.
RooflineChart::RooflineChart(ScenarioDocument *doc, QObject *parent) : ChartBase(doc, parent)
{
    m_x = new QLogValueAxis;
    m_x->setBase(10);
    m_x->setLabelFormat(QStringLiteral("%g"));
    m_x->setMinorTickCount(8);
    m_x->setTitleText(tr("Arithmetic intensity (FLOP/byte)"));
    m_y = new QLogValueAxis;
    m_y->setBase(10);
    m_y->setLabelFormat(QStringLiteral("%g"));
    m_y->setMinorTickCount(8);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);

    // Creation order is drawing order: slopes and ceilings under the points, the selection ring on top.
    for (int i = 0; i < 6; ++i)
        m_slopePool.push_back(makeLine(m_chart, m_x, m_y, QStringLiteral("slope")));
    for (std::size_t i = 0; i < kDTypeCount; ++i)
        m_ceilingPool.push_back(makeLine(m_chart, m_x, m_y, QStringLiteral("ceiling")));
    m_ridgeLine = makeLine(m_chart, m_x, m_y, QStringLiteral("ridge-line"));
    m_compareRoof = makeLine(m_chart, m_x, m_y, QStringLiteral("compare-roofline"));
    // The roofs do not move with the batch or lengths: drawn once into the cached plot background (see GridItem).
    for (QLineSeries *s : m_slopePool)
        drawInBackground(s);
    for (QLineSeries *s : m_ceilingPool)
        drawInBackground(s);
    drawInBackground(m_ridgeLine);
    drawInBackground(m_compareRoof);
    for (std::size_t c = 0; c < kOpClassCount; ++c) {
        const auto cls = static_cast<OpClass>(c);
        // The class's legend entry and switch; its points are drawn by m_ops (see MarkerLayer for why).
        m_opSeries[c] = makeScatter(m_chart, m_x, m_y, className(cls), QStringLiteral("ops:") + qs(toString(cls)),
                                    QScatterSeries::MarkerShapeCircle);
    }
    m_model =
        makeScatter(m_chart, m_x, m_y, tr("Whole model"), QStringLiteral("model"), QScatterSeries::MarkerShapeStar);
    m_compareModel = makeScatter(m_chart, m_x, m_y, tr("B: whole model"), QStringLiteral("compare-model"),
                                 QScatterSeries::MarkerShapeStar);
    m_ridge =
        makeScatter(m_chart, m_x, m_y, tr("Ridge point"), QStringLiteral("ridge"), QScatterSeries::MarkerShapeCircle);
    m_measured = makeScatter(m_chart, m_x, m_y, tr("Measured kernels"), QStringLiteral("measured"),
                             QScatterSeries::MarkerShapeRectangle);
    connect(m_measured, &QXYSeries::hovered, this, [this](const QPointF &p, bool state) {
        if (!state || !m_measuredPoints) {
            m_callout->hide();
            return;
        }
        for (const core::MeasuredKernel &k : m_measuredPoints->points())
            if (qFuzzyCompare(k.arithmeticIntensity(), p.x())) {
                m_callout->setText(tr("%1 (measured)\n%2 FLOP/byte\n%3")
                                       .arg(QString::fromStdString(k.name))
                                       .arg(formatNumber(k.arithmeticIntensity()), formatSi(k.flopsPerS(), "FLOP/s")));
                m_callout->setAnchor(p, m_measured);
                m_callout->show();
                return;
            }
    });
    m_serving = makeScatter(m_chart, m_x, m_y, tr("Serving steps"), QStringLiteral("serving-steps"),
                            QScatterSeries::MarkerShapeTriangle);
    connect(m_serving, &QXYSeries::hovered, this, [this](const QPointF &p, bool state) {
        const QList<QPointF> pts = m_serving->points();
        const qsizetype i = pts.indexOf(p);
        if (!state || i < 0 || i >= static_cast<qsizetype>(m_servingSteps.size())) {
            m_callout->hide();
            return;
        }
        const core::ServingStep &st = m_servingSteps[static_cast<std::size_t>(i)];
        m_callout->setText(tr("%1\n%2 FLOP/byte, %3 per device\nstep %4")
                               .arg(servingStepName(st), formatNumber(st.intensity),
                                    formatSi(st.flops / st.timeS, "FLOP/s"), formatSeconds(st.timeS)));
        m_callout->setAnchor(p, m_serving);
        m_callout->show();
    });
    m_selection =
        makeScatter(m_chart, m_x, m_y, tr("Selected"), QStringLiteral("selection"), QScatterSeries::MarkerShapeCircle);
    connect(m_selection, &QXYSeries::hovered, this,
            [this](const QPointF &, bool state) { showOperatorTooltip(document()->selectedOperator(), state); });

    for (QAbstractSeries *s : m_chart->series())
        setLegendVisible(s, false);
    enableLegendToggle();

    for (std::size_t i = 0; i < m_ceilingPool.size(); ++i) {
        m_ceilingLabels.push_back(addLabel());
        m_ceilingLeaders.push_back(addLeader());
    }
    for (std::size_t i = 0; i < m_slopePool.size(); ++i)
        m_slopeLabels.push_back(addLabel());
    m_ridgeLabel = addLabel();
    m_modelLabel = addLabel();
    m_selectionLabel = addLabel();
    m_compareLabel = addLabel();
    m_compareModelLabel = addLabel();
    m_ops = new MarkerLayer(m_chart, m_model);
    m_ops->setObjectName(QStringLiteral("operator-markers"));
    m_ops->setGroupVisible([this](int cls) {
        return cls >= 0 && static_cast<std::size_t>(cls) < m_opSeries.size() &&
               m_opSeries[static_cast<std::size_t>(cls)]->isVisible();
    });
    connect(m_ops, &MarkerLayer::hovered, this, &RooflineChart::showOperatorTooltip);
    // The whole-model stars of A and B: their series keep the points and the legend entries but are not painted
    // (opacity 0), because a Qt scatter series repaints its whole plot for one moved point at every slider tick.
    m_stars = new MarkerLayer(m_chart, m_model);
    m_stars->setObjectName(QStringLiteral("model-markers"));
    // Above the operators: a star on an operator's marker (the whole model where one operator takes most of the time,
    // as in a decode step's answer slide) stays in sight; it is hollow, so the marker shows through it.
    m_stars->setZValue(m_ops->zValue() + 1);
    m_stars->setAcceptHoverEvents(false);
    m_stars->setAcceptedMouseButtons(Qt::NoButton);
    m_stars->setGroupVisible([this](int group) { return (group == 0 ? m_model : m_compareModel)->isVisible(); });
    for (QScatterSeries *s : {m_model, m_compareModel})
        s->setOpacity(0);
    connect(m_ops, &MarkerLayer::clicked, this, [this](int idx) {
        emit operatorClicked(idx);
        document()->setSelectedOperator(idx);
    });
    m_callout = new Callout(m_chart);

    connect(m_chart, &QChart::plotAreaChanged, this, &RooflineChart::layoutLabels);
    connect(m_chart, &QChart::geometryChanged, this, &RooflineChart::updateAxisTitles);
    for (QLogValueAxis *axis : {m_x, m_y})
        connect(axis, &QLogValueAxis::rangeChanged, this, [this] {
            if (!m_refreshing)
                layoutLabels();
        });
    connect(doc, &ScenarioDocument::selectionChanged, this, [this] {
        if (!deferWhileSuspended())
            updateSelection();
    });

    refresh();
    setTheme(theme());
}

RooflineChart::~RooflineChart() = default;

QGraphicsLineItem *RooflineChart::addLeader()
{
    auto *leader = new QGraphicsLineItem(m_chart);
    leader->setZValue(20);
    leader->setAcceptedMouseButtons(Qt::NoButton);
    leader->hide();
    return leader;
}

void RooflineChart::placeStars()
{
    // A's and B's stars at their full size would cover each other when their points lie closer than a star (B on
    // a device with 1.4 times the bandwidth is a few pixels above A in a small chart): both then shrink until
    // neither covers the other's centre, down to kMinStar pixels. Points closer still are one point to the eye.
    constexpr qreal kMinStar = 8;
    qreal diameter = m_model->markerSize();
    if (m_model->count() > 0 && m_compareModel->count() > 0 && m_chart->plotArea().width() > 0) {
        const QPointF d = m_chart->mapToPosition(m_model->at(0), m_model) -
                          m_chart->mapToPosition(m_compareModel->at(0), m_compareModel);
        const qreal apart = std::max(std::abs(d.x()), std::abs(d.y()));
        diameter = std::clamp(2 * apart * 0.9, kMinStar, diameter);
    }
    std::vector<MarkerLayer::Marker> stars;
    for (const auto &[series, group] : {std::pair{m_model, 0}, std::pair{m_compareModel, 1}})
        if (series->count() > 0)
            stars.push_back({series->at(0), std::min(diameter, series->markerSize()), group, group, false,
                             MarkerLayer::Shape::Star});
    const auto &now = m_stars->markers();
    const bool same = now.size() == stars.size() &&
                      std::equal(now.begin(), now.end(), stars.begin(), [](const auto &a, const auto &b) {
                          return a.value == b.value && a.diameter == b.diameter && a.group == b.group;
                      });
    if (!same)
        m_stars->setMarkers(std::move(stars));
}

void RooflineChart::legendToggled()
{
    m_ops->update();
    m_stars->update();
    updateSelection(false); // the ring follows its class
    layoutLabels();
}

QStringList RooflineChart::revealPieces()
{
    QStringList pieces{QStringLiteral("axes"), QStringLiteral("compute"), QStringLiteral("memory"),
                       QStringLiteral("ridge")};
    for (std::size_t c = 0; c < kOpClassCount; ++c)
        pieces << QStringLiteral("ops:") + qs(toString(static_cast<OpClass>(c)));
    pieces << QStringLiteral("model");
    return pieces;
}

QString RooflineChart::title() const
{
    const ScenarioDocument *doc = document();
    const Scenario &s = doc->scenario();
    return tr("Roofline — %1 %2, batch %3 on %4")
        .arg(QString::fromStdString(doc->model().name), qs(toString(s.phase)))
        .arg(s.batch)
        .arg(shortDeviceName(doc->hardware()));
}

bool RooflineChart::compareRoofDiffers() const
{
    const ScenarioDocument *doc = document();
    const auto &b = doc->compareAnalysis();
    if (!b || !(b->peakFlops > 0) || !(b->bandwidth > 0))
        return false;
    if (doc->compareHardware())
        return true;
    const Analysis &a = doc->analysis();
    const auto differs = [](double x, double y) {
        return std::fabs(x - y) > 1e-9 * std::max(std::fabs(x), std::fabs(y));
    };
    return differs(a.peakFlops, b->peakFlops) || differs(a.bandwidth, b->bandwidth);
}

QString RooflineChart::unitLabel() const { return m_yScale >= 1e12 ? tr("TFLOP/s") : tr("GFLOP/s"); }

QList<QLineSeries *> RooflineChart::ceilingSeries() const
{
    QList<QLineSeries *> out;
    for (std::size_t i = 0; i < m_ceilings.size() && i < m_ceilingPool.size(); ++i)
        out << m_ceilingPool[i];
    return out;
}

QPointF RooflineChart::drawnPoint(int index) const
{
    // A marker pinned to the right edge is drawn left of the plot's edge, not at its value's x.
    const auto &markers = m_ops->markers();
    for (std::size_t i = 0; i < markers.size(); ++i)
        if (markers[i].key == index && markers[i].pinnedRight) {
            const QPointF c = m_ops->centre(i);
            return std::isnan(c.x()) ? c : m_chart->mapToValue(c, m_model);
        }
    return operatorPoint(index);
}

QPointF RooflineChart::operatorPoint(int index) const
{
    if (index < 0 || index >= static_cast<int>(m_opPoints.size()))
        return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    return m_opPoints[static_cast<std::size_t>(index)];
}

void RooflineChart::setMeasuredPoints(MeasuredPoints *points)
{
    if (m_measuredPoints)
        disconnect(m_measuredPoints, nullptr, this, nullptr);
    m_measuredPoints = points;
    if (points)
        connect(points, &MeasuredPoints::changed, this, &RooflineChart::refresh);
    refresh();
}

QString RooflineChart::servingStepName(const core::ServingStep &step) const
{
    const Scenario &s = document()->scenario();
    if (step.id == "decode")
        return tr("decode step");
    if (step.id == "verify")
        return tr("verify %1 tokens").arg(s.speculativeK + 1);
    if (step.id == "mixed")
        return tr("decodes + %1-token chunk").arg(std::min(s.chunkedPrefill, s.seq));
    if (step.id == "offload")
        return tr("decode, offloaded");
    return qs(step.id);
}

void RooflineChart::refresh()
{
    const Analysis &a = document()->analysis();
    const HardwareSpec &hw = document()->hardware();
    refreshRoofs(a, hw);
    std::vector<rm::PlotPoint> keep; ///< what the automatic range keeps in view, in FLOP/byte and FLOP/s
    refreshOperators(a, keep);
    refreshModel(a, keep);
    std::vector<rm::Ceiling> rangeCeilings = m_ceilings;
    std::vector<rm::Slope> rangeSlopes = m_slopes;
    refreshCompare(rangeCeilings, rangeSlopes, keep);
    refreshMeasured(hw, keep);
    refreshServingSteps(hw, keep);
    m_ranges = rm::rooflineRanges(rangeCeilings, rangeSlopes, keep);
    {
        // One label layout at the end, not one per changed axis as well.
        const QScopedValueRollback<bool> once(m_refreshing, true);
        if (!isUserView())
            applyRanges(m_ranges);
    }
    updateAxisTitles();
    m_callout->hide();
    m_hovered = -1;
    stylePools();
    updateSelection(false);
    layoutLabels();
}

/// The device's roofs: a ceiling per precision from the knee with the fastest memory level to the far right, a slope
/// per memory level from the far left up to the highest ceiling, and the ridge point of the matmul precision against
/// main memory.
void RooflineChart::refreshRoofs(const Analysis &a, const HardwareSpec &hw)
{
    std::vector<rm::Ceiling> ceilings = rm::ceilings(hw, a.matmulType, a.computeEfficiency);
    const double yScale =
        (ceilings.empty() ? a.peakFlops : ceilings.front().flopsPerS) >= 1e12 ? 1e12 : 1e9; // TFLOP/s or GFLOP/s
    if (ceilings != m_ceilings || yScale != m_yScale) {
        m_ceilingTexts.clear();
        for (const rm::Ceiling &c : ceilings) {
            CeilingTexts t{
                c.label(), c.name() + QLatin1Char('\n') + formatSi(c.flopsPerS, "FLOP/s"), c.compactLabel(yScale), {}};
            // the precisions over the peak, as in the full form's two lines
            t.compactTwoLines = t.compact;
            if (const qsizetype at = t.compactTwoLines.lastIndexOf(QLatin1Char(' ')); at > 0)
                t.compactTwoLines[at] = QLatin1Char('\n');
            m_ceilingTexts.push_back(std::move(t));
        }
    }
    m_ceilings = std::move(ceilings);
    m_yScale = yScale;
    m_slopes = rm::slopes(hw, a.memoryEfficiency);
    if (!m_showCacheSlopes)
        std::erase_if(m_slopes, [](const rm::Slope &sl) {
            return !sl.main && (sl.kind == MemoryKind::Sram || sl.kind == MemoryKind::Cache);
        });
    const double top = m_ceilings.empty() ? a.peakFlops : m_ceilings.front().flopsPerS;
    const double fastest = m_slopes.empty() ? a.bandwidth : m_slopes.front().bytesPerS;

    // Ceilings: from the knee with the fastest memory level to the far right.
    while (m_ceilingPool.size() < m_ceilings.size()) { // a device with more distinct peaks than formats cannot exist
        m_ceilingPool.push_back(makeLine(m_chart, m_x, m_y, QStringLiteral("ceiling")));
        drawInBackground(m_ceilingPool.back());
        setLegendVisible(m_ceilingPool.back(), false);
        m_ceilingLabels.push_back(addLabel());
        m_ceilingLeaders.push_back(addLeader());
    }
    for (std::size_t i = 0; i < m_ceilingPool.size(); ++i) {
        QLineSeries *s = m_ceilingPool[i];
        if (i < m_ceilings.size()) {
            const double p = m_ceilings[i].flopsPerS;
            s->setName(m_ceilingTexts[i].label);
            setPoints(s, {{rm::ridgePoint(p, fastest), p / m_yScale}, {kFarRight, p / m_yScale}});
            s->setVisible(isRevealed(QStringLiteral("compute")));
        } else {
            s->clear();
            s->setVisible(false);
        }
        setLegendVisible(s, false);
    }
    // Slopes: from the far left up to the highest ceiling.
    while (m_slopePool.size() < m_slopes.size()) {
        m_slopePool.push_back(makeLine(m_chart, m_x, m_y, QStringLiteral("slope")));
        drawInBackground(m_slopePool.back());
        setLegendVisible(m_slopePool.back(), false);
        m_slopeLabels.push_back(addLabel());
    }
    for (std::size_t i = 0; i < m_slopePool.size(); ++i) {
        QLineSeries *s = m_slopePool[i];
        if (i < m_slopes.size()) {
            const double bw = m_slopes[i].bytesPerS;
            s->setName(m_slopes[i].label());
            setPoints(s, {{kFarLeft, kFarLeft * bw / m_yScale}, {rm::ridgePoint(top, bw), top / m_yScale}});
            s->setVisible(isRevealed(QStringLiteral("memory")));
        } else {
            s->clear();
            s->setVisible(false);
        }
        setLegendVisible(s, false);
    }
    // Ridge point of the matmul precision against main memory.
    setPoints(m_ridge, {{a.ridge, a.peakFlops / m_yScale}});
    setPoints(m_ridgeLine, {{a.ridge, kFloor}, {a.ridge, a.peakFlops / m_yScale}});
    const bool ridgeShown = isRevealed(QStringLiteral("ridge"));
    m_ridge->setVisible(ridgeShown);
    m_ridgeLine->setVisible(ridgeShown);
    setLegendVisible(m_ridge, false);
    setLegendVisible(m_ridgeLine, false);
}

/// The operators' markers, sized by their share of the step time; `keep` gains what the range must show.
void RooflineChart::refreshOperators(const Analysis &a, std::vector<rm::PlotPoint> &keep)
{
    const std::size_t n = a.operators.size();
    m_opPoints.assign(n, QPointF(std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()));
    m_opSizes.assign(n, 0.0);
    std::vector<MarkerLayer::Marker> markers;
    std::array<bool, kOpClassCount> hasPoints{};
    for (auto &v : m_opIndex)
        v.clear();
    const double total = a.totals.timeS > 0 ? a.totals.timeS : 1.0;
    for (std::size_t i = 0; i < n; ++i) {
        const Operator &op = a.operators[i];
        // An operator that does no FLOPs (an embedding lookup, a KV-cache write) has no place on a FLOP/s axis: it
        // stays in the table, off the plot. A communication operator (the all-to-all's halves) is drawn at the left
        // edge, on the slope of the rate it moved its bytes over the link, sized by its time like the others.
        const bool link = op.onLink() && op.timeS > 0 && op.bytes() > 0;
        if (!link && (!(op.timeS > 0) || !(op.flops > 0)))
            continue;
        // One that moves no bytes (fused softmax in registers) has infinite intensity: pinned to the right edge.
        const bool noBytes = !(op.bytes() > 0);
        const double x = noBytes ? rm::kMaxIntensity : rm::plottedIntensity(op.flops, op.bytes());
        const double y = link ? rm::plottedLinkPerformance(op.bytes(), op.timeS)
                              : rm::plottedPerformance(op.flops, op.timeS, a.bandwidth);
        const QPointF p(x, y / m_yScale);
        m_opPoints[i] = p;
        m_opSizes[i] = rm::markerSize(op.timeS / total) * theme().markerScale;
        const auto c = static_cast<std::size_t>(op.cls);
        markers.push_back({p, m_opSizes[i], static_cast<int>(i), static_cast<int>(c), noBytes});
        m_opIndex[c].push_back(static_cast<int>(i));
        hasPoints[c] = true;
        if (!noBytes)
            keep.push_back({x, y});
        else
            keep.push_back({a.ridge > 0 ? a.ridge : 1.0, y}); // its height counts for the range, its x does not
    }
    m_ops->setMarkers(std::move(markers));
    for (std::size_t c = 0; c < kOpClassCount; ++c) {
        QScatterSeries *s = m_opSeries[c];
        const bool on = hasPoints[c] && isRevealed(QStringLiteral("ops:") + qs(toString(static_cast<OpClass>(c))));
        showSeries(s, on);
        setLegendVisible(s, on);
    }
}

void RooflineChart::refreshModel(const Analysis &a, std::vector<rm::PlotPoint> &keep)
{
    // The whole model: total intensity, achieved FLOP/s of one device (communication included).
    if (a.totals.timeS > 0 && a.totals.flops > 0) {
        m_model->replace(
            QList<QPointF>{{rm::plottedIntensity(a.totals.intensity), a.totals.achievedFlopsPerS / m_yScale}});
        keep.push_back({rm::plottedIntensity(a.totals.intensity), a.totals.achievedFlopsPerS});
    } else {
        m_model->clear();
    }
    nameLegendEntries();
    const bool modelShown = m_model->count() > 0 && isRevealed(QStringLiteral("model"));
    showSeries(m_model, modelShown);
    setLegendVisible(m_model, modelShown);
}

void RooflineChart::refreshCompare(std::vector<rm::Ceiling> &rangeCeilings, std::vector<rm::Slope> &rangeSlopes,
                                   std::vector<rm::PlotPoint> &keep)
{
    // Scenario B: its model point whenever B analyses, and its matmul roofline (dashed) when that differs from A's
    // (another device, or activations that move the matmuls to another ceiling).
    const auto &cmp = document()->compareAnalysis();
    const bool roofB = compareRoofDiffers();
    const bool modelB = cmp && cmp->totals.timeS > 0 && cmp->totals.flops > 0 && isRevealed(QStringLiteral("model"));
    if (roofB) {
        const double p = cmp->peakFlops, bw = cmp->bandwidth;
        setPoints(m_compareRoof,
                  {{kFarLeft, kFarLeft * bw / m_yScale}, {cmp->ridge, p / m_yScale}, {kFarRight, p / m_yScale}});
        rangeCeilings.push_back({{cmp->matmulType}, p, false});
        rangeSlopes.push_back({QString(), MemoryKind::Dram, bw, true});
    } else {
        m_compareRoof->clear();
    }
    if (modelB) {
        m_compareModel->replace(
            QList<QPointF>{{rm::plottedIntensity(cmp->totals.intensity), cmp->totals.achievedFlopsPerS / m_yScale}});
        keep.push_back({rm::plottedIntensity(cmp->totals.intensity), cmp->totals.achievedFlopsPerS});
    } else {
        m_compareModel->clear();
    }
    placeStars();
    // Names follow B (and its device's roofs), never the batch: a legend change re-lays out the chart.
    // Short legend names: the chart labels B's star with what B changes and B's roof with its numbers.
    if (m_compareRoof->name() != tr("B roofline"))
        m_compareRoof->setName(tr("B roofline"));
    for (auto [s, on] : {std::pair{static_cast<QXYSeries *>(m_compareRoof), roofB},
                         std::pair{static_cast<QXYSeries *>(m_compareModel), modelB}}) {
        showSeries(s, on);
        setLegendVisible(s, on);
    }
}

void RooflineChart::refreshMeasured(const HardwareSpec &hw, std::vector<rm::PlotPoint> &keep)
{
    // Measured kernels of this computer, on its own measured roofline.
    const bool measured = m_measuredPoints && m_measuredPoints->hasResult() &&
                          QString::fromStdString(hw.id) == MeasuredPoints::deviceId();
    QList<QPointF> kernels;
    if (measured)
        for (const core::MeasuredKernel &k : m_measuredPoints->points())
            if (k.arithmeticIntensity() > 0 && k.flopsPerS() > 0) {
                kernels.append({k.arithmeticIntensity(), k.flopsPerS() / m_yScale});
                keep.push_back({k.arithmeticIntensity(), k.flopsPerS()});
            }
    setPoints(m_measured, kernels);
    m_measured->setVisible(!kernels.isEmpty());
    setLegendVisible(m_measured, !kernels.isEmpty());
}

void RooflineChart::refreshServingSteps(const HardwareSpec &hw, std::vector<rm::PlotPoint> &keep)
{
    // Whole serving steps the scenario's serving options add: the plain decode step, the verification step of
    // speculative decoding (K + 1 tokens: further right), the chunked-prefill mixed step, the decode step with part
    // of the KV cache streamed over the host or storage link (below the HBM slope).
    m_servingSteps.clear();
    if (document()->analysisError().isEmpty()) {
        try {
            const Scenario &sc = document()->scenario();
            m_servingSteps = core::servingSteps(hw, document()->model(), sc, document()->presets().draftModel(sc));
        } catch (const std::exception &) { // the request timeline chart says why
        }
    }
    QList<QPointF> steps;
    QStringList stepNames;
    for (const core::ServingStep &st : m_servingSteps) {
        steps.append({rm::plottedIntensity(st.intensity), st.flops / st.timeS / m_yScale});
        keep.push_back({rm::plottedIntensity(st.intensity), st.flops / st.timeS});
        stepNames << servingStepName(st);
    }
    setPoints(m_serving, steps);
    const QString stepsName = tr("Steps: %1").arg(stepNames.join(QStringLiteral(", ")));
    if (!steps.isEmpty() && m_serving->name() != stepsName)
        m_serving->setName(stepsName);
    showSeries(m_serving, !steps.isEmpty());
    setLegendVisible(m_serving, !steps.isEmpty());
}

void RooflineChart::updateAxisTitles()
{
    // Short titles when the chart is small for its fonts (presentation theme on a small export).
    const bool small = m_chart->size().height() < 40 * theme().labelPointSize;
    const QString y = small ? unitLabel() : tr("Performance (%1)").arg(unitLabel());
    const QString x = small ? tr("FLOP/byte") : tr("Arithmetic intensity (FLOP/byte)");
    if (m_y->titleText() != y)
        m_y->setTitleText(y);
    if (m_x->titleText() != x)
        m_x->setTitleText(x);
}

void RooflineChart::applyRanges(const rm::Ranges &r)
{
    chartfit::setLogRange(m_x, r.x.min, r.x.max);
    chartfit::setLogRange(m_y, r.y.min / m_yScale, r.y.max / m_yScale);
}

void RooflineChart::updateSelection(bool relayout)
{
    const int idx = document()->selectedOperator();
    const QPointF p = drawnPoint(idx);
    // No ring around empty space: the selected operator's class may be hidden (its legend entry, or a build-up).
    const auto &ops = document()->analysis().operators;
    const bool classShown = idx >= 0 && static_cast<std::size_t>(idx) < ops.size() &&
                            m_opSeries[static_cast<std::size_t>(ops[static_cast<std::size_t>(idx)].cls)]->isVisible();
    if (classShown && !std::isnan(p.x())) {
        m_selection->replace(QList<QPointF>{p});
        m_selection->setMarkerSize(m_opSizes[static_cast<std::size_t>(idx)] + 10 * theme().markerScale);
        m_selection->setVisible(true);
        m_selectionText = qs(document()->analysis().operators[static_cast<std::size_t>(idx)].name);
    } else {
        m_selection->clear();
        m_selection->setVisible(false);
    }
    setLegendVisible(m_selection, false);
    if (relayout)
        layoutLabels();
}

std::vector<int> RooflineChart::operatorsAt(const QPointF &p) const
{
    std::vector<int> out;
    for (std::size_t i = 0; i < m_opPoints.size(); ++i)
        if (m_opPoints[i] == p)
            out.push_back(static_cast<int>(i));
    // the one taking the most time first
    const auto &ops = document()->analysis().operators;
    std::stable_sort(out.begin(), out.end(), [&ops](int a, int b) {
        return ops[static_cast<std::size_t>(a)].timeS > ops[static_cast<std::size_t>(b)].timeS;
    });
    return out;
}

void RooflineChart::showOperatorTooltip(int index, bool state)
{
    const Analysis &a = document()->analysis();
    if (!state || index < 0 || index >= static_cast<int>(a.operators.size())) {
        if (!state && index == m_hovered) {
            m_callout->hide();
            m_hovered = -1;
        }
        return;
    }
    const Operator &op = a.operators[static_cast<std::size_t>(index)];
    const HardwareSpec &hw = document()->hardware();
    const double peak = hw.peak(op.computeType) * a.computeEfficiency;
    const double att = rm::attainable(op.intensity(), peak > 0 ? peak : a.peakFlops, a.bandwidth);
    const double achieved = op.timeS > 0 ? op.flops / op.timeS : 0.0;
    const double share = a.totals.timeS > 0 ? op.timeS / a.totals.timeS : 0.0;
    QStringList lines;
    lines << qs(op.name);
    lines << tr("%1, %2 × %3 (%4)")
                 .arg(className(op.cls), formatExact(op.count), qs(toString(op.phase)),
                      qs(toString(op.computeType)).toUpper());
    const QString percent = formatPercent(share);
    if (op.onLink()) {
        // The all-to-all's halves: bytes over the link, no FLOPs, timed with the step's communication.
        lines << tr("Sends %1 over %2, no FLOPs").arg(formatBytes(op.bytes()), qs(a.comm.link));
        lines << tr("Link rate %1: drawn at the left edge on that slope")
                     .arg(formatSi(op.timeS > 0 ? op.bytes() / op.timeS : 0.0, "B/s"));
        lines << tr("Time %1 (%2 of the step), part of the communication (%3)")
                     .arg(formatSeconds(op.timeS), percent, qs(a.comm.allToAll));
    } else if (!(op.bytes() > 0)) {
        // No bytes: no intensity, and no ridge to be left or right of; "0 B, 0.0 FLOP/byte, compute-bound" would
        // read as a figure. The operator table shows the same "—" with the same reason.
        lines << tr("FLOPs %1 · bytes — (moves no bytes from memory)").arg(formatSiNumber(op.flops));
        lines << tr("Intensity —: no memory traffic, drawn at the right edge");
        lines << tr("Achieved %1").arg(formatSi(achieved, "FLOP/s"));
        lines << tr("Time %1 (%2 of the step), bound —: neither memory nor the ridge applies")
                     .arg(formatSeconds(op.timeS), percent);
    } else {
        lines << tr("FLOPs %1 · bytes %2").arg(formatSiNumber(op.flops), formatBytes(op.bytes()));
        lines << tr("Intensity %1 FLOP/byte").arg(formatSiNumber(op.intensity()));
        lines << tr("Attainable %1 · achieved %2").arg(formatSi(att, "FLOP/s"), formatSi(achieved, "FLOP/s"));
        lines << tr("Time %1 (%2 of the step), %3-bound").arg(formatSeconds(op.timeS), percent, qs(toString(op.bound)));
    }
    QStringList same;
    for (int other : operatorsAt(operatorPoint(index)))
        if (other != index)
            same << qs(a.operators[static_cast<std::size_t>(other)].name);
    if (!same.isEmpty())
        lines << tr("Same point: %1").arg(same.join(QStringLiteral(", ")));
    m_callout->setText(lines.join(QLatin1Char('\n')));
    m_callout->setAnchor(drawnPoint(index), m_model);
    m_callout->show();
    m_hovered = index;
}

QStringList RooflineChart::titles() const
{
    const ScenarioDocument *doc = document();
    const Scenario &s = doc->scenario();
    const QString model = QString::fromStdString(doc->model().name);
    // No batch on the chart's title: the whole-model point's label names it. A title that changed with every
    // slider tick would re-lay out the chart, axes and all (see memwall-bench).
    return {tr("Roofline — %1 %2 on %3").arg(model, qs(toString(s.phase)), shortDeviceName(doc->hardware())),
            tr("Roofline — %1 %2").arg(model, qs(toString(s.phase))), tr("Roofline — %1").arg(model), tr("Roofline")};
}

void RooflineChart::setShowCacheSlopes(bool on)
{
    if (on == m_showCacheSlopes)
        return;
    m_showCacheSlopes = on;
    if (m_cacheSlopesAction)
        m_cacheSlopesAction->setChecked(on);
    refresh();
}

QList<QAction *> RooflineChart::optionActions()
{
    if (!m_cacheSlopesAction) {
        m_cacheSlopesAction = new QAction(tr("Show L2/&SRAM slopes"), this);
        m_cacheSlopesAction->setObjectName(QStringLiteral("option:showCacheSlopes"));
        m_cacheSlopesAction->setCheckable(true);
        m_cacheSlopesAction->setChecked(m_showCacheSlopes);
        m_cacheSlopesAction->setToolTip(tr("Draw a bandwidth slope for every on-chip level (SRAM, L2): the roofs an "
                                           "operator would have if its data stayed on chip. Off: main memory and the "
                                           "host link only"));
        connect(m_cacheSlopesAction, &QAction::triggered, this, [this](bool on) { setShowCacheSlopes(on); });
    }
    return {m_cacheSlopesAction};
}

QSizeF RooflineChart::textSize(const QString &text, const QFont &font)
{
    // Measured by an item like the labels (outside the scene), so the size is the one a label will have.
    // Kept per font: the labels alternate between the tick font and its bold.
    if (m_textSizes.size() >= 8 && !m_textSizes.contains(font)) // themes change the fonts; a few are in use
        m_textSizes.clear();
    QHash<QString, QSizeF> &sizes = m_textSizes[font];
    if (const auto it = sizes.constFind(text); it != sizes.cend())
        return *it;
    if (sizes.size() > 512)
        sizes.clear();
    m_measure.setFont(font);
    m_measure.setText(text);
    return *sizes.insert(text, m_measure.boundingRect().size());
}

QString RooflineChart::legendName(const QAbstractSeries *series, bool shortForm) const
{
    for (std::size_t c = 0; c < kOpClassCount; ++c)
        if (series == m_opSeries[c])
            return shortForm ? shortClassName(OpClass(c)) : className(OpClass(c));
    if (series == m_model)
        return shortForm ? tr("Model") : tr("Whole model");
    if (series == m_compareModel)
        return shortForm ? tr("B: model") : tr("B: whole model");
    return series->name();
}

void RooflineChart::nameLegendEntries()
{
    for (QAbstractSeries *series : m_chart->series())
        if (const QString name = legendName(series, m_shortLegend); series->name() != name)
            series->setName(name);
}

void RooflineChart::fitLegend()
{
    // The entries shown, in their full names: short names only where those do not fit in one row.
    QStringList full;
    for (QLegendMarker *marker : m_chart->legend()->markers())
        if (marker->isVisible())
            full << legendName(marker->series(), false);
    const qreal width = m_chart->size().width() - m_chart->margins().left() - m_chart->margins().right();
    const bool shortLegend = width > 0 && !chartfit::legendFitsInRow(full, m_chart->legend()->font(), width * 0.95);
    if (shortLegend != m_shortLegend) {
        m_shortLegend = shortLegend;
        nameLegendEntries();
    }
}

LabelPlacer RooflineChart::labelObstacles(const QRectF &area) const
{
    LabelPlacer placer(area);
    auto map = [this](double x, double y) { return m_chart->mapToPosition(QPointF(x, y), m_model); };
    auto addRoof = [&](const QLineSeries *s, int from) {
        for (int i = from; i + 1 < s->count(); ++i)
            placer.addCurve(QLineF(map(s->at(i).x(), s->at(i).y()), map(s->at(i + 1).x(), s->at(i + 1).y())));
    };
    for (const QLineSeries *s : m_slopePool)
        if (s->isVisible() && s->count() >= 2)
            placer.addCurve(QLineF(map(s->at(0).x(), s->at(0).y()), map(s->at(1).x(), s->at(1).y())));
    for (const QLineSeries *s : m_ceilingPool)
        if (s->isVisible() && s->count() >= 2)
            placer.addCurve(QLineF(map(s->at(0).x(), s->at(0).y()), map(s->at(1).x(), s->at(1).y())));
    if (m_ridgeLine->count() >= 2 && m_ridgeLine->isVisible())
        placer.addCurve(QLineF(map(m_ridgeLine->at(0).x(), std::max(m_ridgeLine->at(0).y(), m_y->min())),
                               map(m_ridgeLine->at(1).x(), m_ridgeLine->at(1).y())));
    addRoof(m_compareRoof, 0);
    // Operator markers and the model stars are obstacles: no label covers a point.
    for (std::size_t i = 0; i < m_ops->markers().size(); ++i) {
        const QPointF c = m_ops->centre(i);
        if (std::isnan(c.x()))
            continue;
        const double r = m_ops->markers()[i].diameter / 2;
        placer.addObstacle(QRectF(c - QPointF(r, r), QSizeF(2 * r, 2 * r)));
    }
    for (std::size_t i = 0; i < m_stars->markers().size(); ++i) {
        const QPointF c = m_stars->centre(i);
        if (std::isnan(c.x()))
            continue;
        const double r = m_stars->markers()[i].diameter / 2;
        placer.addObstacle(QRectF(c - QPointF(r, r), QSizeF(2 * r, 2 * r)));
    }
    return placer;
}

/// The state of one layoutLabels(): the placer, the plan of every label and leader, and the steps that fill them.
/// Labels are placed in order of importance; one that would overlap an earlier one (or leave the plot) tries its
/// alternative positions and is hidden if none is free. The roofs are curves to the placer: no line runs through a
/// label (the host link struck through "TF32 495 TFLOP/s"), and the points are obstacles. The labels are planned first
/// and the items changed last (apply()), only where the plan differs from what they show.
class RooflineChart::LabelLayout
{
public:
    struct LeaderPlan
    {
        QLineF line;
        QPen pen;
        bool shown = false;
    };

    LabelLayout(RooflineChart &chart, const QRectF &area)
        : c(chart), area(area), font(chart.theme().tickFont()), bold(font), ys(chart.m_yScale), xmin(chart.m_x->min()),
          xmax(chart.m_x->max()), ymin(chart.m_y->min()), ymax(chart.m_y->max()), strong(chart.theme().foreground),
          weak(chart.theme().foreground), obstacles(chart.labelObstacles(area)), placer(obstacles)
    {
        bold.setBold(true);
        weak.setAlphaF(0.7);
    }

    void run();
    void apply();

private:
    QPointF map(double x, double y) const { return c.m_chart->mapToPosition(QPointF(x, y), c.m_model); }
    bool tryAt(QGraphicsSimpleTextItem *t, const QPointF &pos, qreal rotation = 0);
    QSizeF style(QGraphicsSimpleTextItem *t, const QString &text, const QFont &f, const QColor &color);
    void hide(QGraphicsSimpleTextItem *t) { plans[t].shown = false; }
    bool shown(QGraphicsSimpleTextItem *t) const { return plans.value(t).shown; }

    void placeAll(bool tightWay);
    int score() const;
    void placeSlope(std::size_t i);
    void placeCeiling(std::size_t i);
    bool placeCeilingBeside(std::size_t i, double y, double start);
    bool placeCeilingWithLeader(std::size_t i, double y, double start);
    void placeRidge();
    void besidePoint(QGraphicsSimpleTextItem *t, QScatterSeries *s, double radius);
    void placeCompare();

    RooflineChart &c;
    const QRectF area;
    const QFont font;
    QFont bold;
    const double ys; ///< the y axis's unit in FLOP/s
    const double xmin, xmax, ymin, ymax;
    const QColor strong;
    QColor weak;
    const LabelPlacer obstacles; ///< the roofs and points, before any label
    LabelPlacer placer;
    QHash<QGraphicsSimpleTextItem *, LabelPlan> plans;
    std::vector<LeaderPlan> leaderPlans;
    bool tight = false; ///< see run()
};

bool RooflineChart::LabelLayout::tryAt(QGraphicsSimpleTextItem *t, const QPointF &pos, qreal rotation)
{
    LabelPlan &plan = plans[t];
    if (!placer.take(LabelPlacer::outlineAt(plan.size, pos, rotation)))
        return false;
    plan.rotation = rotation;
    plan.pos = pos;
    plan.shown = true;
    return true;
}

QSizeF RooflineChart::LabelLayout::style(QGraphicsSimpleTextItem *t, const QString &text, const QFont &f,
                                         const QColor &color)
{
    LabelPlan &plan = plans[t];
    plan.text = text;
    plan.font = f;
    plan.color = color;
    plan.size = c.textSize(text, f);
    plan.shown = false;
    return plan.size;
}

void RooflineChart::LabelLayout::placeSlope(std::size_t i)
{
    if (i >= c.m_slopes.size() || c.m_ceilings.empty() || !c.m_slopePool[i]->isVisible())
        return;
    const rm::Slope &s = c.m_slopes[i];
    const double k = s.bytesPerS / ys; // y = k * x
    // The main slope's label stays on the roofline proper, left of the matmul ridge (past it the slope only leads to
    // higher ceilings, and a label there takes the ceiling label's place).
    double top = c.m_ceilings.front().flopsPerS;
    if (s.main)
        for (const rm::Ceiling &ceiling : c.m_ceilings)
            if (ceiling.active)
                top = ceiling.flopsPerS;
    const double knee = rm::ridgePoint(top, s.bytesPerS);
    const double xa = std::max(xmin, ymin / k);
    const double xb = std::min({xmax, knee, ymax / k});
    if (!(xb > xa * 1.5))
        return;
    QGraphicsSimpleTextItem *t = c.m_slopeLabels[i];
    const QSizeF sz = style(t, s.label(), s.main ? bold : font, s.main ? strong : weak);
    const QPointF p0 = map(xa, k * xa), p1 = map(xb, k * xb);
    const double len = std::hypot(p1.x() - p0.x(), p1.y() - p0.y());
    if (len < sz.width() + 20)
        return;
    const double ang = std::atan2(p1.y() - p0.y(), p1.x() - p0.x());
    const QPointF dir((p1.x() - p0.x()) / len, (p1.y() - p0.y()) / len);
    const QPointF up(std::sin(ang), -std::cos(ang)); // towards the upper-left side of the line
    // Just above the line, else lifted clear of the operator markers sitting on it.
    for (double lift : {1.0, 1.0 + 12 * c.theme().markerScale})
        for (double f : {0.55, 0.35, 0.75, 0.2, 0.45, 0.65, 0.85, 0.1, 0.28, 0.92}) {
            const double along = std::clamp(f * len - sz.width() / 2, 8.0, len - sz.width() - 8);
            if (tryAt(t, p0 + dir * along + up * (sz.height() + lift), ang * 180.0 / M_PI))
                return;
        }
    hide(t);
}

void RooflineChart::LabelLayout::placeCeiling(std::size_t i)
{
    const rm::Ceiling &ceiling = c.m_ceilings[i];
    const double yv = ceiling.flopsPerS / ys;
    if (yv < ymin || yv > ymax || !c.m_ceilingPool[i]->isVisible())
        return;
    const double y = map(1, yv).y();
    const double start = std::max(area.left() + 4, map(c.m_ceilingPool[i]->at(0).x(), yv).x() + 6);
    if (placeCeilingBeside(i, y, start) || placeCeilingWithLeader(i, y, start))
        return;
    hide(c.m_ceilingLabels[i]);
}

/// Every slope meets every ceiling, and a slope that reaches a higher ceiling crosses this one's label band just
/// right of its knee (above the line) or just left of it (below): the free stretches of a ceiling are the gaps between
/// the knees, often narrower than a label in the presentation font. So the label tries, in order: its right end, then
/// every position along the ceiling from right to left (above, then below), then left of where the ceiling starts, on
/// its level; first in full, then shorter ("(matmuls)" dropped), then as two lines (precisions over peak), then in
/// the compact form, the peak in the y axis's unit without repeating it ("FP8 1979"), on one line or two ("FP64 · FP32"
/// over "67"); a tight chart (a projector's window in the presentation theme) tries the compact form first. Last, the
/// compact form in a smaller font. False when none is free.
bool RooflineChart::LabelLayout::placeCeilingBeside(std::size_t i, double y, double start)
{
    const rm::Ceiling &ceiling = c.m_ceilings[i];
    QGraphicsSimpleTextItem *t = c.m_ceilingLabels[i];
    const CeilingTexts &ct = c.m_ceilingTexts[i];
    QStringList texts;
    if (ceiling.active && !tight)
        texts << ct.label + tr("  (matmuls)");
    if (tight)
        texts << ct.compact << ct.compactTwoLines;
    texts << ct.label << ct.twoLines;
    if (!tight)
        texts << ct.compact << ct.compactTwoLines;
    for (const QString &text : texts) {
        const QSizeF sz = style(t, text, ceiling.active ? bold : font, ceiling.active ? strong : weak);
        const double right = area.right() - sz.width() - 6;
        const double step = std::max(4.0, sz.height() / 2);
        for (double along = right; along >= start - 0.5; along -= step)
            if (tryAt(t, {along, y - sz.height() - 1}) || tryAt(t, {along, y + 2}))
                return true;
        const double left = start - 6 - sz.width();
        if (tryAt(t, {left, y - sz.height() / 2}) || tryAt(t, {left, y - sz.height() - 1}) || tryAt(t, {left, y + 2}))
            return true;
    }
    // Last, the compact form in the smallest font a projector still shows (LabelPlacer::minimumPointSize()), along
    // the line: ceilings a few pixels apart leave less than a line of the label font above the top one (an MI300X's
    // 2.6 PFLOP/s in an 840x390 presentation chart: 23 px for a 25 px line of 16 pt, 22 px at 14 pt).
    QFont small = ceiling.active ? bold : font;
    small.setPointSizeF(LabelPlacer::minimumPointSize(c.theme()));
    if (small.pointSizeF() >= (ceiling.active ? bold : font).pointSizeF())
        return false;
    for (const QString &text : {ct.compact, ct.compactTwoLines}) {
        const QSizeF sz = style(t, text, small, ceiling.active ? strong : weak);
        const double step = std::max(4.0, sz.height() / 2);
        for (double along = area.right() - sz.width() - 6; along >= start - 0.5; along -= step)
            if (tryAt(t, {along, y - sz.height() - 1}) || tryAt(t, {along, y + 2}))
                return true;
    }
    return false;
}

/// No room beside the line: the nearest free place left of the ceiling's start (or above its right end), with a
/// leader line to the ceiling that crosses no label, point or other ceiling; in full, else in the compact form.
bool RooflineChart::LabelLayout::placeCeilingWithLeader(std::size_t i, double y, double start)
{
    const rm::Ceiling &ceiling = c.m_ceilings[i];
    QGraphicsSimpleTextItem *t = c.m_ceilingLabels[i];
    const CeilingTexts &ct = c.m_ceilingTexts[i];
    for (const QString &text : {ct.label, ct.compact}) {
        const QSizeF sz = style(t, text, ceiling.active ? bold : font, ceiling.active ? strong : weak);
        const QPointF leftEnd(start - 6, y), rightEnd(area.right() - 6, y);
        const double step = std::max(4.0, sz.height() / 2);
        for (double d = 0; d < area.height(); d += step)
            for (double dy : {-d, d}) {
                const double top = y - sz.height() / 2 + dy;
                for (const auto &[pos, anchor] : {std::pair{QPointF(leftEnd.x() - 10 - sz.width(), top), leftEnd},
                                                  std::pair{QPointF(area.left() + 6, top), leftEnd},
                                                  std::pair{QPointF(rightEnd.x() - sz.width(), top), rightEnd}}) {
                    const QRectF r(pos, sz);
                    if (!placer.isFree(r))
                        continue;
                    const QPointF from(std::clamp(anchor.x(), r.left(), r.right()),
                                       std::clamp(anchor.y(), r.top(), r.bottom()));
                    const QLineF leader(from, anchor);
                    // ... and no other ceiling: a leader across one would tie the label to the wrong roof
                    bool clear = placer.lineClear(leader);
                    for (std::size_t j = 0; clear && j < c.m_ceilings.size(); ++j)
                        if (j != i && c.m_ceilingPool[j]->count() >= 2) {
                            const double yj = c.m_ceilings[j].flopsPerS / ys;
                            const QLineF other(map(c.m_ceilingPool[j]->at(0).x(), yj), map(xmax, yj));
                            clear = other.intersects(leader) != QLineF::BoundedIntersection;
                        }
                    if (!clear || !tryAt(t, pos))
                        continue;
                    leaderPlans[i] = {leader, QPen(ceiling.active ? strong : weak, 1, Qt::DotLine),
                                      leader.length() > 2};
                    if (leader.length() > 2) { // no later label covers the leader
                        const QPointF n = QPointF(-leader.dy(), leader.dx()) / leader.length();
                        placer.addObstacle(
                            QPolygonF({leader.p1() + n, leader.p2() + n, leader.p2() - n, leader.p1() - n}));
                    }
                    return true;
                }
            }
    }
    return false;
}

/// The ridge label beside the ridge point, else further down beside its drop line.
void RooflineChart::LabelLayout::placeRidge()
{
    const Analysis &a = c.document()->analysis();
    const double yv = a.peakFlops / ys;
    if (!c.m_ridge->isVisible() || a.ridge < xmin || a.ridge > xmax || yv < ymin || yv > ymax)
        return;
    QString mainName;
    for (const rm::Slope &s : c.m_slopes)
        if (s.main)
            mainName = s.shortName();
    const QSizeF sz = style(
        c.m_ridgeLabel,
        tr("ridge %1 FLOP/byte (%2, %3)").arg(formatSiNumber(a.ridge), qs(toString(a.matmulType)).toUpper(), mainName),
        font, strong);
    const QPointF rp = map(a.ridge, yv);
    bool done = false;
    for (double down = 4; !done && down < 4 + 6 * sz.height(); down += sz.height() / 2)
        done = tryAt(c.m_ridgeLabel, rp + QPointF(8, down)) ||
               tryAt(c.m_ridgeLabel, rp + QPointF(-sz.width() - 8, down)) ||
               (down == 4 && (tryAt(c.m_ridgeLabel, rp + QPointF(8, -sz.height() - 4)) ||
                              tryAt(c.m_ridgeLabel, rp + QPointF(-sz.width() - 8, -sz.height() - 4))));
    if (!done)
        hide(c.m_ridgeLabel);
}

void RooflineChart::LabelLayout::besidePoint(QGraphicsSimpleTextItem *t, QScatterSeries *s, double radius)
{
    if (s->count() == 0 || !s->isVisible())
        return;
    const QPointF v = s->at(0);
    if (v.x() < xmin || v.x() > xmax || v.y() < ymin || v.y() > ymax)
        return;
    const QPointF p = map(v.x(), v.y());
    const QSizeF sz = plans.value(t).size;
    const double r = radius + 4;
    for (const QPointF &pos :
         {QPointF(p.x() + r, p.y() - sz.height() / 2), QPointF(p.x() - r - sz.width(), p.y() - sz.height() / 2),
          QPointF(p.x() + r * 0.7, p.y() + r * 0.7), QPointF(p.x() + r * 0.7, p.y() - r * 0.7 - sz.height()),
          QPointF(p.x() - r * 0.7 - sz.width(), p.y() + r * 0.7),
          QPointF(p.x() - r * 0.7 - sz.width(), p.y() - r * 0.7 - sz.height()),
          QPointF(p.x() - sz.width() / 2, p.y() + r + 2), QPointF(p.x() - sz.width() / 2, p.y() - r - 2 - sz.height()),
          QPointF(p.x() + 2 * r, p.y() + r), QPointF(p.x() - 2 * r - sz.width(), p.y() + r)})
        if (tryAt(t, pos))
            return;
    hide(t);
}

/// Scenario B: its model point, then its roofline's label under its ceiling at the right.
void RooflineChart::LabelLayout::placeCompare()
{
    ScenarioDocument *doc = c.document();
    const auto &cmp = doc->compareAnalysis();
    if (c.m_compareModel->count() > 0) {
        // "B: Instinct MI300X, int4 weights" where it fits, else just "B".
        style(c.m_compareModelLabel, doc->compareLabel(), bold, c.theme().color(3));
        besidePoint(c.m_compareModelLabel, c.m_compareModel, c.m_compareModel->markerSize() / 2);
        if (!shown(c.m_compareModelLabel)) {
            style(c.m_compareModelLabel, tr("B"), bold, c.theme().color(3));
            besidePoint(c.m_compareModelLabel, c.m_compareModel, c.m_compareModel->markerSize() / 2);
        }
    }
    if (!cmp || c.m_compareRoof->count() == 0 || !c.m_compareRoof->isVisible() || cmp->peakFlops / ys < ymin ||
        cmp->peakFlops / ys > ymax)
        return;
    const QSizeF sz = style(c.m_compareLabel,
                            tr("B roofline: %1, %2, %3")
                                .arg(shortDeviceName(doc->compareDevice()), formatSi(cmp->peakFlops, "FLOP/s"),
                                     formatSi(cmp->bandwidth, "B/s")),
                            font, c.theme().color(3));
    const double y = map(1, cmp->peakFlops / ys).y();
    const double x = area.right() - sz.width() - 6;
    if (!tryAt(c.m_compareLabel, {x, y + 2}) && !tryAt(c.m_compareLabel, {x, y - sz.height() - 1}) &&
        !tryAt(c.m_compareLabel, {x, y + sz.height() + 4}))
        hide(c.m_compareLabel);
}

/// One pass over every label, in order of importance, from the bare obstacles.
void RooflineChart::LabelLayout::placeAll(bool tightWay)
{
    tight = tightWay;
    placer = obstacles;
    plans.clear();
    leaderPlans.assign(c.m_ceilingLeaders.size(), LeaderPlan{});
    // 1. the roofline proper: the matmul ceiling, the ridge, and the main-memory slope that meets it there
    for (std::size_t i = 0; i < c.m_ceilings.size(); ++i)
        if (c.m_ceilings[i].active || tight)
            placeCeiling(i);
    placeRidge();
    for (std::size_t i = 0; i < c.m_slopes.size(); ++i)
        if (c.m_slopes[i].main)
            placeSlope(i);
    // 2. the points: selection first (the user asked for it), then the whole model
    if (c.m_selection->count() > 0) {
        style(c.m_selectionLabel, c.m_selectionText, bold, c.theme().accent);
        besidePoint(c.m_selectionLabel, c.m_selection, c.m_selection->markerSize() / 2);
    }
    style(c.m_modelLabel, tr("whole model, batch %1").arg(formatGrouped(c.document()->scenario().batch)), bold, strong);
    besidePoint(c.m_modelLabel, c.m_model, c.m_model->markerSize() / 2);
    // 3. the other roofs
    for (std::size_t i = 0; i < c.m_ceilings.size(); ++i)
        if (!c.m_ceilings[i].active && !tight)
            placeCeiling(i);
    for (std::size_t i = 0; i < c.m_slopes.size(); ++i)
        if (!c.m_slopes[i].main)
            placeSlope(i);
    // 4. scenario B
    placeCompare();
}

/// Ten for each ceiling in view with a label, one for the ridge's.
int RooflineChart::LabelLayout::score() const
{
    int n = shown(c.m_ridgeLabel) ? 1 : 0;
    for (std::size_t i = 0; i < c.m_ceilings.size(); ++i) {
        const double yv = c.m_ceilings[i].flopsPerS / ys;
        if (yv >= ymin && yv <= ymax && shown(c.m_ceilingLabels[i]))
            n += 10;
    }
    return n;
}

/// In order of importance; a label that finds no free place is hidden, never struck through by a roof (a second pass
/// that let labels cross the roofs put the host link through "TF32 495 TFLOP/s" on a projector). When that leaves a
/// ceiling in view without a label (ceilings a few pixels apart in a short presentation chart), it is done again the
/// tight way: every ceiling first, from the top down, each in its compact form first, so the labels stack in the
/// order of their lines; the way that labels more ceilings (then the ridge) is kept.
void RooflineChart::LabelLayout::run()
{
    placeAll(false);
    int inView = 0;
    for (const rm::Ceiling &ceiling : c.m_ceilings)
        if (ceiling.flopsPerS / ys >= ymin && ceiling.flopsPerS / ys <= ymax)
            inView += 10;
    if (const int first = score(); first < inView + 1) {
        const auto firstPlans = plans;
        const auto firstLeaders = leaderPlans;
        placeAll(true);
        if (score() <= first) {
            plans = firstPlans;
            leaderPlans = firstLeaders;
        }
    }
}

/// Applies the plan: only what changed touches the scene.
void RooflineChart::LabelLayout::apply()
{
    std::vector<QGraphicsSimpleTextItem *> labels = c.m_ceilingLabels;
    labels.insert(labels.end(), c.m_slopeLabels.begin(), c.m_slopeLabels.end());
    labels.insert(labels.end(),
                  {c.m_ridgeLabel, c.m_modelLabel, c.m_selectionLabel, c.m_compareLabel, c.m_compareModelLabel});
    for (QGraphicsSimpleTextItem *t : labels) {
        const auto it = plans.constFind(t);
        applyLabelPlan(t, it == plans.cend() ? nullptr : &*it, c.m_chart->scene());
    }
    for (std::size_t i = 0; i < c.m_ceilingLeaders.size(); ++i) {
        QGraphicsLineItem *l = c.m_ceilingLeaders[i];
        const LeaderPlan &lp = leaderPlans[i];
        if (!lp.shown) {
            l->hide();
            continue;
        }
        if (l->pen() != lp.pen)
            l->setPen(lp.pen);
        if (l->line() != lp.line)
            l->setLine(lp.line);
        l->show();
    }
}

void RooflineChart::layoutLabels()
{
    fitLegend();
    chartfit::applyTitle(m_chart, titles(), theme().titleFont());
    const QRectF area = m_chart->plotArea();
    if (area.width() < 10 || area.height() < 10)
        return;
    if (m_compareModel->count() > 0)
        placeStars(); // how close A's and B's stars lie depends on the plot's size
    LabelLayout layout(*this, area);
    layout.run();
    layout.apply();
    if (m_callout->isVisible())
        m_callout->updateGeometry();
}

void RooflineChart::stylePools()
{
    const Theme &t = theme();
    const qreal w = t.lineWidth;
    QColor weak = t.foreground;
    weak.setAlphaF(0.55);
    for (std::size_t i = 0; i < m_ceilingPool.size(); ++i) {
        const bool active = i < m_ceilings.size() && m_ceilings[i].active;
        QPen pen(active ? t.foreground : weak, active ? w * 1.25 : w * 0.75);
        pen.setCapStyle(Qt::FlatCap);
        m_ceilingPool[i]->setPen(pen);
    }
    for (std::size_t i = 0; i < m_slopePool.size(); ++i) {
        const bool main = i < m_slopes.size() && m_slopes[i].main;
        QPen pen(main ? t.foreground : weak, main ? w * 1.25 : w * 0.75);
        if (i < m_slopes.size() && (m_slopes[i].kind == MemoryKind::Host || m_slopes[i].kind == MemoryKind::Storage))
            pen.setStyle(Qt::DashDotLine);
        pen.setCapStyle(Qt::FlatCap);
        m_slopePool[i]->setPen(pen);
    }
}

void RooflineChart::restyle()
{
    const Theme &t = theme();
    const qreal w = t.lineWidth;
    QColor weak = t.foreground;
    weak.setAlphaF(0.55);
    QPen ridgePen(weak, std::max(1.0, w * 0.5), Qt::DotLine);
    m_ridgeLine->setPen(ridgePen);
    m_ridge->setMarkerSize(9 * t.markerScale);
    m_ridge->setColor(t.foreground);
    m_ridge->setBorderColor(t.background);

    for (std::size_t c = 0; c < kOpClassCount; ++c) {
        QColor fill = t.color(classColor(static_cast<OpClass>(c)));
        fill.setAlphaF(0.85);
        m_opSeries[c]->setBrush(fill);
        m_opSeries[c]->setPen(QPen(t.background, 1));
        m_opSeries[c]->setMarkerSize(12 * t.markerScale); // legend marker; points carry their own sizes
        m_ops->setGroupStyle(static_cast<int>(c), fill, QPen(t.background, 1));
    }
    m_model->setMarkerSize(24 * t.markerScale);
    // Hollow stars: the whole model usually sits on its dominant operators, which must stay visible under it.
    m_model->setBrush(Qt::NoBrush);
    m_model->setPen(markerPen(t.foreground, 2 * t.markerScale));
    m_compareModel->setMarkerSize(24 * t.markerScale);
    m_serving->setMarkerSize(14 * t.markerScale);
    m_serving->setBrush(t.color(5));
    m_serving->setPen(markerPen(t.foreground, 1));
    m_measured->setMarkerSize(14 * t.markerScale);
    m_measured->setBrush(t.accent);
    m_measured->setPen(QPen(t.foreground, 1));
    m_compareModel->setBrush(Qt::NoBrush);
    m_compareModel->setPen(markerPen(t.color(3), 2 * t.markerScale));
    m_stars->setGroupStyle(0, Qt::NoBrush, m_model->pen());
    m_stars->setGroupStyle(1, Qt::NoBrush, m_compareModel->pen());
    QPen cmpPen(t.color(3), w, Qt::DashLine);
    m_compareRoof->setPen(cmpPen);
    m_selection->setBrush(Qt::NoBrush);
    m_selection->setPen(markerPen(t.accent, 3 * t.markerScale));
    m_callout->setTheme(t);
    // Marker sizes scale with the theme: recompute them.
    refresh();
}

nlohmann::json RooflineChart::data() const
{
    using nlohmann::json;
    const Analysis &a = document()->analysis();
    json j;
    j["chart"] = id().toStdString();
    j["title"] = title().toStdString();
    j["units"] = {{"x", "FLOP/byte"}, {"y", "FLOP/s"}};
    j["min_plotted_intensity"] = rm::kMinIntensity;
    json ceil = json::array();
    for (const rm::Ceiling &c : m_ceilings) {
        json dt = json::array();
        for (DType t : c.dtypes)
            dt.push_back(std::string(toString(t)));
        ceil.push_back(
            {{"name", c.name().toStdString()}, {"dtypes", dt}, {"flops_per_s", c.flopsPerS}, {"active", c.active}});
    }
    j["ceilings"] = ceil;
    json sl = json::array();
    for (const rm::Slope &s : m_slopes)
        sl.push_back({{"name", s.name.toStdString()},
                      {"kind", std::string(toString(s.kind))},
                      {"bytes_per_s", s.bytesPerS},
                      {"main", s.main},
                      {"ridge_flops_per_byte",
                       m_ceilings.empty() ? 0.0 : rm::ridgePoint(m_ceilings.front().flopsPerS, s.bytesPerS)}});
    j["slopes"] = sl;
    j["ridge"] = {
        {"flops_per_byte", a.ridge}, {"flops_per_s", a.peakFlops}, {"dtype", std::string(toString(a.matmulType))}};
    // The operators in analyze --json's schema (core::operatorToJson), with the plot's own fields added.
    json ops = core::operatorsToJson(a);
    for (std::size_t i = 0; i < a.operators.size(); ++i) {
        const Operator &op = a.operators[i];
        json &o = ops[i];
        o["index"] = i;
        o["intensity"] = op.intensity(); // arithmetic_intensity's old name here, kept for one release (CHANGELOG)
        o["plotted_intensity"] = rm::plottedIntensity(op.flops, op.bytes());
        o["achieved_flops_per_s"] = op.timeS > 0 ? op.flops / op.timeS : 0.0;
        o["plotted_flops_per_s"] = rm::plottedPerformance(op.flops, op.timeS, a.bandwidth);
        o["time_share"] = a.totals.timeS > 0 ? op.timeS / a.totals.timeS : 0.0;
    }
    j["operators"] = ops;
    j["model"] = {{"intensity", a.totals.intensity},
                  {"achieved_flops_per_s", a.totals.achievedFlopsPerS},
                  {"time_s", a.totals.timeS}};
    if (const ScenarioDocument *doc = document(); doc->isComparing()) {
        const Scenario &sb = doc->compareScenario();
        json c = {{"label", doc->compareLabel().toStdString()},
                  {"hardware", doc->compareDevice().id},
                  {"weights", precision::weightLabel(sb.weights).toStdString()},
                  {"kv", std::string(toString(sb.kv))},
                  {"activations", std::string(toString(sb.activations))},
                  {"roofline_drawn", m_compareRoof->count() > 0}};
        if (const auto &b = doc->compareAnalysis()) {
            c["flops_per_s"] = b->peakFlops;
            c["bytes_per_s"] = b->bandwidth;
            c["ridge_flops_per_byte"] = b->ridge;
            c["model_intensity"] = b->totals.intensity;
            c["model_achieved_flops_per_s"] = b->totals.achievedFlopsPerS;
            c["model_time_s"] = b->totals.timeS;
        } else {
            c["error"] = doc->compareError().toStdString();
        }
        j["compare"] = c;
    }
    j["ranges"] = {{"x", {m_ranges.x.min, m_ranges.x.max}}, {"y", {m_ranges.y.min, m_ranges.y.max}}};
    return j;
}

QString RooflineChart::csv() const
{
    const Analysis &a = document()->analysis();
    QStringList rows;
    rows << QStringLiteral(
        "kind,name,class,intensity_flop_per_byte,performance_flop_per_s,bandwidth_bytes_per_s,time_s,time_share,bound");
    auto num = [](double v) { return csvNumber(v); };
    for (const rm::Ceiling &c : m_ceilings)
        rows << QStringLiteral("ceiling,%1,,,%2,,,,").arg(csvField(c.name()), num(c.flopsPerS));
    for (const rm::Slope &s : m_slopes)
        rows << QStringLiteral("slope,%1,%2,,,%3,,,").arg(csvField(s.name), qs(toString(s.kind)), num(s.bytesPerS));
    rows << QStringLiteral("ridge,%1,,%2,%3,%4,,,")
                .arg(qs(toString(a.matmulType)), num(a.ridge), num(a.peakFlops), num(a.bandwidth));
    for (const Operator &op : a.operators) {
        const double achieved = op.timeS > 0 ? op.flops / op.timeS : 0.0;
        rows << QStringLiteral("operator,%1,%2,%3,%4,,%5,%6,%7")
                    .arg(qs(op.name), qs(toString(op.cls)), num(op.intensity()), num(achieved), num(op.timeS),
                         num(a.totals.timeS > 0 ? op.timeS / a.totals.timeS : 0.0), qs(toString(op.bound)));
    }
    rows << QStringLiteral("model,%1,,%2,%3,,%4,1,%5")
                .arg(csvField(QString::fromStdString(document()->model().name)), num(a.totals.intensity),
                     num(a.totals.achievedFlopsPerS), num(a.totals.timeS), qs(toString(a.totals.bound)));
    if (const auto &b = document()->compareAnalysis()) {
        const QString label = csvField(document()->compareLabel());
        if (m_compareRoof->count() > 0)
            rows << QStringLiteral("b_ridge,%1,%2,%3,%4,%5,,,")
                        .arg(label, qs(toString(b->matmulType)), num(b->ridge), num(b->peakFlops), num(b->bandwidth));
        rows << QStringLiteral("b_model,%1,,%2,%3,,%4,1,%5")
                    .arg(label, num(b->totals.intensity), num(b->totals.achievedFlopsPerS), num(b->totals.timeS),
                         qs(toString(b->totals.bound)));
    }
    return rows.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace memwall::ui
