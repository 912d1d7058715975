#pragma once

#include <QColor>
#include <QGraphicsObject>
#include <QList>
#include <QPixmap>
#include <QPointer>

#include <vector>

class QAbstractAxis;
class QChart;
class QXYSeries;

namespace memwall::ui {

/// The grid of a chart's value and log axes, drawn by one item with crisp one-pixel lines, in place of the axes'
/// own grid. Qt Charts strokes each grid line as an antialiased item of its own, and those antialiased vertical
/// lines cost a slider tick most of its time (see memwall-bench); this item draws the same lines unantialiased,
/// at the same places (the tick positions of QValueAxis and QLogValueAxis), and below the series.
///
/// adoptAxes() takes over the grid of every value/log axis: Qt's grid lines get an empty pen (they keep their
/// switches, setGridLineVisible() and setMinorGridLineVisible(), which this item follows, and are hidden), and the
/// item follows each axis's range and tick settings. Other axis types (bar categories) keep Qt's grid. The axis
/// line and its tick marks are drawn here as well (Qt's are switched off with setLineVisible(false)), just outside
/// the plot, with the axis's line pen.
///
/// The item also fills the plot area (in place of QChart's plot-area background) and draws the chart's static line
/// series (addStaticSeries(): lines a slider tick does not move, like the roofline's ceilings and slopes), so that
/// on screen the whole picture is one opaque pixmap, drawn again only when the axes, the plot area, the colours or
/// a static series change: a slider tick then copies it instead of stroking a hundred lines (each long antialiased
/// line costs the raster engine a hand-off to its thread pool). Painters other than a raster one at whole-pixel
/// offsets (SVG, PDF, scaled exports) get everything as vectors.
class GridItem : public QGraphicsObject
{
    Q_OBJECT
public:
    explicit GridItem(QChart *chart);

    /// Adopts the chart's value and log axes not yet adopted (call after adding axes; cheap to call again).
    void adoptAxes();
    void setColors(const QColor &background, const QColor &major, const QColor &minor);
    /// Draws `series` (a line series on this chart's value/log axes) as part of the background, antialiased, with
    /// its pen and clipped to the plot area. The series itself gets opacity 0, so Qt Charts skips painting it while
    /// its points, pen, name and visibility stay as they are (and are what is drawn here).
    void addStaticSeries(QXYSeries *series);

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

    /// Tick values (in axis units) of a QValueAxis or QLogValueAxis between its min and max, as Qt Charts places
    /// its labels (major) and minor ticks; empty for other axis types.
    static std::vector<double> majorTicks(const QAbstractAxis *axis);
    static std::vector<double> minorTicks(const QAbstractAxis *axis);
    /// Position (chart coordinates) of `value` on `axis` laid along `area`.
    static double position(const QAbstractAxis *axis, double value, const QRectF &area);

    /// The lines drawn now, in chart coordinates (for tests): vertical lines as x, horizontal ones as y.
    struct Lines
    {
        std::vector<double> majorX, minorX, majorY, minorY;
    };
    Lines lines() const;

private:
    struct Adopted
    {
        QPointer<QAbstractAxis> axis;
    };
    static void silenceQtGrid(QAbstractAxis *axis);
    void follow(QAbstractAxis *axis);
    void changed();
    void hideQtGridItems();
    void staticSeriesTouched();
    /// Everything about the static series that shows in the picture (visibility, pen, points), as bytes.
    QByteArray staticKey() const;
    /// Background, grid and static series of `area` (item coordinates moved by `shift`).
    void paintGrid(QPainter *painter, const QRectF &area, const Lines &lines, const QPointF &shift) const;
    /// The adopted axes' lines and tick marks, outside the plot area (in place of Qt Charts' own).
    void paintAxes(QPainter *painter) const;
    static constexpr double kMajorTick = 4; ///< tick mark lengths (pixels), as Qt Charts draws them
    static constexpr double kMinorTick = 2;

    QChart *m_chart;
    std::vector<Adopted> m_axes;
    std::vector<QPointer<QXYSeries>> m_static;
    QColor m_background{Qt::white};
    QColor m_major{0xe0, 0xe0, 0xe0};
    QColor m_minor{0xf0, 0xf0, 0xf0};
    QRectF m_area;
    QPixmap m_cache;       ///< background and grid of m_area in device pixels, valid while !m_dirty
    QPointF m_cacheAt;     ///< fractional part of the device offset the cache was drawn for
    QByteArray m_cacheKey; ///< staticKey() the cache was drawn for
    bool m_dirty = true;
    bool m_hidePending = false;
};

} // namespace memwall::ui
