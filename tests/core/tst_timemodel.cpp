// The achievable time model (issue #16): each kernel's time is max(F / (P x eta_gemm(size)), B / (BW x eta_mem)) plus
// a launch cost, and each all-reduce the measured latency plus its bytes over the measured bus bandwidth. These tests
// give a device round, made-up microbenchmark figures so that every expected time is a count written out here; the
// presets' own figures are pinned to their sources in tests/presets/tst_hardwarepresets.cpp.
#include "core/analysis/analysis.h"
#include "core/io/presets.h"

#include "../builtinpresets.h"

#include <QtTest>

#include <cmath>

using namespace memwall::core;
using namespace testpresets;

namespace {
/// The H100 SXM preset (989.4 TFLOP/s FP16, 3.35 TB/s) with no microbenchmark figures at all.
HardwareSpec bareH100()
{
    HardwareSpec hw = *lib().findHardware("h100-sxm");
    hw.achievable = AchievableModel{};
    return hw;
}
Sourced made(double v) { return Sourced{v, "made up for this test"}; }
const Operator &op(const Analysis &a, std::string_view name)
{
    for (const auto &o : a.operators)
        if (o.name == name)
            return o;
    qFatal("no operator %s", std::string(name).c_str());
}
bool near(double a, double b, double rel = 1e-9) { return std::fabs(a - b) <= rel * std::fabs(b); }
} // namespace

class TestTimeModel : public QObject
{
    Q_OBJECT
private slots:
    void gemmFractionFollowsTheSweep_data()
    {
        QTest::addColumn<double>("size");
        QTest::addColumn<double>("expected");
        // Points 1024 -> 0.40 and 4096 -> 0.80, interpolated in log(size): 2048 lies halfway.
        QTest::newRow("below the sweep: its first point") << 256.0 << 0.40;
        QTest::newRow("1024: the first point") << 1024.0 << 0.40;
        QTest::newRow("2048: halfway in log size") << 2048.0 << 0.60;
        QTest::newRow("2^(35/3) = 3251: 5/6 of the way") << std::pow(2.0, 35.0 / 3.0) << 0.40 + 0.40 * 5.0 / 6.0;
        QTest::newRow("above the sweep: its last point") << 65536.0 << 0.80;
    }
    void gemmFractionFollowsTheSweep()
    {
        QFETCH(double, size);
        QFETCH(double, expected);
        AchievableModel m;
        m.computeFraction = made(0.9);
        m.gemm[index(DType::BF16)] = {{1024, made(0.40)}, {4096, made(0.80)}};
        QVERIFY(near(m.gemmFraction(DType::BF16, size), expected));
        // FP16 and BF16 run at one rate on every device: a sweep of one serves the other.
        QVERIFY(near(m.gemmFraction(DType::FP16, size), expected));
        // A format without a sweep falls back to the flat fraction of the largest GEMMs.
        QCOMPARE(m.gemmFraction(DType::FP8, size), 0.9);
    }

    // Prefill of 2048 tokens of Llama-2-7B: attn.out_proj multiplies 2048 x 4096 by 4096 x 4096, 2mnk =
    // 2 x 2^11 x 2^12 x 2^12 = 2^36 FLOPs per layer. Its equivalent square size is cbrt(2^35) = 2^(35/3) = 3251, 5/6 of
    // the way from 1024 to 4096 in log size, so it reaches 0.40 + 0.40 x 5/6 = 0.7333 of 989.4 TFLOP/s. It is
    // compute-bound: 2^36 FLOPs over 2 x 4096^2 B of weights + 2 x 2048 x 4096 x 2 B of activations = 1024 FLOP/B,
    // above the ridge of 295.
    void prefillMatmulRunsAtItsSizesFraction()
    {
        HardwareSpec hw = bareH100();
        hw.achievable.gemm[index(DType::FP16)] = {{1024, made(0.40)}, {4096, made(0.80)}};
        Scenario s;
        s.phase = Phase::Prefill;
        s.seq = 2048;
        s.efficiency = EfficiencyMode::Achievable;
        const Analysis a = analyze(hw, model("llama-2-7b"), s);
        const Operator &o = op(a, "attn.out_proj");
        QVERIFY(o.bound == Bound::Compute);
        QCOMPARE(o.flops, 32 * std::pow(2.0, 36));
        QVERIFY2(near(o.timeS, 32 * std::pow(2.0, 36) / (989.4e12 * (0.40 + 0.40 * 5.0 / 6.0))),
                 qPrintable(QString::number(o.timeS)));
        // An explicit compute efficiency replaces the sweep: 0.5 for every matmul.
        s.computeEfficiency = 0.5;
        const Analysis flat = analyze(hw, model("llama-2-7b"), s);
        QVERIFY(near(op(flat, "attn.out_proj").timeS, 32 * std::pow(2.0, 36) / (989.4e12 * 0.5)));
    }

