// The MoE kernels as their own operators (router and top-k, token permute and unpermute, the fused kernel's grouped
// GEMMs timed from aiconfigurator's MoE tables) and expert parallelism's all-to-all (DeepEP's measured dispatch and
// combine). Hand counts on DeepSeek-V3 (61 layers, the first 3 dense: 58 routed; hidden 7,168; 256 routed experts of
// width 2,048, top-8, a sigmoid router with a bias per expert) decoding on 8 H200 with attention DP 8 (DEP8: each
// rank its own share of the batch, the experts split 32 to a rank):
//
// - ffn.router: 2 x 64 tokens x 7,168 x 256 columns x 58 layers; moe.topk: 64 x 256 scores x (sigmoid 3 + bias 1 +
//   log2 8 = 3 compares) = 7 operations each, x 58.
// - batch 64, DEP8: the experts see the copy's 64 tokens, 64 x 8 / 8 = 64 token-expert pairs on the busiest rank,
//   whose 32 experts are hit 1 - (1 - 8/256)^64 = 86.9 % of the time: 28 of them (pigeonhole). moe.permute reads and
//   writes each pair's hidden vector: 2 x 64 x 7,168 x 2 B x 58 layers.
// - all-to-all: each rank dispatches its 8 tokens' 8 copies, FP8 with one fp32 scale per 128 (7,168 + 224 = 7,392 B),
//   473,088 B, and combines them in bf16 (917,504 B); 7/8 of them leave the device, in 58 layers. The H200's DeepEP
//   table has exactly that size (8 tokens per rank): dispatch 12.317 us, combine 15.031 us
//   (ai-dynamo/aiconfigurator @ 095f58a5, systems/data/h200_sxm/comm/sglang/0.5.12/wideep_deepep_ll_perf.parquet).
// - The fused MoE table of the H200 (fp8_block, hidden 7,168, inter 2,048, top-8 of 256, moe_ep 8) at 256 tokens:
//   batch 256 with DEP8 gives the same 256 tokens to the experts, and the fused kernel's operators then add up to
//   the table's measured latency in each layer.
#include "core/analysis/analysis.h"
#include "core/analysis/breakdown.h"
#include "core/analysis/derivation.h"
#include "core/analysis/operatortime.h"

#include "../analysishelpers.h"
#include "../builtinpresets.h"

#include <QtTest>

#include <cmath>

using namespace memwall::core;
using namespace testpresets;

namespace {

using testanalysis::findOp;
constexpr double kRoutedLayers = 58;

/// DeepSeek-V3 decoding at context 2,048 with DEP8 on 8 devices: FP8 block-scaled weights, bf16 activations.
Scenario dep8(int64_t batch, EfficiencyMode e = EfficiencyMode::Achievable)
{
    Scenario s;
    s.phase = Phase::Decode;
    s.batch = batch;
    s.context = 2048;
    s.attentionDp = 8;
    s.weights = *weightFormatFromString("fp8/g16384/fp32");
    s.activations = DType::BF16;
    s.kv = DType::FP8;
    s.efficiency = e;
    return s;
}

/// The fused MoE kernel's operators of one analysis, summed (s).
double fusedMoeTime(const Analysis &a)
{
    double t = 0;
    for (const Operator &o : a.operators)
        if (o.expertTokens > 0)
            t += o.timeS;
    return t;
}

/// The measured latency of `table` at `tokens` (s), or NaN.
double measuredAt(const MoeSweep &table, double tokens)
{
    for (const auto &[n, seconds] : table.measured)
        if (n == tokens)
            return seconds;
    return std::nan("");
}
} // namespace

class TestMoeKernels : public QObject
{
    Q_OBJECT
private slots:
    void routerAndTopKAreHandCounted()
    {
        const Analysis a = analyze(hw("h200-sxm"), model("deepseek-v3"), dep8(512));
        // 512 sequences over 8 attention-DP ranks: 64 tokens on each.
        QCOMPARE(findOp(a, "ffn.router")->flops, 2.0 * 64 * 7168 * 256 * kRoutedLayers);
        QCOMPARE(findOp(a, "moe.topk")->flops, 7.0 * 64 * 256 * kRoutedLayers);
    }

