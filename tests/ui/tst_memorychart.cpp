// The memory chart follows the document: weight format and parallelism change the per-device footprint bars, every
// memory level has its capacity bar, a footprint over main-memory capacity shows the warning state, and compare mode
// adds scenario B's footprint bar (and B's capacity on another device).
#include "ui/charts/callout.h"
#include "ui/charts/chartview.h"
#include "ui/charts/memorychart.h"
#include "ui/document/scenariodocument.h"
#include "ui/settings/theme.h"

#include "core/analysis/serving.h"
#include "core/io/presets.h"
#include "uitest.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QGraphicsLayout>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QtTest>

#include <cmath>
#include <memory>

using namespace memwall;
using ui::MemoryChart;

namespace {

using uitest::library;

bool near(double a, double b, double rel = 1e-6) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

} // namespace

class TestMemoryChart : public QObject
{
    Q_OBJECT
private slots:
    void barsMatchFootprint();
    void everyComponentLabelledOnSlides();
    void weightFormatShrinksWeights_data();
    void weightFormatShrinksWeights();
    void tensorParallelSplitsWeights_data();
    void tensorParallelSplitsWeights();
    void overCapacityWarns();
    void levelsFollowDevice_data();
    void levelsFollowDevice();
    void trainingAddsGradientsAndOptimizer();
    void stateSpaceModelShowsItsState();
    void tooltipAndLegend();
    void narrowLegendDropsSizes();
    void overflowFillIsSolid();
    void dataAndCsv();
    void compareAddsFootprintB_data();
    void compareAddsFootprintB();
    void compareOverCapacity();
    void compareOffRemovesEverySeries();
    void offloadDrawsOnTheTierRow_data();
    void offloadDrawsOnTheTierRow();
};

void TestMemoryChart::barsMatchFootprint()
{
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    QCOMPARE(chart.id(), QStringLiteral("memory"));
    const auto &m = doc.analysis().memory;
    QVERIFY(near(chart.componentBytes(MemoryChart::Weights), m.weights, 1e-9));
    QVERIFY(near(chart.componentBytes(MemoryChart::KvCache), m.kv, 1e-6));
    QCOMPARE(chart.componentBytes(MemoryChart::Gradients), 0.0); // inference: no gradients
    QVERIFY(!chart.componentSeries(MemoryChart::Gradients)->isVisible());
    // Not stacked (a log axis would misstate the shares): each component is its own stripe from the left edge to its
    // bytes, the stripes one under another in the footprint's row.
    const QLineSeries *w = chart.componentSeries(MemoryChart::Weights)->upperSeries();
    const QLineSeries *kv = chart.componentSeries(MemoryChart::KvCache)->upperSeries();
    QCOMPARE(kv->at(0).x(), w->at(0).x());
    QVERIFY(near(kv->at(1).x() * 1e9, m.kv, 1e-9));
    QVERIFY(near(w->at(1).x() * 1e9, m.weights, 1e-9));
    QVERIFY(kv->at(0).y() < w->at(0).y());
    QVERIFY(near(chart.componentSeries(MemoryChart::KvCache)->lowerSeries()->at(0).y(),
                 chart.componentSeries(MemoryChart::Activations)->upperSeries()->at(0).y()));
}

void TestMemoryChart::everyComponentLabelledOnSlides()
{
    // Llama 2 7B at batch 714 on an A100: the KV cache is 98 % of 781 GB, the activations 154 MB. On a
    // presentation-theme slide every component the legend names is labelled, inside the plot.
    ui::ScenarioDocument doc(library());
    doc.setHardwareById("a100-80gb-sxm");
    doc.setModelById("llama-2-7b");
    auto s = doc.scenario();
    s.batch = 714;
    doc.setScenario(s, "batch");
    MemoryChart chart(&doc);
    chart.setTheme(ui::Theme::presentation());
    ui::ChartView view(&chart);
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto &m = doc.analysis().memory;
    QVERIFY(m.kv / m.total() > 0.97);
    for (auto c : {MemoryChart::Weights, MemoryChart::KvCache, MemoryChart::Activations}) {
        QGraphicsSimpleTextItem *label = chart.componentLabel(c);
        QVERIFY(label);
        QVERIFY2(label->isVisible(), qPrintable(label->text()));
        QVERIFY(
            chart.chart()->plotArea().adjusted(-1, -1, 1, 1).contains(label->mapRectToParent(label->boundingRect())));
    }
    QVERIFY(chart.componentLabel(MemoryChart::KvCache)->text().contains("98 %"));
    QVERIFY(!chart.componentLabel(MemoryChart::Gradients) ||
            !chart.componentLabel(MemoryChart::Gradients)->isVisible());
}

