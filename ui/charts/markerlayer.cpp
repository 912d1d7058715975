#include "ui/charts/markerlayer.h"

#include <QAbstractSeries>
#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsSceneHoverEvent>
#include <QGraphicsSceneMouseEvent>
#include <QLogValueAxis>
#include <QPaintEngine>
#include <QPainter>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace memwall::ui {

namespace {
constexpr qreal kArrow = 12; ///< length of the arrow from a pinned marker to the plot's right edge (pixels)

/// A regular five-pointed star around `c`, its points on the circle of radius `r`, one pointing up; the inner
/// corners lie at r·sin 18°/sin 126° (≈ 0.382 r), where the pentagram's lines cross.
QPolygonF star(const QPointF &c, qreal r)
{
    constexpr double pi = 3.14159265358979323846;
    const double inner = r * std::sin(pi / 10) / std::sin(7 * pi / 10);
    QPolygonF p;
    for (int k = 0; k < 10; ++k) {
        const double angle = -pi / 2 + k * pi / 5;
        const double radius = k % 2 == 0 ? r : inner;
        p << QPointF(c.x() + radius * std::cos(angle), c.y() + radius * std::sin(angle));
    }
    p << p.front();
    return p;
}

/// Device rows of one band of a large marker (see drawMarker()): every band stays below the 96 spans at which Qt's
/// raster engine hands an antialiased fill to its thread pool, for a circle of up to 156 pixels (or a filled star) in
/// bands of kBandRows, and of up to kWideBandsUpTo rows, outline and antialiasing included, in bands of kWideBandRows
/// (gdb on QSemaphore::acquire, circles of 26 to 62 pixels at whole and fractional offsets). Each band rasterizes
/// the whole shape again, so the fewer the better.
constexpr int kBandRows = 8;
constexpr int kWideBandRows = 16;
constexpr int kWideBandsUpTo = 64;
/// A marker at most this many device rows high (a circle of 18 pixels with its outline and antialiasing) is drawn in
/// one pass: circles reach 96 spans from 21 pixels on (gdb, with a one-pixel outline).
constexpr int kOnePassRows = 24;
} // namespace

void MarkerLayer::drawMarker(QPainter *painter, const QRectF &clip, const QRectF &extent, bool circle,
                             const std::function<void()> &draw)
{
    // An antialiased fill of 96 spans and more (a circle from 21 pixels on, its outline too) is split by Qt's
    // raster engine over its thread pool, and the painting thread waits for the pool. On a machine with few, busy
    // cores, waking the pool and waiting for it costs more than the fill: a batch tick of the roofline made three
    // such fills (issue #41). Drawn in bands of a few rows, each under its own clip rectangle, no fill reaches
    // 96 spans and all of it stays on the painting thread. The pixels are the same: the clip only drops spans, the
    // coverage of each pixel is computed from the whole shape, and the bands share their edges, so each row is
    // drawn once. Only the raster engine (the screen, a PNG export) and a transform without rotation or shear; an
    // SVG or PDF gets the shape once.
    const QTransform &device = painter->deviceTransform();
    const qreal scale = device.m22();
    const qreal rows = extent.height() * scale;
    if (rows <= kOnePassRows || scale <= 0 || device.type() > QTransform::TxScale || !painter->paintEngine() ||
        painter->paintEngine()->type() != QPaintEngine::Raster) {
        draw();
        return;
    }
    const qreal band = (circle && rows <= kWideBandsUpTo ? kWideBandRows : kBandRows) / scale;
    for (qreal top = extent.top(); top < extent.bottom(); top += band) {
        painter->setClipRect(clip.intersected(QRectF(clip.left(), top, clip.width(), band)));
        draw();
    }
    painter->setClipRect(clip);
}

MarkerLayer::MarkerLayer(QChart *chart, QAbstractSeries *reference)
    : QGraphicsObject(chart), m_chart(chart), m_reference(reference)
{
    setZValue(10); // above the series, below the labels (20) and the callout
    setAcceptHoverEvents(true);
    setAcceptedMouseButtons(Qt::LeftButton);
    // The plot area is the bounding rectangle; markers are mapped when painted, so a change of the plot area or of
    // an axis range only needs a repaint (and a new bounding rectangle for the former).
    connect(chart, &QChart::plotAreaChanged, this, [this] {
        updateBounds();
        update();
    });
    // A new axis range moves every marker.
    for (QAbstractAxis *axis : reference->attachedAxes()) {
        if (auto *log = qobject_cast<QLogValueAxis *>(axis))
            connect(log, &QLogValueAxis::rangeChanged, this, [this] { update(); });
        else if (auto *value = qobject_cast<QValueAxis *>(axis))
            connect(value, &QValueAxis::rangeChanged, this, [this] { update(); });
    }
    updateBounds();
}

