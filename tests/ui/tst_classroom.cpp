// Issue #41, "in front of a class and on a laptop": a lesson stepped from the keyboard anywhere in the window (a
// clicker's keys) without panning a chart, questions that hide their answers in the window, controls that ignore a
// scrolling wheel, a preset typed by id, a first window that fits the screen, a headline that agrees with its label,
// and a Help page whose shortcut list comes from the actions. Keys are sent to the window; geometry is read back.
#include "core/io/scenariofile.h"
#include "ui/charts/chartbase.h"
#include "ui/charts/chartfit.h"
#include "ui/charts/charttabs.h"
#include "ui/charts/chartview.h"
#include "ui/controls/controlspanel.h"
#include "ui/controls/optioncontrol.h"
#include "ui/controls/presetpicker.h"
#include "ui/dialogs/helpdialog.h"
#include "ui/document/scenariodocument.h"
#include "ui/lessons/lessonactions.h"
#include "ui/lessons/lessoncontroller.h"
#include "ui/lessons/lessonpanel.h"
#include "ui/lessons/lessonquestion.h"
#include "ui/lessons/presentationwindow.h"
#include "ui/mainwindow.h"
#include "ui/mainwindowactions.h"
#include "ui/settings/settingsfile.h"
#include "ui/util/windowfit.h"
#include "ui/widgets/formulapopup.h"
#include "ui/widgets/headlinebar.h"
#include "ui/widgets/operatortable.h"
#include "ui/widgets/operatortablemodel.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUndoStack>
#include <QtTest>

#include "uitest.h"

#include <algorithm>
#include <memory>

using namespace memwall;
using memwall::ui::MainWindow;
using memwall::ui::ScenarioDocument;

