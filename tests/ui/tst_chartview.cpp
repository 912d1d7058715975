// ChartView: the chart's option actions head its context menu, and a plain left click (no drag) reaches the chart
// while a drag pans — shown with the sweep chart, whose click sets the batch.
// GridItem: the grid of value and log axes, drawn in place of Qt Charts' own at Qt's tick positions.
// ChartBase suspension: a suspended chart only goes stale, and catches up once on resume or before export.
#include "ui/charts/chartfit.h"
#include "ui/charts/chartview.h"
#include "ui/charts/griditem.h"
#include "ui/charts/memorychart.h"
#include "ui/charts/rooflinechart.h"
#include "ui/charts/scalingchart.h"
#include "ui/charts/sweepchart.h"
#include "ui/charts/trendschart.h"
#include "ui/document/scenariodocument.h"

#include "core/io/presets.h"
#include "uitest.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QToolTip>
#include <QtTest>

#include <cmath>
#include <limits>
#include <memory>

using namespace memwall;

namespace {

using uitest::library;

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
    void zoomHintShowsOncePerSession();
    void gridTicks_data();
    void gridTicks();
    void gridFollowsTheAxes();
    void suspendedChartCatchesUp();
    void staticSeriesDrawnByTheBackground();
    void logRangeIsClamped_data();
    void logRangeIsClamped();
};

void TestChartView::logRangeIsClamped_data()
{
    // A device of 9e307 FLOP/s once drove QLogValueAxis into a recursion that overflowed the stack. Ranges from data
    // are clamped to 1e-30..1e30 and 40 decades; nonsense leaves the axis as it was (1..10).
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<bool>("set");
    QTest::addColumn<double>("wantLo");
    QTest::addColumn<double>("wantHi");
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("ordinary, widened a hair") << 1e-3 << 1e4 << true << 1e-3 * (1 - 1e-9) << 1e4 * (1 + 1e-9);
    QTest::newRow("9e307 and a denormal") << 5e-324 << 9e307 << true << 1e-10 << 1e30;
    QTest::newRow("60 decades keep the top 40")
        << 1e-20 << 1e28 * 0.99 << true << 0.99e-12 * (1 + 1e-9) << 0.99e28 * (1 + 1e-9);
    QTest::newRow("infinite") << 1.0 << inf << false << 1.0 << 10.0;
    QTest::newRow("NaN") << nan << 1e3 << false << 1.0 << 10.0;
    QTest::newRow("zero") << 0.0 << 1e3 << false << 1.0 << 10.0;
    QTest::newRow("empty") << 5.0 << 5.0 << false << 1.0 << 10.0;
    QTest::newRow("all below the floor") << 1e-40 << 1e-35 << false << 1.0 << 10.0;
}

void TestChartView::logRangeIsClamped()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(bool, set);
    QFETCH(double, wantLo);
    QFETCH(double, wantHi);
    QLogValueAxis axis;
    axis.setRange(1, 10);
    QCOMPARE(ui::chartfit::setLogRange(&axis, lo, hi), set);
    QVERIFY2(std::fabs(axis.min() / wantLo - 1) < 1e-12, qPrintable(QString::number(axis.min(), 'g', 17)));
    QVERIFY2(std::fabs(axis.max() / wantHi - 1) < 1e-12, qPrintable(QString::number(axis.max(), 'g', 17)));
}

