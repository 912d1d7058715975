// Tests for the parts the analysis is split into (core/analysis/passcontext.h, operatortime.h, footprint.h): the one
// operator timing, the causal pair counts, the routed experts' load and the weights one device holds. Hand counts:
//
// timeOperator(), made-up roofs (matmul 100 FLOP/s, attention 40, vector 10; memory 10 B/s, weight-only 5 B/s; a
// kernel 1 s):
//   a matmul of 1,000 FLOPs, 20 weight bytes and 30 other bytes, 2 executions: compute 1,000 / 100 = 10 s, memory
//   20 / 5 + 30 / 10 = 7 s: 10 s, compute-bound, + 2 launches = 12 s.
//   the same FLOPs as attention: 1,000 / 40 = 25 s; its bytes all at 10 B/s: 50 / 10 = 5 s; + 2 launches = 27 s.
//   fused attention's softmax launches no kernel of its own: 1,000 / 10 = 100 s, no launch.
//   the LM head with 16-bit embeddings reads its weights at 10 B/s, not the weight-only 5: 20 / 10 + 30 / 10 = 5 s.
//
// Causal pairs: a 4-token prompt 1 + 2 + 3 + 4 = 10; with a window of 2, 1 + 2 + 2 + 2 = 7; 2 tokens after 3 in a
// window of 2: 2 + 2 = 4. Chunks of 2 over 5 tokens: 1 + 2 + 1 + 2 + 1 = 7; tokens 4 and 5 of them: 2 + 1 = 3.
//
// Routed experts, 8 experts top-2: one token hits 1 - (1 - 2/8)^1 = 0.25 of them; on one device (8 local) that is
// 2 touched experts and 1 x 2 x 8 / 8 = 2 token-expert pairs. Four tokens: 1 - 0.75^4 = 0.68359375, 5.46875 touched,
// 8 pairs. One token over ep 8 (1 local): the average device touches 0.25 experts for 0.25 pairs, but the busiest
// holds ceil(8 x 0.25 / 8) = 1 whole expert and computes at least 1 pair.
//
// Weights per device, 1,000 parameters (600 routed, 100 embedding, 100 head) at tp 2, ep 2: local parameters
// 400 / 2 + 600 / (2 x 2) = 350, at 2 B: 700 B; the embedding and head at their own 2 B (no change); the 150 local
// routed ones at 0.53125 B (MXFP4: 4 + 8/32 bits) instead of 2: 700 - 150 x 1.46875 = 479.6875 B. ZeRO-3 over 4
// replicas in training: a quarter of it.
#include "core/analysis/footprint.h"
#include "core/analysis/operatortime.h"
#include "core/analysis/passcontext.h"
#include "core/io/presets.h"

#include "../builtinpresets.h"

#include <QtTest>

#include <cmath>

using namespace memwall::core;
using namespace testpresets;

namespace {
OperatorRoofs madeUpRoofs()
{
    OperatorRoofs r;
    r.peakMatmul = r.rawPeakMatmul = 100;
    r.peakAttention = 40;
    r.peakVector = 10;
    r.bandwidth = 10;
    r.weightBandwidth = 5;
    r.kernelS = 1;
    return r;
}
bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }
} // namespace

class TestAnalysisParts : public QObject
{
    Q_OBJECT
private slots:
    void operatorTimeByHand();
    void retimedOperatorIsAnalyzedOperator_data();
    void retimedOperatorIsAnalyzedOperator();
    void causalPairsByHand();
    void expertLoadByHand();
    void bytesPerWeightByHand();
    void weightsPerDeviceByHand();
    void weightsPerDeviceIsTheFootprints();
};