    void eachKernelPaysItsLaunch_data()
    {
        QTest::addColumn<int>("execution");
        QTest::addColumn<bool>("fused");
        QTest::addColumn<double>("expected");
        QTest::addColumn<bool>("eagerFigure");
        // Llama-2-7B decode, per layer: attn.norm, qkv_proj, rope, kv_write, the attention kernel (score, softmax and
        // context fused into one), out_proj, residual, ffn.norm, up, gate, act, down, residual = 13 kernels; x 32
        // layers = 416, plus embed, final_norm and lm_head = 419. Unfused attention is 3 kernels: 15 x 32 + 3 = 483.
        QTest::newRow("graphs, fused: 419 x 5 us") << int(Execution::Graphs) << true << 419 * 5e-6 << true;
        QTest::newRow("eager, fused: 419 x 20 us") << int(Execution::Eager) << true << 419 * 20e-6 << true;
        QTest::newRow("graphs, unfused: 483 x 5 us") << int(Execution::Graphs) << false << 483 * 5e-6 << true;
        // A device with the graph's figure only: a kernel launched on its own costs at least that much.
        QTest::newRow("eager without its figure: 419 x 5 us") << int(Execution::Eager) << true << 419 * 5e-6 << false;
    }
    void eachKernelPaysItsLaunch()
    {
        QFETCH(int, execution);
        QFETCH(bool, fused);
        QFETCH(double, expected);
        QFETCH(bool, eagerFigure);
        HardwareSpec hw = bareH100();
        hw.achievable.kernelGraphsS = made(5e-6);
        if (eagerFigure)
            hw.achievable.kernelEagerS = made(20e-6);
        Scenario s;
        s.fusedAttention = fused;
        s.execution = static_cast<Execution>(execution);
        const Analysis ideal = analyze(hw, model("llama-2-7b"), s);
        QCOMPARE(ideal.totals.launchS, 0.0);
        s.efficiency = EfficiencyMode::Achievable;
        const Analysis a = analyze(hw, model("llama-2-7b"), s);
        QVERIFY2(near(a.totals.launchS, expected), qPrintable(QString::number(a.totals.launchS / 5e-6)));
        // With no other figure the device is ideal otherwise: the launches are the whole difference.
        QVERIFY(near(a.totals.timeS - ideal.totals.timeS, expected, 1e-6));
    }

    // Llama-2-70B decode at batch 1 on 8 devices: two all-reduces per layer of one token's hidden state, 8192 x 2 B =
    // 16,384 B. Each device sends 2 x 7/8 of it, 28,672 B. With a measured 20 us latency and 400 GB/s bus bandwidth:
    // 160 x (20 us + 28,672 B / 400 GB/s) = 160 x 20.07168 us = 3.2114688 ms.
    void allReduceFollowsTheMeasuredCurve()
    {
        HardwareSpec hw = bareH100();
        hw.achievable.allReduceLatencyS = made(20e-6);
        hw.achievable.allReduceBusBandwidthBytesPerS = made(400e9);
        Scenario s;
        s.tp = 8;
        s.efficiency = EfficiencyMode::Achievable;
        const Analysis a = analyze(hw, model("llama-2-70b"), s);
        QVERIFY2(near(a.comm.timeS, 160 * (20e-6 + 28672 / 400e9)), qPrintable(QString::number(a.comm.timeS)));
        QCOMPARE(a.comm.tpBytes, 160 * 28672.0);
        // The ideal roofline keeps the link's datasheet bandwidth, 450 GB/s, and its 3.5 us latency.
        s.efficiency = EfficiencyMode::Ideal;
        const Analysis ideal = analyze(hw, model("llama-2-70b"), s);
        QVERIFY(near(ideal.comm.timeS, 160 * (3.5e-6 + 28672 / 450e9)));
    }

