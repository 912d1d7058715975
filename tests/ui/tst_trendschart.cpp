// The hardware trends chart: fitted growth labels (3.0x / 1.6x / 1.4x per two years), renormalisation to a base
// year, the optional model-side series, the device marked on every series it has a value for, the gap between
// compute and DRAM bandwidth computed from the fits, and the names of the points the paper's figure names. The devices
// of 2023-25 MemWall adds (hollow diamonds) and the dashed refits with them, shown and taken away by their action.
#include "ui/charts/callout.h"
#include "ui/charts/chartview.h"
#include "ui/charts/trendschart.h"
#include "ui/document/scenariodocument.h"

#include "core/io/presets.h"
#include "painted.h"
#include "uitest.h"

#include <QAbstractGraphicsShapeItem>
#include <QAction>
#include <QChart>
#include <QGraphicsItemGroup>
#include <QGraphicsPolygonItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace memwall;

namespace {

using uitest::library;

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

} // namespace

class TestTrendsChart : public QObject
{
    Q_OBJECT
private slots:
    void growthLabel_data();
    void growthLabel();
    void fittedLabels_data();
    void fittedLabels();
    void baseYearRenormalises();
    void baseYearClamps();
    void optionalSeries();
    void deviceMarker();
    void exportData();
    void optionActions_data();
    void optionActions();
    void baseYearActions_data();
    void baseYearActions();
    void largeTicksWithoutExponent();
    void gapFactor_data();
    void gapFactor();
    void gapAnnotatedFromTheFits_data();
    void gapAnnotatedFromTheFits();
    void deviceOnEverySeries_data();
    void deviceOnEverySeries();
    void pointsNamed_data();
    void pointsNamed();
    void refitLegend_data();
    void refitLegend();
    void addedDevicesToggle_data();
    void addedDevicesToggle();
    void addedDeviceTooltip_data();
    void addedDeviceTooltip();
    void gapStaysOnThePaper();
    void exportAddedDevices();
};

void TestTrendsChart::growthLabel_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("factor");
    QTest::addColumn<QString>("label");
    QTest::newRow("Peak FLOPS x3.0") << "Peak FLOPS" << 3.03 << "Peak FLOPS ×3.0 / 2 yrs";
    QTest::newRow("DRAM x1.6") << "DRAM BW" << 1.59 << "DRAM BW ×1.6 / 2 yrs";
    QTest::newRow("Model size x410") << "Model size" << 413.2 << "Model size ×413 / 2 yrs";
}

void TestTrendsChart::growthLabel()
{
    QFETCH(QString, name);
    QFETCH(double, factor);
    QFETCH(QString, label);
    QCOMPARE(ui::trendsmath::growthLabel(name, factor), label);
}

void TestTrendsChart::fittedLabels_data()
{
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("growth");
    QTest::newRow("peak FLOPS x3.0 / 2 yrs") << 0 << "×3.0 / 2 yrs";
    QTest::newRow("DRAM bandwidth x1.6 / 2 yrs") << 1 << "×1.6 / 2 yrs";
    QTest::newRow("interconnect x1.4 / 2 yrs") << 2 << "×1.4 / 2 yrs";
}

void TestTrendsChart::fittedLabels()
{
    QFETCH(int, index);
    QFETCH(QString, growth);
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    const QStringList labels = chart.fitLabels();
    QCOMPARE(labels.size(), 3); // model size and training compute are off by default
    QVERIFY2(labels[index].contains(growth), qPrintable(labels[index]));
    QVERIFY(chart.title().contains("3.0") && chart.title().contains("1.6") && chart.title().contains("1.4"));
}

void TestTrendsChart::baseYearRenormalises()
{
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    QCOMPARE(chart.baseYear(), ui::TrendsChart::kDefaultBaseYear);
    const QList<QPointF> before = chart.plottedPoints("hw_peak_flops");
    QVERIFY(before.size() > 30);
    const QPointF deviceBefore = chart.deviceMarker();

    QSignalSpy spy(&chart, &ui::TrendsChart::baseYearChanged);
    chart.setBaseYear(2010);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(chart.baseYear(), 2010);
    const QList<QPointF> after = chart.plottedPoints("hw_peak_flops");
    QCOMPARE(after.size(), before.size());
    // Every point is divided by the same factor: the fitted growth over 2003..2010 (3.0x per 2 years -> ~48x).
    const auto trends = core::loadBuiltinTrends();
    const auto fit = core::fitExponential(trends.find("hw_peak_flops")->points);
    const double expected = fit.at(2010) / fit.at(2003);
    QVERIFY(expected > 40 && expected < 60);
    for (int i = 0; i < before.size(); ++i) {
        QCOMPARE(after[i].x(), before[i].x());
        QVERIFY(near(before[i].y() / after[i].y(), expected, 1e-9));
    }
    QVERIFY(near(deviceBefore.y() / chart.deviceMarker().y(), expected, 1e-9));
    // The fitted curve passes through 1 at the base year.
    const auto curve = ui::trendsmath::fitCurve(
        fit, 2010, 2020, ui::trendsmath::normalisationDivisor(*trends.find("hw_peak_flops"), &fit, 2010));
    QVERIFY(near(curve.front().y(), 1.0, 1e-12));
    QVERIFY(chart.chart()->axes(Qt::Vertical).first()->titleText().contains("2010"));

    chart.setBaseYear(2010); // unchanged: no signal
    QCOMPARE(spy.count(), 1);
}

