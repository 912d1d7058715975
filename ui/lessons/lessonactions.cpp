#include "ui/lessons/lessonactions.h"

#include "ui/charts/charttabs.h"
#include "ui/charts/chartview.h"
#include "ui/document/measuredpoints.h"
#include "ui/document/scenariodocument.h"
#include "ui/lessons/lessoncontroller.h"
#include "ui/lessons/lessonhandout.h"
#include "ui/lessons/lessonkeys.h"
#include "ui/lessons/lessonpanel.h"
#include "ui/lessons/lessonviewfollower.h"
#include "ui/lessons/presentationwindow.h"
#include "ui/util/coverlabel.h"
#include "ui/widgets/comparepanel.h"
#include "ui/widgets/dockplacement.h"
#include "ui/widgets/formulapopup.h"
#include "ui/widgets/headlinebar.h"
#include "ui/widgets/measuredialog.h"
#include "ui/widgets/operatortable.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QLocale>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>

#include <algorithm>

namespace memwall::ui {

LessonActions::LessonActions(ScenarioDocument *doc, QMainWindow *window, ChartTabs *tabs)
    : QObject(window), m_doc(doc), m_window(window), m_controller(new LessonController(doc, this)),
      m_panel(new LessonPanel(m_controller)), m_dock(new QDockWidget(tr("Lesson"), window)),
      m_points(new MeasuredPoints(this)), m_menu(new QMenu(tr("&Lessons"), window))
{
    LessonLoadResult loaded = loadLessons(doc->presets());
    m_lessons = std::move(loaded.lessons);
    m_loadErrors = loaded.errors;

    m_dock->setObjectName("lessonDock");
    m_dock->setWidget(m_panel);
    m_dock->setToolTip(tr("The running lesson: its numbers follow the current analysis"));
    window->addDockWidget(Qt::RightDockWidgetArea, m_dock);
    m_dock->hide();

    m_menu->setToolTipsVisible(true);
    for (int i = 0; i < static_cast<int>(m_lessons.size()); ++i) {
        const Lesson &l = m_lessons[static_cast<std::size_t>(i)];
        QAction *a = m_menu->addAction(tr("&%1  %2").arg(i + 1).arg(l.title));
        a->setToolTip(l.summary.isEmpty() ? l.title : l.summary);
        a->setStatusTip(a->toolTip());
        a->setObjectName("lesson-" + l.id);
        connect(a, &QAction::triggered, this, [this, i] { startLesson(i); });
        m_lessonActions << a;
    }
    if (m_lessons.empty())
        m_menu->addAction(tr("(no lessons found)"))->setEnabled(false);
    m_menu->addSeparator();
    m_endLesson = m_menu->addAction(tr("&End lesson"));
    m_endLesson->setToolTip(tr("End the running lesson and restore your own scenario, chart and compare mode (Esc)"));
    m_endLesson->setShortcut(QKeySequence(Qt::Key_Escape));
    m_endLesson->setShortcutContext(Qt::WindowShortcut);
    m_endLesson->setEnabled(false); // Esc is the window's own while no lesson runs
    connect(m_endLesson, &QAction::triggered, m_controller, &LessonController::stop);
    m_menu->addAction(m_dock->toggleViewAction());
    m_dock->toggleViewAction()->setText(tr("Lesson &panel"));
    m_menu->addSeparator();
    m_presentation = m_menu->addAction(tr("&Presentation mode"));
    m_presentation->setShortcut(QKeySequence(Qt::Key_F5));
    m_presentation->setToolTip(tr("One chart at a time, full screen, large fonts; → / ← step through charts or the "
                                  "lesson, Esc leaves (F5)"));
    connect(m_presentation, &QAction::triggered, this, &LessonActions::togglePresentation);
    m_exportDeck = m_menu->addAction(tr("Export lesson &deck (PDF)…"));
    m_exportDeck->setToolTip(tr("One PDF page per step: the step's chart and text, questions with their answers"));
    connect(m_exportDeck, &QAction::triggered, this, [this] { exportLessonPdf(LessonPdf::Deck); });
    m_exportHandout = m_menu->addAction(tr("Export question &handout (PDF)…"));
    m_exportHandout->setToolTip(tr("The lesson's questions for the class to fill in, several a page with the figures "
                                   "each needs and room to write; no answers"));
    connect(m_exportHandout, &QAction::triggered, this, [this] { exportLessonPdf(LessonPdf::Handout); });
    m_exportKey = m_menu->addAction(tr("Export answer &key (PDF)…"));
    m_exportKey->setToolTip(tr("The handout's questions with their answers, for the teacher"));
    connect(m_exportKey, &QAction::triggered, this, [this] { exportLessonPdf(LessonPdf::AnswerKey); });
    for (QAction *a : {m_exportDeck, m_exportHandout, m_exportKey})
        a->setEnabled(!m_lessons.empty());
    m_menu->addSeparator();
    m_measure = m_menu->addAction(tr("&Measure this computer…"));
    m_measure->setToolTip(tr("Measure this computer's memory bandwidth and compute (≤ 10 s) and put it on the "
                             "roofline"));
    connect(m_measure, &QAction::triggered, this, &LessonActions::openMeasureDialog);
    for (QAction *a : m_menu->actions())
        a->setStatusTip(a->toolTip());
    window->addAction(m_presentation); // F5 and Esc work with the menu bar hidden too
    window->addAction(m_endLesson);
    // → ← Space Page Up/Down Home End step a running lesson wherever the focus is in the window (a clicker).
    qApp->installEventFilter(new LessonKeys(m_controller, window, this));

    QList<ChartView *> views;
    for (int i = 0; i < tabs->count(); ++i)
        if (auto *v = qobject_cast<ChartView *>(tabs->widget(i)))
            views << v;
    m_follower = new LessonViewFollower(
        m_controller, views, [tabs](ChartView *v) { tabs->setCurrentWidget(v); },
        [tabs] { return qobject_cast<ChartView *>(tabs->currentWidget()); }, true, this);

    connect(m_controller, &LessonController::started, this, [this] {
        m_endLesson->setEnabled(true);
        // Beside the charts where the window has room for it; in a narrow window (a 1024×768 projector) a tab over
        // the first dock on the left, so the window need not grow off the screen.
        m_shownForLesson = m_shownForLesson || m_dock->isHidden();
        if (QDockWidget *shared = showDockWhereRoom(m_window, m_dock))
            m_shared = shared;
    });
    connect(m_controller, &LessonController::finished, this, [this] {
        m_endLesson->setEnabled(false);
        // The panel the lesson opened closes with it ("No lesson running" took the compare table's room); one the
        // user had opened stays. The dock the lesson covered comes back to the front.
        if (m_shownForLesson && !m_dock->isFloating())
            m_dock->hide();
        m_shownForLesson = false;
        if (m_shared)
            m_shared->raise();
        m_shared = nullptr;
    });
    // While a question is open, the window's figures that would answer it are covered, as the chart is.
    connect(m_controller, &LessonController::progressChanged, this, &LessonActions::hideAnswers);
    connect(m_controller, &LessonController::finished, this, &LessonActions::hideAnswers);
    connect(m_controller, &LessonController::errorOccurred, this, [this](const QString &message) {
        if (m_window->statusBar())
            m_window->statusBar()->showMessage(message, 10000);
    });
    if (!m_loadErrors.isEmpty())
        window->statusBar()->showMessage(
            tr("Skipped %n lesson(s): %1", nullptr, static_cast<int>(m_loadErrors.size())).arg(m_loadErrors.join("; ")),
            15000);
}

void LessonActions::hideAnswers()
{
    const bool open = m_controller->isRunning() && m_controller->questionOpen();
    const QString text = open ? tr("Hidden until the answer: press → (or Next).") : QString();
    QList<QWidget *> figures;
    for (auto *w : m_window->findChildren<HeadlineBar *>())
        figures << w;
    for (auto *w : m_window->findChildren<OperatorTable *>())
        figures << w;
    for (auto *w : m_window->findChildren<ComparePanel *>())
        figures << w;
    for (QWidget *w : figures) {
        if (open && w->isAncestorOf(QApplication::focusWidget()))
            w->clearFocus(); // no key reaches a covered figure (F1 would open its formula)
        CoverLabel::cover(w, text);
    }
    // The formula windows: hidden while the question is open, back once it is answered.
    if (open) {
        for (FormulaPopup *p : m_window->findChildren<FormulaPopup *>())
            if (p->isVisible()) {
                p->hide();
                m_hiddenPopups << p;
            }
        return;
    }
    for (const QPointer<FormulaPopup> &p : std::as_const(m_hiddenPopups))
        if (p)
            p->show();
    m_hiddenPopups.clear();
}

LessonActions::~LessonActions()
{
    if (m_presentationWindow)
        delete m_presentationWindow.data();
}

bool LessonActions::startLesson(int index)
{
    if (index < 0 || index >= static_cast<int>(m_lessons.size()))
        return false;
    return m_controller->start(m_lessons[static_cast<std::size_t>(index)]);
}

void LessonActions::togglePresentation()
{
    if (m_presentationWindow) {
        m_presentationWindow->close();
        return;
    }
    openPresentation(true);
}

PresentationWindow *LessonActions::openPresentation(bool fullScreen)
{
    if (!m_presentationWindow) {
        auto *w = new PresentationWindow(m_doc, m_controller);
        w->setAttribute(Qt::WA_DeleteOnClose);
        m_presentationWindow = w;
    }
    if (fullScreen)
        m_presentationWindow->showFullScreen();
    else
        m_presentationWindow->show();
    m_presentationWindow->raise();
    m_presentationWindow->activateWindow();
    m_presentationWindow->setFocus();
    return m_presentationWindow;
}

void LessonActions::exportLessonPdf(LessonPdf kind)
{
    const QString caption = kind == LessonPdf::Deck      ? tr("Export lesson deck")
                            : kind == LessonPdf::Handout ? tr("Export question handout")
                                                         : tr("Export answer key");
    if (m_lessons.empty())
        return;
    int index = 0;
    if (m_controller->isRunning()) {
        for (std::size_t i = 0; i < m_lessons.size(); ++i)
            if (m_lessons[i].id == m_controller->lesson().id)
                index = static_cast<int>(i);
    } else {
        QStringList titles;
        for (const Lesson &l : m_lessons)
            titles << l.title;
        bool ok = false;
        const QString chosen = QInputDialog::getItem(m_window, caption, tr("Lesson:"), titles, 0, false, &ok);
        if (!ok)
            return;
        index = static_cast<int>(titles.indexOf(chosen));
    }
    const Lesson &lesson = m_lessons[static_cast<std::size_t>(std::max(index, 0))];
    const QString suggested = lesson.id + (kind == LessonPdf::Deck      ? QStringLiteral(".pdf")
                                           : kind == LessonPdf::Handout ? QStringLiteral("-questions.pdf")
                                                                        : QStringLiteral("-answers.pdf"));
    const QString path = QFileDialog::getSaveFileName(m_window, caption, suggested, tr("PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    HandoutOptions options;
    options.questionsOnly = kind != LessonPdf::Deck;
    options.answerKey = kind == LessonPdf::AnswerKey;
    // Letter where the locale measures in inches (the United States), else A4.
    options.paper = QLocale().measurementSystem() == QLocale::ImperialUSSystem ? QPageSize::Letter : QPageSize::A4;
    QString error;
    int pages = 0;
    if (!writeLessonPdf(lesson, m_doc->presetsPtr(), path, options, &error, &pages)) {
        m_window->statusBar()->showMessage(error, 15000);
        QMessageBox::warning(m_window, tr("Export failed"), error);
        return;
    }
    m_window->statusBar()->showMessage(tr("Wrote %1 (%n page(s))", nullptr, pages).arg(QDir::toNativeSeparators(path)),
                                       10000);
}

void LessonActions::openMeasureDialog()
{
    auto *dialog = new MeasureDialog(m_doc, m_points, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->show();
}

} // namespace memwall::ui
