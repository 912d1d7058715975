#pragma once

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QPointF>
#include <QRectF>
#include <QString>

class QChart;
class QAbstractSeries;

namespace memwall::ui {

struct Theme;

/// A tooltip drawn inside a chart (the Qt Charts "callout" pattern): a rounded box with a few lines of text and a
/// pointer to the data point it describes. Lives as a child item of the chart, so it also appears in exports and
/// follows zoom and resize (call updateGeometry() when the plot area changes). Hidden until show() is called.
class Callout : public QGraphicsItem
{
public:
    explicit Callout(QChart *chart);

    /// Multi-line text ("\n" separates lines; the first line is drawn bold).
    void setText(const QString &text);
    QString text() const { return m_text; }
    /// The data point (in `series` coordinates) the callout points at.
    void setAnchor(const QPointF &value, QAbstractSeries *series);
    QPointF anchor() const { return m_value; }
    /// Colours and font from the theme.
    void setTheme(const Theme &theme);
    /// Recomputes the position from the anchor (after zoom, pan or resize).
    void updateGeometry();

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    QChart *m_chart;
    QAbstractSeries *m_series = nullptr;
    QString m_text;
    QPointF m_value;
    QPointF m_anchorPos; ///< in chart coordinates
    QRectF m_textRect;   ///< in item coordinates
    QRectF m_box;        ///< in item coordinates
    QFont m_font;
    QColor m_background{255, 255, 255, 235};
    QColor m_foreground{Qt::black};
    QColor m_border{Qt::darkGray};
};

} // namespace memwall::ui
