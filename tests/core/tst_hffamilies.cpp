// Tests for the config.json families, multi-token-prediction modules and quantization_config of issue #38
// (core/io/hffamilies.cpp, core/io/hfquant.cpp, the family table of core/io/hfconfig.cpp). Every count is by hand
// in the comment beside it, against the checkpoint's published total.

#include "core/analysis/footprint.h"
#include "core/analysis/scenario.h"
#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"
#include "core/model/modelshape.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace memwall::core {

namespace {

std::string configPath(const char *file) { return std::string(MEMWALL_SOURCE_DIR "/tests/data/configs/") + file; }

QString errorOf(const nlohmann::json &c)
{
    try {
        importHfConfig(c, "cfg.json");
    } catch (const InputError &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

bool reportHas(const HfImport &in, const std::string &part)
{
    return std::any_of(in.report.begin(), in.report.end(),
                       [&](const std::string &l) { return l.find(part) != std::string::npos; });
}

} // namespace

class TestHfFamilies : public QObject
{
    Q_OBJECT

private slots:
    void deepseekMtp();
    void minimaxM2();
    void mimo();
    void refusalsNameTheFeature_data();
    void refusalsNameTheFeature();
    void quantizationFormats_data();
    void quantizationFormats();
    void quantizedCheckpointSetsTheScenario();
    void nemotronHeadDimSpelling();
    void gemma3TextDefaults();
    void mtpInMemoryOnlyWhenDrafting();
    void kimiK25TextModel();
};

void TestHfFamilies::deepseekMtp()
{
    // DeepSeek-V3 (tests/data/configs/DeepSeek-V3.json; README_WEIGHTS.md of deepseek-ai/DeepSeek-V3 @ 9b4e9788):
    // the main model is 671,026,419,200 (tst_layerblocks). The MTP module (layer 61, a MoE layer as 61 >= 3):
    //   MLA 187,107,328 + 256 experts x 3 x 7168 x 2048 (11,274,289,152) + shared 44,040,192 + router 7168 x 256 +
    //   256 (1,835,264) + 2 norms 14,336 = 11,507,286,272 for the layer; + enorm, hnorm, shared_head.norm 3 x 7168 +
    //   eh_proj 2 x 7168 x 7168 (102,760,448) = 11,610,068,224.
    //   Copies of the embedding and head it stores: 2 x 129,280 x 7168 = 1,853,358,080.
    //   Checkpoint: 684,489,845,504, plus 41,546,768 FP32 block scales (one per 128 x 128 block of each FP8 matrix)
    //   = 684.53B. DeepSeek-V3's README.md (@ 9b4e9788): "The total size of DeepSeek-V3 models on Hugging Face is
    //   685B, which includes 671B of the Main Model weights and 14B of the [MTP] Module weights" (13.46B here).
    const HfImport in = importHfConfigFileReport(configPath("DeepSeek-V3.json"));
    const ParamCounts p = paramCount(in.shape);
    QCOMPARE(in.shape.mtpLayers, int64_t(1));
    QCOMPARE(p.total, int64_t(671026419200));
    QCOMPARE(p.mtp, int64_t(11610068224));
    QCOMPARE(p.mtpRouted, int64_t(11274289152));
    QCOMPARE(p.mtpCopies, int64_t(1853358080));
    QCOMPARE(p.checkpoint, int64_t(684489845504));
    QVERIFY(reportHas(in, "num_nextn_predict_layers: 1"));
    // Kimi K2 declares none.
    QCOMPARE(paramCount(importHfConfigFile(configPath("Kimi-K2-Instruct.json"))).mtp, int64_t(0));
}

void TestHfFamilies::minimaxM2()
{
    // MiniMax-M2.5 (h 3072, 62 layers, 48 heads, 8 KV heads of 128, 256 experts of 1536, top 8, vocab 200,064):
    //   attention 3072 x 6144 + 2 x 3072 x 1024 + 6144 x 3072 = 44,040,192; q/k norms over all heads 6144 + 1024;
    //   experts 256 x 3 x 3072 x 1536 = 3,623,878,656; router 3072 x 256 + 256 bias = 786,688; 2 norms 6144:
    //   3,668,718,848 a layer, x 62 = 227,460,568,576; embedding and head 2 x 200,064 x 3072 + final norm 3072:
    //   total 228,689,764,864. The checkpoint's FP8 matrices add 13,880,064 FP32 block scales (62 x (2,688 attention
    //   + 256 x 864 expert blocks)): 228.70B; MiniMax's model card gives 230B total and 10B active.
    //   Active: 44,047,360 + 8 x 14,155,776 + 786,688 + 6144 = 158,086,400 a layer, x 62 + 1,229,196,288 =
    //   11,030,553,088.
    const HfImport in = importHfConfigFileReport(configPath("MiniMax-M2.5.json"));
    const ParamCounts p = paramCount(in.shape);
    QCOMPARE(p.total, int64_t(228689764864));
    QCOMPARE(p.active, int64_t(11030553088));
    QVERIFY(in.shape.qkNormFullWidth);
    QVERIFY(in.shape.routerBias);
    QCOMPARE(p.mtp, int64_t(0)); // use_mtp: the modules are not among the published weights
    QVERIFY(reportHas(in, "use_mtp"));
    // Its quantization_config: FP8 in 128 x 128 blocks, one FP32 scale each; gate and lm_head unconverted.
    QCOMPARE(toString(*in.shape.checkpointExpertWeights), std::string("fp8/g16384/fp32"));
    QCOMPARE(toString(*in.shape.checkpointWeights), std::string("fp8/g16384/fp32"));
    QVERIFY(in.shape.checkpointUnquantizedEmbeddings);
}

void TestHfFamilies::mimo()
{
    // MiMo-7B-Base (Qwen2 layers: h 4096, 36 layers, 32 heads, 8 KV heads of 128, FFN 11008, vocab 151,680):
    //   attention 4096 x 4096 + 4096 + 2 x (4096 x 1024 + 1024) + 4096 x 4096 = 41,949,184; FFN 3 x 4096 x 11008 =
    //   135,266,304; 2 norms 8192: 177,223,680 a layer, x 36 = 6,380,052,480; embedding and head 2 x 151,680 x 4096
    //   + final norm 4096: total 7,622,619,136. MTP (model.mtp_layers.0): token_layernorm, hidden_layernorm,
    //   final_layernorm 3 x 4096 + input_proj 2 x 4096 x 4096 + one layer 177,223,680 = 210,790,400.
    //   Checkpoint 7,833,409,536 (MiMo's technical report, arXiv 2505.07608, calls it a 7B model; the hub's
    //   safetensors count for the repository reads 7.83B).
    const HfImport in = importHfConfigFileReport(configPath("MiMo-7B-Base.json"));
    const ParamCounts p = paramCount(in.shape);
    QCOMPARE(in.shape.family, std::string("mimo"));
    QCOMPARE(p.total, int64_t(7622619136));
    QCOMPARE(p.mtp, int64_t(210790400));
    QCOMPARE(p.mtpCopies, int64_t(0));
    QCOMPARE(p.checkpoint, int64_t(7833409536));
}

void TestHfFamilies::refusalsNameTheFeature_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("message");
    QTest::newRow("qwen3_omni_moe")
        << "qwen3_omni_moe"
        << "cfg.json: model_type: 'qwen3_omni_moe': the audio encoder and the speech talker are not modelled (a "
           "qwen3_vl config's vision tower is)";
    QTest::newRow("deepseek_v32")
        << "deepseek_v32"
        << "cfg.json: model_type: 'deepseek_v32': the lightning indexer's sparse attention (top-k tokens) is not "
           "modelled";
    QTest::newRow("kimi_linear")
        << "kimi_linear"
        << "cfg.json: model_type: 'kimi_linear': Kimi Delta Attention (linear-attention) layers are not modelled";
}

void TestHfFamilies::refusalsNameTheFeature()
{
    QFETCH(QString, type);
    QFETCH(QString, message);
    QCOMPARE(errorOf({{"model_type", type.toStdString()}, {"hidden_size", 64}}), message);
}

void TestHfFamilies::quantizationFormats_data()
{
    QTest::addColumn<QString>("config");
    QTest::addColumn<QString>("weights");
    QTest::addColumn<QString>("experts");
    QTest::addColumn<bool>("embeddings16");
    // DeepSeek-V3: fp8 in 128 x 128 blocks, one FP32 weight_scale_inv each (README_WEIGHTS.md): 8 + 32/16384 bits.
    QTest::newRow("DeepSeek-V3 fp8 blocks") << "DeepSeek-V3.json"
                                            << "fp8/g16384/fp32"
                                            << "fp8/g16384/fp32" << true;
    // gpt-oss-120b: mxfp4 experts; self_attn, router, embed_tokens and lm_head in modules_to_not_convert (BF16).
    QTest::newRow("gpt-oss-120b mxfp4") << "gpt-oss-120b.json"
                                        << "bf16"
                                        << "fp4/g32/fp8" << true;
    // Qwen3-235B-A22B-FP8: fp8 blocks of 128 x 128; lm_head, norms and mlp.gate unconverted.
    // NVIDIA's MiniMax-M2.5-NVFP4 (ModelOpt in config_groups: 4-bit float in groups of 16 = NVFP4); self_attn*, the
    // gates and lm_head in ignore: attention BF16, experts NVFP4 (4 + 8/16 bits).
    QTest::newRow("MiniMax-M2.5-NVFP4 modelopt") << "MiniMax-M2.5-NVFP4.json"
                                                 << "bf16"
                                                 << "fp4/g16/fp8" << true;
    QTest::newRow("Qwen3-235B-A22B-FP8") << "Qwen3-235B-A22B-FP8.json"
                                         << "fp8/g16384/fp32"
                                         << "fp8/g16384/fp32" << true;
}

void TestHfFamilies::quantizationFormats()
{
    QFETCH(QString, config);
    QFETCH(QString, weights);
    QFETCH(QString, experts);
    QFETCH(bool, embeddings16);
    const HfImport in = importHfConfigFileReport(configPath(config.toUtf8().constData()));
    QVERIFY(in.shape.checkpointWeights);
    QCOMPARE(QString::fromStdString(toString(*in.shape.checkpointWeights)), weights);
    QVERIFY(in.shape.checkpointExpertWeights);
    QCOMPARE(QString::fromStdString(toString(*in.shape.checkpointExpertWeights)), experts);
    QCOMPARE(in.shape.checkpointUnquantizedEmbeddings, embeddings16);
    QVERIFY(reportHas(in, "quantization_config"));
}

void TestHfFamilies::quantizedCheckpointSetsTheScenario()
{
    // AWQ: int4 in groups of 128 with an FP16 scale and a zero point; a dense model has no expert format.
    nlohmann::json c = {
        {"model_type", "llama"},
        {"hidden_size", 64},
        {"num_hidden_layers", 2},
        {"num_attention_heads", 4},
        {"vocab_size", 100},
        {"intermediate_size", 128},
        {"quantization_config", {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true}}}};
    const ModelShape m = importHfConfig(c, "cfg.json");
    Scenario s;
    adaptToModel(s, m);
    QCOMPARE(toString(s.weights), std::string("int4/g128"));
    QVERIFY(!s.expertWeights);
    QVERIFY(s.weightZeroPoints);
    QVERIFY(!s.unquantizedEmbeddings); // lm_head is not listed as unconverted
    Scenario kept;
    adaptToModel(kept, m, false, false, /*keepFormats=*/true);
    QCOMPARE(toString(kept.weights), toString(Scenario{}.weights));
    // An unknown method is refused, naming it.
    c["quantization_config"] = {{"quant_method", "bitnet"}};
    QCOMPARE(errorOf(c), QString("cfg.json: quantization_config.quant_method: 'bitnet' is not modelled (fp8, mxfp4, "
                                 "modelopt, compressed-tensors, awq, gptq)"));
}

