// The scaling chart: Amdahl and Gustafson curves at the serial fraction, and the scenario's own tensor-parallel
// scaling (points only where tp divides the model) with its rising communication share. At most six series, each
// with its own colour and dash pattern, a clearly drawn ideal line, every marker inside the plot, and a title naming
// model, phase and device.
#include "ui/charts/chartview.h"
#include "ui/charts/scalingchart.h"
#include "ui/document/scenariodocument.h"

#include "core/io/presets.h"
#include "uitest.h"

#include <QAbstractGraphicsShapeItem>
#include <QAction>
#include <QChart>
#include <QGraphicsItemGroup>
#include <QGraphicsScene>
#include <QLineSeries>
#include <QMenu>
#include <QScatterSeries>
#include <QtTest>

#include <cmath>

using namespace memwall;

namespace {

using uitest::library;

bool near(double a, double b, double rel = 1e-9) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

double valueAt(const QList<QPointF> &pts, double x)
{
    for (const QPointF &p : pts)
        if (near(p.x(), x, 1e-12))
            return p.y();
    return std::nan("");
}

} // namespace

class TestScalingChart : public QObject
{
    Q_OBJECT
private slots:
    void effectiveSerialFraction_data();
    void effectiveSerialFraction();
    void lawCurves();
    void defaultFractionFollowsScenario();
    void scenarioPointsOnlyWhereTpDivides();
    void commShareRises();
    void pipelineKind();
    void exportData();
    void serialFractionActions_data();
    void serialFractionActions();
    void parallelKindActions();
    void sixSeriesDistinctPens();
    void markersInsideThePlot_data();
    void markersInsideThePlot();
    void titleNamesModelPhaseDevice();
};

void TestScalingChart::effectiveSerialFraction_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<double>("explicitFraction"); // < 0: automatic
    QTest::addColumn<bool>("expectMeasured");
    QTest::addColumn<double>("expected");
    QTest::newRow("unsplit scenario: 5 % default") << 1 << -1.0 << false << 0.05;
    QTest::newRow("tp 8: the measured communication share") << 8 << -1.0 << true << 0.0;
    QTest::newRow("explicit 20 % wins") << 8 << 0.2 << false << 0.2;
    QTest::newRow("explicit is clamped") << 1 << 1.5 << false << 1.0;
}

void TestScalingChart::effectiveSerialFraction()
{
    QFETCH(int, tp);
    QFETCH(double, explicitFraction);
    QFETCH(bool, expectMeasured);
    QFETCH(double, expected);
    const auto lib = library();
    core::Scenario s;
    s.tp = tp;
    const auto a = core::analyze(*lib->findHardware("h100-sxm"), lib->findModel("llama-2-70b")->shape, s);
    const std::optional<double> ex = explicitFraction >= 0 ? std::optional<double>(explicitFraction) : std::nullopt;
    const double f = ui::scalingmath::effectiveSerialFraction(ex, a, s);
    if (expectMeasured) {
        QVERIFY(f > 0 && f < 1);
        QVERIFY(near(f, core::communicationFraction(a)));
    } else {
        QCOMPARE(f, expected);
    }
}

void TestScalingChart::lawCurves()
{
    ui::ScenarioDocument doc(library());
    ui::ScalingChart chart(&doc);
    QVERIFY(chart.serialFractionIsAutomatic());
    QCOMPARE(chart.serialFraction(), 0.05);
    QVERIFY(near(valueAt(chart.amdahlSpeedupPoints(), 64), core::amdahlSpeedup(0.05, 64)));
    QVERIFY(near(valueAt(chart.gustafsonSpeedupPoints(), 64), core::gustafsonSpeedup(0.05, 64)));
    chart.setSerialFraction(0.2);
    QCOMPARE(chart.serialFraction(), 0.2);
    QVERIFY(!chart.serialFractionIsAutomatic());
    QVERIFY(near(valueAt(chart.amdahlSpeedupPoints(), 16), 1.0 / (0.2 + 0.8 / 16)));
    QVERIFY(chart.chart()->title().size() > 0);
    chart.setSerialFraction(std::nullopt);
    QCOMPARE(chart.serialFraction(), 0.05);
}

