// Tests for core/analysis/serving: the request timeline, speculative decoding, chunked prefill, disaggregation,
// KV-cache offload, energy and cost. Hand counts, written out here:
//
// Speculative decoding (Leviathan et al. 2023, eq. 1): E = (1 - A^(K+1)) / (1 - A) tokens per verification step.
//   K 4, A 0.8: (1 - 0.32768) / 0.2 = 3.3616        K 4, A 0.6: (1 - 0.07776) / 0.4 = 2.3056
//   K 1, A 0.5: (1 - 0.25) / 0.5 = 1.5              A 0: 1 (only the model's own token)
//
// Llama 3 70B's KV cache (80 layers, 8 KV heads of 128, FP16): 2 x 80 x 8 x 128 x 2 B = 327,680 B per token;
// a 2,048-token prompt: 671,088,640 B (the "671 MB"). Disaggregated 8:8 at tp 8 on H100 (NVLink 4.0, 450 GB/s
// per direction): a batch of 16 requests moves 16 x 671,088,640 B over the 8 devices' links:
//   10,737,418,240 / (8 x 450e9) = 2.9826 ms, plus the link's latency.
//
// Engine admission, Llama 3 70B at tp 8 on H100s, 64 clients of 8,192-token prompts and 1,024 output tokens, a budget
// of 8,192 tokens per step. Try k = 1 step per prompt: r = 64 / (1 + 1,023) = 0.0625 requests per step,
// D = 0.0625 x 1,023 = 63.94 decodes, so a prompt step has room for 8,192 - 63.94 = 8,128.06 < 8,192 prompt tokens:
// k = 2. Again with k = 2: r = 64 / 1,025 = 0.062439, D = 63.875, P = 8,192 - 63.875 = 8,128.125, k = 2 (settled).
// Per step r x 8,192 + D = 575.4 tokens, within the budget; a share f = 511.5 / 8,128.125 = 0.06293 of the steps
// carries a prompt chunk. TTFT = 2 mixed steps; TPOT = decode step + f x (mixed step - decode step).
// Budget-bound: 8,192-token prompts and 128 output tokens: r = 8,192 / (8,192 + 127) = 0.98474 requests per step,
// D = 125.06, P = 8,066.94, k = 2; N = 0.98474 x (2 + 127) = 127.03 requests run, the rest of 512 queue for
// (512 - 127.03) / 0.98474 = 390.93 steps.
//
// Arrivals together (a benchmark client's 64 requests sent at once), the same run: the wave's
// 64 x 8,192 prompt tokens fill W = 64 steps of 8,192, prompt j has its first token after s_j = j + 1 of them (mean
// 32.5), then decodes in 64 - (j + 1) more mixed steps (mean 31.5) and 1,023 - that many plain ones. TTFT = 32.5 mixed
// steps, TPOT = (31.5 x mixed + 991.5 x decode) / 1,023, and a wave of 64 + 1,023 steps serves 64 requests.
// Arrivals in rounds (aiperf: 20 x 64 requests, the first 64 at once): round 1 is that wave, rounds 2-20 the steady
// state above, so TTFT = (32.5 wave mixed steps + 19 x 2 steady mixed steps) / 20 = 1.625 + 1.9 mixed steps.
//
// Energy: an H100 (700 W TDP) at full draw, 8 devices, a request taking e2e seconds for batch x output tokens:
//   J/token = 700 x 8 x e2e / (batch x output).
// Cost: $3.99 per device-hour: $/million tokens = 3.99 x 8 / 3,600 x e2e / (batch x output) x 1e6.
#include "core/analysis/serving.h"
#include "core/io/analysisjson.h"
#include "core/io/presets.h"

#include <QtTest>

#include <cmath>

namespace memwall::core {

class TestServing : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { m_lib.loadBuiltin(); }
    void tokensPerStep_data();
    void tokensPerStep();
    void speculativeBreaksEvenWhereItShould();
    void verifyStepMovesRightOnTheRoofline();
    void timelineFollowsTheGrowingCache();
    void chunkedPrefillSharesTheWeights();
    void disaggregationByHand();
    void offloadStreamsOverTheHostLink();
    void weightOffloadStreamsEveryStep();
    void twoTiersStreamInParallel();
    void energyAndCostByHand();
    void badCombinationsAreRefused();
    void timelineCurvesByHand();
    void timelineCurvesOfARequest();
    void achievableChunkedStepIsNoFasterThanDecode_data();
    void achievableChunkedStepIsNoFasterThanDecode();
    void achievableOffloadIsNoFasterThanInMemory();
    void requestIsTheWayOfServingAskedFor();
    void admissionInTwoSteps();
    void admissionQueuesBeyondTheBudget();
    void admissionTogetherInWaves();
    void admissionInRounds();
    void admissionQueuesBeyondMemory();

private:
    PresetLibrary m_lib;
    const HardwareSpec &hw(const char *id) { return *m_lib.findHardware(id); }
    const ModelShape &model(const char *id) { return m_lib.findModel(id)->shape; }
    static Scenario llama70OnH100()
    {
        Scenario s;
        s.phase = Phase::Generate;
        s.tp = 8;
        s.batch = 16;
        s.seq = 2048;
        s.output = 256;
        return s;
    }
};

void TestServing::tokensPerStep_data()
{
    QTest::addColumn<int>("k");
    QTest::addColumn<double>("acceptance");
    QTest::addColumn<double>("expected");
    QTest::newRow("K 4, A 0.8") << 4 << 0.8 << 3.3616;
    QTest::newRow("K 4, A 0.6") << 4 << 0.6 << 2.3056;
    QTest::newRow("K 1, A 0.5") << 1 << 0.5 << 1.5;
    QTest::newRow("A 0: the model's own token") << 4 << 0.0 << 1.0;
}

void TestServing::tokensPerStep()
{
    QFETCH(int, k);
    QFETCH(double, acceptance);
    QFETCH(double, expected);
    QVERIFY(std::abs(speculativeTokensPerStep(k, acceptance) - expected) < 1e-12);
}

