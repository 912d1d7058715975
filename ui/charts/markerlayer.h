#pragma once

#include <QBrush>
#include <QGraphicsObject>
#include <QPainterPath>
#include <QPen>
#include <QPointF>

#include <functional>
#include <vector>

class QAbstractSeries;
class QChart;

namespace memwall::ui {

/// Scatter markers of varying size that MemWall places itself, on top of a chart's series.
///
/// Qt Charts 6.4 loses scatter markers that carry a per-point size (QXYSeries::PointConfiguration::Size): after a
/// replace() some are left where the previous data put them and others vanish, and larger sizes are drawn offset by
/// their radius. A marker here is a value in the coordinates of a reference series, and it is mapped to pixels when
/// it is painted (QChart::mapToPosition), so no data change, zoom, resize or theme change can leave one behind.
///
/// - A marker may instead be pinned to the plot's right edge at its y value (an operator that moves no bytes has
///   infinite intensity): it is drawn there with an arrow pointing right.
/// - Hit testing uses the markers' shapes: hovering a marker emits hovered(), a left click on one emits clicked(),
///   and a press elsewhere passes on to the items below and the view (which pans).
class MarkerLayer : public QGraphicsObject
{
    Q_OBJECT
public:
    /// A marker whose centre lies up to this many pixels outside the plot is still drawn, on the border.
    static constexpr qreal kBorderTolerance = 0.5;

    enum class Shape { Circle, Star };

    struct Marker
    {
        QPointF value;               ///< in the reference series' coordinates (y ignored by the x mapping if pinned)
        qreal diameter = 10;         ///< pixels
        int key = -1;                ///< the caller's id (an operator index), passed back by hovered() and clicked()
        int group = 0;               ///< style and visibility group (an operator class)
        bool pinnedRight = false;    ///< drawn at the plot's right edge with an arrow, at value.y()
        Shape shape = Shape::Circle; ///< a star is a five-pointed one whose points touch the diameter's circle
    };

    MarkerLayer(QChart *chart, QAbstractSeries *reference);

    void setMarkers(std::vector<Marker> markers);
    const std::vector<Marker> &markers() const { return m_markers; }
    void setGroupStyle(int group, const QBrush &brush, const QPen &pen);
    /// Decides whether a group is drawn (e.g. whether its series is switched on in the legend); asked when painting.
    void setGroupVisible(std::function<bool(int group)> visible);

    /// Where marker `i` is painted (chart coordinates), or NaN if it is not drawn (hidden group, outside the plot).
    QPointF centre(std::size_t i) const;
    /// The key of the smallest drawn marker under `pos` (item coordinates = chart coordinates), or -1.
    int keyAt(const QPointF &pos) const;

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

signals:
    void hovered(int key, bool state);
    void clicked(int key);

protected:
    void hoverMoveEvent(QGraphicsSceneHoverEvent *event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *event) override;
    void mousePressEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent *event) override;

private:
    /// What painting marker `i` may touch (chart coordinates), or an empty rectangle if it is not drawn.
    QRectF paintRect(std::size_t i) const;
    /// Where a chart value maps now, as a fingerprint of the mapping: if it differs from the one painted with, every
    /// marker moves, and the whole layer is repainted.
    std::pair<QRectF, QPointF> mapping() const;
    void updateBounds();
    bool drawn(const Marker &m) const;
    QPainterPath markerPath(std::size_t i) const;
    void setHovered(int key);
    /// Paints one marker with `draw` (which draws it whole) inside `clip`, the layer's clip rectangle; `extent` is
    /// what the marker may touch; `circle` false for a star. A large marker on a raster device is drawn in bands of
    /// rows (see the .cpp).
    static void drawMarker(QPainter *painter, const QRectF &clip, const QRectF &extent, bool circle,
                           const std::function<void()> &draw);

    QChart *m_chart;
    QAbstractSeries *m_reference;
    std::vector<Marker> m_markers;
    std::vector<std::size_t> m_paintOrder; ///< largest first, so small markers stay visible on top
    std::vector<std::pair<QBrush, QPen>> m_styles;
    std::function<bool(int)> m_groupVisible;
    QRectF m_bounds;
    QRectF m_boundsArea; ///< the plot area m_bounds was made for
    qreal m_margin = 0;  ///< how far m_bounds reaches beyond it
    /// What the last on-screen paint drew (paintRect() of each drawn marker) and the mapping it drew with: a new set
    /// of markers repaints only those rectangles and its own, not the whole plot (and what overlaps the plot).
    std::vector<QRectF> m_painted;
    std::pair<QRectF, QPointF> m_paintedMapping;
    bool m_paintedOnScreen = false;
    int m_hovered = -1;
    int m_pressed = -1;
};

} // namespace memwall::ui
