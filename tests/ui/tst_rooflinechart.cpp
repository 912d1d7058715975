// The roofline chart follows the document: points move with the scenario, ceilings match the device, selection and
// comparison show up as series, the legend toggles series, and the ChartView zooms/pans/resets its log axes.
#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/charts/chartview.h"
#include "ui/charts/labelplacer.h"
#include "ui/charts/markerlayer.h"
#include "ui/charts/rooflinechart.h"
#include "ui/document/scenariodocument.h"
#include "ui/settings/theme.h"

#include "core/io/analysisjson.h"
#include "core/io/presets.h"
#include "uitest.h"

#include <QAction>
#include <QChart>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPicture>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QToolTip>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace memwall;
using memwall::core::OpClass;

namespace {

using uitest::library;

int indexOf(const ui::ScenarioDocument &doc, std::string_view name)
{
    const auto &ops = doc.analysis().operators;
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops[i].name == name)
            return static_cast<int>(i);
    return -1;
}

int visibleSeries(const QChart *chart)
{
    int n = 0;
    for (const QAbstractSeries *s : chart->series()) {
        const auto *xy = qobject_cast<const QXYSeries *>(s);
        if (s->isVisible() && xy && xy->count() > 0)
            ++n;
    }
    return n;
}

QLogValueAxis *axis(const QChart *chart, Qt::Orientation o)
{
    return qobject_cast<QLogValueAxis *>(chart->axes(o).value(0));
}

/// The tick labels Qt Charts painted, read back from the scene: the numeric text items below the plot ("bottom") and
/// left of it ("left"), each axis's labels in scene order.
QMap<QString, QStringList> tickLabels(const QChart *chart)
{
    static const QRegularExpression number(QStringLiteral("^-?[0-9][0-9.,]*(e[+-]?[0-9]+)?$"));
    const QRectF area = chart->mapRectToScene(chart->plotArea());
    QMap<QString, QStringList> out;
    for (QGraphicsItem *item : chart->scene()->items()) {
        const auto *t = dynamic_cast<const QGraphicsTextItem *>(item);
        if (!t || !t->isVisible() || !number.match(t->toPlainText()).hasMatch())
            continue;
        const QPointF c = t->mapToScene(t->boundingRect().center());
        if (c.y() > area.bottom())
            out[QStringLiteral("bottom")] << t->toPlainText();
        else if (c.x() < area.left())
            out[QStringLiteral("left")] << t->toPlainText();
    }
    return out;
}

/// The labels of one axis written in more than one format: some with an exponent ("1e+07"), some without ("100000").
bool mixedFormats(const QStringList &labels)
{
    const auto exponents =
        std::count_if(labels.begin(), labels.end(), [](const QString &l) { return l.contains('e'); });
    return exponents > 0 && exponents < labels.size();
}

bool near(double a, double b, double rel = 1e-6) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

/// The values of the markers drawn for operator class `cls`.
QList<QPointF> classPoints(const ui::RooflineChart &chart, const ui::ScenarioDocument &doc, OpClass cls)
{
    QList<QPointF> out;
    for (const ui::MarkerLayer::Marker &m : chart.operatorMarkers()->markers())
        if (doc.analysis().operators[static_cast<std::size_t>(m.key)].cls == cls)
            out << m.value;
    return out;
}

/// The diameter of operator `index`'s marker (0 if it has none).
double markerDiameter(const ui::RooflineChart &chart, int index)
{
    for (const ui::MarkerLayer::Marker &m : chart.operatorMarkers()->markers())
        if (m.key == index)
            return m.diameter;
    return 0;
}

} // namespace

class TestRooflineChart : public QObject
{
    Q_OBJECT
private slots:
    void batchMovesOperatorPoints();
    void ceilingsPerSupportedPrecision_data();
    void ceilingsPerSupportedPrecision();
    void pointsSizedByTimeShare();
    void selectionFromDocument();
    void selectionByClick();
    void hoverShowsCallout();
    void hoverOfAnOperatorWithoutBytesShowsADash();
    void compareDeviceAddsSeries();
    void compareFormatMovesModelPoint_data();
    void compareFormatMovesModelPoint();
    void compareOffRemovesEverySeries();
    void compareStarsAndLabelsDoNotOverlap_data();
    void compareStarsAndLabelsDoNotOverlap();
    void modelStarStaysInSightOverAnOperator();
    void legendTogglesSeries();
    void viewZoomPanReset();
    void tickLabelsOneFormatPerAxis();
    void dataAndCsv();
    void cacheSlopesAction_data();
    void cacheSlopesAction();
    void everyCeilingLabelledAndNoRoofThroughALabel_data();
    void everyCeilingLabelledAndNoRoofThroughALabel();
    void legendFitsInOneRow_data();
    void legendFitsInOneRow();
    void helpToolTipClearOfCallout_data();
    void helpToolTipClearOfCallout();
    void largeMarkersPaintAsInOnePass_data();
    void largeMarkersPaintAsInOnePass();
};

