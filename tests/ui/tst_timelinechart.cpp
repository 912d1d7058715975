// The request-timeline chart draws core::timelineCurves() of the document's scenario: one line per way of serving the
// request that the scenario asks for, the prefill (and KV transfer) blocks, the first-token markers where their
// values map (read back from the scene), and it follows every edit. Nothing depends on fonts or timing.
#include "ui/charts/chartview.h"
#include "ui/charts/timelinechart.h"
#include "ui/document/scenariodocument.h"

#include "painted.h"
#include "uitest.h"

#include <QAreaSeries>
#include <QChart>
#include <QLineSeries>
#include <QScatterSeries>
#include <QtTest>

#include <cmath>
#include <memory>

using namespace memwall;

namespace {

using uitest::library;

QString qstr(const std::string &s) { return QString::fromStdString(s); }

/// The curves the chart must draw, computed here from the presets (not asked of the chart).
std::vector<core::TimelineCurve> expectedCurves(const ui::ScenarioDocument &doc)
{
    const core::Scenario &s = doc.scenario();
    return core::timelineCurves(core::serve(doc.hardware(), doc.model(), s, doc.presets().draftModel(s)));
}

/// "" when every line series shows its curve (in the chart's time unit) and nothing else is drawn.
QString curveProblems(const ui::TimelineChart &chart, const std::vector<core::TimelineCurve> &want)
{
    for (int i = 0; i < 6; ++i) {
        QLineSeries *line = chart.curveSeries(i);
        if (!line)
            return QStringLiteral("no series %1").arg(i);
        const bool shown = i < static_cast<int>(want.size());
        if (line->isVisible() != shown)
            return QStringLiteral("series %1 visible %2, expected %3").arg(i).arg(line->isVisible()).arg(shown);
        if (!shown)
            continue;
        const core::TimelineCurve &c = want[i];
        const QList<QPointF> pts = line->points();
        if (pts.size() != static_cast<qsizetype>(c.tokens.size()))
            return QStringLiteral("%1: %2 points, expected %3").arg(qstr(c.id)).arg(pts.size()).arg(c.tokens.size());
        for (qsizetype j = 0; j < pts.size(); ++j)
            if (std::abs(pts[j].x() * chart.timeUnitS() - c.timeS[j]) > 1e-12 * c.timeS[j] || pts[j].y() != c.tokens[j])
                return QStringLiteral("%1: point %2 is (%3, %4), expected (%5 s, %6)")
                    .arg(qstr(c.id))
                    .arg(j)
                    .arg(pts[j].x())
                    .arg(pts[j].y())
                    .arg(c.timeS[j])
                    .arg(c.tokens[j]);
    }
    return uitest::markerProblems(chart);
}

} // namespace

class TestTimelineChart : public QObject
{
    Q_OBJECT
private slots:
    void init()
    {
        m_doc = std::make_unique<ui::ScenarioDocument>(library());
        m_doc->setHardwareById("h100-sxm");
        m_doc->setModelById("llama-3-70b");
        core::Scenario s = m_doc->scenario();
        s.phase = core::Phase::Generate;
        s.tp = 8;
        s.batch = 16;
        s.seq = 2048;
        s.output = 256;
        m_doc->setScenario(s, QStringLiteral("test"));
        m_doc->undoStack()->clear();
        m_chart = std::make_unique<ui::TimelineChart>(m_doc.get());
        m_view = std::make_unique<ui::ChartView>(m_chart.get());
        m_view->resize(1100, 650);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    }
    void cleanup()
    {
        m_view.reset();
        m_chart.reset();
        m_doc.reset();
    }

