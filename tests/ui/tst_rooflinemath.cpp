// Pins the roofline chart's arithmetic: ceilings, slopes, ridge points, ranges, marker sizes and labels.
#include "ui/charts/rooflinemath.h"

#include "core/io/presets.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace memwall;
namespace rm = memwall::ui::rooflinemath;

namespace {

const core::PresetLibrary &library()
{
    static const auto lib = [] {
        auto l = std::make_shared<core::PresetLibrary>();
        l->loadBuiltin();
        return l;
    }();
    return *lib;
}

const core::HardwareSpec &device(const char *id)
{
    const core::HardwareSpec *hw = library().findHardware(id);
    if (!hw)
        qFatal("missing preset %s", id);
    return *hw;
}

bool near(double a, double b, double rel = 1e-3) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

} // namespace

class TestRooflineMath : public QObject
{
    Q_OBJECT
private slots:
    void ridge_data();
    void ridge();
    void ceilingsCoverEverySupportedPrecision_data();
    void ceilingsCoverEverySupportedPrecision();
    void slopesFastestFirst();
    void decadeRange_data();
    void decadeRange();
    void rangesIncludeKneesAndPoints();
    void markerSize_data();
    void markerSize();
    void zeroIntensity();
    void labels();
};

void TestRooflineMath::ridge_data()
{
    QTest::addColumn<QString>("hw");
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<double>("expected");
    // peak / bandwidth of main memory, from the datasheet numbers in presets/hardware/
    QTest::newRow("H100 FP16 ridge = 295 FLOP/byte") << "h100-sxm"
                                                     << "fp16" << 989.4e12 / 3.35e12;
    QTest::newRow("H100 FP8 ridge = 591 FLOP/byte") << "h100-sxm"
                                                    << "fp8" << 1978.9e12 / 3.35e12;
    QTest::newRow("A100 80GB FP16 ridge = 153 FLOP/byte") << "a100-80gb-sxm"
                                                          << "fp16" << 312e12 / 2.039e12;
    QTest::newRow("H200 FP16 ridge = 206 FLOP/byte") << "h200-sxm"
                                                     << "fp16" << 989.4e12 / 4.8e12;
}

void TestRooflineMath::ridge()
{
    QFETCH(QString, hw);
    QFETCH(QString, dtype);
    QFETCH(double, expected);
    const core::HardwareSpec &d = device(hw.toLatin1().constData());
    const core::DType t = *core::dtypeFromString(dtype.toStdString());
    double mainBw = 0;
    for (const rm::Slope &s : rm::slopes(d))
        if (s.main)
            mainBw = s.bytesPerS;
    QVERIFY(near(rm::ridgePoint(d.peak(t), mainBw), expected));
    QVERIFY(near(rm::ridgePoint(d.peak(t), mainBw), d.ridge(t)));
    // The roofline bends exactly there.
    QVERIFY(near(rm::attainable(expected, d.peak(t), mainBw), d.peak(t)));
    QVERIFY(near(rm::attainable(expected / 10, d.peak(t), mainBw), d.peak(t) / 10));
}

void TestRooflineMath::ceilingsCoverEverySupportedPrecision_data()
{
    QTest::addColumn<QString>("hw");
    QTest::addColumn<int>("distinct");
    // H100: FP64 = FP32 66.9 T, TF32 495 T, BF16 = FP16 989 T, FP8 = INT8 1979 T -> 4 distinct peaks
    QTest::newRow("H100 SXM: 7 precisions on 4 ceilings") << "h100-sxm" << 4;
    QTest::newRow("A100 80GB") << "a100-80gb-sxm" << -1;
    QTest::newRow("RTX 4090") << "rtx-4090" << -1;
    QTest::newRow("Xeon Gold 6242") << "xeon-gold-6242" << -1;
}

