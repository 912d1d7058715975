// Kimi-Linear (model_type kimi_linear, core/io/hfkimi.cpp; issue #38): Kimi Delta Attention layers between MLA layers
// without positions, DeepSeek-V3's MoE. Every count is by hand in the comment beside it, against the checkpoint's
// published total.

#include "core/analysis/analysis.h"
#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"
#include "core/io/presets.h"
#include "core/model/modelshape.h"

#include "../analysishelpers.h"
#include "../builtinpresets.h"
#include "../hfconfighelpers.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

namespace memwall::core {

namespace {

using testhf::configPath;
using testhf::errorOf;

using testanalysis::decodeAt;
using testanalysis::findOp;

constexpr const char *kKimiLinear = "Kimi-Linear-48B-A3B-Instruct.transcribed.json";

nlohmann::json kimiConfig() { return readJsonFile(configPath(kKimiLinear), /*pythonFloats=*/true); }

} // namespace

class TestKimi : public QObject
{
    Q_OBJECT

private slots:
    void kimiLinearHandCounts();
    void kimiLinearStateAndKvBytes();
    void kimiLinearOperators();
    void kimiLinearPresetKeys();
    void kimiLinearRefusals_data();
    void kimiLinearRefusals();
    void moonViTHandCounts();
    void moonViTImagesInPrefill();
    void moonViTRefusals();
};

void TestKimi::kimiLinearHandCounts()
{
    // moonshotai/Kimi-Linear-48B-A3B-Instruct (KimiLinearForCausalLM, its modeling_kimi.py): h 2304, 27 layers, vocab
    // 163,840, untied head. linear_attn_config puts Kimi Delta Attention on the 1-based layers 1-3, 5-7, ..., 21-23,
    // 25, 26 (20) and MLA on 4, 8, ..., 24 and 27 (7): 0-based, MLA on 3, 7, 11, 15, 19, 23 and 26.
    // Kimi Delta Attention (KimiDeltaAttention: 32 heads of 128, conv 4, gates of rank 128):
    //   q_proj, k_proj, v_proj 3 x 2304 x 4096 = 28,311,552; q/k/v_conv1d 3 x 4096 x 4 = 49,152 (no bias);
    //   A_log 32; f_a_proj 2304 x 128 = 294,912; f_b_proj 128 x 4096 = 524,288; dt_bias 4096; b_proj 2304 x 32 =
    //   73,728; g_a_proj 294,912; g_b_proj 524,288; o_norm 128; o_proj 4096 x 2304 = 9,437,184      = 39,514,272.
    // MLA (KimiMLAAttention, q_lora_rank null, 32 heads, nope 128, rope 64, v 128, kv_lora 512):
    //   q_proj 2304 x 32 x 192 = 14,155,776; kv_a_proj_with_mqa 2304 x 576 = 1,327,104; kv_a_layernorm 512;
    //   kv_b_proj 512 x 32 x 256 = 4,194,304; o_proj 32 x 128 x 2304 = 9,437,184                 = 29,114,880.
    // FFN: layer 0 dense, 3 x 2304 x 9216 = 63,700,992; layers 1-26 MoE (KimiSparseMoeBlock): 256 experts x 3 x 2304
    //   x 1024 (7,077,888 each) = 1,811,939,328, one shared expert 7,077,888, router 256 x 2304 = 589,824 and its
    //   e_score_correction_bias 256                                                                = 1,819,607,296.
    // Two RMSNorms a layer 4,608; embeddings and lm_head 2 x 163,840 x 2304 = 754,974,720; final norm 2304.
    // Total: 754,974,720 + 2304 + 27 x 4608 + 20 x 39,514,272 + 7 x 29,114,880 + 63,700,992 + 26 x 1,819,607,296
    //      = 49,122,681,728: the checkpoint's safetensors total_parameters (its index's total_size 98,245,528,576 B is
    //      that at 2 B, with A_log and dt_bias, 20 x 4,128 = 82,560, in float32: + 165,120 B). The card says "48B".
    // Active (8 experts a token): 26 x (8 x 7,077,888 + 7,077,888 + 589,824 + 256) = 26 x 64,291,072
    //      replaces the experts: 754,974,720 + 2304 + 124,416 + 790,285,440 + 203,804,160 + 63,700,992
    //      + 1,671,567,872 = 3,484,459,904 (the card's "A3B").
    const HfImport in = importHfConfigFileReport(configPath(kKimiLinear));
    const ModelShape &m = in.shape;
    QCOMPARE(m.family, std::string("kimi_linear"));
    QCOMPARE(m.linearPattern, std::string("LLLALLLALLLALLLALLLALLLALLA"));
    QCOMPARE(m.attentionEvery, int64_t(0));
    QVERIFY(m.mixer == MixerKind::Mla);
    QVERIFY(m.positions == PositionEncoding::None);
    QCOMPARE(m.linear.gateRank, int64_t(128));
    QCOMPARE(m.maxPositions, int64_t(1048576));
    const LayerGroups g = layerGroups(m);
    QCOMPARE(g.size(), std::size_t(3));
    QVERIFY(g[0].block == (LayerBlock{LayerMixer::LinearRecurrent, LayerFfn::Dense, 0}));
    QCOMPARE(g[0].count, int64_t(1));
    QVERIFY(g[1].block == (LayerBlock{LayerMixer::LinearRecurrent, LayerFfn::Moe, 0}));
    QCOMPARE(g[1].count, int64_t(19));
    QVERIFY(g[2].block == (LayerBlock{LayerMixer::Latent, LayerFfn::Moe, 0}));
    QCOMPARE(g[2].count, int64_t(7));
    QCOMPARE(g[2].firstLayer, int64_t(3));
    QVERIFY(layerBlock(m, 26).mixer == LayerMixer::Latent); // the last layer attends, off the every-fourth pattern
    QVERIFY(layerBlock(m, 25).mixer == LayerMixer::LinearRecurrent);
    const ParamCounts p = paramCount(m);
    QCOMPARE(static_cast<qint64>(p.total), qint64(49122681728));
    QCOMPARE(static_cast<qint64>(p.active), qint64(3484459904));
    QCOMPARE(static_cast<qint64>(p.checkpoint), qint64(49122681728)); // no MTP layers
}

void TestKimi::kimiLinearStateAndKvBytes()
{
    // At 16 bits, the 7 MLA layers cache the latent and the shared key, 512 + 64 = 576 elements a token each:
    // 7 x 576 x 2 B = 8,064 B a token (the 20 KDA layers cache nothing per token). Each KDA layer keeps 32 heads x 128
    // x 128 = 524,288 state elements in float32 (vLLM's kda_state_dtype) and 3 x 4096 x (4 - 1) = 36,864 of the
    // convolutions in the cache's 16 bits: 20 x (524,288 x 4 + 36,864 x 2) = 20 x 2,170,880 = 43,417,600 B a sequence,
    // whatever the context.
    const ModelShape m = importHfConfigFile(configPath(kKimiLinear));
    QVERIFY(m.stateFormat == std::optional<DType>(DType::FP32));
    const HardwareSpec &hw = testpresets::hw("h100-sxm");
    for (int64_t context : {int64_t(4095), int64_t(131071)}) {
        const Analysis a = analyze(hw, m, decodeAt(context));
        QCOMPARE(a.kvCache.bytesPerToken, 8064.0);
        QCOMPARE(a.kvCache.stateBytesPerSequence, 43417600.0);
        QCOMPARE(a.kvCache.totalBytes, 8064.0 * static_cast<double>(context + 1));
    }
    // tp 8: 4 heads and 1,536 convolved channels of each layer's state on a device; the latent is not split.
    Scenario s = decodeAt(4095);
    s.tp = 8;
    const Analysis a = analyze(hw, m, s);
    QCOMPARE(a.memory.state, 20.0 * (4 * 128 * 128 * 4 + 3 * 1536 * 2));
    QCOMPARE(a.kvCache.bytesPerToken, 8064.0);
}

void TestKimi::kimiLinearOperators()
{
    // One decode step at batch 1, tp 1, 16 bits. Each of the 20 KDA layers (operators count over their 20 runs):
    // - linear.in_proj: q, k, v (3 x 4096), b_proj (32), f_a_proj and g_a_proj (128 each) from the hidden state:
    //   2304 x 12,576 = 28,975,104 weights;
    // - linear.f_b_proj and linear.g_b_proj: 128 x 4096 = 524,288 weights each, 2 FLOPs a weight;
    // - linear.gates: q and k L2-normed, 3 x 8192, the decay per channel 7 x 4096 and beta 4 x 32 = 53,376 FLOPs;
    // - linear.scan: the recurrent rule, 32 heads x (7 x 128 x 128 + 2 x 128) = 3,678,208 FLOPs, its float32 state
    //   read and written, 2 x 32 x 128 x 128 x 4 = 4,194,304 B.
    // The 7 MLA layers project q directly (2304 x 6144) and rotate nothing (no attn.rope).
    const ModelShape m = importHfConfigFile(configPath(kKimiLinear));
    const HardwareSpec &hw = testpresets::hw("h100-sxm");
    const Analysis a = analyze(hw, m, decodeAt(4095));
    QCOMPARE(findOp(a, "linear.in_proj")->weightBytes, 20.0 * 28975104 * 2);
    QCOMPARE(findOp(a, "linear.f_b_proj")->weightBytes, 20.0 * 524288 * 2);
    QCOMPARE(findOp(a, "linear.f_b_proj")->flops, 20.0 * 2 * 524288);
    QCOMPARE(findOp(a, "linear.g_b_proj")->weightBytes, 20.0 * 524288 * 2);
    QCOMPARE(findOp(a, "linear.gates")->flops, 20.0 * 53376);
    QCOMPARE(findOp(a, "linear.scan")->count, 20.0);
    QCOMPARE(findOp(a, "linear.scan")->flops, 20.0 * 3678208);
    QCOMPARE(findOp(a, "linear.scan")->kvBytes, 20.0 * 4194304);
    QCOMPARE(findOp(a, "attn.q_proj")->weightBytes, 7.0 * 2304 * 6144 * 2);
    QVERIFY(!findOp(a, "attn.rope"));
    QVERIFY(findOp(a, "attn.kv_a_proj"));
    // Gated DeltaNet's operators stay as they were: Qwen3.5 has no f_b_proj.
    QVERIFY(!findOp(analyze(hw, testpresets::model("qwen3-5-397b-a17b"), decodeAt(4095)), "linear.f_b_proj"));
    // A prompt of 1000 tokens runs the chunked rule in chunks of 64, padded to 1024 tokens:
    // 1024 x 32 heads x 2 x (64 x (3 x 128 + 2 x 128) + 64^2 / 3 + 3 x 128 x 128) FLOPs a layer.
    Scenario p;
    p.phase = Phase::Prefill;
    p.batch = 1;
    p.seq = 1000;
    const Analysis pre = analyze(hw, m, p);
    QCOMPARE(findOp(pre, "linear.scan")->flops, 20.0 * 1024 * 32 * 2 * (64.0 * 640 + 4096.0 / 3 + 3.0 * 16384));
    // Every phase runs, split too; the decode step's state traffic does not grow with the context, the MLA layers' do.
    for (Phase ph : {Phase::Prefill, Phase::Decode, Phase::Generate, Phase::Train}) {
        Scenario s = decodeAt(2048);
        s.phase = ph;
        s.seq = 2048;
        s.output = 16;
        s.tp = 8;
        const Analysis x = analyze(hw, m, s);
        QVERIFY(x.totals.timeS > 0 && std::isfinite(x.totals.timeS));
    }
    const Analysis far = analyze(hw, m, decodeAt(131071));
    QCOMPARE(findOp(far, "linear.scan")->kvBytes, findOp(a, "linear.scan")->kvBytes);
    QCOMPARE(far.kvCache.totalBytes, 32 * a.kvCache.totalBytes); // 131,072 tokens against 4,096
}

void TestKimi::kimiLinearPresetKeys()
{
    // The preset keys say the same shape: linear_gate_rank and linear_pattern, written only when set.
    const ModelShape m = importHfConfigFile(configPath(kKimiLinear));
    const nlohmann::json j = toJson(m);
    QCOMPARE(j.at("linear_gate_rank").get<int64_t>(), int64_t(128));
    QCOMPARE(j.at("linear_pattern").get<std::string>(), std::string("LLLALLLALLLALLLALLLALLLALLA"));
    const ModelShape back = modelShapeFromJson(j, "kimi.json");
    QCOMPARE(paramCount(back).total, paramCount(m).total);
    QCOMPARE(back.linearPattern, m.linearPattern);
    const nlohmann::json qwen = toJson(testpresets::model("qwen3-5-397b-a17b"));
    QVERIFY(!qwen.contains("linear_gate_rank") && !qwen.contains("linear_pattern"));
    // The preset offers the model with the same count.
    QCOMPARE(paramCount(testpresets::model("kimi-linear-48b-a3b")).total, int64_t(49122681728));
    // A pattern with another character, or beside attention_every, is refused naming the key.
    nlohmann::json bad = j;
    bad["linear_pattern"] = "LLLX";
    try {
        modelShapeFromJson(bad, "kimi.json");
        QFAIL("a linear_pattern with X was accepted");
    } catch (const InputError &e) {
        QVERIFY2(std::string(e.what()).find("linear_pattern") != std::string::npos, e.what());
    }
    bad = j;
    bad["attention_every"] = 4;
    bad["attention_offset"] = 3;
    try {
        modelShapeFromJson(bad, "kimi.json");
        QFAIL("linear_pattern beside attention_every was accepted");
    } catch (const InputError &e) {
        QVERIFY2(std::string(e.what()).find("attention_every") != std::string::npos, e.what());
    }
}

void TestKimi::kimiLinearRefusals_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("error");
    QTest::newRow("q_lora_rank") << "q_lora_rank"
                                 << "1536"
                                 << "kimi.json: q_lora_rank: KimiMLAAttention projects queries directly: must be null, "
                                    "got 1536";
    QTest::newRow("mla_use_nope") << "mla_use_nope"
                                  << "false"
                                  << "kimi.json: mla_use_nope: KimiMLAAttention has no rotary positions: must be true";
    QTest::newRow("mtp") << "num_nextn_predict_layers"
                         << "1"
                         << "kimi.json: num_nextn_predict_layers: KimiLinearForCausalLM has no "
                            "multi-token-prediction layers, got 1";
    QTest::newRow("attention residuals") << "attn_res_block_size"
                                         << "12"
                                         << "kimi.json: attn_res_block_size: attention residuals across blocks of "
                                            "layers (Kimi K3's) are not modelled";
    QTest::newRow("full-rank gate") << "linear_attn_config/use_full_rank_gate"
                                    << "true"
                                    << "kimi.json: linear_attn_config.use_full_rank_gate: a full-rank output gate "
                                       "(g_proj) is not modelled; Kimi-Linear's is low rank";
    QTest::newRow("layer in no list") << "linear_attn_config/full_attn_layers"
                                      << "[4, 8, 12, 16, 20, 24]"
                                      << "kimi.json: linear_attn_config.full_attn_layers: layer 27 is in neither "
                                         "kda_layers nor this list";
    QTest::newRow("layer twice") << "linear_attn_config/full_attn_layers"
                                 << "[3, 4, 8, 12, 16, 20, 24, 27]"
                                 << "kimi.json: linear_attn_config.full_attn_layers: layer 3 is listed twice "
                                    "(kda_layers and full_attn_layers)";
    QTest::newRow("layer out of range") << "linear_attn_config/kda_layers"
                                        << "[0]"
                                        << "kimi.json: linear_attn_config.kda_layers: expected layer numbers from 1 "
                                           "to num_hidden_layers (27), got 0";
}

