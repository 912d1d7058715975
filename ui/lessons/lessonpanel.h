#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace memwall::ui {

class LessonController;

/// Shows the running lesson: its title, the step's title, the step's text rendered live (it re-renders on every
/// analysisChanged(), so its numbers follow the device and every slider), Previous / Next buttons and "3 / 5".
/// A placeholder that cannot be computed shows "[?name]" in the text and its reason below it. In caption mode (the
/// presentation window's band) everything is larger and laid out in one horizontal band.
class LessonPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LessonPanel(LessonController *controller, QWidget *parent = nullptr);

    void setCaptionMode(bool caption);
    bool captionMode() const { return m_caption; }

    /// The rendered rich text of the current step (as shown).
    QString html() const { return m_html; }
    QString counterText() const;
    QString stepTitle() const;
    QPushButton *previousButton() const { return m_prev; }
    QPushButton *nextButton() const { return m_next; }
    QPushButton *endButton() const { return m_end; }
    /// The text as shown (for tests: whether all of it is in view).
    QTextBrowser *textView() const { return m_text; }
    /// True when the text's whole height is in view (no part cut off or scrolled away in the caption band).
    bool textFits() const;

public slots:
    void refresh();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void applyFonts();
    void fitTextHeight();

    LessonController *m_controller;
    QLabel *m_lessonTitle;
    QLabel *m_stepTitle;
    QTextBrowser *m_text;
    QLabel *m_errors;
    QLabel *m_counter;
    QPushButton *m_prev;
    QPushButton *m_next;
    QPushButton *m_end;
    QString m_html;
    QString m_shownStep; ///< "lesson-id#index" of the text shown, to keep the scroll position within one step
    bool m_caption = false;
    bool m_idleShown = false; ///< the "no lesson running" text is up (refresh() then has nothing to do)
};

} // namespace memwall::ui
