// A decode step's multi-head latent attention layer timed as the device measured the module whole: TensorRT-LLM
// 1.3.0rc20's DeepSeek-V3 attention module (latent projections and norms, rotary, cache write, absorbed products,
// attention kernel, o_proj; one layer, CUDA graph), aiconfigurator's mla_generation_module_perf tables
// (ai-dynamo/aiconfigurator @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce, aic-core/src/aiconfigurator_core/systems/data/
// <device>/mla/trtllm/1.3.0rc20/mla_generation_module_perf.parquet; latency column, ms). Figures quoted from them:
//
// - H200, gemm fp8_block, KV bfloat16, 128 heads (tp 1), context 1,024: batch 32 0.1446 ms, batch 64 0.1419 ms;
//   batch 32 at context 2,048: 0.1581 ms.
// - B200, gemm nvfp4, KV fp8, 16 heads (tp 8), batch 64, context 4,096: 0.0947 ms.
//
// The preset holds, at each point, the measured latency's share of the summed ideal rooflines of the operators
// MemWall emits for that layer (tools/mla_tables.py); each operator then runs at its ideal roofline over that share,
// so the layer's attention operators add up to the measured latency.
#include "core/analysis/analysis.h"
#include "core/analysis/derivation.h"
#include "core/analysis/operatortime.h"
#include "core/analysis/serving.h"
#include "core/io/analysisjson.h"

#include "../analysishelpers.h"
#include "../builtinpresets.h"

#include <QtTest>

#include <cmath>

using namespace memwall::core;
using namespace testpresets;

namespace {

constexpr double kLayers = 61;

/// DeepSeek-V3 decoding after `context` tokens: FP8 block-scaled weights and activations (dynamic scales), a 16-bit
/// cache, as the FP8 checkpoint runs.
Scenario fp8(int64_t batch, int64_t context, int tp = 1, int attentionDp = 1)
{
    Scenario s;
    s.phase = Phase::Decode;
    s.batch = batch;
    s.context = context;
    s.tp = tp;
    s.attentionDp = attentionDp;
    s.weights = *weightFormatFromString("fp8");
    s.activations = DType::FP8;
    s.activationScales = ActivationScales::Dynamic;
    s.kv = DType::BF16;
    s.efficiency = EfficiencyMode::Achievable;
    return s;
}

/// Whether `name` is one of the MLA module's operators: every attention operator but the input norm and residual.
bool inModule(std::string_view name)
{
    return name.substr(0, 5) == "attn." && name != "attn.norm" && name != "attn.residual";
}

/// One layer's MLA module, as the analysis timed it (s).
double moduleTime(const Analysis &a)
{
    double t = 0;
    for (const Operator &o : a.operators)
        if (inModule(o.name))
            t += o.timeS / o.count;
    return t;
}

bool near(double a, double b, double rel = 1e-3) { return std::abs(a / b - 1) < rel; }

} // namespace

class TestMlaModule : public QObject
{
    Q_OBJECT

private slots:
    void layerTakesTheMeasuredLatency()
    {
        // At a measured point, the layer's operators add up to the table's latency (to the preset's 4 digits of
        // fraction).
        const HardwareSpec &h200 = hw("h200-sxm");
        QVERIFY(near(moduleTime(analyze(h200, model("deepseek-v3"), fp8(32, 1024))), 0.1446e-3));
        QVERIFY(near(moduleTime(analyze(h200, model("deepseek-v3"), fp8(64, 1024))), 0.1419e-3));
        QVERIFY(near(moduleTime(analyze(h200, model("deepseek-v3"), fp8(32, 2048))), 0.1581e-3));
        Scenario s = fp8(64, 4096, 8);
        s.weights = *weightFormatFromString("nvfp4");
        s.activations = DType::FP4;
        s.kv = DType::FP8;
        QVERIFY(near(moduleTime(analyze(hw("b200"), model("deepseek-v3"), s)), 0.0947e-3));
    }