void TestServing::speculativeBreaksEvenWhereItShould()
{
    Scenario s = llama70OnH100();
    s.speculativeK = 4;
    for (double a : {0.6, 0.8}) {
        s.acceptance = a;
        const ServingReport r = serve(hw("h100-sxm"), model("llama-3-70b"), s);
        QVERIFY(r.speculative);
        const SpeculativeReport &sp = *r.speculative;
        QCOMPARE(sp.draft, std::string("mtp"));
        QVERIFY(std::abs(sp.tokensPerStep - speculativeTokensPerStep(4, a)) < 1e-12);
        QVERIFY(std::abs(sp.speedup - sp.tokensPerStep * sp.plainStepS / (sp.verifyStepS + 4 * sp.draftStepS)) < 1e-12);
        // At the break-even rate the tokens a step yields pay exactly for the step.
        QVERIFY(sp.breakEvenAcceptance);
        const double e = speculativeTokensPerStep(4, *sp.breakEvenAcceptance);
        QVERIFY(std::abs(e * sp.plainStepS - (sp.verifyStepS + 4 * sp.draftStepS)) < 1e-9 * sp.plainStepS);
        QVERIFY(*sp.breakEvenAcceptance < a); // memory-bound decode: verification is nearly free, so it pays here
        QVERIFY(sp.speedup > 1);
        // The MTP module is one block of 80 and the head: far cheaper than a step of the model.
        QVERIFY(sp.draftStepS < sp.plainStepS / 10);
    }
    // A draft model as large as the model itself never pays: even A -> 1 cannot.
    s.draftModel = "llama-3-70b";
    const ServingReport same = serve(hw("h100-sxm"), model("llama-3-70b"), s, m_lib.draftModel(s));
    QVERIFY(same.speculative && !same.speculative->breakEvenAcceptance);
    QVERIFY(same.speculative->speedup < 1);
    QCOMPARE(same.speculative->draft, std::string("llama-3-70b"));
}

void TestServing::verifyStepMovesRightOnTheRoofline()
{
    Scenario s = llama70OnH100();
    s.phase = Phase::Decode;
    s.context = 2048;
    const Analysis one = analyze(hw("h100-sxm"), model("llama-3-70b"), s);
    const Analysis same = analyzeDecodeStep(hw("h100-sxm"), model("llama-3-70b"), s, 1);
    QCOMPARE(same.totals.timeS, one.totals.timeS);
    QCOMPARE(same.totals.flops, one.totals.flops);
    const Analysis five = analyzeDecodeStep(hw("h100-sxm"), model("llama-3-70b"), s, 5);
    // The weight matmuls do five times the work on the same weights.
    for (const char *name : {"attn.qkv_proj", "ffn.up", "ffn.down", "lm_head"}) {
        const auto find = [name](const Analysis &a) {
            return *std::find_if(a.operators.begin(), a.operators.end(),
                                 [name](const Operator &op) { return op.name == name; });
        };
        QVERIFY2(std::abs(find(five).flops / find(one).flops - 5) < 1e-9, name);
        QCOMPARE(find(five).weightBytes, find(one).weightBytes);
    }
    QVERIFY(five.totals.intensity > 4 * one.totals.intensity);
    QVERIFY_THROWS_EXCEPTION(AnalysisError, analyzeDecodeStep(hw("h100-sxm"), model("llama-3-70b"), s, 0));
    s.phase = Phase::Prefill;
    QVERIFY_THROWS_EXCEPTION(AnalysisError, analyzeDecodeStep(hw("h100-sxm"), model("llama-3-70b"), s, 2));
}

void TestServing::timelineFollowsTheGrowingCache()
{
    const Scenario s = llama70OnH100();
    const ServingReport r = serve(hw("h100-sxm"), model("llama-3-70b"), s);
    const Analysis gen = analyze(hw("h100-sxm"), model("llama-3-70b"), s);
    QCOMPARE(r.request.ttftS, gen.phases.ttftS);
    QCOMPARE(r.request.tpotS, gen.phases.tpotS);
    QCOMPARE(r.request.e2eS, gen.phases.e2eS);
    QCOMPARE(r.request.tokensPerSPerUser, 1.0 / gen.phases.tpotS);
    QCOMPARE(r.request.stepS.size(), std::size_t(255)); // tokens 2..256 come from decode steps
    QCOMPARE(r.request.stepToken.front(), int64_t(2));
    QCOMPARE(r.request.stepToken.back(), int64_t(256));
    // The first step attends the 2,048 prompt tokens and itself: a decode at context 2,048.
    Scenario first = s;
    first.phase = Phase::Decode;
    first.context = 2048;
    QCOMPARE(r.request.stepS.front(), analyze(hw("h100-sxm"), model("llama-3-70b"), first).totals.timeS);
    double sum = 0;
    for (std::size_t i = 0; i < r.request.stepS.size(); ++i) {
        sum += r.request.stepS[i];
        if (i > 0)
            QVERIFY(r.request.stepS[i] >= r.request.stepS[i - 1]); // the cache only grows
    }
    // Time per output token is the step at the mean context: the steps' mean, within a hundredth.
    QVERIFY(std::abs(sum / 255 / r.request.tpotS - 1) < 0.01);

    Scenario longer = s;
    longer.output = 4097;
    const ServingReport l = serve(hw("h100-sxm"), model("llama-3-70b"), longer);
    QCOMPARE(l.request.stepS.size(), std::size_t(256)); // listed evenly, not all 4,096
    QCOMPARE(l.request.stepToken.back(), int64_t(4097));
}

