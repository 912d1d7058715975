// The batch sweep chart: its markers follow the document and core::answerBatchSweep, a click sets the batch, and
// compare mode adds scenario B's curves (dashed) under legend names that never change with the batch.
#include "core/analysis/analysis.h"
#include "ui/charts/chartview.h"
#include "ui/charts/sweepchart.h"
#include "ui/document/scenariodocument.h"
#include "ui/settings/theme.h"

#include "core/analysis/sweep.h"
#include "core/io/presets.h"
#include "painted.h"
#include "uitest.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace memwall;

namespace {

using uitest::library;

bool near(double a, double b, double rel = 1e-9) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

void setBatch(ui::ScenarioDocument &doc, int64_t b)
{
    auto s = doc.scenario();
    s.batch = b;
    doc.setScenario(s, "batch", ui::ScenarioDocument::BatchKey);
}

/// Where the legend entry of `series` is drawn, in scene coordinates: the middle of the legend's text item that
/// shows the entry's label, read back from the scene (Qt Charts does not say where it put a marker). Null if the
/// entry is not shown.
QPointF legendEntryInScene(const QChart *chart, QAbstractSeries *series)
{
    const QList<QLegendMarker *> markers = chart->legend()->markers(series);
    if (markers.size() != 1 || !markers[0]->isVisible() || !chart->scene())
        return {};
    for (const QGraphicsItem *item : chart->scene()->items()) {
        const auto *text = qgraphicsitem_cast<const QGraphicsTextItem *>(item);
        if (text && text->isVisible() && chart->legend()->isAncestorOf(text) &&
            text->toPlainText() == markers[0]->label())
            return text->sceneBoundingRect().center();
    }
    return {};
}

} // namespace

class TestSweepChart : public QObject
{
    Q_OBJECT
private slots:
    void nearestPowerOfTwo_data();
    void nearestPowerOfTwo();
    void axisBase();
    void markerFollowsBatch_data();
    void markerFollowsBatch();
    void computeAndMemoryLinesBothVisible_data();
    void computeAndMemoryLinesBothVisible();
    void markersMatchCore_data();
    void markersMatchCore();
    void clickSetsBatchUndoably();
    void exportData();
    void compareCurves_data();
    void compareCurves();
    void compareNamesStayOnBatchTicks();
    void compareOffRemovesEverySeries();
    void legendClickHidesACurve_data();
    void legendClickHidesACurve();
    void achievableBandAroundTheCurve_data();
    void achievableBandAroundTheCurve();
};

void TestSweepChart::nearestPowerOfTwo_data()
{
    QTest::addColumn<double>("batch");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("1 -> 1") << 1.0 << qint64(1);
    QTest::newRow("2.7 -> 2 (below sqrt 8)") << 2.7 << qint64(2);
    QTest::newRow("2.9 -> 4 (above sqrt 8)") << 2.9 << qint64(4);
    QTest::newRow("90 -> 64") << 90.0 << qint64(64);
    QTest::newRow("100 -> 128") << 100.0 << qint64(128);
    QTest::newRow("0.3 clamps to 1") << 0.3 << qint64(1);
    QTest::newRow("1e6 clamps to 4096") << 1e6 << qint64(4096);
    QTest::newRow("NaN gives 1") << std::nan("") << qint64(1);
    QTest::newRow("negative gives 1") << -5.0 << qint64(1);
}

void TestSweepChart::nearestPowerOfTwo()
{
    QFETCH(double, batch);
    QFETCH(qint64, expected);
    QCOMPARE(ui::sweepmath::nearestPowerOfTwo(batch), expected);
}

