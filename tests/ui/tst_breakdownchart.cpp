// FLOP share vs time share by operator class: the bars add to 100 %, and unfusing attention moves time.
#include "ui/charts/breakdownchart.h"
#include "ui/document/scenariodocument.h"

#include "core/io/presets.h"
#include "uitest.h"

#include <QChart>
#include <QtTest>

#include <cmath>

using namespace memwall;
using core::ShareClass;

namespace {

using uitest::library;

constexpr ShareClass kAll[] = {ShareClass::TensorContraction, ShareClass::Normalization, ShareClass::Elementwise,
                               ShareClass::Communication};

double sum(const ui::BreakdownChart &c, bool time)
{
    double s = 0;
    for (ShareClass k : kAll)
        s += c.plotted(k, time);
    return s;
}

} // namespace

class TestBreakdownChart : public QObject
{
    Q_OBJECT
private slots:
    void percent_data();
    void percent();
    void sharesSumTo100_data();
    void sharesSumTo100();
    void unfusedAttentionMovesTime();
    void exportData();
};

void TestBreakdownChart::percent_data()
{
    QTest::addColumn<double>("share");
    QTest::addColumn<QString>("text");
    QTest::newRow("99.8 % of FLOPs") << 0.998 << "99.8 %";
    QTest::newRow("61 % of runtime") << 0.61 << "61.0 %";
    QTest::newRow("0.17 % (normalisation FLOPs)") << 0.0017 << "0.17 %";
    QTest::newRow("0.03 % (element-wise FLOPs)") << 0.0003 << "0.03 %";
    QTest::newRow("tiny") << 0.00003 << "< 0.01 %";
    QTest::newRow("almost all") << 0.99996 << "> 99.9 %";
    QTest::newRow("nothing") << 0.0 << "0 %";
}

void TestBreakdownChart::percent()
{
    QFETCH(double, share);
    QFETCH(QString, text);
    QCOMPARE(ui::breakdownmath::percent(share), text);
}

void TestBreakdownChart::sharesSumTo100_data()
{
    QTest::addColumn<int>("phase");
    QTest::addColumn<int>("tp");
    QTest::newRow("decode") << int(core::Phase::Decode) << 1;
    QTest::newRow("prefill tp 8") << int(core::Phase::Prefill) << 8;
    QTest::newRow("train tp 4") << int(core::Phase::Train) << 4;
}

void TestBreakdownChart::sharesSumTo100()
{
    QFETCH(int, phase);
    QFETCH(int, tp);
    ui::ScenarioDocument doc(library());
    ui::BreakdownChart chart(&doc);
    auto s = doc.scenario();
    s.phase = static_cast<core::Phase>(phase);
    s.tp = tp;
    doc.setScenario(s, "setup");
    QVERIFY(doc.analysisError().isEmpty());
    QVERIFY(std::abs(sum(chart, false) - 100.0) < 1e-9);
    QVERIFY(std::abs(sum(chart, true) - 100.0) < 1e-9);
    // Tensor contractions are nearly all the FLOPs; where the step is not dominated by streaming the weights
    // (prefill, training) they are a smaller share of the time.
    QVERIFY(chart.plotted(ShareClass::TensorContraction, false) > 99.0);
    if (s.phase != core::Phase::Decode)
        QVERIFY(chart.plotted(ShareClass::TensorContraction, true) <
                chart.plotted(ShareClass::TensorContraction, false));
    // Communication has no FLOPs; with tp > 1 it takes time.
    QCOMPARE(chart.plotted(ShareClass::Communication, false), 0.0);
    QCOMPARE(chart.plotted(ShareClass::Communication, true) > 0, tp > 1);
    QCOMPARE(chart.legendLabels().size(), 4);
}

void TestBreakdownChart::unfusedAttentionMovesTime()
{
    ui::ScenarioDocument doc(library());
    ui::BreakdownChart chart(&doc);
    auto s = doc.scenario();
    s.phase = core::Phase::Prefill;
    s.causal = false; // the same pairs either way: a causal fused kernel would also skip the masked half
    s.fusedAttention = true;
    doc.setScenario(s, "prefill");
    const double normFused = chart.plotted(ShareClass::Normalization, true);
    const double tcFlopsFused = chart.plotted(ShareClass::TensorContraction, false);

    s.fusedAttention = false;
    doc.setScenario(s, "unfuse");
    const double normUnfused = chart.plotted(ShareClass::Normalization, true);
    // The score matrix now goes to memory and back: softmax (normalisation) takes a visibly larger share.
    QVERIFY2(normUnfused > normFused + 1.0, qPrintable(QString("%1 -> %2").arg(normFused).arg(normUnfused)));
    // FLOPs do not change with fusion.
    QVERIFY(std::abs(chart.plotted(ShareClass::TensorContraction, false) - tcFlopsFused) < 1e-9);
    QVERIFY(chart.chart()->title().size() > 0);

    doc.undoStack()->undo();
    QVERIFY(std::abs(chart.plotted(ShareClass::Normalization, true) - normFused) < 1e-9);
}

void TestBreakdownChart::exportData()
{
    ui::ScenarioDocument doc(library());
    ui::BreakdownChart chart(&doc);
    QCOMPARE(chart.id(), QString("breakdown"));
    const QStringList lines = chart.csv().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);
    QCOMPARE(lines.first(), QString("class,flops,time_s,flop_share,time_share"));
    QVERIFY(lines[1].startsWith("tensor_contraction,"));
    const auto j = chart.data();
    QCOMPARE(j.at("classes").size(), std::size_t(4));
    double total = 0;
    for (const auto &c : j.at("classes"))
        total += c.at("time_share").get<double>();
    QVERIFY(std::abs(total - 1.0) < 1e-12);
}

QTEST_MAIN(TestBreakdownChart)
#include "tst_breakdownchart.moc"