void TestHfFamilies::nemotronHeadDimSpelling()
{
    // Nemotron-3 spells attention_head_dim as head_dim: the same model either way.
    nlohmann::json c = nlohmann::json::parse(R"({"model_type": "nemotron_h", "hidden_size": 64,
        "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
        "vocab_size": 100, "intermediate_size": 128, "ssm_state_size": 16, "mamba_num_heads": 4,
        "mamba_head_dim": 32, "n_groups": 2, "hybrid_override_pattern": "M*-"})");
    const int64_t withHeadDim = paramCount(importHfConfig(c, "cfg.json")).total;
    c.erase("head_dim");
    c["attention_head_dim"] = 16;
    QCOMPARE(paramCount(importHfConfig(c, "cfg.json")).total, withHeadDim);
}

void TestHfFamilies::gemma3TextDefaults()
{
    // Gemma 3 27B's text_config leaves out vocab_size and more; Gemma3TextConfig's defaults fill them (vocab 262,208,
    // max_position_embeddings 131,072, tied embeddings, sliding_window_pattern 6) and the report names them.
    //   Per layer: q 5376 x 4096 + k, v 2 x 5376 x 2048 + o 4096 x 5376 = 66,060,288; q/k norms 2 x 128; FFN
    //   3 x 5376 x 21504 = 346,816,512; 4 norms 4 x 5376: 412,898,560, x 62 = 25,599,710,720; embedding
    //   262,208 x 5376 = 1,409,630,208 (tied head) + final norm 5376: 27,009,346,304. Gemma 3's technical report
    //   gives the 27B model 25,600M non-embedding parameters (25,599,716,096 here with the final norm).
    const HfImport in = importHfConfigFileReport(configPath("gemma-3-27b-it.text_config.transcribed.json"));
    QCOMPARE(paramCount(in.shape).total, int64_t(27009346304));
    QCOMPARE(in.shape.globalEvery, int64_t(6));
    QCOMPARE(in.shape.slidingWindow, int64_t(1024));
    QVERIFY(reportHas(in, "vocab_size 262208"));
    QVERIFY(reportHas(in, "sliding_window_pattern 6"));
    QVERIFY(!reportHas(in, "head_dim")); // given in the file
    // A size that decides the shape is not defaulted.
    nlohmann::json c = readJsonFile(configPath("gemma-3-27b-it.text_config.transcribed.json"));
    c.erase("hidden_size");
    QCOMPARE(errorOf(c), QString("cfg.json: hidden_size: missing"));
}