void TestSweepChart::axisBase()
{
    // 13 labels of 30 px need 13 x 38 = 494 px: base 2 on 600 px, every second power on 300 px.
    QCOMPARE(ui::sweepmath::axisBase(600, 30), 2);
    QCOMPARE(ui::sweepmath::axisBase(300, 30), 4);
    QCOMPARE(ui::sweepmath::axisBase(200, 30), 8);  // 5 labels
    QCOMPARE(ui::sweepmath::axisBase(100, 30), 16); // the sparsest
    QCOMPARE(ui::sweepmath::batchSizes().size(), std::size_t(13));
    QCOMPARE(ui::sweepmath::batchSizes().back(), int64_t(4096));
}

void TestSweepChart::markerFollowsBatch_data()
{
    QTest::addColumn<qint64>("batch");
    QTest::newRow("batch 1") << qint64(1);
    QTest::newRow("batch 16") << qint64(16);
    QTest::newRow("batch 100 (between powers of two)") << qint64(100);
    QTest::newRow("batch 4096") << qint64(4096);
}

void TestSweepChart::markerFollowsBatch()
{
    QFETCH(qint64, batch);
    ui::ScenarioDocument doc(library());
    ui::SweepChart chart(&doc);
    setBatch(doc, batch);
    const QPointF m = chart.currentMarker();
    QCOMPARE(m.x(), double(batch));
    QVERIFY(near(m.y(), doc.analysis().totals.timeS * 1e3));
    QVERIFY(chart.chart()->title().size() > 0);
}

void TestSweepChart::markersMatchCore_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("phase");
    QTest::addColumn<qint64>("context");
    QTest::newRow("Llama 2 70B decode, context 2048: memory-bound throughout")
        << "llama-2-70b" << int(core::Phase::Decode) << qint64(2048);
    QTest::newRow("Llama 2 70B decode, context 512: turns compute-bound")
        << "llama-2-70b" << int(core::Phase::Decode) << qint64(512);
    QTest::newRow("Llama 2 7B decode, context 512: fits up to a batch")
        << "llama-2-7b" << int(core::Phase::Decode) << qint64(512);
    QTest::newRow("Llama 2 7B prefill: compute-bound from batch 1")
        << "llama-2-7b" << int(core::Phase::Prefill) << qint64(512);
}

void TestSweepChart::markersMatchCore()
{
    QFETCH(QString, model);
    QFETCH(int, phase);
    QFETCH(qint64, context);
    ui::ScenarioDocument doc(library());
    doc.setModelById(model);
    auto s = doc.scenario();
    s.phase = static_cast<core::Phase>(phase);
    s.context = context;
    s.seq = 512;
    doc.setScenario(s, "setup");
    ui::SweepChart chart(&doc);

    const auto rows = core::sweep(doc.hardware(), doc.model(), doc.scenario(), {core::parseSweepAxis("batch=1:4096")});
    const auto answers = core::answerBatchSweep(rows);
    QCOMPARE(chart.computeBoundBatch(), answers.firstComputeBound);
    // The memory line is at the exact limit: it fits, one more does not, and no swept power of two beyond it fits.
    const int64_t limit = chart.memoryLimitBatch();
    QVERIFY(limit >= answers.largestFitting);
    QVERIFY(answers.largestFitting == 0 || answers.largestFitting == 4096 || limit < 2 * answers.largestFitting);
    if (limit > 0) {
        auto at = doc.scenario();
        at.batch = limit;
        QVERIFY(core::analyze(doc.hardware(), doc.model(), at).memory.fits);
        at.batch = limit + 1;
        QVERIFY(!core::analyze(doc.hardware(), doc.model(), at).memory.fits);
    }
    // The line marks the whole step turning compute-bound, else the weight matmuls (0 = line hidden).
    const int64_t marked = answers.firstComputeBound > 0 ? answers.firstComputeBound : answers.firstLinearComputeBound;
    QCOMPARE(chart.computeLineX(), double(marked));
    QCOMPARE(chart.memoryLineX(), double(limit));
    if (marked > 0)
        QVERIFY(chart.computeLabel().contains(QString::number(marked)));
    else
        QVERIFY(chart.computeLabel().contains("memory-bound"));
    if (limit > 0)
        QVERIFY(chart.memoryLabel().contains(QString::number(limit)));
    else
        QVERIFY(chart.memoryLabel().contains("does not fit"));
}

