#pragma once

#include <QMargins>
#include <QRect>

namespace memwall::ui {

/// Where a window goes so that the whole of it, its frame included, is on a screen: `wanted` is the window's own
/// rectangle (without the frame), `available` the screen's free area (QScreen::availableGeometry(): without panels
/// and docks) and `frame` the window manager's frame around the window (its title bar on top). The result is
/// `wanted` shrunk to what the free area holds with the frame, then moved the least so that it lies inside; a
/// `wanted` that fits is returned as it is. A 1600×1000 window on a 1280×720 screen becomes 1280×720 less the frame.
QRect fitToScreen(const QRect &wanted, const QRect &available, const QMargins &frame = {});

/// `size` centred on the free area `available`, then fitted to it (fitToScreen()): the first window's place.
QRect centredOnScreen(const QSize &size, const QRect &available, const QMargins &frame = {});

} // namespace memwall::ui
