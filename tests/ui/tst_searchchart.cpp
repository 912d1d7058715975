// The deployment-search chart draws what core::selectFront() selects: the painted front (read back from the scene) is
// the front of an independent search over the same space, a target edit moves it without a new search, a budget edit
// searches again off the GUI thread, a click on a point loads its device and scenario as one undo step, and a target
// nothing meets names the nearest configuration on the chart. Two devices keep each search short; nothing depends on
// fonts or timing (positions come from the scene, a search is waited for by its signal or by settle()).
#include "ui/charts/chartview.h"
#include "ui/charts/searchchart.h"
#include "ui/document/scenariodocument.h"
#include "ui/widgets/searchtargetspanel.h"
#include "ui/widgets/sidepanels.h"

#include "core/search/search.h"
#include "painted.h"
#include "uitest.h"

#include <QChart>
#include <QDoubleSpinBox>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace memwall;

namespace {

using uitest::library;

const QStringList kDevices{"h100-sxm", "mi300x"};

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

/// The search the chart must show, run here from the presets and the document (not from the chart).
core::SearchSpace spaceOf(const ui::ScenarioDocument &doc, int budget)
{
    core::SearchSpace space;
    for (const core::HardwareSpec &hw : library()->hardware())
        if (kDevices.contains(QString::fromStdString(hw.id)))
            space.devices.push_back(hw);
    space.base = doc.scenario();
    space.maxDevices = budget;
    return space;
}

core::SearchFront expectedFront(const ui::ScenarioDocument &doc, const core::SearchTargets &targets, int budget = 64)
{
    const core::SearchSpace space = spaceOf(doc, budget);
    return core::selectFront(core::searchCandidates(doc.model(), space), targets, doc.model(), space);
}

/// What identifies a configuration, for comparing fronts found by two searches.
QString configKey(const core::SearchPoint &p, const std::vector<core::HardwareSpec> &devices)
{
    const core::Scenario &s = p.scenario;
    return QStringLiteral("%1 tp%2 pp%3 ep%4 dp%5 b%6 %7 kv %8, %9")
        .arg(QString::fromStdString(devices.at(p.device).id))
        .arg(s.tp)
        .arg(s.pp)
        .arg(s.ep)
        .arg(s.dp)
        .arg(s.batch)
        .arg(QString::fromStdString(core::toString(core::SearchPrecision{s.weights, s.activations})))
        .arg(QString::fromStdString(std::string(core::toString(s.kv))))
        .arg(QString::fromStdString(core::servingLabel(s)));
}

/// Every point painted by the chart's device series (their data), which markerProblems() pairs with painted markers.
QList<QPointF> drawnPoints(const ui::SearchChart &chart)
{
    QList<QPointF> out;
    for (QAbstractSeries *s : chart.chart()->series()) {
        auto *scatter = qobject_cast<QScatterSeries *>(s);
        if (scatter && scatter->isVisible() && scatter->objectName().startsWith(QLatin1String("device")))
            out << scatter->points();
    }
    return out;
}

/// Checks that the chart paints exactly `want`'s points (values, and the markers read back from the scene).
QString frontProblems(const ui::SearchChart &chart, const core::SearchFront &want)
{
    const auto &devices = chart.searchedDevices();
    const core::SearchSpace space = spaceOf(*chart.document(), chart.deviceBudget());
    QStringList got, expected;
    for (const core::SearchPoint &p : chart.front().pareto)
        got << configKey(p, devices);
    for (const core::SearchPoint &p : want.pareto)
        expected << configKey(p, space.devices);
    if (got != expected)
        return QStringLiteral("front %1, expected %2").arg(got.join(", "), expected.join(", "));
    QList<QPointF> drawn = drawnPoints(chart);
    if (drawn.size() != static_cast<qsizetype>(want.pareto.size()))
        return QStringLiteral("%1 points drawn, %2 on the front").arg(drawn.size()).arg(want.pareto.size());
    for (const core::SearchPoint &p : want.pareto) {
        const auto it = std::find_if(drawn.begin(), drawn.end(), [&](const QPointF &d) {
            return near(d.x(), p.tokensPerSPerUser) && near(d.y(), p.tokensPerSPerDevice);
        });
        if (it == drawn.end())
            return QStringLiteral("no point drawn at (%1, %2)").arg(p.tokensPerSPerUser).arg(p.tokensPerSPerDevice);
        drawn.erase(it);
    }
    return uitest::markerProblems(chart); // every value has its marker painted where it maps, and no other marker
}

/// The text items the chart shows over the plot.
QStringList shownTexts(const ui::SearchChart &chart)
{
    QStringList texts;
    for (QGraphicsItem *item : chart.chart()->scene()->items())
        if (auto *text = dynamic_cast<QGraphicsSimpleTextItem *>(item);
            text && text->isVisible() && chart.chart()->isAncestorOf(text))
            texts << text->text();
    return texts;
}

} // namespace