    void permuteMovesEachRoutedCopyTwice()
    {
        const Analysis a = analyze(hw("h200-sxm"), model("deepseek-v3"), dep8(64));
        QCOMPARE(findOp(a, "moe.permute")->activationBytes, 2.0 * 64 * 7168 * 2 * kRoutedLayers);
        QCOMPARE(findOp(a, "moe.unpermute")->flops, 2.0 * 64 * 7168 * kRoutedLayers);
        // The busiest rank's 28 experts hit, 64 pairs: 64 / 28 tokens per expert.
        QVERIFY(std::abs(findOp(a, "ffn.up")->expertTokens - 64.0 / 28) < 1e-9);
    }

    void allToAllIsSizedAndMeasured()
    {
        const Analysis a = analyze(hw("h200-sxm"), model("deepseek-v3"), dep8(64));
        const double dispatch = 64 * 7392.0, combine = 64 * 7168.0 * 2;
        QCOMPARE(a.comm.epBytes, (dispatch + combine) * 7 / 8 * kRoutedLayers);
        QCOMPARE(a.comm.allToAll, std::string("measured"));
        QVERIFY(std::abs(a.comm.epDispatchS / (12.317e-6 * kRoutedLayers) - 1) < 1e-9);
        QVERIFY(std::abs(a.comm.epCombineS / (15.031e-6 * kRoutedLayers) - 1) < 1e-9);
        // Without the table (ideal): the link's bandwidth and latency, and said so.
        const Analysis ideal = analyze(hw("h200-sxm"), model("deepseek-v3"), dep8(64, EfficiencyMode::Ideal));
        QCOMPARE(ideal.comm.allToAll, std::string("ideal"));
        QVERIFY(ideal.comm.epDispatchS < a.comm.epDispatchS);
    }

    void allToAllHalvesAreTheirOwnOperators()
    {
        // The hand count above: batch 64 over 8 ranks, 8 tokens x 8 copies = 64 copies a rank, 7/8 of whose bytes
        // leave the device, in 58 routed layers; each half's time is the DeepEP table's at its size.
        const HardwareSpec &h200 = hw("h200-sxm");
        const Analysis a = analyze(h200, model("deepseek-v3"), dep8(64));
        const Operator *dispatch = findOp(a, "moe.dispatch");
        const Operator *combine = findOp(a, "moe.combine");
        QVERIFY(dispatch && combine);
        QVERIFY(dispatch->cls == OpClass::Communication);
        QVERIFY(dispatch->bound == Bound::Communication);
        QVERIFY(dispatch->onLink() && combine->onLink());
        QCOMPARE(dispatch->flops, 0.0);
        QCOMPARE(dispatch->count, kRoutedLayers);
        QCOMPARE(dispatch->activationBytes, 64 * 7392.0 * 7 / 8 * kRoutedLayers);
        QCOMPARE(combine->activationBytes, 64 * 7168.0 * 2 * 7 / 8 * kRoutedLayers);
        QVERIFY(std::abs(dispatch->timeS / (12.317e-6 * kRoutedLayers) - 1) < 1e-9);
        QVERIFY(std::abs(combine->timeS / (15.031e-6 * kRoutedLayers) - 1) < 1e-9);
        QCOMPARE(dispatch->timeS, a.comm.epDispatchS);
        QCOMPARE(combine->timeS, a.comm.epCombineS);
        QCOMPARE(dispatch->bytes() + combine->bytes(), a.comm.epBytes);
        // Their derivations give their own figures.
        QCOMPARE(derive(h200, model("deepseek-v3"), dep8(64), a, "op:moe.dispatch:time").value, dispatch->timeS);
        QCOMPARE(derive(h200, model("deepseek-v3"), dep8(64), a, "op:moe.combine:bytes").value, combine->bytes());
        // Without expert parallelism there is no all-to-all and no such operator.
        Scenario tp8 = dep8(64);
        tp8.attentionDp = 1;
        tp8.tp = 8;
        tp8.moeTp = 8;
        QVERIFY(!findOp(analyze(h200, model("deepseek-v3"), tp8), "moe.dispatch"));
    }

