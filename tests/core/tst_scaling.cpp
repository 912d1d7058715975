// Scaling laws (Végh, "How deep the machine learning can be", 2020): Amdahl's and Gustafson's speedups, and the
// scenario's own tensor/pipeline-parallel scaling, where communication is the part that does not parallelise.
#include "core/io/presets.h"
#include "core/scaling/scaling.h"

#include <QtTest>

#include <cmath>

using namespace memwall::core;

namespace {

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

const PresetLibrary &library()
{
    static const PresetLibrary lib = [] {
        PresetLibrary p;
        p.loadBuiltin();
        return p;
    }();
    return lib;
}

} // namespace

class TestScaling : public QObject
{
    Q_OBJECT
private slots:
    void amdahl_data();
    void amdahl();
    void gustafson_data();
    void gustafson();
    void efficiency();
    void clamping();
    void tensorScaling_data();
    void tensorScaling();
    void skipsUnsplittable();
    void pipelineScaling();
    void precisionHalving_data();
    void precisionHalving();
    void communicationFractionOfUnsplit();
};

void TestScaling::amdahl_data()
{
    QTest::addColumn<double>("serial");
    QTest::addColumn<double>("devices");
    QTest::addColumn<double>("expected");
    QTest::addColumn<double>("tolerance");
    QTest::newRow("Amdahl: serial 5 % tends to 20x") << 0.05 << 1e6 << 20.0 << 1e-4;
    QTest::newRow("Amdahl: serial 5 %, 16 devices = 9.14x") << 0.05 << 16.0 << 1.0 / (0.05 + 0.95 / 16) << 1e-12;
    QTest::newRow("Amdahl: serial 10 %, 10 devices = 5.26x") << 0.1 << 10.0 << 1.0 / 0.19 << 1e-12;
    QTest::newRow("Amdahl: no serial part scales linearly") << 0.0 << 64.0 << 64.0 << 1e-12;
    QTest::newRow("Amdahl: all serial gives 1x") << 1.0 << 64.0 << 1.0 << 1e-12;
    QTest::newRow("Amdahl: one device gives 1x") << 0.3 << 1.0 << 1.0 << 1e-12;
}

void TestScaling::amdahl()
{
    QFETCH(double, serial);
    QFETCH(double, devices);
    QFETCH(double, expected);
    QFETCH(double, tolerance);
    const double got = amdahlSpeedup(serial, devices);
    QVERIFY2(near(got, expected, tolerance), qPrintable(QString("got %1, expected %2").arg(got).arg(expected)));
}

void TestScaling::gustafson_data()
{
    QTest::addColumn<double>("serial");
    QTest::addColumn<double>("devices");
    QTest::addColumn<double>("expected");
    QTest::newRow("Gustafson: serial 5 %, 100 devices = 95.05x") << 0.05 << 100.0 << 95.05;
    QTest::newRow("Gustafson: serial 0 %, 64 devices = 64x") << 0.0 << 64.0 << 64.0;
    QTest::newRow("Gustafson: all serial gives 1x") << 1.0 << 64.0 << 1.0;
}

void TestScaling::gustafson()
{
    QFETCH(double, serial);
    QFETCH(double, devices);
    QFETCH(double, expected);
    QVERIFY(near(gustafsonSpeedup(serial, devices), expected, 1e-12));
}

void TestScaling::efficiency()
{
    QVERIFY(near(parallelEfficiency(amdahlSpeedup(0.05, 1e6), 1e6), 20.0 / 1e6, 1e-4));
    QVERIFY(near(parallelEfficiency(gustafsonSpeedup(0.05, 100), 100), 0.9505, 1e-12));
    QCOMPARE(parallelEfficiency(5.0, 0.0), 0.0);
}

void TestScaling::clamping()
{
    // Out-of-range inputs are clamped, never NaN.
    QCOMPARE(amdahlSpeedup(-0.5, 8), 8.0);
    QCOMPARE(amdahlSpeedup(2.0, 8), 1.0);
    QCOMPARE(amdahlSpeedup(0.05, 0.0), 1.0);
    QCOMPARE(gustafsonSpeedup(std::nan(""), 8), 8.0);
}

void TestScaling::tensorScaling_data()
{
    QTest::addColumn<QString>("hardware");
    QTest::addColumn<QString>("model");
    QTest::newRow("LLaMA-65B tp 1->8 on A100-80GB: communication share rises") << "a100-80gb-sxm"
                                                                               << "llama-65b";
    QTest::newRow("Llama 2 70B tp 1->8 on H100: communication share rises") << "h100-sxm"
                                                                            << "llama-2-70b";
}

