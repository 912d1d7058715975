// The ridge-point chart: every preset device at its release year and peak FLOP/s ÷ main-memory bandwidth, the paper's
// growth line (×3.0 FLOPS ÷ ×1.6 DRAM per two years, from the trend data), the document's device as a star painted
// where its value maps (and moving with the document), names that never overlap.
#include "ui/charts/chartview.h"
#include "ui/charts/ridgechart.h"
#include "ui/document/scenariodocument.h"

#include "core/io/presets.h"
#include "uitest.h"

#include <QAbstractGraphicsShapeItem>
#include <QChart>
#include <QGraphicsPolygonItem>
#include <QGraphicsScene>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QtTest>

#include <cmath>

using namespace memwall;

namespace {

using uitest::library;

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

/// Centres (chart coordinates) of the painted star markers: Qt Charts draws a scatter star as a polygon item in its
/// series' group; the devices' triangles and diamonds are polygons too, but less than half the star's size.
QList<QPointF> paintedStars(const ui::RidgeChart &chart, qreal minSize)
{
    QList<QPointF> out;
    const QChart *c = chart.chart();
    for (QGraphicsItem *item : c->scene()->items()) {
        if (!c->isAncestorOf(item) || !item->isVisible() || item->type() != QGraphicsPolygonItem::Type ||
            !item->parentItem() || item->parentItem()->type() != QGraphicsItemGroup::Type)
            continue;
        const QRectF r = item->sceneBoundingRect();
        if (r.height() >= minSize)
            out << c->mapFromScene(r.center());
    }
    return out;
}

/// The star is where (year, ridge) maps: within 2 px, plus the tenth of its size its bounding box is off centre.
QString starProblem(const ui::RidgeChart &chart)
{
    const qreal size = chart.currentSeries()->markerSize();
    const QList<QPointF> stars = paintedStars(chart, size * 0.6);
    if (stars.size() != 1)
        return QString("%1 stars painted, expected 1").arg(stars.size());
    const QPointF want = chart.chart()->mapToPosition(chart.currentMarker(), chart.currentSeries());
    const qreal off = QLineF(stars.first(), want).length();
    if (off > 2 + 0.12 * size)
        return QString("the star is painted at (%1, %2), its value maps to (%3, %4)")
            .arg(stars.first().x())
            .arg(stars.first().y())
            .arg(want.x())
            .arg(want.y());
    return {};
}

} // namespace

class TestRidgeChart : public QObject
{
    Q_OBJECT
private slots:
    void everyPresetAtItsRidge_data();
    void everyPresetAtItsRidge();
    void growthLineFromTheTrendData();
    void place_data();
    void place();
    void currentDevicePaintedWhereItMaps();
    void namesDoNotOverlap_data();
    void namesDoNotOverlap();
    void exportData();
};

void TestRidgeChart::everyPresetAtItsRidge_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("year");
    QTest::addColumn<double>("ridge");
    // Hand counts from the preset files: dense peak / main-memory bandwidth.
    QTest::newRow("H100 SXM 2022: 989.4 TFLOP/s FP16 / 3.35 TB/s = 295 FLOP/B")
        << "h100-sxm" << 2022.5 << 989.4e12 / 3.35e12;
    QTest::newRow("A100 80GB 2020: 312 TFLOP/s / 2.039 TB/s = 153 FLOP/B")
        << "a100-80gb-sxm" << 2020.5 << 312e12 / 2.039e12;
    QTest::newRow("P100 2016: 21.2 TFLOP/s / 732 GB/s = 29 FLOP/B") << "p100-sxm2" << 2016.5 << 21.2e12 / 732e9;
    QTest::newRow("TPU v4 2021, BF16: 275 TFLOP/s / 1.2 TB/s = 229 FLOP/B") << "tpu-v4" << 2021.5 << 275e12 / 1.2e12;
    QTest::newRow("Gaudi 3 2024, BF16: 1835 TFLOP/s / 3.67 TB/s = 500 FLOP/B")
        << "gaudi3" << 2024.5 << 1835e12 / 3.67e12;
}

void TestRidgeChart::everyPresetAtItsRidge()
{
    QFETCH(QString, id);
    QFETCH(double, year);
    QFETCH(double, ridge);
    ui::ScenarioDocument doc(library());
    ui::RidgeChart chart(&doc);
    QCOMPARE(chart.devices().size(), library()->hardware().size());
    // Its point is in one of the chart's scatter series, at (mid-year, ridge).
    int found = 0;
    for (QAbstractSeries *s : chart.chart()->series())
        if (auto *scatter = qobject_cast<QScatterSeries *>(s); scatter && scatter != chart.currentSeries())
            for (const QPointF &p : scatter->points())
                if (p.x() == year && near(p.y(), ridge, 1e-9))
                    ++found;
    QCOMPARE(found, 1);
    const auto j = chart.data();
    bool inData = false;
    for (const auto &d : j.at("devices"))
        if (d.at("id") == id.toStdString())
            inData = near(d.at("ridge_flop_per_byte").get<double>(), ridge, 1e-9);
    QVERIFY(inData);
}