void TestTrendsChart::baseYearClamps()
{
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    chart.setBaseYear(1900);
    QCOMPARE(chart.baseYear(), ui::TrendsChart::kMinBaseYear);
    chart.setBaseYear(2100);
    QCOMPARE(chart.baseYear(), ui::TrendsChart::kMaxBaseYear);
}

void TestTrendsChart::optionalSeries()
{
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    QVERIFY(chart.plottedPoints("transformer_params").isEmpty());
    QVERIFY(chart.plottedPoints("training_compute").isEmpty());
    chart.setShowModelSize(true);
    chart.setShowTrainingCompute(true);
    QCOMPARE(chart.plottedPoints("transformer_params").size(), 12);
    QCOMPARE(chart.plottedPoints("training_compute").size(), 10);
    const QStringList labels = chart.fitLabels();
    QCOMPARE(labels.size(), 5);
    QVERIFY2(labels[3].contains("×4"), qPrintable(labels[3])); // ~410x per two years
    QVERIFY2(labels[4].contains("×7"), qPrintable(labels[4])); // ~750x per two years
    // They start in 2018, so they are shown relative to their own first year, not extrapolated back to 2003.
    QVERIFY(chart.plottedPoints("transformer_params").first().y() > 0.1);
    QVERIFY(chart.data().at("series").size() == 5);
}

void TestTrendsChart::deviceMarker()
{
    ui::ScenarioDocument doc(library()); // H100 SXM, 2022, 989 TFLOP/s FP16
    ui::TrendsChart chart(&doc);
    const QPointF h100 = chart.deviceMarker();
    QVERIFY(near(h100.x(), doc.hardware().year.value + 0.5, 1e-12));
    doc.setHardwareById("a100-80gb-sxm");
    const QPointF a100 = chart.deviceMarker();
    QVERIFY(near(a100.x(), doc.hardware().year.value + 0.5, 1e-12));
    // Same normalisation: the marker heights compare as the devices' FP16 peaks.
    QVERIFY(near(h100.y() / a100.y(), 989.4e12 / 312e12, 0.01));
    doc.undoStack()->undo();
    QVERIFY(near(chart.deviceMarker().y(), h100.y(), 1e-12));
    core::DType dt = core::DType::FP32;
    QVERIFY(ui::trendsmath::devicePeak(doc.hardware(), &dt) > 0);
    QVERIFY(dt == core::DType::FP16);
}