void MarkerLayer::updateBounds()
{
    // The plot area and the largest marker's radius beyond it (what paint() may draw, see its clip): no more, so a
    // repaint of the markers does not take the axis labels around the plot with it.
    // The margin only grows while the plot area stays: a new bounding rectangle repaints the whole layer, and a
    // slider tick that changes the largest marker's size repaints only what it changes (see setMarkers()).
    qreal largest = 0;
    for (const Marker &m : m_markers)
        largest = std::max(largest, m.diameter);
    const QRectF area = m_chart->plotArea();
    if (area != m_boundsArea)
        m_margin = 0;
    m_margin = std::max(m_margin, largest / 2 + 2);
    const QRectF bounds = area.adjusted(-m_margin, -m_margin, m_margin, m_margin);
    m_boundsArea = area;
    if (bounds == m_bounds)
        return;
    prepareGeometryChange();
    m_bounds = bounds;
}

void MarkerLayer::setMarkers(std::vector<Marker> markers)
{
    m_markers = std::move(markers);
    m_paintOrder.resize(m_markers.size());
    std::iota(m_paintOrder.begin(), m_paintOrder.end(), std::size_t{0});
    std::stable_sort(m_paintOrder.begin(), m_paintOrder.end(),
                     [this](std::size_t a, std::size_t b) { return m_markers[a].diameter > m_markers[b].diameter; });
    m_hovered = -1;
    m_pressed = -1;
    updateBounds();
    // Only what changes is repainted: the rectangles the last paint drew and those the new markers will draw. The
    // whole layer is repainted if it has not been painted on screen yet or the mapping has changed since (then
    // every marker moves, and the axes have asked for a repaint of the plot anyway).
    if (!m_paintedOnScreen || mapping() != m_paintedMapping) {
        update();
        return;
    }
    // The rectangles go to the scene one by one: an item unites all its partial updates into one rectangle, which
    // for markers spread over the plot is most of it, where the scene keeps them apart.
    QGraphicsScene *s = scene();
    if (!s) {
        update();
        return;
    }
    for (const QRectF &r : m_painted)
        s->update(mapRectToScene(r));
    for (std::size_t i = 0; i < m_markers.size(); ++i)
        if (const QRectF r = paintRect(i); !r.isEmpty())
            s->update(mapRectToScene(r));
}

std::pair<QRectF, QPointF> MarkerLayer::mapping() const
{
    return {m_chart->plotArea(), m_chart->mapToPosition(QPointF(1, 1), m_reference)};
}

QRectF MarkerLayer::paintRect(std::size_t i) const
{
    const QPointF c = centre(i);
    if (std::isnan(c.x()))
        return {};
    const Marker &m = m_markers[i];
    const auto g = static_cast<std::size_t>(std::max(0, m.group));
    const qreal pen = g < m_styles.size() && m_styles[g].second.style() != Qt::NoPen ? m_styles[g].second.widthF() : 0;
    const qreal r = m.diameter / 2 + pen + 2; // the outline and the antialiasing around it
    QRectF rect(c.x() - r, c.y() - r, 2 * r, 2 * r);
    if (m.pinnedRight) // the arrow to the plot's right edge, and its head
        rect = rect.united(QRectF(c.x(), c.y() - r - 4, m_chart->plotArea().right() - c.x() + 2, 2 * r + 8));
    return rect;
}

void MarkerLayer::setGroupStyle(int group, const QBrush &brush, const QPen &pen)
{
    if (group < 0)
        return;
    if (static_cast<std::size_t>(group) >= m_styles.size())
        m_styles.resize(static_cast<std::size_t>(group) + 1);
    auto &style = m_styles[static_cast<std::size_t>(group)];
    if (style.first == brush && style.second == pen)
        return; // charts restyle on every refresh; only a change repaints
    style = {brush, pen};
    update();
}

void MarkerLayer::setGroupVisible(std::function<bool(int)> visible)
{
    m_groupVisible = std::move(visible);
    update();
}

bool MarkerLayer::drawn(const Marker &m) const { return isVisible() && (!m_groupVisible || m_groupVisible(m.group)); }

QPointF MarkerLayer::centre(std::size_t i) const
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    if (i >= m_markers.size() || !drawn(m_markers[i]))
        return {nan, nan};
    const Marker &m = m_markers[i];
    const QRectF area = m_chart->plotArea();
    QPointF p = m_chart->mapToPosition(m.pinnedRight ? QPointF(1, m.value.y()) : m.value, m_reference);
    if (m.pinnedRight)
        p.setX(area.right() - kArrow - m.diameter / 2);
    // Outside the plot (zoomed or panned away) nothing is drawn; a hair of tolerance keeps points on the border.
    if (!(std::isfinite(p.x()) && std::isfinite(p.y())) ||
        !area.adjusted(-kBorderTolerance, -kBorderTolerance, kBorderTolerance, kBorderTolerance).contains(p))
        return {nan, nan};
    return p;
}

