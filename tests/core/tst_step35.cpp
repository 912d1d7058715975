// Step-3.5 (issue #38): step3p5 imports with its two kinds of attention (the full-attention layers leading each group
// of four with 64 query heads and half of each head rotated, the sliding ones with 96), a gate per head, routed layers
// from moe_layers_enum, and MTP modules with a dense FFN and their own LM head (core/io/hfstep.cpp). Every figure is
// counted by hand in the comment beside it, from vLLM's model_executor/models/step3p5.py (Step3p5Attention,
// FusedMoEBlock, Step3p5DecoderLayer, Step3p5Model) and step3p5_mtp.py (Step3p5AMultiTokenPredictorLayer).

#include "../analysishelpers.h"
#include "../builtinpresets.h"
#include "../hfconfighelpers.h"

#include "core/analysis/analysis.h"
#include "core/analysis/scenario.h"
#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"
#include "core/io/presets.h"
#include "core/model/modelshape.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>

namespace memwall::core {

using testanalysis::checkOperator;
using testanalysis::decodeAt;
using testanalysis::findOp;

namespace {

using testhf::configPath;
using testhf::errorOf;
using testhf::reportHas;

constexpr const char *kFlash = "Step-3.5-Flash.transcribed.json";

} // namespace

class TestStep35 : public QObject
{
    Q_OBJECT

private slots:
    void flashHandCount();
    void kvCacheByHand();
    void operatorsByHand();
    void everyPhaseAndSplit();
    void shapeRules();
    void wrapperAndStep3();
    void refusals_data();
    void refusals();
};

void TestStep35::flashHandCount()
{
    // Step-3.5-Flash (tests/data/configs/Step-3.5-Flash.transcribed.json): hidden 4,096, 45 layers, vocabulary
    // 128,896, 8 KV heads of 128 in every layer; layers 0, 4, ..., 44 (12) full attention with 64 heads, the other 33
    // a 512-token window with 96 heads.
    //   embed_tokens 128,896 x 4,096 = 527,958,016; lm_head the same (untied)
    //   full attention: q 4,096 x 8,192 + k, v 2 x 4,096 x 1,024 + o 8,192 x 4,096 + q_norm, k_norm 2 x 128 +
    //     g_proj 4,096 x 64 = 33,554,432 + 8,388,608 + 33,554,432 + 256 + 262,144 = 75,759,872
    //   sliding attention: q 4,096 x 12,288 + k, v 8,388,608 + o 12,288 x 4,096 + 256 + g_proj 4,096 x 96
    //     = 50,331,648 + 8,388,608 + 50,331,648 + 256 + 393,216 = 109,445,376
    //   attention: 12 x 75,759,872 + 33 x 109,445,376 = 909,118,464 + 3,611,697,408 = 4,520,815,872
    //   dense MLP (layers 0-2): 3 x 4,096 x 11,264 = 138,412,032; x 3 = 415,236,096
    //   MoE (layers 3-44): experts 288 x 3 x 4,096 x 1,280 = 4,529,848,320 + shared 3 x 4,096 x 1,280 = 15,728,640 +
    //     router 4,096 x 288 = 1,179,648 + router bias 288 = 4,546,756,896; x 42 = 190,963,789,632
    //   norms 2 x 4,096 a layer: 368,640; final norm 4,096
    //   total 527,958,016 x 2 + 4,520,815,872 + 415,236,096 + 190,963,789,632 + 368,640 + 4,096 = 196,956,130,368
    //   active: 8 experts, 8 x 15,728,640 = 125,829,120 + 15,728,640 + 1,179,936 = 142,737,696 a MoE layer:
    //     total - 42 x (4,546,756,896 - 142,737,696) = 11,987,323,968
    //   MTP module (layers 45-47, sliding, dense FFN): enorm, hnorm, shared_head.norm 3 x 4,096 + eh_proj
    //     2 x 4,096 x 4,096 = 33,554,432 + 109,445,376 + 138,412,032 + 8,192 = 281,432,320; x 3 = 844,296,960
    //   and each its own shared_head.output 527,958,016 (no embedding copy): 1,583,874,048
    //   checkpoint 196,956,130,368 + 844,296,960 + 1,583,874,048 = 199,384,301,376
    // Public figures: the Hugging Face listing's 199.4B (as llmrun.dev quotes it, its Q8_0 size 199.38 GB at a byte
    // a weight); the card's "196.81B (196B Backbone + 0.81B Head)" and "~11B" active are rounded (one MTP module with
    // its head is 809,390,336).
    const HfImport in = importHfConfigFileReport(configPath(kFlash));
    const ModelShape &m = in.shape;
    const ParamCounts p = paramCount(m);
    QCOMPARE(p.total, int64_t(196956130368));
    QCOMPARE(p.active, int64_t(11987323968));
    QCOMPARE(p.mtp, int64_t(844296960));
    QCOMPARE(p.mtpCopies, int64_t(1583874048));
    QCOMPARE(p.checkpoint, int64_t(199384301376));
    QCOMPARE(p.mtp / 3 + p.mtpCopies / 3, int64_t(809390336));
    QCOMPARE(m.heads, int64_t(96));
    QCOMPARE(m.global.heads, int64_t(64));
    QCOMPARE(m.globalEvery, int64_t(4));
    QVERIFY(m.globalFirst);
    QCOMPARE(m.global.rotaryFraction, 0.5);
    QCOMPARE(m.rotaryFraction, 1.0);
    QCOMPARE(m.firstDenseLayers, int64_t(3));
    // The layers by kind: 0 full dense, 1-2 sliding dense, 4, 8, ... full routed (11), the other sliding routed (31).
    const LayerGroups g = layerGroups(m);
    QCOMPARE(g.size(), std::size_t(4));
    QVERIFY(g[0].block.mixer == LayerMixer::Attention && g[0].block.ffn == LayerFfn::Dense && g[0].count == 1);
    QVERIFY(g[1].block.mixer == LayerMixer::Sliding && g[1].block.ffn == LayerFfn::Dense && g[1].count == 2);
    QVERIFY(g[2].block.mixer == LayerMixer::Sliding && g[2].block.ffn == LayerFfn::Moe && g[2].count == 31);
    QVERIFY(g[3].block.mixer == LayerMixer::Attention && g[3].block.ffn == LayerFfn::Moe && g[3].count == 11);
    QVERIFY(reportHas(in, "96 query heads in the sliding layers (window 512), 64 in the full ones"));
    QVERIFY(reportHas(in, "swiglu_limits: layers 43, 44 clamp"));
    QVERIFY(reportHas(in, "need_fp32_gate"));
    // The preset keys carry it all, and the preset step-3.5-flash is this config.
    const ModelShape back = modelShapeFromJson(toJson(m), "p.json");
    QCOMPARE(paramCount(back).checkpoint, p.checkpoint);
    QCOMPARE(paramCount(back).active, p.active);
    QCOMPARE(paramCount(testpresets::model("step-3.5-flash")).checkpoint, p.checkpoint);
    // layer_types that make every layer full attend to the whole context: no window, no global layers.
    nlohmann::json full = readJsonFile(configPath(kFlash));
    for (auto &t : full["layer_types"])
        t = "full_attention";
    full.erase("attention_other_setting");
    full.erase("partial_rotary_factors");
    const ModelShape allFull = importHfConfig(full, "cfg.json");
    QCOMPARE(allFull.slidingWindow, int64_t(0));
    QCOMPARE(allFull.globalEvery, int64_t(0));
    QCOMPARE(cachedElements(allFull, layerGroups(allFull), 131072, 1), 45 * 2048.0 * 131072);
    // moe_layers_enum as the configuration class keeps it, a list of numbers, reads the same.
    nlohmann::json c = readJsonFile(configPath(kFlash));
    c["moe_layers_enum"] = nlohmann::json::array();
    for (int i = 3; i < 45; ++i)
        c["moe_layers_enum"].push_back(i);
    QCOMPARE(paramCount(importHfConfig(c, "cfg.json")).checkpoint, p.checkpoint);
}

void TestStep35::kvCacheByHand()
{
    // Every layer caches 2 x 8 x 128 = 2,048 elements a token: 45 x 2,048 = 92,160, 184,320 B at 16 bits. At 131,072
    // tokens the 33 sliding layers keep 512: 12 x 2,048 x 131,072 + 33 x 2,048 x 512 = 3,221,225,472 + 34,603,008 =
    // 3,255,828,480 elements, 6,511,656,960 B a sequence; a model of the same layers without the window would hold
    // 45 x 2,048 x 131,072 x 2 B = 24,159,191,040 B.
    const ModelShape m = importHfConfigFile(configPath(kFlash));
    const LayerGroups g = layerGroups(m);
    QCOMPARE(cachedElements(m, g, 1, 1) * 2, 184320.0);
    QCOMPARE(cachedElements(m, g, 131072, 1), 3255828480.0);
    ModelShape unwindowed = m;
    unwindowed.slidingWindow = 0;
    unwindowed.globalEvery = 0;
    unwindowed.globalFirst = false;
    unwindowed.global = {};
    QCOMPARE(cachedElements(unwindowed, layerGroups(unwindowed), 131072, 1) * 2, 24159191040.0);
}

void TestStep35::operatorsByHand()
{
    // One decode step at batch 1, tp 1, 4,096 tokens of context: one token, N = 1.
    //   attn.global_qkv_proj (12 layers): 2 x 4,096 x (8,192 q + 64 gates + 2 x 1,024 k, v) = 84,410,368
    //   attn.qkv_proj (33): 2 x 4,096 x (12,288 + 96 + 2,048) = 118,226,944
    //   attn.global_output_gate: a product per q element 8,192 + sigmoid 4 x 64 heads = 8,448
    //   attn.output_gate: 12,288 + 4 x 96 = 12,672
    //   attn.global_rope: 3 FLOPs a rotated element, half of q and k: 3 x (8,192 + 1,024) / 2 = 13,824
    //   attn.rope: 3 x (12,288 + 1,024) = 39,936
    //   attn.global_out_proj: 2 x 8,192 x 4,096 = 67,108,864; attn.out_proj: 2 x 12,288 x 4,096 = 100,663,296
    const ModelShape m = importHfConfigFile(configPath(kFlash));
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(4095));
    checkOperator(a, "attn.global_qkv_proj", 12, 84410368);
    checkOperator(a, "attn.qkv_proj", 33, 118226944);
    checkOperator(a, "attn.global_output_gate", 12, 8448);
    checkOperator(a, "attn.output_gate", 33, 12672);
    checkOperator(a, "attn.global_rope", 12, 13824);
    checkOperator(a, "attn.rope", 33, 39936);
    checkOperator(a, "attn.global_out_proj", 12, 67108864);
    checkOperator(a, "attn.out_proj", 33, 100663296);
    QCOMPARE(a.kvCache.bytesPerToken, 184320.0);
}

