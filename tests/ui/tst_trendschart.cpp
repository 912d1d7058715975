// The hardware trends chart: fitted growth labels (3.0x / 1.6x / 1.4x per two years), renormalisation to a base
// year, the optional model-side series and the device marker.
#include "ui/charts/trendschart.h"
#include "ui/document/scenariodocument.h"

#include "core/io/presets.h"
#include "uitest.h"

#include <QAction>
#include <QChart>
#include <QLogValueAxis>
#include <QMenu>
#include <QSignalSpy>
#include <QtTest>

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
    QCOMPARE(lines.first(), QString("series,name,year,value,unit,normalized,in_fit"));
    QCOMPARE(lines.size(), 1 + 37 + 12 + 10);
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
    QCOMPARE(actions.size(), 3); // base-year submenu, model size, training compute
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

QTEST_MAIN(TestTrendsChart)
#include "tst_trendschart.moc"