void TestSweepChart::computeAndMemoryLinesBothVisible_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<double>("ratio"); // the memory limit over the compute-bound batch
    QTest::addColumn<QString>("themeId");
    for (const char *model : {"llama-2-7b", "llama-2-70b"})
        for (double ratio : {1.0, 1.01, 0.99})
            for (const char *th : {"light", "presentation"})
                QTest::addRow("%s x%g %s", model, ratio, th) << QString(model) << ratio << QString(th);
}

void TestSweepChart::computeAndMemoryLinesBothVisible()
{
    // A device whose memory fits exactly (or almost exactly) up to the batch where decode turns compute-bound: the
    // two vertical lines meet. Read back from the scene, both lines are drawn with their strokes apart, each label
    // is clear of the other line and of the other label, and the values stay exact.
    QFETCH(QString, model);
    QFETCH(double, ratio);
    QFETCH(QString, themeId);
    ui::ScenarioDocument doc(library());
    doc.setModelById(model);
    ui::SweepChart chart(&doc);
    chart.setTheme(ui::Theme::byId(themeId));
    const int64_t compute = static_cast<int64_t>(chart.computeLineX());
    QVERIFY(compute > 1);
    const int64_t target = std::max<int64_t>(1, std::llround(double(compute) * ratio));
    // the capacity whose largest fitting batch is `target` (bisection: the limit grows with the capacity)
    core::HardwareSpec hw = doc.hardware();
    const std::size_t main = hw.mainMemoryIndex();
    double lo = 1e9, hi = 1e15;
    for (int i = 0; i < 200 && chart.memoryLimitBatch() != target; ++i) {
        hw.memory[main].capacityBytes.value = std::sqrt(lo * hi);
        doc.setHardware(hw, true);
        (chart.memoryLimitBatch() < target ? lo : hi) = hw.memory[main].capacityBytes.value;
    }
    QCOMPARE(chart.memoryLimitBatch(), target);
    QCOMPARE(chart.computeLineX(), double(compute));
    QCOMPARE(chart.memoryLineX(), double(target));

    QChartView view(chart.chart());
    view.resize(1024, 640);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QChart *c = chart.chart();
    QLineSeries *computeLine = nullptr, *memoryLine = nullptr;
    for (QAbstractSeries *series : c->series())
        if (auto *l = qobject_cast<QLineSeries *>(series); l && l->isVisible() && l->count() == 2) {
            if (l->name() == "Turns compute-bound")
                computeLine = l;
            else if (l->name() == "Largest batch that fits")
                memoryLine = l;
        }
    QVERIFY(computeLine && memoryLine);
    const qreal xc = c->mapToPosition(computeLine->at(0), computeLine).x();
    const qreal xm = c->mapToPosition(memoryLine->at(0), memoryLine).x();
    const qreal halfStrokes = (computeLine->pen().widthF() + memoryLine->pen().widthF()) / 2;
    QVERIFY2(
        std::abs(xc - xm) >= halfStrokes + 2,
        qPrintable(QString("the lines are drawn %1 px apart, strokes %2 px").arg(std::abs(xc - xm)).arg(halfStrokes)));
    // each is still where its value maps, within the few pixels that keep them apart
    const qreal xcExact = c->mapToPosition(QPointF(double(compute), 1), computeLine).x();
    const qreal xmExact = c->mapToPosition(QPointF(double(target), 1), memoryLine).x();
    QVERIFY(std::abs(xc - xcExact) <= halfStrokes + 4 && std::abs(xm - xmExact) <= halfStrokes + 4);
    QVERIFY((xc < xm) == (compute < target) || compute == target);
    // the labels: shown, clear of each other and of the other line's stroke
    const QGraphicsSimpleTextItem *computeText = nullptr, *memoryText = nullptr;
    for (QGraphicsItem *item : c->childItems())
        if (auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(item); t && t->isVisible()) {
            if (t->text() == chart.computeLabel())
                computeText = t;
            else if (t->text() == chart.memoryLabel())
                memoryText = t;
        }
    QVERIFY(computeText && memoryText);
    const QRectF ct = computeText->mapRectToParent(computeText->boundingRect());
    const QRectF mt = memoryText->mapRectToParent(memoryText->boundingRect());
    QVERIFY(!ct.intersects(mt));
    auto stroke = [&](qreal x, const QLineSeries *l) {
        return QRectF(x - l->pen().widthF() / 2, c->plotArea().top(), l->pen().widthF(), c->plotArea().height());
    };
    QVERIFY2(!ct.intersects(stroke(xm, memoryLine)), "the memory line runs through the compute label");
    QVERIFY2(!mt.intersects(stroke(xc, computeLine)), "the compute line runs through the memory label");
}

