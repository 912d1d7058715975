#include "ui/charts/griditem.h"

#include <QChart>
#include <QGraphicsItemGroup>
#include <QGraphicsLineItem>
#include <QLogValueAxis>
#include <QPaintEngine>
#include <QPainter>
#include <QRegion>
#include <QValueAxis>
#include <QXYSeries>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

namespace {

constexpr std::size_t kMaxLines = 2000; // a broken range never asks for millions of lines

bool isGridAxis(const QAbstractAxis *axis)
{
    return qobject_cast<const QValueAxis *>(axis) || qobject_cast<const QLogValueAxis *>(axis);
}

/// Minor ticks per major interval of a log axis: -1 means one per integer multiple (2, 3, ..., 9 for base 10).
int logMinorCount(const QLogValueAxis *log)
{
    const int n = log->minorTickCount();
    if (n >= 0)
        return n;
    const double b = log->base();
    return b >= 3 && std::abs(b - std::round(b)) < 1e-9 ? static_cast<int>(std::round(b)) - 2 : 0;
}

} // namespace

GridItem::GridItem(QChart *chart) : QGraphicsObject(chart), m_chart(chart), m_area(chart->plotArea())
{
    setZValue(2); // Qt Charts' own grid level: above the plot background and shades, below axes and series
    setAcceptedMouseButtons(Qt::NoButton);
    setAcceptHoverEvents(false);
    connect(chart, &QChart::plotAreaChanged, this, [this](const QRectF &area) {
        prepareGeometryChange();
        m_area = area;
        changed();
    });
}

void GridItem::adoptAxes()
{
    for (QAbstractAxis *axis : m_chart->axes()) {
        if (!isGridAxis(axis) ||
            std::any_of(m_axes.begin(), m_axes.end(), [axis](const Adopted &a) { return a.axis == axis; }))
            continue;
        m_axes.push_back({axis});
        silenceQtGrid(axis);
        // The axis line and its tick marks are drawn here too (paintAxes()): Qt Charts' are one line item each, and
        // each finds its bounding rectangle by stroking its line whenever the chart is painted.
        axis->setLineVisible(false);
        follow(axis);
    }
    changed();
}

void GridItem::silenceQtGrid(QAbstractAxis *axis)
{
    // Qt's grid lines stay (and keep their switches, which this item reads) but draw nothing. Their width is 0 as
    // well: a line item with a wider pen finds its bounding rectangle by stroking its line, at every paint.
    for (const bool minor : {false, true}) {
        QPen pen = minor ? axis->minorGridLinePen() : axis->gridLinePen();
        if (pen.style() == Qt::NoPen && pen.widthF() == 0)
            continue;
        pen.setStyle(Qt::NoPen);
        pen.setWidthF(0);
        if (minor)
            axis->setMinorGridLinePen(pen);
        else
            axis->setGridLinePen(pen);
    }
}

void GridItem::follow(QAbstractAxis *axis)
{
    // The chart keeps switching grids as if they were Qt's: the switches stay Qt's, the drawing is ours.
    connect(axis, &QAbstractAxis::gridVisibleChanged, this, &GridItem::changed);
    connect(axis, &QAbstractAxis::minorGridVisibleChanged, this, &GridItem::changed);
    connect(axis, &QAbstractAxis::gridLinePenChanged, this, [axis] { silenceQtGrid(axis); });
    connect(axis, &QAbstractAxis::minorGridLinePenChanged, this, [axis] { silenceQtGrid(axis); });
    connect(axis, &QAbstractAxis::visibleChanged, this, &GridItem::changed);
    connect(axis, &QAbstractAxis::reverseChanged, this, &GridItem::changed);
    if (auto *v = qobject_cast<QValueAxis *>(axis)) {
        connect(v, &QValueAxis::rangeChanged, this, &GridItem::changed);
        connect(v, &QValueAxis::tickCountChanged, this, &GridItem::changed);
        connect(v, &QValueAxis::minorTickCountChanged, this, &GridItem::changed);
        connect(v, &QValueAxis::tickIntervalChanged, this, &GridItem::changed);
        connect(v, &QValueAxis::tickAnchorChanged, this, &GridItem::changed);
        connect(v, &QValueAxis::tickTypeChanged, this, &GridItem::changed);
    } else if (auto *l = qobject_cast<QLogValueAxis *>(axis)) {
        connect(l, &QLogValueAxis::rangeChanged, this, &GridItem::changed);
        connect(l, &QLogValueAxis::baseChanged, this, &GridItem::changed);
        connect(l, &QLogValueAxis::minorTickCountChanged, this, &GridItem::changed);
    }
}