    void allToAllOperatorsLeaveTheTotalsAsTheyWere()
    {
        // DEP8 DeepSeek-R1 served at concurrency 256, 1,024 tokens in and out (the validation's TensorRT-LLM row):
        // the totals without any operator kept (analyzeTotals) are those with the all-to-all's operators, and every
        // sum of the step that adds the communication counts them once.
        const HardwareSpec &h200 = hw("h200-sxm");
        Scenario s = dep8(256);
        s.phase = Phase::Generate;
        s.seq = 1024;
        s.output = 1024;
        s.activations = DType::FP8;
        s.kv = DType::BF16;
        const Analysis a = analyze(h200, model("deepseek-v3"), s);
        const Analysis totals = analyzeTotals(h200, model("deepseek-v3"), s);
        QCOMPARE(a.totals.timeS, totals.totals.timeS);
        QCOMPARE(a.totals.bytes, totals.totals.bytes);
        QCOMPARE(a.phases.ttftS, totals.phases.ttftS);
        QCOMPARE(a.phases.tpotS, totals.phases.tpotS);
        QCOMPARE(a.comm.timeS, totals.comm.timeS);
        QCOMPARE(a.comm.epBytes, totals.comm.epBytes);
        int links = 0;
        double linkTime = 0;
        for (const Operator &o : a.operators)
            if (o.onLink()) {
                ++links;
                linkTime += o.timeS;
            }
        QCOMPARE(links, 4); // dispatch and combine, of the prompt's pass and of the decode steps
        QVERIFY(std::abs(linkTime / (a.comm.epDispatchS + a.comm.epCombineS) - 1) < 1e-12);
        QVERIFY(std::abs(classShares(a).totalTimeS / a.totals.timeS - 1) < 1e-12);
        QVERIFY(std::abs(derive(h200, model("deepseek-v3"), s, a, "totals.time_s").value / a.totals.timeS - 1) < 1e-12);
        QVERIFY(std::abs(derive(h200, model("deepseek-v3"), s, a, "totals.bytes").value / a.totals.bytes - 1) < 1e-12);
        QVERIFY(std::abs(derive(h200, model("deepseek-v3"), s, a, "phases.ttft_s").value / a.phases.ttftS - 1) < 1e-12);
    }

    void groupedGemmAtATabulatedPointIsTheTable()
    {
        const HardwareSpec &h200 = hw("h200-sxm");
        const MoeSweep *table = h200.achievable.moeSweepFor(MoeFormat::Fp8Block, 8);
        QVERIFY(table);
        QCOMPARE(table->hidden, 7168);
        QCOMPARE(table->moeEp, 8);
        const double measured = measuredAt(*table, 256);
        QVERIFY(measured > 0);
        const Analysis a = analyze(h200, model("deepseek-v3"), dep8(256));
        // The table's fraction is rounded to four digits.
        QVERIFY2(std::abs(fusedMoeTime(a) / kRoutedLayers / measured - 1) < 2e-3,
                 qPrintable(QString("%1 vs %2").arg(fusedMoeTime(a) / kRoutedLayers).arg(measured)));
    }

