#include "ui/util/wheelguard.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QScrollBar>
#include <QWheelEvent>

namespace memwall::ui {

WheelGuard *WheelGuard::instance()
{
    // One filter for the whole application, owned by it.
    static WheelGuard *guard = new WheelGuard(qApp);
    return guard;
}

void WheelGuard::guard(QWidget *control)
{
    control->setFocusPolicy(Qt::StrongFocus);
    control->installEventFilter(instance());
}

void WheelGuard::guardChildren(QWidget *root)
{
    for (QWidget *w : root->findChildren<QWidget *>()) {
        // A scroll bar is a slider too, but scrolling is its job.
        const bool slider = qobject_cast<QAbstractSlider *>(w) && !qobject_cast<QScrollBar *>(w);
        if (slider || qobject_cast<QComboBox *>(w) || qobject_cast<QAbstractSpinBox *>(w))
            guard(w);
    }
}

bool WheelGuard::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::Wheel)
        return QObject::eventFilter(watched, event);
    auto *control = qobject_cast<QWidget *>(watched);
    const QWidget *focus = QApplication::focusWidget();
    if (!control || control->hasFocus() || (focus && control->isAncestorOf(focus)))
        return false; // a focused control takes the wheel
    // Hand the wheel to the nearest scroll area (the Controls panel's), which scrolls as it would over a label.
    QWidget *area = control->parentWidget();
    while (area && !qobject_cast<QAbstractScrollArea *>(area))
        area = area->parentWidget();
    auto *wheel = static_cast<QWheelEvent *>(event);
    if (area) {
        QWidget *viewport = static_cast<QAbstractScrollArea *>(area)->viewport();
        QWheelEvent forwarded(viewport->mapFromGlobal(wheel->globalPosition()), wheel->globalPosition(),
                              wheel->pixelDelta(), wheel->angleDelta(), wheel->buttons(), wheel->modifiers(),
                              wheel->phase(), wheel->inverted(), wheel->source());
        QCoreApplication::sendEvent(viewport, &forwarded);
    }
    return true; // never the control's
}

} // namespace memwall::ui