void TestRooflineMath::ceilingsCoverEverySupportedPrecision()
{
    QFETCH(QString, hw);
    QFETCH(int, distinct);
    const core::HardwareSpec &d = device(hw.toLatin1().constData());
    const auto ceilings = rm::ceilings(d, d.computeType(core::DType::FP16));
    int supported = 0, covered = 0, active = 0;
    for (core::DType t : core::kAllDTypes)
        supported += d.supports(t) ? 1 : 0;
    for (std::size_t i = 0; i < ceilings.size(); ++i) {
        covered += static_cast<int>(ceilings[i].dtypes.size());
        active += ceilings[i].active ? 1 : 0;
        for (core::DType t : ceilings[i].dtypes)
            QVERIFY(near(d.peak(t), ceilings[i].flopsPerS, 1e-9));
        if (i > 0)
            QVERIFY(ceilings[i - 1].flopsPerS > ceilings[i].flopsPerS); // highest first, no duplicates
    }
    QCOMPARE(covered, supported);
    QCOMPARE(active, 1);
    if (distinct > 0)
        QCOMPARE(static_cast<int>(ceilings.size()), distinct);
    // Efficiency scales every ceiling.
    const auto half = rm::ceilings(d, core::DType::FP16, 0.5);
    QCOMPARE(half.size(), ceilings.size());
    QVERIFY(near(half.front().flopsPerS, ceilings.front().flopsPerS / 2));
}

void TestRooflineMath::slopesFastestFirst()
{
    const auto slopes = rm::slopes(device("h100-sxm"));
    QCOMPARE(slopes.size(), std::size_t(4));
    QCOMPARE(slopes.front().shortName(), QStringLiteral("SRAM"));
    QCOMPARE(slopes[1].shortName(), QStringLiteral("L2"));
    QCOMPARE(slopes[2].shortName(), QStringLiteral("HBM"));
    QVERIFY(slopes[2].main);
    QCOMPARE(slopes[3].shortName(), QStringLiteral("Host link"));
    const auto eff = rm::slopes(device("h100-sxm"), 0.8866);
    QVERIFY(near(eff[2].bytesPerS, 3.35e12 * 0.8866));
}

void TestRooflineMath::decadeRange_data()
{
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::newRow("ridge 295 with points 0.5..300") << 0.5 << 300.0 << 0.1 << 1000.0;
    QTest::newRow("exact decades get a margin") << 1.0 << 100.0 << 0.1 << 1000.0;
    QTest::newRow("H100 FLOP/s 3.35e10..1.98e15") << 3.35e10 << 1.9789e15 << 1e10 << 1e16;
    QTest::newRow("swapped bounds") << 300.0 << 0.5 << 0.1 << 1000.0;
    QTest::newRow("zero falls back to 1..10") << 0.0 << 10.0 << 1.0 << 10.0;
}

void TestRooflineMath::decadeRange()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(double, min);
    QFETCH(double, max);
    const rm::LogRange r = rm::decadeRange(lo, hi);
    QVERIFY2(near(r.min, min, 1e-9), qPrintable(QString::number(r.min)));
    QVERIFY2(near(r.max, max, 1e-9), qPrintable(QString::number(r.max)));
}

void TestRooflineMath::rangesIncludeKneesAndPoints()
{
    const core::HardwareSpec &d = device("h100-sxm");
    const auto ceilings = rm::ceilings(d, core::DType::FP16);
    const auto slopes = rm::slopes(d);
    const std::vector<rm::PlotPoint> points = {
        {rm::kMinIntensity, rm::kMinIntensity * 3.35e12}, {1.0, 3.35e12}, {7.97, 2.67e13}};
    const rm::Ranges r = rm::rooflineRanges(ceilings, slopes, points);
    for (const rm::PlotPoint &p : points) {
        QVERIFY(p.intensity > r.x.min && p.intensity < r.x.max);
        QVERIFY(p.flopsPerS > r.y.min && p.flopsPerS < r.y.max);
    }
    for (const rm::Ceiling &c : ceilings) {
        QVERIFY(c.flopsPerS < r.y.max && c.flopsPerS > r.y.min);
        for (const rm::Slope &s : slopes)
            if (s.kind != core::MemoryKind::Host)
                QVERIFY(rm::ridgePoint(c.flopsPerS, s.bytesPerS) < r.x.max);
    }
    // decade-rounded
    QVERIFY(near(std::log10(r.x.min), std::round(std::log10(r.x.min)), 1e-9));
    QVERIFY(near(std::log10(r.y.max), std::round(std::log10(r.y.max)), 1e-9));
    QVERIFY(near(r.x.min, 1e-3, 1e-9)); // 0.01 with a margin
    QVERIFY(near(r.x.max, 1e4, 1e-9));  // FP8 591 and FP32 / host link 1045 with a margin
    QVERIFY(near(r.y.max, 1e16, 1e-9)); // 1.98 PFLOP/s
    // never more than 8 decades of FLOP/s
    const rm::Ranges deep = rm::rooflineRanges(ceilings, slopes, {{0.01, 1.0}});
    QVERIFY(deep.y.decades() <= 8.0 + 1e-9);
}

