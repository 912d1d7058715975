// How the engines split a mixture of experts: attention data parallelism (--attention-dp), tensor and expert
// parallelism of the experts on the same devices (--moe-tp, --moe-ep) and expert imbalance (--moe-imbalance).
// Hand counts on Mixtral 8x7B (32 layers, hidden 4,096, 32 heads and 8 KV heads of 128, 8 experts of width 14,336,
// top-2), decoding batch 64 at context 1,024 at 16 bits:
//
// - KV cache per token: 2 x 32 layers x 8 x 128 x 2 B = 131,072 B; a decode step caches 1,025 tokens per sequence.
//   ep 8 (attention replicated): every device keeps all 64 sequences: 131,072 x 1,025 x 64 = 8,598,323,200 B.
//   attention_dp 8: each keeps its own 8 sequences: 1,074,790,400 B.
// - attn.qkv_proj: 2 x tokens x 4,096 x (4,096 + 2 x 1,024) x 32 layers: 64 tokens a device with ep 8, 8 with
//   attention_dp 8.
// - The experts see the copy's 64 tokens either way: 64 x 2 / 8 = 16 token-expert pairs on the device's one expert,
//   so ffn.up is 2 x 16 x 4,096 x 14,336 x 32 = 120,259,084,288 FLOPs in both; --moe-imbalance 1.5 makes it
//   24 pairs, 1.5 times that.
// - The all-to-all sends each of the device's tokens' 2 copies of 4,096 x 2 B to 7/8 of the devices, dispatch and
//   combine, in 32 layers: ep 8: 2 x 64 x 2 x 8,192 x 7/8 x 32 = 58,720,256 B; attention_dp 8: 7,340,032 B.
// - tp 8 with the experts whole on 8 devices (moe_tp 1, moe_ep 8): the tensor-parallel all-reduce follows attention
//   only (32 a step), where tp 8 alone also all-reduces after every FFN (64): half the bytes.
#include "core/analysis/analysis.h"
#include "core/analysis/options.h"

#include "../analysishelpers.h"
#include "../builtinpresets.h"

#include <QtTest>

using namespace memwall::core;
using namespace testpresets;

namespace {

using testanalysis::findOp;
Scenario mixtralDecode()
{
    Scenario s;
    s.phase = Phase::Decode;
    s.batch = 64;
    s.context = 1024;
    return s;
}

QString refusal(Scenario s, const char *model = "mixtral-8x7b")
{
    try {
        if (auto e = validate(s); !e.empty())
            return QString::fromStdString(e);
        analyze(hw("h100-sxm"), testpresets::model(model), s);
    } catch (const AnalysisError &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}
} // namespace

class TestMoeSplit : public QObject
{
    Q_OBJECT
private slots:
    void attentionDataParallelismSplitsTheBatchAndItsCache()
    {
        Scenario ep = mixtralDecode();
        ep.ep = 8;
        Scenario dep = mixtralDecode();
        dep.attentionDp = 8;
        QCOMPARE(moeEp(dep), 8);
        QCOMPARE(moeTp(dep), 1);
        const Analysis a = analyze(hw("h100-sxm"), model("mixtral-8x7b"), ep);
        const Analysis b = analyze(hw("h100-sxm"), model("mixtral-8x7b"), dep);
        QCOMPARE(a.memory.kv, 131072.0 * 1025 * 64);
        QCOMPARE(b.memory.kv, 131072.0 * 1025 * 8);
        // The whole copy's cache is the same 64 sequences, and so are the weights on each device.
        QCOMPARE(b.kvCache.totalBytes, a.kvCache.totalBytes);
        QCOMPARE(b.memory.weights, a.memory.weights);
        QCOMPARE(findOp(a, "attn.qkv_proj")->flops, 2.0 * 64 * 4096 * (4096 + 2 * 1024) * 32);
        QCOMPARE(findOp(b, "attn.qkv_proj")->flops, 2.0 * 8 * 4096 * (4096 + 2 * 1024) * 32);
        QCOMPARE(findOp(a, "ffn.up")->flops, 2.0 * 16 * 4096 * 14336 * 32);
        QCOMPARE(findOp(b, "ffn.up")->flops, 2.0 * 16 * 4096 * 14336 * 32);
        QCOMPARE(a.comm.epBytes, 2.0 * 64 * 2 * 8192 * 7 / 8 * 32);
        QCOMPARE(b.comm.epBytes, 2.0 * 8 * 2 * 8192 * 7 / 8 * 32);
        // Each rank's step serves its own 8 sequences; the copy still makes 64 tokens a step.
        QCOMPARE(b.totals.tokens, a.totals.tokens);
        QVERIFY(b.totals.timeS < a.totals.timeS);
    }

