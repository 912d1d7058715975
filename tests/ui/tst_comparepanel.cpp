// Compare mode: picking device B fills the delta table from ScenarioDocument::compareAnalysis(), "None" clears it,
// the table follows analysisChanged, and the headline metrics point the right way.
#include "io/presets.h"
#include "ui/controls/presetpicker.h"
#include "ui/document/scenariodocument.h"
#include "ui/widgets/comparemetrics.h"
#include "ui/widgets/comparepanel.h"

#include <QTableWidget>
#include <QTest>
#include <QToolButton>

#include <cmath>

using namespace memwall;

namespace {
int rowOf(QTableWidget *t, const QString &metric)
{
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, 0)->text() == metric)
            return r;
    return -1;
}
void pick(ui::ComparePanel &panel, const QString &id)
{
    const int row = panel.picker()->findData(id);
    QVERIFY2(row >= 0, qPrintable(id));
    panel.picker()->setCurrentIndex(row);
    emit panel.picker()->activated(row); // what a click in the list does
}
} // namespace

class TestComparePanel : public QObject
{
    Q_OBJECT
private:
    std::shared_ptr<core::PresetLibrary> m_lib;

private slots:
    void initTestCase()
    {
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
    }

    void choosingBFillsTable_data()
    {
        QTest::addColumn<QString>("b");
        QTest::newRow("H100 vs MI300X") << "mi300x";
        QTest::newRow("H100 vs A100 80GB") << "a100-80gb-sxm";
        QTest::newRow("H100 vs H100") << "h100-sxm";
        QTest::newRow("H100 vs TPU v5e") << "tpu-v5e";
    }
    void choosingBFillsTable()
    {
        QFETCH(QString, b);
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        QTableWidget *table = panel.table();
        QCOMPARE(table->rowCount(), 0);
        QVERIFY(!doc.compareHardware());

        pick(panel, b);
        QVERIFY(doc.compareHardware());
        QCOMPARE(QString::fromStdString(doc.compareHardware()->id), b);
        QVERIFY(doc.compareAnalysis());
        const auto expected = ui::compareMetrics(doc.analysis(), *doc.compareAnalysis(), doc.scenario());
        QCOMPARE(table->rowCount(), int(expected.size()));
        QVERIFY(table->horizontalHeaderItem(2)->text().contains(QString::fromStdString(doc.compareHardware()->name)));

        const int time = rowOf(table, "Time per token");
        QVERIFY(time >= 0);
        QCOMPARE(table->item(time, 1)->text(), ui::formatSeconds(doc.analysis().totals.timeS));
        QCOMPARE(table->item(time, 2)->text(), ui::formatSeconds(doc.compareAnalysis()->totals.timeS));
        const double ratio = doc.compareAnalysis()->totals.timeS / doc.analysis().totals.timeS;
        QCOMPARE(table->item(time, 3)->text(), QString::number(ratio, 'g', 3) + "×");
        QVERIFY(rowOf(table, "Fits") >= 0);
        QVERIFY(rowOf(table, "KV cache") >= 0);
        QVERIFY(rowOf(table, "Ridge point") >= 0);
        QVERIFY(rowOf(table, "Communication time") >= 0);
    }

    void noneClears()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        pick(panel, "mi300x");
        QVERIFY(doc.compareAnalysis());
        QVERIFY(panel.table()->rowCount() > 0);
        pick(panel, QString()); // "None (compare off)"
        QVERIFY(!doc.compareHardware());
        QVERIFY(!doc.compareAnalysis());
        QCOMPARE(panel.table()->rowCount(), 0);
        QVERIFY(!panel.findChild<QToolButton *>("swapButton")->isEnabled());
    }

    void followsTheDocument()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        pick(panel, "mi300x");
        const int tps = rowOf(panel.table(), "Tokens/s");
        const QString before = panel.table()->item(tps, 2)->text();
        core::Scenario s = doc.scenario();
        s.batch = 64;
        doc.setScenario(s, "batch");
        QVERIFY(panel.table()->item(tps, 2)->text() != before);
        QCOMPARE(panel.table()->item(tps, 2)->text(), ui::formatRate(doc.compareAnalysis()->totals.tokensPerS));
        // Set from elsewhere (a menu action): the picker shows it.
        doc.setCompareHardware(*m_lib->findHardware("b200"));
        QCOMPARE(panel.picker()->currentId(), QString("b200"));
        QVERIFY(panel.table()->horizontalHeaderItem(2)->text().contains("B200"));
    }

    void swapMakesBCurrent()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        pick(panel, "mi300x");
        QTest::mouseClick(panel.findChild<QToolButton *>("swapButton"), Qt::LeftButton);
        QCOMPARE(doc.hardware().id, std::string("mi300x"));
        QCOMPARE(doc.compareHardware()->id, std::string("h100-sxm"));
        doc.undoStack()->undo();
        QCOMPARE(doc.hardware().id, std::string("h100-sxm"));
    }

    // Llama-2-70B decode at batch 1 is memory-bound: the device with more bandwidth is faster per token.
    void metricsPointTheRightWay_data()
    {
        QTest::addColumn<QString>("b");
        QTest::addColumn<bool>("bFaster");
        QTest::newRow("MI300X 5.3 TB/s beats H100 3.35 TB/s") << "mi300x" << true;
        QTest::newRow("A100 80GB 2.0 TB/s loses to H100") << "a100-80gb-sxm" << false;
    }
    void metricsPointTheRightWay()
    {
        QFETCH(QString, b);
        QFETCH(bool, bFaster);
        ui::ScenarioDocument doc(m_lib);
        const core::HardwareSpec &hwB = *m_lib->findHardware(b.toStdString());
        const core::Analysis ab = core::analyze(hwB, doc.model(), doc.scenario());
        const auto rows = ui::compareMetrics(doc.analysis(), ab, doc.scenario());
        const auto find = [&rows](const QString &name) {
            for (const auto &r : rows)
                if (r.name.startsWith(name))
                    return r;
            return ui::CompareMetric{};
        };
        const auto time = find("Time per token");
        QCOMPARE(time.better, bFaster ? ui::Better::B : ui::Better::A);
        QVERIFY((time.ratio < 1) == bFaster);
        const auto tps = find("Tokens/s");
        QCOMPARE(tps.better, bFaster ? ui::Better::B : ui::Better::A);
        const auto bw = find("Memory bandwidth");
        const double expected = ab.bandwidth / doc.analysis().bandwidth;
        QVERIFY(std::fabs(bw.ratio - expected) <= 1e-12 * expected);
        const auto bound = find("Bound");
        QVERIFY(!bound.numeric);
        QCOMPARE(bound.a, QString("memory"));
        // Same model and scenario: the memory needed per device does not depend on the device.
        const auto mem = find("Memory per device");
        QCOMPARE(mem.better, ui::Better::Neither);
        QVERIFY(std::fabs(mem.ratio - 1.0) < 1e-12);
    }
};

QTEST_MAIN(TestComparePanel)
#include "tst_comparepanel.moc"