// Issue #41: on a decode step's answer slide (Llama 2 7B, batch 1) the whole model lies on the FFN matmuls, whose
// marker is larger than the star: the star was drawn under it and could not be seen. It is drawn above the
// operators (hollow, so the marker shows through): a pixel on the star's outline inside the marker is the star's.
void TestRooflineChart::modelStarStaysInSightOverAnOperator()
{
    ui::ScenarioDocument doc(library());
    doc.setModelById(QStringLiteral("llama-2-7b"));
    core::Scenario s = doc.scenario();
    s.phase = core::Phase::Decode;
    s.batch = 1;
    s.tp = 1;
    doc.setScenario(s, "answer slide");
    ui::RooflineChart chart(&doc);
    chart.setTheme(ui::Theme::presentation()); // the slide's
    ui::ChartView view(&chart);                // the chart in a scene, to render it
    chart.chart()->resize(1280, 340);
    chart.settle();
    QCoreApplication::processEvents();
    ui::MarkerLayer *stars = chart.modelMarkers();
    ui::MarkerLayer *ops = chart.operatorMarkers();
    QVERIFY(stars->zValue() > ops->zValue());
    QCOMPARE(stars->markers().size(), std::size_t(1));
    const QPointF c = stars->centre(0);
    const qreal r = stars->markers().front().diameter / 2;
    // The star's upper arm's right edge, from its tip to the inner corner beside it (regular star: at 0.382 r, 36
    // degrees round); where the operator's marker (centred on the star) covers that edge, the star's pen must show.
    const qreal inner = 0.381966 * r;
    const QPointF tip = c + QPointF(0, -r);
    const QPointF corner = c + QPointF(inner * std::sin(M_PI / 5), -inner * std::cos(M_PI / 5));
    int under = -1;
    for (std::size_t i = 0; i < ops->markers().size(); ++i)
        if (QLineF(ops->centre(i), corner).length() < ops->markers()[i].diameter / 2 - 4 &&
            (under < 0 || ops->markers()[i].diameter > ops->markers()[static_cast<std::size_t>(under)].diameter))
            under = static_cast<int>(i);
    QVERIFY2(under >= 0, "no operator marker covers the star: the scenario no longer shows the case");
    const std::size_t u = static_cast<std::size_t>(under);
    QImage image(chart.chart()->size().toSize(), QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        chart.chart()->scene()->render(&p, QRectF(QPointF(0, 0), chart.chart()->size()),
                                       chart.chart()->mapRectToScene(chart.chart()->rect()));
    }
    const QColor pen = chart.modelSeries()->pen().color();
    int checked = 0, seen = 0;
    for (qreal t = 0; t <= 1.0; t += 0.05) {
        const QPointF at = tip + t * (corner - tip);
        if (QLineF(ops->centre(u), at).length() > ops->markers()[u].diameter / 2 - 3)
            continue; // only where the operator's marker is painted too
        ++checked;
        bool found = false;
        for (int dx = -1; dx <= 1 && !found; ++dx)
            for (int dy = -1; dy <= 1 && !found; ++dy) {
                const QColor px = image.pixelColor(at.toPoint() + QPoint(dx, dy));
                found = std::abs(px.red() - pen.red()) + std::abs(px.green() - pen.green()) +
                            std::abs(px.blue() - pen.blue()) <
                        90;
            }
        seen += found ? 1 : 0;
    }
    QVERIFY(checked >= 3);
    QVERIFY2(seen == checked, qPrintable(QString("the star's edge shows at %1 of %2 points inside the operator's "
                                                 "marker")
                                             .arg(seen)
                                             .arg(checked)));
}

void TestRooflineChart::batchMovesOperatorPoints()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    QCOMPARE(chart.id(), QStringLiteral("roofline"));
    const QList<QPointF> oldPoints = classPoints(chart, doc, OpClass::Matmul);
    QVERIFY(!oldPoints.isEmpty());
    QCOMPARE(static_cast<std::size_t>(oldPoints.size()), chart.operatorIndices(OpClass::Matmul).size());
    const int ffn = indexOf(doc, "ffn.up");
    QVERIFY(ffn >= 0);
    const QPointF before = chart.operatorPoint(ffn);
    QVERIFY(oldPoints.contains(before));
    QVERIFY(near(before.x(), doc.analysis().operators[static_cast<std::size_t>(ffn)].intensity()));
    // What the chart shows as its title does not change with the batch (the whole-model label names it): a new
    // title would re-lay out the chart, axes and all, on every slider tick.
    const QString shownTitle = chart.chart()->title();

    core::Scenario s = doc.scenario();
    s.batch = 64;
    doc.setScenario(s, "batch", ui::ScenarioDocument::BatchKey);
    const QPointF after = chart.operatorPoint(ffn);
    // decode: a weight matrix is read once for the whole batch, so intensity and FLOP/s grow ~64x
    QVERIFY2(after.x() > 30 * before.x(), qPrintable(QString("%1 -> %2").arg(before.x()).arg(after.x())));
    QVERIFY(after.y() > 30 * before.y());
    QVERIFY(classPoints(chart, doc, OpClass::Matmul) != oldPoints);
    QVERIFY(classPoints(chart, doc, OpClass::Matmul).contains(after));
    QVERIFY(chart.title().contains("batch 64")); // the title of exports and tooltips names it
    QCOMPARE(chart.chart()->title(), shownTitle);
    // undo moves them back, in place
    doc.undoStack()->undo();
    QCOMPARE(chart.operatorPoint(ffn), before);
}

void TestRooflineChart::ceilingsPerSupportedPrecision_data()
{
    QTest::addColumn<QString>("hw");
    QTest::newRow("H100 SXM") << "h100-sxm";
    QTest::newRow("A100 40GB") << "a100-40gb-sxm";
    QTest::newRow("RTX 4090") << "rtx-4090";
    QTest::newRow("TPU v4") << "tpu-v4";
    QTest::newRow("EPYC 9654") << "amd-epyc-9654";
}

void TestRooflineChart::ceilingsPerSupportedPrecision()
{
    QFETCH(QString, hw);
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    doc.setHardwareById(hw);
    QCOMPARE(QString::fromStdString(doc.hardware().id), hw);
    int supported = 0;
    for (core::DType t : core::kAllDTypes)
        supported += doc.hardware().supports(t) ? 1 : 0;
    int covered = 0, active = 0;
    for (const auto &c : chart.ceilings()) {
        covered += static_cast<int>(c.dtypes.size());
        active += c.active ? 1 : 0;
    }
    QCOMPARE(covered, supported); // every supported precision has its ceiling (equal peaks share one line)
    QCOMPARE(active, 1);
    const QList<QLineSeries *> lines = chart.ceilingSeries();
    QCOMPARE(static_cast<std::size_t>(lines.size()), chart.ceilings().size());
    int visibleCeilings = 0;
    for (const QAbstractSeries *s : chart.chart()->series())
        if (s->objectName() == "ceiling" && s->isVisible())
            ++visibleCeilings;
    QCOMPARE(static_cast<std::size_t>(visibleCeilings), chart.ceilings().size());
    for (int i = 0; i < lines.size(); ++i) {
        QCOMPARE(lines[i]->count(), 2);
        QVERIFY(near(lines[i]->at(0).y() * chart.yScale(), chart.ceilings()[static_cast<std::size_t>(i)].flopsPerS));
        QVERIFY(near(lines[i]->at(1).y(), lines[i]->at(0).y()));
    }
    // one slope per memory level with a bandwidth
    QCOMPARE(chart.slopes().size(), doc.hardware().memory.size());
    // every operator point lies inside the automatic range (one without bytes is drawn at the right edge)
    const QLogValueAxis *x = axis(chart.chart(), Qt::Horizontal), *y = axis(chart.chart(), Qt::Vertical);
    for (std::size_t i = 0; i < doc.analysis().operators.size(); ++i) {
        const auto &op = doc.analysis().operators[i];
        const QPointF p = op.bytes() > 0 ? chart.operatorPoint(static_cast<int>(i))
                                         : QPointF(x->max(), chart.operatorPoint(static_cast<int>(i)).y());
        if (std::isnan(p.x()))
            continue;
        QVERIFY(p.x() >= x->min() && p.x() <= x->max());
        QVERIFY(p.y() >= y->min() && p.y() <= y->max());
    }
}