void TestKimi::kimiLinearRefusals()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, error);
    nlohmann::json c = kimiConfig();
    const QStringList path = key.split('/');
    nlohmann::json &node = path.size() == 2 ? c[path[0].toStdString()] : c;
    node[path.back().toStdString()] = nlohmann::json::parse(value.toStdString());
    QCOMPARE(errorOf(c, "kimi.json"), error);
    QCOMPARE(errorOf(kimiConfig(), "kimi.json"), QString()); // the published file imports
}

void TestKimi::moonViTHandCounts()
{
    // moonshotai/Kimi-K2.5 (tests/data/configs/Kimi-K2.5.json): the language model (text_config, Kimi K2's shape) is
    // 1,026,408,232,448 parameters (tst_layerblocks::familyParamCounts). Its vision_config, MoonViT (vt_hidden_size
    // 1152, 27 layers, 16 heads, MLP 4304, patches of 14, a learned 64 x 64 grid of positions, 2 x 2 merge), as
    // MoonViT3dPretrainedModel and KimiK25MultiModalProjector build it:
    //   patch_embed.proj Conv2d 3 x 14 x 14 = 588 inputs x 1152 + 1152 bias = 678,528;
    //   pos_emb.weight 64 x 64 x 1152 = 4,718,592 (its temporal sin-cos table is a buffer, not a weight);
    //   a block: norm0 and norm1 2 x 2 x 1152 = 4,608, wqkv 1152 x 3456 + 3456 = 3,984,768, wo 1152 x 1152 + 1152 =
    //   1,328,256, mlp.fc0 1152 x 4304 + 4304 = 4,962,512, mlp.fc1 4304 x 1152 + 1152 = 4,959,360: 15,239,504, x 27 =
    //   411,466,608 (its 2D rotary positions have no weights); final_layernorm 2,304: the tower 416,866,032.
    //   mm_projector: pre_norm 2 x 1152 = 2,304; linear_1 4608 x 4608 + 4608 = 21,238,272; linear_2 4608 x 7168 +
    //   7168 = 33,037,312: 54,277,888.
    //   Vision 471,143,920, total 1,026,879,376,368: the checkpoint's logical parameter count (an audit of every
    //   safetensors shard header of moonshotai/Kimi-K2.5, INT4 weights unpacked 8 to an int32, quoted in a public code
    //   index; another reports 471,143,920 for the Kimi-K2.6 tower and projector, byte-exact against its safetensors).
    const HfImport in = importHfConfigFileReport(configPath("Kimi-K2.5.json"));
    const ModelShape &m = in.shape;
    QCOMPARE(visionTowerParams(m.vision), int64_t(416866032));
    QCOMPARE(visionProjectorParams(m.vision), int64_t(54277888));
    const ParamCounts p = paramCount(m);
    QCOMPARE(p.vision, int64_t(471143920));
    QCOMPARE(p.total, int64_t(1026879376368));
    QCOMPARE(p.active, int64_t(32861500928)); // a text token does not touch the tower
    // An image at the grid of its positions, 64 x 14 = 896 px: 4,096 patches, 2 x 2 merged into 1,024 image tokens.
    QCOMPARE(m.vision.imageSize, int64_t(896));
    QCOMPARE(m.vision.patches, int64_t(4096));
    QCOMPARE(m.vision.tokensPerImage(), int64_t(1024));
    QVERIFY(m.vision.rotary);
    bool named = false;
    for (const std::string &line : in.report)
        named = named || line.find("MoonViT, 27 layers") != std::string::npos;
    QVERIFY(named);
    // The preset keys say the same tower (rotary written only when set), and the preset offers it.
    const ModelShape back = modelShapeFromJson(toJson(m), "k25.json");
    QCOMPARE(paramCount(back).vision, int64_t(471143920));
    QVERIFY(back.vision.rotary);
    QVERIFY(!toJson(testpresets::model("gemma-3-27b")).at("vision").contains("rotary")); // SigLIP: learned positions
    QCOMPARE(paramCount(testpresets::model("kimi-k2.5")).total, int64_t(1026879376368));
}

