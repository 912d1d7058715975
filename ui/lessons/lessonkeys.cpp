#include "ui/lessons/lessonkeys.h"

#include "ui/lessons/lessoncontroller.h"

#include <QAbstractSpinBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>
#include <QWidget>

namespace memwall::ui {

namespace {

/// A widget where the arrows, Space, Home and End edit text.
bool editsText(const QWidget *w)
{
    if (const auto *line = qobject_cast<const QLineEdit *>(w))
        return !line->isReadOnly();
    if (const auto *edit = qobject_cast<const QTextEdit *>(w))
        return !edit->isReadOnly();
    if (const auto *plain = qobject_cast<const QPlainTextEdit *>(w))
        return !plain->isReadOnly();
    return qobject_cast<const QAbstractSpinBox *>(w) != nullptr;
}

} // namespace

LessonKeys::LessonKeys(LessonController *controller, QWidget *window, QObject *parent)
    : QObject(parent), m_controller(controller), m_window(window)
{
}

bool LessonKeys::isLessonKey(const QKeyEvent &key)
{
    if (key.modifiers() & ~(Qt::ShiftModifier | Qt::KeypadModifier))
        return false;
    switch (key.key()) {
    case Qt::Key_Right:
    case Qt::Key_Left:
    case Qt::Key_Space:
    case Qt::Key_PageDown:
    case Qt::Key_PageUp:
    case Qt::Key_Home:
    case Qt::Key_End: return true;
    default: return false;
    }
}

QList<QPair<QString, QString>> LessonKeys::keyList()
{
    return {{tr("→, Space, Page Down"), tr("the answer, the next piece of the chart, or the next step")},
            {tr("←, Page Up"), tr("one piece back, or the previous step")},
            {tr("Home"), tr("the first step")},
            {tr("End"), tr("the last step, complete")}};
}

bool LessonKeys::wantsKey(QObject *watched, const QKeyEvent &key) const
{
    if (!m_controller || !m_controller->isRunning() || !m_window || !isLessonKey(key))
        return false;
    auto *widget = qobject_cast<QWidget *>(watched);
    // Keys meant for this window only: its own widgets and docks, not a floating dock, dialog or popup.
    if (!widget || widget->window() != m_window)
        return false;
    const bool clicker = key.key() == Qt::Key_PageDown || key.key() == Qt::Key_PageUp;
    return clicker || !editsText(widget);
}

void LessonKeys::step(const QKeyEvent &key)
{
    switch (key.key()) {
    case Qt::Key_Left:
    case Qt::Key_PageUp: m_controller->back(); break;
    case Qt::Key_Home: m_controller->goToStep(0); break;
    case Qt::Key_End:
        m_controller->goToStep(m_controller->stepCount() - 1);
        m_controller->completeStep();
        break;
    default: m_controller->advance(); break;
    }
}

bool LessonKeys::eventFilter(QObject *watched, QEvent *event)
{
    const QEvent::Type type = event->type();
    if (type != QEvent::ShortcutOverride && type != QEvent::KeyPress && type != QEvent::KeyRelease)
        return QObject::eventFilter(watched, event);
    auto *key = static_cast<QKeyEvent *>(event);
    if (!wantsKey(watched, *key))
        return false;
    if (type == QEvent::ShortcutOverride) {
        // Claimed as a key press, so that no shortcut (a chart's Home "reset view") takes it first.
        event->accept();
        return true;
    }
    if (type == QEvent::KeyPress)
        step(*key);
    return true; // neither the press nor its release reaches the focused widget
}

} // namespace memwall::ui
