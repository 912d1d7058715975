#include "ui/widgets/steadylabel.h"

#include <QEvent>
#include <QFontMetrics>
#include <QPainter>
#include <QStyle>
#include <QStyleOption>

namespace memwall::ui {

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
    const QRect r = fm.boundingRect(QRect(0, 0, std::max(width, 1), 100000), textFlags(), m_text);
    return std::max(r.height(), fm.height() + (m_minimumLines - 1) * fm.lineSpacing());
}

void SteadyLabel::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    QStyleOption opt;
    opt.initFrom(this);
    style()->drawItemText(&p, rect(), textFlags(), opt.palette, isEnabled(), m_text, QPalette::WindowText);
}

void SteadyLabel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) {
        m_hint = QSize(); // measured in the old font
        updateGeometry();
    }
}

} // namespace memwall::ui