void TestMemoryChart::weightFormatShrinksWeights_data()
{
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<int>("group");
    QTest::addColumn<double>("ratio");
    QTest::newRow("fp16 -> int4: 4x smaller") << "int4" << 0 << 4.0;
    QTest::newRow("fp16 -> int4 g128 (4.125 bits): 3.88x smaller") << "int4" << 128 << 16.0 / 4.125;
    QTest::newRow("fp16 -> int8: 2x smaller") << "int8" << 0 << 2.0;
}

void TestMemoryChart::weightFormatShrinksWeights()
{
    QFETCH(QString, dtype);
    QFETCH(int, group);
    QFETCH(double, ratio);
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    const double fp16 = chart.componentBytes(MemoryChart::Weights);
    const double kv = chart.componentBytes(MemoryChart::KvCache);
    core::Scenario s = doc.scenario();
    s.weights = core::WeightFormat{*core::dtypeFromString(dtype.toStdString()), group, core::DType::FP16};
    doc.setScenario(s, "weights");
    const double quant = chart.componentBytes(MemoryChart::Weights);
    QVERIFY2(near(fp16 / quant, ratio, 1e-3), qPrintable(QString::number(fp16 / quant)));
    QVERIFY(near(chart.componentBytes(MemoryChart::KvCache), kv, 1e-6)); // KV format unchanged
}

void TestMemoryChart::tensorParallelSplitsWeights_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::newRow("tp 8: weights / 8 per device") << 8 << 1;
    QTest::newRow("tp 2: weights / 2 per device") << 2 << 1;
    QTest::newRow("pp 4: weights / 4 per device") << 1 << 4;
}

void TestMemoryChart::tensorParallelSplitsWeights()
{
    QFETCH(int, tp);
    QFETCH(int, pp);
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    const double one = chart.componentBytes(MemoryChart::Weights);
    core::Scenario s = doc.scenario();
    s.tp = tp;
    s.pp = pp;
    doc.setScenario(s, "parallelism");
    QVERIFY(doc.analysisError().isEmpty());
    QVERIFY2(near(one / chart.componentBytes(MemoryChart::Weights), tp * pp, 1e-6),
             qPrintable(QString::number(one / chart.componentBytes(MemoryChart::Weights))));
    QVERIFY(chart.title().contains(QString("tp %1").arg(tp)));
}

void TestMemoryChart::overCapacityWarns()
{
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    // Llama 2 70B at FP16 = 138 GB of weights on one 80 GB H100
    QVERIFY(chart.overCapacity());
    QVERIFY(chart.overflowSeries()->isVisible());
    QCOMPARE(chart.fitText(), QStringLiteral("does not fit: 139 GB > 80 GB"));
    const QLineSeries *over = chart.overflowSeries()->upperSeries();
    QVERIFY(near(over->at(0).x() * 1e9, 80e9));
    QVERIFY(near(over->at(1).x() * 1e9, doc.analysis().memory.total()));
    QCOMPARE(chart.overflowSeries()->pen().color(), chart.theme().warning);
    // tp 2 fits (69 GB + KV per device)
    core::Scenario s = doc.scenario();
    s.tp = 2;
    doc.setScenario(s, "tp");
    QVERIFY(!chart.overCapacity());
    QVERIFY(!chart.overflowSeries()->isVisible());
    QVERIFY2(chart.fitText().startsWith("fits: "), qPrintable(chart.fitText()));
    // undo: back to the warning
    doc.undoStack()->undo();
    QVERIFY(chart.overCapacity());
    QVERIFY(chart.overflowSeries()->isVisible());
}

void TestMemoryChart::levelsFollowDevice_data()
{
    QTest::addColumn<QString>("hw");
    QTest::newRow("H100: SRAM, L2, HBM, host") << "h100-sxm";
    QTest::newRow("TPU v4: HBM only") << "tpu-v4";
    QTest::newRow("MI300X with Infinity Cache") << "mi300x";
}

