// FLOP share vs time share by operator class: the bars add to 100 %, and unfusing attention moves time. A decode step
// that one class dominates is shown by operator, with the shares of each counted by hand; the title names model,
// phase and device.
#include "ui/charts/breakdownchart.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

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

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

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
    void groupedByOperator_data();
    void groupedByOperator();
    void operatorSharesByHand();
    void allToAllHalvesAreRows();
    void titleNamesModelPhaseDevice_data();
    void titleNamesModelPhaseDevice();
};

void TestBreakdownChart::percent_data()
{
    QTest::addColumn<double>("share");
    QTest::addColumn<QString>("text");
    QTest::newRow("99.8 % of FLOPs") << 0.998 << "99.8 %";
    QTest::newRow("61 % of runtime") << 0.61 << "61 %";
    QTest::newRow("0.17 % (normalisation FLOPs)") << 0.0017 << "0.17 %";
    QTest::newRow("0.03 % (element-wise FLOPs)") << 0.0003 << "0.03 %";
    QTest::newRow("tiny") << 0.00003 << "0.003 %";
    QTest::newRow("almost all") << 0.99996 << ">99.9 %";
    QTest::newRow("nothing") << 0.0 << "0 %";
}

void TestBreakdownChart::percent()
{
    QFETCH(double, share);
    QFETCH(QString, text);
    QCOMPARE(ui::formatPercent(share), text); // the chart writes every share with the one helper
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

void TestBreakdownChart::groupedByOperator_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("phase");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("batch");
    QTest::addColumn<bool>("byOperator");
    QTest::newRow("Llama 2 7B decode: contractions 99.9 % of the time -> by operator")
        << "llama-2-7b" << int(core::Phase::Decode) << 1 << 1 << true;
    QTest::newRow("Llama 2 70B decode batch 64: still weights and KV -> by operator")
        << "llama-2-70b" << int(core::Phase::Decode) << 1 << 64 << true;
    QTest::newRow("Llama 2 70B decode tp 8: all-reduces take > 10 % -> by class")
        << "llama-2-70b" << int(core::Phase::Decode) << 8 << 1 << false;
    QTest::newRow("Llama 2 7B prefill: by class") << "llama-2-7b" << int(core::Phase::Prefill) << 1 << 1 << false;
    QTest::newRow("Llama 2 7B training: by class") << "llama-2-7b" << int(core::Phase::Train) << 1 << 1 << false;
}

void TestBreakdownChart::groupedByOperator()
{
    QFETCH(QString, model);
    QFETCH(int, phase);
    QFETCH(int, tp);
    QFETCH(int, batch);
    QFETCH(bool, byOperator);
    ui::ScenarioDocument doc(library());
    doc.setModelById(model);
    auto s = doc.scenario();
    s.phase = static_cast<core::Phase>(phase);
    s.tp = tp;
    s.batch = batch;
    doc.setScenario(s, "setup");
    QVERIFY(doc.analysisError().isEmpty());
    ui::BreakdownChart chart(&doc);
    const auto shares = core::classShares(doc.analysis());
    double top = 0;
    for (double t : shares.timeShare)
        top = std::max(top, t);
    QCOMPARE(top >= 0.9 && s.phase == core::Phase::Decode, byOperator);
    QCOMPARE(chart.byOperator(), byOperator);
    // One bar series in the chart at a time (Qt sets bar series side by side, hidden ones too).
    QCOMPARE(chart.chart()->series().size(), 1);
    const QStringList cats = chart.categories();
    if (!byOperator) {
        QCOMPARE(cats, QStringList({"Share of time", "Share of FLOPs"}));
        QVERIFY(chart.operatorRows().empty());
        return;
    }
    const auto &rows = chart.operatorRows();
    QVERIFY(rows.size() >= 3 && rows.size() <= 8);
    QCOMPARE(cats.size(), int(rows.size()));
    double flops = 0, time = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        flops += rows[i].flopShare;
        time += rows[i].timeShare;
        if (i > 0)
            QVERIFY(rows[i - 1].timeS >= rows[i].timeS || rows[i].name.startsWith("other"));
    }
    QVERIFY(std::abs(flops - 1) < 1e-9 && std::abs(time - 1) < 1e-9);
    QVERIFY2(cats.last().startsWith(rows.front().name), qPrintable(cats.last())); // the largest at the top
    // Back to prefill: the class bars again, and only they are in the chart.
    s.phase = core::Phase::Prefill;
    doc.setScenario(s, "prefill");
    QVERIFY(!chart.byOperator());
    QCOMPARE(chart.categories(), QStringList({"Share of time", "Share of FLOPs"}));
    QCOMPARE(chart.chart()->series().size(), 1);
    doc.undoStack()->undo();
    QVERIFY(chart.byOperator());
    QCOMPARE(chart.categories(), cats);
}

