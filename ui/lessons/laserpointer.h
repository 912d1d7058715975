#pragma once

#include <QColor>
#include <QPointF>
#include <QWidget>

namespace memwall::ui {

/// A presenter's laser pointer: a translucent red dot that follows the mouse over `target` (drawn on a transparent
/// overlay child that lets every mouse event through, so the chart's own hover tooltips keep working). The dot
/// hides when the mouse leaves the target.
class LaserPointer : public QWidget
{
    Q_OBJECT
public:
    explicit LaserPointer(QWidget *target);

    bool isDotVisible() const { return m_visible; }
    QPointF dotPosition() const { return m_pos; }
    void setColor(const QColor &c);
    /// Dot radius in pixels (the glow reaches twice as far).
    void setRadius(qreal r);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    void moveDot(const QPointF &pos);
    QRectF dotRect(const QPointF &pos) const;

    QWidget *m_target;
    QPointF m_pos;
    bool m_visible = false;
    QColor m_color{220, 20, 20};
    qreal m_radius = 9;
};

} // namespace memwall::ui
