#pragma once

#include <QAction>
#include <QEvent>
#include <QKeyEvent>
#include <QKeySequence>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QWidget>

namespace memwall::ui {

/// Makes the shortcuts of some window actions win over the focused widget's own key bindings. A line edit (the
/// device and model pickers are editable combo boxes) claims Ctrl+E, "end of line", through a ShortcutOverride
/// event, so without this Ctrl+E does nothing while a picker has focus. Filter the window's events with it:
/// `window->installEventFilter(new WindowShortcuts(window, {exportAction}))`; only key presses in that window count.
class WindowShortcuts : public QObject
{
public:
    WindowShortcuts(QWidget *window, const QList<QAction *> &actions) : QObject(window), m_window(window)
    {
        for (QAction *a : actions)
            m_actions.append(a);
    }

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() != QEvent::ShortcutOverride)
            return QObject::eventFilter(watched, event);
        auto *key = static_cast<QKeyEvent *>(event);
        const QKeySequence pressed(key->keyCombination());
        auto *widget = qobject_cast<QWidget *>(watched);
        if (!widget || !m_window || widget->window() != m_window)
            return false;
        for (const QAction *a : m_actions)
            if (a && a->isEnabled() && a->shortcut() == pressed) {
                event->ignore(); // not overridden: the shortcut map delivers it to the action
                return true;
            }
        return false;
    }

private:
    QPointer<QWidget> m_window;
    QList<QPointer<QAction>> m_actions;
};

} // namespace memwall::ui
