#pragma once
// Shared by the UI suites: checks of what a chart paints against what it computed (tst_painted, tst_torture).

#include "ui/charts/chartbase.h"
#include "ui/charts/markerlayer.h"
#include "ui/charts/rooflinechart.h"

#include <QAbstractGraphicsShapeItem>
#include <QChart>
#include <QGraphicsItemGroup>

#include <QGraphicsScene>
#include <QLineF>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace memwall::uitest {

/// Where `value` of `series` must be painted (chart coordinates), computed from the series' axes and the plot area
/// without asking Qt Charts to map it; NaN if an axis is not a value or log axis, or the value is outside the range.
/// `borderPx`: a value up to that many pixels outside the plot still counts as drawn on its border (MarkerLayer
/// draws those; Qt Charts' own scatter series do not).
inline QPointF expectedPosition(const QChart *chart, QAbstractSeries *series, const QPointF &value, double borderPx = 0)
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    const QRectF area = chart->plotArea();
    double fx = nan, fy = nan;
    for (const QAbstractAxis *axis : series->attachedAxes()) {
        const double v = axis->orientation() == Qt::Horizontal ? value.x() : value.y();
        double f = nan;
        if (const auto *log = qobject_cast<const QLogValueAxis *>(axis)) {
            if (v > 0)
                f = (std::log(v) - std::log(log->min())) / (std::log(log->max()) - std::log(log->min()));
        } else if (const auto *lin = qobject_cast<const QValueAxis *>(axis)) {
            f = (v - lin->min()) / (lin->max() - lin->min());
        }
        (axis->orientation() == Qt::Horizontal ? fx : fy) = f;
    }
    const QPointF p(area.left() + fx * area.width(), area.bottom() - fy * area.height());
    const bool inRange = fx >= -1e-9 && fx <= 1 + 1e-9 && fy >= -1e-9 && fy <= 1 + 1e-9;
    const bool onBorder = std::isfinite(p.x()) && std::isfinite(p.y()) &&
                          area.adjusted(-borderPx, -borderPx, borderPx, borderPx).contains(p);
    if (!inRange && !(borderPx > 0 && onBorder))
        return {nan, nan};
    return p;
}

struct Expected
{
    QPointF at;
    QString what;
};

/// Every marker that should be painted: the points of visible scatter series, and the MarkerLayer's markers.
inline std::vector<Expected> expectedMarkers(const ui::ChartBase &base)
{
    std::vector<Expected> out;
    const QChart *chart = base.chart();
    for (QAbstractSeries *s : chart->series()) {
        auto *scatter = qobject_cast<QScatterSeries *>(s);
        if (!scatter || !scatter->isVisible() || scatter->opacity() <= 0)
            continue;
        for (int i = 0; i < scatter->count(); ++i) {
            const QPointF p = expectedPosition(chart, scatter, scatter->at(i));
            if (!std::isnan(p.x()))
                out.push_back({p, QStringLiteral("%1 point %2 (%3, %4)")
                                      .arg(scatter->objectName().isEmpty() ? scatter->name() : scatter->objectName())
                                      .arg(i)
                                      .arg(scatter->at(i).x())
                                      .arg(scatter->at(i).y())});
        }
    }
    return out;
}