    void everyTabulatedBatchIsTheTable_data()
    {
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("tokens");
        for (int ep : {1, 2, 4, 8})
            for (int tokens : {1, 2, 4, 8, 16, 64, 256, 1024})
                QTest::addRow("moe_ep %d, %d tokens", ep, tokens) << ep << tokens;
    }
    void everyTabulatedBatchIsTheTable()
    {
        // DeepSeek-V3 decoding with tp = moe_ep (moe_tp 1), so the experts see the whole batch: at each batch the
        // H200's fp8_block table measured, its fused kernel's operators add up to the measured latency per layer. At
        // moe_ep 8 the batches 1, 2, 4 and 8 all give one token per expert on the busiest rank (1, 2, 4 and 8 experts
        // of its 32 hit: 4 tokens choose 32 of 256 experts, 29.8 distinct, ceil(29.8 / 8) = 4 on the busiest), so
        // only the experts it runs tell them apart; read by tokens per expert alone, batch 4 took batch 1's fraction
        // and was timed 160 us instead of the measured 70.6 us.
        QFETCH(int, ep);
        QFETCH(int, tokens);
        const HardwareSpec &h200 = hw("h200-sxm");
        const MoeSweep *table = h200.achievable.moeSweepFor(MoeFormat::Fp8Block, ep);
        QVERIFY(table);
        QCOMPARE(table->moeEp, ep);
        // Every one of these batches is a point of its table (aiconfigurator measured them all, balanced routing).
        const double measured = measuredAt(*table, tokens);
        QVERIFY2(!std::isnan(measured), "missing from the table");
        if (ep == 8 && tokens == 4)
            QVERIFY(std::abs(measured / 70.64e-6 - 1) < 1e-3); // moe_perf.parquet: 0.0706399977 ms
        Scenario s = dep8(tokens);
        s.attentionDp = 1;
        s.tp = ep;
        s.moeTp = 1;
        s.moeEp = ep;
        const Analysis a = analyze(h200, model("deepseek-v3"), s);
        // The table's fraction and tokens per expert are rounded to four digits.
        QVERIFY2(std::abs(fusedMoeTime(a) / kRoutedLayers / measured - 1) < 2e-3,
                 qPrintable(QString("%1 vs %2").arg(fusedMoeTime(a) / kRoutedLayers).arg(measured)));
    }

    void expertFormatsRunAtTheirOwnRates()
    {
        // gpt-oss's MXFP4 experts with bf16 activations (w4a16) on the H200, and FP8 block-scaled experts: each its
        // own table, so the same load runs at different fractions.
        Scenario s = dep8(64);
        QCOMPARE(moeFormat(s), std::optional<MoeFormat>(MoeFormat::Fp8Block));
        s.expertWeights = weightFormatFromString("mxfp4");
        QCOMPARE(moeFormat(s), std::optional<MoeFormat>(MoeFormat::W4a16Mxfp4));
        // TensorRT-LLM on Blackwell: the experts quantize their bf16 input to MXFP8 themselves.
        s.expertActivations = ExpertActivations::Mxfp8;
        QCOMPARE(moeFormat(s), std::optional<MoeFormat>(MoeFormat::W4a8Mxfp4));
        s.expertActivations = ExpertActivations::Same;
        s.activations = DType::FP8;
        QCOMPARE(moeFormat(s), std::optional<MoeFormat>(MoeFormat::W4a8Mxfp4));
        s.expertWeights = weightFormatFromString("nvfp4");
        QCOMPARE(moeFormat(s), std::optional<MoeFormat>(MoeFormat::Nvfp4));
        s.expertWeights = weightFormatFromString("int4/g128");
        QVERIFY(!moeFormat(s).has_value());
    }

    void mxfp8ExpertActivationsTakeTheW4a8Table()
    {
        // gpt-oss-120b (MXFP4 experts, bf16 elsewhere) decoding at batch 64 on one B200: with MXFP8 expert
        // activations only the fused MoE kernel changes table (w4a16_mxfp4 -> w4a8_mxfp4_mxfp8); the ideal ignores it.
        const HardwareSpec &b200 = hw("b200");
        QVERIFY(b200.achievable.moeSweepFor(MoeFormat::W4a8Mxfp4, 1));
        QVERIFY(b200.achievable.moeSweepFor(MoeFormat::W4a16Mxfp4, 1));
        Scenario s;
        s.phase = Phase::Decode;
        s.batch = 64;
        s.context = 2048;
        s.weights = *weightFormatFromString("bf16");
        s.expertWeights = weightFormatFromString("mxfp4");
        s.activations = DType::BF16;
        s.efficiency = EfficiencyMode::Achievable;
        const Analysis same = analyze(b200, model("gpt-oss-120b"), s);
        s.expertActivations = ExpertActivations::Mxfp8;
        const Analysis mxfp8 = analyze(b200, model("gpt-oss-120b"), s);
        QVERIFY(fusedMoeTime(same) > 0 && fusedMoeTime(mxfp8) > 0);
        QVERIFY(std::abs(fusedMoeTime(mxfp8) / fusedMoeTime(same) - 1) > 0.01);
        QVERIFY(std::abs((mxfp8.totals.timeS - fusedMoeTime(mxfp8)) / (same.totals.timeS - fusedMoeTime(same)) - 1) <
                1e-12);
        s.efficiency = EfficiencyMode::Ideal;
        const Analysis ideal = analyze(b200, model("gpt-oss-120b"), s);
        s.expertActivations = ExpertActivations::Same;
        QCOMPARE(analyze(b200, model("gpt-oss-120b"), s).totals.timeS, ideal.totals.timeS);
    }

