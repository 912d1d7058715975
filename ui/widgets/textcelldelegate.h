#pragma once

#include <QFont>
#include <QHash>
#include <QStaticText>
#include <QStyledItemDelegate>

namespace memwall::ui {

/// Paints a plain-text cell as QStyledItemDelegate does (background, selection, focus and colours from the style
/// and the model's roles, the text aligned and elided the same way), but lays the text out once per distinct
/// string and font (QStaticText) where the style lays it out three times on every paint (to measure it, to elide
/// it and to draw it). A slider tick repaints most cells of the operator table (memwall-bench).
///
/// Cells with an icon or a check box, or rich painting needs, go to QStyledItemDelegate unchanged.
class TextCellDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    const QStaticText &laidOut(const QString &text, const QFont &font) const;

    mutable QHash<QString, QStaticText> m_texts; ///< of m_font; dropped when the font changes or it grows large
    mutable QFont m_font;
};

} // namespace memwall::ui
