// Tests for DeciLM / Nemotron-NAS (model_type "nemotron-nas", "deci"; core/io/hfdeci.cpp, issue #38) and the block
// model's heterogeneous layers (ModelShape::layerBlocks): each layer's FFN width, layers without attention or without
// an FFN, and attention or FFN replaced by one linear layer. Every count is by hand in the comment beside it.

#include "core/analysis/analysis.h"
#include "core/analysis/derivation.h"
#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"
#include "core/io/presets.h"
#include "core/model/modelshape.h"

#include "../analysishelpers.h"
#include "../hfconfighelpers.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace memwall::core {

namespace {

using testhf::configPath;
using testhf::errorOf;

using testanalysis::findOp;

nlohmann::json attention(int group) { return {{"n_heads_in_group", group}, {"no_op", false}}; }
nlohmann::json ffn(double mult) { return {{"ffn_mult", mult}, {"no_op", false}}; }

/// A small DeciLM: h 768, 12 heads of 64, vocab 1000, with the blocks given.
nlohmann::json tiny(const nlohmann::json &blocks)
{
    return {{"model_type", "nemotron-nas"}, {"hidden_size", 768},     {"num_hidden_layers", blocks.size()},
            {"num_attention_heads", 12},    {"vocab_size", 1000},     {"num_key_value_heads", nullptr},
            {"intermediate_size", nullptr}, {"hidden_act", "silu"},   {"max_position_embeddings", 4096},
            {"tie_word_embeddings", false}, {"block_configs", blocks}};
}

} // namespace

class TestHfDeci : public QObject
{
    Q_OBJECT

private slots:
    void super49bCounts();
    void super49bKvCache();
    void super49bOperatorsPerWidth();
    void linearReplacements();
    void kvHeadsPerLayer();
    void refusals_data();
    void refusals();
    void layerBlocksRoundTrip();
};

void TestHfDeci::super49bCounts()
{
    // nvidia/Llama-3_3-Nemotron-Super-49B-v1 (tests/data/configs: h 8192, 80 layers, 64 heads of 128, vocab 128,256,
    // untied, no biases). block_configs: 49 layers attend with n_heads_in_group 8 (64 / 8 = 8 KV heads), 31 have
    // no_op attention; every layer has an FFN, its width int(2 x ffn_mult x 8192 / 3) rounded up to 256:
    //   ffn_mult 5.25 -> 28,672 (49 layers), 1.3125 -> 7,168 (10), 1.0 -> 5,461 -> 5,632 (8), 2.625 -> 14,336 (6),
    //   0.5 -> 2,730 -> 2,816 (6), 3.28125 -> 17,920 (1).
    //   attention q and o 2 x 8192 x 8192 + k and v 2 x 8192 x 1024 = 150,994,944, + input_layernorm 8192
    //                                                      = 151,003,136, x 49          = 7,399,153,664
    //   FFNs 3 x 8192 x (49 x 28,672 + 10 x 7,168 + 8 x 5,632 + 6 x 14,336 + 6 x 2,816 + 17,920 = 1,642,496)
    //        = 40,365,981,696, + 80 post_attention_layernorms x 8192 = 655,360     = 40,366,637,056
    //   embedding and lm_head 2 x 128,256 x 8192 = 2,101,346,304, final norm 8192
    //   total 7,399,153,664 + 40,366,637,056 + 2,101,346,304 + 8,192              = 49,867,145,216
    // The model card and the Hub name it a 49B model (49.9B parameters); its model.safetensors.index.json could not
    // be read offline, so the hand count above is what pins it.
    const HfImport in = importHfConfigFileReport(configPath("Llama-3_3-Nemotron-Super-49B-v1.json"));
    const ModelShape &m = in.shape;
    const ParamCounts p = paramCount(m);
    QCOMPARE(p.total, int64_t(49867145216));
    QCOMPARE(p.active, p.total);
    QCOMPARE(p.embedding, int64_t(1050673152));
    QCOMPARE(m.kvHeads, int64_t(8));
    QCOMPARE(m.ffn, int64_t(28672)); // the widest layer's
    QCOMPARE(m.layerBlocks.size(), std::size_t(80));
    // Layer 6: no attention, FFN of 2.625 -> 14,336; layer 54: no attention, 1.0 -> 5,632; layer 79 attends.
    QVERIFY(layerBlock(m, 6).mixer == LayerMixer::None);
    QCOMPARE(layerBlock(m, 6).ffnWidth, int64_t(14336));
    QCOMPARE(layerBlock(m, 54).ffnWidth, int64_t(5632));
    QCOMPARE(layerBlock(m, 62).ffnWidth, int64_t(2816));
    QVERIFY(layerBlock(m, 79).mixer == LayerMixer::Attention);
    // One block per layer kind: attention with 14,336 and 28,672; no attention with 14,336, 17,920, 7,168, 28,672,
    // 5,632 and 2,816: eight groups, 80 layers, 49 attending.
    const LayerGroups groups = layerGroups(m);
    QCOMPARE(groups.size(), std::size_t(8));
    QCOMPARE(attentionLayers(groups), int64_t(49));
    int64_t layers = 0;
    for (const LayerGroup &g : groups)
        layers += g.count;
    QCOMPARE(layers, int64_t(80));
    // The last layer: attention 151,003,136 + FFN 3 x 8192 x 28,672 + 8192 = 704,651,264: 855,654,400.
    QCOMPARE(p.perLayer, int64_t(855654400));
    QVERIFY(std::any_of(in.report.begin(), in.report.end(), [](const std::string &l) {
        return l.find("49 attention layers (KV heads: 49 with 8)") != std::string::npos &&
               l.find("49 x 28672") != std::string::npos;
    }));
}