class TstClassroom : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<MainWindow> m_window;

    ui::LessonController *lessons() const { return m_window->lessonActions()->controller(); }

    /// Where the running lesson stands: step, question answered, pieces revealed.
    QString position() const
    {
        const ui::LessonController *c = lessons();
        return QStringLiteral("%1/%2/%3")
            .arg(c->stepIndex())
            .arg(c->progress().answered ? 1 : 0)
            .arg(c->progress().revealed);
    }

    ui::ChartView *currentView() const { return qobject_cast<ui::ChartView *>(m_window->chartTabs()->currentWidget()); }

    /// Starts the first step of any lesson that opens with a question; false if there is none.
    bool openAQuestion()
    {
        for (const ui::Lesson &l : m_window->lessonActions()->lessons())
            for (int s = 0; s < static_cast<int>(l.steps.size()); ++s)
                if (l.steps[static_cast<std::size_t>(s)].question) {
                    if (!lessons()->start(l) || (s > 0 && !lessons()->goToStep(s)))
                        return false;
                    return lessons()->questionOpen();
                }
        return false;
    }

    /// True when a shown child of `w` lies over the whole of it (the read-back of a cover).
    static bool covered(const QWidget *w)
    {
        for (const QWidget *child : w->findChildren<QWidget *>(QString(), Qt::FindDirectChildrenOnly))
            if (child->isVisible() && child->geometry().contains(w->rect()) && w->childAt(w->rect().center()) == child)
                return true;
        return false;
    }

    /// A wheel notch over the middle of `w`, delivered as the window system does (to `w`, propagating up).
    static void wheelOver(QWidget *w, int notches = -1)
    {
        const QPointF local = QRectF(w->rect()).center();
        QWheelEvent wheel(local, w->mapToGlobal(local), QPoint(), QPoint(0, 120 * notches), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(w, &wheel);
    }

    /// The controls that a wheel could change: combo boxes, spin boxes and sliders (not scroll bars).
    QList<QWidget *> wheelControls() const
    {
        QList<QWidget *> out;
        for (QWidget *w : m_window->controls()->findChildren<QWidget *>()) {
            if (!w->isVisible() || !w->isEnabled())
                continue;
            const bool slider = qobject_cast<QAbstractSlider *>(w) && !qobject_cast<QScrollBar *>(w);
            if (slider || qobject_cast<QComboBox *>(w) || qobject_cast<QAbstractSpinBox *>(w))
                out << w;
        }
        return out;
    }

    std::string scenarioJson() const { return core::toJson(m_doc->file()).dump(); }

    void activate()
    {
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MemWallTest");
        QCoreApplication::setApplicationName("tst_classroom");
        ui::useCheckedSettings();
        QSettings().clear();
    }
    void init()
    {
        m_doc = std::make_unique<ScenarioDocument>(uitest::library());
        m_window = std::make_unique<MainWindow>(m_doc.get());
        m_window->resize(1600, 1000);
        m_window->show();
    }
    void cleanup()
    {
        m_window.reset();
        m_doc.reset();
    }

    // ---- Item 1: an open question hides the figures that answer it ----

    void anOpenQuestionCoversTheHeadlineTableAndFormula()
    {
        ui::HeadlineBar *headline = m_window->headline();
        ui::OperatorTable *table = m_window->operatorTable();
        QVERIFY(!covered(headline) && !covered(table));
        headline->showFormula(ui::HeadlineBar::BoundFigure);
        QVERIFY(headline->formulaPopup() && headline->formulaPopup()->isVisible());

        QVERIFY(openAQuestion());
        QVERIFY(headline->isVisible() && table->isVisible());
        QVERIFY2(covered(headline), "the headline shows the answer beside the question");
        QVERIFY2(covered(table), "the operator table shows the answer beside the question");
        QVERIFY2(!headline->formulaPopup()->isVisible(), "the formula window shows the answer beside the question");

        lessons()->advance(); // the answer
        QVERIFY(!lessons()->questionOpen());
        QVERIFY(!covered(headline) && !covered(table));
        QVERIFY(headline->formulaPopup()->isVisible());

        // A resized window keeps the figures covered to their edges.
        QVERIFY(openAQuestion());
        m_window->resize(1100, 700);
        QTRY_VERIFY(covered(headline) && covered(table));
        lessons()->stop();
        QVERIFY(!covered(headline) && !covered(table));
    }

    // ---- Item 6: the window fits the screen ----

    void fitToScreen_data()
    {
        QTest::addColumn<QRect>("wanted");
        QTest::addColumn<QRect>("available");
        QTest::addColumn<QMargins>("frame");
        QTest::addColumn<QRect>("expected");
        const QMargins none;
        const QMargins titleBar(4, 30, 4, 4);
        QTest::newRow("fits: unchanged") << QRect(100, 100, 800, 600) << QRect(0, 0, 1920, 1080) << none
                                         << QRect(100, 100, 800, 600);
        QTest::newRow("1600x1000 on 1280x720")
            << QRect(0, 0, 1600, 1000) << QRect(0, 0, 1280, 720) << none << QRect(0, 0, 1280, 720);
        QTest::newRow("1600x1000 on 1024x768 with a frame")
            << QRect(-288, -116, 1600, 1000) << QRect(0, 0, 1024, 768) << titleBar << QRect(4, 30, 1016, 734);
        QTest::newRow("panel on top: below it")
            << QRect(0, 0, 1600, 1000) << QRect(0, 28, 1280, 692) << none << QRect(0, 28, 1280, 692);
        QTest::newRow("off the right edge: moved back")
            << QRect(1000, 200, 800, 400) << QRect(0, 0, 1280, 720) << none << QRect(480, 200, 800, 400);
        QTest::newRow("kept on the second screen")
            << QRect(3000, 100, 1600, 1000) << QRect(1920, 0, 1280, 720) << titleBar << QRect(1924, 30, 1272, 686);
        QTest::newRow("above the top: title bar back on screen")
            << QRect(100, -50, 400, 300) << QRect(0, 0, 1280, 720) << titleBar << QRect(100, 30, 400, 300);
    }
    void fitToScreen()
    {
        QFETCH(QRect, wanted);
        QFETCH(QRect, available);
        QFETCH(QMargins, frame);
        QFETCH(QRect, expected);
        const QRect fitted = ui::fitToScreen(wanted, available, frame);
        QCOMPARE(fitted, expected);
        QVERIFY(available.contains(fitted.marginsAdded(frame)));
    }

    void centredOnScreen()
    {
        QCOMPARE(ui::centredOnScreen(QSize(1600, 1000), QRect(0, 0, 1920, 1080)), QRect(160, 40, 1600, 1000));
        QCOMPARE(ui::centredOnScreen(QSize(1600, 1000), QRect(0, 0, 1024, 768)), QRect(0, 0, 1024, 768));
    }

    void theFirstWindowFitsItsScreen()
    {
        QSettings().remove("window");
        ScenarioDocument doc(uitest::library());
        MainWindow w(&doc);
        const QRect available = w.screen()->availableGeometry();
        const auto where = [&w, available] {
            return QStringLiteral("%1x%2 at %3,%4 (frame %5x%6) on a %7x%8 screen")
                .arg(w.width())
                .arg(w.height())
                .arg(w.x())
                .arg(w.y())
                .arg(w.frameGeometry().width())
                .arg(w.frameGeometry().height())
                .arg(available.width())
                .arg(available.height());
        };
        QVERIFY2(available.contains(w.geometry()), qPrintable(where()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY2(available.contains(w.frameGeometry()), qPrintable(where()));
        if (available.width() >= 1700 && available.height() >= 1100) // room for it: the preferred size
            QCOMPARE(w.size(), QSize(1600, 1000));
    }

    void aSavedGeometryStaysOnTheScreenItIsRestoredTo()
    {
        // On each screen (the offscreen suite has a 1280×720 and a 1024×768 one, see main()), a window saved larger
        // than it and over its edges comes back whole on that screen, the one its centre is on.
        for (QScreen *screen : QGuiApplication::screens()) {
            const QRect available = screen->availableGeometry();
            {
                ScenarioDocument doc(uitest::library());
                MainWindow saved(&doc);
                QRect big(0, 0, 1600, 1000); // larger than the screen, over its edges, its centre on it
                big.moveCenter(available.center() + QPoint(100, 50));
                saved.setGeometry(big);
                QSettings().setValue("window/geometry", saved.saveGeometry());
            }
            ScenarioDocument doc(uitest::library());
            MainWindow w(&doc);
            const QString where = QStringLiteral("%1,%2 %3x%4 on %5 (%6,%7 %8x%9)")
                                      .arg(w.x())
                                      .arg(w.y())
                                      .arg(w.width())
                                      .arg(w.height())
                                      .arg(screen->name())
                                      .arg(available.x())
                                      .arg(available.y())
                                      .arg(available.width())
                                      .arg(available.height());
            QVERIFY2(available.contains(w.geometry()), qPrintable(where));
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY2(available.contains(w.frameGeometry()), qPrintable(where));
        }
        QSettings().remove("window");
    }

    void aLessonKeepsTheWindowOnALaptopScreen()
    {
        // A lesson's step changes the headline's words ("63.3 k tokens/s", "compute-bound"); on a 1024-wide screen the
        // window must not grow past it to make room for them (it pushed the close button off the screen).
        const QRect laptop(0, 0, 1024, 768);
        const QRect inner = ui::fitToScreen(QRect(0, 0, 1600, 1000), laptop, QMargins(4, 32, 4, 4));
        m_window->setGeometry(inner);
        for (const ui::Lesson &l : m_window->lessonActions()->lessons()) {
            QVERIFY(lessons()->start(l));
            // No room for the lesson beside the controls and the charts: it takes the controls' place, as a tab.
            QVERIFY2(!m_window->tabifiedDockWidgets(m_window->lessonActions()->panelDock()).isEmpty(),
                     "the lesson panel squeezed the charts and the headline");
            do {
                QVERIFY2(m_window->minimumSizeHint().width() <= inner.width(),
                         qPrintable(QStringLiteral("%1 step %2: the window needs %3 px")
                                        .arg(l.id)
                                        .arg(lessons()->stepIndex() + 1)
                                        .arg(m_window->minimumSizeHint().width())));
            } while (lessons()->advance());
        }
        lessons()->stop();
    }

    // ---- Item 14: Help lists the shortcuts the window has ----

    void f1OpensHelpWithTheShortcutsOfTheActions()
    {
        activate();
        ui::ChartView *view = currentView();
        view->setFocus();
        QTRY_VERIFY(view->hasFocus());
        QTest::keyClick(view, Qt::Key_F1);
        ui::HelpDialog *help = m_window->findChild<ui::HelpDialog *>();
        QVERIFY2(help && help->isVisible(), "F1 opened no help");
        const QString text = help->browser()->toPlainText();
        QVERIFY(text.contains("Getting started"));
        // Every shortcut of the window's actions is listed, and nothing else.
        int count = 0;
        for (const QAction *a : m_window->findChildren<QAction *>())
            for (const QKeySequence &k : a->shortcuts()) {
                QVERIFY2(text.contains(k.toString(QKeySequence::NativeText)), qPrintable(k.toString()));
                ++count;
            }
        QVERIFY(count >= 15);
        for (const char *key : {"F1", "F5", "F11", "Ctrl+E", "Ctrl+Z", "Ctrl+1", "Esc"})
            QVERIFY2(text.contains(QKeySequence(QString::fromLatin1(key)).toString(QKeySequence::NativeText)), key);
        const QList<ui::HelpDialog::Shortcut> list = ui::HelpDialog::shortcuts(m_window.get());
        QVERIFY(std::any_of(list.begin(), list.end(), [](const ui::HelpDialog::Shortcut &s) {
            return s.keys == QKeySequence(Qt::Key_F5).toString(QKeySequence::NativeText) && s.where.isEmpty();
        }));
        QVERIFY(std::any_of(list.begin(), list.end(),
                            [](const ui::HelpDialog::Shortcut &s) { return s.where == "in a chart"; }));
        // Undo is listed by what it does, not by the step it would undo now ("Undo Lesson step").
        QVERIFY(lessons()->start(m_window->lessonActions()->lessons().front()));
        const QList<ui::HelpDialog::Shortcut> during = ui::HelpDialog::shortcuts(m_window.get());
        QVERIFY(std::any_of(during.begin(), during.end(), [](const ui::HelpDialog::Shortcut &s) {
            return s.keys == QKeySequence(QKeySequence::Undo).toString(QKeySequence::NativeText) && s.what == "Undo";
        }));
        lessons()->stop();
        help->close();
    }

    void f1OnAHeadlineFigureStillShowsItsFormula()
    {
        activate();
        ui::HeadlineBar *headline = m_window->headline();
        QWidget *figure = headline->findChild<QWidget *>("headlineBound");
        QVERIFY(figure);
        figure->setFocus();
        QTRY_VERIFY(figure->hasFocus() || headline->focusedFigure() >= 0);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_F1);
        QVERIFY2(headline->formulaPopup() && headline->formulaPopup()->isVisible(), "F1 lost the formula");
        QVERIFY(!m_window->findChild<ui::HelpDialog *>());
    }

    // ---- Item 7: the wheel scrolls the Controls panel and changes no setting ----

    void aWheelOverAnUnfocusedGeneratedComboChangesNothing()
    {
        activate();
        ui::OptionControl *control = m_window->controls()->optionControl("expert_weights");
        QVERIFY(control);
        auto *combo = qobject_cast<QComboBox *>(control->editor());
        QVERIFY(combo && combo->isVisible());
        m_window->controls()->devicePicker()->setFocus(); // the focus is elsewhere
        QTRY_VERIFY(!combo->hasFocus());
        const QString before = combo->currentText();
        const int undo = m_doc->undoStack()->count();
        const std::string file = scenarioJson();
        wheelOver(combo, -1);
        wheelOver(combo, 1);
        wheelOver(combo, 1);
        QCOMPARE(combo->currentText(), before);
        QCOMPARE(m_doc->undoStack()->count(), undo);
        QVERIFY(scenarioJson() == file);
        QVERIFY(!combo->hasFocus()); // nor did the wheel take the focus
    }

    void aWheelScrollsThePanelOverEveryUnfocusedControl()
    {
        activate();
        m_window->resize(1280, 720); // the panel is taller than the dock: it scrolls
        auto *scroll = qobject_cast<QScrollArea *>(m_window->controlsDock()->widget());
        QVERIFY(scroll);
        QTRY_VERIFY(scroll->verticalScrollBar()->maximum() > 0);
        const QList<QWidget *> controls = wheelControls();
        QVERIFY(controls.size() > 20); // the hand-made controls and the generated ones
        m_window->setFocus();
        const int undo = m_doc->undoStack()->count();
        const std::string file = scenarioJson();
        for (QWidget *w : controls) {
            QVERIFY(!w->hasFocus());
            scroll->verticalScrollBar()->setValue(scroll->verticalScrollBar()->maximum() / 2);
            const int at = scroll->verticalScrollBar()->value();
            wheelOver(w, -1);
            QVERIFY2(m_doc->undoStack()->count() == undo && scenarioJson() == file,
                     qPrintable(w->objectName() + " " + w->metaObject()->className() + " took the wheel"));
            QVERIFY2(scroll->verticalScrollBar()->value() > at,
                     qPrintable(w->objectName() + " " + w->metaObject()->className() + " did not scroll the panel"));
        }
    }

    void aFocusedControlStillTakesTheWheel()
    {
        activate();
        QComboBox *weights = m_window->controls()->weightsCombo();
        weights->setFocus();
        QTRY_VERIFY(weights->hasFocus());
        const QString before = weights->currentText();
        const int undo = m_doc->undoStack()->count();
        wheelOver(weights, -1);
        QVERIFY(weights->currentText() != before);
        QCOMPARE(m_doc->undoStack()->count(), undo + 1);
    }

    // ---- Item 8: a preset typed by its id ----

    void typingAPresetIdAndEnterPicksIt_data()
    {
        QTest::addColumn<QString>("picker");
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("id");
        QTest::newRow("device id") << "devicePicker"
                                   << "mi300x"
                                   << "mi300x";
        QTest::newRow("device id, other case, spaces") << "devicePicker"
                                                       << "  A100-80GB-SXM "
                                                       << "a100-80gb-sxm";
        QTest::newRow("model id") << "modelPicker"
                                  << "llama-2-7b"
                                  << "llama-2-7b";
    }
    void typingAPresetIdAndEnterPicksIt()
    {
        QFETCH(QString, picker);
        QFETCH(QString, typed);
        QFETCH(QString, id);
        activate();
        auto *p = m_window->findChild<ui::PresetPicker *>(picker);
        QVERIFY(p && p->findData(id) >= 0);
        p->lineEdit()->setFocus();
        QTRY_VERIFY(p->lineEdit()->hasFocus());
        p->lineEdit()->selectAll();
        QTest::keyClicks(p->lineEdit(), typed);
        QTest::keyClick(p->lineEdit(), Qt::Key_Return);
        const std::string now = picker == "devicePicker" ? m_doc->file().hardware.id : m_doc->file().model.id;
        QCOMPARE(QString::fromStdString(now), id);
        QCOMPARE(p->currentId(), id);
        QCOMPARE(p->lineEdit()->text(), p->itemText(p->findData(id)));
    }

    void anUnknownIdSaysSoAndKeepsTheDevice()
    {
        activate();
        ui::PresetPicker *p = m_window->controls()->devicePicker();
        const std::string device = m_doc->file().hardware.id;
        const QString shown = p->lineEdit()->text();
        const int undo = m_doc->undoStack()->count();
        p->lineEdit()->setFocus();
        QTRY_VERIFY(p->lineEdit()->hasFocus());
        p->lineEdit()->selectAll();
        QTest::keyClicks(p->lineEdit(), "h100-nonexistent");
        QTest::keyClick(p->lineEdit(), Qt::Key_Return);
        QCOMPARE(m_doc->file().hardware.id, device);
        QCOMPARE(m_doc->undoStack()->count(), undo);
        QCOMPARE(p->lineEdit()->text(), shown);
        const QString message = m_window->statusBar()->currentMessage();
        QVERIFY2(message.contains("h100-nonexistent") && !message.contains('\n'), qPrintable(message));
    }

    // ---- Item 3: no step gives away a later question's answer ----

    void noEarlierStepGivesAnAnswerAway_data()
    {
        QTest::addColumn<int>("lesson");
        QTest::addColumn<int>("step");
        const ui::LessonLoadResult loaded = ui::loadLessons(*uitest::library());
        QVERIFY(loaded.errors.isEmpty());
        for (int i = 0; i < static_cast<int>(loaded.lessons.size()); ++i) {
            const ui::Lesson &l = loaded.lessons[static_cast<std::size_t>(i)];
            for (int st = 0; st < static_cast<int>(l.steps.size()); ++st)
                if (l.steps[static_cast<std::size_t>(st)].question)
                    QTest::addRow("%s step %d", qPrintable(l.id), st + 1) << i << st;
        }
    }
    void noEarlierStepGivesAnAnswerAway()
    {
        QFETCH(int, lesson);
        QFETCH(int, step);
        const ui::LessonLoadResult loaded = ui::loadLessons(*uitest::library());
        const ui::Lesson &l = loaded.lessons[static_cast<std::size_t>(lesson)];
        ScenarioDocument doc(uitest::library());
        ui::LessonController c(&doc);
        QVERIFY(c.start(l));
        QVERIFY(step == 0 || c.goToStep(step));
        const std::optional<ui::QuestionView> q = c.currentQuestion();
        QVERIFY(q && q->ok());
        if (l.steps[static_cast<std::size_t>(step)].question->choices.size() > 0)
            QSKIP("a text answer (its words are the lesson's vocabulary)");
        // The answer's figure ("10.2" of "10.2×"); a one-digit figure only with its unit ("2×"), as a "2" alone is
        // every batch of two.
        const QRegularExpression number(QStringLiteral("^[0-9][0-9,.]*"));
        const QString figure = number.match(q->answer).captured();
        QVERIFY2(!figure.isEmpty(), qPrintable(q->answer));
        const QString unit = l.steps[static_cast<std::size_t>(step)].question->unit.trimmed();
        const int digits = static_cast<int>(
            QString(figure).remove(QRegularExpression("[^0-9]")).remove(QRegularExpression("^0+")).size());
        const QString pattern =
            QStringLiteral("(?<![0-9.,])%1%2")
                .arg(QRegularExpression::escape(figure),
                     digits >= 2 || unit.isEmpty() ? QStringLiteral("(?![0-9])")
                                                   : QStringLiteral("\\s*%1").arg(QRegularExpression::escape(unit)));
        const QRegularExpression giveaway(pattern);
        const auto plain = [](const QString &html) {
            QTextDocument d;
            d.setHtml(html);
            return d.toPlainText();
        };
        QVERIFY2(!giveaway.match(plain(q->ask)).hasMatch(), qPrintable("the question says its answer: " + q->ask));
        for (int k = 0; k < step; ++k) {
            QVERIFY(c.goToStep(k));
            c.completeStep();
            QString shown = QString::fromStdString(c.renderCurrent().text);
            if (const std::optional<ui::QuestionView> earlier = c.currentQuestion())
                shown += ' ' + earlier->ask + ' ' + earlier->answer;
            const QString text = plain(shown);
            const QRegularExpressionMatch m = giveaway.match(text);
            QVERIFY2(!m.hasMatch(),
                     qPrintable(QStringLiteral("step %1 says \"%2\" before step %3 asks for %4: …%5…")
                                    .arg(k + 1)
                                    .arg(m.captured(), QString::number(step + 1), q->answer,
                                         text.mid(std::max<qsizetype>(0, m.capturedStart() - 60), 140))));
        }
    }

    // ---- Item 13 (the smaller ones) ----

    void aLogAxisWritesEveryLabelInOneFormat_data()
    {
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::newRow("0.1 to 10,000: plain") << 0.1 << 1e4;
        QTest::newRow("10 to 1e8: whole numbers") << 10.0 << 1e8;
        QTest::newRow("1e-6 to 100: exponents") << 1e-6 << 100.0;
        QTest::newRow("1e3 to 1e14: exponents") << 1e3 << 1e14;
    }
    void aLogAxisWritesEveryLabelInOneFormat()
    {
        QFETCH(double, lo);
        QFETCH(double, hi);
        QLogValueAxis axis;
        axis.setLabelFormat("%g");
        QVERIFY(ui::chartfit::setLogRange(&axis, lo, hi));
        // Every decade's label written alike: all with an exponent, or none.
        int exponents = 0, decades = 0;
        for (double v = lo; v <= hi * 1.0001; v *= 10, ++decades)
            exponents += QString::asprintf(axis.labelFormat().toLatin1().constData(), v).contains('e') ? 1 : 0;
        QVERIFY2(exponents == 0 || exponents == decades, qPrintable(axis.labelFormat()));
        // A chart's own format is left alone.
        axis.setLabelFormat("%.10g");
        QVERIFY(ui::chartfit::setLogRange(&axis, 1, 1e8));
        QCOMPARE(axis.labelFormat(), QStringLiteral("%.10g"));
    }

    void panningAChartKeepsItsAxisInOneFormat()
    {
        activate();
        ui::ChartView *view = currentView();
        view->setFocus();
        QTRY_VERIFY(view->hasFocus());
        auto *x = qobject_cast<QLogValueAxis *>(view->chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(x);
        for (int i = 0; i < 40 && x->max() < 1e7; ++i)
            QTest::keyClick(view, Qt::Key_Right);
        QVERIFY(x->max() >= 1e7);
        QVERIFY2(x->labelFormat() != QLatin1String("%g"), "'100000' beside '1e+06'");
    }

    void anOperatorThatMovesNoBytesShowsADash()
    {
        core::Scenario s = m_doc->scenario();
        s.phase = core::Phase::Prefill;
        m_doc->setScenario(s, "prefill");
        const ui::OperatorTableModel *model = m_window->operatorTable()->model();
        int row = -1;
        for (int r = 0; r < model->rowCount(); ++r)
            if (m_doc->analysis().operators[static_cast<std::size_t>(r)].bytes() <= 0)
                row = r;
        QVERIFY2(row >= 0, "no operator without bytes in a prefill (the fused softmax has none)");
        for (int column : {int(ui::OperatorTableModel::Intensity), int(ui::OperatorTableModel::Bound)}) {
            const QModelIndex cell = model->index(row, column);
            QCOMPARE(model->data(cell, Qt::DisplayRole).toString(), QStringLiteral("—"));
            QVERIFY(model->data(cell, Qt::ToolTipRole).toString().contains("no bytes"));
        }
    }

    // ---- Item 2: a clicker steps the lesson from anywhere in the window ----

    void arrowsStepTheLessonWithNothingFocused()
    {
        activate();
        QVERIFY(lessons()->start(m_window->lessonActions()->lessons().front()));
        if (QWidget *f = QApplication::focusWidget())
            f->clearFocus();
        const QString start = position();
        QTest::keyClick(m_window.get(), Qt::Key_Right);
        QVERIFY2(position() != start, qPrintable(position()));
        QTest::keyClick(m_window.get(), Qt::Key_Left);
        QCOMPARE(position(), start);
    }

    void clickerKeysStepTheLessonAndNeverPanTheFocusedChart_data()
    {
        QTest::addColumn<int>("forward");
        QTest::addColumn<int>("backward");
        QTest::newRow("arrows") << int(Qt::Key_Right) << int(Qt::Key_Left);
        QTest::newRow("space and page up") << int(Qt::Key_Space) << int(Qt::Key_PageUp);
        QTest::newRow("page down and page up") << int(Qt::Key_PageDown) << int(Qt::Key_PageUp);
    }
    void clickerKeysStepTheLessonAndNeverPanTheFocusedChart()
    {
        QFETCH(int, forward);
        QFETCH(int, backward);
        activate();
        QVERIFY(lessons()->start(m_window->lessonActions()->lessons().front()));
        ui::ChartView *view = currentView();
        QVERIFY(view);
        view->setFocus();
        QTRY_VERIFY(view->hasFocus());
        const QString start = position();
        for (int i = 0; i < 3; ++i)
            QTest::keyClick(view, static_cast<Qt::Key>(forward));
        QVERIFY2(position() != start, qPrintable(position()));
        for (ui::ChartView *v : m_window->findChildren<ui::ChartView *>())
            QVERIFY2(!v->isUserView(), "a lesson key panned a chart");
        for (int i = 0; i < 3; ++i)
            QTest::keyClick(QApplication::focusWidget(), static_cast<Qt::Key>(backward));
        QCOMPARE(position(), start);
    }

    void arrowsStepTheLessonAfterClickingItsButton()
    {
        activate();
        QVERIFY(lessons()->start(m_window->lessonActions()->lessons().front()));
        QPushButton *next = m_window->lessonActions()->panel()->nextButton();
        QTRY_VERIFY(next->isVisible());
        next->setFocus(); // a click gives a button the focus
        QTest::mouseClick(next, Qt::LeftButton);
        QTRY_VERIFY(next->hasFocus());
        const QString afterClick = position();
        QTest::keyClick(next, Qt::Key_Right);
        QVERIFY2(position() != afterClick, qPrintable(position()));
        QVERIFY2(next->hasFocus(), "the arrow moved the focus instead of stepping");
    }

    void homeAndEndGoToTheFirstAndLastStep()
    {
        activate();
        QVERIFY(lessons()->start(m_window->lessonActions()->lessons().front()));
        ui::ChartView *view = currentView();
        view->setFocus();
        QTRY_VERIFY(view->hasFocus());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_End);
        QCOMPARE(lessons()->stepIndex(), lessons()->stepCount() - 1);
        QVERIFY(lessons()->atEnd());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Home);
        QCOMPARE(lessons()->stepIndex(), 0);
        for (ui::ChartView *v : m_window->findChildren<ui::ChartView *>())
            QVERIFY(!v->isUserView());
    }

    void withoutALessonTheArrowsPanTheChartAsBefore()
    {
        activate();
        ui::ChartView *view = currentView();
        view->setFocus();
        QTRY_VERIFY(view->hasFocus());
        QVERIFY(!view->isUserView());
        QTest::keyClick(view, Qt::Key_Right);
        QVERIFY(view->isUserView());
    }
};

int main(int argc, char **argv)
{
    // Under the offscreen platform, two screens the size of a projector and of an old laptop, side by side: the
    // window must fit each. (Qt 6.4's offscreen platform reads its screens from a JSON file; under xcb the X server's
    // screens are used as they are.)
    QTemporaryDir dir;
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen" && dir.isValid()) {
        QFile config(dir.filePath("screens.json"));
        const QByteArray json = R"({"screens": [
            {"name": "projector", "x": 0, "y": 0, "width": 1280, "height": 720, "logicalDpi": 96},
            {"name": "laptop", "x": 1280, "y": 0, "width": 1024, "height": 768, "logicalDpi": 96}]})";
        if (config.open(QIODevice::WriteOnly) && config.write(json) == json.size() && config.flush())
            qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.fileName().toLocal8Bit());
    }
    QApplication app(argc, argv);
    TstClassroom test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_classroom.moc"
