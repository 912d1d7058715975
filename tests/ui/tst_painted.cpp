// What is painted is what was computed, for each chart of the registry, after random sequences of the changes a person
// makes: scenario edits, device and model changes, precision, parallelism, compare on and off, undo, hiding and
// showing the chart (a tab switch), resizes and theme changes. Two checks, both on what is painted:
// - every scatter marker in the scene (Qt Charts' own marker items, and MemWall's MarkerLayer) is centred within
//   2 px of where its value maps, computed here independently from the axis ranges and the plot area;
// - the chart reached by the path renders the same image as the same scenario opened fresh, at the same size and
//   theme (so no stale point, label, roof or bar survives a change).
// Both run offscreen and, in CI, under Xvfb with the xcb platform. Nothing depends on fonts or timing: positions
// are read back from the scene, and the two images come from the same fonts.
#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/charts/chartview.h"
#include "ui/charts/markerlayer.h"
#include "ui/charts/rooflinechart.h"
#include "ui/document/scenariodocument.h"
#include "ui/settings/theme.h"

#include "painted.h"
#include "uitest.h"

#include <QAbstractGraphicsShapeItem>
#include <QChart>
#include <QGraphicsItemGroup>
#include <QGraphicsScene>
#include <QLogValueAxis>
#include <QRandomGenerator>
#include <QScatterSeries>
#include <QScreen>
#include <QValueAxis>
#include <QtTest>

#include <cmath>
#include <limits>
#include <memory>

using namespace memwall;

namespace {

using uitest::library;
using uitest::markerProblems;

/// The chart as painted in its view (the viewport's own pixels, as a person sees them), once its background work (the
/// search chart's search) is done.
QImage painted(ui::ChartView &view)
{
    view.chartBase()->settle();
    QCoreApplication::processEvents();
    return view.viewport()->grab().toImage().convertToFormat(QImage::Format_RGB32);
}

/// How many pixels differ between two images of equal size, and where the first one is.
QString imageDifference(const QImage &a, const QImage &b)
{
    if (a.size() != b.size())
        return QStringLiteral("sizes differ");
    int n = 0;
    QPoint first;
    for (int y = 0; y < a.height(); ++y) {
        const auto *ra = reinterpret_cast<const QRgb *>(a.constScanLine(y));
        const auto *rb = reinterpret_cast<const QRgb *>(b.constScanLine(y));
        for (int x = 0; x < a.width(); ++x)
            if (ra[x] != rb[x] && n++ == 0)
                first = {x, y};
    }
    return n == 0 ? QString()
                  : QStringLiteral("%1 pixels differ, the first at (%2, %3)").arg(n).arg(first.x()).arg(first.y());
}

const QStringList kDevices{"h100-sxm", "a100-80gb-sxm", "mi300x", "rtx-4090", "tpu-v4", "amd-epyc-9654"};
const QStringList kModels{"llama-2-70b", "llama-2-7b", "mixtral-8x7b", "opt-13b", "bert-large-uncased"};
const QList<QSize> kSizes{{1000, 650}, {1280, 720}, {800, 560}, {1600, 1000}};

} // namespace

class TestPainted : public QObject
{
    Q_OBJECT
private slots:
    void pathMatchesFreshAndMarkersMatchValues_data();
    void pathMatchesFreshAndMarkersMatchValues();
    void checkerCatchesMovedAndMissingMarkers();
    void screenAfterTicksMatchesFullPaint_data();
    void screenAfterTicksMatchesFullPaint();
};

void TestPainted::screenAfterTicksMatchesFullPaint_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("phase");
    for (const QString &id : ui::chartIds())
        for (const char *phase : {"decode", "prefill"})
            QTest::addRow("%s, %s", qPrintable(id), phase) << id << QString::fromLatin1(phase);
}