void TestTrendsChart::exportData()
{
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    QCOMPARE(chart.id(), QString("trends"));
    const QStringList lines = chart.csv().split('\n', Qt::SkipEmptyParts);
    QVERIFY(lines.first().startsWith("series,name,year,value,unit,normalized,in_fit,")); // new fields at the end
    QCOMPARE(lines.size(), 1 + 37 + 14 + 12 + 14 + 10); // with the devices MemWall adds (exportAddedDevices)
    QVERIFY(lines[1].startsWith("hw_peak_flops,"));
    const auto j = chart.data();
    QCOMPARE(j.at("base_year").get<int>(), 2003);
    QCOMPARE(j.at("series").size(), std::size_t(3));
    QVERIFY(j.at("series")[0].at("factor_per_2_years").get<double>() > 2.9);
    QVERIFY(j.contains("device"));
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

void TestTrendsChart::optionActions_data()
{
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("seriesId");
    QTest::newRow("Show model size (Gholami fig. 1: ×410 / 2 yrs)") << "option:showModelSize"
                                                                    << "transformer_params";
    QTest::newRow("Show training compute (×750 / 2 yrs)") << "option:showTrainingCompute"
                                                          << "training_compute";
}

void TestTrendsChart::optionActions()
{
    QFETCH(QString, action);
    QFETCH(QString, seriesId);
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    const QList<QAction *> actions = chart.optionActions();
    QCOMPARE(actions.size(), 4); // base-year submenu, model size, training compute, added devices
    QAction *a = findAction(actions, action);
    QVERIFY(a);
    QVERIFY(a->isCheckable());
    QVERIFY(a->toolTip() != QString(a->text()).remove('&')); // an explicit tooltip, not the text
    QVERIFY(!a->isChecked());
    QVERIFY(chart.plottedPoints(seriesId).isEmpty());
    const int labelsBefore = int(chart.fitLabels().size());

    a->trigger(); // as a click in the context menu does
    QVERIFY(a->isChecked());
    QVERIFY(!chart.plottedPoints(seriesId).isEmpty());
    QCOMPARE(int(chart.fitLabels().size()), labelsBefore + 1);

    a->trigger();
    QVERIFY(!a->isChecked());
    QVERIFY(chart.plottedPoints(seriesId).isEmpty());
    QCOMPARE(int(chart.fitLabels().size()), labelsBefore);

    // A setter called from elsewhere moves the check mark too; the document is not touched (view state).
    const int undo = doc.undoStack()->count();
    if (seriesId == "transformer_params")
        chart.setShowModelSize(true);
    else
        chart.setShowTrainingCompute(true);
    QVERIFY(a->isChecked());
    QCOMPARE(doc.undoStack()->count(), undo);
}

void TestTrendsChart::baseYearActions_data()
{
    QTest::addColumn<int>("year");
    for (int y : ui::TrendsChart::kBaseYearChoices)
        if (y != ui::TrendsChart::kDefaultBaseYear)
            QTest::newRow(qPrintable(QString("base year %1").arg(y))) << y;
}

void TestTrendsChart::baseYearActions()
{
    QFETCH(int, year);
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    const QList<QAction *> actions = chart.optionActions();
    QAction *menuAction = findAction(actions, "option:baseYear");
    QVERIFY(menuAction && menuAction->menu<QMenu *>());
    QAction *paper = findAction(actions, QString("option:baseYear:%1").arg(ui::TrendsChart::kDefaultBaseYear));
    QAction *a = findAction(actions, QString("option:baseYear:%1").arg(year));
    QVERIFY(paper && a);
    QVERIFY(paper->isChecked());
    QVERIFY(!a->isChecked());
    const QList<QPointF> before = chart.plottedPoints("hw_peak_flops");
    QSignalSpy spy(&chart, &ui::TrendsChart::baseYearChanged);

    a->trigger();
    QCOMPARE(chart.baseYear(), year);
    QCOMPARE(spy.count(), 1);
    QVERIFY(a->isChecked());
    QVERIFY(!paper->isChecked());
    // Every FLOPS point is divided by the fitted value at the new base year instead: the same factor for all.
    const QList<QPointF> after = chart.plottedPoints("hw_peak_flops");
    QCOMPARE(after.size(), before.size());
    const double ratio = after.first().y() / before.first().y();
    QVERIFY(std::abs(ratio - 1) > 1e-3);
    for (int i = 0; i < after.size(); ++i)
        QVERIFY(std::abs(after[i].y() / before[i].y() - ratio) <= 1e-9 * ratio);

    // A base year that the menu does not offer leaves no year checked.
    chart.setBaseYear(2010);
    for (QAction *y : menuAction->menu<QMenu *>()->actions())
        QVERIFY(!y->isChecked());
}

void TestTrendsChart::largeTicksWithoutExponent()
{
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    const auto axes = chart.chart()->axes(Qt::Vertical);
    QCOMPARE(axes.size(), 1);
    auto *y = qobject_cast<QLogValueAxis *>(axes.first());
    QVERIFY(y);
    // The axis reaches 10^6 (the H100 is ~10^5 × the 2003 fit); its label must read 1000000, not 1e+06.
    QVERIFY(y->max() >= 1e6 * (1 - 1e-6));
    QCOMPARE(QString::asprintf(y->labelFormat().toLatin1().constData(), 1e6), QString("1000000"));
    QCOMPARE(QString::asprintf(y->labelFormat().toLatin1().constData(), 0.01), QString("0.01"));
}

void TestTrendsChart::gapFactor_data()
{
    QTest::addColumn<double>("factorA");
    QTest::addColumn<double>("factorB");
    QTest::addColumn<double>("years");
    QTest::addColumn<double>("gap");
    QTest::newRow("x3.0 vs x1.6 per 2 yrs over 10 yrs: 1.875^5 = 23.2") << 3.0 << 1.6 << 10.0 << std::pow(1.875, 5);
    QTest::newRow("x3.0 vs x1.6 over 19 yrs: 1.875^9.5 = 392") << 3.0 << 1.6 << 19.0 << std::pow(1.875, 9.5);
    QTest::newRow("equal growth: no gap") << 1.6 << 1.6 << 10.0 << 1.0;
}

void TestTrendsChart::gapFactor()
{
    QFETCH(double, factorA);
    QFETCH(double, factorB);
    QFETCH(double, years);
    QFETCH(double, gap);
    // Two exact fits through 1e9 and 4e12 at 2000, normalised there as the chart does.
    auto fit = [](double factor, double at2000) {
        core::GrowthFit f;
        f.slopeLog10PerYear = std::log10(factor) / 2;
        f.interceptLog10 = std::log10(at2000) - f.slopeLog10PerYear * 2000;
        f.factorPer2Years = factor;
        return f;
    };
    const core::GrowthFit a = fit(factorA, 1e9), b = fit(factorB, 4e12);
    QVERIFY(near(ui::trendsmath::gapFactor(a, a.at(2000), b, b.at(2000), 2000 + years), gap, 1e-9));
    QCOMPARE(ui::trendsmath::gapLabel(392.4, 2003, 2003),
             QString("compute grew ×392 more\nthan DRAM bandwidth since 2003"));
    QCOMPARE(ui::trendsmath::gapLabel(23.2, 1997, 2003),
             QString("compute since 1997 grew ×23 more\nthan DRAM bandwidth since 2003"));
}

void TestTrendsChart::gapAnnotatedFromTheFits_data()
{
    QTest::addColumn<int>("baseYear");
    QTest::newRow("the paper's 2003") << 2003;
    QTest::newRow("from 2012") << 2012;
}

void TestTrendsChart::gapAnnotatedFromTheFits()
{
    QFETCH(int, baseYear);
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    chart.setBaseYear(baseYear);
    const auto trends = core::loadBuiltinTrends();
    const core::TrendSeries &flops = *trends.find("hw_peak_flops"), &dram = *trends.find("dram_bandwidth");
    const auto ff = core::fitExponential(flops.points), fd = core::fitExponential(dram.points);
    // The bracket stands at the last year both series reach (DRAM's HBM2E, 2022.2), from the DRAM fit to the FLOPS
    // fit, each relative to its reference year (2003 -> FLOPS 2003.0, DRAM its first point, 2003.7).
    const double year = std::min(flops.points.back().year, dram.points.back().year);
    const double refF = ui::trendsmath::referenceYear(flops, baseYear),
                 refD = ui::trendsmath::referenceYear(dram, baseYear);
    const QList<QPointF> bracket = chart.gapBracket();
    QCOMPARE(bracket.size(), 2);
    QCOMPARE(bracket[0].x(), year);
    QVERIFY(near(bracket[0].y(), fd.at(year) / fd.at(refD), 1e-9));
    QVERIFY(near(bracket[1].y(), ff.at(year) / ff.at(refF), 1e-9));
    // The gap: 3.03^((2022.2 - 2003) / 2) / 1.59^((2022.2 - 2003.7) / 2), some 570 from 2003.
    const double gap =
        std::pow(ff.factorPer2Years, (year - refF) / 2) / std::pow(fd.factorPer2Years, (year - refD) / 2);
    QVERIFY(near(bracket[1].y() / bracket[0].y(), gap, 1e-9));
    if (baseYear == 2003)
        QVERIFY2(gap > 400 && gap < 700, qPrintable(QString::number(gap)));
    QCOMPARE(chart.data().at("gap").at("label").get<std::string>(),
             ui::trendsmath::gapLabel(gap, int(std::floor(refF)), int(std::floor(refD))).toStdString());
    QVERIFY2(QString::fromStdString(chart.data().at("gap").at("label")).contains(QString::number(std::round(gap))),
             chart.data().at("gap").dump().c_str());
}

void TestTrendsChart::deviceOnEverySeries_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<double>("peak");
    QTest::addColumn<double>("dram"); // 0: no DRAM, so no marker on that series
    QTest::newRow("H100 SXM: 989.4 TFLOP/s FP16, 3.35 TB/s HBM3") << "h100-sxm" << 989.4e12 << 3.35e12;
    QTest::newRow("TPU v4: 275 TFLOP/s BF16, 1.2 TB/s HBM2") << "tpu-v4" << 275e12 << 1.2e12;
    QTest::newRow("Groq LPU: 188 TFLOP/s FP16, on-chip SRAM only") << "groq-lpu" << 188e12 << 0.0;
}