void TestSweepChart::clickSetsBatchUndoably()
{
    ui::ScenarioDocument doc(library());
    doc.setModelById("llama-2-7b");
    auto chart = std::make_unique<ui::SweepChart>(&doc);
    QChartView view(chart->chart());
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();

    const int before = doc.undoStack()->count();
    QCOMPARE(doc.scenario().batch, int64_t(1));
    // A click just right of the 64 grid line (value 70: nearest power of two 64), halfway up the plot.
    const QRectF area = chart->chart()->plotArea();
    const qreal x = chart->chart()->mapToPosition(QPointF(70, 1)).x();
    const QPointF chartPos(x, area.top() + area.height() * 0.37);
    QCOMPARE(chart->batchAt(chartPos), int64_t(64));
    const QPoint viewPos = view.mapFromScene(chart->chart()->mapToScene(chartPos));
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, viewPos);
    QCOMPARE(doc.scenario().batch, int64_t(64));
    QCOMPARE(doc.undoStack()->count(), before + 1);
    QCOMPARE(chart->currentMarker().x(), 64.0);
    // Outside the plot nothing is selected.
    QCOMPARE(chart->batchAt(QPointF(area.left() - 5, area.center().y())), int64_t(0));

    doc.undoStack()->undo();
    QCOMPARE(doc.scenario().batch, int64_t(1));
    QCOMPARE(chart->currentMarker().x(), 1.0);
    doc.undoStack()->redo();
    QCOMPARE(doc.scenario().batch, int64_t(64));

    view.setChart(new QChart); // hand the chart back to its owner before the view goes
}

void TestSweepChart::exportData()
{
    ui::ScenarioDocument doc(library());
    ui::SweepChart chart(&doc);
    QCOMPARE(chart.id(), QString("sweep"));
    const QStringList lines = chart.csv().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 14); // header + 13 batches
    // The one sweep CSV schema: the command line's columns (core::sweepCsvColumns()) after the batch.
    QCOMPARE(
        lines.first(),
        QString("batch,time_s,tokens_per_s,flops,bytes,arithmetic_intensity,bound,memory_bytes,fits,error,tpot_s"));
    QVERIFY(lines[1].startsWith("1,"));
    const auto j = chart.data();
    QCOMPARE(j.at("rows").size(), std::size_t(13));
    QCOMPARE(j.at("rows")[12].at("batch").get<int64_t>(), int64_t(4096));
    QCOMPARE(j.at("first_compute_bound_batch").get<int64_t>(), chart.computeBoundBatch());
}