void TestPainted::screenAfterTicksMatchesFullPaint()
{
    // A slider tick repaints only what changes (the rectangles of the markers that move, the labels): what the
    // window shows after a run of ticks must be what a full paint of the same state draws. The window's own pixels
    // (its backing store, as the platform shows it) are compared with a fresh render of the viewport.
    QFETCH(QString, id);
    QFETCH(QString, phase);
    ui::ScenarioDocument doc(library());
    core::Scenario start = doc.scenario();
    const std::optional<core::Phase> parsed = core::phaseFromString(phase.toStdString());
    QVERIFY(parsed);
    start.phase = *parsed;
    doc.setScenario(start, QStringLiteral("phase"));
    std::unique_ptr<ui::ChartBase> chart = ui::createChart(id, &doc);
    ui::ChartView view(chart.get());
    view.resize(1000, 650);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QRandomGenerator rng(7);
    for (int i = 0; i < 40; ++i) {
        core::Scenario next = doc.scenario();
        next.batch = 1 + static_cast<int64_t>(rng.bounded(1024));
        if (i % 8 == 7) // a new length now and then: new ranges, so the whole plot repaints in between
            (next.phase == core::Phase::Prefill ? next.seq : next.context) = int64_t(256) << rng.bounded(5);
        doc.setScenario(next, QStringLiteral("Batch"), ui::ScenarioDocument::BatchKey);
        QCoreApplication::processEvents();
    }
    chart->settle();
    for (int i = 0; i < 5; ++i) // what settling posts (results, then layouts, then paints), all of it painted
        QCoreApplication::processEvents();
    const QPoint at = view.viewport()->mapTo(&view, QPoint(0, 0));
    const QImage screen =
        view.screen()
            ->grabWindow(view.winId(), at.x(), at.y(), view.viewport()->width(), view.viewport()->height())
            .toImage()
            .convertToFormat(QImage::Format_RGB32);
    const QImage full = painted(view);
    QVERIFY2(!screen.isNull(), "the platform cannot grab the window");
    QVERIFY2(imageDifference(screen, full).isEmpty(), qPrintable(imageDifference(screen, full)));
}

void TestPainted::checkerCatchesMovedAndMissingMarkers()
{
    // The check itself can fail: a scatter marker moved 5 px off its value, or not painted, is reported.
    ui::ScenarioDocument doc(library());
    std::unique_ptr<ui::ChartBase> chart = ui::createChart(QStringLiteral("roofline"), &doc);
    ui::ChartView view(chart.get());
    view.resize(1000, 650);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCoreApplication::processEvents();
    QCOMPARE(markerProblems(*chart), QString());
    QAbstractGraphicsShapeItem *marker = nullptr;
    for (QGraphicsItem *item : chart->chart()->scene()->items())
        if (auto *shape = dynamic_cast<QAbstractGraphicsShapeItem *>(item);
            shape && shape->isVisible() && shape->effectiveOpacity() > 0 && chart->chart()->isAncestorOf(shape) &&
            shape->parentItem() && shape->parentItem()->type() == QGraphicsItemGroup::Type &&
            chart->chart()->plotArea().contains(chart->chart()->mapFromScene(shape->sceneBoundingRect().center())))
            marker = shape;
    QVERIFY(marker);
    marker->setPos(marker->pos() + QPointF(5, 0));
    QVERIFY2(markerProblems(*chart).contains(QStringLiteral("px from the nearest value")),
             qPrintable(markerProblems(*chart)));
    marker->setPos(marker->pos() - QPointF(5, 0));
    QCOMPARE(markerProblems(*chart), QString());
    marker->hide();
    QVERIFY2(markerProblems(*chart).contains(QStringLiteral("no marker is painted there")),
             qPrintable(markerProblems(*chart)));
}

void TestPainted::pathMatchesFreshAndMarkersMatchValues_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<quint32>("seed");
    for (const QString &id : ui::chartIds())
        for (quint32 seed : {1u, 2u, 3u, 4u, 5u, 6u})
            QTest::addRow("%s, seed %u", qPrintable(id), seed) << id << seed;
}