    void attentionDpReadsTheRanksOwnBatch()
    {
        // DEP8 at batch 256: each rank runs attention for 32 sequences, as tp 1 at batch 32 does.
        const HardwareSpec &h200 = hw("h200-sxm");
        QVERIFY(near(moduleTime(analyze(h200, model("deepseek-v3"), fp8(256, 1024, 1, 8))), 0.1446e-3));
    }

    void betweenPointsReadsInLog()
    {
        // Batch 45 lies log(45/32)/log 2 = 0.4919 of the way from 32 to 64, context 1,448 0.5003 of the way from
        // 1,024 to 2,048 (log2(1448/1024)); the fraction is read bilinearly there.
        const MlaModuleTable *t = hw("h200-sxm").achievable.mlaTableFor(2, 128); // fp8_block/bfloat16
        QVERIFY(t);
        const auto at = [&](double b, double c) { return t->fractionAt(b, c); };
        const double u = std::log(45.0 / 32) / std::log(2.0), v = std::log(1448.0 / 1024) / std::log(2.0);
        const double low = at(32, 1024) + v * (at(32, 2048) - at(32, 1024));
        const double high = at(64, 1024) + v * (at(64, 2048) - at(64, 1024));
        QVERIFY(std::abs(at(45, 1448) - (low + u * (high - low))) < 1e-12);
        // Beyond the table the ends hold.
        QCOMPARE(at(0.5, 1), at(1, 2));
        QCOMPARE(at(4096, 1e6), t->rows.back().points.back().second);
    }

    void rowThatStopsEarlyHoldsItsLast()
    {
        MlaModuleTable t;
        t.heads = 16;
        t.rows = {{1, {{2, 0.2}, {4, 0.4}, {8, 0.8}}}, {4, {{2, 0.5}}}};
        QCOMPARE(t.fractionAt(4, 8), 0.5);
        QCOMPARE(t.fractionAt(1, 8), 0.8);
        // Batch 2, context 4: half way in log between the rows' 0.4 and 0.5.
        QVERIFY(std::abs(t.fractionAt(2, 4) - 0.45) < 1e-12);
        // The heads nearest in log: 12 heads read the 16-head table of a device holding 8 and 16 and 128.
        AchievableModel m;
        for (int heads : {128, 16, 8}) {
            t.heads = heads;
            m.mlaDecode[2].push_back(t);
        }
        QCOMPARE(m.mlaTableFor(2, 12)->heads, 16);
        QCOMPARE(m.mlaTableFor(2, 1)->heads, 8);
        QCOMPARE(m.mlaTableFor(3, 12), nullptr);
    }

    void eachOperatorRunsAtItsRooflineOverTheFraction()
    {
        // No launch or quantize kernel of its own: the ideal time over the fraction.
        const HardwareSpec &h200 = hw("h200-sxm");
        const Analysis a = analyze(h200, model("deepseek-v3"), fp8(32, 1024));
        Scenario ideal = fp8(32, 1024);
        ideal.efficiency = EfficiencyMode::Ideal;
        const Analysis b = analyze(h200, model("deepseek-v3"), ideal);
        const double f = h200.achievable.mlaTableFor(2, 128)->fractionAt(32, 1024);
        for (const char *name : {"attn.q_b_proj", "attn.score", "attn.kv_a_norm", "attn.out_proj"}) {
            const Operator *op = testanalysis::findOp(a, name);
            QVERIFY2(op, name);
            QCOMPARE(op->moduleFraction, f);
            QVERIFY2(near(op->timeS, testanalysis::findOp(b, name)->timeS / f, 1e-12), name);
        }
        QCOMPARE(testanalysis::findOp(a, "attn.norm")->moduleFraction, 0.0);
        QCOMPARE(testanalysis::findOp(a, "ffn.up")->moduleFraction, 0.0);
    }