/// Checks every painted marker against where its value maps; returns the first problem, or an empty string.
inline QString markerProblems(const ui::ChartBase &base)
{
    const QChart *chart = base.chart();
    const std::vector<Expected> expected = expectedMarkers(base);
    // Qt Charts' scatter markers are shape items grouped under their series' item.
    std::vector<QPointF> painted;
    std::vector<double> slack;
    for (QGraphicsItem *item : chart->childItems().isEmpty() ? QList<QGraphicsItem *>() : chart->scene()->items()) {
        // (A fully transparent item is not painted: the scene skips it, as it does the series drawn elsewhere.)
        if (!chart->isAncestorOf(item) || !item->isVisible() || item->effectiveOpacity() <= 0 || !item->parentItem() ||
            item->parentItem()->type() != QGraphicsItemGroup::Type || !dynamic_cast<QAbstractGraphicsShapeItem *>(item))
            continue;
        const QRectF r = item->sceneBoundingRect();
        const QPointF c = chart->mapFromScene(r.center());
        if (!chart->plotArea().adjusted(-1, -1, 1, 1).contains(c))
            continue; // a marker Qt keeps outside the plot (hidden by clipping)
        painted.push_back(c);
        // A star's bounding box is not centred on the star: allow a tenth of its size more.
        slack.push_back(item->type() == QGraphicsPolygonItem::Type ? 0.12 * r.height() : 0.0);
    }
    // Pair painted markers with values one to one, each pair within 2 px (a star gets its slack). Markers of two
    // series can sit a pixel apart (B's point beside A's), so the nearest value is not always the marker's own: the
    // pairing is a bipartite matching (augmenting paths), not a greedy nearest-first choice.
    const auto near = [&](std::size_t i, std::size_t j) {
        return QLineF(painted[i], expected[j].at).length() <= 2.0 + slack[i];
    };
    std::vector<std::ptrdiff_t> owner(expected.size(), -1); // painted marker paired with each value
    std::vector<bool> tried;
    const std::function<bool(std::size_t)> pair = [&](std::size_t i) {
        for (std::size_t j = 0; j < expected.size(); ++j) {
            if (tried[j] || !near(i, j))
                continue;
            tried[j] = true;
            if (owner[j] < 0 || pair(static_cast<std::size_t>(owner[j]))) {
                owner[j] = static_cast<std::ptrdiff_t>(i);
                return true;
            }
        }
        return false;
    };
    for (std::size_t i = 0; i < painted.size(); ++i) {
        tried.assign(expected.size(), false);
        if (pair(i))
            continue;
        double best = 1e9;
        for (const Expected &e : expected)
            best = std::min(best, QLineF(painted[i], e.at).length());
        return QStringLiteral("a marker is painted at (%1, %2), %3 px from the nearest value that maps into the plot%4")
            .arg(painted[i].x())
            .arg(painted[i].y())
            .arg(best)
            .arg(best <= 2.0 + slack[i] ? QStringLiteral(" (that value has its own marker)") : QString());
    }
    std::vector<bool> matched(expected.size());
    for (std::size_t j = 0; j < expected.size(); ++j)
        matched[j] = owner[j] >= 0;
    for (std::size_t j = 0; j < expected.size(); ++j)
        if (!matched[j]) {
            QString items;
            // With MEMWALL_PAINTED_DEBUG set, the message lists every marker item in the scene (position, item
            // type, visibility), to tell a missing marker from a misplaced one.
            for (QGraphicsItem *item : chart->scene()->items())
                if (chart->isAncestorOf(item) && item->parentItem() &&
                    item->parentItem()->type() == QGraphicsItemGroup::Type &&
                    dynamic_cast<QAbstractGraphicsShapeItem *>(item)) {
                    const QPointF c = chart->mapFromScene(item->sceneBoundingRect().center());
                    items += QStringLiteral(" [%1,%2 %3 vis=%4 pvis=%5]")
                                 .arg(c.x())
                                 .arg(c.y())
                                 .arg(item->type())
                                 .arg(item->isVisible())
                                 .arg(item->parentItem()->isVisible());
                }
            return QStringLiteral("%1 maps to (%2, %3) but no marker is painted there; items:%4")
                .arg(expected[j].what)
                .arg(expected[j].at.x())
                .arg(expected[j].at.y())
                .arg(qEnvironmentVariableIsSet("MEMWALL_PAINTED_DEBUG") ? items : QString());
        }

    // MemWall's own markers: each where its value maps (or pinned at the right edge), and the pixel at its centre
    // painted in its colour.
    if (const auto *roofline = qobject_cast<const ui::RooflineChart *>(&base)) {
        // The stars are the model series' points, which the series do not paint themselves (opacity 0).
        const ui::MarkerLayer *stars = roofline->modelMarkers();
        for (const auto &[series, group] :
             {std::pair{roofline->modelSeries(), 0}, std::pair{roofline->compareModelSeries(), 1}}) {
            const auto &ms = stars->markers();
            const auto star = std::find_if(ms.begin(), ms.end(), [g = group](const auto &m) { return m.group == g; });
            const bool wanted = series->count() > 0;
            if (wanted != (star != ms.end()) || (wanted && star->value != series->at(0)))
                return QStringLiteral("the %1 star does not show its series' point").arg(series->objectName());
        }
        for (const ui::MarkerLayer *layer : {static_cast<const ui::MarkerLayer *>(roofline->operatorMarkers()), stars})
            for (std::size_t i = 0; i < layer->markers().size(); ++i) {
                const ui::MarkerLayer::Marker &m = layer->markers()[i];
                const QPointF drawn = layer->centre(i);
                if (std::isnan(drawn.x()))
                    continue;
                QPointF want =
                    expectedPosition(chart, roofline->modelSeries(), m.value, ui::MarkerLayer::kBorderTolerance);
                if (m.pinnedRight)
                    want = {chart->plotArea().right() - 12 - m.diameter / 2,
                            expectedPosition(chart, roofline->modelSeries(), QPointF(1, m.value.y()),
                                             ui::MarkerLayer::kBorderTolerance)
                                .y()};
                if (std::isnan(want.x()) || QLineF(drawn, want).length() > 2.0) {
                    QString axes;
                    for (const QAbstractAxis *axis : roofline->modelSeries()->attachedAxes())
                        if (const auto *log = qobject_cast<const QLogValueAxis *>(axis))
                            axes += QStringLiteral(" %1 axis %2..%3;")
                                        .arg(axis->orientation() == Qt::Horizontal ? "x" : "y")
                                        .arg(log->min())
                                        .arg(log->max());
                    return QStringLiteral(
                               "%1 marker %2 is painted at (%3, %4) but its value (%5, %6) maps to (%7, %8);%9")
                        .arg(layer->objectName())
                        .arg(m.key)
                        .arg(drawn.x())
                        .arg(drawn.y())
                        .arg(m.value.x())
                        .arg(m.value.y())
                        .arg(want.x())
                        .arg(want.y())
                        .arg(axes);
                }
            }
    }
    return {};
}

} // namespace memwall::uitest
