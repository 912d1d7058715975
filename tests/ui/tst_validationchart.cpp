// The validation chart paints what core::validateRuns() reports for the built-in set: one achievable point per run on
// a device with microbenchmarks, one ideal point per analysed run, each where its (measured, predicted) time maps on
// the chart's axes (read back from the scene by markerProblems()), the ±25 % lines at 1.25 and 0.75 times the
// diagonal, and a ring around each run on the document's device, which follow a device change. A scenario edit
// changes nothing here: the runs have their own settings. Nothing depends on fonts or timing.
#include "ui/charts/chartview.h"
#include "ui/charts/validationchart.h"
#include "ui/document/scenariodocument.h"

#include "core/io/presets.h"
#include "core/validation/validation.h"
#include "painted.h"
#include "uitest.h"

#include <QChart>
#include <QLineSeries>
#include <QScatterSeries>
#include <QtTest>

#include <memory>

using namespace memwall;

namespace {

QScatterSeries *scatterNamed(const ui::ChartBase &chart, const QString &objectName)
{
    for (QAbstractSeries *s : chart.chart()->series())
        if (auto *scatter = qobject_cast<QScatterSeries *>(s); scatter && scatter->objectName() == objectName)
            return scatter;
    return nullptr;
}

} // namespace

class TestValidationChart : public QObject
{
    Q_OBJECT
private slots:
    void init()
    {
        m_doc = std::make_unique<ui::ScenarioDocument>(uitest::library());
        m_chart = std::make_unique<ui::ValidationChart>(m_doc.get());
        m_view = std::make_unique<ui::ChartView>(m_chart.get());
        m_view->resize(1000, 700);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    }
    void cleanup()
    {
        m_view.reset();
        m_chart.reset();
        m_doc.reset();
    }

    void paintsEveryRunOfTheSet()
    {
        const core::ValidationReport want = core::validateRuns(core::builtinRuns(), m_doc->presets());
        QVERIFY(want.rows.size() >= 40);
        QList<QPointF> achievable, ideal;
        for (const core::ValidatedRun &v : want.rows) {
            QVERIFY2(v.error.empty(), v.run.id.c_str());
            ideal << QPointF(core::timeOf(v.run, v.run.value), core::timeOf(v.run, v.ideal));
            if (v.predicted)
                achievable << QPointF(core::timeOf(v.run, v.run.value), core::timeOf(v.run, v.achievable));
        }
        QCOMPARE(achievable.size(), want.summary.predicted);
        QCOMPARE(scatterNamed(*m_chart, "achievable")->points(), achievable);
        QCOMPARE(scatterNamed(*m_chart, "ideal")->points(), ideal);
        // Painted where they map, on screen and after a resize.
        QVERIFY2(uitest::markerProblems(*m_chart).isEmpty(), qPrintable(uitest::markerProblems(*m_chart)));
        m_view->resize(700, 520);
        QCoreApplication::processEvents();
        QVERIFY2(uitest::markerProblems(*m_chart).isEmpty(), qPrintable(uitest::markerProblems(*m_chart)));
        // The ideal is a bound: every ideal point lies on or below the diagonal (predicted no slower than measured).
        for (const QPointF &p : ideal)
            QVERIFY(p.y() <= p.x() * (1 + 1e-12));
        // The export carries the same runs as `memwall validate --json`, with their times.
        const nlohmann::json data = m_chart->data();
        QCOMPARE(data.at("chart").get<std::string>(), std::string("validation"));
        QCOMPARE(data.at("runs").size(), want.rows.size());
        QCOMPARE(data.at("runs").at(0).at("measured_s").get<double>(), ideal.front().x());
        QCOMPARE(m_chart->csv().count(QLatin1Char('\n')), qsizetype(want.rows.size()) + 1);
    }

    void toleranceLinesAreAQuarterOffTheDiagonal()
    {
        QList<QLineSeries *> lines;
        for (QAbstractSeries *s : m_chart->chart()->series())
            if (auto *line = qobject_cast<QLineSeries *>(s); line && !qobject_cast<QScatterSeries *>(s))
                lines << line;
        QCOMPARE(lines.size(), 3);
        // Diagonal, +25 %, -25 %: every point's predicted time over its measured time.
        const double factors[] = {1.0, 1.25, 0.75};
        for (int i = 0; i < 3; ++i)
            for (const QPointF &p : lines[i]->points())
                QVERIFY2(std::abs(p.y() / p.x() - factors[i]) < 1e-12, qPrintable(lines[i]->name()));
    }

    void ringsFollowTheDevice_data()
    {
        QTest::addColumn<QString>("device");
        QTest::newRow("A100 80GB (gpt-fast)") << "a100-80gb-sxm";
        QTest::newRow("MI300X (vLLM)") << "mi300x";
        QTest::newRow("RTX 4090 (no microbenchmarks: rings on the ideal points)") << "rtx-4090";
        QTest::newRow("TPU v5p (no runs)") << "tpu-v5p";
    }
    void ringsFollowTheDevice()
    {
        QFETCH(QString, device);
        m_doc->setHardwareById(device);
        QList<QPointF> want;
        for (const core::ValidatedRun &v : m_chart->report().rows)
            if (v.run.device == device.toStdString())
                want << (v.predicted ? ui::ValidationChart::achievablePoint(v) : ui::ValidationChart::idealPoint(v));
        QScatterSeries *rings = scatterNamed(*m_chart, "current device");
        QVERIFY(rings);
        QCOMPARE(rings->points(), want);
        QCOMPARE(rings->isVisible(), !want.isEmpty());
        QVERIFY2(uitest::markerProblems(*m_chart).isEmpty(), qPrintable(uitest::markerProblems(*m_chart)));
    }

    void scenarioEditsLeaveTheRunsAlone()
    {
        const QList<QPointF> points = scatterNamed(*m_chart, "achievable")->points();
        core::Scenario s = m_doc->scenario();
        s.batch = 64;
        s.efficiency = core::EfficiencyMode::Achievable;
        m_doc->setScenario(s, "batch");
        QCOMPARE(scatterNamed(*m_chart, "achievable")->points(), points);
    }

private:
    std::unique_ptr<ui::ScenarioDocument> m_doc;
    std::unique_ptr<ui::ValidationChart> m_chart;
    std::unique_ptr<ui::ChartView> m_view;
};

QTEST_MAIN(TestValidationChart)
#include "tst_validationchart.moc"