void TestTrendsChart::deviceOnEverySeries()
{
    QFETCH(QString, device);
    QFETCH(double, peak);
    QFETCH(double, dram);
    ui::ScenarioDocument doc(library());
    doc.setHardwareById(device);
    ui::TrendsChart chart(&doc);
    const auto trends = core::loadBuiltinTrends();
    auto divisor = [&](const char *id) {
        const core::TrendSeries &s = *trends.find(id);
        const auto fit = core::fitExponential(s.points);
        return ui::trendsmath::normalisationDivisor(s, &fit, ui::TrendsChart::kDefaultBaseYear);
    };
    const auto markers = chart.deviceMarkers();
    QCOMPARE(markers.size(), dram > 0 ? 2 : 1);
    QCOMPARE(markers[0].first, QString("hw_peak_flops"));
    QVERIFY(near(markers[0].second.y(), peak / divisor("hw_peak_flops"), 1e-9));
    QCOMPARE(markers[0].second.x(), doc.hardware().year.value + 0.5);
    if (dram > 0) {
        QCOMPARE(markers[1].first, QString("dram_bandwidth"));
        QVERIFY(near(markers[1].second.y(), dram / divisor("dram_bandwidth"), 1e-9));
        QCOMPARE(markers[1].second.x(), markers[0].second.x());
    }
    // Both painted where they map (with every other marker of the chart).
    ui::ChartView view(&chart);
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    const QString problem = uitest::markerProblems(chart);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // A change of device moves them; undo brings them back.
    const auto before = chart.deviceMarkers();
    doc.setHardwareById(device == "h100-sxm" ? "b200" : "h100-sxm");
    QCoreApplication::processEvents();
    QVERIFY(chart.deviceMarkers()[0].second != before[0].second);
    QVERIFY2(uitest::markerProblems(chart).isEmpty(), qPrintable(uitest::markerProblems(chart)));
    doc.undoStack()->undo();
    QCOMPARE(chart.deviceMarkers(), before);
    // A what-if doubling the device's compute doubles its FLOPS marker: the chart draws the scaled device.
    core::WhatIf twice;
    twice.compute = 2;
    doc.setWhatIf(twice, -1);
    QCoreApplication::processEvents();
    QCOMPARE(chart.deviceMarkers()[0].first, QString("hw_peak_flops"));
    QVERIFY(qFuzzyCompare(chart.deviceMarkers()[0].second.y(), 2 * before[0].second.y()));
    QVERIFY2(uitest::markerProblems(chart).isEmpty(), qPrintable(uitest::markerProblems(chart)));
    doc.undoStack()->undo();
    // A new batch is nothing the chart draws: the chart is not laid out again, and stays where it was.
    core::Scenario batch = doc.scenario();
    batch.batch = 64;
    doc.setScenario(batch, "batch");
    QCoreApplication::processEvents();
    QCOMPARE(chart.deviceMarkers(), before);
    QVERIFY2(uitest::markerProblems(chart).isEmpty(), qPrintable(uitest::markerProblems(chart)));
}