void TestChartView::staticSeriesDrawnByTheBackground()
{
    // The roofline's roofs are drawn by the cached plot background, not by Qt Charts: the series are transparent,
    // yet the main memory slope shows on screen, and moves when the device changes (the cache follows the data).
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(1000, 650);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QLineSeries *ceiling = chart.ceilingSeries().value(0);
    QVERIFY(ceiling);
    QCOMPARE(ceiling->opacity(), 0.0);
    QVERIFY(ceiling->isVisible());

    // A point on the main (HBM) slope just right of the plot's left edge, far from labels and operator points.
    const auto *xAxis = qobject_cast<QLogValueAxis *>(chart.chart()->axes(Qt::Horizontal).value(0));
    QVERIFY(xAxis);
    const double x0 = xAxis->min() * 1.5;
    auto darkNear = [&](double bytesPerS) {
        const QPointF value(x0, x0 * bytesPerS / 1e12); // the axis is in TFLOP/s for an H100
        const QPoint px = view.mapFromScene(chart.chart()->mapToPosition(value, ceiling));
        const QImage img = view.viewport()->grab().toImage();
        for (int dy = -2; dy <= 2; ++dy)
            for (int dx = -2; dx <= 2; ++dx) {
                const QColor c = img.pixelColor(px + QPoint(dx, dy));
                if (c.red() + c.green() + c.blue() < 250) // the slope is drawn in the foreground colour
                    return true;
            }
        return false;
    };
    const double h100 = doc.analysis().bandwidth;
    QVERIFY(darkNear(h100));
    QVERIFY(!darkNear(h100 * 4)); // nothing drawn where no roof is
    doc.setHardwareById("a100-80gb-sxm");
    const double a100 = doc.analysis().bandwidth;
    QVERIFY(a100 < h100 * 0.7);
    QCoreApplication::processEvents();
    QVERIFY(darkNear(a100));
    QVERIFY(!darkNear(h100)); // the old slope is gone from the cached picture
}

void TestChartView::gridTicks_data()
{
    QTest::addColumn<QString>("kind"); // log or value
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<int>("setting"); // log: minor tick count; value: tick count (fixed) or -interval (dynamic)
    QTest::addColumn<QList<double>>("major");
    QTest::addColumn<int>("minors");
    // The roofline's axes: decades a hair wider than 1e-3..1e4 (applyRanges), 8 minor ticks = 2..9 per decade.
    QTest::newRow("log, seven decades, 8 minor") << "log" << 1e-3 * (1 - 1e-9) << 1e4 * (1 + 1e-9) << 8
                                                 << QList<double>{1e-3, 1e-2, 0.1, 1, 10, 100, 1e3, 1e4} << 56;
    QTest::newRow("log, -1 minor = every integer multiple")
        << "log" << 1.0 << 100.0 << -1 << QList<double>{1, 10, 100} << 16;
    QTest::newRow("log, partial decades at both ends")
        << "log" << 3.0 << 300.0 << 8 << QList<double>{10, 100} << 6 + 8 + 1; // 4..9, 20..90, 200
    QTest::newRow("value, fixed 11 ticks")
        << "value" << 0.0 << 100.0 << 11 << QList<double>{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100} << 0;
    QTest::newRow("value, every 5 years from 1997")
        << "value" << 1997.0 << 2023.0 << -5 << QList<double>{2000, 2005, 2010, 2015, 2020} << 0;
}

void TestChartView::gridTicks()
{
    QFETCH(QString, kind);
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(int, setting);
    QFETCH(QList<double>, major);
    QFETCH(int, minors);
    std::unique_ptr<QAbstractAxis> axis;
    if (kind == "log") {
        auto *log = new QLogValueAxis;
        log->setRange(min, max);
        log->setMinorTickCount(setting);
        axis.reset(log);
    } else {
        auto *value = new QValueAxis;
        value->setRange(min, max);
        if (setting > 0) {
            value->setTickCount(setting);
        } else {
            value->setTickType(QValueAxis::TicksDynamic);
            value->setTickAnchor(0);
            value->setTickInterval(-setting);
        }
        axis.reset(value);
    }
    const std::vector<double> got = ui::GridItem::majorTicks(axis.get());
    QCOMPARE(int(got.size()), int(major.size()));
    for (std::size_t i = 0; i < got.size(); ++i)
        QVERIFY2(std::abs(got[i] - major[int(i)]) <= 1e-9 * std::abs(major[int(i)]),
                 qPrintable(QString::number(got[i])));
    const std::vector<double> minor = ui::GridItem::minorTicks(axis.get());
    QCOMPARE(int(minor.size()), minors);
    for (double m : minor)
        QVERIFY(m > min && m < max);
}