void TestServing::chunkedPrefillSharesTheWeights()
{
    Scenario s = llama70OnH100();
    s.chunkedPrefill = 512;
    const ServingReport r = serve(hw("h100-sxm"), model("llama-3-70b"), s);
    QVERIFY(r.chunkedPrefill);
    const ChunkedPrefillReport &c = *r.chunkedPrefill;
    QCOMPARE(c.chunk, int64_t(512));
    QCOMPARE(c.stepsPerPrompt, int64_t(4));
    QCOMPARE(c.ttftS, 4 * c.mixedStepS);
    // One step over both never beats either alone, and never costs more than both one after the other.
    QVERIFY(c.mixedStepS >= std::max(c.decodeStepS, c.chunkAloneS));
    QVERIFY(c.mixedStepS < c.decodeStepS + c.chunkAloneS);
    QVERIFY(c.slowdown > 1);
    // The chunk's 512 tokens move the step right on the roofline.
    QVERIFY(c.mixedIntensity > 10 * c.decodeIntensity);
    // A chunk longer than the prompt is the whole prompt.
    s.chunkedPrefill = 100000;
    QCOMPARE(serve(hw("h100-sxm"), model("llama-3-70b"), s).chunkedPrefill->stepsPerPrompt, int64_t(1));
}

void TestServing::disaggregationByHand()
{
    Scenario s = llama70OnH100();
    s.prefillDevices = 8;
    s.decodeDevices = 8;
    const HardwareSpec &h100 = hw("h100-sxm");
    const ServingReport r = serve(h100, model("llama-3-70b"), s);
    QVERIFY(r.disaggregation);
    const DisaggregationReport &d = *r.disaggregation;
    QCOMPARE(d.kvBytesPerRequest, 671088640.0);
    const Interconnect &link = *h100.scaleUpLink();
    QCOMPARE(d.link, link.name);
    const double transfer = 16 * 671088640.0 / (8 * link.bandwidthBytesPerS.value) + link.latencyS.value;
    QVERIFY(std::abs(d.kvTransferS - transfer) < 1e-15);
    QVERIFY(std::abs(16 * 671088640.0 / (8 * 450e9) - 2.9826e-3) < 1e-7); // the hand count above
    QCOMPARE(d.ttftS, d.prefillS + d.kvTransferS);
    QCOMPARE(d.tpotS, r.request.tpotS);
    // One instance each: requests/s = 16 / prefill time, and 16 / (255 decode steps).
    QVERIFY(std::abs(d.prefillRequestsPerS - 16 / d.prefillS) < 1e-9);
    QVERIFY(std::abs(d.decodeRequestsPerS - 16 / (255 * d.tpotS)) < 1e-9);
    QCOMPARE(d.requestsPerS, std::min(d.prefillRequestsPerS, d.decodeRequestsPerS));
    // Splits of 16 devices in copies of 8: only 8:8.
    QCOMPARE(d.splits.size(), std::size_t(1));
    s.tp = 2;
    s.prefillDevices = 2;
    s.decodeDevices = 14;
    const DisaggregationReport w = *serve(h100, model("llama-3-70b"), s).disaggregation;
    QCOMPARE(w.splits.size(), std::size_t(7));
    double best = 0;
    for (const auto &sp : w.splits)
        best = std::max(best, sp.requestsPerS);
    bool found = false;
    for (const auto &sp : w.splits)
        if (sp.requestsPerS == best)
            found = found || (sp.prefillDevices == w.bestPrefillDevices && sp.decodeDevices == w.bestDecodeDevices);
    QVERIFY(found);
}

void TestServing::offloadStreamsOverTheHostLink()
{
    // Llama 3 70B at a 128k context, batch 16, tp 8 on H100: the KV cache (327,680 B x 131,073 tokens x 16 / 8
    // devices = 85.9 GB per device) no longer fits beside the 17.6 GB of weights in 80 GB.
    Scenario s = llama70OnH100();
    s.phase = Phase::Decode;
    s.context = 131072;
    const HardwareSpec &h100 = hw("h100-sxm");
    const Analysis inMemory = analyze(h100, model("llama-3-70b"), s);
    QVERIFY(!inMemory.memory.fits);
    s.kvOffload = KvOffload::Host;
    const ServingReport r = serve(h100, model("llama-3-70b"), s);
    QVERIFY(r.offload);
    const OffloadReport &o = *r.offload;
    QCOMPARE(o.kvBytes, inMemory.memory.kv);
    QVERIFY(std::abs(o.kvBytes - 327680.0 * 131073 * 16 / 8) < 1);
    // Auto: exactly what does not fit is offloaded.
    QVERIFY(std::abs(o.offloadedBytes - (inMemory.memory.total() - inMemory.memory.capacity)) < 1);
    QVERIFY(std::abs(o.mainMemoryBytes - inMemory.memory.capacity) < 1);
    QVERIFY(o.fitsMainMemory && o.fitsTier);
    // Every step streams the offloaded share of the cache over PCIe, at 64 GB/s: far slower than HBM.
    double kvRead = 0;
    for (const Operator &op : inMemory.operators)
        kvRead += op.kvBytes;
    QVERIFY(std::abs(o.linkS - o.fraction * kvRead / 64e9) < 1e-12);
    QCOMPARE(o.stepS, o.linkS + inMemory.comm.timeS);
    QVERIFY(o.stepS > 5 * o.stepInMemoryS);
    QCOMPARE(o.wall, "the " + o.level + " link");
    // A fraction set by hand.
    s.kvOffloadFraction = 0.25;
    QCOMPARE(serve(h100, model("llama-3-70b"), s).offload->offloadedBytes, 0.25 * o.kvBytes);
}

