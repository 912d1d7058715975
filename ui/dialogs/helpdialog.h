#pragma once

#include <QDialog>
#include <QList>
#include <QString>

class QAction;
class QTextBrowser;

namespace memwall::ui {

/// Help › Getting started (F1): what the window shows, the first things to try, and the keyboard shortcuts. The
/// shortcut list is read from the window's actions as they are (their shortcuts, texts and where they work), so it
/// cannot go stale; the lesson keys come from LessonKeys::keyList().
class HelpDialog : public QDialog
{
    Q_OBJECT
public:
    /// One row of the shortcut list.
    struct Shortcut
    {
        QString keys;  ///< as the menus write them ("Ctrl+E"; several joined with ", ")
        QString what;  ///< the action's text (or its "helpText" property), without "&" and "…"
        QString where; ///< "" for the whole window, else the part it works in ("a chart")
    };

    explicit HelpDialog(QWidget *window, QWidget *parent = nullptr);

    /// Every action under `window` with a shortcut, once per keys and text, window-wide ones first, in menu order.
    static QList<Shortcut> shortcuts(const QWidget *window);
    /// The page (HTML) for `window`: getting started, then the shortcut table.
    static QString html(const QWidget *window);
    QTextBrowser *browser() const { return m_browser; }

private:
    QTextBrowser *m_browser;
};

} // namespace memwall::ui