void TestRooflineChart::pointsSizedByTimeShare()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    const auto &a = doc.analysis();
    QVERIFY(!chart.operatorMarkers()->markers().empty());
    for (const ui::MarkerLayer::Marker &m : chart.operatorMarkers()->markers()) {
        const auto &op = a.operators[static_cast<std::size_t>(m.key)];
        QVERIFY(near(m.diameter, ui::rooflinemath::markerSize(op.timeS / a.totals.timeS), 1e-9));
    }
    // ffn.up (27 % of decode time) is drawn larger than lm_head (0.4 %)
    QVERIFY(markerDiameter(chart, indexOf(doc, "ffn.up")) > markerDiameter(chart, indexOf(doc, "lm_head")) + 10);
}

void TestRooflineChart::selectionFromDocument()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    QVERIFY(!chart.selectionSeries()->isVisible());
    const int idx = indexOf(doc, "attn.qkv_proj");
    doc.setSelectedOperator(idx);
    QVERIFY(chart.selectionSeries()->isVisible());
    QCOMPARE(chart.selectionSeries()->count(), 1);
    QCOMPARE(chart.selectionSeries()->at(0), chart.operatorPoint(idx));
    // the highlight follows the operator when the scenario moves it
    core::Scenario s = doc.scenario();
    s.batch = 16;
    doc.setScenario(s, "batch");
    QCOMPARE(chart.selectionSeries()->at(0), chart.operatorPoint(idx));
    doc.setSelectedOperator(-1);
    QVERIFY(!chart.selectionSeries()->isVisible());
}

void TestRooflineChart::selectionByClick()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(1200, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy clicked(&chart, &ui::ChartBase::operatorClicked);
    QSignalSpy selected(&doc, &ui::ScenarioDocument::selectionChanged);
    // the attention point (score and context coincide) stands alone at ~8 FLOP/byte
    const QList<QPointF> attention = classPoints(chart, doc, OpClass::Attention);
    QVERIFY(!attention.isEmpty());
    const QPointF inChart = chart.chart()->mapToPosition(attention.at(0), chart.modelSeries());
    const QPoint at = view.mapFromScene(chart.chart()->mapToScene(inChart));
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(clicked.count(), 1);
    const int idx = clicked.at(0).at(0).toInt();
    QVERIFY(doc.analysis().operators[static_cast<std::size_t>(idx)].cls == OpClass::Attention);
    QCOMPARE(doc.selectedOperator(), idx);
    QCOMPARE(selected.count(), 1);
    QVERIFY(chart.selectionSeries()->isVisible());
    QCOMPARE(chart.selectionSeries()->at(0), attention.at(0));
    // a click on empty plot area does not select anything (it starts a pan)
    QTest::mouseClick(
        view.viewport(), Qt::LeftButton, {},
        view.mapFromScene(chart.chart()->mapToScene(chart.chart()->plotArea().topLeft() + QPointF(30, 30))));
    QCOMPARE(clicked.count(), 1);
}

void TestRooflineChart::hoverShowsCallout()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    const int idx = indexOf(doc, "ffn.down");
    QVERIFY(!chart.callout()->isVisible());
    emit chart.operatorMarkers()->hovered(idx, true);
    QVERIFY(chart.callout()->isVisible());
    const QString text = chart.callout()->text();
    // ffn.up, ffn.gate and ffn.down have the same shape, hence the same point: the callout names all of them
    QVERIFY2(text.startsWith("ffn."), qPrintable(text));
    QVERIFY(text.contains("ffn.down") && text.contains("ffn.up") && text.contains("ffn.gate"));
    QVERIFY(text.contains("Matmul"));
    QVERIFY(text.contains("memory-bound"));
    QVERIFY(text.contains("Attainable"));
    QVERIFY(text.contains("achieved"));
    emit chart.operatorMarkers()->hovered(idx, false);
    QVERIFY(!chart.callout()->isVisible());
}

// Issue #41 item 13: an operator that moves no bytes (a prefill's fused softmax) has no intensity and no bound; its
// callout says so with "—" instead of "0 B", "0.0 FLOP/byte" and "compute-bound".
void TestRooflineChart::hoverOfAnOperatorWithoutBytesShowsADash()
{
    ui::ScenarioDocument doc(library());
    core::Scenario s = doc.scenario();
    s.phase = core::Phase::Prefill;
    doc.setScenario(s, "prefill");
    ui::RooflineChart chart(&doc);
    int idx = -1;
    const auto &ops = doc.analysis().operators;
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (!(ops[i].bytes() > 0))
            idx = static_cast<int>(i);
    QVERIFY2(idx >= 0, "no operator without bytes in a prefill (the fused softmax has none)");
    emit chart.operatorMarkers()->hovered(idx, true);
    const QString text = chart.callout()->text();
    QVERIFY2(!text.contains("-bound") && !text.contains("0 B") && !text.contains("FLOP/byte"), qPrintable(text));
    QVERIFY2(text.contains("bytes —") && text.contains("Intensity —") && text.contains("bound —"), qPrintable(text));
    QVERIFY2(text.contains("moves no bytes"), qPrintable(text));
}