void TestBreakdownChart::operatorSharesByHand()
{
    // Llama 2 7B decode, batch 1, 2,048 cached tokens, FP16 on an H100: every operator is memory-bound, so its time
    // share is its share of the bytes. Per layer: q, k, v, o 4 x 4096 x 4096 x 2 B = 134.2 MB, gate, up, down
    // 3 x 4096 x 11008 x 2 B = 270.5 MB, K and V read 2 x 2048 x 4096 x 2 B = 33.6 MB; 32 layers = 14.03 GB, plus
    // the LM head 32000 x 4096 x 2 B = 262 MB: 14.29 GB. ffn.up: 32 x 90.2 MB / 14.29 GB = 20.2 %; attn.qkv_proj
    // 32 x 100.7 MB / 14.29 GB = 22.5 %; attn.score (K): 32 x 16.8 MB / 14.29 GB = 3.76 %.
    ui::ScenarioDocument doc(library());
    doc.setModelById("llama-2-7b");
    ui::BreakdownChart chart(&doc);
    QVERIFY(chart.byOperator());
    QCOMPARE(doc.scenario().context, int64_t{2048});
    const double total =
        32 * (4.0 * 4096 * 4096 * 2 + 3.0 * 4096 * 11008 * 2 + 2.0 * 2048 * 4096 * 2) + 32000.0 * 4096 * 2;
    auto row = [&](const QString &name) {
        for (const auto &r : chart.operatorRows())
            if (r.name == name)
                return r;
        return ui::breakdownmath::OperatorRow{};
    };
    QVERIFY(near(row("ffn.up").timeShare, 32 * 4096.0 * 11008 * 2 / total, 0.005));
    QVERIFY(near(row("attn.qkv_proj").timeShare, 32 * 3 * 4096.0 * 4096 * 2 / total, 0.005));
    QVERIFY(near(row("attn.score").timeShare, 32 * 2048.0 * 4096 * 2 / total, 0.01));
    QCOMPARE(row("ffn.up").reads, QString("weights"));
    QCOMPARE(row("attn.score").reads, QString("KV cache"));
    QCOMPARE(chart.operatorRows().front().name, QString("attn.qkv_proj"));
    QVERIFY(chart.operatorRows().back().name.startsWith("other ("));
    QCOMPARE(chart.data().at("grouped_by").get<std::string>(), std::string("operator"));
    QCOMPARE(chart.data().at("operators").size(), chart.operatorRows().size());
}

void TestBreakdownChart::allToAllHalvesAreRows()
{
    // DeepSeek-V3 decoding at batch 256 on 8 H200 with attention DP 8 and the experts over all 8 (DEP8): the
    // all-to-all's dispatch and combine are rows of their own, and, with no tensor parallelism, there is no other
    // communication. The rows' time still adds up to the step's, communication counted once.
    const core::PresetLibrary &lib = *library();
    core::Scenario s;
    s.phase = core::Phase::Decode;
    s.batch = 256;
    s.context = 2048;
    s.attentionDp = 8;
    s.weights = *core::weightFormatFromString("fp8/g16384/fp32");
    s.activations = core::DType::FP8;
    s.efficiency = core::EfficiencyMode::Achievable;
    const core::Analysis a = core::analyze(*lib.findHardware("h200-sxm"), lib.findModel("deepseek-v3")->shape, s);
    const auto rows = ui::breakdownmath::operatorRows(a, 100);
    double time = 0, share = 0;
    const ui::breakdownmath::OperatorRow *dispatch = nullptr;
    for (const auto &r : rows) {
        time += r.timeS;
        share += r.timeShare;
        QVERIFY(r.name != QLatin1String("communication"));
        if (r.name == QLatin1String("moe.dispatch"))
            dispatch = &r;
    }
    QVERIFY(dispatch);
    QCOMPARE(dispatch->timeS, a.comm.epDispatchS);
    QVERIFY(dispatch->reads.isEmpty()); // its bytes go over the link, not to and from memory
    QVERIFY(near(time, a.totals.timeS, 1e-12));
    QVERIFY(std::abs(share - 1) < 1e-9);
}

void TestBreakdownChart::titleNamesModelPhaseDevice_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("hardware");
    QTest::addColumn<int>("phase");
    QTest::addColumn<QString>("title");
    QTest::newRow("Llama 2 7B decode on H100")
        << "llama-2-7b"
        << "h100-sxm" << int(core::Phase::Decode) << "Time breakdown: Llama 2 7B decode on H100 SXM5 80GB";
    QTest::newRow("Llama 2 70B prefill on MI300X")
        << "llama-2-70b"
        << "mi300x" << int(core::Phase::Prefill) << "Time breakdown: Llama 2 70B prefill on Instinct MI300X";
}

void TestBreakdownChart::titleNamesModelPhaseDevice()
{
    QFETCH(QString, model);
    QFETCH(QString, hardware);
    QFETCH(int, phase);
    QFETCH(QString, title);
    ui::ScenarioDocument doc(library());
    doc.setModelById(model);
    doc.setHardwareById(hardware);
    auto s = doc.scenario();
    s.phase = static_cast<core::Phase>(phase);
    doc.setScenario(s, "phase");
    ui::BreakdownChart chart(&doc);
    QCOMPARE(chart.title(), title);
}

QTEST_MAIN(TestBreakdownChart)
#include "tst_breakdownchart.moc"