// Llama-2-70B decode on an H100 against B; every B point is core::sweep on B's device and scenario.
void TestSweepChart::compareCurves_data()
{
    QTest::addColumn<QString>("device"); // "" = A's device
    QTest::addColumn<int>("weights");    // core::DType, -1 = same as A
    QTest::addColumn<bool>("bFasterAtBatch1");
    QTest::addColumn<qint64>("bLargestFitting");
    // fp16 needs 138 GB + KV: A fits at no batch on 80 GB. int4 weights (34.5 GB) leave ~45 GB for a 671 MB/sequence
    // KV cache at context 2048: batch 64 fits, 128 does not. MI300X (192 GB) holds fp16 up to batch 64 as well.
    QTest::newRow("H100 fp16 vs int4 weights") << "" << int(core::DType::INT4) << true << qint64(64);
    QTest::newRow("H100 vs MI300X (5.3 TB/s, 192 GB)") << "mi300x" << -1 << true << qint64(64);
    QTest::newRow("H100 vs A100 80GB (2.0 TB/s)") << "a100-80gb-sxm" << -1 << false << qint64(0);
}

void TestSweepChart::compareCurves()
{
    QFETCH(QString, device);
    QFETCH(int, weights);
    QFETCH(bool, bFasterAtBatch1);
    QFETCH(qint64, bLargestFitting);
    ui::ScenarioDocument doc(library());
    ui::SweepChart chart(&doc);
    QVERIFY(chart.compareRows().empty());
    ui::CompareSpec spec;
    if (!device.isEmpty())
        spec.hardware = *library()->findHardware(device.toStdString());
    if (weights >= 0)
        spec.weights = core::WeightFormat{static_cast<core::DType>(weights), 0, core::DType::FP16};
    doc.setCompare(spec);

    const auto rows =
        core::sweep(doc.compareDevice(), doc.model(), doc.compareScenario(), {core::parseSweepAxis("batch=1:4096")});
    const auto answers = core::answerBatchSweep(rows);
    QCOMPARE(chart.compareRows().size(), rows.size());
    QCOMPARE(chart.compareAnswers().largestFitting, answers.largestFitting);
    QCOMPARE(answers.largestFitting, bLargestFitting);
    // The dashed B curve holds the batches that fit B's device; the dotted one the rest (joined at the limit).
    QLineSeries *time = chart.compareTimeSeries();
    QLineSeries *over = chart.compareTimeOverSeries();
    QCOMPARE(time->pen().style(), Qt::DashLine);
    QCOMPARE(chart.compareRateSeries()->pen().style(), Qt::DashLine);
    QCOMPARE(over->pen().style(), Qt::DotLine);
    QVERIFY(time->isVisible() && chart.compareRateSeries()->isVisible());
    int fitting = 0;
    for (const auto &r : rows)
        fitting += r.scenario.batch <= answers.largestFitting;
    QCOMPARE(time->count(), fitting);
    for (int i = 0; i < time->count(); ++i)
        QVERIFY(near(time->at(i).y(), ui::sweepmath::latencyS(rows[std::size_t(i)]) * 1e3));
    QCOMPARE(over->count(), answers.largestFitting > 0 ? int(rows.size()) - fitting + 1 : int(rows.size()));
    QVERIFY(near(over->at(over->count() - 1).y(), ui::sweepmath::latencyS(rows.back()) * 1e3));
    // At batch 1 (the current batch) B's marker is B's analysis.
    const QPointF m = chart.compareMarker();
    QCOMPARE(m.x(), 1.0);
    QVERIFY(near(m.y(), doc.compareAnalysis()->totals.timeS * 1e3));
    QCOMPARE(m.y() < chart.currentMarker().y(), bFasterAtBatch1);
    // ... on both curves, as A's markers are.
    const QPointF mr = chart.compareRateMarker();
    QCOMPARE(mr.x(), 1.0);
    QVERIFY(near(mr.y(), doc.compareAnalysis()->totals.tokensPerS));
    // B's legend swatches differ from A's (a swatch shows colour, not dashes).
    QVERIFY(time->pen().color() != chart.timeSeries()->pen().color());
    QVERIFY(chart.compareRateSeries()->pen().color() != chart.rateSeries()->pen().color());
    // Both y axes span the same number of decades, so the right one's ticks sit on the left one's grid.
    const auto axes = chart.chart()->axes(Qt::Vertical);
    QCOMPARE(axes.size(), 2);
    const auto *left = qobject_cast<QLogValueAxis *>(axes[0]), *right = qobject_cast<QLogValueAxis *>(axes[1]);
    QVERIFY(left && right);
    QVERIFY(near(std::log10(left->max() / left->min()), std::log10(right->max() / right->min()), 1e-3));
    // Legend: "B: ms per token" and "B: tokens/s"; the title names B.
    QCOMPARE(time->name(), QString("B: ms per token"));
    QCOMPARE(chart.compareRateSeries()->name(), QString("B: tokens/s"));
    QVERIFY(chart.title().endsWith(" vs " + doc.compareLabel()));
    // Export: B's rows in the JSON, B's columns in the CSV.
    const auto j = chart.data();
    QCOMPARE(j.at("compare").at("rows").size(), rows.size());
    QVERIFY(near(j.at("compare").at("rows")[0].at("latency_s").get<double>(), ui::sweepmath::latencyS(rows[0])));
    const QStringList lines = chart.csv().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 14);
    const QStringList header = lines.first().split(',');
    QCOMPARE(header.size(), 21); // batch, then A's 10 columns and B's
    QCOMPARE(header.mid(11).join(','), QString("b_time_s,b_tokens_per_s,b_flops,b_bytes,b_arithmetic_intensity,b_bound,"
                                               "b_memory_bytes,b_fits,b_error,b_tpot_s"));
    for (const QString &l : lines)
        QCOMPARE(l.count(','), 20);
    const qsizetype bLatency =
        header.indexOf(rows[0].scenario.phase == core::Phase::Generate ? "b_tpot_s" : "b_time_s");
    QVERIFY(near(lines[1].split(',')[bLatency].toDouble(), ui::sweepmath::latencyS(rows[0]), 1e-15));
}

