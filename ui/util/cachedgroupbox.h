#pragma once

#include <QFont>
#include <QGroupBox>
#include <QPixmap>
#include <QStyleOptionGroupBox>

namespace memwall::ui {

/// A QGroupBox that keeps its painted frame and title in a pixmap and repaints from it.
///
/// A group box is not opaque, so every repaint of a child (the batch slider and its spin box at each tick of a
/// drag) repaints the box beneath it too, and the Fusion style loads its frame image from the resources each time
/// (a file-time check included): about 4 % of a slider tick in memwall-bench. The pixmap is drawn again only when
/// what the style would paint can differ: size, device pixel ratio, title, state, palette, font or style.
class CachedGroupBox : public QGroupBox
{
public:
    using QGroupBox::QGroupBox;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QPixmap m_cache;
    QStyleOptionGroupBox m_cachedOption; ///< what m_cache was painted from
    const QStyle *m_cachedStyle = nullptr;
    qreal m_cachedRatio = 0;
    QFont m_cachedFont;
};

} // namespace memwall::ui