void TestStep35::everyPhaseAndSplit()
{
    // Every phase runs on 8 H100s (tp 8 divides the 96 and the 64 heads, and the 8 KV heads); tp 24 divides the
    // sliding layers' 96 heads and suits the 8 KV heads, but not the full layers' 64: refused by name.
    const ModelShape m = testpresets::model("step-3.5-flash");
    const HardwareSpec hw = testpresets::hw("h100-sxm");
    for (Phase ph : {Phase::Prefill, Phase::Decode, Phase::Generate, Phase::Train}) {
        Scenario s;
        s.phase = ph;
        s.batch = 8;
        s.tp = 8;
        const Analysis a = analyze(hw, m, s);
        QVERIFY(a.totals.flops > 0 && a.totals.timeS > 0);
        QVERIFY(findOp(a, "attn.global_qkv_proj") && findOp(a, "attn.output_gate"));
    }
    QCOMPARE(QString::fromStdString(tensorParallelIssue(m, 24)),
             QString("tp 24 does not divide the 64 attention heads of the global layers of step-3.5-flash"));
    QVERIFY(tensorParallelIssue(m, 8).empty());
}

void TestStep35::shapeRules()
{
    // A shape that breaks the new fields' rules is refused, naming the keys.
    const ModelShape m = testpresets::model("step-3.5-flash");
    QVERIFY(validate(m).empty());
    auto issue = [&m](auto change) {
        ModelShape bad = m;
        change(bad);
        return QString::fromStdString(validate(bad).message);
    };
    QCOMPARE(issue([](ModelShape &b) { b.global.heads = 60; }),
             QString("global_heads must be 0 (the shape's) or a positive multiple of the global layers' KV heads (8), "
                     "got 60"));
    QCOMPARE(issue([](ModelShape &b) { b.global.rotaryFraction = 1.5; }),
             QString("global_rotary_fraction must be 0 (the shape's) or above 0 and at most 1, got 1.500000"));
    QCOMPARE(issue([](ModelShape &b) {
                 b.globalEvery = 0;
                 b.global = {};
             }),
             QString("global_first needs global layers (global_every > 0)"));
    QCOMPARE(issue([](ModelShape &b) { b.mtpStoresCopies = false; }),
             QString("mtp_shares_embedding needs mtp_stores_copies"));
    QCOMPARE(issue([](ModelShape &b) { b.mtpLayers = 0; }),
             QString("mtp_dense_ffn needs mtp_layers > 0 in a mixture of experts with a dense_ffn (> 0), got 11264"));
    // Without its own heads the global layers take the shape's 96: 12 x (2 x 4,096 x 32 more q, o and g_proj
    // rows) more weights than the 64-head layers had.
    ModelShape same = m;
    same.global.heads = 0;
    QCOMPARE(paramCount(same).total - paramCount(m).total, int64_t(12) * (2 * 4096 * 32 * 128 + 4096 * 32));
}