class TestSearchChart : public QObject
{
    Q_OBJECT
private slots:
    void init()
    {
        m_doc = std::make_unique<ui::ScenarioDocument>(library());
        m_doc->setHardwareById("h100-sxm");
        m_doc->setModelById("llama-2-70b");
        m_doc->undoStack()->clear();
        m_chart = std::make_unique<ui::SearchChart>(m_doc.get());
        m_chart->setDeviceIds(kDevices);
        m_view = std::make_unique<ui::ChartView>(m_chart.get());
        m_view->setSidePanel(ui::createSidePanel(*m_chart, m_view.get()));
        m_view->resize(1100, 650);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        m_chart->settle();
        QCoreApplication::processEvents();
        QVERIFY(!m_chart->isSearching());
        m_panel = m_view->findChild<ui::SearchTargetsPanel *>();
        QVERIFY(m_panel);
    }
    void cleanup()
    {
        m_view.reset();
        m_chart.reset();
        m_doc.reset();
    }

    void paintedFrontIsSelectFrontsFront()
    {
        QCOMPARE(m_chart->targets().maxTpotS, ui::SearchChart::kDefaultMaxTpotS);
        const core::SearchFront want = expectedFront(*m_doc, m_chart->targets());
        QVERIFY(want.pareto.size() >= 3);
        QVERIFY2(frontProblems(*m_chart, want).isEmpty(), qPrintable(frontProblems(*m_chart, want)));
        // The TPOT target is the vertical line at 1 / TPOT, and every point lies right of it.
        QCOMPARE(m_chart->targetLineXs(), QList<double>{1 / ui::SearchChart::kDefaultMaxTpotS});
        for (const QPointF &p : drawnPoints(*m_chart))
            QVERIFY(p.x() >= 1 / ui::SearchChart::kDefaultMaxTpotS * (1 - 1e-12));
    }

    void targetEditMovesTheFrontWithoutSearching()
    {
        const auto *before = &*m_chart->candidates();
        const double seconds = m_chart->candidates()->seconds;
        QSignalSpy searched(m_chart.get(), &ui::SearchChart::searchFinished);
        QSignalSpy moved(m_chart.get(), &ui::SearchChart::frontChanged);
        // A minimum interactivity in the middle of the front: the slower half goes.
        const auto &pareto = m_chart->front().pareto;
        const double minPerUser = std::round(pareto[pareto.size() / 2].tokensPerSPerUser);
        m_panel->minPerUser()->setValue(minPerUser);
        QCOMPARE(m_chart->targets().minTokensPerSPerUser, minPerUser);
        QCOMPARE(moved.count(), 1);
        QVERIFY(!m_chart->isSearching());
        QCoreApplication::processEvents();
        QCOMPARE(searched.count(), 0);
        QCOMPARE(&*m_chart->candidates(), before);
        QCOMPARE(m_chart->candidates()->seconds, seconds);

        const core::SearchFront want = expectedFront(*m_doc, m_chart->targets());
        QVERIFY(!want.pareto.empty());
        QVERIFY(want.pareto.size() < pareto.size() + 1);
        QVERIFY2(frontProblems(*m_chart, want).isEmpty(), qPrintable(frontProblems(*m_chart, want)));
        for (const QPointF &p : drawnPoints(*m_chart))
            QVERIFY(p.x() >= minPerUser);
        QVERIFY(m_chart->targetLineXs().contains(minPerUser));

        // TPOT off: the front of every configuration at or above the interactivity target.
        m_panel->maxTpot()->setValue(0);
        QCOMPARE(m_chart->targets().maxTpotS, 0.0);
        QVERIFY2(frontProblems(*m_chart, expectedFront(*m_doc, m_chart->targets())).isEmpty(),
                 qPrintable(frontProblems(*m_chart, expectedFront(*m_doc, m_chart->targets()))));
        QCOMPARE(m_chart->targetLineXs(), QList<double>{minPerUser});
    }

