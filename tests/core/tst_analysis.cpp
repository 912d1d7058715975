// Pins the analysis to published figures (docs/model.md, "Counting conventions").
#include "core/analysis/analysis.h"
#include "core/io/analysisjson.h"
#include "core/io/presets.h"

#include "../analysishelpers.h"
#include "../builtinpresets.h"

#include <QtTest>

#include <cmath>

using namespace memwall::core;
using namespace testpresets;

namespace {

using testanalysis::findOp;
bool near(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::fabs(b); }
} // namespace

class TestAnalysis : public QObject
{
    Q_OBJECT
private slots:
    void kvBytesPerToken_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("kv");
        QTest::addColumn<double>("expected");
        QTest::newRow("OPT-13B fp16 KV = 800 KB/token (vLLM paper)") << "opt-13b"
                                                                     << "fp16" << 819200.0;
        QTest::newRow("Llama-2-70B fp16 KV = 320 KB/token (GQA, 8 KV heads)") << "llama-2-70b"
                                                                              << "fp16" << 327680.0;
        QTest::newRow("Llama-2-7B fp16 KV = 512 KB/token") << "llama-2-7b"
                                                           << "fp16" << 524288.0;
        QTest::newRow("Llama-2-70B int8 KV halves it") << "llama-2-70b"
                                                       << "int8" << 163840.0;
    }
    void kvBytesPerToken()
    {
        QFETCH(QString, model);
        QFETCH(QString, kv);
        QFETCH(double, expected);
        Scenario s;
        s.kv = *dtypeFromString(kv.toStdString());
        const Analysis a = analyze(hw("a100-80gb-sxm"), ::model(model.toLatin1().constData()), s);
        QCOMPARE(a.kvCache.bytesPerToken, expected);
    }

    void llama2_7bDecodeOnA100IsMemoryBound()
    {
        Scenario s;
        s.phase = Phase::Decode;
        s.batch = 1;
        s.context = 1024;
        const Analysis a = analyze(hw("a100-80gb-sxm"), model("llama-2-7b"), s);
        // Issue #2: "memory-bound at about 6.7 ms/token on the ideal roofline" (13.5 GB of weights / 2.039 TB/s).
        QVERIFY2(near(a.totals.timeS, 6.7e-3, 0.03), qPrintable(QString::number(a.totals.timeS)));
        QVERIFY(a.totals.bound == Bound::Memory);
        QVERIFY(a.totals.intensity < 1.5);
        QVERIFY(near(a.totals.tokensPerS, 1.0 / a.totals.timeS, 1e-12));
    }

    void prefill2048OnH100IsComputeBound()
    {
        Scenario s;
        s.phase = Phase::Prefill;
        s.seq = 2048;
        s.causal = false;
        // Issue #2: "a 2,048-token prefill on H100 is compute-bound at about 2.9e13 FLOPs", counting every one of the
        // 2048 x 2048 query-key pairs.
        const Analysis full = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        QVERIFY2(near(full.totals.flops, 2.9e13, 0.03), qPrintable(QString::number(full.totals.flops)));
        // Causal (the default for a decoder, fused attention): only the 2048 x 2049 / 2 = 2,098,176 unmasked pairs per
        // head. Counted by hand over 32 layers (h 4096, 32 heads of 128, ffn 11008; layer matmul
        // weights 32 x (4 x 4096^2 + 3 x 4096 x 11008) = 6,476,005,376):
        //   matmuls   2 x 6,476,005,376 x 2048 + lm_head 2 x 4096 x 32000 (last token)  = 26,525,980,164,096
        //   QK^T, PV  2 ops x 2 x 32 heads x 2,098,176 pairs x 128 x 32 layers           =  1,100,048,498,688
        //   softmax   5 x 32 x 2,098,176 x 32                                            =     10,742,661,120
        //   norms     4 x 2048 x 4096 x 64 + final 4 x 4096                              =      2,147,500,032
        //   rope      3 x 2048 x (4096 + 4096) x 32                                      =      1,610,612,736
        //   residuals 2 x 2048 x 4096 x 32                                               =        536,870,912
        //   SwiGLU    (SiLU 4 + product 1) x 2048 x 11008 x 32                           =      3,607,101,440
        //   total                                                                          27,644,673,409,024
        s.causal = true;
        const Analysis a = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        QCOMPARE(a.totals.flops, 27644673409024.0);
        QVERIFY(a.totals.bound == Bound::Compute);
        // 2 FLOPs per MAC: the matmuls alone are 2 x (params - embedding - lm_head) x tokens plus the last token's
        // head.
        const ParamCounts p = paramCount(model("llama-2-7b"));
        double matmul = 0;
        for (const auto &op : a.operators)
            if (op.cls == OpClass::Matmul)
                matmul += op.flops;
        const double lmHead = 32000.0 * 4096;
        const double expected = 2.0 * (p.total - p.embedding - lmHead - 4096 * 65) * 2048 + 2.0 * lmHead;
        QVERIFY2(near(matmul, expected, 1e-3), qPrintable(QString::number(matmul / expected)));
    }

    void promptCacheHitsSkipTheCachedPrefix()
    {
        // Llama 2 7B (hidden 4096, 32 layers, 32 heads of 128, no bias), one 2,048-token prompt, half of it cached.
        Scenario s;
        s.phase = Phase::Prefill;
        s.seq = 2048;
        const Analysis cold = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        s.promptCacheHitRate = 0.5;
        const Analysis warm = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        // Only the 1,024 new tokens go through the projections: 2 x 1024 x 4096 x (4096 + 2 x 4096) x 32 layers.
        QCOMPARE(findOp(warm, "attn.qkv_proj")->flops, 2.0 * 1024 * 4096 * 12288 * 32);
        QCOMPARE(findOp(warm, "attn.qkv_proj")->flops, findOp(cold, "attn.qkv_proj")->flops / 2);
        // They attend all 2,048 keys: the cached 1,024 are read from the cache (1024 x 4096 x 2 bytes per layer) ...
        QCOMPARE(findOp(cold, "attn.score")->kvBytes, 0.0);
        QCOMPARE(findOp(warm, "attn.score")->kvBytes, 1024.0 * 4096 * 2 * 32);
        // ... and the score FLOPs fall with the queries. Causally, the new tokens at positions 1025..2048 attend 1025
        // to 2048 keys: (1025 + 2048) x 1024 / 2 = 1,573,376 pairs per head (not 1024 x 2048 = 2,097,152), so
        // 2 x 32 heads x 1,573,376 x 128 x 32 layers.
        QCOMPARE(findOp(warm, "attn.score")->flops, 2.0 * 32 * 1573376 * 128 * 32);
        // Only new tokens are written to the cache; the footprint still holds the whole prompt.
        QCOMPARE(findOp(warm, "attn.kv_write")->kvBytes, 1024.0 * 2 * 4096 * 2 * 32);
        QCOMPARE(warm.kvCache.totalBytes, cold.kvCache.totalBytes);
        // All of it cached: the last token is still computed, to give the first output token's logits.
        s.promptCacheHitRate = 1;
        QCOMPARE(findOp(analyze(hw("h100-sxm"), model("llama-2-7b"), s), "attn.qkv_proj")->flops,
                 2.0 * 4096 * 12288 * 32);
        // In a whole request the time to first token falls, and decode is unchanged.
        s.phase = Phase::Generate;
        s.promptCacheHitRate = 0;
        const Analysis genCold = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        s.promptCacheHitRate = 0.9;
        const Analysis genWarm = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        QVERIFY(genWarm.phases.ttftS < 0.2 * genCold.phases.ttftS);
        QCOMPARE(genWarm.phases.tpotS, genCold.phases.tpotS);
    }

    void causalPrefillSkipsTheMaskedScores()
    {
        // Llama 2 7B (32 layers, 32 heads of 128), one 2,048-token prompt on an H100.
        Scenario s;
        s.phase = Phase::Prefill;
        s.seq = 2048;
        QVERIFY(s.causal); // the default
        const Analysis causal = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        s.causal = false;
        const Analysis full = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        // Token i attends keys 1..i: 1 + 2 + ... + 2048 = 2048 x 2049 / 2 = 2,098,176 pairs per head, not 2048^2.
        // QK^T and PV: 2 FLOPs x 32 heads x 2,098,176 x 128 x 32 layers each; softmax 5 x 32 x 2,098,176 x 32.
        QCOMPARE(findOp(causal, "attn.score")->flops, 2.0 * 32 * 2098176 * 128 * 32);
        QCOMPARE(findOp(causal, "attn.context")->flops, 2.0 * 32 * 2098176 * 128 * 32);
        QCOMPARE(findOp(causal, "attn.softmax")->flops, 5.0 * 32 * 2098176 * 32);
        QCOMPARE(findOp(full, "attn.score")->flops, 2.0 * 32 * 2048 * 2048 * 128 * 32);
        // The bytes stay: Q, K and V are read once either way and fused attention never stores the scores.
        QCOMPARE(causal.totals.bytes, full.totals.bytes);
        // Unfused attention multiplies the whole matrix and masks it afterwards: no pairs are skipped.
        s.fusedAttention = false;
        const Analysis unfusedFull = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        s.causal = true;
        const Analysis unfusedCausal = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        QCOMPARE(unfusedCausal.totals.flops, unfusedFull.totals.flops);
        s.fusedAttention = true;

        // Sliding window (Mistral 7B: 4096 keys, 32 layers, 32 heads of 128), 8,192-token prompt: the first 4096
        // tokens attend 1..4096 keys (4096 x 4097 / 2 = 8,390,656 pairs), the other 4096 attend 4096 each
        // (16,777,216): 25,167,872 pairs per head, against 8192 x 4096 = 33,554,432 without the mask.
        s.seq = 8192;
        QCOMPARE(findOp(analyze(hw("h100-sxm"), model("mistral-7b"), s), "attn.score")->flops,
                 2.0 * 32 * 25167872 * 128 * 32);

        // Decode's one query row attends every cached key: nothing changes.
        s.phase = Phase::Decode;
        s.context = 1024;
        const Analysis decodeCausal = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        s.causal = false;
        QCOMPARE(decodeCausal.totals.flops, analyze(hw("h100-sxm"), model("llama-2-7b"), s).totals.flops);
        // An encoder is bidirectional: the switch does not touch it.
        s.phase = Phase::Encode;
        s.seq = 512;
        const Analysis bertOff = analyze(hw("h100-sxm"), model("bert-large-uncased"), s);
        s.causal = true;
        QCOMPARE(analyze(hw("h100-sxm"), model("bert-large-uncased"), s).totals.flops, bertOff.totals.flops);
        // In a whole request the time to first token falls and the time per output token stays.
        s.phase = Phase::Generate;
        s.seq = 2048;
        const Analysis genCausal = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        s.causal = false;
        const Analysis genFull = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        QVERIFY(genCausal.phases.ttftS < genFull.phases.ttftS);
        QCOMPARE(genCausal.phases.tpotS, genFull.phases.tpotS);
    }

    void trainingActivationsOfAGatedMlpWithFusedAttention()
    {
        // Issue #16: Llama 2 7B training at 2,048 tokens (batch 1, FP16, fused attention, no recomputation) showed
        // 30.6 GB of stored activations: Korthikanti et al.'s GPT block, s*b*h*(34 + 5*a*s/h) per layer,
        // = 2048 x 4096 x (34 + 5 x 32 x 2048 / 4096) x 32 layers, s^2 scores included. Counted tensor by tensor for
        // this block (h 4096, 32 heads of 128, ffn 11008, 2 bytes an activation), per token and layer:
        //   two RMSNorm inputs + their outputs (the QKV and gate/up inputs)  2 x (2 + 2) x 4096 = 32,768
        //   Q, K, V (after rotary) and the out-projection input              2 x 4 x 4096       = 32,768
        //   gate and up (the SwiGLU input) and their product (down's input)  2 x 3 x 11008      = 66,048
        //   FlashAttention's log-sum-exp per query row and head (FP32)        4 x 32             =    128
        //                                                                                          131,712 B
        // x 2048 tokens x 32 layers = 8,631,877,632 B. Besides them the step holds two of its widest intermediates
        // (gate and up, 2 x 11008 wide): 2 x 2048 x 22016 x 2 = 180,355,072 B, and FP32 logits for every token:
        // 2048 x 32000 x 4 = 262,144,000 B. Total 9,074,376,704 B: the "about 9 GB".
        Scenario s;
        s.phase = Phase::Train;
        s.batch = 1;
        s.seq = 2048;
        const Analysis a = analyze(hw("a100-80gb-sxm"), model("llama-2-7b"), s);
        QCOMPARE(a.memory.activations, 131712.0 * 2048 * 32 + 2.0 * 2048 * 22016 * 2 + 2048.0 * 32000 * 4);
        // Selective recomputation recomputes the attention core: the log-sum-exp goes, 128 x 2048 x 32 B.
        s.recompute = Recompute::Selective;
        QCOMPARE(a.memory.activations - analyze(hw("a100-80gb-sxm"), model("llama-2-7b"), s).memory.activations,
                 128.0 * 2048 * 32);
        // Unfused attention keeps the softmax output, 32 heads x 2048 keys x 2 B per token instead of the 128 B (and
        // the step briefly holds one layer's whole score matrix, 32 x 2048 x 2048 x 2 B).
        s.recompute = Recompute::None;
        s.fusedAttention = false;
        QCOMPARE(analyze(hw("a100-80gb-sxm"), model("llama-2-7b"), s).memory.activations,
                 (131712.0 - 128 + 32 * 2048 * 2) * 2048 * 32 + 2.0 * 2048 * 22016 * 2 + 2048.0 * 32000 * 4 +
                     32.0 * 2048 * 2048 * 2);

        // The same count for Korthikanti's own GPT block (GPT-3 175B: h 12288, 96 heads, ffn 4h, LayerNorm,
        // unfused): 2 x (2 + 2) h for the norms + 2 x 4 h for attention + 2 x 2 x 4h for the plain MLP
        // = 32 h per token, plus the softmax output 2 x a x s: their 34 h + 5 a s less the dropout they count
        // and these models train without (1-byte masks after attention and MLP, 2 h; the attention-dropout mask
        // and output, 3 a s). Full recomputation keeps only each layer's input (2 h), so the difference between
        // none and full is 96 layers x 2048 tokens x (32 h + 2 a s - 2 h).
        const double h = 12288, heads = 96, seq = 2048;
        const double korthikanti = 34 * h + 5 * heads * seq, dropout = 2 * h + 3 * heads * seq;
        const Analysis none = analyze(hw("a100-80gb-sxm"), model("gpt-3-175b"), s);
        s.recompute = Recompute::Full;
        const Analysis full = analyze(hw("a100-80gb-sxm"), model("gpt-3-175b"), s);
        QCOMPARE(none.memory.activations - full.memory.activations, 96 * seq * (korthikanti - dropout - 2 * h));
    }

    void deviceCountIsSixtyFourBit()
    {
        // tp 65536 x pp 32768 = 2^31 devices: an int product printed -2147483648 (UBSan: signed overflow).
        Scenario s;
        s.tp = 65536;
        s.pp = 32768;
        const nlohmann::json j = analysisToJson(hw("h100-sxm"), model("llama-2-7b"), s, Analysis{});
        QCOMPARE(j["parallelism"]["devices"].get<int64_t>(), int64_t{1} << 31);
        // Every degree at its largest: 65536^4 = 2^64 devices does not fit 64 bits and is written as a real.
        s.pp = s.dp = s.ep = 65536;
        s.batch = 65536;
        const nlohmann::json huge = analysisToJson(hw("h100-sxm"), model("llama-2-7b"), s, Analysis{});
        QVERIFY(huge["parallelism"]["devices"].is_number_float());
        QCOMPARE(huge["parallelism"]["devices"].get<double>(), std::ldexp(1.0, 64));
    }

    void expertParallelismWaitsForTheBusiestDevice_data()
    {
        // Mixtral 8x7B decode, top-2 of 8 experts, FP16: one expert's FFN weights per layer are
        // 3 x 4096 x 14336 x 2 B = 352,321,536 B, over 32 layers 11,274,289,152 B.
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("batch");
        QTest::addColumn<double>("experts"); // experts per layer whose weights the busiest device reads
        // One device holds all 8: a token hits 2 of them.
        QTest::newRow("ep 1, batch 1") << 1 << 1 << 2.0;
        // 2 experts hit on 8 devices of one expert each: the 2 devices that hold them each read a whole expert; the
        // average device would read a quarter of one (8 x (1 - (1 - 2/8)^1) / 8 = 0.25).
        QTest::newRow("ep 8, batch 1") << 8 << 1 << 1.0;
        // 2 devices of 4 experts: the 2 experts hit lie on at least ceil(2 / 2) = 1 device, which reads at least
        // max(1, the average 4 x 0.25 = 1) expert.
        QTest::newRow("ep 2, batch 1") << 2 << 1 << 1.0;
        // Batch 64 hits 8 x (1 - 0.75^64) = 8.0 experts (to 8 digits): every device reads all of its own.
        QTest::newRow("ep 8, batch 64") << 8 << 64 << 1.0;
    }
    void expertParallelismWaitsForTheBusiestDevice()
    {
        QFETCH(int, ep);
        QFETCH(int, batch);
        QFETCH(double, experts);
        Scenario s;
        s.phase = Phase::Decode;
        s.ep = ep;
        s.batch = batch;
        const Analysis a = analyze(hw("h100-sxm"), model("mixtral-8x7b"), s);
        double ffnWeights = 0, tokenCopies = 0;
        for (const Operator &op : a.operators)
            if (op.name == "ffn.up" || op.name == "ffn.gate" || op.name == "ffn.down") {
                ffnWeights += op.weightBytes;
                if (op.name == "ffn.down")
                    tokenCopies = op.flops / (2.0 * 14336 * 4096 * 32);
            }
        const double expert = 32.0 * 3 * 4096 * 14336 * 2;
        QVERIFY2(near(ffnWeights, experts * expert, 1e-6),
                 qPrintable(QStringLiteral("%1 GB, expected %2 GB").arg(ffnWeights / 1e9).arg(experts * expert / 1e9)));
        // Each expert it reads gets at least one token: at batch 1 and ep 8 the busiest device multiplies one token
        // copy, not the average 2/8 of one.
        QVERIFY(tokenCopies >= experts - 1e-9);
    }

    void sharedExpertIsOnEveryRank_data()
    {
        // Qwen2 57B-A14B in BF16 (counts in tests/presets/tst_modelpresets.cpp): 28 layers of 64 routed experts,
        // 1,761,607,680 parameters a layer, 49,325,015,040 in all; the other 8,083,643,904 (attention, the shared
        // expert, router, norms, embeddings, LM head) stay whole on every expert-parallel rank.
        QTest::addColumn<int>("ep");
        QTest::addColumn<double>("params"); // weights one device holds
        QTest::newRow("ep 1") << 1 << 57408658944.0;
        // 8,083,643,904 + 49,325,015,040 / 8 = 14,249,270,784 (14.25 G): the shared expert is not split.
        QTest::newRow("ep 8") << 8 << 14249270784.0;
        // 64 routed experts divide by 16 (the shared one does not count): 8,083,643,904 + 3,082,813,440.
        QTest::newRow("ep 16") << 16 << 11166457344.0;
    }
    void sharedExpertIsOnEveryRank()
    {
        QFETCH(int, ep);
        QFETCH(double, params);
        Scenario s;
        s.phase = Phase::Decode;
        s.ep = ep;
        const Analysis a = analyze(hw("h100-sxm"), model("qwen2-57b-a14b"), s);
        QVERIFY2(
            near(a.memory.weights, params * 2, 1e-12),
            qPrintable(QStringLiteral("%1 G parameters, expected %2 G").arg(a.memory.weights / 2e9).arg(params / 1e9)));
        // Every token goes through the shared expert on its own rank: its three projections read all of their
        // 3 x 3584 x 20480 x 2 B = 440,401,920 B a layer, and multiply one token's worth, 2 x 3 x 3584 x 20480 FLOPs
        // (+ 2 x 3584 for the gate's multiply-add into the sum).
        double sharedBytes = 0, sharedFlops = 0;
        for (const Operator &op : a.operators)
            if (op.name.rfind("ffn.shared_", 0) == 0 && op.cls == OpClass::Matmul) {
                sharedBytes += op.weightBytes;
                sharedFlops += op.flops;
            }
        QVERIFY(near(sharedBytes, 28.0 * 440401920, 1e-12));
        QVERIFY(near(sharedFlops, 28.0 * (2.0 * 3 * 3584 * 20480 + 2.0 * 3584), 1e-12));
    }

    void decodeMultipliesEachActiveWeightOnce_data()
    {
        QTest::addColumn<QString>("id");
        QTest::newRow("dense") << "llama-2-7b";
        QTest::newRow("routed experts") << "mixtral-8x7b";
        QTest::newRow("routed and shared experts") << "qwen2-57b-a14b";
    }
    void decodeMultipliesEachActiveWeightOnce()
    {
        // One decode token multiplies each weight it uses once: 2 FLOPs a weight, so the matmuls that read weights
        // do 2 x (active parameters - the embedding table, which is looked up) FLOPs, up to biases and the shared
        // expert's gating (under 0.01 %). A MoE token at ep 1 uses its k routed experts and the shared one.
        QFETCH(QString, id);
        Scenario s;
        s.phase = Phase::Decode;
        s.context = 16;
        const ModelShape &m = model(qPrintable(id));
        const Analysis a = analyze(hw("h100-sxm"), m, s);
        double flops = 0;
        for (const Operator &op : a.operators)
            if (op.cls == OpClass::Matmul && op.weightBytes > 0)
                flops += op.flops;
        const ParamCounts p = paramCount(m);
        const double expected = 2.0 * static_cast<double>(p.active - p.embedding);
        QVERIFY2(near(flops, expected, 1e-3),
                 qPrintable(QStringLiteral("%1 GFLOP, expected %2").arg(flops / 1e9).arg(expected / 1e9)));
    }

    void deviceCountIncludesExpertParallelism()
    {
        // Mixtral 8x7B at ep 8 and dp 2: each replica holds its experts on 8 devices (one expert each) and keeps the
        // attention weights whole on every one of them; ep is not carved out of dp (dp 1 with ep 8 is allowed).
        // Devices = tp 1 x pp 1 x dp 2 x ep 8 = 16.
        Scenario s;
        s.ep = 8;
        s.dp = 2;
        s.batch = 2;
        const Analysis a = analyze(hw("h100-sxm"), model("mixtral-8x7b"), s);
        QCOMPARE(analysisToJson(hw("h100-sxm"), model("mixtral-8x7b"), s, a)["parallelism"]["devices"].get<int64_t>(),
                 int64_t{16});
        // What makes them separate devices: each holds the non-expert weights and 1 of the 8 experts per layer.
        const double expertParams = 32.0 * 8 * 3 * 4096 * 14336;
        QVERIFY(
            near(a.memory.weights, (static_cast<double>(a.params.total) - expertParams + expertParams / 8) * 2, 1e-12));
        s.tp = 2;
        s.pp = 4;
        QCOMPARE(analysisToJson(hw("h100-sxm"), model("mixtral-8x7b"), s, Analysis{})["parallelism"]["devices"]
                     .get<int64_t>(),
                 int64_t{2 * 4 * 2 * 8});
    }

    void ridgeIsPeakOverBandwidth()
    {
        const Analysis a = analyze(hw("h100-sxm"), model("llama-2-7b"), Scenario{});
        QVERIFY(near(a.ridge, 989.4e12 / 3.35e12, 0.01)); // 295 FLOP/byte
    }

    void operatorsAddUpToTotals_data()
    {
        QTest::addColumn<QString>("hardware");
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("phase");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("pp");
        QTest::newRow("llama-2-70b decode tp8 on h100") << "h100-sxm"
                                                        << "llama-2-70b" << int(Phase::Decode) << 8 << 1;
        QTest::newRow("llama-2-70b generate pp4 on a100") << "a100-80gb-sxm"
                                                          << "llama-2-70b" << int(Phase::Generate) << 1 << 4;
        QTest::newRow("mixtral prefill tp2 on h100") << "h100-sxm"
                                                     << "mixtral-8x7b" << int(Phase::Prefill) << 2 << 1;
        QTest::newRow("bert-base encode on xeon") << "xeon-gold-6242"
                                                  << "bert-base-uncased" << int(Phase::Encode) << 1 << 1;
        QTest::newRow("gpt2 train dp-less on a100") << "a100-80gb-sxm"
                                                    << "gpt2" << int(Phase::Train) << 1 << 1;
    }
    void operatorsAddUpToTotals()
    {
        QFETCH(QString, hardware);
        QFETCH(QString, model);
        QFETCH(int, phase);
        QFETCH(int, tp);
        QFETCH(int, pp);
        Scenario s;
        s.phase = static_cast<Phase>(phase);
        s.tp = tp;
        s.pp = pp;
        s.batch = 8;
        s.seq = 512;
        const Analysis a = analyze(hw(hardware.toLatin1().constData()), ::model(model.toLatin1().constData()), s);
        double flops = 0, bytes = 0, time = 0;
        for (const auto &op : a.operators) {
            QVERIFY(std::isfinite(op.flops) && op.flops >= 0);
            QVERIFY(std::isfinite(op.bytes()) && op.bytes() >= 0);
            QVERIFY(op.timeS >= 0);
            flops += op.flops;
            bytes += op.bytes();
            time += op.timeS;
        }
        QVERIFY(near(flops, a.totals.flops, 1e-9));
        QVERIFY(near(bytes, a.totals.bytes, 1e-9));
        QVERIFY(near(time + a.comm.timeS, a.totals.timeS, 1e-9));
        QCOMPARE(a.comm.timeS > 0, tp > 1 || pp > 1);
    }

    void fusedAttentionRemovesScoreTraffic()
    {
        Scenario s;
        s.phase = Phase::Prefill;
        s.seq = 4096;
        s.fusedAttention = false;
        const Analysis unfused = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        s.fusedAttention = true;
        const Analysis fused = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        // 32 heads x 4096 x 4096 scores x 2 B, written by score, read+written by softmax, read by context: 4 passes.
        const double scoreBytes = 32.0 * 4096 * 4096 * 2 * 32; // per model (32 layers)
        QVERIFY(near(unfused.totals.bytes - fused.totals.bytes, 4 * scoreBytes, 1e-9));
        QCOMPARE(findOp(fused, "attn.softmax")->bytes(), 0.0);
        // Causal prefill: the fused kernel skips the masked blocks, 4096 x 4097 / 2 = 8,390,656 pairs per head; the
        // unfused one multiplies and normalises the whole 4096 x 4096 matrix. 5 FLOPs per score, 32 heads, 32 layers.
        QCOMPARE(findOp(fused, "attn.softmax")->flops, 5.0 * 32 * 8390656 * 32);
        QCOMPARE(findOp(unfused, "attn.softmax")->flops, 5.0 * 32 * 4096 * 4096 * 32);
    }

    void tensorParallelSplitsHeads()
    {
        Scenario s;
        s.tp = 4;
        const Analysis a4 = analyze(hw("a100-80gb-sxm"), model("llama-65b"), s);
        s.tp = 1;
        const Analysis a1 = analyze(hw("a100-80gb-sxm"), model("llama-65b"), s);
        // Issue #4: LLaMA-65B on 4-way tensor parallelism holds ~1/4 of the weights per device and moves bytes each
        // layer.
        QVERIFY(near(a4.memory.weights, a1.memory.weights / 4, 0.01));
        QVERIFY(a4.comm.tpBytes > 0);
        // 64 heads on 4 devices -> 16 each: the score FLOPs per device are exactly a quarter.
        QVERIFY(near(findOp(a4, "attn.score")->flops, findOp(a1, "attn.score")->flops / 4, 1e-12));
        // Two ring all-reduces per layer, each moving 2(p-1)/p of batch x hidden x 2 B.
        const double perAllReduce = 2.0 * 3 / 4 * 1 * 8192 * 2;
        QVERIFY(near(a4.comm.tpBytes, perAllReduce * 2 * 80, 1e-9));
    }

    // MiniMax-M2.5 normalises q and k over all 48 and 8 heads (qk_norm_type per_layer): at tp 4 a rank holds 12 and
    // 2, so each of the 62 attention layers also all-reduces every token's two FP32 sums of squares. Decode, batch 8:
    // the two usual all-reduces of 8 x 3072 x 2 B a layer, and 8 x 2 x 4 B more, each ring moving 2 x 3/4 of it.
    void fullWidthQkNormAllReducesUnderTensorParallelism()
    {
        Scenario s;
        s.batch = 8;
        s.tp = 4;
        s.moeTp = 4;
        const Analysis a = analyze(hw("h200-sxm"), model("minimax-m2.5"), s);
        const double ring = 2.0 * 3 / 4;
        QVERIFY(near(a.comm.tpBytes, 62 * ring * (2 * 8 * 3072 * 2 + 8 * 2 * 4), 1e-12));
        ModelShape perHead = model("minimax-m2.5");
        perHead.qkNormFullWidth = false;
        QVERIFY(near(analyze(hw("h200-sxm"), perHead, s).comm.tpBytes, 62 * ring * 2 * 8 * 3072 * 2, 1e-12));
        s.tp = 1;
        s.moeTp = 1;
        QCOMPARE(analyze(hw("h200-sxm"), model("minimax-m2.5"), s).comm.tpBytes, 0.0);
    }

    void llama2_70bFitsOnEightA100sNotOne()
    {
        Scenario s;
        s.phase = Phase::Decode;
        s.batch = 64;
        s.context = 4096;
        const Analysis one = analyze(hw("a100-80gb-sxm"), model("llama-2-70b"), s);
        QVERIFY(!one.memory.fits);
        s.tp = 8;
        const Analysis eight = analyze(hw("a100-80gb-sxm"), model("llama-2-70b"), s);
        QVERIFY2(eight.memory.fits, qPrintable(QString::number(eight.memory.total())));
    }

    void int4WeightsAreAnEighthOfFp32_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<double>("ratio");
        QTest::newRow("INT4 = 12.5 % of FP32") << "int4" << 0.125;
        QTest::newRow("INT4 + FP16 scale per 128 = 4.125 bits = 12.9 %") << "int4/g128" << 4.125 / 32;
        QTest::newRow("INT8 = 25 % of FP32") << "int8" << 0.25;
    }
    void int4WeightsAreAnEighthOfFp32()
    {
        QFETCH(QString, format);
        QFETCH(double, ratio);
        Scenario s;
        s.weights = WeightFormat{DType::FP32};
        const Analysis fp32 = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        s.weights = WeightFormat{DType::INT4};
        if (format == "int4/g128")
            s.weights.groupSize = 128;
        if (format == "int8")
            s.weights.type = DType::INT8;
        const Analysis q = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        QVERIFY(near(q.memory.weights / fp32.memory.weights, ratio, 1e-9));
        QVERIFY(q.memory.weights / fp32.memory.weights >= 0.125 && q.memory.weights / fp32.memory.weights <= 0.25);
        QVERIFY(q.totals.timeS < fp32.totals.timeS); // decode follows the bytes
    }

    // The microscaling formats (OCP MX v1.0: one 8-bit E8M0 scale per 32 elements; NVIDIA NVFP4: one E4M3 scale per
    // 16) are element types with group scales: MXFP4 = 4 + 8/32 = 4.25 bits, NVFP4 = 4 + 8/16 = 4.5, MXFP6 = 6.25.
    void blockFloatFormatsCountTheirScales_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("type");
        QTest::addColumn<double>("bits");
        QTest::addColumn<QString>("written");
        QTest::newRow("fp4 = 4 bits") << "fp4" << int(DType::FP4) << 4.0 << "fp4";
        QTest::newRow("fp6 = 6 bits") << "fp6" << int(DType::FP6) << 6.0 << "fp6";
        QTest::newRow("nvfp4 = 4.5 bits") << "nvfp4" << int(DType::FP4) << 4.5 << "fp4/g16/fp8";
        QTest::newRow("NVFP4 in capitals") << "NVFP4" << int(DType::FP4) << 4.5 << "fp4/g16/fp8";
        QTest::newRow("mxfp4 = 4.25 bits") << "mxfp4" << int(DType::FP4) << 4.25 << "fp4/g32/fp8";
        QTest::newRow("mxfp6 = 6.25 bits") << "mxfp6" << int(DType::FP6) << 6.25 << "fp6/g32/fp8";
        QTest::newRow("fp4/g16/fp8 reads back") << "fp4/g16/fp8" << int(DType::FP4) << 4.5 << "fp4/g16/fp8";
    }
    void blockFloatFormatsCountTheirScales()
    {
        QFETCH(QString, text);
        QFETCH(int, type);
        QFETCH(double, bits);
        QFETCH(QString, written);
        const auto w = weightFormatFromString(text.toStdString());
        QVERIFY(w.has_value());
        QCOMPARE(int(w->type), type);
        QCOMPARE(w->bitsPerWeight(), bits);
        QCOMPARE(QString::fromStdString(toString(*w)), written);
        QCOMPARE(weightFormatFromString(toString(*w)), w); // what is written reads back
    }

    // FP4 activations run at the FP4 peak where the datasheet gives one (B200: 9 PFLOPS dense), otherwise in the next
    // wider format the device has (H100 has FP8 but no FP4 or FP6).
    void fp4MatmulsRunInTheNearestSupportedFormat()
    {
        QCOMPARE(int(hw("b200").computeType(DType::FP4)), int(DType::FP4));
        QCOMPARE(hw("b200").peak(DType::FP4), 9e15);
        QCOMPARE(int(hw("h100-sxm").computeType(DType::FP4)), int(DType::FP8));
        QCOMPARE(int(hw("h100-sxm").computeType(DType::FP6)), int(DType::FP8));
        QCOMPARE(int(hw("a100-80gb-sxm").computeType(DType::FP4)), int(DType::FP16));
        Scenario s;
        s.phase = Phase::Prefill;
        s.seq = 2048;
        s.activations = DType::FP4;
        s.weights = *weightFormatFromString("nvfp4");
        const Analysis fp4 = analyze(hw("b200"), model("llama-2-7b"), s);
        s.activations = DType::FP8;
        s.weights = WeightFormat{DType::FP8};
        const Analysis fp8 = analyze(hw("b200"), model("llama-2-7b"), s);
        QVERIFY(near(fp4.memory.weights / fp8.memory.weights, 4.5 / 8, 1e-9));
        QVERIFY(fp4.totals.timeS < fp8.totals.timeS); // compute-bound prefill at twice the peak
        QCOMPARE(QString::fromStdString(dtypeList()), QStringLiteral("fp64, fp32, tf32, bf16, fp16, fp8, fp6, fp4, "
                                                                     "int8, int4"));
    }

    void adamMixedPrecisionIs16BytesPerParam()
    {
        Scenario s;
        s.phase = Phase::Train;
        s.batch = 1;
        s.seq = 512;
        s.weights = WeightFormat{DType::BF16};
        s.activations = DType::BF16;
        const Analysis a = analyze(hw("a100-80gb-sxm"), model("gpt2-xl"), s);
        const double params = static_cast<double>(a.params.total);
        QVERIFY(near((a.memory.weights + a.memory.gradients + a.memory.optimizer) / params, 16.0, 1e-9));
        s.zeroStage = 3;
        s.dp = 8;
        s.batch = 8;
        const Analysis z3 = analyze(hw("a100-80gb-sxm"), model("gpt2-xl"), s);
        QVERIFY(near((z3.memory.weights + z3.memory.gradients + z3.memory.optimizer) / params, 2.0, 1e-9));
    }

    void fullRecomputationCutsActivations()
    {
        Scenario s;
        s.phase = Phase::Train;
        s.batch = 8;
        s.seq = 2048;
        s.recompute = Recompute::None;
        const Analysis none = analyze(hw("a100-80gb-sxm"), model("llama-2-7b"), s);
        s.recompute = Recompute::Full;
        const Analysis full = analyze(hw("a100-80gb-sxm"), model("llama-2-7b"), s);
        QVERIFY(none.memory.activations >= 3 * full.memory.activations);
        QVERIFY(full.totals.flops > none.totals.flops); // paid for with compute
        QVERIFY(full.totals.flops < 1.4 * none.totals.flops);
    }

    void decodeThroughputNeverFallsWithBatch()
    {
        Scenario s;
        s.context = 1024;
        double previous = 0;
        for (int64_t b = 1; b <= 4096; b *= 2) {
            s.batch = b;
            const Analysis a = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
            if (!a.memory.fits)
                break;
            QVERIFY2(a.totals.tokensPerS >= previous, qPrintable(QString("batch %1").arg(b)));
            previous = a.totals.tokensPerS;
        }
        QVERIFY(previous > 0);
    }

    void generateSplitsIntoPhases()
    {
        Scenario s;
        s.phase = Phase::Generate;
        s.seq = 512;
        s.output = 128;
        const Analysis a = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        QVERIFY(a.phases.ttftS > 0 && a.phases.tpotS > 0);
        QVERIFY(near(a.phases.e2eS, a.phases.ttftS + 127 * a.phases.tpotS, 1e-9));
        QVERIFY(near(a.phases.e2eS, a.totals.timeS, 1e-12));
    }

    void noKvCacheRecomputesContext()
    {
        Scenario s;
        s.context = 1024;
        const Analysis with = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        s.kvCache = false;
        const Analysis without = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        QVERIFY(without.totals.flops > 500 * with.totals.flops);
        QCOMPARE(without.memory.kv, 0.0);
    }

    void errors_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("phase");
        QTest::addColumn<QString>("message");
        QTest::newRow("tp not dividing heads") << "llama-65b" << 3 << 1 << int(Phase::Decode)
                                               << "tp 3 does not divide the 64 attention heads of llama-65b";
        QTest::newRow("pp not dividing layers")
            << "llama-65b" << 1 << 7 << int(Phase::Decode) << "pp 7 does not divide the 80 layers of llama-65b";
        QTest::newRow("encoder cannot decode")
            << "bert-base-uncased" << 1 << 1 << int(Phase::Decode)
            << "bert-base-uncased is an encoder: it has no decode phase (use --phase encode)";
    }
    void errors()
    {
        QFETCH(QString, model);
        QFETCH(int, tp);
        QFETCH(int, pp);
        QFETCH(int, phase);
        QFETCH(QString, message);
        Scenario s;
        s.tp = tp;
        s.pp = pp;
        s.phase = static_cast<Phase>(phase);
        try {
            analyze(hw("a100-80gb-sxm"), ::model(model.toLatin1().constData()), s);
            QFAIL("no error");
        } catch (const AnalysisError &e) {
            QCOMPARE(QString(e.what()), message);
        }
    }

    void invalidScenarioIsRefused()
    {
        Scenario s;
        s.batch = 0;
        QCOMPARE(QString::fromStdString(validate(s)), QString("batch must be between 1 and 16777216, got 0"));
        QVERIFY_THROWS_EXCEPTION(AnalysisError, analyze(hw("h100-sxm"), model("llama-2-7b"), s));
    }

    void structuredSparsitySavesFlopsUnstructuredOnlyBytes()
    {
        Scenario s;
        s.phase = Phase::Prefill;
        s.seq = 1024;
        const Analysis dense = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        s.unstructuredSparsity = 0.8;
        const Analysis u = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        QVERIFY(near(u.totals.flops, dense.totals.flops, 1e-12)); // dense hardware still multiplies the zeros
        QVERIFY(u.memory.weights < 0.35 * dense.memory.weights);
        s.unstructuredSparsity = 0;
        s.structuredSparsity = 0.3;
        const Analysis st = analyze(hw("h100-sxm"), model("llama-2-7b"), s);
        QVERIFY(st.totals.flops < 0.8 * dense.totals.flops);
    }

    // GPTQ checkpoints as published: TheBloke/Llama-2-13B-GPTQ, README "Provided files" (the table as copied in the
    // README of huggingface.co/tridungduong16/Llama-2-13B-GPTQ-Orca @ fd5b5b96, "Meta's Llama 2 13B GPTQ"; 4-bit,
    // made with AutoGPTQ): main (group 128) 7.26 GB, gptq-4bit-64g 7.51 GB, gptq-4bit-32g 8.00 GB. GPTQ quantizes only
    // the transformer blocks (the token embedding and the untied LM head stay FP16) and stores a 4-bit zero point
    // beside each group's FP16 scale. By hand, Llama 2 13B:
    //   embedding 32,000 x 5,120 = 163,840,000; head: LM head 163,840,000 + final norm 5,120 = 163,845,120;
    //   16-bit part 327,685,120 x 2 B = 655,370,240 B;
    //   the rest 13,015,864,320 - 327,685,120 = 12,688,179,200 weights at 4 + 16/g + 4/g bits:
    //     g128: x 133/256 B = 6,591,905,600 B, in all 7,247,275,840 B (7.25 GB against 7.26: -0.2 %);
    //     g64:  x 138/256 B = 6,839,721,600 B, in all 7,495,091,840 B (7.50 GB against 7.51);
    //     g32:  x 148/256 B = 7,335,353,600 B, in all 7,990,723,840 B (7.99 GB against 8.00).
    //   Without either option g128 counts 13,015,864,320 x 132/256 = 6,711,352,540.8 B: 7.6 % under the file.
    void gptqCheckpointBytes_data()
    {
        QTest::addColumn<int>("group");
        QTest::addColumn<double>("counted");
        QTest::addColumn<double>("published");
        QTest::newRow("int4/g128 (main)") << 128 << 7247275840.0 << 7.26e9;
        QTest::newRow("int4/g64") << 64 << 7495091840.0 << 7.51e9;
        QTest::newRow("int4/g32") << 32 << 7990723840.0 << 8.00e9;
    }
    void gptqCheckpointBytes()
    {
        QFETCH(int, group);
        QFETCH(double, counted);
        QFETCH(double, published);
        Scenario s;
        s.weights = {DType::INT4, group, DType::FP16};
        QCOMPARE(paramCount(model("llama-2-13b")).total, int64_t(13015864320));
        const double plain = analyze(hw("h100-sxm"), model("llama-2-13b"), s).weightBytes;
        s.weightZeroPoints = true;
        s.unquantizedEmbeddings = true;
        const Analysis a = analyze(hw("h100-sxm"), model("llama-2-13b"), s);
        QCOMPARE(a.weightBytes, counted);
        QCOMPARE(a.memory.weights, counted); // one device holds them all
        QVERIFY2(std::abs(a.weightBytes / published - 1) < 0.005, qPrintable(QString::number(a.weightBytes)));
        if (group == 128) {
            QCOMPARE(plain, 13015864320.0 * 132 / 256);
            QVERIFY(std::abs(plain / published - 1) > 0.07); // the counts the options replace were this far off
        }
        // A decode step reads the 16-bit LM head: 5,120 x 32,000 x 2 B.
        for (const Operator &op : a.operators)
            if (op.name == "lm_head")
                QCOMPARE(op.weightBytes, 5120.0 * 32000 * 2);
        // With tp 2 a device holds half of each part.
        s.tp = 2;
        QCOMPARE(analyze(hw("h100-sxm"), model("llama-2-13b"), s).memory.weights, counted / 2);
    }

    // Gemma 2 norms the attention's and the FFN's outputs too: four RMSNorms per layer. By hand, Gemma 2 9B (hidden
    // 3,584, 42 layers, 16 heads and 8 KV heads of 256, FFN 14,336 gated, vocabulary 256,000, tied embeddings):
    //   embedding 256,000 x 3,584 = 917,504,000;
    //   a layer: q 3,584 x 4,096 + k and v 2 x 3,584 x 2,048 + o 4,096 x 3,584 = 44,040,192, FFN 3 x 3,584 x 14,336
    //   = 154,140,672, four norms 4 x 3,584 = 14,336: 198,195,200, x 42 = 8,324,198,400;
    //   final norm 3,584: in all 9,241,705,984, keras-hub's gemma2_9b_en figure (two norms gave 301,056 fewer).
    void gemma2HasFourNormsPerLayer()
    {
        const ModelShape &m = model("gemma-2-9b");
        QVERIFY(m.postNorms);
        QCOMPARE(paramCount(m).total, int64_t(9241705984));
        Scenario s;
        int norms = 0;
        for (const Operator &op : analyze(hw("h100-sxm"), m, s).operators)
            norms += op.name.ends_with("norm") && op.name != "final_norm" && op.count == m.layers ? 1 : 0;
        QCOMPARE(norms, 4); // attn.norm, attn.post_norm, ffn.norm, ffn.post_norm, each run once per layer
        bool post = false;
        for (const Operator &op : analyze(hw("h100-sxm"), model("llama-2-7b"), s).operators)
            post = post || op.name.find("post_norm") != std::string::npos;
        QVERIFY(!post);
    }
};

QTEST_GUILESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