void TestServing::weightOffloadStreamsEveryStep()
{
    // Llama 3 70B in FP16 on ONE H100, batch 1 at a 2k context: 70.55 G parameters x 2 B = 141 GB of weights do not
    // fit in 80 GB. With weight_offload host (auto) exactly the excess moves to host DRAM, and every decode step reads
    // what it reads of it back over PCIe 5.0 x16 at 64 GB/s: about 61 GB (the embedding table is not read whole) /
    // 64 GB/s = 0.95 s per token, where HBM alone would take 141 GB / 3.35 TB/s = 42 ms. That is why FlexGen-style
    // offload pays only with a large batch.
    Scenario s;
    s.phase = Phase::Decode;
    s.context = 2048;
    const HardwareSpec &h100 = hw("h100-sxm");
    const Analysis a = analyze(h100, model("llama-3-70b"), s);
    QVERIFY(!a.memory.fits);
    QVERIFY(std::abs(a.memory.weights / 141.1e9 - 1) < 0.01);
    s.weightOffload = KvOffload::Host;
    const OffloadReport o = offload(h100, model("llama-3-70b"), s);
    QVERIFY(o.tier == KvOffload::None);
    QCOMPARE(o.offloadedBytes, 0.0);
    QCOMPARE(o.weightBytes, a.memory.weights);
    QVERIFY(std::abs(o.offloadedWeightBytes - (a.memory.total() - 80e9)) < 1);
    QVERIFY(std::abs(o.mainMemoryBytes - 80e9) < 1);
    QVERIFY(o.fitsMainMemory && o.fitsTier);
    QCOMPARE(o.tiers.size(), std::size_t(1));
    double weightRead = 0;
    for (const Operator &op : a.operators)
        weightRead += op.weightBytes;
    QVERIFY(std::abs(o.tiers[0].streamedBytes - o.weightFraction * weightRead) < 1);
    QVERIFY(std::abs(o.linkS - o.weightFraction * weightRead / 64e9) < 1e-12);
    QVERIFY(o.linkS > 0.9 && o.linkS < 1.0);
    QVERIFY(std::abs(o.stepInMemoryS - a.totals.timeS) < 1e-15);
    QVERIFY(o.stepInMemoryS > 0.040 && o.stepInMemoryS < 0.044);
    QCOMPARE(o.stepS, o.linkS); // tp 1: no communication
    QCOMPARE(o.wall, "the " + o.weightLevel + " link");
    // The 2048-token prefill reads every weight once as well, so it streams the same 61 GB: 0.95 s to the first
    // token where in memory it takes about 0.31 s (2 x 70.6 G x 2048 FLOPs at 989 TFLOP/s, less than ideal). Then
    // 255 offloaded steps: 4 minutes for the request, and energy and cost follow that, not the in-memory 10.9 s:
    // 700 W x 243 s / 256 tokens = 666 J per token.
    Scenario pf = s;
    pf.phase = Phase::Prefill;
    QVERIFY(analyze(h100, model("llama-3-70b"), pf).totals.timeS < 0.35);
    // The prefill reads 2047 more embedding rows (8192 x 2 B each) than a decode step; the rest is the same weights.
    QVERIFY(std::abs(o.ttftS - (o.linkS + o.weightFraction * 2047 * 8192 * 2 / 64e9)) < 1e-9);
    QVERIFY(std::abs(o.e2eS - (o.ttftS + 255 * o.stepS)) < 1e-9);
    const ServingReport served = serve(h100, model("llama-3-70b"), s, nullptr);
    QVERIFY(served.offload && served.energy);
    QVERIFY(std::abs(served.energy->joulesPerToken - 700 * o.e2eS / 256) < 1e-9);
    QVERIFY(served.energy->joulesPerToken > 660 && served.energy->joulesPerToken < 672);
    // Half the weights set by hand: 70.5 GB streamed, and main memory then holds the rest.
    s.weightOffloadFraction = 0.5;
    const OffloadReport half = offload(h100, model("llama-3-70b"), s);
    QCOMPARE(half.offloadedWeightBytes, 0.5 * a.memory.weights);
    QVERIFY(std::abs(half.mainMemoryBytes - (a.memory.total() - 0.5 * a.memory.weights)) < 1);
}

void TestServing::twoTiersStreamInParallel()
{
    // On a B200 (180 GB HBM, host DRAM over PCIe at 64 GB/s, one NVMe drive at 7 GB/s): a quarter of the KV cache
    // on NVMe and a tenth of the weights in host DRAM. Each tier streams over its own link, so the step takes the
    // slower one, not their sum; each tier is reported with its bytes.
    Scenario s = llama70OnH100();
    s.phase = Phase::Decode;
    s.context = 32768;
    s.kvOffload = KvOffload::Storage;
    s.kvOffloadFraction = 0.25;
    s.weightOffload = KvOffload::Host;
    s.weightOffloadFraction = 0.1;
    const HardwareSpec &b200 = hw("b200");
    const Analysis a = analyze(b200, model("llama-3-70b"), s);
    const OffloadReport o = offload(b200, model("llama-3-70b"), s);
    QCOMPARE(o.tiers.size(), std::size_t(2));
    QVERIFY(o.tiers[0].tier == KvOffload::Host);
    QVERIFY(o.tiers[1].tier == KvOffload::Storage);
    double kvRead = 0, weightRead = 0;
    for (const Operator &op : a.operators) {
        kvRead += op.kvBytes;
        weightRead += op.weightBytes;
    }
    QCOMPARE(o.tiers[0].weightBytes, 0.1 * a.memory.weights);
    QCOMPARE(o.tiers[0].kvBytes, 0.0);
    QCOMPARE(o.tiers[1].kvBytes, 0.25 * a.memory.kv);
    QVERIFY(std::abs(o.tiers[0].linkS - 0.1 * weightRead / 64e9) < 1e-12);
    QVERIFY(std::abs(o.tiers[1].linkS - 0.25 * kvRead / 7e9) < 1e-12);
    QCOMPARE(o.linkS, std::max(o.tiers[0].linkS, o.tiers[1].linkS));
    QVERIFY(o.stepS >= o.linkS);
    QVERIFY(std::abs(o.mainMemoryBytes - (a.memory.total() - 0.1 * a.memory.weights - 0.25 * a.memory.kv)) < 1);
    // The prefill of 16 x 2048 prompt tokens writes a quarter of their KV cache to NVMe: 16 x 2048 x 40 kB per
    // device (80 layers x 2 x 8 KV heads x 128 x 2 B / tp 8) = 1.34 GB, a quarter in 48 ms; and streams 1.76 GB of
    // weights from host DRAM in 28 ms. Its 0.26 s of compute hide both, so the first token comes no later.
    Scenario pf = s;
    pf.phase = Phase::Prefill;
    const Analysis p = analyze(b200, model("llama-3-70b"), pf);
    QVERIFY(std::abs(p.memory.kv - 16.0 * 2048 * 40960) < 1);
    QVERIFY(0.25 * p.memory.kv / 7e9 < 0.05 && 0.1 * p.memory.weights / 64e9 < 0.03);
    QVERIFY(o.ttftS <= p.totals.timeS && o.ttftS > 0.999 * p.totals.timeS);
    QVERIFY(o.ttftS > 0.2);
    // The H100 preset has no NVMe level: naming it is refused with the option and the device.
    s.kvOffload = KvOffload::None;
    s.weightOffload = KvOffload::Storage;
    try {
        offload(hw("h100-sxm"), model("llama-3-70b"), s);
        QFAIL("weight_offload storage on an H100 was accepted");
    } catch (const AnalysisError &e) {
        QVERIFY2(std::string(e.what()).find("weight_offload storage") != std::string::npos, e.what());
        QVERIFY2(std::string(e.what()).find("h100-sxm") != std::string::npos, e.what());
    }
}

