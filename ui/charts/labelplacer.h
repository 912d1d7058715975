#pragma once

#include <QColor>
#include <QFont>
#include <QLineF>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <optional>
#include <vector>

class QGraphicsScene;
class QGraphicsSimpleTextItem;

namespace memwall::ui {

struct Theme;

/// Where the text labels of a chart go: every chart asks one LabelPlacer per layout for a free place for each label,
/// in order of importance. A free place lies inside the plot (never cut), overlaps no label placed before it and no
/// obstacle (a marker, the legend), and no curve runs through it. A label that finds none is hidden by its chart,
/// never drawn over something. All coordinates are the chart's (pixels). Pure geometry: tested in
/// tests/ui/tst_labelplacer.cpp; the charts' own tests and tst_presentation read the result back from the scene.
class LabelPlacer
{
public:
    /// A label's (or obstacle's) outline with its bounding box: labels along a slope are turned. Tests run hundreds
    /// of times a layout and most end on the boxes.
    struct Outline
    {
        QPolygonF poly;
        QRectF box;
        bool upright = false;
        explicit Outline(const QRectF &r) : poly(r), box(r), upright(true) {}
        explicit Outline(QPolygonF p) : poly(std::move(p)), box(poly.boundingRect()) {}
    };

    /// The smallest point size a chart may shrink a label to in `theme`. In the presentation theme 14 pt: at
    /// 1280x720 on a 3 m wide projected image a 14 pt line is about 19 px, 4.5 cm high, readable from the back of a
    /// class room (the theme's ticks are 16 pt). In the window themes 7 pt, the smallest the system fonts hint well.
    static qreal minimumPointSize(const Theme &theme);

    /// `plot`: the area labels must stay inside, allowing `slack` pixels past its edges (the axis lines).
    explicit LabelPlacer(const QRectF &plot, qreal slack = 1);

    const QRectF &plot() const { return m_inside; }
    /// Something no label may cover (a marker, the legend, a leader line).
    void addObstacle(const QRectF &rect) { m_placed.emplace_back(rect); }
    void addObstacle(const QPolygonF &poly) { m_placed.emplace_back(poly); }
    /// A drawn line no label may be crossed by: one segment, or each segment of a polyline; `halfWidth` is half its
    /// stroke (a label keeps that far from the line's centre).
    void addCurve(const QLineF &segment, qreal halfWidth = 0) { m_curves.push_back({segment, halfWidth}); }
    void addCurve(const QPolygonF &polyline, qreal halfWidth = 0);

    /// The outline of a label of `size` whose top-left corner is at `pos`, turned by `rotation` degrees about that
    /// corner (as a QGraphicsItem's pos() and rotation() place it).
    static Outline outlineAt(const QSizeF &size, const QPointF &pos, qreal rotation = 0);
    /// Inside the plot, clear of every curve, obstacle and label placed so far.
    bool isFree(const Outline &outline) const;
    bool isFree(const QRectF &rect) const { return isFree(Outline(rect)); }
    /// Reserves `outline` when it is free; false (nothing reserved) when not.
    bool take(const Outline &outline);
    /// The first free place among `topLefts` for a label of `size`, reserved; nullopt when none is free.
    std::optional<QRectF> place(const QSizeF &size, const std::vector<QPointF> &topLefts);
    /// True when `line` crosses no label or obstacle placed so far (for a leader line from a label to its anchor).
    bool lineClear(const QLineF &line) const;
    /// True when `line` meets `outline` (crosses it or ends inside it).
    static bool crosses(const Outline &outline, const QLineF &line);

private:
    QRectF m_inside;
    std::vector<Outline> m_placed;
    struct Curve
    {
        QLineF line;
        qreal halfWidth = 0;
    };
    std::vector<Curve> m_curves;
};

/// What a label will show and where: charts plan every label first and change the items last, only where the plan
/// differs from what an item shows, so a slider tick that leaves a label in place costs no scene update for it.
struct LabelPlan
{
    QString text;
    QFont font;
    QColor color;
    QSizeF size;
    QPointF pos;
    qreal rotation = 0;
    bool shown = false;
};

/// Makes `item` show `plan` (hidden when `plan` is null or not shown), touching only what changed. The label's old
/// place is repainted by `scene` too: Qt's own repaint of a moved label's old place did not always cover it
/// (tst_painted found a ghost "T" beside "TF32").
void applyLabelPlan(QGraphicsSimpleTextItem *item, const LabelPlan *plan, QGraphicsScene *scene);

} // namespace memwall::ui