void TestRidgeChart::growthLineFromTheTrendData()
{
    ui::ScenarioDocument doc(library());
    ui::RidgeChart chart(&doc);
    const auto trends = core::loadBuiltinTrends();
    const double compute = *trends.find("hw_peak_flops")->paperFactorPer2Years;
    const double memory = *trends.find("dram_bandwidth")->paperFactorPer2Years;
    QVERIFY(chart.growth());
    QCOMPARE(chart.growth()->per2Years(), compute / memory); // 3.0 / 1.6 = 1.875
    const QList<QPointF> line = chart.growthLine();
    QVERIFY(line.size() >= 2);
    // It starts at the P100 (2016, 21.2 TFLOP/s / 732 GB/s) and grows x1.875 every two years.
    QCOMPARE(line.first().x(), 2016.5);
    QVERIFY(near(line.first().y(), 21.2e12 / 732e9, 1e-9));
    for (int i = 1; i < line.size(); ++i) {
        const double years = line[i].x() - line.first().x();
        QVERIFY(near(line[i].y() / line.first().y(), std::pow(compute / memory, years / 2), 1e-9));
    }
    QVERIFY(line.last().y() > line.first().y() * 10); // a decade on: 1.875^5 = 23x
    QVERIFY2(chart.title().contains("×1.9"), qPrintable(chart.title()));
    QCOMPARE(chart.data().at("growth").at("anchor").at("id").get<std::string>(), std::string("p100-sxm2"));
}

void TestRidgeChart::place_data()
{
    QTest::addColumn<QRectF>("obstacle");
    QTest::addColumn<bool>("mayMoveAway");
    QTest::addColumn<bool>("placed");
    QTest::addColumn<QRectF>("where");
    // A 40 x 10 label for a marker at (100, 100), 6 px clear of it, in a 200 x 200 plot.
    QTest::newRow("free: right of the marker") << QRectF() << false << true << QRectF(106, 95, 40, 10);
    QTest::newRow("right taken: left of it") << QRectF(104, 90, 50, 20) << false << true << QRectF(54, 95, 40, 10);
    QTest::newRow("all round taken: left out") << QRectF(40, 80, 120, 40) << false << false << QRectF();
    QTest::newRow("all round taken, may move away: right, twice as far")
        << QRectF(40, 80, 70, 40) << true << true << QRectF(112, 95, 40, 10);
}

void TestRidgeChart::place()
{
    QFETCH(QRectF, obstacle);
    QFETCH(bool, mayMoveAway);
    QFETCH(bool, placed);
    QFETCH(QRectF, where);
    std::vector<QRectF> obstacles;
    if (!obstacle.isNull())
        obstacles.push_back(obstacle);
    const auto r =
        ui::plotlabels::place({{QPointF(100, 100), QSizeF(40, 10), 6, mayMoveAway}}, QRectF(0, 0, 200, 200), obstacles);
    QCOMPARE(r.size(), std::size_t(1));
    QCOMPARE(r[0].has_value(), placed);
    if (placed) {
        QCOMPARE(*r[0], where);
        QVERIFY(obstacle.isNull() || !obstacle.intersects(*r[0]));
    }
    // A second label at the same marker never lands on the first.
    const auto two = ui::plotlabels::place(
        {{QPointF(100, 100), QSizeF(40, 10), 6}, {QPointF(100, 100), QSizeF(40, 10), 6}}, QRectF(0, 0, 200, 200), {});
    QVERIFY(two[0] && two[1] && !two[0]->intersects(*two[1]));
}

void TestRidgeChart::currentDevicePaintedWhereItMaps()
{
    ui::ScenarioDocument doc(library()); // H100 SXM
    ui::RidgeChart chart(&doc);
    ui::ChartView view(&chart);
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();

    const QPointF h100 = chart.currentMarker();
    QCOMPARE(h100.x(), 2022.5);
    QVERIFY(near(h100.y(), 989.4e12 / 3.35e12, 1e-9));
    QVERIFY2(starProblem(chart).isEmpty(), qPrintable(starProblem(chart)));
    const QPointF before = paintedStars(chart, chart.currentSeries()->markerSize() * 0.6).value(0);

    doc.setHardwareById("a100-80gb-sxm");
    QCoreApplication::processEvents();
    QCOMPARE(chart.currentMarker().x(), 2020.5);
    QVERIFY(near(chart.currentMarker().y(), 312e12 / 2.039e12, 1e-9));
    QVERIFY2(starProblem(chart).isEmpty(), qPrintable(starProblem(chart)));
    const QPointF after = paintedStars(chart, chart.currentSeries()->markerSize() * 0.6).value(0);
    QVERIFY(after.x() < before.x() - 20); // two years earlier
    QVERIFY(after.y() > before.y());      // and a lower ridge

    // What-if: twice the bandwidth halves the ridge; the star follows, the A100's own point stays.
    doc.setWhatIf({1, 2, 1});
    QCoreApplication::processEvents();
    QVERIFY(near(chart.currentMarker().y(), 312e12 / 2.039e12 / 2, 1e-9));
    QVERIFY2(starProblem(chart).isEmpty(), qPrintable(starProblem(chart)));
    QVERIFY(chart.data().at("device").at("ridge_flop_per_byte").get<double>() < 80);

    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QCoreApplication::processEvents();
    QVERIFY(near(chart.currentMarker().y(), 989.4e12 / 3.35e12, 1e-9));
    QVERIFY2(starProblem(chart).isEmpty(), qPrintable(starProblem(chart)));
}