void TestMemoryChart::levelsFollowDevice()
{
    QFETCH(QString, hw);
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    doc.setHardwareById(hw);
    const auto &levels = doc.hardware().memory;
    const QList<QAreaSeries *> bars = chart.levelSeries();
    QCOMPARE(static_cast<std::size_t>(bars.size()), levels.size());
    for (int i = 0; i < bars.size(); ++i) {
        QVERIFY(bars[i]->isVisible());
        QVERIFY(near(bars[i]->upperSeries()->at(1).x() * 1e9, levels[static_cast<std::size_t>(i)].capacityBytes.value));
    }
    QVERIFY(near(doc.analysis().memory.capacity, doc.hardware().mainMemory().capacityBytes.value));
}

void TestMemoryChart::trainingAddsGradientsAndOptimizer()
{
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    core::Scenario s = doc.scenario();
    s.phase = core::Phase::Train;
    s.tp = 8;
    doc.setScenario(s, "train");
    QVERIFY(chart.componentSeries(MemoryChart::Gradients)->isVisible());
    QVERIFY(chart.componentSeries(MemoryChart::Optimizer)->isVisible());
    QVERIFY(near(chart.componentBytes(MemoryChart::Optimizer), doc.analysis().memory.optimizer, 1e-6));
    // Adam: 12 bytes of optimizer state per parameter vs 2 bytes of FP16 weights
    QVERIFY(near(chart.componentBytes(MemoryChart::Optimizer) / chart.componentBytes(MemoryChart::Weights), 6.0, 1e-6));
}

void TestMemoryChart::stateSpaceModelShowsItsState()
{
    // Mamba-2 2.7B keeps a fixed state per sequence and no KV cache: the state is its own stripe, with
    // the bytes of the footprint (its legend entry names it), and the KV cache's stripe is gone. Growing the context
    // leaves the state alone.
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    doc.setModelById("mamba2-2-7b");
    core::Scenario s = doc.scenario();
    s.phase = core::Phase::Decode;
    s.batch = 64;
    s.context = 1000;
    doc.setScenario(s, "batch");
    const double state = doc.analysis().memory.state;
    QVERIFY(near(state, 64.0 * 85950464, 1e-12));
    QVERIFY(chart.componentSeries(MemoryChart::State)->isVisible());
    QVERIFY(near(chart.componentBytes(MemoryChart::State), state, 1e-9));
    QVERIFY(near(chart.componentSeries(MemoryChart::State)->upperSeries()->at(1).x() * 1e9, state, 1e-9));
    QVERIFY(!chart.componentSeries(MemoryChart::KvCache)->isVisible());
    QVERIFY2(chart.componentSeries(MemoryChart::State)->name().startsWith("Recurrent state"),
             qPrintable(chart.componentSeries(MemoryChart::State)->name()));
    s.context = 100000;
    doc.setScenario(s, "context");
    QVERIFY(near(chart.componentBytes(MemoryChart::State), state, 1e-9));
}

void TestMemoryChart::tooltipAndLegend()
{
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    QAreaSeries *weights = chart.componentSeries(MemoryChart::Weights);
    emit weights->hovered(QPointF(1, 4), true);
    QVERIFY(chart.callout()->isVisible());
    QVERIFY2(chart.callout()->text().contains("Weights per device"), qPrintable(chart.callout()->text()));
    QVERIFY(chart.callout()->text().contains("138 GB"));
    emit weights->hovered(QPointF(1, 4), false);
    QVERIFY(!chart.callout()->isVisible());
    const QList<QLegendMarker *> markers = chart.chart()->legend()->markers(weights);
    QCOMPARE(markers.size(), 1);
    QVERIFY(markers[0]->label().contains("138 GB"));
    emit markers[0]->clicked();
    QVERIFY(!weights->isVisible());
    emit markers[0]->clicked();
    QVERIFY(weights->isVisible());
}

void TestMemoryChart::dataAndCsv()
{
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    const nlohmann::json j = chart.data();
    QCOMPARE(j.at("levels").size(), doc.hardware().memory.size());
    QVERIFY(near(j.at("footprint_per_device").at("weights").get<double>(), doc.analysis().memory.weights));
    QCOMPARE(j.at("fits").get<bool>(), false);
    const QStringList lines = chart.csv().trimmed().split('\n');
    QCOMPARE(lines.first(), QStringLiteral("kind,name,bytes,bandwidth_bytes_per_s"));
    QCOMPARE(lines.filter(QRegularExpression("^level,")).size(), static_cast<int>(doc.hardware().memory.size()));
}