void TestStep35::wrapperAndStep3()
{
    // Step-3.7-Flash's file (step3p7) wraps a step3p5 text_config: without its vision tower it imports as that
    // language model; with it, it is refused, naming the tower. Step-3 (step3_text, step3_vl) is refused, naming
    // its attention.
    const nlohmann::json flash = readJsonFile(configPath(kFlash));
    nlohmann::json wrapper = {{"model_type", "step3p7"}, {"text_config", flash}};
    QCOMPARE(paramCount(importHfConfig(wrapper, "cfg.json")).checkpoint, int64_t(199384301376));
    wrapper["vision_config"] = {{"model_type", "perception_encoder"}, {"width", 1536}};
    QCOMPARE(errorOf(wrapper), QString("cfg.json: vision_config: Step-3.7's vision tower (perception_encoder) and its "
                                       "projector are not modelled; import the text_config (model_type step3p5) for "
                                       "the language model alone"));
    wrapper.erase("vision_config");
    wrapper["text_config"]["model_type"] = "qwen3";
    QVERIFY(errorOf(wrapper).contains("expected \"step3p5\" for Step-3.7's language model, got \"qwen3\""));
    for (const char *type : {"step3_text", "step3_vl"})
        QVERIFY(errorOf({{"model_type", type}, {"hidden_size", 7168}})
                    .contains("Step-3's multi-matrix factorization attention (queries through one shared low-rank "
                              "projection of share_q_dim"));
}

