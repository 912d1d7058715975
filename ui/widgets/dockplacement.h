#pragma once

class QDockWidget;
class QMainWindow;

namespace memwall::ui {

/// Shows `dock` beside the charts where the window has room for it beside its other docks and the headline's
/// figures; in a window too narrow (a 1024×768 projector) it takes the place of the first visible dock on the left,
/// as a tab, so that the charts keep their width and the window need not grow off the screen. Returns the dock it
/// was tabbed over (raise it again when `dock` is done), or nullptr. A floating or already visible dock is only
/// raised.
QDockWidget *showDockWhereRoom(QMainWindow *window, QDockWidget *dock);

} // namespace memwall::ui