void TestTrendsChart::pointsNamed_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("theme");
    QTest::addColumn<int>("minNames"); // of the 21 the figure prints; a slide has room for fewer
    QTest::newRow("1280x720 presentation") << QSize(1280, 720) << "presentation" << 5;
    QTest::newRow("1024x768 presentation") << QSize(1024, 768) << "presentation" << 5;
    QTest::newRow("1600x1000 light") << QSize(1600, 1000) << "light" << 10;
}

void TestTrendsChart::pointsNamed()
{
    QFETCH(QSize, size);
    QFETCH(QString, theme);
    QFETCH(int, minNames);
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    chart.setTheme(ui::Theme::byId(theme));
    ui::ChartView view(&chart);
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    // The names the paper's figure prints, and only those.
    QStringList figureNames;
    for (const auto &s : core::loadBuiltinTrends().series)
        for (const auto &p : s.points)
            if (!p.labelInFigure.empty())
                figureNames << QString::fromStdString(p.labelInFigure);
    const auto labels = chart.visibleLabels();
    QVERIFY2(labels.size() >= minNames, qPrintable(QString::number(labels.size())));
    const QRectF area = chart.chart()->plotArea();
    QRectF gap;
    for (QGraphicsItem *item : chart.chart()->childItems())
        if (auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(item);
            t && t->isVisible() && t->text() == chart.gapText())
            gap = t->mapRectToParent(t->boundingRect());
    QVERIFY(!chart.gapText().isEmpty());
    QVERIFY(gap.isValid() && area.contains(gap));
    for (int i = 0; i < labels.size(); ++i) {
        QVERIFY2(figureNames.contains(labels[i].first), qPrintable(labels[i].first));
        QVERIFY2(area.contains(labels[i].second), qPrintable(labels[i].first));
        QVERIFY2(!labels[i].second.intersects(gap), qPrintable(labels[i].first));
        for (int j = i + 1; j < labels.size(); ++j)
            QVERIFY2(!labels[i].second.intersects(labels[j].second),
                     qPrintable(labels[i].first + " over " + labels[j].first));
    }
    // No name or the gap's label covers a marker (read back from the scene).
    const QChart *c = chart.chart();
    for (QGraphicsItem *item : c->scene()->items()) {
        if (!c->isAncestorOf(item) || !item->isVisible() || !item->parentItem() ||
            item->parentItem()->type() != QGraphicsItemGroup::Type || !dynamic_cast<QAbstractGraphicsShapeItem *>(item))
            continue;
        const QRectF marker = c->mapRectFromScene(item->sceneBoundingRect()).adjusted(1, 1, -1, -1);
        QVERIFY(!gap.intersects(marker));
        for (const auto &[text, rect] : labels)
            QVERIFY2(!rect.intersects(marker), qPrintable(text));
    }
}

void TestTrendsChart::refitLegend_data()
{
    QTest::addColumn<int>("first");
    QTest::addColumn<int>("last");
    QTest::addColumn<int>("form");
    QTest::addColumn<QString>("fit");
    QTest::addColumn<QString>("refit");
    const QString fit = "Peak FLOPS ×3.0 / 2 yrs";
    QTest::newRow("2023-25, in full") << 2023 << 2025 << 0 << fit
                                      << "Peak FLOPS refit with 2023–25 devices ×2.9 / 2 yrs";
    QTest::newRow("2023-25, without the name") << 2023 << 2025 << 1 << fit << "Refit with 2023–25 devices ×2.9 / 2 yrs";
    QTest::newRow("2023-25, shortest") << 2023 << 2025 << 2 << fit << "Refit with 2023–25 ×2.9 / 2 yrs";
    QTest::newRow("2023-25, folded into the fit's entry") << 2023 << 2025 << 3 << "Peak FLOPS ×3.0 / 2 yrs, refit ×2.9"
                                                          << "";
    QTest::newRow("one year") << 2024 << 2024 << 0 << fit << "Peak FLOPS refit with 2024 devices ×2.9 / 2 yrs";
    QTest::newRow("across a century") << 1999 << 2001 << 2 << fit << "Refit with 1999–2001 ×2.9 / 2 yrs";
    QTest::newRow("2001-09: two digits") << 2001 << 2009 << 2 << fit << "Refit with 2001–09 ×2.9 / 2 yrs";
}

void TestTrendsChart::refitLegend()
{
    QFETCH(int, first);
    QFETCH(int, last);
    QFETCH(int, form);
    QFETCH(QString, fit);
    QFETCH(QString, refit);
    const auto [gotFit, gotRefit] = ui::trendsmath::refitLegend("Peak FLOPS", 3.03, first, last, 2.94, form);
    QCOMPARE(gotFit, fit);
    QCOMPARE(gotRefit, refit);
}