    void drawsEachWayOfServing_data()
    {
        QTest::addColumn<int>("k");
        QTest::addColumn<qint64>("chunk");
        QTest::addColumn<int>("prefill");
        QTest::addColumn<bool>("offload");
        QTest::addColumn<QStringList>("ids");
        QTest::newRow("plain") << 0 << qint64(0) << 0 << false << QStringList{"plain"};
        QTest::newRow("speculative") << 4 << qint64(0) << 0 << false << QStringList{"plain", "speculative"};
        QTest::newRow("chunked") << 0 << qint64(512) << 0 << false << QStringList{"plain", "chunked_prefill"};
        QTest::newRow("disaggregated") << 0 << qint64(0) << 8 << false << QStringList{"plain", "disaggregated"};
        QTest::newRow("offload") << 0 << qint64(0) << 0 << true << QStringList{"plain", "offload"};
        QTest::newRow("all") << 4 << qint64(512) << 8 << true
                             << QStringList{"plain", "speculative", "chunked_prefill", "disaggregated", "offload"};
    }
    void drawsEachWayOfServing()
    {
        QFETCH(int, k);
        QFETCH(qint64, chunk);
        QFETCH(int, prefill);
        QFETCH(bool, offload);
        QFETCH(QStringList, ids);
        core::Scenario s = m_doc->scenario();
        s.speculativeK = k;
        s.acceptance = 0.8;
        s.chunkedPrefill = chunk;
        s.prefillDevices = prefill;
        s.decodeDevices = prefill;
        if (offload) {
            s.kvOffload = core::KvOffload::Host;
            s.kvOffloadFraction = 0.5;
        }
        m_doc->setScenario(s, QStringLiteral("serving"));
        QCoreApplication::processEvents();
        QVERIFY2(m_chart->message().isEmpty(), qPrintable(m_chart->message()));
        QStringList got;
        for (const core::TimelineCurve &c : m_chart->curves())
            got << qstr(c.id);
        QCOMPARE(got, ids);
        QCOMPARE(curveProblems(*m_chart, expectedCurves(*m_doc)), QString());
        // The prefill block ends at the first token of the plain request; the transfer block is there only for a
        // disaggregated run, from the prefill pool's end to its first token.
        QAreaSeries *prefillBand = nullptr, *transferBand = nullptr;
        for (QAbstractSeries *a : m_chart->chart()->series())
            if (auto *area = qobject_cast<QAreaSeries *>(a))
                (prefillBand ? transferBand : prefillBand) = area;
        QVERIFY(prefillBand && transferBand);
        QVERIFY(prefillBand->isVisible());
        QCOMPARE(prefillBand->upperSeries()->points().back().x() * m_chart->timeUnitS(),
                 m_chart->report()->request.ttftS);
        QCOMPARE(transferBand->isVisible(), prefill > 0);
        // Energy and cost are stated: the H100 preset has a TDP and an hourly price.
        QVERIFY(m_chart->costText().contains(QStringLiteral("J/token")));
        QVERIFY(m_chart->costText().contains(QStringLiteral("per million tokens")));
        // Offloaded, they are the offloaded request's, and say so.
        QCOMPARE(m_chart->costText().startsWith(QStringLiteral("Offloaded: ")), offload);
    }

    void speculationNamesItsGain()
    {
        core::Scenario s = m_doc->scenario();
        s.speculativeK = 4;
        s.acceptance = 0.8;
        m_doc->setScenario(s, QStringLiteral("K 4"));
        const core::SpeculativeReport &sp = *m_chart->report()->speculative;
        QVERIFY(sp.speedup > 1);
        QVERIFY(m_chart->curveSeries(1)->name().contains(QStringLiteral("faster")));
        // Its curve reaches the last token sooner by exactly the speed-up of the decode part.
        const auto &c = m_chart->curves();
        QVERIFY(std::abs((c[1].timeS.back() - c[1].firstTokenS) * sp.speedup - (c[0].timeS.back() - c[0].firstTokenS)) <
                1e-12);
    }

    void offloadThatStillOverflowsSaysSo()
    {
        // Batch 2048 of 2,304-token sequences (2048 + 256) needs 327,680 B × 2048 × 2304 / 8 = 193 GB of KV per H100
        // (tp 8): offloading all 17.6 GB of weights per device cannot make it fit, and the curve's name says so.
        core::Scenario s = m_doc->scenario();
        s.batch = 2048;
        s.weightOffload = core::KvOffload::Host;
        m_doc->setScenario(s, QStringLiteral("weights to host"));
        const core::OffloadReport &o = *m_chart->report()->offload;
        QVERIFY(!o.fitsMainMemory);
        QCOMPARE(o.weightFraction, 1.0);
        const QString name = m_chart->curveSeries(1)->name();
        QVERIFY2(name.startsWith(QStringLiteral("Offload, 100 % of weights")), qPrintable(name));
        QVERIFY2(name.endsWith(QStringLiteral("(memory still overflows)")), qPrintable(name));
        // At batch 16 the KV cache fits beside the weights in 80 GB: nothing is offloaded, and nothing overflows.
        s.batch = 16;
        m_doc->setScenario(s, QStringLiteral("batch 16"));
        QVERIFY(m_chart->report()->offload->fitsMainMemory);
        QVERIFY(!m_chart->curveSeries(1)->name().contains(QStringLiteral("overflows")));
    }

    void unusedCurvesKeepNoName()
    {
        // Qt Charts sizes the legend by hidden entries' names too: B's curve, once compare is off, keeps no name, so
        // the legend is as wide as on a chart that never compared.
        ui::CompareSpec b;
        b.hardware = *library()->findHardware("a100-80gb-sxm");
        m_doc->setCompare(b);
        QCOMPARE(m_chart->curves().back().id, std::string("b_plain"));
        const QString bName = m_chart->curveSeries(1)->name();
        QVERIFY2(bName.startsWith(QStringLiteral("B (A100")), qPrintable(bName));
        m_doc->setCompare(std::nullopt);
        QCOMPARE(m_chart->curves().size(), std::size_t{1});
        QVERIFY(!m_chart->curveSeries(1)->isVisible());
        QCOMPARE(m_chart->curveSeries(1)->name(), QString());
    }