void GridItem::changed()
{
    m_dirty = true;
    update();
    // Qt Charts re-creates its grid items when the ticks change (after this signal): hide them once it has.
    if (!m_hidePending) {
        m_hidePending = true;
        QMetaObject::invokeMethod(this, &GridItem::hideQtGridItems, Qt::QueuedConnection);
    }
}

void GridItem::hideQtGridItems()
{
    // Qt's grid lines of adopted axes draw nothing (empty pen) but still cost a paint call each: hide them. Qt
    // shows them again when the range changes, so the group that holds them is made fully transparent as well
    // (Qt never sets its opacity): the scene then skips the group and everything in it.
    m_hidePending = false;
    const QList<QGraphicsItem *> items = m_chart->childItems();
    std::vector<QGraphicsItem *> todo(items.begin(), items.end());
    while (!todo.empty()) {
        QGraphicsItem *item = todo.back();
        todo.pop_back();
        if (item == this)
            continue;
        if (item->type() == QGraphicsLineItem::Type) {
            auto *line = static_cast<QGraphicsLineItem *>(item);
            if (line->isVisible() && line->pen().style() == Qt::NoPen) {
                line->hide();
                if (QGraphicsItem *group = line->parentItem(); group && group->type() == QGraphicsItemGroup::Type)
                    group->setOpacity(0);
            }
            continue;
        }
        const QList<QGraphicsItem *> children = item->childItems();
        todo.insert(todo.end(), children.begin(), children.end());
    }
}

void GridItem::setColors(const QColor &background, const QColor &major, const QColor &minor)
{
    if (background == m_background && major == m_major && minor == m_minor)
        return;
    m_background = background;
    m_major = major;
    m_minor = minor;
    changed();
}

QRectF GridItem::boundingRect() const
{
    const qreal m = kMajorTick + 2; // the tick marks outside the plot, and their pen
    return m_area.adjusted(-m, -m, m, m);
}

void GridItem::paintAxes(QPainter *painter) const
{
    // As Qt Charts draws them: the line along the plot's edge, major ticks 4 px and minor ones 2 px outward, with
    // the axis's line pen; unantialiased, so they are crisp and fall on the same pixels as the grid lines.
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    for (const Adopted &a : m_axes) {
        const QAbstractAxis *axis = a.axis;
        if (!axis || !axis->isVisible() || axis->linePen().style() == Qt::NoPen)
            continue;
        const Qt::Alignment side = axis->alignment();
        const bool horizontal = axis->orientation() == Qt::Horizontal;
        const double edge = std::round(side == Qt::AlignBottom  ? m_area.bottom()
                                       : side == Qt::AlignTop   ? m_area.top()
                                       : side == Qt::AlignRight ? m_area.right()
                                                                : m_area.left());
        const double out = side == Qt::AlignBottom || side == Qt::AlignRight ? 1 : -1;
        QVector<QLineF> segs;
        if (horizontal)
            segs.append(QLineF(m_area.left(), edge, m_area.right(), edge));
        else
            segs.append(QLineF(edge, m_area.top(), edge, m_area.bottom()));
        for (const auto &[ticks, length] :
             {std::pair{majorTicks(axis), kMajorTick}, std::pair{minorTicks(axis), kMinorTick}})
            for (double v : ticks) {
                const double at = std::round(position(axis, v, m_area));
                segs.append(horizontal ? QLineF(at, edge, at, edge + out * length)
                                       : QLineF(edge, at, edge + out * length, at));
            }
        painter->setPen(axis->linePen());
        painter->drawLines(segs);
    }
    painter->restore();
}