namespace {

/// The visible items of `c` drawn as a thin line through every point of `at` (chart coordinates): each contains all
/// of them and none of the points 8 px above them (which the plot's background and grid do).
QList<QGraphicsItem *> linesThrough(const QChart *c, const QList<QPointF> &at)
{
    QList<QGraphicsItem *> out;
    for (QGraphicsItem *item : c->scene()->items(c->mapToScene(at.first()))) {
        if (!c->isAncestorOf(item) || !item->isVisible())
            continue;
        const bool through = std::all_of(at.begin(), at.end(), [&](const QPointF &p) {
            return item->contains(item->mapFromScene(c->mapToScene(p))) &&
                   !item->contains(item->mapFromScene(c->mapToScene(p - QPointF(0, 8))));
        });
        if (through)
            out << item;
    }
    return out;
}

/// The visible scatter markers of `c` as Qt Charts paints them (shape items grouped under their series' item) that are
/// drawn in `pen` colour with a `fill` brush (any, for invalid colours): their centres in chart coordinates, and their
/// item types.
QList<QPair<QPointF, int>> paintedMarkers(const QChart *c, const QColor &pen, const QColor &fill)
{
    QList<QPair<QPointF, int>> out;
    for (QGraphicsItem *item : c->scene()->items()) {
        auto *shape = dynamic_cast<QAbstractGraphicsShapeItem *>(item);
        if (!shape || !c->isAncestorOf(item) || !item->isVisible() || !item->parentItem() ||
            item->parentItem()->type() != QGraphicsItemGroup::Type || (pen.isValid() && shape->pen().color() != pen) ||
            (fill.isValid() && shape->brush().color() != fill))
            continue;
        out.append({c->mapFromScene(item->sceneBoundingRect().center()), item->type()});
    }
    return out;
}

/// Years where the refits run and no curve of the paper's does (its last points are of 2022).
const QList<double> kRefitYears = {2023.0, 2023.6, 2023.9};

} // namespace

void TestTrendsChart::addedDevicesToggle_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("theme");
    QTest::newRow("1280x720 presentation") << QSize(1280, 720) << "presentation";
    QTest::newRow("1600x1000 light") << QSize(1600, 1000) << "light";
    QTest::newRow("1024x768 dark") << QSize(1024, 768) << "dark";
    QTest::newRow("1024x768 presentation") << QSize(1024, 768) << "presentation";
}