void TestHfDeci::super49bKvCache()
{
    // Only the 49 attending layers cache: 2 (K and V) x 8 KV heads x 128 x 49 layers x 2 B = 200,704 B a token (a
    // Llama-3.3-70B of 80 such layers: 327,680 B). At 131,072 tokens: 26,306,674,688 B.
    const ModelShape m = importHfConfigFile(configPath("Llama-3_3-Nemotron-Super-49B-v1.json"));
    QCOMPARE(cachedElements(m, layerGroups(m), 1.0, 1) * 2, 200704.0);
    QCOMPARE(cachedElements(m, layerGroups(m), 131072.0, 1) * 2, 26306674688.0);
    PresetLibrary lib;
    lib.loadBuiltin();
    Scenario s;
    s.phase = Phase::Decode;
    s.context = 131072;
    const Analysis a = analyze(*lib.findHardware("h100-sxm"), m, s);
    QCOMPARE(a.kvCache.bytesPerToken, 200704.0);
}

void TestHfDeci::super49bOperatorsPerWidth()
{
    // Decode, batch 1, 16-bit weights on one device: each FFN width is its own operator over its own layers, and
    // the attention operators run in the 49 attending layers only.
    const ModelShape m = importHfConfigFile(configPath("Llama-3_3-Nemotron-Super-49B-v1.json"));
    PresetLibrary lib;
    lib.loadBuiltin();
    Scenario s;
    s.phase = Phase::Decode;
    const Analysis a = analyze(*lib.findHardware("h100-sxm"), m, s);
    const Operator *up = findOp(a, "ffn.up_28672");
    QVERIFY(up);
    QCOMPARE(up->count, 49.0);
    QCOMPARE(up->weightBytes, 49.0 * 8192 * 28672 * 2); // 23,018,340,352 B: 49 layers x 8192 x 28,672 x 2 B
    const Operator *small = findOp(a, "ffn.down_2816");
    QVERIFY(small);
    QCOMPARE(small->count, 6.0);
    QCOMPARE(small->weightBytes, 6.0 * 2816 * 8192 * 2);
    QVERIFY(!findOp(a, "ffn.up")); // several widths: no operator of a width the model does not have
    const Operator *qkv = findOp(a, "attn.qkv_proj");
    QVERIFY(qkv);
    QCOMPARE(qkv->count, 49.0);
    // Every FFN weight is read once a step: 3 x 8192 x 1,642,496 x 2 B = 80,731,963,392 B over the FFN matmuls.
    double ffnWeights = 0;
    for (const Operator &o : a.operators)
        if (o.name.substr(0, 4) == "ffn." && o.cls == OpClass::Matmul)
            ffnWeights += o.weightBytes;
    QCOMPARE(ffnWeights, 80731963392.0);
    // tp 2 splits every width (28,672 / 2 = 14,336 a device).
    s.tp = 2;
    const Analysis split = analyze(*lib.findHardware("h100-sxm"), m, s);
    QCOMPARE(findOp(split, "ffn.up_28672")->weightBytes, 49.0 * 8192 * 14336 * 2);
    // Every width is a multiple of 256, so any tp that divides the 64 heads divides them all; a width of 5,664 in
    // layer 54 is not a multiple of 64 and is refused naming the layer.
    QVERIFY(tensorParallelIssue(m, 64).empty());
    ModelShape odd = m;
    odd.layerBlocks[54].ffnWidth = 5664;
    QCOMPARE(tensorParallelIssue(odd, 64), "tp 64 does not divide the FFN width 5664 of layer 54 of " + m.id);
}