    void imbalanceLoadsTheBusiestRank()
    {
        Scenario s = mixtralDecode();
        s.attentionDp = 8;
        const Analysis even = analyze(hw("h100-sxm"), model("mixtral-8x7b"), s);
        s.moeImbalance = 1.5;
        const Analysis skewed = analyze(hw("h100-sxm"), model("mixtral-8x7b"), s);
        QCOMPARE(findOp(skewed, "ffn.up")->flops, 2.0 * 24 * 4096 * 14336 * 32);
        QCOMPARE(findOp(skewed, "ffn.up")->flops, 1.5 * findOp(even, "ffn.up")->flops);
        // Attention does not wait for the experts' busiest rank.
        QCOMPARE(findOp(skewed, "attn.qkv_proj")->flops, findOp(even, "attn.qkv_proj")->flops);
        QVERIFY(skewed.totals.timeS > even.totals.timeS);
    }

    void expertsWholeBesideTensorParallelAttention()
    {
        Scenario tp = mixtralDecode();
        tp.tp = 8;
        Scenario tep = tp;
        tep.moeTp = 1; // moe_ep is then 8
        QCOMPARE(moeEp(tep), 8);
        const Analysis a = analyze(hw("h100-sxm"), model("mixtral-8x7b"), tp);
        const Analysis b = analyze(hw("h100-sxm"), model("mixtral-8x7b"), tep);
        QCOMPARE(b.comm.tpBytes, a.comm.tpBytes / 2);
        QCOMPARE(a.comm.epBytes, 0.0);
        QVERIFY(b.comm.epBytes > 0);
        // The same expert FLOPs a device: 128 pairs at width 1,792, or 16 pairs at the whole 14,336.
        QCOMPARE(findOp(b, "ffn.up")->flops, findOp(a, "ffn.up")->flops);
        QCOMPARE(b.memory.weights, a.memory.weights);
    }

    void oldScenariosKeepTheirMeaning()
    {
        // --ep alone is moe_ep with attention replicated: moe_tp = tp, moe_ep = ep, the batch on every device.
        Scenario s = mixtralDecode();
        s.tp = 2;
        s.ep = 4;
        QCOMPARE(moeTp(s), 2);
        QCOMPARE(moeEp(s), 4);
        QCOMPARE(devicesPerCopy(s), int64_t(8));
        QVERIFY(validate(s).empty());
    }

    void refusals_data()
    {
        QTest::addColumn<int>("attentionDp");
        QTest::addColumn<int>("moeTp");
        QTest::addColumn<int>("moeEp");
        QTest::addColumn<int>("batch");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("says");
        QTest::newRow("batch not a multiple") << 8 << 0 << 0 << 12 << "mixtral-8x7b"
                                              << "multiple of attention_dp (8)";
        QTest::newRow("split not the devices") << 8 << 3 << 0 << 64 << "mixtral-8x7b"
                                               << "must equal tp 1";
        QTest::newRow("product not the devices") << 2 << 2 << 2 << 64 << "mixtral-8x7b"
                                                 << "moe_tp 2 x moe_ep 2";
        QTest::newRow("more ranks than experts") << 16 << 0 << 0 << 64 << "mixtral-8x7b"
                                                 << "moe_ep 16 does not divide";
        QTest::newRow("dense model") << 2 << 0 << 0 << 64 << "llama-2-7b"
                                     << "needs a mixture-of-experts model";
    }
    void refusals()
    {
        QFETCH(int, attentionDp);
        QFETCH(int, moeTp);
        QFETCH(int, moeEp);
        QFETCH(int, batch);
        QFETCH(QString, model);
        QFETCH(QString, says);
        Scenario s = mixtralDecode();
        s.attentionDp = attentionDp;
        s.moeTp = moeTp;
        s.moeEp = moeEp;
        s.batch = batch;
        const QString why = refusal(s, qPrintable(model));
        QVERIFY2(why.contains(says), qPrintable(why));
    }

    void optionsOnTheTable()
    {
        // The command line, scenario files, Python and the window read these rows.
        for (const char *key : {"attention_dp", "moe_tp", "moe_ep", "moe_imbalance"})
            QVERIFY2(findOption(key), key);
        Scenario s;
        WhatIf w;
        QVERIFY(!applyOption(*findOption("moe_imbalance"), s, w, OptionValue(0.5)).empty());
        QVERIFY(applyOption(*findOption("moe_imbalance"), s, w, OptionValue(2.0)).empty());
        QCOMPARE(s.moeImbalance, 2.0);
    }
};

QTEST_APPLESS_MAIN(TestMoeSplit)
#include "tst_moesplit.moc"