// The checkable action shows the devices added after the paper's data and the refits (on by default), and takes them
// away: read back from the scene, the refit's dashed line and the hollow diamonds are drawn where their values map,
// and nothing is drawn there once the action is unchecked. The paper's fits and the gap do not move.
void TestTrendsChart::addedDevicesToggle()
{
    QFETCH(QSize, size);
    QFETCH(QString, theme);
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    chart.setTheme(ui::Theme::byId(theme));
    ui::ChartView view(&chart);
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QChart *c = chart.chart(); // (mapToPosition() is not const)
    QAction *action = findAction(chart.optionActions(), "option:showAddedDevices");
    QVERIFY(action);
    QVERIFY(action->isCheckable());
    QVERIFY(action->isEnabled());
    QVERIFY(action->isChecked()); // on by default
    QVERIFY(action->text().contains(QString::fromUtf8("2023–25")));
    QVERIFY2(action->toolTip().contains("not in the paper"), qPrintable(action->toolTip()));
    const QStringList paperFits = chart.fitLabels();
    const QList<QPointF> gap = chart.gapBracket();
    QCOMPARE(gap.size(), 2);
    const int undo = doc.undoStack()->count();

    const auto trends = core::loadBuiltinTrends();
    const auto check = [&](bool on) {
        QVERIFY2(uitest::markerProblems(chart).isEmpty(), qPrintable(uitest::markerProblems(chart)));
        for (const char *id : {"hw_peak_flops", "dram_bandwidth"}) {
            QScatterSeries *added = chart.addedSeries(id);
            QLineSeries *refit = chart.refitSeries(id);
            QVERIFY(added && refit);
            const auto devices = chart.addedDevices(id);
            QCOMPARE(devices.size(), std::size_t(14));
            QCOMPARE(added->isVisible(), on);
            QCOMPARE(refit->isVisible(), on);
            const core::TrendSeries &s = *trends.find(id);
            const auto paper = core::fitExponential(s.points);
            const auto fit = chart.refitOf(id);
            QVERIFY(fit);
            // The legend: the paper's fit and, on, the refit in one of its forms (the longest that keeps the legend
            // off the data: which one depends on the fonts), its own entry with a diamond or folded into the fit's.
            QStringList shown;
            for (QLegendMarker *m : c->legend()->markers())
                if (m->isVisible())
                    shown << m->label();
            const bool ownEntry = c->legend()->markers(added).first()->isVisible();
            QVERIFY(!c->legend()->markers(refit).first()->isVisible()); // the diamond's entry names it
            const QString name = QString(id) == "hw_peak_flops" ? "Peak FLOPS" : "DRAM BW";
            int forms = 0;
            for (int form = 0; form < ui::trendsmath::kRefitLegendForms; ++form) {
                const auto [fitEntry, refitEntry] =
                    ui::trendsmath::refitLegend(name, paper.factorPer2Years, 2023, 2025, fit->factorPer2Years, form);
                forms += shown.contains(fitEntry) && ownEntry == !refitEntry.isEmpty() &&
                         (refitEntry.isEmpty() || shown.contains(refitEntry));
            }
            if (on)
                QVERIFY2(forms == 1, qPrintable(shown.join(" | ")));
            else
                QVERIFY2(shown.contains(ui::trendsmath::growthLabel(name, paper.factorPer2Years)) &&
                             shown.filter("efit").isEmpty() && !ownEntry,
                         qPrintable(shown.join(" | ")));
            // The refit, on the paper's scale: the fitted value over the paper's fit at the reference year.
            const double divisor = ui::trendsmath::normalisationDivisor(s, &paper, chart.baseYear());
            QList<QPointF> line;
            for (double year : kRefitYears)
                line << c->mapToPosition(QPointF(year, fit->at(year) / divisor), refit);
            QCOMPARE(int(linesThrough(c, line).size()), on ? 1 : 0);
            // Each device: a hollow diamond in the series' colour where its value maps (Qt Charts draws a marker with a
            // 2 px pen up and left of its value by half the pen, here 1.4 px on each axis), or nothing. Devices with
            // one figure in one year (B200 and GB200: 8 TB/s in 2024) share a place: each must have its own marker.
            QVERIFY(added->pen().color() != chart.theme().plotArea);
            auto painted = paintedMarkers(c, added->pen().color(), chart.theme().plotArea);
            const auto everyMarker = paintedMarkers(c, QColor(), QColor());
            QCOMPARE(int(painted.size()), on ? int(devices.size()) : 0);
            QList<QPair<QPointF, QString>> values;
            for (const core::AddedDevice &d : devices)
                values.append({c->mapToPosition(QPointF(d.point.year, d.point.value / divisor), added),
                               QString::fromStdString(d.id)});
            if (!on) {
                for (const auto &[at, device] : values) // no marker of any style there
                    QVERIFY2(std::none_of(everyMarker.begin(), everyMarker.end(),
                                          [&](const auto &m) { return QLineF(m.first, at).length() <= 3.0; }),
                             qPrintable(device));
                continue;
            }
            // Paired in order, by year (columns some 30 px apart), then by height: the pen's offset is the same for
            // every marker, so it keeps the order.
            const auto order = [](const QPointF &a, const QPointF &b) {
                return std::round(a.x() / 10) != std::round(b.x() / 10) ? a.x() < b.x() : a.y() < b.y();
            };
            std::sort(values.begin(), values.end(),
                      [&](const auto &a, const auto &b) { return order(a.first, b.first); });
            std::sort(painted.begin(), painted.end(),
                      [&](const auto &a, const auto &b) { return order(a.first, b.first); });
            for (qsizetype i = 0; i < values.size(); ++i) {
                const auto &[at, device] = values[i];
                QVERIFY2(QLineF(painted[i].first, at).length() <= 3.0,
                         qPrintable(QString("%1 on %2 maps to (%3, %4); its diamond is at (%5, %6)")
                                        .arg(device, id)
                                        .arg(at.x())
                                        .arg(at.y())
                                        .arg(painted[i].first.x())
                                        .arg(painted[i].first.y())));
                QCOMPARE(painted[i].second, int(QGraphicsPolygonItem::Type)); // a diamond; the paper's are circles
            }
        }
        QCOMPARE(chart.fitLabels(), paperFits);
        QCOMPARE(chart.gapBracket().size(), 2);
        QVERIFY(near(chart.gapBracket()[1].y() / chart.gapBracket()[0].y(), gap[1].y() / gap[0].y(), 1e-12));
        QCOMPARE(chart.gapBracket()[0].x(), gap[0].x());
    };
    const QString out = qEnvironmentVariable("MEMWALL_SCREENSHOT");
    const auto shot = [&](const char *state) {
        if (out.isEmpty())
            return;
        QString file = out;
        QVERIFY(view.grab().save(file.replace(
            ".png", QStringLiteral("-trends-%1-%2.png")
                        .arg(QString(QTest::currentDataTag()).replace(' ', '-'), QString::fromLatin1(state)))));
    };

    // (A QVERIFY in a lambda returns from the lambda only.)
    check(true);
    shot("on");
    if (QTest::currentTestFailed())
        return;
    action->trigger(); // as a click in the context menu does
    QCoreApplication::processEvents();
    QVERIFY(!action->isChecked());
    QVERIFY(!chart.showAddedDevices());
    check(false);
    shot("off");
    if (QTest::currentTestFailed())
        return;
    action->trigger();
    QCoreApplication::processEvents();
    QVERIFY(action->isChecked());
    check(true);
    if (QTest::currentTestFailed())
        return;
    // View state, as the other options: the document's history is not touched.
    QCOMPARE(doc.undoStack()->count(), undo);
    chart.setShowAddedDevices(false); // from elsewhere: the check mark follows
    QVERIFY(!action->isChecked());
}

void TestTrendsChart::addedDeviceTooltip_data()
{
    QTest::addColumn<QString>("series");
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("figure");
    QTest::newRow("H200 on FLOPS: FP16") << "hw_peak_flops"
                                         << "h200-sxm"
                                         << "dense FP16 peak";
    QTest::newRow("TPU v6e on FLOPS: BF16") << "hw_peak_flops"
                                            << "tpu-v6e"
                                            << "dense BF16 peak";
    QTest::newRow("B200 on DRAM: HBM3e") << "dram_bandwidth"
                                         << "b200"
                                         << "main memory (HBM3e (8 stacks))";
}