void TestAnalysisParts::operatorTimeByHand()
{
    OperatorRoofs r = madeUpRoofs();
    const OperatorWork matmul{OpClass::Matmul, "ffn.up", 2, 1, 500, 1000, 20, 30, 0};
    OperatorTime t = timeOperator(r, matmul);
    QCOMPARE(t.computeS, 10.0);
    QCOMPARE(t.memoryS, 7.0);
    QCOMPARE(t.launchS, 2.0);
    QCOMPARE(t.timeS, 12.0);
    QVERIFY(t.bound == Bound::Compute);
    OperatorWork attention = matmul;
    attention.cls = OpClass::Attention;
    attention.name = "attn.score";
    t = timeOperator(r, attention);
    QCOMPARE(t.computeS, 25.0);
    QCOMPARE(t.memoryS, 5.0);
    QCOMPARE(t.timeS, 27.0);
    OperatorWork softmax = attention;
    softmax.cls = OpClass::Normalization;
    softmax.name = "attn.softmax";
    t = timeOperator(r, softmax);
    QCOMPARE(t.launchS, 0.0);
    QCOMPARE(t.timeS, 100.0);
    r.fusedAttention = false; // unfused, the softmax is a kernel of its own
    QCOMPARE(timeOperator(r, softmax).launchS, 2.0);
    OperatorWork head = matmul;
    head.name = "lm_head";
    QCOMPARE(timeOperator(r, head).memoryS, 7.0);
    r.unquantizedEmbeddings = true;
    QCOMPARE(timeOperator(r, head).memoryS, 5.0);
    QCOMPARE(timeOperator(r, matmul).memoryS, 7.0); // the other matmuls keep the weight-only kernels
}

void TestAnalysisParts::retimedOperatorIsAnalyzedOperator_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("activations");
    QTest::addColumn<QString>("weights");
    QTest::addColumn<bool>("unquantizedEmbeddings");
    QTest::newRow("Llama 3 70B fp8 dynamic, H100") << "h100-sxm"
                                                   << "llama-3-70b"
                                                   << "fp8"
                                                   << "fp8" << false;
    QTest::newRow("Llama 3 70B int4, 16-bit embeddings, H100") << "h100-sxm"
                                                               << "llama-3-70b"
                                                               << "fp16"
                                                               << "int4/g128" << true;
    QTest::newRow("DeepSeek-V3 fp8, H200") << "h200-sxm"
                                           << "deepseek-v3"
                                           << "fp8"
                                           << "fp8" << false;
    QTest::newRow("Jamba 1.5 Mini, H100") << "h100-sxm"
                                          << "jamba-1-5-mini"
                                          << "fp16"
                                          << "fp16" << false;
}

// The serving paths re-time operators with timeOperator(roofs, op): an operator left as analyze() made it must come
// out as analyze() timed it (achievable efficiency: GEMM sweep, launches, attention rate, quantize kernels).
void TestAnalysisParts::retimedOperatorIsAnalyzedOperator()
{
    QFETCH(QString, device);
    QFETCH(QString, model);
    QFETCH(QString, activations);
    QFETCH(QString, weights);
    QFETCH(bool, unquantizedEmbeddings);
    const HardwareSpec &hw = *lib().findHardware(device.toStdString());
    const ModelShape &m = lib().findModel(model.toStdString())->shape;
    Scenario s;
    s.phase = Phase::Generate;
    s.tp = 8;
    s.batch = 8;
    s.seq = 1024;
    s.output = 64;
    s.efficiency = EfficiencyMode::Achievable;
    s.activations = *dtypeFromString(activations.toStdString());
    s.weights = *weightFormatFromString(weights.toStdString());
    s.activationScales = ActivationScales::Dynamic;
    s.unquantizedEmbeddings = unquantizedEmbeddings;
    const Analysis a = analyze(hw, m, s);
    const OperatorRoofs roofs = operatorRoofs(hw, s);
    QVERIFY(!a.operators.empty());
    bool launched = false;
    for (const Operator &op : a.operators) {
        const OperatorTime t = timeOperator(roofs, op);
        QVERIFY2(near(t.timeS, op.timeS), qPrintable(QString::fromUtf8(op.name.data(), op.name.size())));
        launched = launched || t.launchS > 0;
    }
    QVERIFY(launched); // the achievable terms are there to be lost
}