void TestRooflineChart::compareDeviceAddsSeries()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    const int before = visibleSeries(chart.chart());
    QVERIFY(!chart.compareSeries()->isVisible());
    doc.setCompareHardware(*library()->findHardware("h200-sxm"));
    QVERIFY(chart.compareSeries()->isVisible());
    QVERIFY(chart.compareModelSeries()->isVisible());
    QCOMPARE(visibleSeries(chart.chart()), before + 2);
    QCOMPARE(chart.compareSeries()->name(), QString("B roofline"));
    QCOMPARE(chart.compareModelSeries()->name(), QString("B: whole model"));
    QCOMPARE(chart.data().at("compare").at("hardware").get<std::string>(), std::string("h200-sxm"));
    QCOMPARE(chart.data().at("compare").at("label").get<std::string>(), std::string("B: H200 SXM 141GB"));
    // H200 has more bandwidth: its model point is faster at the same intensity
    QVERIFY(chart.compareModelSeries()->at(0).y() > chart.modelSeries()->at(0).y() * 1.2);
    QCOMPARE(chart.compareSeries()->pen().style(), Qt::DashLine);
    doc.setCompareHardware(std::nullopt);
    QVERIFY(!chart.compareSeries()->isVisible());
    QCOMPARE(visibleSeries(chart.chart()), before);
}

// B = A in other formats on the same H100 (Llama-2-70B decode, batch 1): B's whole-model point moves; B's roofline
// is drawn only when its roofs differ from A's (fp8 activations run the matmuls against the FP8 ceiling).
void TestRooflineChart::compareFormatMovesModelPoint_data()
{
    QTest::addColumn<int>("weights");     // core::DType, or -1: same as A
    QTest::addColumn<int>("activations"); // core::DType, or -1: same as A
    QTest::addColumn<double>("minIntensityRatio");
    QTest::addColumn<bool>("roofline");
    // Decode at batch 1 streams the weights: 4x fewer bytes is nearly 4x the intensity (KV and activations unchanged).
    QTest::newRow("fp16 -> int4 weights: ~4x intensity, same roof") << int(core::DType::INT4) << -1 << 3.5 << false;
    QTest::newRow("fp16 -> int8 weights: ~2x intensity, same roof") << int(core::DType::INT8) << -1 << 1.8 << false;
    QTest::newRow("fp16 -> fp8 activations: the FP8 ceiling") << -1 << int(core::DType::FP8) << 0.99 << true;
}

void TestRooflineChart::compareFormatMovesModelPoint()
{
    QFETCH(int, weights);
    QFETCH(int, activations);
    QFETCH(double, minIntensityRatio);
    QFETCH(bool, roofline);
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    const int before = visibleSeries(chart.chart());
    ui::CompareSpec spec;
    if (weights >= 0)
        spec.weights = core::WeightFormat{static_cast<core::DType>(weights), 0, core::DType::FP16};
    if (activations >= 0)
        spec.activations = static_cast<core::DType>(activations);
    doc.setCompare(spec);
    QVERIFY(doc.compareAnalysis());
    QVERIFY(chart.compareModelSeries()->isVisible());
    QCOMPARE(chart.compareModelSeries()->count(), 1);
    QCOMPARE(chart.compareSeries()->isVisible(), roofline);
    QCOMPARE(visibleSeries(chart.chart()), before + (roofline ? 2 : 1));
    const QPointF a = chart.modelSeries()->at(0), b = chart.compareModelSeries()->at(0);
    // B's point is B's analysis: its total intensity and achieved FLOP/s.
    QVERIFY(near(b.x(), doc.compareAnalysis()->totals.intensity, 1e-9));
    QVERIFY(near(b.y() * chart.yScale(), doc.compareAnalysis()->totals.achievedFlopsPerS, 1e-9));
    QVERIFY2(b.x() >= a.x() * minIntensityRatio, qPrintable(QString("%1 vs %2").arg(b.x()).arg(a.x())));
    if (weights >= 0) // memory-bound: fewer bytes, more FLOP/s
        QVERIFY(b.y() > a.y() * minIntensityRatio * 0.9);
    if (roofline)
        QVERIFY(near(chart.compareSeries()->at(2).y() * chart.yScale(), doc.compareAnalysis()->peakFlops, 1e-9));
    const nlohmann::json j = chart.data();
    QCOMPARE(j.at("compare").at("roofline_drawn").get<bool>(), roofline);
    QCOMPARE(j.at("compare").at("hardware").get<std::string>(), doc.hardware().id);
    QVERIFY(near(j.at("compare").at("model_intensity").get<double>(), b.x(), 1e-12));
    const QStringList lines = chart.csv().trimmed().split('\n');
    QCOMPARE(lines.filter(QRegularExpression("^b_model,")).size(), 1);
    QCOMPARE(lines.filter(QRegularExpression("^b_ridge,")).size(), roofline ? 1 : 0);
}

// Issue #41 item 10: in compare mode the A and B whole-model stars and their labels overlapped. Read back from the
// scene at the window's and a projector's sizes: each label lies clear of the other label and of both stars, and the
// two stars, where both are drawn, do not cover each other.
void TestRooflineChart::compareStarsAndLabelsDoNotOverlap_data()
{
    QTest::addColumn<QString>("compare"); // a device id, or "int8" for A in int8 weights
    QTest::addColumn<QSize>("size");
    for (const QString &cmp : {QStringLiteral("h200-sxm"), QStringLiteral("int8"), QStringLiteral("mi300x")})
        for (const QSize &size : {QSize(1280, 720), QSize(1024, 768), QSize(760, 480)})
            QTest::addRow("%s %dx%d", qPrintable(cmp), size.width(), size.height()) << cmp << size;
}

