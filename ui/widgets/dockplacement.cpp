#include "ui/widgets/dockplacement.h"

#include "ui/widgets/headlinebar.h"

#include <QDockWidget>
#include <QMainWindow>

#include <algorithm>

namespace memwall::ui {

namespace {
/// The width the window needs to show `dock` beside what it shows now: its own minimum, what the headline's figures
/// want beyond the central widget's minimum (the headline's width follows the window's), and the dock's.
int widthNeeded(const QMainWindow *window, const QDockWidget *dock)
{
    int headline = 0;
    for (const HeadlineBar *h : window->findChildren<HeadlineBar *>())
        headline = std::max(headline, h->minimumSizeHint().width());
    const QWidget *central = window->centralWidget();
    const int centralMin = central ? central->minimumSizeHint().width() : 0;
    return window->minimumSizeHint().width() + std::max(0, headline - centralMin) + dock->minimumSizeHint().width();
}
} // namespace

QDockWidget *showDockWhereRoom(QMainWindow *window, QDockWidget *dock)
{
    QDockWidget *shared = nullptr;
    if (dock->isHidden() && !dock->isFloating() && window->width() < widthNeeded(window, dock))
        for (QDockWidget *d : window->findChildren<QDockWidget *>())
            if (d != dock && d->isVisible() && !d->isFloating() &&
                window->dockWidgetArea(d) == Qt::LeftDockWidgetArea) {
                window->tabifyDockWidget(d, dock);
                shared = d;
                break;
            }
    dock->show();
    dock->raise();
    return shared;
}

} // namespace memwall::ui