void TestMemoryChart::narrowLegendDropsSizes()
{
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    QAreaSeries *weights = chart.componentSeries(MemoryChart::Weights);
    chart.setTheme(ui::Theme::presentation());
    chart.chart()->resize(1920, 1080);
    chart.chart()->layout()->activate();
    QVERIFY(chart.chart()->legend()->markers(weights).first()->label().contains("138 GB"));
    // A slide-sized font in a small window: the sizes go, the names stay, the legend stays under the plot.
    chart.chart()->resize(1200, 700);
    chart.chart()->layout()->activate();
    QCOMPARE(chart.chart()->legend()->markers(weights).first()->label(), QString("Weights"));
    QCOMPARE(chart.chart()->legend()->alignment(), Qt::AlignBottom);
    chart.chart()->resize(1920, 1080);
    chart.chart()->layout()->activate();
    QVERIFY(chart.chart()->legend()->markers(weights).first()->label().contains("138 GB"));
}

void TestMemoryChart::overflowFillIsSolid()
{
    ui::ScenarioDocument doc(library()); // Llama 2 70B FP16 on one 80 GB H100: 139 GB does not fit
    MemoryChart chart(&doc);
    QVERIFY(chart.overCapacity());
    QVERIFY(chart.overflowSeries()->isVisible());
    for (const ui::Theme &t : {ui::Theme::light(), ui::Theme::dark(), ui::Theme::presentation()}) {
        chart.setTheme(t);
        // SVG renderers drop Qt's hatch patterns: a solid translucent warning fill draws the same everywhere.
        QCOMPARE(chart.overflowSeries()->brush().style(), Qt::SolidPattern);
        QCOMPARE(chart.overflowSeries()->brush().color().rgb(), t.warning.rgb());
        QVERIFY(chart.overflowSeries()->brush().color().alphaF() < 1.0);
    }
}

// Llama-2-70B decode at batch 1 on an H100 (138 GB of fp16 weights) against B.
void TestMemoryChart::compareAddsFootprintB_data()
{
    QTest::addColumn<QString>("device"); // "" = A's device
    QTest::addColumn<int>("weights");    // core::DType, -1 = same as A
    QTest::addColumn<int>("group");
    QTest::addColumn<double>("weightsB");  // B's weights bar, bytes
    QTest::addColumn<double>("capacityB"); // B's capacity row, bytes; 0 = no row (same device)
    QTest::newRow("fp16 -> int4 on H100: 138 GB -> 34.5 GB") << "" << int(core::DType::INT4) << 0 << 138e9 / 4 << 0.0;
    QTest::newRow("fp16 -> int4-g128 on H100: 138 GB -> 35.6 GB (4.125 bits)")
        << "" << int(core::DType::INT4) << 128 << 138e9 * 4.125 / 16 << 0.0;
    QTest::newRow("H100 vs MI300X: same 138 GB, B's capacity 192 GB") << "mi300x" << -1 << 0 << 138e9 << 192e9;
    QTest::newRow("H100 vs MI300X int4: 34.5 GB against 192 GB")
        << "mi300x" << int(core::DType::INT4) << 0 << 138e9 / 4 << 192e9;
}

