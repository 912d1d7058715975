#include "ui/util/cachedgroupbox.h"

#include <QPaintEvent>
#include <QPainter>
#include <QStyle>

namespace memwall::ui {

namespace {

bool samePainting(const QStyleOptionGroupBox &a, const QStyleOptionGroupBox &b)
{
    return a.rect == b.rect && a.state == b.state && a.direction == b.direction && a.text == b.text &&
           a.textAlignment == b.textAlignment && a.textColor == b.textColor && a.subControls == b.subControls &&
           a.activeSubControls == b.activeSubControls && a.features == b.features && a.lineWidth == b.lineWidth &&
           a.midLineWidth == b.midLineWidth && a.palette.cacheKey() == b.palette.cacheKey() &&
           a.palette.resolveMask() == b.palette.resolveMask();
}

} // namespace

void CachedGroupBox::paintEvent(QPaintEvent *event)
{
    QStyleOptionGroupBox option;
    initStyleOption(&option);
    const qreal ratio = devicePixelRatioF();
    if (m_cache.isNull() || m_cachedStyle != style() || m_cachedRatio != ratio || font() != m_cachedFont ||
        !samePainting(option, m_cachedOption)) {
        m_cache = QPixmap((QSizeF(size()) * ratio).toSize());
        m_cache.setDevicePixelRatio(ratio);
        m_cache.fill(Qt::transparent);
        QPainter painter(&m_cache);
        painter.setFont(font());
        style()->drawComplexControl(QStyle::CC_GroupBox, &option, &painter, this);
        if (!painter.end())
            m_cache = QPixmap(); // painted directly below, and tried again next time
        m_cachedOption = option;
        m_cachedStyle = style();
        m_cachedRatio = ratio;
        m_cachedFont = font();
    }
    QPainter painter(this);
    if (m_cache.isNull()) {
        style()->drawComplexControl(QStyle::CC_GroupBox, &option, &painter, this);
        return;
    }
    for (const QRect &r : event->region())
        painter.drawPixmap(r, m_cache, QRectF(QPointF(r.topLeft()) * ratio, QSizeF(r.size()) * ratio));
}

} // namespace memwall::ui