void TestHfFamilies::mtpInMemoryOnlyWhenDrafting()
{
    // DeepSeek-V3 at 16 bits on one device: the MTP module's 11,610,068,224 parameters are loaded only to draft
    // tokens (speculative_k > 0 with draft_model mtp): 2 x 11,610,068,224 = 23,220,136,448 B more; the copies of the
    // embedding and head it stores are not loaded. A preset draft model leaves the weights as they are.
    const ModelShape m = importHfConfigFile(configPath("DeepSeek-V3.json"));
    const ParamCounts p = paramCount(m);
    Scenario s; // weights fp16, no speculative decoding
    const double plain = weightsPerDevice(m, p, s);
    QCOMPARE(plain, 2.0 * double(p.total));
    s.speculativeK = 2;
    QCOMPARE(weightsPerDevice(m, p, s) - plain, 23220136448.0);
    s.draftModel = "llama-2-7b";
    QCOMPARE(weightsPerDevice(m, p, s), plain);
    // Split by expert parallelism as the model's own: ep 8 keeps 1/8 of the module's routed experts.
    s.draftModel = "mtp";
    s.ep = 8;
    Scenario noDraft = s;
    noDraft.speculativeK = 0;
    const double extra = weightsPerDevice(m, p, s) - weightsPerDevice(m, p, noDraft);
    QCOMPARE(extra, 2.0 * (double(p.mtp - p.mtpRouted) + double(p.mtpRouted) / 8));
}