    // A sweep measured on 4 devices (each sends 2 x 3/4 = 1.5 x the message): 1,000 B at 0.1 GB/s, 100,000 B at
    // 10 GB/s, 1e9 B at 100 GB/s (the bus bandwidth every byte then pays). What each point took beyond its bytes at
    // 100 GB/s is its fixed cost:
    //   1,000 B:   1.5 x 1,000 x (1/1e8 - 1/1e11) s   = 15 us x 0.999 = 14.985 us
    //   100,000 B: 1.5 x 1e5 x (1/1e10 - 1/1e11) s    = 15 us x 0.9   = 13.5 us
    //   1e9 B:     0
    // 10,000 B is halfway in log size between the first two: (14.985 + 13.5) / 2 = 14.2425 us. Below the first size
    // the first point's cost holds, above the last the last's.
    void allReduceSweepGivesTheFixedCostBySize_data()
    {
        QTest::addColumn<double>("bytes");
        QTest::addColumn<double>("expected");
        QTest::newRow("a measured size") << 1000.0 << 14.985e-6;
        QTest::newRow("the middle size") << 1e5 << 13.5e-6;
        QTest::newRow("between two sizes") << 1e4 << 14.2425e-6;
        QTest::newRow("below the sweep") << 10.0 << 14.985e-6;
        QTest::newRow("the largest size") << 1e9 << 0.0;
        QTest::newRow("above the sweep") << 1e12 << 0.0;
    }
    void allReduceSweepGivesTheFixedCostBySize()
    {
        QFETCH(double, bytes);
        QFETCH(double, expected);
        AchievableModel m;
        m.allReduceSweep = AllReduceSweep{4, {{1000, 1e8}, {1e5, 1e10}, {1e9, 1e11}}, "hand-made"};
        QVERIFY(m.hasAllReduce());
        QCOMPARE(m.allReduceBusBandwidth(), 1e11);
        QVERIFY2(std::abs(m.allReduceLatencyAt(bytes) - expected) < 1e-12,
                 qPrintable(QString::number(m.allReduceLatencyAt(bytes) * 1e6, 'g', 10)));
    }

    // The H100 preset's published sweep (nccl-tests on 8 H100s: 16 KiB at 0.95 GB/s of bus bandwidth). Llama-2-70B
    // decode at batch 1 and tp 8 all-reduces one token's hidden state, 8,192 x 2 B = 16,384 B, twice in each of 80
    // layers. On 8 devices the model gives each such all-reduce exactly its measured time,
    // 16,384 B x 2 x 7/8 / 0.95 GB/s = 30.181 us: 160 x 30.181 us = 4.829 ms.
    // Its custom sweep (TensorRT-LLM's all-reduce on 8 H100s, aiconfigurator's table): 8,192 bf16 elements = 16,384 B
    // took 3.56 us, kept as 16,384 x 2 x 7/8 / 3.56 us = 8.05683 GB/s of bus bandwidth: 160 x 3.559 us = 0.569 ms.
    void allReduceTakesThePublishedTimeAtAMeasuredSize()
    {
        const HardwareSpec &hw = *lib().findHardware("h100-sxm");
        QVERIFY(hw.achievable.allReduceSweep);
        Scenario s;
        s.tp = 8;
        s.efficiency = EfficiencyMode::Achievable;
        const Analysis a = analyze(hw, model("llama-2-70b"), s);
        const double measured = 16384 * 2 * 7.0 / 8 / 0.95e9;
        QVERIFY2(near(a.comm.timeS, 160 * measured), qPrintable(QString::number(a.comm.timeS * 1e3, 'g', 10)));
        // At tp 2 each device sends half the message instead of 7/8 of it; the fixed cost is the sweep's.
        s.tp = 2;
        const Analysis two = analyze(hw, model("llama-2-70b"), s);
        const double fixed = measured - 16384 * 2 * 7.0 / 8 / 478.87e9;
        QVERIFY(near(two.comm.timeS, 160 * (fixed + 16384 / 478.87e9)));
        // The engine's custom all-reduce at tp 8.
        QVERIFY(hw.achievable.customAllReduceSweep);
        s.tp = 8;
        s.allReduce = AllReduce::Custom;
        const Analysis custom = analyze(hw, model("llama-2-70b"), s);
        const double each = 16384 * 2 * 7.0 / 8 / 8.05683e9;
        QVERIFY(std::abs(each - 3.56e-6) < 0.005e-6);
        QVERIFY2(near(custom.comm.timeS, 160 * each), qPrintable(QString::number(custom.comm.timeS * 1e3, 'g', 10)));
    }