void TestKimi::moonViTImagesInPrefill()
{
    // Kimi K2.5, one prompt of 1,000 text tokens and one image on an H100 at tp 8: the tower runs over the image's
    // 4,096 patches, and the language model prefills 1,000 + 1,024 tokens as a text prompt of 2,024 would.
    // Per device (16 / 8 = 2 heads of 72): the scores 27 layers x 2 x 2 heads x 4,096^2 pairs x 72 = 130,459,631,616;
    // the 2D rotary positions 27 x 3 x 4,096 tokens x 2 x 1152 / 8 = 95,551,488 FLOPs; the projector's linear_1
    // 1,024 tokens x 4,608 x (4,608 / 8 = 576) x 2 + 1,024 x 576 bias adds = 5,436,407,808.
    const ModelShape m = testpresets::model("kimi-k2.5");
    const HardwareSpec &hw = testpresets::hw("h100-sxm");
    Scenario s;
    s.phase = Phase::Prefill;
    s.seq = 1000;
    s.tp = 8;
    s.images = 1;
    Scenario text = s;
    text.images = 0;
    text.seq = 2024;
    const Analysis a = analyze(hw, m, s);
    const Analysis b = analyze(hw, m, text);
    QCOMPARE(findOp(a, "vision.attn.score")->flops, 130459631616.0);
    QCOMPARE(findOp(a, "vision.attn.rope")->flops, 95551488.0);
    QCOMPARE(findOp(a, "vision.projector.fc1")->flops, 5436407808.0);
    QVERIFY(findOp(a, "vision.merger.norm"));
    QCOMPARE(a.memory.kv, b.memory.kv); // the image tokens are cached with the prompt
    double visionFlops = 0;
    for (const Operator &op : a.operators)
        visionFlops += op.name.starts_with("vision.") ? op.flops : 0;
    QCOMPARE(a.totals.flops, b.totals.flops + visionFlops);
    // Decode and generate run too; the tower only in generate's prefill.
    s.phase = Phase::Decode;
    s.context = 4096;
    QVERIFY(!findOp(analyze(hw, m, s), "vision.attn.score"));
    s.phase = Phase::Generate;
    s.output = 8;
    QVERIFY(analyze(hw, m, s).totals.timeS > 0);
}