    void followsEveryEdit()
    {
        // A batch edit, an undo and a device change each redraw the curves from the new scenario.
        core::Scenario s = m_doc->scenario();
        s.batch = 64;
        m_doc->setScenario(s, QStringLiteral("batch 64"));
        QCOMPARE(curveProblems(*m_chart, expectedCurves(*m_doc)), QString());
        const double at64 = m_chart->curves().front().timeS.back();
        m_doc->undoStack()->undo();
        QCOMPARE(m_doc->scenario().batch, 16);
        QCOMPARE(curveProblems(*m_chart, expectedCurves(*m_doc)), QString());
        QVERIFY(m_chart->curves().front().timeS.back() < at64);
        m_doc->setHardwareById("h200-sxm");
        QCOMPARE(curveProblems(*m_chart, expectedCurves(*m_doc)), QString());
        m_view->resize(800, 500);
        QCoreApplication::processEvents();
        QCOMPARE(uitest::markerProblems(*m_chart), QString());
    }

    // The serving report is computed once per change on the document and shared: the chart's report is the
    // document's, the same object until the next change, after which it is the new scenario's.
    void servingReportIsTheDocumentsOncePerChange()
    {
        const auto *first = &m_doc->serving();
        QVERIFY(first->report);
        QCOMPARE(&m_doc->serving(), first);
        QCOMPARE(m_chart->report()->served.tpotS, first->report->served.tpotS);
        const double tpot16 = first->report->served.tpotS;
        core::Scenario s = m_doc->scenario();
        s.batch = 64;
        m_doc->setScenario(s, QStringLiteral("batch 64"));
        QVERIFY(m_doc->serving().report);
        const core::ServingReport direct = core::serve(m_doc->hardware(), m_doc->model(), s);
        QCOMPARE(m_doc->serving().report->served.tpotS, direct.served.tpotS);
        QVERIFY(m_doc->serving().report->served.tpotS > tpot16);
        QCOMPARE(m_chart->report()->served.tpotS, direct.served.tpotS);
    }

    void compareDrawsB()
    {
        ui::CompareSpec b;
        b.hardware = *library()->findHardware("h200-sxm");
        m_doc->setCompare(b);
        QCOMPARE(m_chart->curves().back().id, std::string("b_plain"));
        QVERIFY(m_chart->curveSeries(1)->isVisible());
        QVERIFY(m_chart->curveSeries(1)->pen().style() == Qt::DashLine);
        // The H200's bandwidth makes B's request end sooner.
        QVERIFY(m_chart->curves().back().timeS.back() < m_chart->curves().front().timeS.back());
        m_doc->setCompare(std::nullopt);
        QCOMPARE(curveProblems(*m_chart, expectedCurves(*m_doc)), QString());
    }

    void refusalIsShownNotDrawn()
    {
        // Half a copy of a tp-8 model in the prefill pool: serve() refuses, and the chart says why and draws nothing.
        core::Scenario s = m_doc->scenario();
        s.prefillDevices = 4;
        s.decodeDevices = 8;
        m_doc->setScenario(s, QStringLiteral("bad split"));
        QVERIFY(m_chart->message().contains(QStringLiteral("whole copies")));
        QVERIFY(m_chart->curves().empty());
        QVERIFY(!m_chart->curveSeries(0)->isVisible());
        QVERIFY(m_chart->data().contains("error"));
        m_doc->undoStack()->undo();
        QVERIFY(m_chart->message().isEmpty());
        QVERIFY(m_chart->curveSeries(0)->isVisible());
    }

    void exportsItsData()
    {
        const nlohmann::json j = m_chart->data();
        QCOMPARE(j.at("chart").get<std::string>(), std::string("timeline"));
        QCOMPARE(j.at("request").at("ttft_s").get<double>(), m_chart->report()->request.ttftS);
        QCOMPARE(j.at("curves").size(), size_t{1});
        QCOMPARE(j.at("decode_steps").size(), size_t{255});
        const QStringList lines = m_chart->csv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QStringLiteral("curve,tokens,time_s,step_s"));
        QCOMPARE(lines.size(), 1 + 256 + 255); // the plain curve's 256 tokens, then the 255 decode steps
    }

private:
    std::unique_ptr<ui::ScenarioDocument> m_doc;
    std::unique_ptr<ui::TimelineChart> m_chart;
    std::unique_ptr<ui::ChartView> m_view;
};

QTEST_MAIN(TestTimelineChart)
#include "tst_timelinechart.moc"
