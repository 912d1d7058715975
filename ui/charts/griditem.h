#pragma once

#include <QColor>
#include <QGraphicsObject>
#include <QList>
#include <QPointer>

#include <vector>

class QAbstractAxis;
class QChart;

namespace memwall::ui {

/// The grid of a chart's value and log axes, drawn by one item with crisp one-pixel lines, in place of the axes'
/// own grid. Qt Charts strokes each grid line as an antialiased item of its own, and those antialiased vertical
/// lines cost a slider tick most of its time (see memwall-bench); this item draws the same lines unantialiased,
/// at the same places (the tick positions of QValueAxis and QLogValueAxis), and below the series.
///
/// adoptAxes() takes over the grid of every value/log axis: Qt's grid lines get an empty pen (they keep their
/// switches, setGridLineVisible() and setMinorGridLineVisible(), which this item follows), and the item follows
/// each axis's range and tick settings. Other axis types (bar categories) keep Qt's grid.
class GridItem : public QGraphicsObject
{
    Q_OBJECT
public:
    explicit GridItem(QChart *chart);

    /// Adopts the chart's value and log axes not yet adopted (call after adding axes; cheap to call again).
    void adoptAxes();
    void setColors(const QColor &major, const QColor &minor);

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

    QChart *m_chart;
    std::vector<Adopted> m_axes;
    QColor m_major{0xe0, 0xe0, 0xe0};
    QColor m_minor{0xf0, 0xf0, 0xf0};
    QRectF m_area;
};

} // namespace memwall::ui
