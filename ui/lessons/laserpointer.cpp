#include "ui/lessons/laserpointer.h"

#include <QEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QRadialGradient>

namespace memwall::ui {

LaserPointer::LaserPointer(QWidget *target) : QWidget(target), m_target(target)
{
    setObjectName("laserPointer");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setAttribute(Qt::WA_TranslucentBackground);
    setFocusPolicy(Qt::NoFocus);
    target->setMouseTracking(true);
    target->installEventFilter(this);
    setGeometry(target->rect());
    raise();
    show();
}

void LaserPointer::setColor(const QColor &c)
{
    m_color = c;
    update();
}

void LaserPointer::setRadius(qreal r)
{
    m_radius = r;
    update();
}

QRectF LaserPointer::dotRect(const QPointF &pos) const
{
    const qreal reach = 2 * m_radius + 2;
    return {pos.x() - reach, pos.y() - reach, 2 * reach, 2 * reach};
}

void LaserPointer::moveDot(const QPointF &pos)
{
    const QRectF old = dotRect(m_pos);
    m_pos = pos;
    if (m_visible)
        update(old.toAlignedRect());
    m_visible = true;
    update(dotRect(m_pos).toAlignedRect());
}

bool LaserPointer::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_target) {
        switch (event->type()) {
        case QEvent::MouseMove: moveDot(static_cast<QMouseEvent *>(event)->position()); break;
        case QEvent::Leave:
            if (m_visible) {
                m_visible = false;
                update(dotRect(m_pos).toAlignedRect());
            }
            break;
        case QEvent::Resize:
            setGeometry(m_target->rect());
            raise();
            break;
        default: break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void LaserPointer::paintEvent(QPaintEvent *)
{
    if (!m_visible)
        return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QRadialGradient glow(m_pos, 2 * m_radius);
    QColor core = m_color;
    core.setAlpha(190);
    QColor halo = m_color;
    halo.setAlpha(70);
    QColor none = m_color;
    none.setAlpha(0);
    glow.setColorAt(0.0, core);
    glow.setColorAt(0.45, core);
    glow.setColorAt(0.55, halo);
    glow.setColorAt(1.0, none);
    p.setPen(Qt::NoPen);
    p.setBrush(glow);
    p.drawEllipse(m_pos, 2 * m_radius, 2 * m_radius);
}

} // namespace memwall::ui
