#include "ui/widgets/textcelldelegate.h"

#include <QApplication>
#include <QPainter>
#include <QStyle>

namespace memwall::ui {

namespace {
constexpr qsizetype kMaxCached = 4096; ///< strings; a slider drag makes new figures at every tick

/// Characters of the figures the tables show (digits, signs, SI prefixes and units): no font forms a ligature of
/// them (those start with f), and their pairs are not kerned in the fonts Qt ships with or Debian's defaults.
bool figureCharacter(char16_t c)
{
    if (c >= u'0' && c <= u'9')
        return true;
    switch (c) {
    case u' ':
    case u'.':
    case u',':
    case u'+':
    case u'-':
    case u'%':
    case u'(':
    case u')':
    case u'/':
    case u'e':
    case u'k':
    case u'K':
    case u'M':
    case u'G':
    case u'T':
    case u'P':
    case u'E':
    case u'B':
    case u's':
    case u'm':
    case u'n':
    case u'u':
    case u'x':
    case u'\u00b5':
    case u'\u00d7':
    case u'\u2212':
    case u'\u2009':
    case u'\u202f': return true;
    default: return false;
    }
}
} // namespace

bool TextCellDelegate::setAsGlyphs(const QString &text, Line &line) const
{
    if (!m_raw.isValid())
        return false;
    QList<quint32> indexes;
    QList<QPointF> positions;
    indexes.reserve(text.size());
    positions.reserve(text.size());
    qreal x = 0;
    for (const QChar ch : text) {
        const char16_t c = ch.unicode();
        if (!figureCharacter(c))
            return false;
        auto it = m_glyph.find(c);
        if (it == m_glyph.end()) {
            const QList<quint32> found = m_raw.glyphIndexesForString(QString(ch));
            Glyph g;
            if (found.size() == 1 && found.front() != 0) {
                g.index = found.front();
                g.advance = m_raw.advancesForGlyphIndexes(found).value(0).x();
            }
            it = m_glyph.insert(c, g);
        }
        if (it->index == 0)
            return false; // not in this font: the shaper finds a fallback font
        indexes.push_back(it->index);
        positions.push_back({x, m_raw.ascent()});
        x += it->advance;
    }
    line.glyphs.setRawFont(m_raw);
    line.glyphs.setGlyphIndexes(indexes);
    line.glyphs.setPositions(positions);
    line.size = QSizeF(x, m_raw.ascent() + m_raw.descent());
    return true;
}

const TextCellDelegate::Line &TextCellDelegate::laidOut(const QString &text, const QFont &font) const
{
    if (font != m_font || m_texts.size() >= kMaxCached) {
        m_texts.clear();
        if (font != m_font || !m_raw.isValid()) {
            m_font = font;
            m_raw = QRawFont::fromFont(font);
            m_glyph.clear();
        }
    }
    auto it = m_texts.find(text);
    if (it == m_texts.end()) {
        Line line;
        if (!setAsGlyphs(text, line)) {
            line.text = QStaticText(text);
            line.text.setTextFormat(Qt::PlainText);
            line.text.prepare(QTransform(), font);
            line.size = line.text.size();
        }
        it = m_texts.insert(text, line);
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
    const QPen textPen(opt.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text));
    const Line &line = laidOut(text, opt.font);
    const QSizeF size = line.size;
    if (size.width() > r.width()) {
        // Too wide: elided as the style would, and clipped to the cell (rare; the columns fit their contents).
        painter->save();
        painter->setPen(textPen);
        painter->setFont(opt.font);
        painter->setClipRect(opt.rect, Qt::IntersectClip);
        const QString elided = opt.fontMetrics.elidedText(text, opt.textElideMode, r.width());
        painter->drawText(r, static_cast<int>(opt.displayAlignment) | Qt::TextSingleLine, elided);
        painter->restore();
        return;
    }
    // A text inside the cell needs no clip: setting one (intersected with the view's clip region, the painter saved
    // and restored around it) cost more than drawing a figure's glyphs. Only the pen and font are set, and put back.
    // As QCommonStyle places a one-line QTextLayout: the block's top is aligned in whole pixels, the line inside it
    // at the fractional offset its text alignment gives.
    const bool clip = size.height() > opt.rect.height(); // a row lower than its font (never at the default height)
    const QPen oldPen = painter->pen();
    const QFont oldFont = painter->font();
    if (clip) {
        painter->save();
        painter->setClipRect(opt.rect, Qt::IntersectClip);
    }
    painter->setPen(textPen);
    painter->setFont(opt.font);
    const QRect block = QStyle::alignedRect(opt.direction, opt.displayAlignment, size.toSize(), r);
    const Qt::Alignment h = QStyle::visualAlignment(opt.direction, opt.displayAlignment) & Qt::AlignHorizontal_Mask;
    const qreal spare = r.width() - size.width();
    const qreal x = r.left() + ((h & Qt::AlignRight) ? spare : (h & Qt::AlignHCenter) ? spare / 2 : 0);
    const QPointF at(x, block.top());
    if (line.glyphs.isEmpty())
        painter->drawStaticText(at, line.text);
    else
        painter->drawGlyphRun(at, line.glyphs);
    if (clip) {
        painter->restore();
        return;
    }
    painter->setPen(oldPen);
    painter->setFont(oldFont);
}

} // namespace memwall::ui
