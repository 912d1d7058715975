// ChartView: the chart's option actions head its context menu, and a plain left click (no drag) reaches the chart
// while a drag pans — shown with the sweep chart, whose click sets the batch.
#include "ui/charts/chartview.h"
#include "ui/charts/memorychart.h"
#include "ui/charts/scalingchart.h"
#include "ui/charts/sweepchart.h"
#include "ui/charts/trendschart.h"
#include "ui/document/scenariodocument.h"

#include "io/presets.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QMenu>
#include <QtTest>

#include <memory>

using namespace memwall;

namespace {

std::shared_ptr<core::PresetLibrary> library()
{
    static auto lib = [] {
        auto l = std::make_shared<core::PresetLibrary>();
        l->loadBuiltin();
        return l;
    }();
    return lib;
}

std::unique_ptr<ui::ChartBase> makeChart(const QString &id, ui::ScenarioDocument *doc)
{
    if (id == "trends")
        return std::make_unique<ui::TrendsChart>(doc);
    if (id == "scaling")
        return std::make_unique<ui::ScalingChart>(doc);
    if (id == "sweep")
        return std::make_unique<ui::SweepChart>(doc);
    return std::make_unique<ui::MemoryChart>(doc);
}

} // namespace

class TestChartView : public QObject
{
    Q_OBJECT
private slots:
    void contextMenuStartsWithOptions_data();
    void contextMenuStartsWithOptions();
    void clickReachesSweepChart();
    void dragPansWithoutSettingBatch();
};

void TestChartView::contextMenuStartsWithOptions_data()
{
    QTest::addColumn<QString>("chart");
    QTest::addColumn<int>("options");
    QTest::newRow("trends: base year, model size, training compute") << "trends" << 3;
    QTest::newRow("scaling: serial fraction, tensor, pipeline") << "scaling" << 3;
    QTest::newRow("memory: no options") << "memory" << 0;
}

void TestChartView::contextMenuStartsWithOptions()
{
    QFETCH(QString, chart);
    QFETCH(int, options);
    ui::ScenarioDocument doc(library());
    auto c = makeChart(chart, &doc);
    ui::ChartView view(c.get());
    view.resize(800, 500);

    std::unique_ptr<QMenu> menu(view.createContextMenu(QPoint(400, 250)));
    const QList<QAction *> items = menu->actions();
    const QList<QAction *> expected = c->optionActions();
    QCOMPARE(int(expected.size()), options);
    for (int i = 0; i < options; ++i)
        QCOMPARE(items[i], expected[i]);
    // Options, a separator, then "Reset view".
    const int reset = options > 0 ? options + 1 : 0;
    if (options > 0)
        QVERIFY(items[options]->isSeparator());
    QCOMPARE(items[reset], view.resetAction());
    for (QAction *a : items)
        if (!a->isSeparator())
            QVERIFY2(a->toolTip() != QString(a->text()).remove('&'), qPrintable(a->text())); // an explicit tooltip

    // The menu goes, the chart's actions stay.
    menu.reset();
    for (QAction *a : expected)
        QVERIFY(!a->text().isEmpty());
}

void TestChartView::clickReachesSweepChart()
{
    ui::ScenarioDocument doc(library());
    doc.setModelById("llama-2-7b");
    ui::SweepChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();

    const int before = doc.undoStack()->count();
    QCOMPARE(doc.scenario().batch, int64_t(1));
    // The plot background just right of the 64 grid line, away from the curves.
    const QRectF area = chart.chart()->plotArea();
    const qreal x = chart.chart()->mapToPosition(QPointF(70, 1)).x();
    const QPointF chartPos(x, area.top() + area.height() * 0.37);
    QCOMPARE(chart.batchAt(chartPos), int64_t(64));
    const QPoint viewPos = view.mapFromScene(chart.chart()->mapToScene(chartPos));
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, viewPos);
    QCOMPARE(doc.scenario().batch, int64_t(64));
    QCOMPARE(doc.undoStack()->count(), before + 1);
    QVERIFY(!view.isUserView()); // a click is not a pan
}

void TestChartView::dragPansWithoutSettingBatch()
{
    ui::ScenarioDocument doc(library());
    doc.setModelById("llama-2-7b");
    ui::SweepChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();

    const QRectF area = chart.chart()->plotArea();
    const QPointF chartPos(chart.chart()->mapToPosition(QPointF(70, 1)).x(), area.top() + area.height() * 0.37);
    const QPoint from = view.mapFromScene(chart.chart()->mapToScene(chartPos));
    const QPoint to = from + QPoint(3 * QApplication::startDragDistance() + 40, 0);
    const int undo = doc.undoStack()->count();
    QSignalSpy viewChanged(&view, &ui::ChartView::viewChanged);

    QTest::mousePress(view.viewport(), Qt::LeftButton, {}, from);
    QMouseEvent move(QEvent::MouseMove, QPointF(to), view.viewport()->mapToGlobal(QPointF(to)), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &move);
    QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, to);

    QVERIFY(view.isUserView());
    QVERIFY(viewChanged.count() >= 1);
    QCOMPARE(doc.scenario().batch, int64_t(1));
    QCOMPARE(doc.undoStack()->count(), undo);
}

QTEST_MAIN(TestChartView)
#include "tst_chartview.moc"