void TestScalingChart::defaultFractionFollowsScenario()
{
    ui::ScenarioDocument doc(library());
    ui::ScalingChart chart(&doc);
    auto s = doc.scenario();
    s.tp = 8;
    doc.setScenario(s, "tp 8");
    QVERIFY(near(chart.serialFraction(), core::communicationFraction(doc.analysis())));
    QVERIFY(chart.serialFraction() > 0.0 && chart.serialFraction() != 0.05);
    doc.undoStack()->undo();
    QCOMPARE(chart.serialFraction(), 0.05);
}

void TestScalingChart::scenarioPointsOnlyWhereTpDivides()
{
    ui::ScenarioDocument doc(library());
    doc.setModelById("gpt2"); // 12 heads: tp 1, 2, 4 only (8 and up do not divide 12)
    ui::ScalingChart chart(&doc);
    const auto pts = chart.scenarioPoints();
    QCOMPARE(pts.size(), std::size_t(3));
    QCOMPARE(pts[0].devices, int64_t{1});
    QCOMPARE(pts[1].devices, 2);
    QCOMPARE(pts[2].devices, 4);
    QCOMPARE(chart.scenarioSpeedupPoints().size(), 3);

    doc.setModelById("llama-2-70b"); // 64 heads: all of 1..64
    QCOMPARE(chart.scenarioPoints().size(), std::size_t(7));
}

void TestScalingChart::commShareRises()
{
    ui::ScenarioDocument doc(library());
    ui::ScalingChart chart(&doc);
    const QList<QPointF> share = chart.commSharePoints();
    QCOMPARE(share.size(), 7);
    QCOMPARE(share.first().y(), 0.0);
    for (int i = 1; i < share.size(); ++i)
        QVERIFY(share[i].y() > share[i - 1].y());
    // The measured speedup stays below linear once communication appears.
    const QList<QPointF> sp = chart.scenarioSpeedupPoints();
    QVERIFY(sp.last().y() < 64.0);
}

void TestScalingChart::pipelineKind()
{
    ui::ScenarioDocument doc(library()); // 80 layers: 1, 2, 4, 8, 16 stages (32 and 64 do not divide 80)
    ui::ScalingChart chart(&doc);
    chart.setParallelKind(core::ParallelKind::Pipeline);
    QCOMPARE(chart.scenarioPoints().size(), std::size_t(5));
    QCOMPARE(chart.scenarioPoints().back().devices, 16);
}

void TestScalingChart::exportData()
{
    ui::ScenarioDocument doc(library());
    ui::ScalingChart chart(&doc);
    QCOMPARE(chart.id(), QString("scaling"));
    const QStringList lines = chart.csv().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 8);
    QVERIFY(lines.first().startsWith("devices,amdahl_speedup,"));
    QVERIFY(lines[1].startsWith("1,1,1,1,1,"));
    const auto j = chart.data();
    QCOMPARE(j.at("rows").size(), std::size_t(7));
    QVERIFY(j.at("rows")[6].contains("scenario"));
    QCOMPARE(j.at("serial_fraction").get<double>(), 0.05);
}

namespace {

QAction *findAction(const QList<QAction *> &actions, const QString &name)
{
    for (QAction *a : actions) {
        if (a->objectName() == name)
            return a;
        if (auto *menu = a->menu<QMenu *>())
            if (QAction *inner = findAction(menu->actions(), name))
                return inner;
    }
    return nullptr;
}

} // namespace

void TestScalingChart::serialFractionActions_data()
{
    QTest::addColumn<QString>("action");
    QTest::addColumn<double>("fraction");
    // Amdahl at 64 devices: 1 / (s + (1 - s) / 64).
    QTest::newRow("1 %: Amdahl 39.3x at 64") << "option:serialFraction:1" << 0.01;
    QTest::newRow("10 %: Amdahl 8.77x at 64") << "option:serialFraction:10" << 0.10;
    QTest::newRow("25 %: Amdahl 3.82x at 64") << "option:serialFraction:25" << 0.25;
}