void TestStep35::refusals_data()
{
    // Each row sets `key` of the Flash config (its element `at`, or the whole key for -1) to `json`.
    QTest::addColumn<QString>("key");
    QTest::addColumn<int>("at");
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("sliding first") << "layer_types" << 0 << R"("sliding_attention")"
                                   << "layer_types: layer 0 slides: only full attention leading each group";
    QTest::newRow("no period") << "layer_types" << 8 << R"("sliding_attention")"
                               << "layer_types: the full-attention layers are not every n-th layer from 0";
    QTest::newRow("rotary per layer") << "partial_rotary_factors" << 5 << "0.5"
                                      << "partial_rotary_factors: layer 5's 0.5 differs from the other "
                                         "sliding-attention layers'";
    QTest::newRow("short list") << "partial_rotary_factors" << -1 << "[0.5, 1.0]"
                                << "partial_rotary_factors: has 2 entries for 45 layers";
    QTest::newRow("routed in the middle") << "moe_layers_enum" << -1 << R"("3,5,6")"
                                          << "moe_layers_enum: only the model's last layers may be routed, each once "
                                             "and in order (42 to 44), got layer 3";
    QTest::newRow("routed twice") << "moe_layers_enum" << -1 << "[44, 44]"
                                  << "moe_layers_enum: only the model's last layers may be routed, each once and in "
                                     "order (43 to 44), got layer 44";
    QTest::newRow("not a number") << "moe_layers_enum" << -1 << R"([3, "4"])"
                                  << "moe_layers_enum: expected layer numbers below 45, got '\"4\"'";
    QTest::newRow("empty") << "moe_layers_enum" << -1 << R"("")"
                           << "moe_layers_enum: expected layer numbers below 45, got ''";
    QTest::newRow("not a layer") << "moe_layers_enum" << -1 << R"("3,x")"
                                 << "moe_layers_enum: expected layer numbers below 45, got 'x'";
    QTest::newRow("no experts")
        << "moe_num_experts" << -1 << "null"
        << "moe_num_experts: missing: the config routes layers (moe_layers_enum, moe_top_k) but "
           "gives no experts";
    QTest::newRow("MFA") << "att_impl_type" << -1 << R"("MFA")"
                         << "att_impl_type: only GQA attention is modelled, got 'MFA'";
    QTest::newRow("no rope") << "use_rope_layers" << -1 << "[true, false]"
                             << "use_rope_layers: layers without rotary positions are not modelled";
    QTest::newRow("sliding head size")
        << "attention_other_setting" << -1
        << R"({"attention_type":"sliding_attention","num_attention_heads":96,"num_attention_groups":8,"head_dim":64})"
        << "head_dim: a head size of the sliding layers' own is not modelled";
}

void TestStep35::refusals()
{
    QFETCH(QString, key);
    QFETCH(int, at);
    QFETCH(QString, json);
    QFETCH(QString, message);
    nlohmann::json c = readJsonFile(configPath(kFlash));
    const nlohmann::json value = nlohmann::json::parse(json.toStdString());
    if (at < 0)
        c[key.toStdString()] = value;
    else
        c[key.toStdString()][static_cast<std::size_t>(at)] = value;
    const QString e = errorOf(c);
    QVERIFY2(e.startsWith("cfg.json: "), qPrintable(e));
    QVERIFY2(e.contains(message), qPrintable(e));
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestStep35)
#include "tst_step35.moc"