void TestHfDeci::linearReplacements()
{
    // h 768, 12 heads of 64, n_heads_in_group 4 (3 KV heads), vocab 1000, untied. Layer 0: attention and FFN both
    // replaced by linear layers; layer 1: attention (q, o 768 x 768, k, v 768 x 192) and an FFN of ffn_mult 1.0
    // (int(2 x 768 / 3) = 512, a multiple of 256); layer 2: both no_op.
    //   layer 0  input_layernorm 768 + linear_attn 768 x 768 + post_attention_layernorm 768 + linear_mlp 768 x 768
    //            = 1,181,184
    //   layer 1  768 + 2 x 589,824 + 2 x 147,456 + 768 + 3 x 768 x 512 (1,179,648)     = 2,655,744
    //   layer 2  nothing                                                                = 0
    //   embedding and head 2 x 1000 x 768 = 1,536,000, final norm 768: total 5,373,696
    nlohmann::json linear0 = {{"attention", {{"no_op", false}, {"replace_with_linear", true}}},
                              {"ffn", {{"no_op", false}, {"replace_with_linear", true}}}};
    nlohmann::json normal = {{"attention", attention(4)}, {"ffn", ffn(1.0)}};
    nlohmann::json empty = {{"attention", {{"no_op", true}}}, {"ffn", {{"no_op", true}}}};
    const ModelShape m = importHfConfig(tiny({linear0, normal, empty}), "tiny.json");
    QVERIFY(layerBlock(m, 0).mixer == LayerMixer::Linear);
    QVERIFY(layerBlock(m, 0).ffn == LayerFfn::Linear);
    QVERIFY(layerBlock(m, 2).mixer == LayerMixer::None);
    QVERIFY(layerBlock(m, 2).ffn == LayerFfn::None);
    QCOMPARE(m.kvHeads, int64_t(3));
    QCOMPARE(paramCount(m).total, int64_t(5373696));
    // One attending layer caches: 2 x 3 x 64 = 384 elements a token.
    QCOMPARE(cachedElements(m, layerGroups(m), 1.0, 1), 384.0);
    // The replaced parts run as their own operators: a linear layer 768 x 768 in one layer of three.
    PresetLibrary lib;
    lib.loadBuiltin();
    Scenario s;
    s.phase = Phase::Decode;
    const Analysis a = analyze(*lib.findHardware("h100-sxm"), m, s);
    for (const char *name : {"attn.linear", "ffn.linear"}) {
        const Operator *op = findOp(a, name);
        QVERIFY2(op, name);
        QCOMPARE(op->count, 1.0);
        QCOMPARE(op->weightBytes, 768.0 * 768 * 2);
        QCOMPARE(op->flops, 2.0 * 768 * 768); // one token
    }
    QCOMPARE(findOp(a, "attn.qkv_proj")->count, 1.0);
    QCOMPARE(findOp(a, "ffn.up")->count, 1.0); // one width: the plain names
    QCOMPARE(findOp(a, "ffn.up")->weightBytes, 768.0 * 512 * 2);
    // A block may give its width as intermediate_size instead of ffn_mult (newer configs): 1024 here, 3 x 768 x 1024
    // = 2,359,296 where ffn_mult 1.0 gave 1,179,648.
    nlohmann::json byWidth = normal;
    byWidth["ffn"] = {{"intermediate_size", 1024}, {"no_op", false}};
    const ModelShape w = importHfConfig(tiny({linear0, byWidth, empty}), "tiny.json");
    QCOMPARE(layerBlock(w, 1).ffnWidth, int64_t(1024));
    QCOMPARE(paramCount(w).total, int64_t(5373696 + 2359296 - 1179648));
}