std::vector<double> GridItem::majorTicks(const QAbstractAxis *axis)
{
    std::vector<double> out;
    if (const auto *v = qobject_cast<const QValueAxis *>(axis)) {
        const double lo = v->min(), hi = v->max();
        if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
            return out;
        if (v->tickType() == QValueAxis::TicksDynamic) {
            const double step = v->tickInterval(), anchor = v->tickAnchor();
            if (!(step > 0) || (hi - lo) / step > kMaxLines)
                return out;
            const double eps = step * 1e-9;
            for (double t = anchor + std::ceil((lo - anchor) / step - 1e-9) * step; t <= hi + eps; t += step)
                out.push_back(t);
        } else {
            const int n = std::clamp(v->tickCount(), 2, static_cast<int>(kMaxLines));
            for (int i = 0; i < n; ++i)
                out.push_back(lo + (hi - lo) * i / (n - 1));
        }
    } else if (const auto *l = qobject_cast<const QLogValueAxis *>(axis)) {
        const double b = l->base(), lo = l->min(), hi = l->max();
        if (!(b > 0) || b == 1 || !(lo > 0) || !(hi > lo) || !std::isfinite(hi))
            return out;
        const double a = std::log(lo) / std::log(b), z = std::log(hi) / std::log(b);
        const double first = std::ceil(a - 1e-9), last = std::floor(z + 1e-9);
        if (last - first > kMaxLines)
            return out;
        for (double k = first; k <= last; ++k)
            out.push_back(std::pow(b, k));
    }
    return out;
}

std::vector<double> GridItem::minorTicks(const QAbstractAxis *axis)
{
    std::vector<double> out;
    if (const auto *v = qobject_cast<const QValueAxis *>(axis)) {
        const int m = v->minorTickCount();
        const std::vector<double> major = majorTicks(axis);
        if (m <= 0 || major.size() < 2 || major.size() * static_cast<std::size_t>(m) > kMaxLines)
            return out;
        for (std::size_t i = 0; i + 1 < major.size(); ++i)
            for (int j = 1; j <= m; ++j)
                out.push_back(major[i] + (major[i + 1] - major[i]) * j / (m + 1));
    } else if (const auto *l = qobject_cast<const QLogValueAxis *>(axis)) {
        const int m = logMinorCount(l);
        const double b = l->base(), lo = l->min(), hi = l->max();
        if (m <= 0 || !(b > 1) || !(lo > 0) || !(hi > lo) || !std::isfinite(hi))
            return out;
        const double first = std::floor(std::log(lo) / std::log(b) + 1e-9),
                     last = std::ceil(std::log(hi) / std::log(b) - 1e-9);
        if ((last - first) * m > kMaxLines)
            return out;
        // Within every power interval (the partial ones at either end too): 1 + j (b - 1) / (m + 1) times the power.
        for (double k = first; k < last; ++k)
            for (int j = 1; j <= m; ++j) {
                const double t = std::pow(b, k) * (1 + (b - 1) * j / (m + 1));
                if (t > lo * (1 + 1e-9) && t < hi * (1 - 1e-9))
                    out.push_back(t);
            }
    }
    return out;
}

double GridItem::position(const QAbstractAxis *axis, double value, const QRectF &area)
{
    double t = 0;
    if (const auto *v = qobject_cast<const QValueAxis *>(axis)) {
        t = v->max() > v->min() ? (value - v->min()) / (v->max() - v->min()) : 0;
    } else if (const auto *l = qobject_cast<const QLogValueAxis *>(axis)) {
        if (l->min() > 0 && l->max() > l->min() && value > 0)
            t = std::log(value / l->min()) / std::log(l->max() / l->min());
    }
    if (axis->isReverse())
        t = 1 - t;
    return axis->orientation() == Qt::Horizontal ? area.left() + t * area.width() : area.bottom() - t * area.height();
}