void TestRooflineChart::compareStarsAndLabelsDoNotOverlap()
{
    QFETCH(QString, compare);
    QFETCH(QSize, size);
    ui::ScenarioDocument doc(library());
    doc.setModelById("llama-2-7b");
    if (compare == "int8") {
        ui::CompareSpec spec;
        spec.weights = core::WeightFormat{core::DType::INT8, 0, core::DType::FP16};
        doc.setCompare(spec);
    } else {
        QVERIFY(library()->findHardware(compare.toStdString()));
        doc.setCompareHardware(*library()->findHardware(compare.toStdString()));
    }
    ui::RooflineChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QVERIFY(chart.compareModelSeries()->count() == 1);

    std::vector<QRectF> stars;
    const ui::MarkerLayer *layer = chart.modelMarkers();
    for (std::size_t i = 0; i < layer->markers().size(); ++i) {
        const QPointF c = layer->centre(i);
        if (std::isnan(c.x()))
            continue;
        const double r = layer->markers()[i].diameter / 2;
        stars.emplace_back(c - QPointF(r, r), QSizeF(2 * r, 2 * r));
    }
    QCOMPARE(stars.size(), std::size_t(2));
    // Two stars may touch; neither may hide the other's centre.
    QVERIFY2(!stars[0].contains(stars[1].center()) && !stars[1].contains(stars[0].center()),
             qPrintable(QStringLiteral("A star %1,%2 and B star %3,%4")
                            .arg(stars[0].center().x())
                            .arg(stars[0].center().y())
                            .arg(stars[1].center().x())
                            .arg(stars[1].center().y())));
    std::vector<std::pair<QString, QRectF>> labels;
    for (QGraphicsItem *item : chart.chart()->childItems()) {
        auto *label = dynamic_cast<QGraphicsSimpleTextItem *>(item);
        if (!label || !label->isVisible() || label->text().isEmpty())
            continue;
        if (label->text().startsWith("whole model") || label->text() == doc.compareLabel() || label->text() == "B")
            labels.emplace_back(label->text(), label->mapRectToParent(label->boundingRect()));
    }
    QVERIFY2(!labels.empty(), "no star label shown");
    for (std::size_t i = 0; i < labels.size(); ++i) {
        for (const QRectF &star : stars)
            QVERIFY2(!labels[i].second.intersects(star), qPrintable(labels[i].first + " covers a star"));
        for (std::size_t j = i + 1; j < labels.size(); ++j)
            QVERIFY2(!labels[i].second.intersects(labels[j].second),
                     qPrintable(labels[i].first + " overlaps " + labels[j].first));
    }
}

void TestRooflineChart::compareOffRemovesEverySeries()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    const int before = visibleSeries(chart.chart());
    const QString csvBefore = chart.csv();
    ui::CompareSpec spec;
    spec.hardware = *library()->findHardware("mi300x");
    spec.weights = core::WeightFormat{core::DType::INT4, 128, core::DType::FP16};
    doc.setCompare(spec);
    QCOMPARE(visibleSeries(chart.chart()), before + 2);
    doc.setCompare(std::nullopt);
    QCOMPARE(visibleSeries(chart.chart()), before);
    for (const QAbstractSeries *s : chart.chart()->series())
        if (s->objectName().startsWith("compare"))
            QVERIFY2(!s->isVisible(), qPrintable(s->objectName()));
    QVERIFY(!chart.data().contains("compare"));
    QCOMPARE(chart.csv(), csvBefore);
}

void TestRooflineChart::legendTogglesSeries()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    ui::ChartView view(&chart); // legend markers report visibility once the legend is in a shown scene
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // Ceilings and slopes are labelled on the chart, not in the legend: hidden from the first paint on, before any
    // refresh runs with the legend on screen (a marker reports itself hidden until its legend is laid out).
    auto roofsOutOfLegend = [&chart] {
        for (QAbstractSeries *c : chart.chart()->series())
            if (c->objectName() == "ceiling" || c->objectName() == "slope")
                for (QLegendMarker *m : chart.chart()->legend()->markers(c))
                    if (m->isVisible())
                        return false;
        return true;
    };
    QVERIFY(roofsOutOfLegend());
    QScatterSeries *matmul = chart.operatorSeries(OpClass::Matmul);
    const QList<QLegendMarker *> markers = chart.chart()->legend()->markers(matmul);
    QCOMPARE(markers.size(), 1);
    QVERIFY(markers[0]->isVisible());
    QVERIFY(matmul->isVisible());
    emit markers[0]->clicked();
    QVERIFY(!matmul->isVisible());
    QVERIFY(markers[0]->isVisible()); // stays in the legend to switch it back on
    // a refresh keeps the user's choice
    core::Scenario s = doc.scenario();
    s.batch = 8;
    doc.setScenario(s, "batch");
    QVERIFY(!matmul->isVisible());
    emit markers[0]->clicked();
    QVERIFY(matmul->isVisible());
    QVERIFY(roofsOutOfLegend());
}

void TestRooflineChart::viewZoomPanReset()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QLogValueAxis *x = axis(chart.chart(), Qt::Horizontal);
    const double min0 = x->min(), max0 = x->max();
    const double decades0 = std::log10(max0 / min0);
    QVERIFY(!view.isUserView());
    // zoom in around the centre: half the decades, centred in log space
    view.zoomAt(chart.chart()->plotArea().center(), 0.5, 0.5);
    QVERIFY(view.isUserView());
    QVERIFY(near(std::log10(x->max() / x->min()), decades0 / 2, 1e-6));
    QVERIFY(near(std::log10(x->min()) + std::log10(x->max()), std::log10(min0) + std::log10(max0), 1e-6));
    // a refresh keeps the user's view
    const double zoomedMin = x->min();
    core::Scenario s = doc.scenario();
    s.batch = 4;
    doc.setScenario(s, "batch");
    QVERIFY(near(x->min(), zoomedMin));
    // pan one plot width to the left shifts by the whole visible span (in decades)
    const double span = std::log10(x->max() / x->min());
    view.panBy(chart.chart()->plotArea().width(), 0);
    QVERIFY(near(std::log10(zoomedMin) - std::log10(x->min()), span, 1e-6));
    // R resets to the automatic range
    QTest::keyClick(&view, Qt::Key_R);
    QVERIFY(!view.isUserView());
    QVERIFY(near(x->min(), min0) && near(x->max(), max0));
    // the wheel zooms too
    const QPoint centre = view.mapFromScene(chart.chart()->mapToScene(chart.chart()->plotArea().center()));
    QWheelEvent wheel(centre, view.viewport()->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.viewport(), &wheel);
    QVERIFY(std::log10(x->max() / x->min()) < decades0 - 0.1);
    // double-click resets
    QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, centre);
    QVERIFY(near(x->min(), min0) && near(x->max(), max0));
    QVERIFY(view.resetAction()->shortcuts().contains(QKeySequence(Qt::Key_R)));
}

