#include "ui/util/windowfit.h"

#include <algorithm>

namespace memwall::ui {

QRect fitToScreen(const QRect &wanted, const QRect &available, const QMargins &frame)
{
    // The room for the window itself: the free area less the frame.
    const QRect room = available.marginsRemoved(frame);
    if (room.isEmpty())
        return wanted;
    QRect r(wanted.topLeft(), wanted.size().boundedTo(room.size()));
    // Moved the least: first so that the right and bottom edges are in, then the left and top (which win).
    r.moveRight(std::min(r.right(), room.right()));
    r.moveBottom(std::min(r.bottom(), room.bottom()));
    r.moveLeft(std::max(r.left(), room.left()));
    r.moveTop(std::max(r.top(), room.top()));
    return r;
}

QRect centredOnScreen(const QSize &size, const QRect &available, const QMargins &frame)
{
    QRect r(QPoint(), size);
    r.moveCenter(available.marginsRemoved(frame).center());
    return fitToScreen(r, available, frame);
}

} // namespace memwall::ui