    // The engine's custom all-reduce, beside the library's hand-made sweep above (4 devices; at 1,000 B the library
    // measured 0.1 GB/s, 14.985 us of fixed cost). The custom kernel measured 1 GB/s at 1,000 B and 100 GB/s at 1e9 B:
    //   fixed cost at 1,000 B = 1.5 x 1,000 x (1/1e9 - 1/1e11) s = 1.5 us x 0.99 = 1.485 us.
    // Asking for the custom all-reduce on a device without its sweep keeps the library's figures.
    void customAllReduceReplacesTheLibrarysWhereMeasured_data()
    {
        QTest::addColumn<bool>("custom");
        QTest::addColumn<bool>("measured");
        QTest::addColumn<double>("fixed");
        QTest::addColumn<double>("bus");
        QTest::newRow("library") << false << true << 14.985e-6 << 1e11;
        QTest::newRow("custom, measured") << true << true << 1.485e-6 << 1e11;
        QTest::newRow("custom, not measured") << true << false << 14.985e-6 << 1e11;
    }
    void customAllReduceReplacesTheLibrarysWhereMeasured()
    {
        QFETCH(bool, custom);
        QFETCH(bool, measured);
        QFETCH(double, fixed);
        QFETCH(double, bus);
        AchievableModel m;
        m.allReduceSweep = AllReduceSweep{4, {{1000, 1e8}, {1e5, 1e10}, {1e9, 1e11}}, "hand-made"};
        if (measured)
            m.customAllReduceSweep = AllReduceSweep{4, {{1000, 1e9}, {1e9, 1e11}}, "hand-made"};
        QCOMPARE(m.usesCustomAllReduce(custom), custom && measured);
        QCOMPARE(m.allReduceBusBandwidth(custom), bus);
        QVERIFY2(std::abs(m.allReduceLatencyAt(1000, custom) - fixed) < 1e-12,
                 qPrintable(QString::number(m.allReduceLatencyAt(1000, custom) * 1e6, 'g', 10)));
    }

    // Each preset's kernel floor is its aiconfigurator table's shortest BF16 GEMM, timed in a CUDA graph; and where a
    // preset has the engines' custom all-reduce, a decode step's 16 KiB on its 8 devices takes less than the library's.
    void kernelFloorsAndCustomAllReducesAreTheTables_data()
    {
        QTest::addColumn<QString>("device");
        QTest::addColumn<double>("floor");
        QTest::newRow("A100 80GB: 2.492 us") << "a100-80gb-sxm" << 2.492e-6;
        QTest::newRow("H100: 2.535 us") << "h100-sxm" << 2.535e-6;
        QTest::newRow("H200: 2.443 us") << "h200-sxm" << 2.443e-6;
        QTest::newRow("L40S: 1.741 us") << "l40s" << 1.741e-6;
        QTest::newRow("B200: 1.708 us") << "b200" << 1.708e-6;
    }
    void kernelFloorsAndCustomAllReducesAreTheTables()
    {
        QFETCH(QString, device);
        QFETCH(double, floor);
        const AchievableModel &m = lib().findHardware(device.toStdString())->achievable;
        QVERIFY(m.kernelGraphsS);
        QCOMPARE(m.kernelGraphsS->value, floor);
        QVERIFY(m.kernelGraphsS->source.find("aiconfigurator") != std::string::npos);
        if (!m.customAllReduceSweep)
            return;
        QCOMPARE(m.customAllReduceSweep->devices, 8);
        const double bytes = 16384, sends = bytes * 2 * 7 / 8;
        const double custom = m.allReduceLatencyAt(bytes, true) + sends / m.allReduceBusBandwidth(true);
        const double library = m.allReduceLatencyAt(bytes) + sends / m.allReduceBusBandwidth();
        QVERIFY2(custom < library / 3,
                 qPrintable(QStringLiteral("%1 us against %2 us").arg(custom * 1e6).arg(library * 1e6)));
    }