void TestAnalysisParts::causalPairsByHand()
{
    QCOMPARE(detail::causalPairs(0, 4, 1e300), 10.0);
    QCOMPARE(detail::causalPairs(0, 4, 2), 7.0);
    QCOMPARE(detail::causalPairs(3, 2, 2), 4.0);
    QCOMPARE(detail::chunkedCausalPairs(0, 5, 2), 7.0);
    QCOMPARE(detail::chunkedCausalPairs(3, 2, 2), 3.0);
}

void TestAnalysisParts::expertLoadByHand()
{
    detail::ExpertLoad l = detail::expertLoad(1, 8, 2, 8, 1);
    QCOMPARE(l.touched, 2.0);
    QCOMPARE(l.tokens, 2.0);
    l = detail::expertLoad(4, 8, 2, 8, 1);
    QVERIFY(near(l.touched, 5.46875));
    QCOMPARE(l.tokens, 8.0);
    l = detail::expertLoad(1, 8, 2, 1, 8);
    QCOMPARE(l.touched, 1.0);
    QCOMPARE(l.tokens, 1.0);
}

void TestAnalysisParts::bytesPerWeightByHand()
{
    const ModelShape &moe = lib().findModel("gpt-oss-20b")->shape;
    Scenario s;
    s.weights = *weightFormatFromString("int4/g128"); // 4 bits + a 16-bit scale per 128: 0.515625 B
    QCOMPARE(bytesPerWeight(moe, s).weights, 0.515625);
    s.weightZeroPoints = true; // + a 4-bit zero point per 128: 0.00390625 B
    QCOMPARE(bytesPerWeight(moe, s).weights, 0.51953125);
    s.weightZeroPoints = false;
    s.unstructuredSparsity = 0.5; // half the weights, and a 1-bit mask per weight
    QCOMPARE(bytesPerWeight(moe, s).weights, 0.515625 * 0.5 + 0.125);
    s = Scenario{};
    s.expertWeights = *weightFormatFromString("mxfp4");
    QCOMPARE(bytesPerWeight(moe, s).experts, 0.53125);
    QCOMPARE(bytesPerWeight(moe, s).weights, 2.0);
    QCOMPARE(bytesPerWeight(lib().findModel("llama-3-70b")->shape, s).experts, 2.0); // a dense model has none
    s.unquantizedEmbeddings = true;
    s.weights = *weightFormatFromString("fp8");
    QCOMPARE(bytesPerWeight(moe, s).embeddings, 2.0);
}

void TestAnalysisParts::weightsPerDeviceByHand()
{
    const ModelShape &moe = lib().findModel("gpt-oss-20b")->shape;
    ParamCounts p;
    p.total = 1000;
    p.routed = 600;
    p.embedding = 100;
    p.head = 100;
    Scenario s;
    s.tp = 2;
    s.ep = 2;
    QCOMPARE(weightsPerDevice(moe, p, s), 700.0);
    s.expertWeights = *weightFormatFromString("mxfp4");
    QCOMPARE(weightsPerDevice(moe, p, s), 479.6875);
    s.phase = Phase::Train;
    s.dp = 4;
    s.batch = 4;
    s.zeroStage = 3;
    QCOMPARE(weightsPerDevice(moe, p, s), 479.6875 / 4);
}

void TestAnalysisParts::weightsPerDeviceIsTheFootprints()
{
    const ModelShape &m = lib().findModel("gpt-oss-20b")->shape;
    Scenario s;
    s.expertWeights = *weightFormatFromString("mxfp4");
    s.unquantizedEmbeddings = true;
    s.weights = *weightFormatFromString("fp8");
    s.ep = 4;
    const Analysis a = analyze(*lib().findHardware("h100-sxm"), m, s);
    QCOMPARE(weightsPerDevice(m, paramCount(m), s), a.memory.weights);
}

QTEST_APPLESS_MAIN(TestAnalysisParts)
#include "tst_analysisparts.moc"