void TestRooflineMath::markerSize_data()
{
    QTest::addColumn<double>("share");
    QTest::addColumn<double>("px");
    QTest::newRow("whole step = 40 px") << 1.0 << 40.0;
    QTest::newRow("a quarter = half the diameter") << 0.25 << 20.0;
    QTest::newRow("tiny share clamps to 6 px") << 1e-6 << 6.0;
    QTest::newRow("zero clamps to 6 px") << 0.0 << 6.0;
    QTest::newRow("over 1 clamps to 40 px") << 2.0 << 40.0;
}

void TestRooflineMath::markerSize()
{
    QFETCH(double, share);
    QFETCH(double, px);
    QVERIFY(near(rm::markerSize(share), px, 1e-9));
    // area proportional: four times the share, twice the diameter (inside the clamp)
    QVERIFY(near(rm::markerSize(0.4) / rm::markerSize(0.1), 2.0, 1e-9));
}

void TestRooflineMath::zeroIntensity()
{
    // kv_write and embed: bytes but no FLOPs -> drawn at the stated minimum on the main-memory slope
    QCOMPARE(rm::plottedIntensity(0.0, 655360.0), rm::kMinIntensity);
    QCOMPARE(rm::plottedIntensity(0.0), rm::kMinIntensity);
    QVERIFY(near(rm::plottedPerformance(0.0, 1e-6, 3.35e12), rm::kMinIntensity * 3.35e12));
    // fused softmax: FLOPs but no bytes -> drawn at the stated maximum
    QCOMPARE(rm::plottedIntensity(1e9, 0.0), rm::kMaxIntensity);
    // ordinary operators keep their intensity and achieved FLOP/s
    QVERIFY(near(rm::plottedIntensity(13421772800.0, 13424721920.0), 0.99978));
    QVERIFY(near(rm::plottedPerformance(2e12, 2.0, 3.35e12), 1e12));
    QCOMPARE(rm::plottedPerformance(1.0, 0.0, 3.35e12), 0.0);
    // a communication operator: 98.2 GB over the link in 0.979 s (DeepSeek-V3's dispatch, DEP8 on 8 H200) moved
    // 100.3 GB/s, drawn on that slope at the minimum intensity: 0.01 x 100.3e9 FLOP/s
    QVERIFY(near(rm::plottedLinkPerformance(98.2e9, 0.979), rm::kMinIntensity * 98.2e9 / 0.979));
    QVERIFY(near(rm::plottedLinkPerformance(98.2e9, 0.979), 1.003e9));
    QCOMPARE(rm::plottedLinkPerformance(0.0, 0.979), 0.0);
    QCOMPARE(rm::plottedLinkPerformance(98.2e9, 0.0), 0.0);
}

void TestRooflineMath::labels()
{
    // Roof labels use the one formatter (ui/util/text.h): H100 SXM HBM3 3.35e12 B/s = 3.35 TB/s, its PCIe 5 host link
    // 64e9 B/s = 64 GB/s, its dense FP16 989.4e12 FLOP/s = 989 TFLOP/s (shared with BF16).
    const auto slopes = rm::slopes(device("h100-sxm"));
    QCOMPARE(slopes[2].label(), QStringLiteral("HBM 3.35 TB/s"));
    QCOMPARE(slopes[3].label(), QStringLiteral("Host link 64 GB/s"));
    const auto ceilings = rm::ceilings(device("h100-sxm"), core::DType::FP16);
    const auto fp16 = std::find_if(ceilings.begin(), ceilings.end(), [](const rm::Ceiling &c) {
        return std::find(c.dtypes.begin(), c.dtypes.end(), core::DType::FP16) != c.dtypes.end();
    });
    QVERIFY(fp16 != ceilings.end());
    QCOMPARE(fp16->label(), QStringLiteral("BF16 · FP16 989 TFLOP/s"));
}

QTEST_GUILESS_MAIN(TestRooflineMath)
#include "tst_rooflinemath.moc"
