#pragma once

#include "ui/lessons/lesson.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;

namespace memwall::ui {

class ChartTabs;
class FormulaPopup;
class LessonController;
class LessonPanel;
class LessonViewFollower;
class MeasuredPoints;
class PresentationWindow;
class ScenarioDocument;

/// Everything "For the lecture hall" adds to the main window, so MainWindow only has to place one menu:
/// - the Lessons menu: one action per lesson (from resources/lessons), "End lesson" (Esc while one runs),
///   "Presentation mode" (F5), "Export lesson deck…" and "Export question handout…" (PDF), and "Measure this
///   computer…";
/// - the lesson panel in a dock on the right (shown when a lesson starts; in a window too narrow for it, a tab over
///   the first dock on the left);
/// - the presentation window (full screen; Esc leaves);
/// - the measure dialog and the MeasuredPoints holder the roofline can plot.
/// Lessons that fail to load are skipped; their one-line reasons are in loadErrors() (and the window's status bar).
class LessonActions : public QObject
{
    Q_OBJECT
public:
    /// `tabs`: the window's charts, which follow each step (LessonViewFollower).
    LessonActions(ScenarioDocument *doc, QMainWindow *window, ChartTabs *tabs);
    ~LessonActions() override;

    QMenu *menu() const { return m_menu; }
    const QList<QAction *> &lessonActions() const { return m_lessonActions; }
    QAction *endLessonAction() const { return m_endLesson; }
    QAction *presentationAction() const { return m_presentation; }
    QAction *measureAction() const { return m_measure; }
    QAction *exportDeckAction() const { return m_exportDeck; }
    QAction *exportHandoutAction() const { return m_exportHandout; }
    QAction *exportAnswerKeyAction() const { return m_exportKey; }

    LessonController *controller() const { return m_controller; }
    LessonPanel *panel() const { return m_panel; }
    QDockWidget *panelDock() const { return m_dock; }
    MeasuredPoints *measuredPoints() const { return m_points; }
    PresentationWindow *presentationWindow() const { return m_presentationWindow; }

    const std::vector<Lesson> &lessons() const { return m_lessons; }
    const QStringList &loadErrors() const { return m_loadErrors; }

public:
    /// Which PDF of a lesson to export.
    enum class LessonPdf { Deck, Handout, AnswerKey };

public slots:
    /// Starts the i-th lesson and shows the lesson panel.
    bool startLesson(int index);
    /// Opens the presentation window full screen (or closes it when open).
    void togglePresentation();
    /// Opens the presentation window; `fullScreen` false gives a normal window (tests, screenshots).
    PresentationWindow *openPresentation(bool fullScreen = true);
    void openMeasureDialog();
    /// Asks for a lesson (the running one first) and a PDF file, and writes the deck (every step, questions
    /// answered), the handout (questions without answers, on the locale's paper) or its answer key. Says what was
    /// written, or why not, in the status bar and, on failure, a message box.
    void exportLessonPdf(LessonPdf kind);

private:
    /// Covers the headline, the operator table and the compare panel, and hides the formula windows, while the
    /// running step's question is open (the chart itself is covered by LessonViewFollower); uncovers them after.
    void hideAnswers();

    ScenarioDocument *m_doc;
    QMainWindow *m_window;
    std::vector<Lesson> m_lessons;
    QStringList m_loadErrors;
    LessonController *m_controller;
    LessonPanel *m_panel;
    QDockWidget *m_dock;
    MeasuredPoints *m_points;
    QMenu *m_menu;
    QList<QAction *> m_lessonActions;
    QAction *m_endLesson;
    QAction *m_presentation;
    QAction *m_measure;
    QAction *m_exportDeck;
    QAction *m_exportKey = nullptr;
    QAction *m_exportHandout;
    LessonViewFollower *m_follower;
    QPointer<QDockWidget> m_shared; ///< the dock the lesson panel shares a tab with in a narrow window, if any
    bool m_shownForLesson = false;  ///< the panel was hidden when the lesson started: it closes when the lesson ends
    QPointer<PresentationWindow> m_presentationWindow;
    QList<QPointer<FormulaPopup>> m_hiddenPopups; ///< formula windows hidden while a question is open
};

} // namespace memwall::ui