// Issue #41 item 13: "axis numbers mix '1e+07' and '100000'". Each axis writes all its tick labels in one format,
// chosen from its range (chartfit::logLabelFormat); read back from the painted scene, after a pan to 1e7 and 1e-6.
void TestRooflineChart::tickLabelsOneFormatPerAxis()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QLogValueAxis *x = axis(chart.chart(), Qt::Horizontal);
    auto check = [&](const char *where) {
        QCoreApplication::processEvents();
        const QMap<QString, QStringList> ticks = tickLabels(chart.chart());
        QVERIFY2(ticks.value("bottom").size() >= 3 && ticks.value("left").size() >= 3,
                 qPrintable(QStringLiteral("%1: too few tick labels read back").arg(where)));
        for (auto it = ticks.begin(); it != ticks.end(); ++it)
            QVERIFY2(!mixedFormats(it.value()),
                     qPrintable(QStringLiteral("%1, %2 axis: %3").arg(where, it.key(), it.value().join(", "))));
    };
    check("default view");
    if (QTest::currentTestFailed())
        return;
    // Pan right until the axis passes 10^7 ("%g" would write 100000 beside 1e+06 and 1e+07).
    const double span = std::log10(x->max() / x->min());
    for (int i = 0; i < 40 && x->max() < 1e8; ++i)
        view.panBy(-chart.chart()->plotArea().width() / 2, 0);
    QVERIFY(x->max() >= 1e8);
    QVERIFY(near(std::log10(x->max() / x->min()), span, 1e-6));
    check("panned past 1e7");
    if (QTest::currentTestFailed())
        return;
    for (int i = 0; i < 80 && x->min() > 1e-5; ++i)
        view.panBy(chart.chart()->plotArea().width() / 2, 0);
    QVERIFY(x->min() <= 1e-5);
    check("panned below 1e-5");
    if (QTest::currentTestFailed())
        return;
    // The check can fail: the same axis with "%g" over 1..1e8 mixes the two.
    x->setLabelFormat(QStringLiteral("%g"));
    x->setRange(0.9, 1.1e8);
    QCoreApplication::processEvents();
    QVERIFY2(mixedFormats(tickLabels(chart.chart()).value("bottom")),
             qPrintable(tickLabels(chart.chart()).value("bottom").join(", ")));
}

void TestRooflineChart::dataAndCsv()
{
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    const nlohmann::json j = chart.data();
    QCOMPARE(j.at("operators").size(), doc.analysis().operators.size());
    // One operator schema (issue #39): each of the chart's operators holds every field of analyze --json's, with the
    // same value, and adds only its plot's fields.
    const nlohmann::json cli =
        core::analysisToJson(doc.hardware(), doc.model(), doc.scenario(), doc.analysis()).at("operators");
    QCOMPARE(j.at("operators").size(), cli.size());
    QVERIFY(!cli.empty());
    for (std::size_t i = 0; i < cli.size(); ++i) {
        const nlohmann::json &o = j.at("operators").at(i);
        for (const auto &[key, value] : cli.at(i).items())
            QVERIFY2(o.contains(key) && o.at(key) == value, key.c_str());
        for (const auto &[key, value] : o.items())
            QVERIFY2(cli.at(i).contains(key) || key == "index" || key == "intensity" || key.rfind("plotted_", 0) == 0 ||
                         key == "achieved_flops_per_s" || key == "time_share",
                     key.c_str());
    }
    QCOMPARE(j.at("operators").at(0).at("intensity"), j.at("operators").at(0).at("arithmetic_intensity"));
    QCOMPARE(j.at("ceilings").size(), chart.ceilings().size());
    QVERIFY(near(j.at("ridge").at("flops_per_byte").get<double>(), 989.4e12 / 3.35e12, 1e-3));
    const QStringList lines = chart.csv().trimmed().split('\n');
    QVERIFY(lines.first().startsWith("kind,name,class,intensity_flop_per_byte"));
    QCOMPARE(lines.filter(QRegularExpression("^operator,")).size(), static_cast<int>(doc.analysis().operators.size()));
    QCOMPARE(lines.filter(QRegularExpression("^ceiling,")).size(), static_cast<int>(chart.ceilings().size()));
}

void TestRooflineChart::cacheSlopesAction_data()
{
    QTest::addColumn<QString>("hardware");
    QTest::addColumn<int>("onChipLevels"); // SRAM and cache levels that are not main memory
    QTest::newRow("H100 SXM: SRAM and L2 slopes") << "h100-sxm" << 2;
}

void TestRooflineChart::cacheSlopesAction()
{
    QFETCH(QString, hardware);
    QFETCH(int, onChipLevels);
    ui::ScenarioDocument doc(library());
    doc.setHardwareById(hardware);
    ui::RooflineChart chart(&doc);
    const QList<QAction *> actions = chart.optionActions();
    QCOMPARE(actions.size(), 1);
    QAction *a = actions.first();
    QCOMPARE(a->objectName(), QString("option:showCacheSlopes"));
    QVERIFY(a->isCheckable());
    QVERIFY(a->isChecked());
    QVERIFY(a->toolTip() != QString(a->text()).remove('&')); // an explicit tooltip, not the text
    const std::size_t all = chart.slopes().size();
    auto visibleSlopes = [&chart] {
        int n = 0;
        for (QAbstractSeries *s : chart.chart()->series())
            if (s->objectName() == "slope" && s->isVisible())
                ++n;
        return n;
    };
    QCOMPARE(visibleSlopes(), int(all));

    a->trigger();
    QVERIFY(!chart.showCacheSlopes());
    QCOMPARE(chart.slopes().size(), all - std::size_t(onChipLevels));
    QCOMPARE(visibleSlopes(), int(all) - onChipLevels);
    bool hasMain = false;
    for (const auto &sl : chart.slopes()) {
        QVERIFY(sl.main || (sl.kind != core::MemoryKind::Sram && sl.kind != core::MemoryKind::Cache));
        hasMain = hasMain || sl.main;
    }
    QVERIFY(hasMain);

    a->trigger();
    QVERIFY(chart.showCacheSlopes());
    QCOMPARE(chart.slopes().size(), all);
    QCOMPARE(visibleSlopes(), int(all));
}

void TestRooflineChart::everyCeilingLabelledAndNoRoofThroughALabel_data()
{
    QTest::addColumn<QString>("hw");
    QTest::addColumn<QString>("themeId");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("tp");
    const QStringList devices = {"h100-sxm", "a100-80gb-sxm", "b200", "mi300x", "h200-sxm", "gaudi3"};
    // the chart view's own size, and 840x390: the roofline tab of a 1280x720 window (controls and table beside it)
    const QList<QSize> sizes = {{1280, 720}, {1024, 768}, {1600, 1000}, {840, 390}};
    for (const QString &hw : devices)
        for (const QString &th : ui::Theme::ids())
            for (const QSize &sz : sizes)
                for (auto [batch, tp] : {std::pair{64, 8}, std::pair{1, 1}})
                    QTest::addRow("%s %s %dx%d b%d tp%d", qPrintable(hw), qPrintable(th), sz.width(), sz.height(),
                                  batch, tp)
                        << hw << th << sz << batch << tp;
}

