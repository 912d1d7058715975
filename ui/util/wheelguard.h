#pragma once

#include <QObject>

class QWidget;

namespace memwall::ui {

/// Keeps a scrolling wheel from changing settings: the combo boxes, spin boxes and sliders under a widget take the
/// wheel only while they have the keyboard focus (click or Tab to one first). Over an unfocused one the wheel
/// scrolls the scroll area around it, as over a label. Their focus policy becomes Qt::StrongFocus, so the wheel does
/// not give them the focus either (Qt's spin boxes and combo boxes take it on a wheel by default).
class WheelGuard : public QObject
{
    Q_OBJECT
public:
    /// Guards every combo box, spin box and slider under `root` (now: call it once the controls are built).
    static void guardChildren(QWidget *root);
    /// Guards one control.
    static void guard(QWidget *control);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit WheelGuard(QObject *parent) : QObject(parent) {}
    static WheelGuard *instance();
};

} // namespace memwall::ui
