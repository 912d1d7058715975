#pragma once

#include <QFont>
#include <QGlyphRun>
#include <QHash>
#include <QRawFont>
#include <QSizeF>
#include <QStaticText>
#include <QStyledItemDelegate>

namespace memwall::ui {

/// Paints a plain-text cell as QStyledItemDelegate does (background, selection, focus and colours from the style
/// and the model's roles, the text aligned and elided the same way), but lays the text out once per distinct
/// string and font (QStaticText) where the style lays it out three times on every paint (to measure it, to elide
/// it and to draw it). A slider tick repaints most cells of the operator table (memwall-bench).
///
/// Figures ("12.3 GB", "4.56 ms", "87.5 %": digits and unit letters, which no font joins or kerns) skip the text
/// shaper altogether: they are set glyph by glyph from a per-character table of the font (QGlyphRun), where a new
/// string costs a table look-up per character instead of a shaping pass. A slider drag makes new figures at every
/// tick, so this is most of the table's text.
///
/// Cells with an icon or a check box, or rich painting needs, go to QStyledItemDelegate unchanged.
class TextCellDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    /// A string laid out in one font: as glyphs placed by hand (figures), or by the text shaper (anything else).
    struct Line
    {
        QGlyphRun glyphs; ///< set when the string is a figure
        QStaticText text; ///< otherwise
        QSizeF size;
    };
    struct Glyph
    {
        quint32 index = 0;
        qreal advance = 0;
    };
    const Line &laidOut(const QString &text, const QFont &font) const;
    bool setAsGlyphs(const QString &text, Line &line) const;

    mutable QHash<QString, Line> m_texts; ///< of m_font; dropped when the font changes or it grows large
    mutable QFont m_font;
    mutable QRawFont m_raw;                 ///< m_font's glyphs
    mutable QHash<char16_t, Glyph> m_glyph; ///< of m_raw, per character of a figure
};

} // namespace memwall::ui