void TestScaling::tensorScaling()
{
    QFETCH(QString, hardware);
    QFETCH(QString, model);
    const auto *hw = library().findHardware(hardware.toStdString());
    const auto *m = library().findModel(model.toStdString());
    QVERIFY(hw && m);
    Scenario s; // decode, batch 1
    const auto pts = scenarioScaling(*hw, m->shape, s, {1, 2, 4, 8}, ParallelKind::Tensor);
    QCOMPARE(pts.size(), std::size_t(4));
    QCOMPARE(pts.front().devices, 1);
    QCOMPARE(pts.front().commShare, 0.0);           // nothing to communicate on one device
    QVERIFY(near(pts.front().speedup, 1.0, 1e-12)); // the reference
    for (std::size_t i = 1; i < pts.size(); ++i) {
        QVERIFY2(pts[i].commShare > pts[i - 1].commShare, qPrintable(QString("tp %1").arg(pts[i].devices)));
        QVERIFY(pts[i].timeS < pts[i - 1].timeS);           // still faster ...
        QVERIFY(pts[i].efficiency < pts[i - 1].efficiency); // ... but less efficient
        QVERIFY(pts[i].computeTimeS < pts[i - 1].computeTimeS);
        QVERIFY(pts[i].commTimeS > pts[i - 1].commTimeS);
        QVERIFY(near(pts[i].computeTimeS + pts[i].commTimeS, pts[i].timeS, 1e-12));
        QVERIFY(near(pts[i].speedup, pts.front().timeS / pts[i].timeS, 1e-12));
    }
    // Communication makes the speedup sub-linear: under 8x at tp 8.
    QVERIFY(pts.back().speedup < 0.99 * pts.back().devices);
}

void TestScaling::skipsUnsplittable()
{
    // LLaMA-65B has 64 heads: 3, 5, 6 and 7 devices cannot share them; 0 and negatives are ignored.
    const auto *hw = library().findHardware("a100-80gb-sxm");
    const auto *m = library().findModel("llama-65b");
    QVERIFY(hw && m);
    const auto pts = scenarioScaling(*hw, m->shape, Scenario{}, {0, -2, 1, 2, 3, 4, 5, 6, 7, 8}, ParallelKind::Tensor);
    QCOMPARE(pts.size(), std::size_t(4));
    QCOMPARE(pts[0].devices, 1);
    QCOMPARE(pts[1].devices, 2);
    QCOMPARE(pts[2].devices, 4);
    QCOMPARE(pts[3].devices, 8);
    // A study starting at 2 devices is relative to 2 devices (speedup 2 there).
    const auto from2 = scenarioScaling(*hw, m->shape, Scenario{}, {2, 4}, ParallelKind::Tensor);
    QCOMPARE(from2.size(), std::size_t(2));
    QVERIFY(near(from2[0].speedup, 2.0, 1e-12));
    QVERIFY(near(from2[0].efficiency, 1.0, 1e-12));
}

void TestScaling::pipelineScaling()
{
    // 80 layers of LLaMA-65B split over 1, 2, 4, 5, 8 stages (3 does not divide 80). Decode with one micro-batch:
    // every stage waits for the one before it, so the critical path never shrinks and the transfers add time.
    const auto *hw = library().findHardware("a100-80gb-sxm");
    const auto *m = library().findModel("llama-65b");
    QVERIFY(hw && m);
    const auto pts = scenarioScaling(*hw, m->shape, Scenario{}, {1, 2, 3, 4, 5, 8}, ParallelKind::Pipeline);
    QCOMPARE(pts.size(), std::size_t(5));
    QCOMPARE(pts[2].devices, 4);
    QCOMPARE(pts[3].devices, 5);
    for (std::size_t i = 1; i < pts.size(); ++i) {
        QVERIFY(pts[i].commShare > pts[i - 1].commShare);
        QVERIFY(pts[i].efficiency < pts[i - 1].efficiency);
    }
}

void TestScaling::precisionHalving_data()
{
    QTest::addColumn<QString>("hardware");
    QTest::addColumn<int>("wide");
    QTest::addColumn<int>("narrow");
    QTest::addColumn<int>("tp");
    QTest::newRow("Halving precision raises the comm share: H100 fp16 -> fp8, tp 8")
        << "h100-sxm" << int(DType::FP16) << int(DType::FP8) << 8;
    QTest::newRow("Halving precision raises the comm share: A100 fp32 -> fp16, tp 4")
        << "a100-80gb-sxm" << int(DType::FP32) << int(DType::FP16) << 4;
}

void TestScaling::precisionHalving()
{
    QFETCH(QString, hardware);
    QFETCH(int, wide);
    QFETCH(int, narrow);
    QFETCH(int, tp);
    const auto *hw = library().findHardware(hardware.toStdString());
    const auto *m = library().findModel("llama-2-70b");
    QVERIFY(hw && m);
    Scenario s;
    s.tp = tp;
    const auto c =
        memwall::core::precisionHalving(*hw, m->shape, s, static_cast<DType>(wide), static_cast<DType>(narrow));
    QCOMPARE(c.widePoint.devices, tp);
    // Compute (operator) time falls by a large factor ...
    QVERIFY(c.narrowPoint.computeTimeS < 0.6 * c.widePoint.computeTimeS);
    // ... communication does not (decode messages are latency-bound: within 2 %) ...
    QVERIFY(c.narrowPoint.commTimeS > 0.98 * c.widePoint.commTimeS);
    QVERIFY(c.narrowPoint.commTimeS <= c.widePoint.commTimeS);
    // ... so communication takes a larger share of the step.
    QVERIFY(c.narrowPoint.commShare > c.widePoint.commShare);
}

void TestScaling::communicationFractionOfUnsplit()
{
    const auto *hw = library().findHardware("h100-sxm");
    const auto *m = library().findModel("llama-2-7b");
    QVERIFY(hw && m);
    const Analysis a = analyze(*hw, m->shape, Scenario{});
    QCOMPARE(communicationFraction(a), 0.0);
    QCOMPARE(communicationFraction(Analysis{}), 0.0);
}

QTEST_GUILESS_MAIN(TestScaling)
#include "tst_scaling.moc"