GridItem::Lines GridItem::lines() const
{
    Lines out;
    const QList<QAbstractAxis *> present = m_chart->axes();
    for (const Adopted &a : m_axes) {
        if (!a.axis || !a.axis->isVisible() || !present.contains(a.axis.data()))
            continue;
        const bool horizontal = a.axis->orientation() == Qt::Horizontal;
        auto put = [&](const std::vector<double> &ticks, std::vector<double> &into) {
            for (double t : ticks)
                into.push_back(position(a.axis, t, m_area));
        };
        if (a.axis->isGridLineVisible())
            put(majorTicks(a.axis), horizontal ? out.majorX : out.majorY);
        if (a.axis->isMinorGridLineVisible())
            put(minorTicks(a.axis), horizontal ? out.minorX : out.minorY);
    }
    return out;
}

void GridItem::addStaticSeries(QXYSeries *series)
{
    if (!series || std::find(m_static.begin(), m_static.end(), series) != m_static.end())
        return;
    m_static.emplace_back(series);
    series->setOpacity(0);
    // A chart re-sets its points and pens on every refresh, mostly to the same values: a change only schedules a
    // paint, and paint() redraws the cache if what the static series look like really changed (staticKey()).
    connect(series, &QXYSeries::pointsReplaced, this, &GridItem::staticSeriesTouched);
    connect(series, &QXYSeries::pointReplaced, this, &GridItem::staticSeriesTouched);
    connect(series, &QXYSeries::pointAdded, this, &GridItem::staticSeriesTouched);
    connect(series, &QXYSeries::pointRemoved, this, &GridItem::staticSeriesTouched);
    connect(series, &QXYSeries::pointsRemoved, this, &GridItem::staticSeriesTouched);
    connect(series, &QXYSeries::penChanged, this, &GridItem::staticSeriesTouched);
    connect(series, &QAbstractSeries::visibleChanged, this, &GridItem::staticSeriesTouched);
    changed();
}

void GridItem::staticSeriesTouched() { update(); }

QByteArray GridItem::staticKey() const
{
    QByteArray key;
    for (const QPointer<QXYSeries> &series : m_static) {
        if (!series)
            continue;
        const QPen pen = series->pen();
        const double head[] = {
            series->isVisible() ? 1.0 : 0.0, double(pen.color().rgba()), pen.widthF(), double(pen.style()),
            double(pen.capStyle()),          double(series->count())};
        key.append(reinterpret_cast<const char *>(head), sizeof head);
        const QList<QPointF> pts = series->points();
        key.append(reinterpret_cast<const char *>(pts.constData()), pts.size() * qsizetype(sizeof(QPointF)));
    }
    return key;
}

namespace {

/// The part of segment a-b inside `r` (Liang–Barsky); false if none.
bool clipSegment(QPointF &a, QPointF &b, const QRectF &r)
{
    double t0 = 0, t1 = 1;
    const double dx = b.x() - a.x(), dy = b.y() - a.y();
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {a.x() - r.left(), r.right() - a.x(), a.y() - r.top(), r.bottom() - a.y()};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1)
            return false;
    }
    const QPointF a0 = a;
    a = a0 + QPointF(dx, dy) * t0;
    b = a0 + QPointF(dx, dy) * t1;
    return true;
}

} // namespace