// A legend or title change re-lays out the whole chart: with B on, a batch tick changes neither.
void TestSweepChart::compareNamesStayOnBatchTicks()
{
    ui::ScenarioDocument doc(library());
    ui::SweepChart chart(&doc);
    ui::CompareSpec spec;
    spec.hardware = *library()->findHardware("mi300x");
    spec.weights = core::WeightFormat{core::DType::INT4, 128, core::DType::FP16};
    doc.setCompare(spec);
    auto names = [&chart] {
        QStringList out{chart.chart()->title()};
        for (const QAbstractSeries *s : chart.chart()->series())
            out << s->name();
        for (const QLegendMarker *m : chart.chart()->legend()->markers())
            out << m->label();
        return out;
    };
    const QStringList before = names();
    QVERIFY(before.contains("B: ms per token"));
    QList<QSignalSpy *> spies;
    for (QAbstractSeries *s : chart.chart()->series())
        spies << new QSignalSpy(s, &QAbstractSeries::nameChanged);
    for (int64_t b : {2, 3, 64, 100, 1024}) {
        setBatch(doc, b);
        QCOMPARE(chart.compareMarker().x(), double(b));
        QCOMPARE(names(), before);
    }
    for (QSignalSpy *spy : spies)
        QCOMPARE(spy->count(), 0);
    qDeleteAll(spies);
}

void TestSweepChart::compareOffRemovesEverySeries()
{
    ui::ScenarioDocument doc(library());
    ui::SweepChart chart(&doc);
    const QString csvBefore = chart.csv();
    const QString titleBefore = chart.title();
    ui::CompareSpec spec;
    spec.weights = core::WeightFormat{core::DType::INT4, 0, core::DType::FP16};
    doc.setCompare(spec);
    int shown = 0;
    for (const QAbstractSeries *s : chart.chart()->series())
        shown += s->objectName().startsWith("compare") && s->isVisible();
    QCOMPARE(shown, 6); // time, time past the limit, rate, rate past the limit, the current markers on both curves
    doc.setCompare(std::nullopt);
    for (const QAbstractSeries *s : chart.chart()->series())
        if (s->objectName().startsWith("compare"))
            QVERIFY2(!s->isVisible(), qPrintable(s->objectName()));
    QVERIFY(chart.compareRows().empty());
    QCOMPARE(chart.compareMarker(), QPointF());
    QVERIFY(!chart.data().contains("compare"));
    QCOMPARE(chart.csv(), csvBefore);
    QCOMPARE(chart.title(), titleBefore);
}

