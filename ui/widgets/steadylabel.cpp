#include "ui/widgets/steadylabel.h"

#include <QEvent>
#include <QFontMetrics>
#include <QPainter>
#include <QStyle>
#include <QStyleOption>
#include <QTextOption>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

namespace {
constexpr qreal kUnwrapped = 0x01000000; ///< qt_format_text()'s line width for text that does not wrap
}

SteadyLabel::SteadyLabel(QWidget *parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

int SteadyLabel::textFlags() const { return Qt::AlignLeft | Qt::AlignVCenter | (m_wordWrap ? Qt::TextWordWrap : 0); }

QSize SteadyLabel::textSize(const QString &text) const
{
    const QFontMetrics fm = fontMetrics();
    if (m_wordWrap) // the width of the longest line when given room, like QLabel: about 80 characters
        return fm.boundingRect(QRect(0, 0, fm.averageCharWidth() * 80, 100000), textFlags(), text).size();
    return QSize(fm.horizontalAdvance(text), fm.height());
}

qreal SteadyLabel::layOut(qreal lineWidth) const
{
    if (m_laidOut && m_layoutWidth == lineWidth && m_layoutFont == font() && m_layout.text() == m_text)
        return m_layoutHeight;
    QString text = m_text;
    text.replace(QLatin1Char('\n'), QChar::LineSeparator);
    m_layout.clearLayout();
    m_layout.setText(text);
    m_layout.setFont(font());
    QTextOption option;
    option.setTextDirection(layoutDirection());
    option.setAlignment(Qt::AlignLeft);
    if (m_wordWrap)
        option.setWrapMode(QTextOption::WordWrap);
    m_layout.setTextOption(option);
    const qreal leading = QFontMetricsF(font()).leading();
    qreal height = -leading;
    m_layout.beginLayout();
    for (QTextLine line = m_layout.createLine(); line.isValid(); line = m_layout.createLine()) {
        line.setLineWidth(lineWidth);
        height = std::ceil(height + leading); // lines on whole pixels
        line.setPosition(QPointF(0, height));
        height += line.height();
    }
    m_layout.endLayout();
    m_layoutFont = font();
    m_layoutWidth = lineWidth;
    m_layoutHeight = m_layout.lineCount() > 0 ? height : 0;
    m_laidOut = true;
    return m_layoutHeight;
}

void SteadyLabel::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    bool relayout = false;
    if (m_wordWrap) {
        relayout = heightForWidth(width()) != height();
    } else {
        const QSize need = textSize(text);
        relayout = need.width() > m_hint.width() || need.height() != m_hint.height();
        m_hint = QSize(std::max(need.width(), m_hint.width()), need.height());
    }
    if (relayout || !isVisible())
        updateGeometry();
    update();
}

void SteadyLabel::setWordWrap(bool on)
{
    if (on == m_wordWrap)
        return;
    m_wordWrap = on;
    setSizePolicy(QSizePolicy::Preferred, on ? QSizePolicy::Preferred : QSizePolicy::Fixed);
    updateGeometry();
    update();
}

void SteadyLabel::setMinimumLines(int lines)
{
    m_minimumLines = std::max(1, lines);
    updateGeometry();
}

QSize SteadyLabel::sizeHint() const
{
    if (m_wordWrap)
        return textSize(m_text);
    return QSize(std::max(m_hint.width(), textSize(m_text).width()), fontMetrics().height());
}

QSize SteadyLabel::minimumSizeHint() const
{
    if (m_wordWrap) // one word per line at worst; the layout asks heightForWidth for the real height
        return QSize(fontMetrics().averageCharWidth() * 10, fontMetrics().height());
    return sizeHint();
}

int SteadyLabel::heightForWidth(int width) const
{
    if (!m_wordWrap)
        return sizeHint().height();
    const QFontMetrics fm = fontMetrics();
    // As QFontMetrics::boundingRect() of a 100000-pixel-high rectangle: the lines centred in it, then whole pixels.
    constexpr qreal room = 100000;
    const qreal lines = layOut(std::max(width, 1));
    const int h = QRectF(0, (room - lines) / 2, 1, lines).toAlignedRect().height();
    return std::max(h, fm.height() + (m_minimumLines - 1) * fm.lineSpacing());
}

void SteadyLabel::paintEvent(QPaintEvent *)
{
    if (m_text.isEmpty())
        return;
    // What QStyle::drawItemText() paints (its pen, and qt_format_text()'s placement), from the kept layout.
    QPainter p(this);
    QStyleOption opt;
    opt.initFrom(this);
    p.setPen(opt.palette.color(isEnabled() ? QPalette::Normal : QPalette::Disabled, QPalette::WindowText));
    p.setClipRect(rect(), Qt::IntersectClip);
    layOut(m_wordWrap ? std::max(0, width()) : kUnwrapped);
    // Painting stops at the first line that reaches the bottom; the lines drawn are centred.
    int shown = 0;
    qreal lines = 0;
    while (shown < m_layout.lineCount()) {
        const QTextLine line = m_layout.lineAt(shown++);
        lines = line.y() + line.height();
        if (lines >= height())
            break;
    }
    const QPointF at(0, (height() - lines) / 2);
    for (int i = 0; i < shown; ++i)
        m_layout.lineAt(i).draw(&p, at);
}

void SteadyLabel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange ||
        event->type() == QEvent::LayoutDirectionChange) {
        m_hint = QSize(); // measured in the old font
        m_laidOut = false;
        updateGeometry();
    }
}

} // namespace memwall::ui