    void elsewhereTheOperatorsAreTimedAsBefore()
    {
        const HardwareSpec &h200 = hw("h200-sxm");
        const auto fraction = [&](const ModelShape &m, const Scenario &s) {
            return testanalysis::findOp(analyze(h200, m, s), "attn.score")->moduleFraction;
        };
        QVERIFY(fraction(model("deepseek-v3"), fp8(32, 1024)) > 0);
        Scenario s = fp8(32, 1024);
        s.efficiency = EfficiencyMode::Ideal;
        QCOMPARE(fraction(model("deepseek-v3"), s), 0.0);
        s = fp8(32, 1024);
        s.weights = *weightFormatFromString("int4/g128");
        QCOMPARE(fraction(model("deepseek-v3"), s), 0.0); // no table of int4 projections
        s = fp8(32, 1024);
        s.mlaAbsorb = false;
        QCOMPARE(fraction(model("deepseek-v3"), s), 0.0); // the table's kernels absorb
        s = fp8(32, 1024);
        s.memoryEfficiency = 0.8;
        QCOMPARE(fraction(model("deepseek-v3"), s), 0.0); // an explicit efficiency replaces the tables
        s = fp8(1, 1024);
        s.phase = Phase::Prefill;
        s.seq = 1024;
        QCOMPARE(fraction(model("deepseek-v3"), s), 0.0);               // the table is of decode steps
        QCOMPARE(fraction(model("deepseek-v3.2"), fp8(32, 1024)), 0.0); // the indexer's layers are not in it
        // Kimi K2's 64 heads read the 64-head table (a DeepSeek-V3 layer with half its heads: the same layer).
        const double kimi = fraction(model("kimi-k2"), fp8(32, 1024));
        QCOMPARE(kimi, h200.achievable.mlaTableFor(2, 64)->fractionAt(32, 1024));
        // A device without the table: none.
        QCOMPARE(testanalysis::findOp(analyze(hw("mi300x"), model("deepseek-v3"), fp8(32, 1024)), "attn.score")
                     ->moduleFraction,
                 0.0);
    }

    void achievableIsNeverFasterThanIdeal()
    {
        // Fractions are at most 1 (the points measured faster than the summed rooflines are held at 1).
        const HardwareSpec &b200 = hw("b200");
        for (int64_t context : {2, 1024, 131072}) {
            Scenario s = fp8(64, context);
            Scenario ideal = s;
            ideal.efficiency = EfficiencyMode::Ideal;
            QVERIFY(moduleTime(analyze(b200, model("deepseek-v3"), s)) >=
                    moduleTime(analyze(b200, model("deepseek-v3"), ideal)));
        }
    }

    void retimingAndDerivationAgree()
    {
        // Serving re-times operators with the same function; the derivation reads every byte at the module's rate.
        const HardwareSpec &h200 = hw("h200-sxm");
        const Scenario s = fp8(32, 1024);
        const Analysis a = analyze(h200, model("deepseek-v3"), s);
        const OperatorRoofs r = operatorRoofs(h200, s);
        for (const char *name : {"attn.score", "attn.q_b_proj"}) {
            const Operator *op = testanalysis::findOp(a, name);
            QVERIFY(near(timeOperator(r, *op).timeS, op->timeS, 1e-12));
            QVERIFY(near(derive(h200, model("deepseek-v3"), s, a, std::string("op:") + name + ":time").value, op->timeS,
                         1e-9));
        }
    }

    void jsonNamesTheTable()
    {
        const HardwareSpec &h200 = hw("h200-sxm");
        const Scenario s = fp8(32, 1024);
        const auto j = analysisToJson(h200, model("deepseek-v3"), s, analyze(h200, model("deepseek-v3"), s));
        QCOMPARE(j["efficiency"]["mla_table"].get<std::string>(), std::string("fp8_block/bfloat16"));
        Scenario ideal = s;
        ideal.efficiency = EfficiencyMode::Ideal;
        QVERIFY(analysisToJson(h200, model("deepseek-v3"), ideal,
                               analyze(h200, model("deepseek-v3"), ideal))["efficiency"]["mla_table"]
                    .is_null());
    }
};

QTEST_APPLESS_MAIN(TestMlaModule)
#include "tst_mlamodule.moc"