// A click on a legend entry hides its curve (with the curve's dashed part and, for B, B's marker on it), and the
// curve stays hidden when the document changes; a second click shows it again. B's curves are the ones a refresh
// shows again unless the chart remembers the click.
void TestSweepChart::legendClickHidesACurve_data()
{
    QTest::addColumn<bool>("compare");
    QTest::newRow("A: ms per token") << false;
    QTest::newRow("B: ms per token") << true;
}

void TestSweepChart::legendClickHidesACurve()
{
    QFETCH(bool, compare);
    ui::ScenarioDocument doc(library());
    doc.setModelById("llama-2-7b");
    auto chart = std::make_unique<ui::SweepChart>(&doc);
    if (compare) {
        ui::CompareSpec spec;
        spec.weights = core::WeightFormat{core::DType::INT4, 0, core::DType::FP16};
        doc.setCompare(spec);
    }
    ui::ChartView view(chart.get());
    view.resize(1000, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();

    QLineSeries *curve = compare ? chart->compareTimeSeries() : chart->timeSeries();
    QLineSeries *other = compare ? chart->compareRateSeries() : chart->rateSeries();
    QCOMPARE(curve->name(), compare ? QString("B: ms per token") : QString("ms per token"));
    QVERIFY(curve->isVisible());
    QVERIFY(!compare || !chart->compareMarker().isNull());
    auto clickEntry = [&] {
        const QPointF at = legendEntryInScene(chart->chart(), curve);
        QVERIFY2(!at.isNull(), "the legend shows no entry for the curve");
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(at));
    };

    clickEntry();
    QVERIFY(!curve->isVisible());
    QVERIFY(chart->isUserHidden(curve));
    QVERIFY(other->isVisible());
    if (compare) {
        QVERIFY(!chart->compareTimeOverSeries()->isVisible());
        QCOMPARE(chart->compareMarker(), QPointF()); // B's marker on the hidden curve goes with it
        QVERIFY(!chart->compareRateMarker().isNull());
    }

    setBatch(doc, 8); // a refresh
    QCOMPARE(chart->currentMarker().x(), 8.0);
    QVERIFY(!curve->isVisible());
    QVERIFY(other->isVisible());
    if (compare) {
        QVERIFY(!chart->compareTimeOverSeries()->isVisible());
        QCOMPARE(chart->compareMarker(), QPointF());
    }

    QCoreApplication::processEvents(); // the legend lays out its entry (kept, dimmed) again
    clickEntry();
    QVERIFY(curve->isVisible());
    QVERIFY(!chart->isUserHidden(curve));
    if (compare)
        QCOMPARE(chart->compareMarker().x(), 8.0);
}

QTEST_MAIN(TestSweepChart)
#include "tst_sweepchart.moc"

void TestSweepChart::achievableBandAroundTheCurve_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("achievable");
    QTest::addColumn<bool>("band");
    QTest::newRow("H100, achievable: the validation set's band") << "h100-sxm" << true << true;
    QTest::newRow("H100, ideal: a bound, no band") << "h100-sxm" << false << false;
    QTest::newRow("RTX 4090, achievable: no microbenchmarks, no band") << "rtx-4090" << true << false;
}

