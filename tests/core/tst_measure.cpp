// Measuring this computer's roofline (core/measure/measure.h). One short run (1.5 s budget, 2 threads, 64 MiB of
// triad buffers) is shared by the structural checks: rates finite and positive, intensities rising from
// matrix-vector to matrix-matrix, each kernel's FLOPs and bytes equal to the hand count of its shape, every GEMM at or
// under the reported peak (the best of them), cancellation, the JSON contract and the measured device. Nothing here
// compares one timing with another or with the clock: on two shared cores another process may slow any stage, so a
// check such as "the matrix-vector rate is under the triad's bandwidth" would depend on the machine's load.
#include "core/measure/measure.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

using memwall::core::DType;
using memwall::core::HardwareSpec;
using memwall::core::MeasuredKernel;
using memwall::core::MeasureOptions;
using memwall::core::MeasureResult;
using memwall::core::MemoryKind;

namespace {

MeasureOptions smallRun()
{
    MeasureOptions o;
    o.budgetSeconds = 1.5;
    o.threads = 2;
    o.bandwidthBytes = std::size_t{64} << 20;
    return o;
}

bool isMatvec(const MeasuredKernel &k) { return k.name.rfind("matvec", 0) == 0; }
bool isGemm(const MeasuredKernel &k) { return k.name.rfind("gemm", 0) == 0; }

} // namespace

class TestMeasure : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void ratesArePositive();
    void intensitiesIncrease();
    void countsMatchTheShapes();
    void gemmsAtOrUnderPeak();
    void progressReported();
    void cancelImmediately();
    void cancelMidway();
    void jsonContract();
    void measuredDevice();

private:
    MeasureResult m_result;
    std::vector<double> m_progress;
    std::vector<std::string> m_stages;
};

void TestMeasure::initTestCase()
{
    m_result = memwall::core::measureMachine(smallRun(), [this](double p, std::string_view stage) {
        m_progress.push_back(p);
        m_stages.emplace_back(stage);
        return true;
    });
    QVERIFY(!m_result.cancelled);
    for (const MeasuredKernel &k : m_result.points)
        qInfo("%-20s %8.3f FLOP/B %10.2f GFLOP/s", k.name.c_str(), k.arithmeticIntensity(), k.flopsPerS() / 1e9);
    qInfo("bandwidth %.2f GB/s, peak %.2f GFLOP/s, %.2f s", m_result.memoryBandwidthBytesPerS / 1e9,
          m_result.peakFlops / 1e9, m_result.elapsedS);
}

void TestMeasure::ratesArePositive()
{
    QVERIFY(std::isfinite(m_result.memoryBandwidthBytesPerS));
    QVERIFY(m_result.memoryBandwidthBytesPerS > 0.0);
    QVERIFY(std::isfinite(m_result.peakFlops));
    QVERIFY(m_result.peakFlops > 0.0);
    QCOMPARE(m_result.threads, 2);
    QVERIFY(m_result.elapsedS > 0.0);
    QVERIFY(!m_result.points.empty());
    for (const MeasuredKernel &k : m_result.points) {
        QVERIFY2(k.flops > 0 && k.bytes > 0 && k.seconds > 0, k.name.c_str());
        QVERIFY2(std::isfinite(k.flopsPerS()) && k.flopsPerS() > 0, k.name.c_str());
        QVERIFY2(std::isfinite(k.arithmeticIntensity()) && k.arithmeticIntensity() > 0, k.name.c_str());
    }
    // The peak is the best GEMM point.
    double bestGemm = 0.0;
    for (const MeasuredKernel &k : m_result.points)
        if (isGemm(k))
            bestGemm = std::max(bestGemm, k.flopsPerS());
    QCOMPARE(m_result.peakFlops, bestGemm);
}

void TestMeasure::intensitiesIncrease()
{
    const auto &pts = m_result.points;
    const auto matvecs = std::count_if(pts.begin(), pts.end(), isMatvec);
    const auto gemms = std::count_if(pts.begin(), pts.end(), isGemm);
    QVERIFY(matvecs >= 2);
    QVERIFY(gemms >= 3);
    QCOMPARE(static_cast<std::size_t>(matvecs + gemms), pts.size());
    for (std::size_t i = 1; i < pts.size(); ++i)
        QVERIFY2(pts[i].arithmeticIntensity() >= pts[i - 1].arithmeticIntensity(), pts[i].name.c_str());
    // Matrix-vector ~0.5 FLOP/byte (FP32: 2 FLOPs per 4-byte matrix element).
    double maxMatvec = 0.0, minGemm = 1e300;
    for (const MeasuredKernel &k : pts) {
        if (isMatvec(k)) {
            QVERIFY(k.arithmeticIntensity() > 0.45 && k.arithmeticIntensity() <= 0.5);
            maxMatvec = std::max(maxMatvec, k.arithmeticIntensity());
        } else {
            minGemm = std::min(minGemm, k.arithmeticIntensity());
        }
    }
    QVERIFY(minGemm > 10.0 * maxMatvec);
}

// matvec-MxN: y = A x in FP32, 2 m n FLOPs and 4 (m n + m + n) bytes (A, x and y once each); gemm-N: C = A B with
// N x N matrices, 2 N^3 FLOPs and 3 x 4 N^2 bytes.
void TestMeasure::countsMatchTheShapes()
{
    for (const MeasuredKernel &k : m_result.points) {
        double m = 0, n = 0;
        if (isMatvec(k)) {
            QVERIFY2(std::sscanf(k.name.c_str(), "matvec-%lfx%lf", &m, &n) == 2, k.name.c_str());
            QCOMPARE(k.flops, 2 * m * n);
            QCOMPARE(k.bytes, 4 * (m * n + m + n));
        } else {
            QVERIFY2(std::sscanf(k.name.c_str(), "gemm-%lf", &n) == 1, k.name.c_str());
            QCOMPARE(k.flops, 2 * n * n * n);
            QCOMPARE(k.bytes, 12 * n * n);
        }
    }
}