    void deepSeekDecodeOnEightH200CountsTheMoeKernels()
    {
        // DeepSeek-V3 at batch 64 on 8 H200, experts split over all 8 (moe_ep 8).
        Scenario s = dep8(64);
        const Analysis a = analyze(hw("h200-sxm"), model("deepseek-v3"), s);
        for (const char *name : {"ffn.router", "moe.topk", "moe.permute", "moe.unpermute"})
            QVERIFY2(findOp(a, name), name);
        QVERIFY(a.comm.epDispatchS > 0 && a.comm.epCombineS > 0);
        QVERIFY(a.comm.timeS >= a.comm.epDispatchS + a.comm.epCombineS);
    }

    void achievableIsNeverFasterThanIdeal_data()
    {
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("experts");
        QTest::addColumn<int>("batch");
        for (const char *device : {"h200-sxm", "h100-sxm", "b200", "gb200-nvl72"})
            for (const char *experts : {"fp8/g16384/fp32", "nvfp4", "mxfp4", "bf16"})
                for (int batch : {8, 64, 512, 4096})
                    QTest::addRow("%s %s batch %d", device, experts, batch) << device << experts << batch;
    }
    void achievableIsNeverFasterThanIdeal()
    {
        QFETCH(QString, device);
        QFETCH(QString, experts);
        QFETCH(int, batch);
        Scenario s = dep8(batch);
        s.expertWeights = weightFormatFromString(experts.toStdString());
        const HardwareSpec &h = hw(device.toUtf8().constData());
        const Analysis achievable = analyze(h, model("deepseek-v3"), s);
        s.efficiency = EfficiencyMode::Ideal;
        const Analysis ideal = analyze(h, model("deepseek-v3"), s);
        QVERIFY(achievable.totals.timeS >= ideal.totals.timeS);
        QVERIFY(fusedMoeTime(achievable) >= fusedMoeTime(ideal) * (1 - 1e-12));
    }

    void devicesWithoutMicrobenchmarksSayTheAchievableIsIdeal()
    {
        Scenario s = dep8(64);
        QCOMPARE(achievableBasis(hw("mi355x"), s), std::string_view("ideal"));
        // GB200 has the B200's kind of microbenchmarks (GEMM sweeps, HBM copy measured on its own GPUs); B300 and
        // GB300 have the GEMM sweeps but no published copy-bandwidth measurement.
        QCOMPARE(achievableBasis(hw("gb200-nvl72"), s), std::string_view("microbenchmarks"));
        QCOMPARE(achievableBasis(hw("b300"), s), std::string_view("partial"));
        QCOMPARE(achievableBasis(hw("gb300"), s), std::string_view("partial"));
        QCOMPARE(achievableBasis(hw("h200-sxm"), s), std::string_view("microbenchmarks"));
        s.efficiency = EfficiencyMode::Ideal;
        QCOMPARE(achievableBasis(hw("h200-sxm"), s), std::string_view(""));
    }

    void imbalanceSlowsTheGroupedGemms()
    {
        Scenario s = dep8(512);
        const Analysis even = analyze(hw("h200-sxm"), model("deepseek-v3"), s);
        s.moeImbalance = 1.5;
        const Analysis skewed = analyze(hw("h200-sxm"), model("deepseek-v3"), s);
        QCOMPARE(findOp(skewed, "ffn.up")->expertTokens, 1.5 * findOp(even, "ffn.up")->expertTokens);
        QVERIFY(fusedMoeTime(skewed) > fusedMoeTime(even));
    }
};

QTEST_GUILESS_MAIN(TestMoeKernels)
#include "tst_moekernels.moc"