void TestMemoryChart::compareAddsFootprintB()
{
    QFETCH(QString, device);
    QFETCH(int, weights);
    QFETCH(int, group);
    QFETCH(double, weightsB);
    QFETCH(double, capacityB);
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    chart.chart()->resize(900, 600);
    const int levels = chart.levelSeries().size();
    auto *y = qobject_cast<QCategoryAxis *>(chart.chart()->axes(Qt::Vertical).value(0));
    QVERIFY(y);
    const int rowsBefore = y->count();
    ui::CompareSpec spec;
    if (!device.isEmpty())
        spec.hardware = *library()->findHardware(device.toStdString());
    if (weights >= 0)
        spec.weights = core::WeightFormat{static_cast<core::DType>(weights), group, core::DType::FP16};
    doc.setCompare(spec);
    QVERIFY(doc.compareAnalysis());
    const core::MemoryFootprint &b = doc.compareAnalysis()->memory;

    // B's bars are B's analysis, pinned to the published size (Llama-2-70B: 69.0 B parameters, 138 GB in fp16).
    QVERIFY(near(chart.componentBytes(MemoryChart::Weights), 138e9, 0.01));
    QVERIFY(near(chart.compareComponentBytes(MemoryChart::Weights), weightsB, 0.01));
    QVERIFY(near(chart.compareComponentBytes(MemoryChart::Weights), b.weights, 1e-9));
    QVERIFY(near(chart.compareComponentBytes(MemoryChart::KvCache), b.kv, 1e-6));
    QVERIFY(chart.compareComponentSeries(MemoryChart::Weights)->isVisible());
    QVERIFY(!chart.compareComponentSeries(MemoryChart::Gradients)->isVisible());
    // Stacked on its own row, under A's.
    const QLineSeries *wa = chart.componentSeries(MemoryChart::Weights)->upperSeries();
    const QLineSeries *wb = chart.compareComponentSeries(MemoryChart::Weights)->upperSeries();
    const QLineSeries *kvb = chart.compareComponentSeries(MemoryChart::KvCache)->upperSeries();
    QVERIFY(wb->at(0).y() < wa->at(0).y());
    QCOMPARE(kvb->at(0).x(), wb->at(0).x()); // one stripe each, from the left edge
    // Same colours as A's parts: one legend entry stands for both.
    QCOMPARE(chart.compareComponentSeries(MemoryChart::Weights)->brush().color(),
             chart.componentSeries(MemoryChart::Weights)->brush().color());
    // A's levels stay; B's main memory gets a row when B runs on another device.
    QCOMPARE(chart.levelSeries().size(), levels);
    QCOMPARE(chart.compareCapacitySeries()->isVisible(), capacityB > 0);
    QCOMPARE(chart.compareCapacityBytes(), capacityB);
    QCOMPARE(y->count(), rowsBefore + (capacityB > 0 ? 2 : 1));
    QVERIFY(y->categoriesLabels().contains("B\nper device"));
    QCOMPARE(b.capacity, capacityB > 0 ? capacityB : 80e9);
    QVERIFY(b.fits);
    QVERIFY(!chart.compareOverCapacity());
    QVERIFY2(chart.compareFitText().startsWith(doc.compareLabel() + " — fits: "), qPrintable(chart.compareFitText()));

    const nlohmann::json j = chart.data();
    QCOMPARE(j.at("compare").at("label").get<std::string>(), doc.compareLabel().toStdString());
    QVERIFY(near(j.at("compare").at("footprint_per_device").at("weights").get<double>(), b.weights, 1e-12));
    QCOMPARE(j.at("compare").at("capacity_bytes").get<double>(), b.capacity);
    const QStringList lines = chart.csv().trimmed().split('\n');
    QCOMPARE(lines.filter(QRegularExpression("^b_footprint,")).size(), int(MemoryChart::ComponentCount) + 1);
    QCOMPARE(lines.filter(QRegularExpression("^b_level,")).size(), 1);
    QVERIFY(lines.contains(QString("b_footprint,weights,%1,").arg(b.weights, 0, 'g', 17)));
}

// B in fp32 on the H100: 276 GB of weights do not fit 80 GB; the verdict and the overlay say so.
void TestMemoryChart::compareOverCapacity()
{
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    ui::CompareSpec spec;
    spec.weights = core::WeightFormat{core::DType::FP32, 0, core::DType::FP16};
    doc.setCompare(spec);
    QVERIFY(near(chart.compareComponentBytes(MemoryChart::Weights), 276e9, 0.01));
    QVERIFY(chart.compareOverCapacity());
    QVERIFY(chart.compareOverflowSeries()->isVisible());
    QVERIFY(near(chart.compareOverflowSeries()->upperSeries()->at(0).x() * 1e9, 80e9));
    QVERIFY2(chart.compareFitText().startsWith("B: fp32 weights — does not fit: "), qPrintable(chart.compareFitText()));
    QVERIFY(!chart.compareCapacitySeries()->isVisible()); // same device: A's capacity line is B's
    QCOMPARE(chart.data().at("compare").at("fits").get<bool>(), false);
}