    void budgetEditSearchesAgainInTheBackground()
    {
        QSignalSpy searched(m_chart.get(), &ui::SearchChart::searchFinished);
        m_panel->budget()->setValue(8);
        QCOMPARE(m_chart->deviceBudget(), 8);
        QVERIFY(m_chart->isSearching());
        QVERIFY(searched.wait(60000)); // the search's own signal, not a sleep
        QVERIFY(!m_chart->isSearching());
        const core::SearchFront want = expectedFront(*m_doc, m_chart->targets(), 8);
        QVERIFY2(frontProblems(*m_chart, want).isEmpty(), qPrintable(frontProblems(*m_chart, want)));
        for (const core::SearchPoint &p : m_chart->front().pareto)
            QVERIFY(p.devices <= 8);
    }

    void onlySearchedInputsSearchAgain()
    {
        // The batch and the precision are the search's own: editing them changes nothing searched.
        core::Scenario s = m_doc->scenario();
        s.batch = 32;
        s.kv = core::DType::FP8;
        m_doc->setScenario(s, "batch");
        QVERIFY(!m_chart->isSearching());
        // The prompt length is the base scenario's: a new search, whose result replaces the old front.
        s.seq = 512;
        m_doc->setScenario(s, "prompt");
        QVERIFY(m_chart->isSearching());
        // Issue #41 item 13: until the new result arrives, the old front is greyed and the message says so first.
        QVERIFY2(m_chart->message().startsWith(QStringLiteral("Searching")), qPrintable(m_chart->message()));
        int shown = 0;
        for (QAbstractSeries *series : m_chart->chart()->series())
            if (series->isVisible() && qobject_cast<QScatterSeries *>(series)) {
                QCOMPARE(series->opacity(), ui::SearchChart::kStaleOpacity);
                ++shown;
            }
        QVERIFY(shown > 0);
        s.seq = 1024; // a second change while the first search may run: only the newest is drawn
        m_doc->setScenario(s, "prompt");
        m_chart->settle();
        QVERIFY(!m_chart->isSearching());
        QVERIFY2(!m_chart->message().contains(QStringLiteral("Searching")), qPrintable(m_chart->message()));
        for (QAbstractSeries *series : m_chart->chart()->series())
            QCOMPARE(series->opacity(), 1.0);
        QCOMPARE(m_chart->front().pareto.front().scenario.seq, int64_t(1024));
        const core::SearchFront want = expectedFront(*m_doc, m_chart->targets());
        QVERIFY2(frontProblems(*m_chart, want).isEmpty(), qPrintable(frontProblems(*m_chart, want)));
    }