void TestPainted::pathMatchesFreshAndMarkersMatchValues()
{
    QFETCH(QString, id);
    QFETCH(quint32, seed);
    ui::ScenarioDocument doc(library());
    std::unique_ptr<ui::ChartBase> chart = ui::createChart(id, &doc);
    QVERIFY(chart);
    ui::ChartView view(chart.get());
    view.resize(kSizes[0]);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    QRandomGenerator rng(seed);
    const auto pick = [&rng](auto n) { return static_cast<int>(rng.bounded(static_cast<quint32>(n))); };
    QString theme = QStringLiteral("light");
    QStringList path;
    for (int step = 0; step < 16; ++step) {
        core::Scenario s = doc.scenario();
        switch (pick(11)) {
        case 0:
        case 1:
            s.batch = std::array<int, 7>{1, 4, 16, 64, 256, 714, 1024}[static_cast<std::size_t>(pick(7))];
            doc.setScenario(s, "batch", ui::ScenarioDocument::BatchKey);
            path << QStringLiteral("batch %1").arg(s.batch);
            break;
        case 2:
            s.phase = s.phase == core::Phase::Decode ? core::Phase::Prefill : core::Phase::Decode;
            s.context = std::array<int, 4>{512, 2048, 4096, 8192}[static_cast<std::size_t>(pick(4))];
            doc.setScenario(s, "phase");
            path << QStringLiteral("phase %1, context %2")
                        .arg(QString::fromStdString(std::string(core::toString(s.phase))))
                        .arg(s.context);
            break;
        case 3:
            doc.setHardwareById(kDevices[pick(kDevices.size())]);
            path << QStringLiteral("device %1").arg(QString::fromStdString(doc.hardware().id));
            break;
        case 4:
            doc.setModelById(kModels[pick(kModels.size())]);
            path << QStringLiteral("model %1").arg(QString::fromStdString(doc.model().id));
            break;
        case 5:
            s.tp = std::array<int, 4>{1, 2, 4, 8}[static_cast<std::size_t>(pick(4))];
            doc.setScenario(s, "tp");
            path << QStringLiteral("tp %1").arg(s.tp);
            break;
        case 6:
            if (doc.isComparing()) {
                doc.setCompare(std::nullopt);
                path << QStringLiteral("compare off");
            } else {
                ui::CompareSpec b;
                if (const core::HardwareSpec *hw = library()->findHardware(kDevices[pick(3)].toStdString()))
                    b.hardware = *hw;
                if (pick(2) == 0)
                    b.weights = core::WeightFormat{core::DType::INT4, 128, core::DType::FP16};
                doc.setCompare(b);
                path << QStringLiteral("compare on");
            }
            break;
        case 7:
            doc.undoStack()->undo();
            path << QStringLiteral("undo");
            break;
        case 8:
            view.hide(); // as when another tab is shown
            QCoreApplication::processEvents();
            s.batch = std::max<std::int64_t>(1, s.batch * 2);
            doc.setScenario(s, "batch while hidden", ui::ScenarioDocument::BatchKey);
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            path << QStringLiteral("hidden, batch %1, shown").arg(s.batch);
            break;
        case 9: // the serving options: speculative decoding, chunked prefill, KV and weight offload, each on or off
            s.speculativeK = pick(2) == 0 ? 0 : 4;
            s.chunkedPrefill = pick(2) == 0 ? 0 : 512;
            s.kvOffload = pick(2) == 0 ? core::KvOffload::None : core::KvOffload::Host;
            s.weightOffload = pick(2) == 0 ? core::KvOffload::None : core::KvOffload::Host;
            doc.setScenario(s, "serving");
            path << QStringLiteral("speculative K %1, chunk %2, KV offload %3, weight offload %4")
                        .arg(s.speculativeK)
                        .arg(s.chunkedPrefill)
                        .arg(s.kvOffload == core::KvOffload::None ? "none" : "host")
                        .arg(s.weightOffload == core::KvOffload::None ? "none" : "host");
            break;
        default:
            if (pick(2) == 0) {
                view.resize(kSizes[pick(kSizes.size())]);
                path << QStringLiteral("resize %1x%2").arg(view.width()).arg(view.height());
            } else {
                theme = ui::Theme::ids()[pick(3)];
                chart->setTheme(ui::Theme::byId(theme));
                path << QStringLiteral("theme %1").arg(theme);
            }
            break;
        }
        QCoreApplication::processEvents();
        const QString problem = markerProblems(*chart);
        QVERIFY2(problem.isEmpty(),
                 qPrintable(QStringLiteral("after %1: %2").arg(path.join(QStringLiteral(" → ")), problem)));
    }
    const QImage afterPath = painted(view);

    // The same scenario opened fresh, at the same size and in the same theme.
    ui::ScenarioDocument fresh(library());
    fresh.setFile(doc.file(), QStringLiteral("open"), true);
    if (doc.isComparing())
        fresh.setCompare(*doc.compare());
    std::unique_ptr<ui::ChartBase> freshChart = ui::createChart(id, &fresh);
    freshChart->setTheme(ui::Theme::byId(theme));
    ui::ChartView freshView(freshChart.get());
    freshView.resize(view.size());
    freshView.show();
    QVERIFY(QTest::qWaitForWindowExposed(&freshView));
    QVERIFY(markerProblems(*freshChart).isEmpty());
    const QImage opened = painted(freshView);
    const QString diff = imageDifference(afterPath, opened);
    if (!diff.isEmpty()) {
        const QString dir = QDir::temp().filePath(QStringLiteral("memwall-painted"));
        QDir().mkpath(dir);
        afterPath.save(dir + QStringLiteral("/%1-%2-path.png").arg(id).arg(seed));
        opened.save(dir + QStringLiteral("/%1-%2-fresh.png").arg(id).arg(seed));
    }
    QVERIFY2(diff.isEmpty(),
             qPrintable(QStringLiteral("after %1: %2 from the fresh chart (images in %3)")
                            .arg(path.join(QStringLiteral(" → ")), diff, QDir::tempPath() + "/memwall-painted")));
}

QTEST_MAIN(TestPainted)
#include "tst_painted.moc"
