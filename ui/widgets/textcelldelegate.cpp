#include "ui/widgets/textcelldelegate.h"

#include <QApplication>
#include <QPainter>
#include <QStyle>

namespace memwall::ui {

namespace {
constexpr qsizetype kMaxCached = 4096; ///< strings; a slider drag makes new figures at every tick
}

const QStaticText &TextCellDelegate::laidOut(const QString &text, const QFont &font) const
{
    if (font != m_font || m_texts.size() >= kMaxCached) {
        m_texts.clear();
        m_font = font;
    }
    auto it = m_texts.find(text);
    if (it == m_texts.end()) {
        QStaticText st(text);
        st.setTextFormat(Qt::PlainText);
        st.prepare(QTransform(), font);
        it = m_texts.insert(text, st);
    }
    return *it;
}

void TextCellDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    if (!opt.icon.isNull() || (opt.features & QStyleOptionViewItem::HasCheckIndicator) ||
        (opt.features & QStyleOptionViewItem::WrapText) || opt.text.contains(QLatin1Char('\n'))) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    const QWidget *widget = opt.widget;
    const QStyle *style = widget ? widget->style() : QApplication::style();
    const QPalette::ColorGroup group = !(opt.state & QStyle::State_Enabled) ? QPalette::Disabled
                                       : (opt.state & QStyle::State_Active) ? QPalette::Normal
                                                                            : QPalette::Inactive;
    const bool selected = opt.state & QStyle::State_Selected;
    // Background and selection, then the focus frame, as QCommonStyle's CE_ItemViewItem draws them.
    // (Only when there is one: the style works out its palette's shades on every call, for every cell.)
    if (selected || opt.backgroundBrush.style() != Qt::NoBrush)
        style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, widget);
    if (opt.state & QStyle::State_HasFocus) {
        QStyleOptionFocusRect focus;
        focus.QStyleOption::operator=(opt);
        focus.rect = style->subElementRect(QStyle::SE_ItemViewItemFocusRect, &opt, widget);
        focus.state |= QStyle::State_KeyboardFocusChange | QStyle::State_Item;
        focus.backgroundColor = opt.palette.color(group, selected ? QPalette::Highlight : QPalette::Window);
        style->drawPrimitive(QStyle::PE_FrameFocusRect, &focus, painter, widget);
    }
    const QString &text = opt.text;
    if (text.isEmpty())
        return;

    // The text rectangle and colour as QCommonStyle's item view text: a focus-frame margin and one pixel each side.
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
    const QRect r = opt.rect.adjusted(margin, 0, -margin, 0);
    painter->save();
    painter->setPen(opt.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text));
    painter->setFont(opt.font);
    painter->setClipRect(opt.rect, Qt::IntersectClip);
    const QStaticText &st = laidOut(text, opt.font);
    const QSizeF size = st.size();
    if (size.width() > r.width()) {
        // Too wide: elided as the style would (rare; the columns fit their contents).
        const QString elided = opt.fontMetrics.elidedText(text, opt.textElideMode, r.width());
        painter->drawText(r, static_cast<int>(opt.displayAlignment) | Qt::TextSingleLine, elided);
    } else {
        const QRect aligned =
            QStyle::alignedRect(opt.direction, opt.displayAlignment, size.toSize().expandedTo({1, 1}), r);
        const qreal y =
            (opt.displayAlignment & Qt::AlignVCenter) ? r.top() + (r.height() - size.height()) / 2 : aligned.top();
        painter->drawStaticText(QPointF(aligned.left(), y), st);
    }
    painter->restore();
}

} // namespace memwall::ui
