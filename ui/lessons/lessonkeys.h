#pragma once

#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>

class QKeyEvent;
class QWidget;

namespace memwall::ui {

class LessonController;

/// Steps a running lesson from the keyboard anywhere in one window, as a presentation clicker does:
/// → / Space / Page Down advance(), ← / Page Up back(), Home the first step, End the last step (complete).
/// Installed on the application (it must see the keys before the focused widget: a chart pans on the arrows and
/// resets on Home, a button moves the focus on the arrows), it acts only while the lesson runs and only on keys
/// meant for `window`; other windows (the presentation window has its own keys, dialogs, popups) keep theirs.
/// A text field keeps the keys that edit text (arrows, Space, Home, End) while it has the focus; the clicker's
/// Page Up / Page Down step the lesson from there too.
class LessonKeys : public QObject
{
    Q_OBJECT
public:
    LessonKeys(LessonController *controller, QWidget *window, QObject *parent = nullptr);

    /// True for the keys that step a lesson (without modifiers, Shift aside).
    static bool isLessonKey(const QKeyEvent &key);
    /// The keys and what each does, for Help (one pair a row: keys, what).
    static QList<QPair<QString, QString>> keyList();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    bool wantsKey(QObject *watched, const QKeyEvent &key) const;
    void step(const QKeyEvent &key);

    QPointer<LessonController> m_controller;
    QPointer<QWidget> m_window;
};

} // namespace memwall::ui
