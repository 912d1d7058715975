#pragma once

#include <QFont>
#include <QString>
#include <QTextLayout>
#include <QWidget>

namespace memwall::ui {

/// A plain-text label for figures that change on every slider tick. Unlike QLabel, setText() does not ask the
/// window for a new layout unless the text needs more room than it has (or, word-wrapped, a different number of
/// lines): a new figure then repaints this one widget instead of re-laying out the window and repainting every
/// dock. It never shrinks while shown, so figures do not jump sideways as they change.
///
/// The text is shaped once per string, font and width (a QTextLayout kept between calls) and painted as
/// QStyle::drawItemText() paints it: where the style would shape it again to measure it, for heightForWidth(),
/// and to paint it, at every tick of a drag.
class SteadyLabel : public QWidget
{
    Q_OBJECT
public:
    explicit SteadyLabel(QWidget *parent = nullptr);

    QString text() const { return m_text; }
    /// The width the texts set since the last font change needed, as setText() measured them (no shaping here): 0
    /// before any, and for a word-wrapped label.
    int measuredWidth() const { return m_hint.width(); }
    void setText(const QString &text);
    void setWordWrap(bool on);
    bool wordWrap() const { return m_wordWrap; }
    /// Word-wrapped: reserve at least this many lines, so that a text wrapping onto one line more or less does not
    /// move what is under the label (the chart tabs jumped 14 px while a slider was dragged).
    void setMinimumLines(int lines);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return m_wordWrap; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    QSize textSize(const QString &text) const;
    int textFlags() const;
    /// m_text laid out in lines of `lineWidth` as qt_format_text() lays out QPainter::drawText(rect, flags, text):
    /// lines on whole pixels, a font leading between them. Returns the height of all the lines.
    qreal layOut(qreal lineWidth) const;

    mutable QTextLayout m_layout; ///< m_text in m_layoutFont at m_layoutWidth
    mutable QFont m_layoutFont;
    mutable qreal m_layoutWidth = -1;
    mutable qreal m_layoutHeight = 0;
    mutable bool m_laidOut = false;

    QString m_text;
    bool m_wordWrap = false;
    int m_minimumLines = 1;
    QSize m_hint; ///< what the layout was last told; grows, never shrinks (see above)
};

} // namespace memwall::ui