void TestMemoryChart::compareOffRemovesEverySeries()
{
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    auto *y = qobject_cast<QCategoryAxis *>(chart.chart()->axes(Qt::Vertical).value(0));
    const QStringList rowsBefore = y->categoriesLabels();
    const QString csvBefore = chart.csv();
    ui::CompareSpec spec;
    spec.hardware = *library()->findHardware("mi300x");
    spec.weights = core::WeightFormat{core::DType::FP32, 0, core::DType::FP16}; // over B's capacity too
    doc.setCompare(spec);
    QVERIFY(chart.compareOverCapacity());
    int shown = 0;
    for (const QAbstractSeries *s : chart.chart()->series())
        shown += s->objectName().startsWith("compare") && s->isVisible();
    QVERIFY(shown >= 5); // weights, KV cache, activations, overflow, capacity (and its line)
    doc.setCompare(std::nullopt);
    for (const QAbstractSeries *s : chart.chart()->series())
        if (s->objectName().startsWith("compare"))
            QVERIFY2(!s->isVisible(), qPrintable(s->objectName()));
    QCOMPARE(chart.compareFitText(), QString());
    QCOMPARE(y->categoriesLabels(), rowsBefore);
    QVERIFY(!chart.data().contains("compare"));
    QCOMPARE(chart.csv(), csvBefore);
}

// Offload (kv_offload, weight_offload): the bytes moved out of HBM are drawn on their tier's row, from the left edge to
// exactly what core::offload() reports, and the verdict names the tier. KV cache and weights in one tier share its
// row in two quarter stripes that do not overlap; turning offload off removes both bars.
void TestMemoryChart::offloadDrawsOnTheTierRow_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("tp");
    QTest::addColumn<qint64>("context");
    QTest::addColumn<qint64>("batch");
    QTest::addColumn<int>("kvTier");     // core::KvOffload
    QTest::addColumn<double>("kvShare"); // < 0: automatic (what does not fit)
    QTest::addColumn<int>("weightTier");
    QTest::addColumn<double>("weightShare");
    QTest::addColumn<QString>("kvRow"); // the tier's row name in the verdict, "" = no KV bar
    QTest::addColumn<QString>("weightRow");
    const int none = int(core::KvOffload::None), host = int(core::KvOffload::Host),
              storage = int(core::KvOffload::Storage);
    QTest::newRow("KV in host: Llama 3 70B tp8, 32 x 128k on H100s")
        << "h100-sxm"
        << "llama-3-70b" << 8 << qint64(131072) << qint64(32) << host << -1.0 << none << -1.0 << "Host"
        << "";
    QTest::newRow("weights in host: Llama 3 70B fp16 on one H100")
        << "h100-sxm"
        << "llama-3-70b" << 1 << qint64(2048) << qint64(1) << none << -1.0 << host << -1.0 << ""
        << "Host";
    QTest::newRow("both in host: one row, two stripes")
        << "h100-sxm"
        << "llama-3-70b" << 8 << qint64(131072) << qint64(32) << host << 0.5 << host << 0.1 << "Host"
        << "Host";
    QTest::newRow("KV on NVMe, weights in host on a B200")
        << "b200"
        << "llama-3-70b" << 8 << qint64(32768) << qint64(16) << storage << 0.25 << host << 0.1 << "NVMe"
        << "Host";
}