void TestRooflineChart::everyCeilingLabelledAndNoRoofThroughALabel()
{
    // Every ceiling in view keeps its label, inside the plot, clear of every other label, and no roof (ceiling,
    // slope) runs through any label: on each device, theme and ordinary window size (a projector's 1280x720 with
    // the presentation theme dropped a ceiling's label).
    QFETCH(QString, hw);
    QFETCH(QString, themeId);
    QFETCH(QSize, size);
    QFETCH(int, batch);
    QFETCH(int, tp);
    ui::ScenarioDocument doc(library());
    doc.setHardwareById(hw);
    QCOMPARE(QString::fromStdString(doc.hardware().id), hw);
    core::Scenario s = doc.scenario();
    s.tp = tp;
    s.batch = batch;
    doc.setScenario(s, "setup");
    ui::RooflineChart chart(&doc);
    chart.setTheme(ui::Theme::byId(themeId));
    ui::ChartView view(&chart);
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QChart *c = chart.chart();
    const QRectF area = c->plotArea().adjusted(-1, -1, 1, 1);
    std::vector<QLineF> roofs;
    for (const QAbstractSeries *series : c->series()) {
        const auto *line = qobject_cast<const QLineSeries *>(series);
        if (!line || !line->isVisible() || line->count() < 2 ||
            !(series->objectName() == "ceiling" || series->objectName() == "slope"))
            continue;
        for (int i = 0; i + 1 < line->count(); ++i)
            roofs.emplace_back(c->mapToPosition(line->at(i), chart.modelSeries()),
                               c->mapToPosition(line->at(i + 1), chart.modelSeries()));
    }
    QVERIFY(roofs.size() >= 3);
    std::vector<std::pair<QString, QPolygonF>> labels;
    for (QGraphicsItem *item : c->childItems()) {
        auto *label = dynamic_cast<QGraphicsSimpleTextItem *>(item);
        if (!label || label == chart.subtitleItem() || !label->isVisible() || label->text().isEmpty())
            continue; // the subtitle is above the plot (tst_subtitle)
        const QPolygonF poly = label->mapToParent(label->boundingRect());
        QVERIFY2(area.contains(poly.boundingRect()),
                 qPrintable(QStringLiteral("the label '%1' leaves the plot").arg(label->text())));
        for (const auto &[other, otherPoly] : labels)
            QVERIFY2(!otherPoly.intersects(poly),
                     qPrintable(QStringLiteral("the labels '%1' and '%2' overlap").arg(label->text(), other)));
        QVERIFY2(label->font().pointSizeF() >= ui::LabelPlacer::minimumPointSize(ui::Theme::byId(themeId)),
                 qPrintable(QStringLiteral("the label '%1' is smaller than a projector shows").arg(label->text())));
        // a label may be set on two lines (precisions over peak)
        labels.emplace_back(label->text().replace(QLatin1Char('\n'), QLatin1Char(' ')), poly);
        for (const QLineF &roof : roofs) {
            bool crosses =
                poly.containsPoint(roof.p1(), Qt::OddEvenFill) || poly.containsPoint(roof.p2(), Qt::OddEvenFill);
            for (int i = 0; i < poly.size() && !crosses; ++i)
                crosses = QLineF(poly[i], poly[(i + 1) % poly.size()]).intersects(roof) == QLineF::BoundedIntersection;
            QVERIFY2(!crosses, qPrintable(QStringLiteral("a roof runs through the label '%1'").arg(label->text())));
        }
    }
    const QLogValueAxis *y = axis(c, Qt::Vertical);
    for (const auto &ceiling : chart.ceilings()) {
        const double yv = ceiling.flopsPerS / chart.yScale();
        if (yv < y->min() || yv > y->max())
            continue;
        // In full, or in the compact form of a tight chart (the peak in the y axis's unit, which the axis names)
        const QString compact = ceiling.compactLabel(chart.yScale());
        const bool labelled = std::any_of(labels.begin(), labels.end(), [&](const auto &l) {
            return l.first.startsWith(ceiling.label()) || l.first == compact;
        });
        // A 840x390 presentation chart gives its title's room to the plot (about 200 px for five decades); on an
        // MI300X the top ceiling (2.6 PFLOP/s) sits 23 px under the plot's top edge, less than a 25 px line of the
        // presentation font, and 12 px above the next one: it is labelled above its line in the compact form at the
        // projector's minimum size (14 pt, LabelPlacer::minimumPointSize()), no longer left unlabelled.
        QVERIFY2(labelled, qPrintable(QStringLiteral("the ceiling '%1' has no label").arg(ceiling.label())));
    }
}

void TestRooflineChart::legendFitsInOneRow_data()
{
    QTest::addColumn<QString>("themeId");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("fullNames");
    // In the presentation theme the roofline tab of a 1280x720 window (840x390) showed "Normaliz…", "Element-…" and
    // "Whole m…": Qt elides legend entries that do not fit in the row.
    QTest::newRow("light 1600x1000") << "light" << QSize(1600, 1000) << true;
    QTest::newRow("light 840x390") << "light" << QSize(840, 390) << true;
    QTest::newRow("presentation 1600x1000") << "presentation" << QSize(1600, 1000) << true;
    QTest::newRow("presentation 840x390") << "presentation" << QSize(840, 390) << false;
}

void TestRooflineChart::legendFitsInOneRow()
{
    QFETCH(QString, themeId);
    QFETCH(QSize, size);
    QFETCH(bool, fullNames);
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    chart.setTheme(ui::Theme::byId(themeId));
    ui::ChartView view(&chart);
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QChart *c = chart.chart();
    QStringList shown;
    for (QLegendMarker *m : c->legend()->markers())
        if (m->isVisible())
            shown << m->label();
    QVERIFY(shown.size() >= 3);
    const qreal width = c->size().width() - c->margins().left() - c->margins().right();
    QVERIFY2(ui::chartfit::legendFitsInRow(shown, c->legend()->font(), width * 0.95), qPrintable(shown.join(", ")));
    QCOMPARE(shown.contains(QStringLiteral("Whole model")), fullNames);
    QCOMPARE(shown.contains(QStringLiteral("Model")), !fullNames);
}

