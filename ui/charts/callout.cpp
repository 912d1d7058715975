#include "ui/charts/callout.h"

#include "ui/settings/theme.h"

#include <QChart>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

namespace {
constexpr qreal kPad = 6;     ///< text padding inside the box
constexpr qreal kOffset = 14; ///< distance of the box from the anchor
} // namespace

Callout::Callout(QChart *chart) : QGraphicsItem(chart), m_chart(chart)
{
    setZValue(1000);
    setAcceptedMouseButtons(Qt::NoButton);
    setAcceptHoverEvents(false);
    hide();
}

void Callout::setText(const QString &text)
{
    m_text = text;
    updateGeometry();
}

void Callout::setAnchor(const QPointF &value, QAbstractSeries *series)
{
    m_value = value;
    m_series = series;
    updateGeometry();
}

void Callout::setTheme(const Theme &theme)
{
    m_font = theme.labelFont();
    m_font.setPointSizeF(std::max(8.0, theme.labelPointSize * 0.9));
    m_foreground = theme.foreground;
    m_background = theme.background;
    m_background.setAlpha(240);
    m_border = theme.darkWindow ? theme.grid.lighter(160) : theme.grid.darker(140);
    updateGeometry();
}

void Callout::updateGeometry()
{
    prepareGeometryChange();
    if (!m_series)
        return; // no anchor yet: nothing to place (mapping (0, 0) on a log axis is undefined)
    m_anchorPos = m_chart->mapToPosition(m_value, m_series);
    QFont bold = m_font;
    bold.setBold(true);
    const QStringList lines = m_text.split(QLatin1Char('\n'));
    const QFontMetricsF fm(m_font), fb(bold);
    qreal w = 0;
    for (int i = 0; i < lines.size(); ++i)
        w = std::max(w, (i == 0 ? fb : fm).horizontalAdvance(lines[i]));
    const qreal h = fm.lineSpacing() * lines.size();
    const QSizeF size(w + 2 * kPad, h + 2 * kPad);

    // Prefer above-right of the point; flip to stay inside the plot area.
    const QRectF area = m_chart->plotArea();
    QPointF topLeft(m_anchorPos.x() + kOffset, m_anchorPos.y() - kOffset - size.height());
    if (topLeft.x() + size.width() > area.right())
        topLeft.setX(m_anchorPos.x() - kOffset - size.width());
    if (topLeft.y() < area.top())
        topLeft.setY(m_anchorPos.y() + kOffset);
    topLeft.setX(std::max(topLeft.x(), area.left()));
    setPos(topLeft);
    m_box = QRectF(QPointF(0, 0), size);
    m_textRect = m_box.adjusted(kPad, kPad, -kPad, -kPad);
    update();
}

QRectF Callout::boundingRect() const
{
    const QPointF anchor = mapFromParent(m_anchorPos);
    return m_box.united(QRectF(anchor, QSizeF(1, 1))).adjusted(-2, -2, 2, 2);
}

void Callout::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->setRenderHint(QPainter::Antialiasing);
    const QPointF anchor = mapFromParent(m_anchorPos);
    // Pointer: a thin wedge from the box's nearest corner region to the anchor.
    QPainterPath path;
    path.addRoundedRect(m_box, 5, 5);
    const QPointF c = m_box.center();
    const QPointF dir = anchor - c;
    if (!m_box.contains(anchor)) {
        const QPointF n(-dir.y(), dir.x());
        const qreal len = std::hypot(n.x(), n.y());
        const QPointF side = len > 0 ? n / len * 6 : QPointF();
        QPainterPath wedge;
        wedge.moveTo(c + side);
        wedge.lineTo(anchor);
        wedge.lineTo(c - side);
        wedge.closeSubpath();
        path = path.united(wedge);
    }
    painter->setPen(QPen(m_border, 1));
    painter->setBrush(m_background);
    painter->drawPath(path);

    painter->setPen(m_foreground);
    QFont bold = m_font;
    bold.setBold(true);
    const QFontMetricsF fm(m_font);
    const QStringList lines = m_text.split(QLatin1Char('\n'));
    qreal y = m_textRect.top() + fm.ascent();
    for (int i = 0; i < lines.size(); ++i) {
        painter->setFont(i == 0 ? bold : m_font);
        painter->drawText(QPointF(m_textRect.left(), y), lines[i]);
        y += fm.lineSpacing();
    }
}

} // namespace memwall::ui
