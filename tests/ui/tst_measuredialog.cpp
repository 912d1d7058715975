// "Measure this computer": the dialog runs the measurement off the GUI thread, can be cancelled, and puts the
// measured machine on the roofline. No timing assertions: only that it ends and what it hands over.
#include "ui/document/measuredpoints.h"
#include "ui/document/scenariodocument.h"
#include "ui/widgets/measuredialog.h"

#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace memwall;

namespace {
core::MeasureOptions tinyRun()
{
    core::MeasureOptions o;
    o.budgetSeconds = 0.5;
    o.threads = 1;
    o.bandwidthBytes = 8u << 20;
    return o;
}
} // namespace

class TestMeasureDialog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
    }

    void budgetIsClamped()
    {
        ui::MeasureDialog d(nullptr, nullptr);
        core::MeasureOptions o;
        o.budgetSeconds = 60;
        d.setOptions(o);
        QCOMPARE(d.options().budgetSeconds, 10.0);
    }

    void runsAndShowsOnTheRoofline()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::MeasuredPoints points;
        QSignalSpy pointsChanged(&points, &ui::MeasuredPoints::changed);
        ui::MeasureDialog d(&doc, &points);
        d.setOptions(tinyRun());
        d.show();
        QSignalSpy measured(&d, &ui::MeasureDialog::measured);
        QVERIFY(!d.showButton()->isEnabled());
        QTest::mouseClick(d.startButton(), Qt::LeftButton);
        QVERIFY(d.isRunning());
        QVERIFY(d.cancelButton()->isEnabled());
        QVERIFY(!d.startButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(measured.count(), 1, 120000);
        QVERIFY(!d.isRunning());
        QVERIFY(d.hasResult());
        QCOMPARE(measured.front().front().toBool(), d.result().cancelled);
        QVERIFY(!d.result().cancelled);
        QVERIFY(d.result().memoryBandwidthBytesPerS > 0);
        QVERIFY(d.result().peakFlops > 0);
        QCOMPARE(d.progressBar()->value(), d.progressBar()->maximum());
        QVERIFY(d.summaryText().contains("Ridge point"));
        QVERIFY(d.showButton()->isEnabled());

        QTest::mouseClick(d.showButton(), Qt::LeftButton);
        QCOMPARE(QString::fromStdString(doc.hardware().id), ui::MeasuredPoints::deviceId());
        QVERIFY(doc.file().hardwareInline);
        QCOMPARE(pointsChanged.count(), 1);
        QVERIFY(points.hasResult());
        QCOMPARE(points.points().size(), d.result().points.size());
    }

    void cancelStopsTheRun()
    {
        ui::ScenarioDocument doc(m_lib);
        const std::string before = doc.file().hardware.id;
        ui::MeasureDialog d(&doc, nullptr);
        d.setOptions(tinyRun());
        QSignalSpy measured(&d, &ui::MeasureDialog::measured);
        d.start();
        d.cancel(); // before the first progress report: the run stops at its first check
        QTRY_COMPARE_WITH_TIMEOUT(measured.count(), 1, 120000);
        QVERIFY(measured.front().front().toBool());
        QVERIFY(d.result().cancelled);
        QCOMPARE(doc.file().hardware.id, before); // nothing changes without "Show on the roofline"
        QVERIFY(d.startButton()->isEnabled());
    }

    void closingWhileRunningIsSafe()
    {
        ui::ScenarioDocument doc(m_lib);
        auto *d = new ui::MeasureDialog(&doc, nullptr);
        d->setOptions(tinyRun());
        d->start();
        QVERIFY(d->isRunning());
        delete d;                          // cancels and joins the worker; a crash or a hang fails the suite
        QCoreApplication::processEvents(); // queued progress reports for the deleted dialog are dropped
    }

private:
    std::shared_ptr<core::PresetLibrary> m_lib;
};

QTEST_MAIN(TestMeasureDialog)
#include "tst_measuredialog.moc"