void TestHfDeci::kvHeadsPerLayer()
{
    // h 768, 12 heads of 64, vocab 1000: layer 0 attends with n_heads_in_group 4 (3 KV heads), layer 1 with 2 (6),
    // layer 2 with 12 (1) and has no FFN; layers 0 and 1 have an FFN of ffn_mult 1.0 (512).
    //   attention with k KV heads: q and o 2 x 768 x 768 = 1,179,648, k and v 2 x 768 x 64 k = 98,304 k; a norm 768
    //   layer 0  1,179,648 + 294,912 + 768 + 3 x 768 x 512 (1,179,648) + 768           = 2,655,744
    //   layer 1  1,179,648 + 589,824 + 768 + 1,179,648 + 768                           = 2,950,656
    //   layer 2  1,179,648 + 98,304 + 768                                               = 1,278,720
    //   embedding and head 1,536,000, final norm 768: total                             = 8,421,888
    // KV a token: 2 x (3 + 6 + 1) x 64 = 1,280 elements, 2,560 B at 16 bits.
    const ModelShape m = importHfConfig(tiny({{{"attention", attention(4)}, {"ffn", ffn(1.0)}},
                                              {{"attention", attention(2)}, {"ffn", ffn(1.0)}},
                                              {{"attention", attention(12)}, {"ffn", {{"no_op", true}}}}}),
                                        "tiny.json");
    QCOMPARE(m.kvHeads, int64_t(3)); // the first attention layer's; the others keep their own
    QCOMPARE(layerBlock(m, 0).kvHeads, int64_t(0));
    QCOMPARE(layerBlock(m, 1).kvHeads, int64_t(6));
    QCOMPARE(layerBlock(m, 2).kvHeads, int64_t(1));
    QCOMPARE(paramCount(m).total, int64_t(8421888));
    QCOMPARE(cachedElements(m, layerGroups(m), 1.0, 1), 1280.0);
    // Over 2 devices: 3 heads are not split (each keeps a copy of one), 6 are (3 each), 1 is copied: 2 x (1 + 3 + 1)
    // x 64 = 640 elements a token on each.
    QCOMPARE(cachedElements(m, layerGroups(m), 1.0, 2), 640.0);
    PresetLibrary lib;
    lib.loadBuiltin();
    Scenario s;
    s.phase = Phase::Decode;
    s.context = 1000;
    const Analysis a = analyze(*lib.findHardware("h100-sxm"), m, s);
    QCOMPARE(a.kvCache.bytesPerToken, 2560.0);
    QCOMPARE(a.kvCache.totalBytes, 2560.0 * 1001); // the context and the new token
    // Each KV-head count its own projections and core: qkv_proj 768 x (768 + 2 x 64 k) x 2 B; the scores read each
    // layer's own keys from the cache, the 1000 tokens of context and the new one: 1001 x 64 k x 2 B.
    QVERIFY(!findOp(a, "attn.qkv_proj"));
    QCOMPARE(findOp(a, "attn.qkv_proj_kv3")->weightBytes, 768.0 * 1152 * 2);
    QCOMPARE(findOp(a, "attn.qkv_proj_kv6")->weightBytes, 768.0 * 1536 * 2);
    QCOMPARE(findOp(a, "attn.qkv_proj_kv1")->count, 1.0);
    QCOMPARE(findOp(a, "attn.score_kv6")->kvBytes, 1001.0 * 6 * 64 * 2);
    QCOMPARE(findOp(a, "attn.score_kv1")->kvBytes, 1001.0 * 1 * 64 * 2);
    QCOMPARE(findOp(a, "attn.out_proj")->count, 3.0);
    // The derivations add up the layers' own KV heads too, and every field of the step and of each operator derives
    // to the value the analysis has (fused scores: each count's softmax and context launch no kernel of their own).
    const HardwareSpec &hw = *lib.findHardware("h100-sxm");
    QCOMPARE(derive(hw, m, s, a, "kv_cache.bytes_per_token").value, 2560.0);
    QCOMPARE(derive(hw, m, s, a, "kv_cache.total_bytes").value, 2560.0 * 1001);
    for (const std::string &field : derivationFields(a))
        QVERIFY2(!derive(hw, m, s, a, field).lines.empty(), field.c_str());
    // The blocks' KV heads survive a shape file.
    const ModelShape back = modelShapeFromJson(toJson(m), "shape.json");
    QCOMPARE(paramCount(back).total, int64_t(8421888));
    QCOMPARE(layerBlock(back, 1).kvHeads, int64_t(6));
}