    void achievableFrontPaintsItsBand()
    {
        // Ideal efficiency is a bound: no band painted.
        QVERIFY(m_chart->paintedBands().isEmpty());
        core::Scenario s = m_doc->scenario();
        s.efficiency = core::EfficiencyMode::Achievable;
        m_doc->setScenario(s, "efficiency");
        QVERIFY(m_chart->isSearching()); // the efficiency is the base scenario's
        m_chart->settle();
        const core::SearchFront want = expectedFront(*m_doc, m_chart->targets());
        QVERIFY2(frontProblems(*m_chart, want).isEmpty(), qPrintable(frontProblems(*m_chart, want)));
        // Both devices have microbenchmarks: every front point carries the validation set's band, painted as one
        // segment from value / high to value / low (both rates divide by the time's factor), checked against the
        // axes' own mapping, not Qt Charts'.
        const QList<QLineF> bands = m_chart->paintedBands();
        QCOMPARE(bands.size(), qsizetype(want.pareto.size()));
        QAbstractSeries *mapped = m_chart->chart()->series().front();
        for (qsizetype i = 0; i < bands.size(); ++i) {
            const core::SearchPoint &p = m_chart->front().pareto[std::size_t(i)];
            QVERIFY(p.band);
            const QPointF v = ui::SearchChart::valueOf(p);
            const QPointF slow = uitest::expectedPosition(m_chart->chart(), mapped, v / core::kAchievableBand.high);
            const QPointF fast = uitest::expectedPosition(m_chart->chart(), mapped, v / core::kAchievableBand.low);
            QVERIFY2(!std::isnan(slow.x()) && !std::isnan(fast.x()), "a band reaches outside the axes");
            QVERIFY2(QLineF(bands[i].p1(), slow).length() <= 2 && QLineF(bands[i].p2(), fast).length() <= 2,
                     qPrintable(QStringLiteral("band %1 painted from (%2, %3) to (%4, %5)")
                                    .arg(i)
                                    .arg(bands[i].x1())
                                    .arg(bands[i].y1())
                                    .arg(bands[i].x2())
                                    .arg(bands[i].y2())));
            // The point itself lies on its band, nearer the fast end (the band is 0.98 to 1.75 x the time).
            const QPointF at = uitest::expectedPosition(m_chart->chart(), mapped, v);
            QVERIFY(QLineF(slow, at).length() + QLineF(at, fast).length() <= QLineF(slow, fast).length() + 1);
            QVERIFY(QLineF(at, fast).length() < QLineF(at, slow).length());
        }
        QVERIFY2(m_chart->message().contains(QLatin1String("measured runs fell")), qPrintable(m_chart->message()));
        // A resize moves the plot: the bands follow.
        m_view->resize(800, 500);
        QCoreApplication::processEvents();
        const QList<QLineF> moved = m_chart->paintedBands();
        QCOMPARE(moved.size(), bands.size());
        const QPointF v0 = ui::SearchChart::valueOf(m_chart->front().pareto.front());
        QVERIFY(QLineF(moved.front().p1(),
                       uitest::expectedPosition(m_chart->chart(), mapped, v0 / core::kAchievableBand.high))
                    .length() <= 2);
    }

    void clickLoadsThePointAsOneUndoStep()
    {
        const auto &pareto = m_chart->front().pareto;
        // The point farthest (in pixels) from every other, so that the click hits only its marker.
        std::size_t pick = 0;
        double best = -1;
        const auto at = [&](std::size_t i) {
            return m_chart->chart()->mapToPosition(ui::SearchChart::valueOf(pareto[i]), m_chart->seriesOfFrontPoint(i));
        };
        for (std::size_t i = 0; i < pareto.size(); ++i) {
            double nearest = 1e9;
            for (std::size_t j = 0; j < pareto.size(); ++j)
                if (j != i)
                    nearest = std::min(nearest, QLineF(at(i), at(j)).length());
            if (nearest > best) {
                best = nearest;
                pick = i;
            }
        }
        QVERIFY(best > 14);
        const core::SearchPoint point = pareto[pick];
        const std::string deviceId = m_chart->searchedDevices()[point.device].id;
        const core::ScenarioFile before = m_doc->file();
        const int steps = m_doc->undoStack()->count();

        const QPoint viewPos = m_view->mapFromScene(m_chart->chart()->mapToScene(at(pick)));
        QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, viewPos);
        QCOMPARE(m_doc->undoStack()->count(), steps + 1);
        QVERIFY(m_doc->scenario() == point.scenario);
        QVERIFY(m_doc->scenario().phase == core::Phase::Generate);
        QCOMPARE(m_doc->hardware().id, deviceId);
        QVERIFY(m_doc->analysisError().isEmpty());
        QVERIFY(!m_chart->isSearching()); // the same search: the loaded device was one of its presets