    // Weight-only INT4 (GPTQ-style, one FP16 scale per 128 weights: 4.125 bits) at batch 1: the FFN up projection of
    // Llama-2-7B reads 4096 x 11008 x 4.125 / 8 = 23,248,896 B of weights per layer. A weight-only kernel that reaches
    // half the copy bandwidth reads them at 0.5 x 0.9 x 3.35 TB/s; its activations (4096 + 11008 elements x 2 B =
    // 30,208 B) at the copy kernel's 0.9 x 3.35 TB/s.
    void weightOnlyKernelsReadWeightsSlower()
    {
        HardwareSpec hw = bareH100();
        hw.achievable.memoryFraction = made(0.9);
        hw.achievable.weightOnlyMemoryFraction[index(DType::INT4)] = made(0.5);
        Scenario s;
        s.weights = *weightFormatFromString("int4/g128");
        s.efficiency = EfficiencyMode::Achievable;
        const Analysis a = analyze(hw, model("llama-2-7b"), s);
        const Operator &up = op(a, "ffn.up");
        QCOMPARE(up.weightBytes, 32 * 23248896.0);
        QCOMPARE(up.activationBytes, 32 * 30208.0);
        const double bw = 0.9 * 3.35e12;
        QVERIFY2(near(up.timeS, 32 * (23248896.0 / (0.5 * bw) + 30208.0 / bw)), qPrintable(QString::number(up.timeS)));
        // FP16 weights use the copy bandwidth: the fraction is for integer weights only.
        s.weights = WeightFormat{};
        const Analysis fp16Analysis = analyze(hw, model("llama-2-7b"), s);
        const Operator &fp16 = op(fp16Analysis, "ffn.up");
        QVERIFY(near(fp16.timeS, 32 * (4096.0 * 11008 * 2 + 30208.0) / bw));
    }

    // A quantize sweep times a linear layer's input by its size. Hand-made points 8,192 -> 2 us and 65,536 -> 5 us,
    // interpolated in log(elements): 32,768 = 8,192 x 8^(2/3) lies 2/3 of the way, 2 + 3 x 2/3 = 4 us. Below the
    // first point the floor holds; above the last the time grows with the elements (131,072: 2 x 5 us).
    void quantizeSweepTimesTheInput_data()
    {
        QTest::addColumn<double>("elements");
        QTest::addColumn<double>("expected");
        QTest::newRow("below: the floor") << 1000.0 << 2e-6;
        QTest::newRow("the first point") << 8192.0 << 2e-6;
        QTest::newRow("32768: 2/3 of the way in log size") << 32768.0 << 4e-6;
        QTest::newRow("the last point") << 65536.0 << 5e-6;
        QTest::newRow("above: in proportion") << 131072.0 << 10e-6;
    }
    void quantizeSweepTimesTheInput()
    {
        QFETCH(double, elements);
        QFETCH(double, expected);
        const QuantizeSweep w{{{8192, 2e-6}, {65536, 5e-6}}, "hand-made"};
        QVERIFY2(near(w.timeAt(elements), expected), qPrintable(QString::number(w.timeAt(elements) * 1e6, 'g', 10)));
    }