void TestServing::energyAndCostByHand()
{
    const Scenario s = llama70OnH100();
    const ServingReport r = serve(hw("h100-sxm"), model("llama-3-70b"), s);
    QVERIFY(r.energy && r.cost);
    const double tokens = 16.0 * 256;
    QVERIFY(std::abs(r.energy->joulesPerToken - 700.0 * 8 * r.request.e2eS / tokens) < 1e-12);
    QCOMPARE(r.cost->usdPerDeviceHour, 3.99);
    QVERIFY(std::abs(r.cost->usdPerMillionTokens - 3.99 * 8 / 3600 * r.request.e2eS / tokens * 1e6) < 1e-9);
    QVERIFY(std::abs(usdPerMillionTokens(3.99, 1000) - 1.108333) < 1e-6);
    Scenario half = s;
    half.powerUtilization = 0.5;
    half.usdPerDeviceHour = 2.0;
    const ServingReport h = serve(hw("h100-sxm"), model("llama-3-70b"), half);
    QCOMPARE(h.energy->joulesPerToken, r.energy->joulesPerToken / 2);
    QCOMPARE(h.cost->source, std::string("set by the user"));
    QVERIFY(std::abs(h.cost->usdPerMillionTokens / r.cost->usdPerMillionTokens - 2.0 / 3.99) < 1e-12);
    // No TDP published (Google's TPUs) and no price: no figure rather than a made-up one.
    Scenario one = s;
    one.tp = 1;
    one.weights = WeightFormat{DType::INT4, 128, DType::FP16};
    const ServingReport tpu = serve(hw("tpu7x"), model("llama-3-8b"), one);
    QVERIFY(!hw("tpu7x").tdpW || tpu.energy);
    QVERIFY(!hw("tpu7x").usdPerHour);
    QVERIFY(!tpu.cost);
}

void TestServing::badCombinationsAreRefused()
{
    Scenario s = llama70OnH100();
    s.prefillDevices = 4; // half a copy of a tp-8 model
    s.decodeDevices = 8;
    QVERIFY_THROWS_EXCEPTION(AnalysisError, serve(hw("h100-sxm"), model("llama-3-70b"), s));
    s.prefillDevices = s.decodeDevices = 0;
    s.kvOffload = KvOffload::Storage; // the H100 preset has no NVMe level; the B200's has one
    QVERIFY_THROWS_EXCEPTION(AnalysisError, serve(hw("h100-sxm"), model("llama-3-70b"), s));
    QVERIFY(serve(hw("b200"), model("llama-3-70b"), s).offload);
    s.kvOffload = KvOffload::None;
    QVERIFY_THROWS_EXCEPTION(AnalysisError, serve(hw("h100-sxm"), model("bert-base-uncased"), s));
    s.draftModel = "no-such-model";
    QVERIFY_THROWS_EXCEPTION(AnalysisError, m_lib.draftModel(s));
    s.draftModel = "mtp";
    QVERIFY(!m_lib.draftModel(s));
    // The option table's ranges: K 0..16, acceptance 0..0.99, disaggregation needs both pools.
    s.speculativeK = 17;
    QVERIFY(!validate(s).empty());
    s.speculativeK = 4;
    s.acceptance = 1.0;
    QVERIFY(!validate(s).empty());
    s.acceptance = 0.5;
    s.prefillDevices = 8;
    QVERIFY(QString::fromStdString(validate(s)).startsWith("disaggregate needs both pools"));
}

void TestServing::timelineCurvesByHand()
{
    // A request whose listed decode steps skip tokens: first token at 100 ms; steps for tokens 2 and 3 (10 and 20 ms,
    // consecutive), then token 6 at 50 ms (three steps from 20 to 50 ms, interpolated: 30, 40, 50 ms).
    ServingReport r;
    r.request.ttftS = 0.100;
    r.request.tpotS = 0.030;
    r.request.stepToken = {2, 3, 6};
    r.request.stepS = {0.010, 0.020, 0.050};
    SpeculativeReport sp;
    sp.speedup = 2;
    r.speculative = sp;
    DisaggregationReport d;
    d.prefillS = 0.080;
    d.ttftS = 0.090; // 10 ms of KV transfer
    d.tpotS = 0.030;
    r.disaggregation = d;
    OffloadReport o;
    o.stepS = 0.003;
    o.stepInMemoryS = 0.001;
    o.ttftS = 0.120; // the prefill streams offloaded weights in too
    r.offload = o;
    const std::vector<TimelineCurve> c = timelineCurves(r);
    QCOMPARE(c.size(), size_t{4});
    QCOMPARE(c[0].id, std::string("plain"));
    QCOMPARE(c[0].tokens, (std::vector<double>{1, 2, 3, 6}));
    // 100; +10 = 110; +20 = 130; + 3 x 20 + (50 - 20) x 4 / 2 = 60 + 60 = 120 -> 250 ms (30 + 40 + 50 = 120).
    const std::vector<double> plain{0.100, 0.110, 0.130, 0.250};
    for (size_t i = 0; i < plain.size(); ++i)
        QVERIFY2(std::abs(c[0].timeS[i] - plain[i]) < 1e-12, qPrintable(QString::number(c[0].timeS[i])));
    // Speculative: the same 150 ms of decode at twice the speed, after the same prefill.
    QCOMPARE(c[1].id, std::string("speculative"));
    QVERIFY(std::abs(c[1].timeS.back() - (0.100 + 0.150 / 2)) < 1e-12);
    // Disaggregated: prefill 80 ms, transfer to 90 ms, then the same steps.
    QCOMPARE(c[2].id, std::string("disaggregated"));
    QCOMPARE(c[2].prefillS, 0.080);
    QCOMPARE(c[2].firstTokenS, 0.090);
    QVERIFY(std::abs(c[2].timeS.back() - (0.090 + 0.150)) < 1e-12);
    // Offload: the first token at the offloaded prefill's 120 ms, then every step three times as long.
    QCOMPARE(c[3].id, std::string("offload"));
    QCOMPARE(c[3].firstTokenS, 0.120);
    QVERIFY(std::abs(c[3].timeS.back() - (0.120 + 3 * 0.150)) < 1e-12);
}

