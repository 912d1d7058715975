// Tests for core/analysis/limits: the exact largest batch and context that fit one device.
//
// Hand count pinned here (Llama 2 7B, FP16, decode at context 2048 on an A100 80GB, whose HBM holds 80e9 bytes):
//   weights      6,738,415,616 parameters x 2 B                                = 13,476,831,232 B
//   KV cache     2 (K, V) x 32 layers x 32 KV heads x 128 x 2 B = 524,288 B per token,
//                x 2,049 tokens (the context and the token being decoded)      =  1,074,266,112 B per sequence
//   activations  2 x 22,016 (widest: gated FFN, 2 x 11,008) x 2 B              =         88,064 B per sequence
//                + FP32 logits 32,000 x 4 B                                    =        128,000 B per sequence
//   per sequence                                                               =  1,074,482,176 B
//   (80e9 - 13,476,831,232) / 1,074,482,176 = 61.9, so 61 sequences fit and 62 do not.
// A sweep of powers of two would say 32.
#include "core/analysis/limits.h"
#include "core/analysis/sweep.h"
#include "core/io/presets.h"

#include <QtTest>

namespace memwall::core {

class TestLimits : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { m_lib.loadBuiltin(); }
    void llama2_7bOnA100ByHand();
    void limitFitsAndOneMoreDoesNot_data();
    void limitFitsAndOneMoreDoesNot();
    void nothingFits();

private:
    PresetLibrary m_lib;
    const HardwareSpec &hw(const char *id) { return *m_lib.findHardware(id); }
    const ModelShape &model(const char *id) { return m_lib.findModel(id)->shape; }
};

void TestLimits::llama2_7bOnA100ByHand()
{
    Scenario s;
    s.phase = Phase::Decode;
    s.context = 2048;
    const FitLimits f = fitLimits(hw("a100-80gb-sxm"), model("llama-2-7b"), s);
    QCOMPARE(f.batch, int64_t(61));
    QVERIFY(!f.batchUnbounded);
    // At batch 1 the cache may hold (80e9 - 13,476,831,232 - 216,064) / 524,288 = 126,882.46 tokens: context
    // 126,881 plus the token being decoded.
    QCOMPARE(f.context, int64_t(126881));
    const auto rows = sweep(hw("a100-80gb-sxm"), model("llama-2-7b"), s, {parseSweepAxis("batch=1:4096")});
    QCOMPARE(answerBatchSweep(rows).largestFitting, int64_t(32));
}

void TestLimits::limitFitsAndOneMoreDoesNot_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("phase");
    QTest::newRow("Llama 2 70B on MI300X, decode") << "mi300x"
                                                   << "llama-2-70b" << int(Phase::Decode);
    QTest::newRow("Llama 2 13B on H100, prefill") << "h100-sxm"
                                                  << "llama-2-13b" << int(Phase::Prefill);
    QTest::newRow("Mixtral 8x7B on MI300X, generate") << "mi300x"
                                                      << "mixtral-8x7b" << int(Phase::Generate);
    QTest::newRow("Llama 2 7B on RTX 4090, decode") << "rtx-4090"
                                                    << "llama-2-7b" << int(Phase::Decode);
}

void TestLimits::limitFitsAndOneMoreDoesNot()
{
    QFETCH(QString, device);
    QFETCH(QString, model);
    QFETCH(int, phase);
    const HardwareSpec &h = hw(qPrintable(device));
    const ModelShape &m = this->model(qPrintable(model));
    Scenario s;
    s.phase = static_cast<Phase>(phase);
    const FitLimits f = fitLimits(h, m, s);
    QVERIFY(f.batch > 0 && !f.batchUnbounded);
    Scenario at = s;
    at.batch = f.batch;
    QVERIFY(analyze(h, m, at).memory.fits);
    at.batch = f.batch + 1;
    QVERIFY(!analyze(h, m, at).memory.fits);
    QVERIFY(f.context > 0 && !f.contextUnbounded);
    at = s;
    (s.phase == Phase::Decode ? at.context : at.seq) = f.context;
    QVERIFY(analyze(h, m, at).memory.fits);
    (s.phase == Phase::Decode ? at.context : at.seq) = f.context + 1;
    QVERIFY(!analyze(h, m, at).memory.fits);
}

void TestLimits::nothingFits()
{
    // Llama 2 70B in FP16 is 138 GB of weights: not even one sequence fits an 80 GB H100.
    const FitLimits f = fitLimits(hw("h100-sxm"), model("llama-2-70b"), Scenario{});
    QCOMPARE(f.batch, int64_t(0));
    QCOMPARE(f.context, int64_t(0));
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestLimits)
#include "tst_limits.moc"