void TestScalingChart::serialFractionActions()
{
    QFETCH(QString, action);
    QFETCH(double, fraction);
    ui::ScenarioDocument doc(library());
    ui::ScalingChart chart(&doc);
    const QList<QAction *> actions = chart.optionActions();
    QAction *autoAction = findAction(actions, "option:serialFraction:auto");
    QAction *a = findAction(actions, action);
    QVERIFY(autoAction && a);
    QVERIFY(autoAction->isChecked()); // the default: the scenario's communication share, else 5 %
    QVERIFY(!a->isChecked());
    QVERIFY(a->toolTip() != QString(a->text()).remove('&')); // an explicit tooltip, not the text
    QVERIFY(near(valueAt(chart.amdahlSpeedupPoints(), 64), 1 / (0.05 + 0.95 / 64)));

    a->trigger();
    QVERIFY(a->isChecked());
    QVERIFY(!autoAction->isChecked());
    QVERIFY(!chart.serialFractionIsAutomatic());
    QVERIFY(near(chart.serialFraction(), fraction));
    QVERIFY(near(valueAt(chart.amdahlSpeedupPoints(), 64), 1 / (fraction + (1 - fraction) / 64)));
    QVERIFY(near(valueAt(chart.gustafsonSpeedupPoints(), 64), 64 - fraction * 63));

    autoAction->trigger();
    QVERIFY(chart.serialFractionIsAutomatic());
    QVERIFY(!a->isChecked());
    QVERIFY(near(valueAt(chart.amdahlSpeedupPoints(), 64), 1 / (0.05 + 0.95 / 64)));
}

void TestScalingChart::parallelKindActions()
{
    ui::ScenarioDocument doc(library()); // Llama 2 70B: 80 layers, 64 heads
    ui::ScalingChart chart(&doc);
    const QList<QAction *> actions = chart.optionActions();
    QAction *tensor = findAction(actions, "option:parallel:tensor");
    QAction *pipeline = findAction(actions, "option:parallel:pipeline");
    QVERIFY(tensor && pipeline);
    QVERIFY(tensor->isChecked());
    QCOMPARE(chart.scenarioPoints().size(), std::size_t(7)); // tp 1..64 all divide 64 heads
    const double tp16 = valueAt(chart.scenarioSpeedupPoints(), 16);

    pipeline->trigger();
    QVERIFY(pipeline->isChecked());
    QVERIFY(!tensor->isChecked());
    QCOMPARE(chart.parallelKind(), core::ParallelKind::Pipeline);
    QCOMPARE(chart.scenarioPoints().size(), std::size_t(5)); // pp 1..16 divide 80 layers
    QVERIFY(!near(valueAt(chart.scenarioSpeedupPoints(), 16), tp16, 1e-3));

    chart.setParallelKind(core::ParallelKind::Tensor); // from elsewhere: the check mark follows
    QVERIFY(tensor->isChecked());
    QCOMPARE(chart.scenarioPoints().size(), std::size_t(7));
}

void TestScalingChart::sixSeriesDistinctPens()
{
    ui::ScenarioDocument doc(library());
    for (const QString &theme : ui::Theme::ids()) {
        ui::ScalingChart chart(&doc);
        chart.setTheme(ui::Theme::byId(theme));
        const QList<QAbstractSeries *> series = chart.chart()->series();
        QVERIFY2(series.size() <= 6, qPrintable(QString::number(series.size())));
        // Every line its own colour and its own dash pattern; the scatter's colour differs from them all.
        QList<QPen> pens;
        QList<QColor> colours;
        for (QAbstractSeries *s : series) {
            if (auto *scatter = qobject_cast<QScatterSeries *>(s)) {
                colours << scatter->color();
            } else if (auto *line = qobject_cast<QLineSeries *>(s)) {
                pens << line->pen();
                colours << line->pen().color();
            }
        }
        QCOMPARE(pens.size() + 1, int(series.size()));
        for (int i = 0; i < pens.size(); ++i)
            for (int j = i + 1; j < pens.size(); ++j)
                QVERIFY2(pens[i].style() != pens[j].style(), qPrintable(QString("%1 %2 %3").arg(theme).arg(i).arg(j)));
        for (int i = 0; i < colours.size(); ++i)
            for (int j = i + 1; j < colours.size(); ++j)
                QVERIFY2(colours[i].rgb() != colours[j].rgb(),
                         qPrintable(QString("%1 %2 %3").arg(theme).arg(i).arg(j)));
        // The ideal line: opaque, in the text colour, as wide as the other curves.
        auto *ideal = qobject_cast<QLineSeries *>(series.first());
        QVERIFY(ideal && ideal->name().startsWith("Ideal"));
        QCOMPARE(ideal->pen().color().alpha(), 255);
        QCOMPARE(ideal->pen().color().rgb(), ui::Theme::byId(theme).foreground.rgb());
        QVERIFY(ideal->pen().widthF() >= ui::Theme::byId(theme).lineWidth);
    }
}