void TestKimi::moonViTRefusals()
{
    // What the block model cannot say of a vision_config is refused in one line naming the key.
    auto refused = [](const char *key, const nlohmann::json &value) {
        nlohmann::json c = readJsonFile(configPath("Kimi-K2.5.json"), /*pythonFloats=*/true);
        c["vision_config"][key] = value;
        return errorOf(c, "kimi.json");
    };
    QCOMPARE(refused("merge_type", "sd2"),
             QString("kimi.json: vision_config.merge_type: only sd2_tpool (2 x 2 patches a token, frames averaged) is "
                     "modelled, got 'sd2'"));
    QCOMPARE(refused("mm_projector_type", "patchmergerv2"),
             QString("kimi.json: vision_config.mm_projector_type: only patchmerger (pre_norm, two linear layers with "
                     "biases) is modelled, got 'patchmergerv2'"));
    QCOMPARE(refused("text_hidden_size", 4096),
             QString("kimi.json: vision_config.text_hidden_size: 4096 differs from the language model's hidden_size "
                     "(7168)"));
    QCOMPARE(refused("merge_kernel_size", nlohmann::json::array({3, 3})),
             QString("kimi.json: vision_config.merge_kernel_size: expected two sizes that divide the position grid "
                     "(64 x 64), got [3,3]"));
    // Without vision_config the language model is imported alone, and its name says so.
    nlohmann::json c = readJsonFile(configPath("Kimi-K2.5.json"), /*pythonFloats=*/true);
    c.erase("vision_config");
    const ModelShape text = importHfConfig(c, "Kimi-K2.5.json");
    QVERIFY(!text.vision.present());
    QCOMPARE(paramCount(text).total, int64_t(1026408232448));
    QVERIFY2(text.name.find("(language model)") != std::string::npos, text.name.c_str());
}

} // namespace memwall::core

QTEST_APPLESS_MAIN(memwall::core::TestKimi)
#include "tst_kimi.moc"
