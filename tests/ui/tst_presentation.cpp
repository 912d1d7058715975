// Presentation mode: keyboard navigation between charts and lesson steps, Esc leaves, the laser dot follows the mouse.
#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/charts/chartview.h"
#include "ui/document/scenariodocument.h"
#include "ui/lessons/laserpointer.h"
#include "ui/lessons/lesson.h"
#include "ui/lessons/lessoncontroller.h"
#include "ui/lessons/lessonpanel.h"
#include "ui/lessons/presentationwindow.h"

#include <QMouseEvent>
#include <QSignalSpy>
#include <QtTest>

using namespace memwall;

class TestPresentation : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
    }

    void keysMoveBetweenCharts()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::PresentationWindow w(&doc, nullptr);
        w.resize(1280, 720);
        w.show();
        const QStringList ids = w.chartIds();
        QCOMPARE(ids, ui::chartIds());
        QVERIFY(ids.size() >= 2);
        QCOMPARE(w.currentIndex(), 0);
        QCOMPARE(w.currentChart()->id(), ids[0]);
        QTest::keyClick(&w, Qt::Key_Right);
        QCOMPARE(w.currentChartId(), ids[1]);
        QCOMPARE(w.currentChart()->id(), ids[1]);
        QTest::keyClick(&w, Qt::Key_PageDown);
        QCOMPARE(w.currentIndex(), 2 % ids.size());
        QTest::keyClick(&w, Qt::Key_PageUp);
        QTest::keyClick(&w, Qt::Key_Left);
        QCOMPARE(w.currentIndex(), 0);
        QTest::keyClick(&w, Qt::Key_Left); // wraps around
        QCOMPARE(w.currentIndex(), ids.size() - 1);
        QTest::keyClick(&w, Qt::Key_2);
        QCOMPARE(w.currentIndex(), 1);
        // Every chart shown is in the presentation theme.
        QCOMPARE(w.currentChart()->theme().id, QString("presentation"));
    }

    void escapeLeaves()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::PresentationWindow w(&doc, nullptr);
        w.show();
        QSignalSpy closed(&w, &ui::PresentationWindow::closed);
        QVERIFY(w.isVisible());
        QTest::keyClick(&w, Qt::Key_Escape);
        QCOMPARE(closed.count(), 1);
        QVERIFY(!w.isVisible());
    }

    void keysStepThroughALesson()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::LessonController c(&doc);
        const ui::LessonLoadResult loaded = ui::loadLessons(*m_lib);
        QVERIFY(!loaded.lessons.empty());
        // The lesson whose steps use the most different charts.
        const ui::Lesson *lesson = &loaded.lessons.front();
        for (const ui::Lesson &l : loaded.lessons) {
            QSet<QString> a, b;
            for (const auto &s : l.steps)
                a.insert(s.chart);
            for (const auto &s : lesson->steps)
                b.insert(s.chart);
            if (a.size() > b.size())
                lesson = &l;
        }
        ui::PresentationWindow w(&doc, &c);
        w.resize(1280, 720);
        w.show();
        QVERIFY(!w.caption()->isVisible());
        QVERIFY(c.start(*lesson));
        QVERIFY(w.caption()->isVisible());
        QVERIFY(w.caption()->captionMode());
        for (int i = 0; i < static_cast<int>(lesson->steps.size()); ++i) {
            QCOMPARE(c.stepIndex(), i);
            const QString chart = lesson->steps[static_cast<std::size_t>(i)].chart;
            if (w.chartIds().contains(chart))
                QCOMPARE(w.currentChartId(), chart);
            // → answers a step's question and reveals its pieces before it steps on.
            for (int press = 0; press < 20 && c.stepIndex() == i && !c.atEnd(); ++press)
                QTest::keyClick(&w, Qt::Key_Right);
        }
        QTest::keyClick(&w, Qt::Key_Right);
        QCOMPARE(c.stepIndex(), static_cast<int>(lesson->steps.size()) - 1); // stays on the last step
        QTest::keyClick(&w, Qt::Key_Left);
        QCOMPARE(c.stepIndex(), static_cast<int>(lesson->steps.size()) - 2);
        QTest::keyClick(&w, Qt::Key_1);
        QCOMPARE(c.stepIndex(), 0);
        c.stop();
        QVERIFY(!w.caption()->isVisible());
    }

    void laserDotFollowsTheMouse()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::PresentationWindow w(&doc, nullptr);
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ui::LaserPointer *laser = w.laserPointer();
        QVERIFY(laser);
        QVERIFY(!laser->isDotVisible());
        QWidget *viewport = w.currentView()->viewport();
        const QPointF pos(200, 150);
        QMouseEvent move(QEvent::MouseMove, pos, viewport->mapToGlobal(pos), Qt::NoButton, Qt::NoButton,
                         Qt::NoModifier);
        QCoreApplication::sendEvent(viewport, &move);
        QVERIFY(laser->isDotVisible());
        QCOMPARE(laser->dotPosition(), pos);
        QCOMPARE(laser->geometry(), viewport->rect());
        QVERIFY(laser->testAttribute(Qt::WA_TransparentForMouseEvents));
        QEvent leave(QEvent::Leave);
        QCoreApplication::sendEvent(viewport, &leave);
        QVERIFY(!laser->isDotVisible());
    }

private:
    std::shared_ptr<core::PresetLibrary> m_lib;
};

QTEST_MAIN(TestPresentation)
#include "tst_presentation.moc"