void TestRooflineChart::helpToolTipClearOfCallout_data()
{
    QTest::addColumn<int>("batch");
    QTest::addColumn<QString>("themeId");
    for (int batch : {1, 64, 1024})
        for (const QString &th : ui::Theme::ids())
            QTest::addRow("batch %d %s", batch, qPrintable(th)) << batch << th;
}

void TestRooflineChart::helpToolTipClearOfCallout()
{
    // The view's help tooltip (zoom and pan) appears where the pointer rests; resting on an operator, it must not
    // cover the callout with that operator's figures. Hover every operator marker, ask for the tooltip there, and
    // compare the tooltip's geometry with the callout's, read back from the scene.
    QFETCH(int, batch);
    QFETCH(QString, themeId);
    ui::ScenarioDocument doc(library());
    core::Scenario s = doc.scenario();
    s.batch = batch;
    doc.setScenario(s, "setup");
    ui::RooflineChart chart(&doc);
    chart.setTheme(ui::Theme::byId(themeId));
    ui::ChartView view(&chart);
    view.resize(760, 540); // inside the offscreen screen, so the tooltip is not pushed around by the screen's edge
    view.move(10, 10);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QVERIFY(!view.toolTip().isEmpty());
    ui::MarkerLayer *layer = chart.operatorMarkers();
    int hovered = 0, shown = 0;
    for (std::size_t i = 0; i < layer->markers().size(); ++i) {
        const QPointF c = layer->centre(i);
        if (std::isnan(c.x()))
            continue;
        const QPoint at = view.mapFromScene(layer->mapToScene(c));
        // what hovering the marker does (a synthetic mouse move depends on which window Qt last saw the pointer in)
        const int key = layer->markers()[i].key;
        emit layer->hovered(key, true);
        if (!chart.callout()->isVisible())
            continue;
        ++hovered;
        ui::ChartView::resetZoomHint(); // the help shows once a session: as if each hover were a session's first
        QHelpEvent help(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
        QApplication::sendEvent(view.viewport(), &help);
        QWidget *tip = nullptr;
        for (QWidget *w : QApplication::topLevelWidgets())
            if (w->inherits("QTipLabel") && w->isVisible())
                tip = w;
        const QRect box = view.mapFromScene(chart.callout()->sceneBoundingRect()).boundingRect();
        const QRect callout(view.viewport()->mapToGlobal(box.topLeft()), box.size());
        shown += tip ? 1 : 0;
        if (tip)
            QVERIFY2(!tip->geometry().intersects(callout),
                     qPrintable(QStringLiteral("the help covers the callout of '%1'")
                                    .arg(chart.callout()->text().section(QLatin1Char('\n'), 0, 0))));
        QToolTip::hideText();
        emit layer->hovered(key, false);
    }
    QVERIFY(hovered >= 3);
    QCOMPARE(shown, hovered); // the help moved aside, not withdrawn
}

void TestRooflineChart::largeMarkersPaintAsInOnePass_data()
{
    QTest::addColumn<qreal>("scale");
    QTest::addColumn<QPointF>("offset");
    QTest::newRow("screen") << 1.0 << QPointF(0, 0);
    QTest::newRow("fractional offset") << 1.0 << QPointF(0.37, 0.61);
    QTest::newRow("scaled export") << 1.5 << QPointF(0.2, 0.45);
}

// A large marker is painted on a raster device in bands of rows, so that Qt does not hand its fill to a thread pool
// (issue #41): the pixels must be those of the marker painted in one pass, which a QPicture records and replays.
void TestRooflineChart::largeMarkersPaintAsInOnePass()
{
    QFETCH(qreal, scale);
    QFETCH(QPointF, offset);
    ui::ScenarioDocument doc(library());
    ui::RooflineChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(760, 540);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    ui::MarkerLayer *layer = chart.operatorMarkers();
    QChart *qchart = chart.chart();
    QAbstractSeries *series = qchart->series().front();
    const QRectF area = qchart->plotArea();
    const QPointF low = qchart->mapToValue(area.center() - QPointF(area.width() / 4, 0), series);
    const QPointF high = qchart->mapToValue(area.center() + QPointF(area.width() / 4, 0), series);
    const int group = layer->markers().front().group;
    // A circle and a star of 60 pixels (in bands), one of 12 (one pass), and a large one on the plot's border.
    const QPointF border = qchart->mapToValue(QPointF(area.left(), area.center().y()), series);
    layer->setMarkers({{low, 60, 0, group},
                       {high, 12, 1, group},
                       {border, 44, 2, group},
                       {high, 60, 3, group, false, ui::MarkerLayer::Shape::Star}});
    for (std::size_t i = 0; i < layer->markers().size(); ++i)
        QVERIFY(!std::isnan(layer->centre(i).x()));
    const QSize size = (QSizeF(qchart->size().toSize()) * scale).toSize() + QSize(1, 1);
    const auto painted = [&](const std::function<void(QPainter &)> &paint) {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.translate(offset);
        painter.scale(scale, scale);
        paint(painter);
        return image;
    };
    const QImage banded = painted([&](QPainter &p) { layer->paint(&p, nullptr, nullptr); });
    QPicture picture; // not a raster device: the markers are recorded in one pass each
    {
        QPainter recorder(&picture);
        layer->paint(&recorder, nullptr, nullptr);
    }
    const QImage onePass = painted([&](QPainter &p) { picture.play(&p); });
    int differing = 0, inked = 0;
    for (int y = 0; y < size.height(); ++y)
        for (int x = 0; x < size.width(); ++x) {
            differing += banded.pixel(x, y) != onePass.pixel(x, y);
            inked += onePass.pixel(x, y) != qRgb(255, 255, 255);
        }
    // the three circles and the star: well over a 60-pixel circle's area
    QVERIFY2(inked > 3000 * scale * scale, qPrintable(QString::number(inked)));
    QVERIFY2(differing == 0, qPrintable(QStringLiteral("%1 of %2 inked pixels differ").arg(differing).arg(inked)));
}

QTEST_MAIN(TestRooflineChart)
#include "tst_rooflinechart.moc"
