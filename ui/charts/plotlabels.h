#pragma once

#include <QList>
#include <QPair>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QStringList>

#include <optional>
#include <vector>

class QChart;
class QFont;
class QGraphicsSimpleTextItem;

namespace memwall::ui {

class LabelPlacer;

/// Names beside scatter markers that do not overlap (used by the ridge and trends charts, placed by a LabelPlacer;
/// tested in tests/ui/tst_ridgechart.cpp). All rectangles are in chart coordinates (pixels).
namespace plotlabels {

/// One label to place: its marker's centre, the label's size, and how far from that centre it must stay (the
/// marker's radius plus a gap).
struct Request
{
    QPointF anchor;
    QSizeF size;
    qreal clearance = 6;
    /// May move away from its marker (then drawn with a leader line): the label that must be shown.
    bool mayMoveAway = false;
};

/// Places the labels in the order given (earlier ones win): each takes the first of eight places around its anchor
/// (right, left, above, below, then the four corners) that lies inside `area` and overlaps no rectangle of
/// `obstacles` (the markers, the legend, other text) and no label placed before it; one that `mayMoveAway` then tries
/// the same eight directions 2, 3, … 8 times as far. A label with no such place is left out (nullopt), never drawn
/// over another.
std::vector<std::optional<QRectF>> place(const std::vector<Request> &requests, const QRectF &area,
                                         const std::vector<QRectF> &obstacles);

/// Rectangles `thickness` pixels across along the polyline `points` (chart coordinates), one per `step` pixels: a
/// line as obstacles for place(), so that no label is placed across it.
std::vector<QRectF> alongLine(const QList<QPointF> &points, qreal thickness = 6, qreal step = 6);

/// Puts the chart's legend, detached, inside `corner` of `area` (the plot), one entry per line, sized to `labels` (the
/// texts of the entries shown): a detached legend's own size hint is a single entry. Returns the legend's rectangle
/// (empty if there are no labels).
QRectF placeLegendInside(QChart *chart, const QStringList &labels, const QRectF &area,
                         Qt::Corner corner = Qt::TopLeftCorner);
/// The rectangle placeLegendInside() gives the legend, without moving it.
QRectF legendRectInside(const QChart *chart, const QStringList &labels, const QRectF &area, Qt::Corner corner);

/// The shown labels among `labels`, each with its text and its rectangle in its parent's (the chart's) coordinates:
/// what a chart's tests read back to check that no two names overlap.
QList<QPair<QString, QRectF>> shownLabels(const std::vector<QGraphicsSimpleTextItem *> &labels);

/// Every drawn line of `chart` (its visible line and spline series) as curves of `placer`: no label across them.
void addCurves(LabelPlacer &placer, QChart *chart);

/// `text` with each of its lines broken at spaces so that none is wider than `width` in `font`: a long message
/// takes more lines instead of being cut ("… 100 % of run…"). A single word wider than `width` stays whole.
QString wrapLines(const QString &text, const QFont &font, qreal width);

/// A block of text (a chart's message or summary) of `size`, `inset` pixels inside the corners of `area`, in the order
/// of `corners`, at the first free place of `placer` (reserved); nullopt when no corner is free.
std::optional<QRectF> placeInCorner(LabelPlacer &placer, const QSizeF &size, const QRectF &area,
                                    const std::vector<Qt::Corner> &corners, qreal inset = 8);

} // namespace plotlabels

} // namespace memwall::ui