void TestServing::timelineCurvesOfARequest()
{
    // Every step of the request is listed (255 steps of 256 tokens): the plain curve's last token is the sum of the
    // steps, which equals the report's end to end (TTFT + 255 x the step at the mean context) to the curvature of
    // the step time in the context: the step grows linearly with the cache here, so to 0.1 %.
    Scenario s = llama70OnH100();
    s.speculativeK = 4;
    s.acceptance = 0.8;
    s.chunkedPrefill = 512;
    const ServingReport r = serve(hw("h100-sxm"), model("llama-3-70b"), s);
    const std::vector<TimelineCurve> c = timelineCurves(r);
    QCOMPARE(c.size(), size_t{3});
    QCOMPARE(c[0].tokens.back(), 256.0);
    double sum = r.request.ttftS;
    for (double st : r.request.stepS)
        sum += st;
    QVERIFY(std::abs(c[0].timeS.back() - sum) < 1e-12 * sum);
    QVERIFY(std::abs(c[0].timeS.back() / r.request.e2eS - 1) < 1e-3);
    QCOMPARE(c[1].id, std::string("speculative"));
    QVERIFY(c[1].timeS.back() < c[0].timeS.back());
    QCOMPARE(c[2].id, std::string("chunked_prefill"));
    QCOMPARE(c[2].firstTokenS, r.chunkedPrefill->ttftS);
}

// Issue #37: with achievable efficiency every operator pays a kernel launch, its GEMM's measured fraction (by size)
// and, with FP8 activations and dynamic scales, its input's quantize kernels. A mixed step of chunked prefill runs
// the decode step's operators with a chunk's tokens added to each, so it cannot be faster than the decode step alone
// (nor than the chunk alone); a re-timing that skipped those terms made it faster at small chunks.
void TestServing::achievableChunkedStepIsNoFasterThanDecode_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("activations");
    QTest::addColumn<int>("chunk");
    QTest::addColumn<int>("batch");
    QTest::newRow("H100 fp16, chunk 16, batch 16") << "h100-sxm"
                                                   << "fp16" << 16 << 16;
    QTest::newRow("H100 fp8 dynamic scales, chunk 8, batch 1") << "h100-sxm"
                                                               << "fp8" << 8 << 1;
    QTest::newRow("H100 fp16, chunk 512, batch 64") << "h100-sxm"
                                                    << "fp16" << 512 << 64;
}

void TestServing::achievableChunkedStepIsNoFasterThanDecode()
{
    QFETCH(QString, device);
    QFETCH(QString, activations);
    QFETCH(int, chunk);
    QFETCH(int, batch);
    Scenario s = llama70OnH100();
    s.efficiency = EfficiencyMode::Achievable;
    s.activations = *dtypeFromString(activations.toStdString());
    s.activationScales = ActivationScales::Dynamic;
    s.chunkedPrefill = chunk;
    s.batch = batch;
    const ChunkedPrefillReport cp = chunkPrefill(hw(device.toLatin1().constData()), model("llama-3-70b"), s);
    QVERIFY2(cp.mixedStepS >= cp.decodeStepS,
             qPrintable(QStringLiteral("mixed %1 s < decode %2 s").arg(cp.mixedStepS).arg(cp.decodeStepS)));
    QVERIFY2(cp.mixedStepS >= cp.chunkAloneS,
             qPrintable(QStringLiteral("mixed %1 s < chunk %2 s").arg(cp.mixedStepS).arg(cp.chunkAloneS)));
}

// The same for offload: what stays in main memory is timed as analyze() times it, so offloading nothing gives the
// step in memory exactly, and offloading 1 % of the cache saves at most the time HBM took to read that 1 % (the link
// streams it meanwhile); launches and the GEMMs' measured rates stay.
void TestServing::achievableOffloadIsNoFasterThanInMemory()
{
    Scenario s = llama70OnH100();
    s.phase = Phase::Decode;
    s.context = 4096;
    s.efficiency = EfficiencyMode::Achievable;
    s.kvOffload = KvOffload::Host;
    s.kvOffloadFraction = 0.0;
    const HardwareSpec &h100 = hw("h100-sxm");
    const OffloadReport none = offload(h100, model("llama-3-70b"), s);
    QVERIFY(std::abs(none.stepS / none.stepInMemoryS - 1) < 1e-12);
    QVERIFY(std::abs(none.stepInMemoryS - analyze(h100, model("llama-3-70b"), s).totals.timeS) < 1e-15);
    s.kvOffloadFraction = 0.01;
    const Analysis a = analyze(h100, model("llama-3-70b"), s);
    double kvRead = 0;
    for (const Operator &op : a.operators)
        kvRead += op.kvBytes;
    const OffloadReport some = offload(h100, model("llama-3-70b"), s);
    QVERIFY(some.stepS < some.stepInMemoryS); // the link adds its bandwidth to HBM's
    QVERIFY(some.stepS >= some.stepInMemoryS - 0.01 * kvRead / a.bandwidth * (1 + 1e-12));
}