void TestHfDeci::refusals_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    QTest::newRow("window")
        << "window"
        << "cfg.json: block_configs[1].attention.window_length: a sliding window on some layers is not modelled, got "
           "4096";
    QTest::newRow("layers")
        << "layers"
        << "cfg.json: block_configs: must list one block for each of the 3 layers (num_hidden_layers), got 2";
    QTest::newRow("activation")
        << "act"
        << "cfg.json: block_configs[1].ffn.hidden_act: an FFN activation other than the model's (silu) is not "
           "modelled, got \"relu\"";
    QTest::newRow("no ffn")
        << "noffn"
        << "cfg.json: block_configs: no layer has an FFN (every ffn is no_op or replace_with_linear)";
}

void TestHfDeci::refusals()
{
    QFETCH(QString, field);
    QFETCH(QString, message);
    nlohmann::json a = {{"attention", attention(4)}, {"ffn", ffn(1.0)}};
    nlohmann::json blocks = {a, a};
    nlohmann::json c = tiny(blocks);
    if (field == "window") {
        c["block_configs"][1]["attention"]["window_length"] = 4096;
    } else if (field == "act") {
        c["block_configs"][1]["ffn"]["hidden_act"] = "relu";
    } else if (field == "layers") {
        c["num_hidden_layers"] = 3;
    } else {
        for (auto &b : c["block_configs"])
            b["ffn"] = {{"no_op", true}};
    }
    QCOMPARE(errorOf(c), message);
}

void TestHfDeci::layerBlocksRoundTrip()
{
    // A shape with layer_blocks writes them and reads them back: the same count and the same blocks.
    const ModelShape m = importHfConfigFile(configPath("Llama-3_3-Nemotron-Super-49B-v1.json"));
    const nlohmann::json j = toJson(m);
    QVERIFY(j.contains("layer_blocks"));
    QCOMPARE(j["layer_blocks"][6].dump(), std::string(R"({"ffn":"dense","ffn_width":14336,"mixer":"none"})"));
    const ModelShape back = modelShapeFromJson(j, "shape.json");
    QCOMPARE(back.layerBlocks == m.layerBlocks, true);
    QCOMPARE(paramCount(back).total, int64_t(49867145216));
    // A block list of the wrong length is refused naming the field.
    nlohmann::json bad = j;
    bad["layer_blocks"].erase(bad["layer_blocks"].begin());
    try {
        modelShapeFromJson(bad, "shape.json");
        QFAIL("a short layer_blocks was accepted");
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.what()),
                 QString("shape.json: layer_blocks must list one block for each of the 80 layers (at "
                         "most 1024), got 79"));
    }
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestHfDeci)
#include "tst_hfdeci.moc"