        m_doc->undoStack()->undo();
        QVERIFY(m_doc->scenario() == before.scenario);
        QCOMPARE(m_doc->hardware().id, before.hardware.id);
    }

    void nothingMeetsNamesTheNearest()
    {
        m_panel->maxTpot()->setValue(0.1); // 100 µs per token: no device reads 70 B weights that fast
        QVERIFY(m_chart->front().pareto.empty());
        const core::SearchFront want = expectedFront(*m_doc, m_chart->targets());
        QVERIFY(want.pareto.empty());
        QVERIFY(want.nearest);
        QVERIFY(m_chart->front().nearest);
        QCOMPARE(configKey(*m_chart->front().nearest, m_chart->searchedDevices()),
                 configKey(*want.nearest, spaceOf(*m_doc, 64).devices));
        QCOMPARE(m_chart->front().nearestMiss, want.nearestMiss);
        QVERIFY(!want.nearestMiss.empty());

        const QString message = m_chart->message();
        QVERIFY2(message.contains(QLatin1String("Nothing meets the targets")), qPrintable(message));
        QVERIFY2(message.contains(QString::fromStdString(want.nearestMiss)), qPrintable(message));
        // Shown on the chart (the text items over the plot), and the nearest point painted where it maps.
        const QString shown = shownTexts(*m_chart).join(QLatin1Char('\n'));
        QVERIFY2(shown.contains(QLatin1String("Nothing meets the targets")), qPrintable(shown));
        QVERIFY2(shown.contains(QLatin1String("Nearest:")), qPrintable(shown));
        QVERIFY(drawnPoints(*m_chart).isEmpty());
        QVERIFY2(uitest::markerProblems(*m_chart).isEmpty(), qPrintable(uitest::markerProblems(*m_chart)));
        const auto data = m_chart->data();
        QCOMPARE(data.at("nearest_miss").get<std::string>(), want.nearestMiss);
        QCOMPARE(data.at("pareto").size(), std::size_t(0));
    }

    void hiddenChartSearchesWhenShown()
    {
        // As in a tab behind another: made hidden, it searches nothing until shown, then searches once.
        ui::ScenarioDocument doc(library());
        doc.setModelById("llama-2-7b");
        ui::SearchChart chart(&doc);
        chart.setSuspended(true);
        chart.setDeviceIds(kDevices);
        QSignalSpy searched(&chart, &ui::SearchChart::searchFinished);
        QCoreApplication::processEvents();
        QCOMPARE(searched.count(), 0);
        QVERIFY(chart.isSearching());
        QVERIFY(chart.isStale());
        chart.setSuspended(false);
        QVERIFY(searched.wait(60000));
        QVERIFY(!chart.isSearching());
        QVERIFY(!chart.front().pareto.empty());
    }

    void exportsTheFront()
    {
        const auto data = m_chart->data();
        QCOMPARE(QString::fromStdString(data.at("chart").get<std::string>()), QStringLiteral("search"));
        QCOMPARE(data.at("pareto").size(), m_chart->front().pareto.size());
        const QStringList rows = m_chart->csv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), static_cast<qsizetype>(m_chart->front().pareto.size()) + 1);
        // The command line's schema (core::searchToCsv()): the device is "hardware", and a last "nearest" column.
        QVERIFY(rows.front().startsWith(QLatin1String("hardware,devices,tp,pp,ep,dp,batch")));
        QVERIFY(rows.front().endsWith(QLatin1String(",nearest")));
        QCOMPARE(QString::fromStdString(data.at("pareto")[0].at("hardware").get<std::string>()),
                 rows[1].section(QLatin1Char(','), 0, 0));
    }

private:
    std::unique_ptr<ui::ScenarioDocument> m_doc;
    std::unique_ptr<ui::SearchChart> m_chart;
    std::unique_ptr<ui::ChartView> m_view;
    ui::SearchTargetsPanel *m_panel = nullptr;
};

QTEST_MAIN(TestSearchChart)
#include "tst_searchchart.moc"