// Issue #37: the request's figures in the report are those of the way of serving asked for. With chunked prefill the
// first token comes after ceil(seq / chunk) mixed steps and every token after a mixed step: the plain request's
// figures stay in the chunked-prefill part (decode_step_s) and in the plain request of the timeline.
void TestServing::requestIsTheWayOfServingAskedFor()
{
    Scenario s = llama70OnH100();
    s.chunkedPrefill = 512;
    const ServingReport r = serve(hw("h100-sxm"), model("llama-3-70b"), s);
    QVERIFY(r.chunkedPrefill);
    const ServedRequest q = servedRequest(s, r);
    QCOMPARE(r.served.ttftS, q.ttftS);
    QCOMPARE(r.served.tpotS, q.tpotS);
    QCOMPARE(r.served.ttftS, r.chunkedPrefill->ttftS);
    QCOMPARE(r.served.tpotS, r.chunkedPrefill->mixedStepS);
    QVERIFY(r.served.tpotS > r.request.tpotS); // the plain request, for comparison
    const nlohmann::json j = servingToJson(r);
    QCOMPARE(j.at("request").at("ttft_s").get<double>(), r.chunkedPrefill->ttftS);
    QCOMPARE(j.at("request").at("tpot_s").get<double>(), r.chunkedPrefill->mixedStepS);
    QCOMPARE(j.at("request").at("e2e_s").get<double>(), q.e2eS);
    QCOMPARE(j.at("request").at("tokens_per_s_per_user").get<double>(), 1 / q.tpotS);
    QCOMPARE(j.at("request").at("plain_tpot_s").get<double>(), r.request.tpotS);
    // Served plainly, the request is the plain one.
    s.chunkedPrefill = 0;
    const ServingReport plain = serve(hw("h100-sxm"), model("llama-3-70b"), s);
    QCOMPARE(servingToJson(plain).at("request").at("tpot_s").get<double>(), plain.request.tpotS);
}

// The 2-step admission worked out at the top of this file.
void TestServing::admissionInTwoSteps()
{
    Scenario s = llama70OnH100();
    s.batch = 64;
    s.seq = 8192;
    s.output = 1024;
    s.maxBatchedTokens = 8192;
    s.arrivals = Arrivals::Spread;
    const ServingReport r = serve(hw("h100-sxm"), model("llama-3-70b"), s);
    QVERIFY(r.admission);
    const AdmissionReport &a = *r.admission;
    QCOMPARE(a.stepsPerPrompt, int64_t(2));
    QVERIFY(std::abs(a.requestsPerStep - 64.0 / 1025) < 1e-12);
    QVERIFY(std::abs(a.decodesPerStep - 64.0 * 1023 / 1025) < 1e-9);
    QVERIFY(std::abs(a.promptTokensPerStep - 8128.125) < 1e-3);
    QVERIFY(std::abs(a.mixedShare - 0.06293) < 1e-5);
    QCOMPARE(a.running, 64.0);
    QCOMPARE(a.queued, 0.0);
    QCOMPARE(a.limit, std::string());
    QVERIFY(a.mixedStepS > a.decodeStepS);
    QVERIFY(std::abs(a.ttftS - 2 * a.mixedStepS) < 1e-12);
    QVERIFY(std::abs(a.stepS - (a.decodeStepS + a.mixedShare * (a.mixedStepS - a.decodeStepS))) < 1e-12);
    // The headline request is the admitted one, in the report and in `analyze --json`.
    QCOMPARE(r.served.ttftS, a.ttftS);
    QCOMPARE(r.served.tpotS, a.stepS);
    const nlohmann::json j = servingToJson(r);
    QCOMPARE(j.at("request").at("ttft_s").get<double>(), a.ttftS);
    QCOMPARE(j.at("request").at("tpot_s").get<double>(), a.stepS);
    QCOMPARE(j.at("admission").at("steps_per_prompt").get<int64_t>(), int64_t(2));
    QVERIFY(!servesPlainly(s));
    // 8 devices serve r requests of 1,024 tokens per step.
    QVERIFY(std::abs(r.served.tokensPerSPerDevice - a.requestsPerStep * 1024 / a.stepS / 8) < 1e-9);
}

// The wave worked out at the top of this file.
void TestServing::admissionTogetherInWaves()
{
    Scenario s = llama70OnH100();
    s.batch = 64;
    s.seq = 8192;
    s.output = 1024;
    s.maxBatchedTokens = 8192;
    QVERIFY(s.arrivals == Arrivals::Spread); // the default
    s.arrivals = Arrivals::Together;
    const ServingReport r = serve(hw("h100-sxm"), model("llama-3-70b"), s);
    QVERIFY(r.admission);
    const AdmissionReport &a = *r.admission;
    QCOMPARE(a.waveSteps, int64_t(64));
    QCOMPARE(a.meanFirstStep, 32.5);
    QCOMPARE(a.stepsPerPrompt, int64_t(1));
    QCOMPARE(a.queued, 0.0);
    QVERIFY(std::abs(a.ttftS - 32.5 * a.mixedStepS) < 1e-12 * a.ttftS);
    QVERIFY(std::abs(a.stepS - (31.5 * a.mixedStepS + 991.5 * a.decodeStepS) / 1023) < 1e-12 * a.stepS);
    QVERIFY(a.mixedStepS > a.decodeStepS);
    QVERIFY(std::abs(a.requestsPerS - 64 / (64 * a.mixedStepS + 1023 * a.decodeStepS)) < 1e-9 * a.requestsPerS);
    QCOMPARE(r.served.ttftS, a.ttftS);
    QCOMPARE(r.served.tpotS, a.stepS);
    QCOMPARE(servingToJson(r).at("admission").at("arrivals").get<std::string>(), std::string("together"));
    // Twice the clients of what fits wait half a wave on average: (C / N - 1) / 2 waves.
    s.batch = 4096;
    const AdmissionReport q = admit(hw("h100-sxm"), model("llama-3-70b"), s);
    QCOMPARE(q.limit, std::string("memory"));
    const double wave = static_cast<double>(q.waveSteps) * q.mixedStepS + 1023 * q.decodeStepS;
    QVERIFY(std::abs(q.queueS - (4096 / q.running - 1) / 2 * wave) < 1e-9 * q.queueS);
}