void GridItem::paintGrid(QPainter *painter, const QRectF &area, const Lines &l, const QPointF &shift) const
{
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false); // crisp lines, and the raster engine's fast path
    painter->fillRect(area, m_background);
    // No clip: every line lies inside the plot area already, and a clip would make the SVG/PDF exporter's clipping
    // engine turn each dash of the minor grid into a filled polygon (a 2.5 MB SVG).
    auto draw = [&](const std::vector<double> &xs, const std::vector<double> &ys, const QColor &c, Qt::PenStyle style) {
        if (xs.empty() && ys.empty())
            return;
        painter->setPen(QPen(c, 1, style));
        QVector<QLineF> segs;
        segs.reserve(static_cast<qsizetype>(xs.size()) + static_cast<qsizetype>(ys.size()));
        for (double x : xs)
            segs.append(QLineF(std::round(x), area.top(), std::round(x), area.bottom()));
        for (double y : ys)
            segs.append(QLineF(area.left(), std::round(y), area.right(), std::round(y)));
        painter->drawLines(segs);
    };
    draw(l.minorX, l.minorY, m_minor, Qt::DashLine); // dashed like Qt Charts' minor grid
    draw(l.majorX, l.majorY, m_major, Qt::SolidLine);

    // Static series, in the order added, clipped to the plot area here (a painter clip would make the vector
    // exporters turn every dash into a polygon).
    painter->setRenderHint(QPainter::Antialiasing, true);
    const QRectF clip = m_area; // in item coordinates, before the shift
    for (const QPointer<QXYSeries> &series : m_static) {
        if (!series || !series->isVisible() || series->count() < 2 || series->pen().style() == Qt::NoPen)
            continue;
        const QAbstractAxis *ax = nullptr;
        const QAbstractAxis *ay = nullptr;
        for (const QAbstractAxis *a : series->attachedAxes())
            (a->orientation() == Qt::Horizontal ? ax : ay) = a;
        if (!ax || !ay || !isGridAxis(ax) || !isGridAxis(ay))
            continue;
        painter->setPen(series->pen());
        const QList<QPointF> pts = series->points();
        QPointF prev(position(ax, pts[0].x(), m_area), position(ay, pts[0].y(), m_area));
        for (qsizetype i = 1; i < pts.size(); ++i) {
            const QPointF next(position(ax, pts[i].x(), m_area), position(ay, pts[i].y(), m_area));
            QPointF a = prev, b = next;
            if (clipSegment(a, b, clip))
                painter->drawLine(a + shift, b + shift);
            prev = next;
        }
    }
    painter->restore();
}

void GridItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    if (m_area.width() < 2 || m_area.height() < 2)
        return;
    const QTransform t = painter->deviceTransform();
    const bool raster = painter->paintEngine() && painter->paintEngine()->type() == QPaintEngine::Raster;
    if (!raster || t.type() > QTransform::TxTranslate) {
        paintGrid(painter, m_area, lines(), QPointF());
        paintAxes(painter);
        return;
    }
    // On screen: one opaque pixmap of the plot area in device pixels, drawn again only after a change (or when the
    // item lands at another sub-pixel offset); drawing it is a copy.
    const QPointF offset(t.dx(), t.dy());
    const QRectF device = m_area.translated(offset);
    const QPoint origin(static_cast<int>(std::floor(device.left())), static_cast<int>(std::floor(device.top())));
    const QPointF frac = offset - QPointF(std::floor(offset.x()), std::floor(offset.y()));
    QByteArray key = staticKey();
    if (m_dirty || m_cache.isNull() || m_cacheAt != frac || key != m_cacheKey) {
        const QSize px(static_cast<int>(std::ceil(device.right())) - origin.x() + 1,
                       static_cast<int>(std::ceil(device.bottom())) - origin.y() + 1);
        m_cache = QPixmap(px);
        m_cache.fill(m_background);
        // The same lines, moved into the pixmap's device pixels.
        Lines l = lines();
        const QPointF shift = offset - QPointF(origin);
        for (auto *v : {&l.majorX, &l.minorX})
            for (double &x : *v)
                x += shift.x();
        for (auto *v : {&l.majorY, &l.minorY})
            for (double &y : *v)
                y += shift.y();
        QPainter p(&m_cache);
        paintGrid(&p, device.translated(-QPointF(origin)), l, shift);
        m_cacheAt = frac;
        m_cacheKey = std::move(key);
        m_dirty = false;
    }
    painter->save();
    painter->setClipRect(m_area);
    // Only the parts being repainted, one rectangle at a time: blitting the whole pixmap under a many-rectangle
    // clip (the markers a slider tick moved) makes the raster engine process every line of it, split over its
    // thread pool, which costs more than the copy on a machine with few cores (memwall-bench).
    const QRegion system = painter->paintEngine()->systemClip(); // empty: the whole device is painted
    if (system.isEmpty())
        painter->drawPixmap(QPointF(origin) - offset, m_cache);
    for (const QRect &r : system &QRect(origin, m_cache.size()))
        painter->drawPixmap(QRectF(QPointF(r.topLeft()) - offset, QSizeF(r.size())), m_cache,
                            QRectF(r.translated(-origin)));
    painter->restore();
    paintAxes(painter);
}

} // namespace memwall::ui