void TestChartView::gridFollowsTheAxes()
{
    ui::ScenarioDocument doc(library());
    auto c = makeChart("memory", &doc); // a log x axis with minor ticks, a category y axis without a grid
    ui::ChartView view(c.get());
    view.resize(900, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ui::GridItem *grid = c->grid();
    QVERIFY(grid);
    auto *x = qobject_cast<QLogValueAxis *>(c->chart()->axes(Qt::Horizontal).value(0));
    QVERIFY(x);
    // Adopted: Qt's own grid draws nothing, the item draws one vertical line per decade at Qt's tick positions.
    QCOMPARE(x->gridLinePen().style(), Qt::NoPen);
    QCOMPARE(x->minorGridLinePen().style(), Qt::NoPen);
    ui::GridItem::Lines lines = grid->lines();
    const std::vector<double> decades = ui::GridItem::majorTicks(x);
    QCOMPARE(lines.majorX.size(), decades.size());
    QVERIFY(!lines.minorX.empty());
    QVERIFY(lines.majorY.empty()); // the category axis keeps Qt's (switched off) grid
    const QRectF area = c->chart()->plotArea();
    QVERIFY(std::abs(lines.majorX.front() - (area.left() + area.width() * std::log(decades.front() / x->min()) /
                                                               std::log(x->max() / x->min()))) < 1e-6);
    for (double px : lines.majorX)
        QVERIFY(px >= area.left() - 1e-6 && px <= area.right() + 1e-6);
    // Qt's switches and pens keep working: the item follows the switches, and Qt's lines stay empty.
    x->setMinorGridLineVisible(false);
    QVERIFY(grid->lines().minorX.empty());
    x->setGridLineVisible(false);
    QVERIFY(grid->lines().majorX.empty());
    x->setGridLinePen(QPen(Qt::red, 2));
    QCOMPARE(x->gridLinePen().style(), Qt::NoPen);
    // A new range moves the lines.
    x->setGridLineVisible(true);
    x->setRange(1e-2, 1e5);
    QCOMPARE(grid->lines().majorX.size(), std::size_t(8));
}

void TestChartView::suspendedChartCatchesUp()
{
    ui::ScenarioDocument doc(library());
    ui::SweepChart chart(&doc);
    const QPointF before = chart.currentMarker();
    chart.setSuspended(true);
    core::Scenario s = doc.scenario();
    s.batch = 64;
    doc.setScenario(s, "batch");
    QVERIFY(chart.isStale());
    QCOMPARE(chart.currentMarker(), before); // not followed while suspended
    chart.ensureCurrent();                   // as the exporter does
    QVERIFY(!chart.isStale());
    QCOMPARE(chart.currentMarker().x(), 64.0);
    s.batch = 8;
    doc.setScenario(s, "batch");
    QVERIFY(chart.isStale());
    chart.setSuspended(false); // resuming refreshes once
    QVERIFY(!chart.isStale());
    QCOMPARE(chart.currentMarker().x(), 8.0);
    s.batch = 16;
    doc.setScenario(s, "batch");
    QCOMPARE(chart.currentMarker().x(), 16.0); // followed again
}

void TestChartView::contextMenuStartsWithOptions_data()
{
    QTest::addColumn<QString>("chart");
    QTest::addColumn<int>("options");
    QTest::newRow("trends: base year, model size, training compute, added devices") << "trends" << 4;
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

// Issue #41 item 13: the zoom/pan help appeared on every hover, over the figures the user hovered for. It shows on
// the first hover of any chart view in a session, and never again (not on the next hover, nor on another view).
void TestChartView::zoomHintShowsOncePerSession()
{
    ui::ChartView::resetZoomHint();
    ui::ScenarioDocument doc(library());
    ui::SweepChart chart(&doc), other(&doc);
    ui::ChartView view(&chart), second(&other);
    for (ui::ChartView *v : {&view, &second}) {
        v->resize(600, 400);
        v->show();
        QVERIFY(QTest::qWaitForWindowExposed(v));
    }
    const auto hover = [](ui::ChartView *v) {
        const QPoint at(100, 100);
        QHelpEvent help(QEvent::ToolTip, at, v->mapToGlobal(at));
        QApplication::sendEvent(v, &help);
        const bool shown = QToolTip::isVisible() && QToolTip::text() == v->toolTip();
        QToolTip::hideText();
        const bool gone = QTest::qWaitFor([] { return !QToolTip::isVisible(); }, 5000); // it fades on a timer
        return gone ? shown : false;
    };
    QVERIFY(!ui::ChartView::zoomHintShown());
    QVERIFY(hover(&view));
    QVERIFY(ui::ChartView::zoomHintShown());
    QVERIFY(!hover(&view));
    QVERIFY(!hover(&second));
    QVERIFY(!view.toolTip().isEmpty()); // the text stays for accessibility and What's This
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