void TestMemoryChart::offloadDrawsOnTheTierRow()
{
    QFETCH(QString, device);
    QFETCH(QString, model);
    QFETCH(int, tp);
    QFETCH(qint64, context);
    QFETCH(qint64, batch);
    QFETCH(int, kvTier);
    QFETCH(double, kvShare);
    QFETCH(int, weightTier);
    QFETCH(double, weightShare);
    QFETCH(QString, kvRow);
    QFETCH(QString, weightRow);
    ui::ScenarioDocument doc(library());
    MemoryChart chart(&doc);
    chart.chart()->resize(900, 600);
    doc.setHardwareById(device);
    doc.setModelById(model);
    core::Scenario s = doc.scenario();
    s.phase = core::Phase::Decode;
    s.tp = tp;
    s.context = context;
    s.batch = batch;
    s.kvOffload = static_cast<core::KvOffload>(kvTier);
    if (kvShare >= 0)
        s.kvOffloadFraction = kvShare;
    s.weightOffload = static_cast<core::KvOffload>(weightTier);
    if (weightShare >= 0)
        s.weightOffloadFraction = weightShare;
    doc.setScenario(s, "offload");
    QVERIFY2(doc.analysisError().isEmpty(), qPrintable(doc.analysisError()));
    const core::OffloadReport o = core::offload(doc.hardware(), doc.model(), doc.scenario());

    auto *y = qobject_cast<QCategoryAxis *>(chart.chart()->axes(Qt::Vertical).value(0));
    QVERIFY(y);
    const int rows = y->count();
    // A bar on row r (counted from the top) lies inside r's band of the value axis: rows - 1 - r +- 0.5.
    auto checkBar = [&](const QAreaSeries *bar, int row, double bytes, const QString &rowName) {
        QVERIFY(bar->isVisible());
        QVERIFY(row >= 0 && row < rows);
        QVERIFY2(y->categoriesLabels().at(rows - 1 - row).startsWith(rowName),
                 qPrintable(y->categoriesLabels().at(rows - 1 - row)));
        const QLineSeries *up = bar->upperSeries(), *low = bar->lowerSeries();
        QVERIFY(near(up->at(1).x() * 1e9, bytes, 1e-9));
        QCOMPARE(up->at(0).x(), chart.componentSeries(MemoryChart::Weights)->upperSeries()->at(0).x());
        const double centre = rows - 1 - row;
        QVERIFY(up->at(0).y() <= centre + 0.5 && low->at(0).y() >= centre - 0.5);
        QVERIFY(up->at(0).y() > low->at(0).y());
    };
    if (kvRow.isEmpty()) {
        QCOMPARE(chart.offloadedBytes(), 0.0);
        QVERIFY(!chart.offloadSeries()->isVisible());
    } else {
        QVERIFY(o.offloadedBytes > 0);
        QVERIFY(near(chart.offloadedBytes(), o.offloadedBytes, 1e-12));
        checkBar(chart.offloadSeries(), chart.offloadRow(), o.offloadedBytes, kvRow);
        if (kvShare >= 0)
            QVERIFY(near(o.offloadedBytes, kvShare * doc.analysis().memory.kv, 1e-6));
    }
    if (weightRow.isEmpty()) {
        QCOMPARE(chart.offloadedWeightBytes(), 0.0);
        QVERIFY(!chart.offloadWeightSeries()->isVisible());
    } else {
        QVERIFY(o.offloadedWeightBytes > 0);
        QVERIFY(near(chart.offloadedWeightBytes(), o.offloadedWeightBytes, 1e-12));
        checkBar(chart.offloadWeightSeries(), chart.offloadWeightRow(), o.offloadedWeightBytes, weightRow);
        if (weightShare >= 0)
            QVERIFY(near(o.offloadedWeightBytes, weightShare * doc.analysis().memory.weights, 1e-9));
    }
    if (kvRow == weightRow && !kvRow.isEmpty()) {
        // One tier: the same row, the KV stripe above the weights' stripe, not overlapping.
        QCOMPARE(chart.offloadRow(), chart.offloadWeightRow());
        QVERIFY(chart.offloadSeries()->lowerSeries()->at(0).y() >=
                chart.offloadWeightSeries()->upperSeries()->at(0).y() - 1e-12);
        QVERIFY2(chart.fitText().contains(QString("of weights in %1").arg(kvRow)), qPrintable(chart.fitText()));
    } else {
        if (!kvRow.isEmpty())
            QVERIFY2(chart.fitText().contains(QString("of KV cache in %1").arg(kvRow)), qPrintable(chart.fitText()));
        if (!weightRow.isEmpty())
            QVERIFY2(chart.fitText().contains(QString("of weights in %1").arg(weightRow)), qPrintable(chart.fitText()));
        if (!kvRow.isEmpty() && !weightRow.isEmpty())
            QVERIFY(chart.offloadRow() != chart.offloadWeightRow());
    }

    // Offload off: both bars go, and so does the verdict's mention of them.
    s.kvOffload = s.weightOffload = core::KvOffload::None;
    s.kvOffloadFraction.reset();
    s.weightOffloadFraction.reset();
    doc.setScenario(s, "no offload");
    QVERIFY(!chart.offloadSeries()->isVisible());
    QVERIFY(!chart.offloadWeightSeries()->isVisible());
    QCOMPARE(chart.offloadRow(), -1);
    QCOMPARE(chart.offloadWeightRow(), -1);
    QVERIFY(!chart.fitText().contains("Host") && !chart.fitText().contains("NVMe"));
}

QTEST_MAIN(TestMemoryChart)
#include "tst_memorychart.moc"