void TestMeasure::gemmsAtOrUnderPeak()
{
    for (const MeasuredKernel &k : m_result.points)
        if (isGemm(k))
            QVERIFY2(k.flopsPerS() <= m_result.peakFlops, k.name.c_str());
}

void TestMeasure::progressReported()
{
    QVERIFY(!m_progress.empty());
    QVERIFY(std::is_sorted(m_progress.begin(), m_progress.end()));
    QVERIFY(m_progress.front() >= 0.0);
    QCOMPARE(m_progress.back(), 1.0);
    QCOMPARE(m_stages.back(), std::string("done"));
    for (const char *stage : {"bandwidth", "matrix-vector", "matrix-matrix"})
        QVERIFY2(std::find(m_stages.begin(), m_stages.end(), stage) != m_stages.end(), stage);
}

void TestMeasure::cancelImmediately()
{
    MeasureOptions o = smallRun();
    o.budgetSeconds = 30.0; // a run that is not cancelled would take about this long
    int calls = 0;
    const MeasureResult r = memwall::core::measureMachine(o, [&calls](double, std::string_view) {
        ++calls;
        return false;
    });
    QVERIFY(r.cancelled);
    QCOMPARE(calls, 1); // never asked again once cancelled, not even with "done"
    QVERIFY(r.points.empty());
}

void TestMeasure::cancelMidway()
{
    MeasureOptions o = smallRun();
    o.budgetSeconds = 30.0;
    bool cancelledOnce = false;
    int callsAfterCancel = 0;
    const MeasureResult r = memwall::core::measureMachine(o, [&](double, std::string_view stage) {
        if (cancelledOnce) {
            ++callsAfterCancel;
            return false;
        }
        if (stage == "matrix-vector") {
            cancelledOnce = true;
            return false;
        }
        return true;
    });
    QVERIFY(r.cancelled);
    QCOMPARE(callsAfterCancel, 0);
    QVERIFY(r.memoryBandwidthBytesPerS > 0.0); // the bandwidth stage completed before the cancel
    QCOMPARE(r.peakFlops, 0.0);
    QVERIFY(std::none_of(r.points.begin(), r.points.end(), isGemm));
}

void TestMeasure::jsonContract()
{
    const nlohmann::json j = memwall::core::toJson(m_result);
    QVERIFY(j.is_object());
    QCOMPARE(j.size(), std::size_t{6});
    QVERIFY(j.at("memory_bandwidth_bytes_per_s").is_number());
    QVERIFY(j.at("peak_flops").is_number());
    QVERIFY(j.at("threads").is_number_integer());
    QVERIFY(j.at("elapsed_s").is_number());
    QVERIFY(j.at("cancelled").is_boolean());
    QCOMPARE(j.at("memory_bandwidth_bytes_per_s").get<double>(), m_result.memoryBandwidthBytesPerS);
    QCOMPARE(j.at("peak_flops").get<double>(), m_result.peakFlops);
    const auto &points = j.at("points");
    QVERIFY(points.is_array());
    QCOMPARE(points.size(), m_result.points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto &p = points[i];
        QCOMPARE(p.size(), std::size_t{6});
        QCOMPARE(p.at("name").get<std::string>(), m_result.points[i].name);
        for (const char *key : {"arithmetic_intensity", "flops_per_s", "flops", "bytes", "seconds"})
            QVERIFY2(p.at(key).is_number() && p.at(key).get<double>() > 0, key);
        QCOMPARE(p.at("flops_per_s").get<double>(), m_result.points[i].flopsPerS());
        QCOMPARE(p.at("arithmetic_intensity").get<double>(), m_result.points[i].arithmeticIntensity());
    }
}

void TestMeasure::measuredDevice()
{
    const HardwareSpec hw = memwall::core::measuredDevice(m_result);
    QCOMPARE(hw.id, std::string("this-computer"));
    QCOMPARE(hw.name, std::string("This computer (measured)"));
    QCOMPARE(hw.category, std::string("cpu"));
    QCOMPARE(hw.peak(DType::FP32), m_result.peakFlops);
    QCOMPARE(hw.memory.size(), std::size_t{1});
    QVERIFY(hw.memory[0].kind == MemoryKind::Dram);
    QCOMPARE(hw.mainMemory().bandwidthBytesPerS.value, m_result.memoryBandwidthBytesPerS);
#if defined(__linux__)
    QVERIFY(hw.mainMemory().capacityBytes.value > 0);
#endif
    QCOMPARE(hw.ridge(DType::FP32), m_result.peakFlops / m_result.memoryBandwidthBytesPerS);
    const std::string prefix = "measured by memwall measure on ";
    auto check = [&](const memwall::core::Sourced &s) {
        QVERIFY2(s.source.rfind(prefix, 0) == 0, s.source.c_str());
        QCOMPARE(s.source.size(), prefix.size() + 10); // YYYY-MM-DD
    };
    check(*hw.peakFlops[memwall::core::index(DType::FP32)]);
    check(hw.memory[0].capacityBytes);
    check(hw.memory[0].bandwidthBytesPerS);
    check(hw.year);
    QVERIFY(!hw.tdpW); // a measurement knows no power figure
}

QTEST_GUILESS_MAIN(TestMeasure)
#include "tst_measure.moc"
