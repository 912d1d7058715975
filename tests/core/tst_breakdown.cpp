// Share of FLOPs vs share of time by operator class: the "Data Movement Is All You Need" lesson (tensor
// contractions are nearly all the FLOPs but much less of the time).
#include "core/analysis/breakdown.h"
#include "core/io/presets.h"

#include <QtTest>

#include <cmath>
#include <numeric>

using namespace memwall::core;

namespace {

const PresetLibrary &library()
{
    static const PresetLibrary lib = [] {
        PresetLibrary p;
        p.loadBuiltin();
        return p;
    }();
    return lib;
}

Analysis run(const char *hw, const char *model, Scenario s)
{
    return analyze(*library().findHardware(hw), library().findModel(model)->shape, s);
}

double sum(const std::array<double, kShareClassCount> &a) { return std::accumulate(a.begin(), a.end(), 0.0); }

constexpr auto TC = ShareClass::TensorContraction;
constexpr auto Norm = ShareClass::Normalization;
constexpr auto Comm = ShareClass::Communication;

} // namespace

class TestBreakdown : public QObject
{
    Q_OBJECT
private slots:
    void sharesSumToOne_data();
    void sharesSumToOne();
    void classMapping();
    void flopsAreNotRuntime();
    void unfusedAttentionMovesTime();
    void communicationHasNoFlops();
    void emptyAnalysis();
};

void TestBreakdown::sharesSumToOne_data()
{
    QTest::addColumn<int>("phase");
    QTest::addColumn<int>("tp");
    QTest::newRow("decode tp 1") << int(Phase::Decode) << 1;
    QTest::newRow("prefill tp 8") << int(Phase::Prefill) << 8;
    QTest::newRow("train tp 2") << int(Phase::Train) << 2;
    QTest::newRow("generate tp 4") << int(Phase::Generate) << 4;
}

void TestBreakdown::sharesSumToOne()
{
    QFETCH(int, phase);
    QFETCH(int, tp);
    Scenario s;
    s.phase = static_cast<Phase>(phase);
    s.tp = tp;
    const Analysis a = run("h100-sxm", "llama-2-70b", s);
    const ClassShares c = classShares(a);
    QVERIFY(std::abs(sum(c.flopShare) - 1.0) < 1e-12);
    QVERIFY(std::abs(sum(c.timeShare) - 1.0) < 1e-12);
    // Totals agree with the analysis: operators + communication.
    QVERIFY(std::abs(c.totalTimeS - a.totals.timeS) <= 1e-9 * a.totals.timeS);
    QVERIFY(std::abs(c.totalFlops - a.totals.flops) <= 1e-9 * a.totals.flops);
}

void TestBreakdown::classMapping()
{
    QVERIFY(shareClassOf(OpClass::Matmul) == TC);
    QVERIFY(shareClassOf(OpClass::Attention) == TC);
    QVERIFY(shareClassOf(OpClass::Normalization) == Norm);
    QVERIFY(shareClassOf(OpClass::Elementwise) == ShareClass::Elementwise);
    QVERIFY(shareClassOf(OpClass::Communication) == Comm);
    QCOMPARE(displayName(TC), std::string_view("Tensor contractions"));
}

void TestBreakdown::flopsAreNotRuntime()
{
    // BERT-Large encoding with unfused attention: tensor contractions are > 99 % of the FLOPs but a visibly smaller
    // share of the time (the 99.8 % vs 61 % lesson).
    Scenario s;
    s.phase = Phase::Encode;
    s.batch = 8;
    s.seq = 512;
    s.fusedAttention = false;
    const ClassShares c = classShares(run("v100-sxm2", "bert-large-uncased", s));
    QVERIFY2(c.flopShareOf(TC) > 0.99, qPrintable(QString::number(c.flopShareOf(TC))));
    QVERIFY2(c.timeShareOf(TC) < c.flopShareOf(TC) - 0.05, qPrintable(QString::number(c.timeShareOf(TC))));
    QVERIFY(c.timeShareOf(Norm) > 10 * c.flopShareOf(Norm));
}

void TestBreakdown::unfusedAttentionMovesTime()
{
    Scenario s;
    s.phase = Phase::Prefill;
    s.causal = false; // the same pairs either way: a causal fused kernel would also skip the masked half
    s.fusedAttention = true;
    const ClassShares fused = classShares(run("h100-sxm", "llama-2-70b", s));
    s.fusedAttention = false;
    const ClassShares unfused = classShares(run("h100-sxm", "llama-2-70b", s));
    // The score matrix round trip lands on the softmax (normalisation) and the score/context matmuls.
    QVERIFY(unfused.timeShareOf(Norm) > fused.timeShareOf(Norm));
    QVERIFY(unfused.timeS[std::size_t(Norm)] > fused.timeS[std::size_t(Norm)]);
    // FLOPs do not change with fusion.
    QVERIFY(std::abs(unfused.totalFlops - fused.totalFlops) <= 1e-12 * fused.totalFlops);
}

void TestBreakdown::communicationHasNoFlops()
{
    Scenario s;
    s.tp = 8;
    const Analysis a = run("h100-sxm", "llama-2-70b", s);
    const ClassShares c = classShares(a);
    QCOMPARE(c.flops[std::size_t(Comm)], 0.0);
    QVERIFY(c.timeShareOf(Comm) > 0);
    QVERIFY(std::abs(c.timeS[std::size_t(Comm)] - a.comm.timeS) <= 1e-12 * a.comm.timeS);
}

void TestBreakdown::emptyAnalysis()
{
    const ClassShares c = classShares(Analysis{});
    QCOMPARE(sum(c.flopShare), 0.0);
    QCOMPARE(sum(c.timeShare), 0.0);
}

QTEST_GUILESS_MAIN(TestBreakdown)
#include "tst_breakdown.moc"