    // FP8 activations on the H100 preset, whose quantize tables are TensorRT-LLM 1.3.0rc20's at k = 8,192 (static:
    // 1.36 us at 8,192 elements, 1.392 us at 16,384; dynamic: 8.551 and 8.446 us). Llama-2-7B, one decode step at
    // batch 1: each of the 32 layers quantizes four inputs, the qkv projection's (4,096 elements), the output
    // projection's (4,096), the up projection's (4,096; the gate reads the same) and the down projection's (11,008):
    //   at 11,008 elements, x = ln(11,008 / 8,192) / ln 2 of the way from 8,192 to 16,384;
    //   static:  32 x (3 x 1.36 us + 1.36 us + x (1.392 - 1.36) us);
    //   dynamic: 32 x (3 x 8.551 us + 8.551 us + x (8.446 - 8.551) us).
    // Fused (the kernel before writes FP8), BF16 activations and the ideal roofline charge nothing.
    void activationScalesChargeTheQuantizeKernels_data()
    {
        QTest::addColumn<QString>("scales");
        QTest::addColumn<QString>("activations");
        QTest::addColumn<bool>("achievable");
        QTest::addColumn<double>("expected");
        const double x = std::log(11008.0 / 8192) / std::log(2.0);
        QTest::newRow("fused") << "fused"
                               << "fp8" << true << 0.0;
        QTest::newRow("static") << "static"
                                << "fp8" << true << 32 * (3 * 1.36e-6 + 1.36e-6 + x * 0.032e-6);
        QTest::newRow("dynamic") << "dynamic"
                                 << "fp8" << true << 32 * (3 * 8.551e-6 + 8.551e-6 - x * 0.105e-6);
        QTest::newRow("dynamic, bf16 activations") << "dynamic"
                                                   << "bf16" << true << 0.0;
        QTest::newRow("dynamic, ideal") << "dynamic"
                                        << "fp8" << false << 0.0;
    }
    void activationScalesChargeTheQuantizeKernels()
    {
        QFETCH(QString, scales);
        QFETCH(QString, activations);
        QFETCH(bool, achievable);
        QFETCH(double, expected);
        const HardwareSpec &hw = *lib().findHardware("h100-sxm");
        Scenario s;
        s.weights = WeightFormat{DType::FP8, 0, DType::FP16};
        s.activations = *dtypeFromString(activations.toStdString());
        s.efficiency = achievable ? EfficiencyMode::Achievable : EfficiencyMode::Ideal;
        s.activationScales = *activationScalesFromString(scales.toStdString());
        const Analysis a = analyze(hw, model("llama-2-7b"), s);
        QVERIFY2(std::abs(a.totals.quantizeS - expected) < 1e-12,
                 qPrintable(QString::number(a.totals.quantizeS * 1e6, 'g', 10)));
        // The kernels sit in the operators' time: the up projection pays for the input it shares with the gate.
        Scenario fused = s;
        fused.activationScales = ActivationScales::Fused;
        const Analysis f = analyze(hw, model("llama-2-7b"), fused);
        QVERIFY(expected == 0 ? a.totals.timeS == f.totals.timeS : near(a.totals.timeS - f.totals.timeS, expected));
        QCOMPARE(op(a, "ffn.gate").timeS, op(f, "ffn.gate").timeS);
        if (expected > 0)
            QVERIFY(op(a, "ffn.up").timeS > op(f, "ffn.up").timeS);
    }

    // The ideal roofline never reads the microbenchmarks.
    void idealIgnoresTheMicrobenchmarks()
    {
        HardwareSpec hw = *lib().findHardware("h100-sxm");
        const HardwareSpec bare = bareH100();
        for (Phase p : {Phase::Decode, Phase::Prefill, Phase::Generate}) {
            Scenario s;
            s.phase = p;
            s.tp = 8;
            QCOMPARE(analyze(hw, model("llama-2-70b"), s).totals.timeS,
                     analyze(bare, model("llama-2-70b"), s).totals.timeS);
        }
    }

    // The band around an achievable time is the validation set's, and the ideal roofline has none.
    void achievableTimesCarryTheValidationBand()
    {
        Scenario s;
        const HardwareSpec &hw = *lib().findHardware("h100-sxm");
        const Analysis ideal = analyze(hw, model("llama-2-7b"), s);
        QCOMPARE(ideal.totals.timeLowS, ideal.totals.timeS);
        QCOMPARE(ideal.totals.timeHighS, ideal.totals.timeS);
        s.efficiency = EfficiencyMode::Achievable;
        const Analysis a = analyze(hw, model("llama-2-7b"), s);
        QVERIFY(kAchievableBand.low > 0 && kAchievableBand.low < kAchievableBand.high);
        QCOMPARE(a.totals.timeLowS, a.totals.timeS * kAchievableBand.low);
        QCOMPARE(a.totals.timeHighS, a.totals.timeS * kAchievableBand.high);
        // A device without microbenchmarks has no prediction to put a band on: its achievable time is the ideal.
        const Analysis bare = analyze(bareH100(), model("llama-2-7b"), s);
        QVERIFY(!achievableBand(bareH100(), s));
        QCOMPARE(bare.totals.timeS, ideal.totals.timeS);
        QCOMPARE(bare.totals.timeLowS, bare.totals.timeS);
        QCOMPARE(bare.totals.timeHighS, bare.totals.timeS);
    }
};

QTEST_GUILESS_MAIN(TestTimeModel)
#include "tst_timemodel.moc"