// Hovering a diamond names the device, its year, its figure and format, and that MemWall added it.
void TestTrendsChart::addedDeviceTooltip()
{
    QFETCH(QString, series);
    QFETCH(QString, device);
    QFETCH(QString, figure);
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    const auto devices = chart.addedDevices(series);
    const auto it = std::find_if(devices.begin(), devices.end(),
                                 [&](const core::AddedDevice &d) { return d.id == device.toStdString(); });
    QVERIFY(it != devices.end());
    QScatterSeries *added = chart.addedSeries(series);
    const QPointF at = added->at(int(it - devices.begin()));
    emit added->hovered(at, true);
    const ui::Callout *callout = nullptr;
    for (QGraphicsItem *item : chart.chart()->childItems())
        if (auto *co = dynamic_cast<ui::Callout *>(item); co && co->isVisible())
            callout = co;
    QVERIFY(callout);
    const QString text = callout->text();
    QVERIFY2(text.startsWith(QString::fromStdString(it->point.name) + "\n"), qPrintable(text));
    QVERIFY2(text.contains(QString::number(int(it->point.year))), qPrintable(text));
    QVERIFY2(text.contains(figure), qPrintable(text));
    QVERIFY2(text.contains("added by MemWall from its presets, not in the paper"), qPrintable(text));
    QCOMPARE(callout->anchor(), at);
    emit added->hovered(at, false);
    QVERIFY(!callout->isVisible());
}

// The gap bracket measures the paper's fits, and says so.
void TestTrendsChart::gapStaysOnThePaper()
{
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QVERIFY(chart.showAddedDevices());
    QVERIFY(chart.gapToolTip().contains("paper's fits"));
    const QGraphicsSimpleTextItem *label = nullptr;
    for (QGraphicsItem *item : chart.chart()->childItems())
        if (auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(item);
            t && t->isVisible() && t->text() == chart.gapText())
            label = t;
    QVERIFY(label);
    QCOMPARE(label->toolTip(), chart.gapToolTip());
}

// JSON and CSV carry the added devices and the refits as new fields, beside the paper's (unchanged) ones.
void TestTrendsChart::exportAddedDevices()
{
    ui::ScenarioDocument doc(library());
    ui::TrendsChart chart(&doc);
    auto j = chart.data();
    QCOMPARE(j.at("added_devices").at("shown").get<bool>(), true);
    for (const auto &s : j.at("series")) {
        const QString id = QString::fromStdString(s.at("id").get<std::string>());
        const auto devices = chart.addedDevices(id);
        QCOMPARE(s.contains("added_points"), !devices.empty());
        QCOMPARE(s.contains("refit"), !devices.empty());
        if (devices.empty())
            continue;
        QCOMPARE(s.at("added_points").size(), devices.size());
        for (std::size_t i = 0; i < devices.size(); ++i) {
            const auto &p = s.at("added_points")[i];
            QCOMPARE(p.at("id").get<std::string>(), devices[i].id);
            QCOMPARE(p.at("name").get<std::string>(), devices[i].point.name);
            QCOMPARE(p.at("value").get<double>(), devices[i].point.value);
            QCOMPARE(p.contains("format"), id == "hw_peak_flops");
            QCOMPARE(p.contains("memory"), id == "dram_bandwidth");
        }
        const auto trends = core::loadBuiltinTrends();
        const auto refit = core::refit(*trends.find(id.toStdString()), devices);
        QCOMPARE(s.at("refit").at("factor_per_2_years").get<double>(), refit.factorPer2Years);
        QCOMPARE(s.at("refit").at("r2").get<double>(), refit.r2);
        QCOMPARE(s.at("refit").at("fit_points").get<int>(), refit.points);
        QCOMPARE(QString::fromStdString(s.at("refit").at("label").get<std::string>()), chart.refitSeries(id)->name());
        // The paper's fit is still the series' own.
        QCOMPARE(s.at("factor_per_2_years").get<double>(),
                 core::fitExponential(trends.find(id.toStdString())->points).factorPer2Years);
    }
    QStringList lines = chart.csv().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.first(), QString("series,name,year,value,unit,normalized,in_fit,in_refit,origin,device_id"));
    QCOMPARE(lines.size(), 1 + 37 + 14 + 12 + 14 + 10);
    QCOMPARE(lines.filter(",memwall,").size(), 28);
    QVERIFY(lines.contains(QStringLiteral("hw_peak_flops,NVIDIA H200 SXM 141GB,2023.5,9.894e+14,FLOP/s,%1,false,true,"
                                          "memwall,h200-sxm")
                               .arg(chart.addedSeries("hw_peak_flops")->at(0).y(), 0, 'g', 10)));

    chart.setShowAddedDevices(false);
    j = chart.data();
    QCOMPARE(j.at("added_devices").at("shown").get<bool>(), false);
    for (const auto &s : j.at("series")) {
        QVERIFY(!s.contains("added_points"));
        QVERIFY(!s.contains("refit"));
    }
    lines = chart.csv().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 37 + 12 + 10);
    QVERIFY(lines[1].endsWith(",true,,paper,")); // in_refit empty: no refit shown
}

QTEST_MAIN(TestTrendsChart)
#include "tst_trendschart.moc"