QPainterPath MarkerLayer::markerPath(std::size_t i) const
{
    QPainterPath path;
    const QPointF c = centre(i);
    if (std::isnan(c.x()))
        return path;
    const qreal r = m_markers[i].diameter / 2;
    if (m_markers[i].shape == Shape::Star)
        path.addPolygon(star(c, r));
    else
        path.addEllipse(c, r, r);
    return path;
}

int MarkerLayer::keyAt(const QPointF &pos) const
{
    // The topmost painted marker: painting goes largest first, so search from the end of the paint order.
    for (std::size_t n = m_paintOrder.size(); n-- > 0;) {
        const std::size_t i = m_paintOrder[n];
        const QPointF c = centre(i);
        if (std::isnan(c.x()))
            continue;
        const qreal r = m_markers[i].diameter / 2 + 1;
        if (QLineF(c, pos).length() <= r)
            return m_markers[i].key;
    }
    return -1;
}

QRectF MarkerLayer::boundingRect() const { return m_bounds; }

QPainterPath MarkerLayer::shape() const
{
    QPainterPath all;
    all.setFillRule(Qt::WindingFill);
    for (std::size_t i = 0; i < m_markers.size(); ++i)
        all.addPath(markerPath(i));
    return all;
}

void MarkerLayer::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *widget)
{
    const QRectF area = m_chart->plotArea();
    // A view passes its viewport; an export (QGraphicsScene::render) passes none and leaves the screen as it is.
    if (widget) {
        m_paintedOnScreen = true;
        m_paintedMapping = mapping();
        m_painted.clear();
        for (std::size_t i = 0; i < m_markers.size(); ++i)
            if (const QRectF r = paintRect(i); !r.isEmpty())
                m_painted.push_back(r);
    }
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    // Markers on the border are drawn whole (as Qt Charts does), but nothing spills far outside the plot.
    qreal largest = 0;
    for (const Marker &m : m_markers)
        largest = std::max(largest, m.diameter);
    const QRectF clip = area.adjusted(-largest / 2 - 1, -largest / 2 - 1, largest / 2 + 1, largest / 2 + 1);
    painter->setClipRect(clip);
    for (std::size_t i : m_paintOrder) {
        const Marker &m = m_markers[i];
        const QPointF c = centre(i);
        if (std::isnan(c.x()))
            continue;
        const auto g = static_cast<std::size_t>(std::max(0, m.group));
        const std::pair<QBrush, QPen> style = g < m_styles.size() ? m_styles[g] : std::pair<QBrush, QPen>{};
        const qreal r = m.diameter / 2;
        if (m.pinnedRight) {
            QPen arrow = style.second.style() == Qt::NoPen ? QPen(style.first.color()) : QPen(style.first.color(), 1.5);
            arrow.setWidthF(std::max<qreal>(1.5, m.diameter / 8));
            painter->setPen(arrow);
            const QPointF tip(area.right() - 1, c.y());
            painter->drawLine(QPointF(c.x() + r, c.y()), tip);
            const qreal h = std::max<qreal>(4, m.diameter / 4);
            painter->drawLine(tip, tip + QPointF(-h, -h));
            painter->drawLine(tip, tip + QPointF(-h, h));
        }
        painter->setBrush(style.first);
        painter->setPen(style.second);
        const qreal outline = style.second.style() == Qt::NoPen ? 0 : style.second.widthF();
        const qreal reach = r + outline + 2; // the outline and the antialiasing around it
        const QRectF extent(c.x() - reach, c.y() - reach, 2 * reach, 2 * reach);
        if (m.shape == Shape::Star && style.first.style() == Qt::NoBrush) {
            painter->drawPolygon(star(c, r)); // a hollow star's outline stays below 96 spans (gdb, up to 100 pixels)
        } else if (m.shape == Shape::Star) {
            const QPolygonF points = star(c, r);
            drawMarker(painter, clip, extent, false, [&] { painter->drawPolygon(points); });
        } else {
            drawMarker(painter, clip, extent, true, [&] { painter->drawEllipse(c, r, r); });
        }
    }
    painter->restore();
}

void MarkerLayer::setHovered(int key)
{
    if (key == m_hovered)
        return;
    if (m_hovered >= 0)
        emit hovered(m_hovered, false);
    m_hovered = key;
    if (key >= 0)
        emit hovered(key, true);
}

void MarkerLayer::hoverMoveEvent(QGraphicsSceneHoverEvent *event) { setHovered(keyAt(event->pos())); }

void MarkerLayer::hoverLeaveEvent(QGraphicsSceneHoverEvent *) { setHovered(-1); }

void MarkerLayer::mousePressEvent(QGraphicsSceneMouseEvent *event)
{
    m_pressed = event->button() == Qt::LeftButton ? keyAt(event->pos()) : -1;
    if (m_pressed < 0)
        event->ignore(); // not on a marker: the view pans
}

void MarkerLayer::mouseReleaseEvent(QGraphicsSceneMouseEvent *event)
{
    const int key = keyAt(event->pos());
    if (key >= 0 && key == m_pressed)
        emit clicked(key);
    m_pressed = -1;
}

} // namespace memwall::ui