void TestSweepChart::achievableBandAroundTheCurve()
{
    QFETCH(QString, device);
    QFETCH(bool, achievable);
    QFETCH(bool, band);
    ui::ScenarioDocument doc(library());
    doc.setHardwareById(device);
    doc.setModelById("llama-2-7b");
    auto s = doc.scenario();
    s.efficiency = achievable ? core::EfficiencyMode::Achievable : core::EfficiencyMode::Ideal;
    doc.setScenario(s, "efficiency");
    ui::SweepChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();

    QCOMPARE(chart.bandSeries()->isVisible(), band);
    QCOMPARE(chart.data().at("latency_band").is_null(), !band);
    if (!band) {
        QVERIFY(chart.bandUpper().isEmpty());
        return;
    }
    // Around every fitting point of the time curve: 0.975 and 1.747 times its time (kAchievableBand).
    QList<QPointF> curve;
    for (QAbstractSeries *a : chart.chart()->series())
        if (auto *line = qobject_cast<QLineSeries *>(a); line && line->name().startsWith(QLatin1String("ms per")))
            curve = line->points();
    QVERIFY(curve.size() > 2);
    QCOMPARE(chart.bandUpper().size(), curve.size());
    for (qsizetype i = 0; i < curve.size(); ++i) {
        QCOMPARE(chart.bandUpper()[i].x(), curve[i].x());
        QVERIFY(near(chart.bandUpper()[i].y(), curve[i].y() * core::kAchievableBand.high));
        QVERIFY(near(chart.bandLower()[i].y(), curve[i].y() * core::kAchievableBand.low));
    }
    // Painted where its values map, and nowhere else in the plot: the pixels the band changes there (the same chart
    // drawn without it, axes unchanged; outside the plot only its legend swatch changes) all lie inside the polygon
    // of its bounds mapped by the axes, not by Qt Charts.
    const QImage with = view.viewport()->grab().toImage(); // viewport coordinates, as mapFromScene() gives
    chart.bandSeries()->setVisible(false);
    QCoreApplication::processEvents();
    const QImage without = view.viewport()->grab().toImage();
    chart.bandSeries()->setVisible(true);
    QPolygonF polygon;
    const auto toView = [&](const QPointF &value) {
        const QPointF at = uitest::expectedPosition(chart.chart(), chart.bandSeries(), value);
        return QPointF(view.mapFromScene(chart.chart()->mapToScene(at)));
    };
    for (const QPointF &p : chart.bandUpper())
        polygon << toView(p);
    const QList<QPointF> lower = chart.bandLower();
    for (qsizetype i = lower.size() - 1; i >= 0; --i)
        polygon << toView(lower[i]);
    // Inside the polygon, or within 2 px of its outline (antialiasing).
    const auto allowedAt = [&polygon](const QPointF &p) {
        if (polygon.containsPoint(p, Qt::OddEvenFill))
            return true;
        for (qsizetype i = 0; i < polygon.size(); ++i) {
            const QPointF a = polygon[i], b = polygon[(i + 1) % polygon.size()];
            const QPointF ab = b - a;
            const double len2 = QPointF::dotProduct(ab, ab);
            const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / len2, 0.0, 1.0) : 0.0;
            if (QLineF(p, a + t * ab).length() <= 2)
                return true;
        }
        return false;
    };
    QCOMPARE(with.size(), without.size());
    int changed = 0;
    const qreal dpr = with.devicePixelRatio();
    const QRectF plot = QRectF(view.mapFromScene(chart.chart()->mapToScene(chart.chart()->plotArea())).boundingRect());
    for (int y = 0; y < with.height(); ++y)
        for (int x = 0; x < with.width(); ++x)
            if (plot.contains(QPointF(x + 0.5, y + 0.5) / dpr) && with.pixel(x, y) != without.pixel(x, y)) {
                ++changed;
                QVERIFY2(allowedAt(QPointF(x + 0.5, y + 0.5) / dpr),
                         qPrintable(QStringLiteral("pixel (%1, %2) changed outside the band, from (%3, %4) to (%5, %6)")
                                        .arg(x)
                                        .arg(y)
                                        .arg(polygon.front().x())
                                        .arg(polygon.front().y())
                                        .arg(polygon.back().x())
                                        .arg(polygon.back().y())));
            }
    QVERIFY2(changed > 500, qPrintable(QString::number(changed))); // the band is painted, not just computed
}
