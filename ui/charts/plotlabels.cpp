#include "ui/charts/plotlabels.h"

#include "ui/charts/labelplacer.h"

#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QXYSeries>

#include <algorithm>
#include <array>
#include <cmath>

namespace memwall::ui::plotlabels {

std::vector<std::optional<QRectF>> place(const std::vector<Request> &requests, const QRectF &area,
                                         const std::vector<QRectF> &obstacles)
{
    LabelPlacer placer(area, 0);
    for (const QRectF &o : obstacles)
        placer.addObstacle(o);
    std::vector<std::optional<QRectF>> out;
    out.reserve(requests.size());
    for (const Request &r : requests) {
        const qreal w = r.size.width(), h = r.size.height();
        const QPointF a = r.anchor;
        std::optional<QRectF> chosen;
        const int rings = r.mayMoveAway ? 8 : 1;
        for (int ring = 1; ring <= rings && !chosen; ++ring) {
            const qreal c = r.clearance * ring, d = c * 0.7;
            // Right, left, above, below, then the corners (the corners clear the marker diagonally).
            chosen = placer.place(r.size, {QPointF(a.x() + c, a.y() - h / 2), QPointF(a.x() - c - w, a.y() - h / 2),
                                           QPointF(a.x() - w / 2, a.y() - c - h), QPointF(a.x() - w / 2, a.y() + c),
                                           QPointF(a.x() + d, a.y() - d - h), QPointF(a.x() - d - w, a.y() - d - h),
                                           QPointF(a.x() + d, a.y() + d), QPointF(a.x() - d - w, a.y() + d)});
        }
        out.push_back(chosen);
    }
    return out;
}

std::vector<QRectF> alongLine(const QList<QPointF> &points, qreal thickness, qreal step)
{
    std::vector<QRectF> out;
    for (qsizetype i = 1; i < points.size(); ++i) {
        const QPointF a = points[i - 1], b = points[i];
        const qreal length = QLineF(a, b).length();
        const int n = std::max(1, static_cast<int>(std::ceil(length / step)));
        for (int k = 0; k <= n; ++k) {
            const QPointF p = a + (b - a) * (static_cast<qreal>(k) / n);
            out.emplace_back(p - QPointF(thickness / 2, thickness / 2), QSizeF(thickness, thickness));
        }
    }
    return out;
}

QRectF legendRectInside(const QChart *chart, const QStringList &labels, const QRectF &area, Qt::Corner corner)
{
    // A detached legend's size hint is a single entry, and its layout wraps into a new column when the geometry is
    // not tall enough for the next entry, so the size is computed here from the labels: one entry per line, each as
    // wide as Qt Charts makes it (marker of half a line height, margins of 3 px, 4 px gap, text with its margins).
    const QLegend *legend = chart->legend();
    const QFontMetricsF fm(legend->font());
    qreal width = 0, height = 0;
    for (const QString &label : labels) {
        width = std::max(width, fm.horizontalAdvance(label) + fm.height() / 2 + 6 + 4 + 1 + 8);
        height += fm.height() + 6 + 4;
    }
    if (height <= 0 || area.isEmpty())
        return {};
    // The layout's margins (the style's, 9 px here) surround the entries; its wrap test counts the bottom one twice.
    qreal left = 0, top = 0, right = 0, bottom = 0;
    if (legend->layout())
        legend->layout()->getContentsMargins(&left, &top, &right, &bottom);
    const qreal inset = fm.height() * 0.5;
    const QSizeF size(std::min(area.width() - 2 * inset, width + left + right + fm.averageCharWidth()),
                      std::min(area.height() - 2 * inset, height + top + 2 * bottom + fm.height() * 0.3));
    QRectF r(area.topLeft() + QPointF(inset, inset), size);
    if (corner == Qt::BottomLeftCorner || corner == Qt::BottomRightCorner)
        r.moveBottom(area.bottom() - inset);
    if (corner == Qt::TopRightCorner || corner == Qt::BottomRightCorner)
        r.moveRight(area.right() - inset);
    return r;
}

QRectF placeLegendInside(QChart *chart, const QStringList &labels, const QRectF &area, Qt::Corner corner)
{
    const QRectF r = legendRectInside(chart, labels, area, corner);
    QLegend *legend = chart->legend();
    if (!r.isEmpty() && legend->geometry() != r) {
        legend->setGeometry(r);
        legend->update();
    }
    return r;
}

QList<QPair<QString, QRectF>> shownLabels(const std::vector<QGraphicsSimpleTextItem *> &labels)
{
    QList<QPair<QString, QRectF>> out;
    for (const QGraphicsSimpleTextItem *l : labels)
        if (l->isVisible())
            out.append({l->text(), l->mapRectToParent(l->boundingRect())});
    return out;
}

void addCurves(LabelPlacer &placer, QChart *chart)
{
    for (QAbstractSeries *s : chart->series()) {
        const auto *xy = qobject_cast<const QXYSeries *>(s);
        if (!xy || !xy->isVisible() || xy->type() == QAbstractSeries::SeriesTypeScatter || xy->count() < 2)
            continue;
        QPolygonF line;
        line.reserve(xy->count());
        for (const QPointF &p : xy->points())
            line << chart->mapToPosition(p, s);
        placer.addCurve(line);
    }
}

QString wrapLines(const QString &text, const QFont &font, qreal width)
{
    const QFontMetricsF fm(font);
    QStringList out;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        QString current;
        for (const QString &word : line.split(QLatin1Char(' '))) {
            const QString longer = current.isEmpty() ? word : current + QLatin1Char(' ') + word;
            if (!current.isEmpty() && fm.horizontalAdvance(longer) > width) {
                out << current;
                current = word;
            } else {
                current = longer;
            }
        }
        out << current;
    }
    return out.join(QLatin1Char('\n'));
}

std::optional<QRectF> placeInCorner(LabelPlacer &placer, const QSizeF &size, const QRectF &area,
                                    const std::vector<Qt::Corner> &corners, qreal inset)
{
    std::vector<QPointF> at;
    for (Qt::Corner c : corners) {
        const bool right = c == Qt::TopRightCorner || c == Qt::BottomRightCorner;
        const bool bottom = c == Qt::BottomLeftCorner || c == Qt::BottomRightCorner;
        at.emplace_back(right ? area.right() - inset - size.width() : area.left() + inset,
                        bottom ? area.bottom() - inset - size.height() : area.top() + inset);
    }
    return placer.place(size, at);
}

} // namespace memwall::ui::plotlabels