// aiperf's rounds: the first a wave (32.5 mixed steps of the wave to the first token, as above), the 19 later ones
// the steady state (2 mixed steps, as in admissionInTwoSteps); TTFT and TPOT are the means over the 20 rounds.
void TestServing::admissionInRounds()
{
    Scenario s = llama70OnH100();
    s.batch = 64;
    s.seq = 8192;
    s.output = 1024;
    s.maxBatchedTokens = 8192;
    s.arrivals = Arrivals::Together;
    const AdmissionReport wave = admit(hw("h100-sxm"), model("llama-3-70b"), s);
    s.arrivals = Arrivals::Spread;
    const AdmissionReport steady = admit(hw("h100-sxm"), model("llama-3-70b"), s);
    s.arrivals = Arrivals::Rounds;
    const ServingReport r = serve(hw("h100-sxm"), model("llama-3-70b"), s);
    QVERIFY(r.admission);
    const AdmissionReport &a = *r.admission;
    QCOMPARE(kBenchmarkRounds, 20);
    QCOMPARE(a.rounds, 20);
    QCOMPARE(a.waveSteps, int64_t(64));
    QCOMPARE(a.meanFirstStep, 32.5);
    QCOMPARE(a.stepsPerPrompt, int64_t(2));
    QVERIFY(std::abs(a.waveTtftS - 32.5 * wave.mixedStepS) < 1e-12 * a.waveTtftS);
    QVERIFY(std::abs(a.laterTtftS - 2 * steady.mixedStepS) < 1e-12 * a.laterTtftS);
    QVERIFY(std::abs(a.ttftS - (32.5 * wave.mixedStepS + 19 * 2 * steady.mixedStepS) / 20) < 1e-12 * a.ttftS);
    QVERIFY(std::abs(a.stepS - (wave.stepS + 19 * steady.stepS) / 20) < 1e-12 * a.stepS);
    // Between the two: longer than the steady state's first token, far shorter than the wave's.
    QVERIFY(a.ttftS > steady.ttftS && a.ttftS < wave.ttftS / 4);
    QCOMPARE(r.served.ttftS, a.ttftS);
    QCOMPARE(r.served.tpotS, a.stepS);
    const nlohmann::json j = servingToJson(r).at("admission");
    QCOMPARE(j.at("arrivals").get<std::string>(), std::string("rounds"));
    QCOMPARE(j.at("rounds").get<int>(), 20);
    QCOMPARE(j.at("first_round_ttft_s").get<double>(), a.waveTtftS);
    QCOMPARE(arrivalsFromString("rounds"), std::optional<Arrivals>(Arrivals::Rounds));
}

// More prompt tokens arrive than the budget takes: admission limits, the rest of the clients wait in the queue.
void TestServing::admissionQueuesBeyondTheBudget()
{
    Scenario s = llama70OnH100();
    s.weights = WeightFormat{DType::FP8, 0, DType::FP8};
    s.kv = DType::FP8;
    s.batch = 512;
    s.seq = 8192;
    s.output = 128;
    s.maxBatchedTokens = 8192;
    s.arrivals = Arrivals::Spread;
    const AdmissionReport a = admit(hw("h100-sxm"), model("llama-3-70b"), s);
    QCOMPARE(a.limit, std::string("token budget"));
    QVERIFY(std::abs(a.requestsPerStep - 8192.0 / 8319) < 1e-12);
    QCOMPARE(a.stepsPerPrompt, int64_t(2));
    QVERIFY(std::abs(a.running - 8192.0 / 8319 * 129) < 1e-9);
    QVERIFY(std::abs(a.queued - (512 - 8192.0 / 8319 * 129)) < 1e-9);
    QVERIFY(std::abs(a.queueS - a.queued / a.requestsPerStep * a.stepS) < 1e-12);
    QVERIFY(std::abs(a.queued / a.requestsPerStep - 390.93) < 0.01);
    QVERIFY(std::abs(a.ttftS - (a.queueS + 2 * a.mixedStepS)) < 1e-12);
}

// More clients than KV caches fit: the footprint's per-request part sets how many run; the rest queue.
void TestServing::admissionQueuesBeyondMemory()
{
    Scenario s = llama70OnH100();
    s.batch = 1024;
    s.seq = 2048;
    s.output = 2048;
    s.maxBatchedTokens = 8192;
    s.arrivals = Arrivals::Spread;
    const AdmissionReport a = admit(hw("h100-sxm"), model("llama-3-70b"), s);
    // By hand from the footprint at the mean context (2,048 + 1,023): weights and workspace stay, the KV cache of
    // 1,024 requests scales down to what fits.
    Scenario mean = s;
    mean.phase = Phase::Decode;
    mean.context = 2048 + 1023;
    const Analysis m = analyze(hw("h100-sxm"), model("llama-3-70b"), mean);
    const double fits = std::floor((m.memory.capacity - (m.memory.total() - m.memory.kv)) / (m.memory.kv / 1024));
    QCOMPARE(a.fitting, fits);
    QVERIFY(fits > 100 && fits < 1024);
    QCOMPARE(a.limit, std::string("memory"));
    QCOMPARE(a.running, fits);
    QCOMPARE(a.queued, 1024 - fits);
    QCOMPARE(a.stepsPerPrompt, int64_t(1)); // 2,048 prompt tokens fit beside the decodes in one step
    QVERIFY(a.queueS > a.stepS);
}

} // namespace memwall::core

QTEST_APPLESS_MAIN(memwall::core::TestServing)
#include "tst_serving.moc"