void TestHfFamilies::kimiK25TextModel()
{
    // Kimi K2.5 wraps its language model (text_config, kimi_k2: the Kimi K2 shape, 1,026,408,232,448 parameters and
    // 32,861,500,928 active as tst_layerblocks counts Kimi K2) with a vision tower MemWall does not count, and says so.
    // Its compressed-tensors quantization_config: 4-bit integers in groups of 32 (BF16 scales) for the routed experts;
    // lm_head, self_attn, shared_experts and the dense MLP are in ignore (16-bit).
    const HfImport in = importHfConfigFileReport(configPath("Kimi-K2.5.json"));
    const ParamCounts p = paramCount(in.shape);
    QCOMPARE(p.total, int64_t(1026408232448));
    QCOMPARE(p.active, int64_t(32861500928));
    QVERIFY(reportHas(in, "vision tower"));
    QCOMPARE(toString(*in.shape.checkpointExpertWeights), std::string("int4/g32/bf16"));
    QCOMPARE(toString(*in.shape.checkpointWeights), std::string("bf16"));
    QVERIFY(in.shape.checkpointUnquantizedEmbeddings);
    QVERIFY(!reportHas(in, "shared experts are")); // listed unquantized and counted in bf16: nothing to say
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestHfFamilies)
#include "tst_hffamilies.moc"
