#include "ui/charts/labelplacer.h"

#include "ui/settings/theme.h"

#include <QBrush>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QTransform>

#include <algorithm>

namespace memwall::ui {

qreal LabelPlacer::minimumPointSize(const Theme &theme) { return theme.id == QLatin1String("presentation") ? 14 : 7; }

LabelPlacer::LabelPlacer(const QRectF &plot, qreal slack) : m_inside(plot.adjusted(-slack, -slack, slack, slack)) {}

void LabelPlacer::addCurve(const QPolygonF &polyline, qreal halfWidth)
{
    for (qsizetype i = 1; i < polyline.size(); ++i)
        m_curves.push_back({QLineF(polyline[i - 1], polyline[i]), halfWidth});
}

LabelPlacer::Outline LabelPlacer::outlineAt(const QSizeF &size, const QPointF &pos, qreal rotation)
{
    if (rotation == 0)
        return Outline(QRectF(pos, size));
    QTransform tr;
    tr.translate(pos.x(), pos.y());
    tr.rotate(rotation);
    return Outline(tr.map(QPolygonF(QRectF(QPointF(0, 0), size))));
}

bool LabelPlacer::crosses(const Outline &o, const QLineF &line)
{
    // Most candidates are far from most lines: their bounding boxes do not even touch.
    const QRectF &box = o.box;
    if (std::max(line.x1(), line.x2()) < box.left() || std::min(line.x1(), line.x2()) > box.right() ||
        std::max(line.y1(), line.y2()) < box.top() || std::min(line.y1(), line.y2()) > box.bottom())
        return false;
    const QPolygonF &poly = o.poly;
    if (poly.containsPoint(line.p1(), Qt::OddEvenFill) || poly.containsPoint(line.p2(), Qt::OddEvenFill))
        return true;
    for (qsizetype i = 0; i < poly.size(); ++i)
        if (QLineF(poly[i], poly[(i + 1) % poly.size()]).intersects(line) == QLineF::BoundedIntersection)
            return true;
    return false;
}

namespace {
// QPolygonF::intersects() goes through QPainterPath: only polygons whose bounding boxes meet get that far, and two
// upright rectangles whose boxes overlap by some area intersect.
bool outlinesOverlap(const LabelPlacer::Outline &a, const LabelPlacer::Outline &b)
{
    const QRectF &ra = a.box, &rb = b.box;
    if (ra.right() < rb.left() || rb.right() < ra.left() || ra.bottom() < rb.top() || rb.bottom() < ra.top())
        return false;
    if (a.upright && b.upright && ra.intersects(rb))
        return true;
    return a.poly.intersects(b.poly);
}
} // namespace

bool LabelPlacer::isFree(const Outline &o) const
{
    if (!m_inside.contains(o.box))
        return false;
    // An upright label keeps half a stroke from the line's centre (a turned one sits along its line, clear of it).
    if (std::any_of(m_curves.begin(), m_curves.end(), [&](const Curve &c) {
            if (c.halfWidth > 0 && o.upright)
                return crosses(Outline(o.box.adjusted(-c.halfWidth, -c.halfWidth, c.halfWidth, c.halfWidth)), c.line);
            return crosses(o, c.line);
        }))
        return false;
    return std::none_of(m_placed.begin(), m_placed.end(), [&](const Outline &p) { return outlinesOverlap(p, o); });
}

bool LabelPlacer::take(const Outline &outline)
{
    if (!isFree(outline))
        return false;
    m_placed.push_back(outline);
    return true;
}

std::optional<QRectF> LabelPlacer::place(const QSizeF &size, const std::vector<QPointF> &topLefts)
{
    if (size.isEmpty())
        return std::nullopt;
    for (const QPointF &tl : topLefts)
        if (const QRectF r(tl, size); take(Outline(r)))
            return r;
    return std::nullopt;
}

bool LabelPlacer::lineClear(const QLineF &line) const
{
    return std::none_of(m_placed.begin(), m_placed.end(), [&](const Outline &o) { return crosses(o, line); });
}

void applyLabelPlan(QGraphicsSimpleTextItem *t, const LabelPlan *plan, QGraphicsScene *scene)
{
    const bool moves = t->isVisible() && (!plan || !plan->shown || t->pos() != plan->pos || t->text() != plan->text ||
                                          t->font() != plan->font || t->rotation() != plan->rotation);
    if (moves && scene)
        scene->update(t->sceneBoundingRect().adjusted(-2, -2, 2, 2));
    if (!plan || !plan->shown) {
        t->hide();
        return;
    }
    if (t->text() != plan->text)
        t->setText(plan->text);
    if (t->font() != plan->font)
        t->setFont(plan->font);
    if (t->brush() != QBrush(plan->color))
        t->setBrush(plan->color);
    if (t->rotation() != plan->rotation) // setRotation() repaints the label even when the angle is the same
        t->setRotation(plan->rotation);
    t->setPos(plan->pos);
    t->show();
}

} // namespace memwall::ui