void TestScalingChart::markersInsideThePlot_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("pipeline");
    QTest::addColumn<QString>("theme");
    QTest::addColumn<QSize>("size");
    QTest::newRow("Llama 2 7B tp, presentation 1280x720")
        << "llama-2-7b" << false << "presentation" << QSize(1280, 720);
    QTest::newRow("Llama 2 7B tp, presentation 1024x768")
        << "llama-2-7b" << false << "presentation" << QSize(1024, 768);
    QTest::newRow("Llama 2 70B pp (speedups below 1), light") << "llama-2-70b" << true << "light" << QSize(900, 560);
    QTest::newRow("GPT-2 tp 1..4, dark") << "gpt2" << false << "dark" << QSize(800, 500);
}

void TestScalingChart::markersInsideThePlot()
{
    QFETCH(QString, model);
    QFETCH(bool, pipeline);
    QFETCH(QString, theme);
    QFETCH(QSize, size);
    ui::ScenarioDocument doc(library());
    doc.setModelById(model);
    ui::ScalingChart chart(&doc);
    chart.setTheme(ui::Theme::byId(theme));
    if (pipeline)
        chart.setParallelKind(core::ParallelKind::Pipeline);
    ui::ChartView view(&chart);
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QChart *c = chart.chart();
    const QRectF area = c->plotArea();
    // The scatter's markers, read back from the scene: whole, inside the plot (the first, at 0 %, too).
    int painted = 0;
    for (QGraphicsItem *item : c->scene()->items()) {
        if (!c->isAncestorOf(item) || !item->isVisible() || !item->parentItem() ||
            item->parentItem()->type() != QGraphicsItemGroup::Type || !dynamic_cast<QAbstractGraphicsShapeItem *>(item))
            continue;
        const QRectF r = c->mapRectFromScene(item->sceneBoundingRect());
        QVERIFY2(area.contains(r),
                 qPrintable(QString("marker at (%1, %2) outside the plot").arg(r.center().x()).arg(r.center().y())));
        ++painted;
    }
    QCOMPARE(painted, chart.commSharePoints().size());
    QCOMPARE(chart.commSharePoints().first().y(), 0.0); // one device: no communication, on the 0 % line
    // The points the lines draw (speedup, efficiency): where their values map, a whole marker inside the plot.
    for (QAbstractSeries *s : c->series()) {
        auto *line = qobject_cast<QLineSeries *>(s);
        if (!line || !line->pointsVisible())
            continue;
        const qreal r = std::max(line->markerSize() / 2, line->pen().widthF() * 0.75) + 1; // a point marker
        for (const QPointF &p : line->points()) {
            const QPointF at = c->mapToPosition(p, line);
            QVERIFY2(area.adjusted(r, r, -r, -r).contains(at), qPrintable(QString("%1 (%2, %3) at (%4, %5)")
                                                                              .arg(line->name())
                                                                              .arg(p.x())
                                                                              .arg(p.y())
                                                                              .arg(at.x())
                                                                              .arg(at.y())));
        }
    }
}

void TestScalingChart::titleNamesModelPhaseDevice()
{
    ui::ScenarioDocument doc(library());
    doc.setModelById("llama-2-7b");
    ui::ScalingChart chart(&doc);
    QCOMPARE(chart.title(),
             QString("Llama 2 7B decode on H100 SXM5 80GB: tp = n vs Amdahl and Gustafson (serial 5 %)"));
    chart.setParallelKind(core::ParallelKind::Pipeline);
    QVERIFY(chart.title().contains("pp = n"));
}

QTEST_MAIN(TestScalingChart)
#include "tst_scalingchart.moc"