void TestRidgeChart::namesDoNotOverlap_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("theme");
    QTest::addColumn<QString>("device");
    QTest::newRow("1280x720 presentation, H100") << QSize(1280, 720) << "presentation"
                                                 << "h100-sxm";
    QTest::newRow("1024x768 presentation, TPU v5e") << QSize(1024, 768) << "presentation"
                                                    << "tpu-v5e";
    QTest::newRow("1600x1000 light, B200") << QSize(1600, 1000) << "light"
                                           << "b200";
    QTest::newRow("800x500 dark, Groq LPU") << QSize(800, 500) << "dark"
                                            << "groq-lpu";
}

void TestRidgeChart::namesDoNotOverlap()
{
    QFETCH(QSize, size);
    QFETCH(QString, theme);
    QFETCH(QString, device);
    ui::ScenarioDocument doc(library());
    doc.setHardwareById(device);
    ui::RidgeChart chart(&doc);
    chart.setTheme(ui::Theme::byId(theme));
    ui::ChartView view(&chart);
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();

    const QRectF area = chart.chart()->plotArea();
    const auto labels = chart.visibleLabels();
    QVERIFY2(labels.size() >= 6, qPrintable(QString::number(labels.size())));
    // This device is named (its name and its ridge), bold, whatever the crowd around it.
    const QString name = ui::deviceNameWithoutVendor(doc.hardware()).section(" (", 0, 0);
    bool current = false;
    for (const auto &[text, rect] : labels)
        current = current || (text.startsWith(name + ":") && text.endsWith("FLOP/B"));
    QVERIFY2(current, qPrintable(name));
    for (int i = 0; i < labels.size(); ++i) {
        QVERIFY2(area.contains(labels[i].second), qPrintable(labels[i].first));
        for (int j = i + 1; j < labels.size(); ++j)
            QVERIFY2(!labels[i].second.intersects(labels[j].second),
                     qPrintable(labels[i].first + " over " + labels[j].first));
    }
    // No name covers a device's marker (read back from the scene).
    const QChart *c = chart.chart();
    for (QGraphicsItem *item : c->scene()->items()) {
        if (!c->isAncestorOf(item) || !item->isVisible() || !item->parentItem() ||
            item->parentItem()->type() != QGraphicsItemGroup::Type || !dynamic_cast<QAbstractGraphicsShapeItem *>(item))
            continue;
        const QRectF marker = c->mapRectFromScene(item->sceneBoundingRect());
        for (const auto &[text, rect] : labels)
            QVERIFY2(!rect.intersects(marker.adjusted(1, 1, -1, -1)),
                     qPrintable(QString("%1 (%2, %3, %4 x %5) over a marker at (%6, %7, %8 x %9), type %10")
                                    .arg(text)
                                    .arg(rect.x())
                                    .arg(rect.y())
                                    .arg(rect.width())
                                    .arg(rect.height())
                                    .arg(marker.x())
                                    .arg(marker.y())
                                    .arg(marker.width())
                                    .arg(marker.height())
                                    .arg(item->type())));
    }
    QVERIFY(!chart.growthLabel().isEmpty() || size.width() < 1000);
}

void TestRidgeChart::exportData()
{
    ui::ScenarioDocument doc(library());
    ui::RidgeChart chart(&doc);
    QCOMPARE(chart.id(), QString("ridge"));
    const QStringList lines = chart.csv().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.first(),
             QString("id,name,year,format,peak_flops,bandwidth_bytes_per_s,main_memory,ridge_flop_per_byte,current"));
    QCOMPARE(lines.size(), 1 + static_cast<int>(library()->hardware().size()) + 1); // the devices, then this one
    QVERIFY(lines.last().startsWith("h100-sxm,") && lines.last().endsWith(",true"));
    const auto j = chart.data();
    QCOMPARE(j.at("devices").size(), library()->hardware().size());
    QVERIFY(near(j.at("growth").at("ridge_per_2_years").get<double>(), 3.0 / 1.6, 1e-12));
}

QTEST_MAIN(TestRidgeChart)
#include "tst_ridgechart.moc"
