// Tests for the config.json families, multi-token-prediction modules and quantization_config of issue #38
// (core/io/hffamilies.cpp, core/io/hfquant.cpp, the family table of core/io/hfconfig.cpp). Every count is by hand
// in the comment beside it, against the checkpoint's published total.

#include "core/analysis/footprint.h"
#include "core/analysis/scenario.h"
#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"
#include "core/io/presets.h"
#include "core/model/modelshape.h"

#include "../hfconfighelpers.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace memwall::core {

namespace {

using testhf::configPath;
using testhf::errorOf;
using testhf::reportHas;

} // namespace

class TestHfFamilies : public QObject
{
    Q_OBJECT

private slots:
    void deepseekMtp();
    void sparseAttentionCounts();
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
    void glm4Moe();
    void gemma4MoeCounts();
    void gemma4DenseCounts();
    void gemma4PerLayerAndSharedKv();
    void gemma4Refusals_data();
    void gemma4Refusals();
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

void TestHfFamilies::sparseAttentionCounts()
{
    // DeepSeek-V3.2 (tests/data/configs/DeepSeek-V3.2.json): DeepSeek-V3 (671,026,419,200; tst_layerblocks) and a
    // lightning indexer in each of its 61 layers, as transformers' DeepseekV32Indexer and DeepSeek's reference
    // Indexer build it: wq_b 1536 x 64 x 128 = 12,582,912, wk 7168 x 128 = 917,504, k_norm (LayerNorm, weight and
    // bias) 2 x 128 = 256, weights_proj 7168 x 64 = 458,752: 13,959,424 a layer, 851,524,864 in all:
    //   total 671,877,944,064; active 37,552,297,472 + 851,524,864 = 38,403,822,336.
    //   MTP: DeepSeek-V3's 11,610,068,224 and its layer's indexer 13,959,424 = 11,624,027,648; the copies of the
    //   embedding and head 1,853,358,080. Checkpoint 685,355,329,792, plus DeepSeek-V3's 41,546,768 FP32 block scales
    //   and the indexer's (wq_b 12 x 64 and wk 56 x 1 blocks of 128 x 128 in each of 62 layers: 51,088):
    //   685,396,927,648 = 685.40B: the hub's "685.4B" for the DeepSeek-V3.2 checkpoints (tests/data/configs/README.md).
    const HfImport in = importHfConfigFileReport(configPath("DeepSeek-V3.2.json"));
    const ParamCounts p = paramCount(in.shape);
    QCOMPARE(in.shape.indexer.heads, int64_t(64));
    QCOMPARE(in.shape.indexer.headDim, int64_t(128));
    QCOMPARE(in.shape.indexer.topk, int64_t(2048));
    QCOMPARE(p.total, int64_t(671877944064));
    QCOMPARE(p.active, int64_t(38403822336));
    QCOMPARE(p.mtp, int64_t(11624027648));
    QCOMPARE(p.mtpCopies, int64_t(1853358080));
    QCOMPARE(p.checkpoint, int64_t(685355329792));
    QVERIFY(layerBlock(in.shape, 0).mixer == LayerMixer::SparseLatent);
    QVERIFY(reportHas(in, "lightning indexer: 64 heads of 128, top 2048"));
    QCOMPARE(toString(*in.shape.checkpointWeights), std::string("fp8/g16384/fp32"));

    // GLM-5 (tests/data/configs/GLM-5.json; h 6144, 78 layers, 64 heads; MLA q_lora 2048, kv_lora 512, nope 192,
    // rope 64, v 256; 3 dense layers of 12,288, then 256 experts of 2048, 8 a token, one shared; vocab 154,880):
    //   MLA: q_a 6144 x 2048 + 2048 + q_b 2048 x 64 x 256 + kv_a 6144 x 576 + 512 + kv_b 512 x 64 x 448 + o
    //   64 x 256 x 6144 = 165,022,208; indexer (32 heads of 128): 2048 x 4096 + 6144 x 128 + 256 + 6144 x 32 =
    //   9,371,904; attention 174,394,112 a layer.
    //   Dense layer: + 3 x 6144 x 12288 + 2 norms 12,288 = 400,898,816. MoE layer: + 256 x 3 x 6144 x 2048 +
    //   shared 37,748,736 + router 6144 x 256 + 256 + 12,288 = 9,877,404,672.
    //   3 x 400,898,816 + 75 x 9,877,404,672 + embedding and head 2 x 154,880 x 6144 + final norm 6144 =
    //   743,911,218,432: the model card's "744B parameters". Active: 41,784,728,832, of which 1,903,171,584 are the
    //   embedding, head and final norm: 39.9B without them, the card's "40B active".
    //   MTP (layer 78, a MoE layer with its indexer): 3 x 6144 + 2 x 6144 x 6144 + 9,877,404,672 = 9,952,920,576,
    //   no copies of the embedding or head (see importSparseMla()): checkpoint 753,864,139,008.
    const HfImport glm = importHfConfigFileReport(configPath("GLM-5.json"));
    const ParamCounts g = paramCount(glm.shape);
    QCOMPARE(glm.shape.indexer.heads, int64_t(32));
    QCOMPARE(g.total, int64_t(743911218432));
    QCOMPARE(g.active, int64_t(41784728832));
    QCOMPARE(g.mtp, int64_t(9952920576));
    QCOMPARE(g.mtpCopies, int64_t(0));
    QCOMPARE(g.checkpoint, int64_t(753864139008));

    // GLM-5.x's shared indexer layers reuse an earlier layer's top-k: refused, not approximated.
    nlohmann::json shared = readJsonFile(configPath("GLM-5.json"));
    shared["index_topk_freq"] = 4;
    QCOMPARE(errorOf(shared), QString("cfg.json: index_topk_freq: layers that reuse another layer's top-k (shared "
                                      "indexer layers) are not modelled"));
    nlohmann::json types = readJsonFile(configPath("GLM-5.json"));
    types["indexer_types"] = {"full", "shared"};
    QCOMPARE(errorOf(types),
             QString("cfg.json: indexer_types: \"shared\": layers that reuse another layer's top-k are not modelled"));
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
    // 32,861,500,928 active as tst_layerblocks counts Kimi K2) with the MoonViT vision tower and its projector,
    // 471,143,920 (tst_kimi::moonViTHandCounts), in the total but not in the active count.
    // Its compressed-tensors quantization_config: 4-bit integers in groups of 32 (BF16 scales) for the routed experts;
    // lm_head, self_attn, shared_experts and the dense MLP are in ignore (16-bit).
    const HfImport in = importHfConfigFileReport(configPath("Kimi-K2.5.json"));
    const ParamCounts p = paramCount(in.shape);
    QCOMPARE(p.total, int64_t(1026408232448) + int64_t(471143920));
    QCOMPARE(p.active, int64_t(32861500928));
    QVERIFY(reportHas(in, "vision tower: MoonViT"));
    QCOMPARE(toString(*in.shape.checkpointExpertWeights), std::string("int4/g32/bf16"));
    QCOMPARE(toString(*in.shape.checkpointWeights), std::string("bf16"));
    QVERIFY(in.shape.checkpointUnquantizedEmbeddings);
    QVERIFY(!reportHas(in, "shared experts are")); // listed unquantized and counted in bf16: nothing to say
}

void TestHfFamilies::glm4Moe()
{
    // GLM-4.5-Air (tests/data/configs/GLM-4.5-Air.transcribed.json: h 4096, 46 layers, 96 heads and 8 KV heads of 128,
    // q/k/v biases and no o_proj bias, no q/k norms, rotary on half of each head; layer 0 dense (10944), 45 MoE layers
    // of 128 experts of 1408, 8 a token, 1 shared, router with a bias; vocab 151552, untied; one MTP layer):
    //   attention 4096 x 12288 + 12288 + 2 x (4096 x 1024 + 1024) + 12288 x 4096           = 109,066,240
    //   dense layer  109,066,240 + 3 x 4096 x 10944 (134,479,872) + 2 norms 8192           = 243,554,304
    //   MoE layer    109,066,240 + 129 x 3 x 4096 x 1408 (17,301,504 each) + router 4096 x 128 + 128 + 8192
    //                                                                                      = 2,341,492,864
    //   total  243,554,304 + 45 x 2,341,492,864 + 2 x 151552 x 4096 + 4096                 = 106,852,251,264
    //   MTP    2,341,492,864 + enorm, hnorm, shared_head.norm 3 x 4096 + eh_proj 2 x 4096 x 4096 = 2,375,059,584;
    //          copies of the embedding and the head 2 x 151552 x 4096                     = 1,241,513,984
    //   checkpoint 110,468,824,832: the Hub's safetensors total for zai-org/GLM-4.5-Air, as third-party tables
    //   of it quote it (the card: 106B total, 12B active).
    const HfImport air = importHfConfigFileReport(configPath("GLM-4.5-Air.transcribed.json"));
    const ParamCounts p = paramCount(air.shape);
    QCOMPARE(p.total, int64_t(106852251264));
    QCOMPARE(p.mtp, int64_t(2375059584));
    QCOMPARE(p.mtpCopies, int64_t(1241513984));
    QCOMPARE(p.checkpoint, int64_t(110468824832));
    //   active 243,554,304 + 45 x (109,066,240 + 9 x 17,301,504 + 524,416 + 8192) + 1,241,518,080 = 13,424,129,664
    QCOMPARE(p.active, int64_t(13424129664));
    QCOMPARE(air.shape.rotaryFraction, 0.5);
    QVERIFY(air.shape.qkvBias && !air.shape.outBias && !air.shape.qkNorm);
    QVERIFY(reportHas(air, "num_nextn_predict_layers: 1"));
    // KV cache: 2 x 46 layers x 8 x 128 x 2 B = 188,416 B a token; at 131,072 tokens 24,696,061,952 B.
    QCOMPARE(cachedElements(air.shape, layerGroups(air.shape), 131072.0, 1) * 2, 24696061952.0);

    // GLM-4.5 (355B: h 5120, 92 layers, 96 heads and 8 KV heads of 128, per-head q/k norms (use_qk_norm), 3 dense
    // layers of 12288, 89 MoE layers of 160 experts of 1536, 8 a token, 1 shared; the keys of zai-org/GLM-4.5's
    // config.json as Megatron-Bridge's docs/models/llm/glm45.md lists them):
    //   attention 5120 x 12288 + 12288 + 2 x (5120 x 1024 + 1024) + 12288 x 5120 + 2 x 128 = 136,329,472
    //   dense layer  136,329,472 + 3 x 5120 x 12288 + 10240                                = 325,083,392
    //   MoE layer    136,329,472 + 161 x 23,592,960 + 5120 x 160 + 160 + 10240              = 3,935,625,632
    //   total  3 x 325,083,392 + 89 x 3,935,625,632 + 2 x 151552 x 5120 + 5120             = 352,797,829,024
    //   MTP 3,935,625,632 + 3 x 5120 + 2 x 5120 x 5120 = 3,988,069,792; copies 1,551,892,480
    //   checkpoint 358,337,791,296: the Hub's safetensors total for zai-org/GLM-4.5 (the card: 355B, 32B active).
    const nlohmann::json glm45 = {
        {"model_type", "glm4_moe"},     {"hidden_size", 5120},           {"num_hidden_layers", 92},
        {"num_attention_heads", 96},    {"num_key_value_heads", 8},      {"head_dim", 128},
        {"intermediate_size", 12288},   {"moe_intermediate_size", 1536}, {"n_routed_experts", 160},
        {"n_shared_experts", 1},        {"num_experts_per_tok", 8},      {"first_k_dense_replace", 3},
        {"vocab_size", 151552},         {"attention_bias", true},        {"use_qk_norm", true},
        {"partial_rotary_factor", 0.5}, {"num_nextn_predict_layers", 1}, {"tie_word_embeddings", false}};
    const ParamCounts big = paramCount(importHfConfig(glm45, "GLM-4.5.json"));
    QCOMPARE(big.total, int64_t(352797829024));
    QCOMPARE(big.checkpoint, int64_t(358337791296));
}

void TestHfFamilies::gemma4MoeCounts()
{
    // Gemma 4 26B-A4B (tests/data/configs/gemma-4-26B-A4B.text_config.json; transformers' Gemma4TextAttention,
    // Gemma4TextDecoderLayer, Gemma4TextRouter, Gemma4TextExperts): 30 layers, every sixth full attention (5), the
    // others a 1,024-token window (25); hidden 2816, 16 query heads.
    //   sliding attention: q 2816 x 16 x 256 = 11,534,336, k and v 2 x 2816 x 8 x 256 = 11,534,336, o 4096 x 2816 =
    //     11,534,336, q_norm and k_norm 2 x 256 (v_norm has no weights): 34,603,520
    //   global attention (global_head_dim 512, 2 KV heads, attention_k_eq_v: no v_proj): q 2816 x 16 x 512 =
    //     23,068,672, k 2816 x 2 x 512 = 2,883,584, o 8192 x 2816 = 23,068,672, norms 2 x 512: 49,021,952
    //   dense MLP 3 x 2816 x 2112 = 17,842,176; experts 128 x 3 x 2816 x 704 = 761,266,176 (5,947,392 each);
    //   router 2816 x 128 + scale 2816 + per_expert_scale 128 = 363,392; 7 RMSNorms (input, post-attention,
    //   pre-/post-feedforward, post_feedforward_layernorm_1 and _2, pre_feedforward_layernorm_2) 7 x 2816 = 19,712
    //   layer: sliding 814,094,976, global 828,513,408; 25 x 814,094,976 + 5 x 828,513,408 = 24,494,941,440
    //   + embedding 262,144 x 2816 = 738,197,504 (tied head) + final norm 2816 = 25,233,141,760
    //   active: the 8 of 128 experts (47,579,136) instead: 25 x 100,407,936 + 5 x 114,826,368 + 738,200,320 =
    //   3,822,530,560
    // The model card's "25.2B total parameters, 3.8B active" (its vision encoder, about 550M, apart), as the Gemma 4
    // pages quote it (e.g. vast.ai/model/gemma-4-26b-a4b-it, gr.tbb.rip/models/unsloth/gemma-4-26B-A4B-it-GGUF).
    const HfImport in = importHfConfigFileReport(configPath("gemma-4-26B-A4B.text_config.json"));
    const ModelShape &m = in.shape;
    const ParamCounts p = paramCount(m);
    QCOMPARE(p.total, int64_t(25233141760));
    QCOMPARE(p.active, int64_t(3822530560));
    QCOMPARE(p.routed, int64_t(30) * 761266176);
    const LayerGroups g = layerGroups(m);
    QCOMPARE(g.size(), std::size_t(2));
    QVERIFY(g[0].block.mixer == LayerMixer::Sliding && g[0].block.ffn == LayerFfn::DenseAndMoe);
    QCOMPARE(g[0].count, int64_t(25));
    QVERIFY(g[1].block.mixer == LayerMixer::Attention && g[1].block.ffn == LayerFfn::DenseAndMoe);
    QCOMPARE(g[1].firstLayer, int64_t(5));
    const AttentionWidths global = attentionWidths(m, g[1].block);
    QCOMPARE(global.headDim, int64_t(512));
    QCOMPARE(global.kvHeads, int64_t(2));
    QVERIFY(!global.valueProjection);
    QCOMPARE(attentionWidths(m, g[0].block).kvHeads, int64_t(8));
    // KV per token: keys that are values are still cached twice (transformers caches key_states, normed and rotated,
    // and value_states, v_normed and not rotated): sliding 2 x 8 x 256 = 4,096 elements, global 2 x 2 x 512 = 2,048;
    // 25 x 4,096 + 5 x 2,048 = 112,640 elements, 225,280 B at 16 bits. At 131,072 tokens the sliding layers keep
    // their last 1,024: 25 x 4,096 x 1,024 + 5 x 2,048 x 131,072 = 1,447,034,880 elements, 2,894,069,760 B.
    QCOMPARE(cachedElements(m, g, 1, 1) * 2, 225280.0);
    QCOMPARE(cachedElements(m, g, 131072, 1) * 2, 2894069760.0);
    // tp 2 splits the 8 sliding KV heads and the 2 global ones: half of each.
    QCOMPARE(cachedElements(m, g, 131072, 2) * 2, 2894069760.0 / 2);
    // tp 4: the 2 global KV heads are replicated, one a device: 25 x 2 x 2 x 256 x 1,024 + 5 x 2 x 512 x 131,072
    QCOMPARE(cachedElements(m, g, 131072, 4), 25.0 * 2 * 2 * 256 * 1024 + 5.0 * 2 * 512 * 131072);
    // The preset keys carry it all.
    const ModelShape back = modelShapeFromJson(toJson(m), "p.json");
    QCOMPARE(paramCount(back).total, p.total);
    QCOMPARE(cachedElements(back, layerGroups(back), 131072, 1), cachedElements(m, g, 131072, 1));
    // The published file wraps the language model with a vision tower: refused by name, not counted without it.
    QCOMPARE(errorOf(readJsonFile(configPath("gemma-4-26B-A4B.json"))),
             QString("cfg.json: vision_config: Gemma 4's vision tower (gemma4_vision) is not modelled; import the "
                     "text_config (model_type gemma4_text) for the language model alone"));
}

void TestHfFamilies::gemma4DenseCounts()
{
    // Gemma 4 31B (tests/data/configs/Gemma-4-31B-IT.text_config.json): 60 layers, 10 full attention; hidden 5376,
    // 32 query heads, the MLP 21,504 wide, no MoE block.
    //   sliding attention: q 5376 x 32 x 256 = 44,040,192, k and v 2 x 5376 x 16 x 256 = 44,040,192, o 44,040,192,
    //     norms 512: 132,121,088
    //   global attention (512 wide, 4 KV heads, no v_proj): q 5376 x 32 x 512 = 88,080,384, k 5376 x 4 x 512 =
    //     11,010,048, o 88,080,384, norms 1,024: 187,171,840
    //   MLP 3 x 5376 x 21504 = 346,816,512; 4 RMSNorms 21,504
    //   50 x 478,959,104 + 10 x 534,009,856 = 29,288,053,760; + embedding 262,144 x 5376 = 1,409,286,144 (tied)
    //   + final norm 5376 = 30,697,345,280: the model card's "30.7B" (beside a vision encoder of about 550M), as
    //   llmradar.eu/models/gemma-4-31b-it and apxml.com/models/gemma-4-31b quote it.
    const ModelShape m = importHfConfigFile(configPath("Gemma-4-31B-IT.text_config.json"));
    QCOMPARE(paramCount(m).total, int64_t(30697345280));
    QVERIFY(!m.isMoe());
    // KV per token: 50 x 2 x 16 x 256 + 10 x 2 x 4 x 512 = 450,560 elements, 901,120 B at 16 bits.
    QCOMPARE(cachedElements(m, layerGroups(m), 1, 1) * 2, 901120.0);
}

void TestHfFamilies::gemma4PerLayerAndSharedKv()
{
    // Gemma 4 E2B (tests/data/configs/gemma-4-E2B-it.text_config.transcribed.json; transformers' Gemma4TextModel,
    // Gemma4TextDecoderLayer, Gemma4TextAttention, Gemma4TextMLP): 35 layers, every fifth full attention (layers 4,
    // 9, ..., 34); hidden 1536, 8 query heads, one KV head. num_kv_shared_layers 20: layers 15-34 have no k_proj,
    // v_proj or k_norm (they read the cache of layer 13, sliding, or 14, full) and, use_double_wide_mlp, an MLP of
    // 2 x 6,144. Layers 0-14: 12 sliding, 3 full; layers 15-34: 16 sliding, 4 full.
    //   sliding attention: q 1536 x 8 x 256 = 3,145,728, k and v 2 x 1536 x 256 = 786,432, o 3,145,728,
    //     q_norm and k_norm 512: 7,078,400; sharing: q, o and q_norm 6,291,712
    //   full attention (512 wide, one KV head, a v_proj): q 6,291,456, k and v 1,572,864, o 6,291,456, norms 1,024:
    //     14,156,800; sharing: 12,583,424
    //   MLP 3 x 1536 x 6144 = 28,311,552, double-wide 56,623,104; 4 RMSNorms 6,144
    //   per-layer input: gate 1536 x 256 + projection 256 x 1536 + post norm 1536 = 787,968
    //   layers: 12 x 36,184,064 + 3 x 43,262,464 + 16 x 63,708,928 + 4 x 70,000,640 = 1,863,341,568
    //   embeddings: 262,144 x 1536 = 402,653,184 (tied head); per-layer table 262,144 x 35 x 256 = 2,348,810,240;
    //     per_layer_model_projection 1536 x 8960 = 13,762,560; per_layer_projection_norm 256: 2,765,226,240
    //   + final norm 1536 = 4,628,569,344
    // The tables are the sizes the ugonfor/gemma-4-E2B-it-en card lists for google/gemma-4-E2B-it in bf16
    // (embed_tokens 0.75 GB = 805,306,368 B = 0.75 GiB; embed_tokens_per_layer 4.38 GB: 4,697,620,480 B =
    // 4.375 GiB), and with the vision (about 150M) and audio (about 300M) towers the count is the card's 5.1B
    // (about 2.3B without the two tables). No exact checkpoint total was found. Each layer's layer_scalar is a buffer,
    // not a parameter.
    const HfImport in = importHfConfigFileReport(configPath("gemma-4-E2B-it.text_config.transcribed.json"));
    const ModelShape &m = in.shape;
    const ParamCounts p = paramCount(m);
    QCOMPARE(p.perLayerTable, int64_t(2348810240));
    QCOMPARE(p.embedding, int64_t(2765226240));
    QCOMPARE(p.layers, int64_t(1863341568));
    QCOMPARE(p.total, int64_t(4628569344));
    QCOMPARE(p.perLayer, int64_t(70000640)); // the last layer: full attention, sharing
    const LayerGroups g = layerGroups(m);
    QCOMPARE(g.size(), std::size_t(4));
    QVERIFY(g[0].block.mixer == LayerMixer::Sliding && !g[0].block.sharesKv);
    QCOMPARE(g[0].count, int64_t(12));
    QVERIFY(g[1].block.mixer == LayerMixer::Attention && !g[1].block.sharesKv);
    QCOMPARE(g[1].count, int64_t(3));
    QVERIFY(g[2].block.mixer == LayerMixer::Sliding && g[2].block.sharesKv);
    QCOMPARE(g[2].count, int64_t(16));
    QCOMPARE(g[2].firstLayer, int64_t(15));
    QVERIFY(g[3].block.mixer == LayerMixer::Attention && g[3].block.sharesKv);
    QCOMPARE(g[3].count, int64_t(4));
    QCOMPARE(g[3].firstLayer, int64_t(19));
    QCOMPARE(denseFfnWidth(m, g[0].block), int64_t(6144));
    QCOMPARE(denseFfnWidth(m, g[3].block), int64_t(12288));
    // KV per token: only layers 0-14 cache: 12 x 2 x 256 + 3 x 2 x 512 = 9,216 elements, 18,432 B at 16 bits (all 35
    // caching would be 21,504 elements). At 131,072 tokens the 12 sliding layers keep 512: 12 x 512 x 512 +
    // 3 x 1,024 x 131,072 = 405,798,912 elements.
    QCOMPARE(cachedElements(m, g, 1, 1) * 2, 18432.0);
    QCOMPARE(cachedElements(m, g, 131072, 1), 405798912.0);
    // The preset keys carry it all.
    const ModelShape back = modelShapeFromJson(toJson(m), "p.json");
    QCOMPARE(paramCount(back).total, p.total);
    QCOMPARE(cachedElements(back, layerGroups(back), 131072, 1), cachedElements(m, g, 131072, 1));
    // Gemma4TextConfig's defaults: without the keys, 256-wide per-layer inputs from a 262,144-row table; noted.
    nlohmann::json c = readJsonFile(configPath("gemma-4-E2B-it.text_config.transcribed.json"));
    c.erase("hidden_size_per_layer_input");
    c.erase("vocab_size_per_layer_input");
    const HfImport d = importHfConfigReport(c, "cfg.json");
    QCOMPARE(paramCount(d.shape).total, p.total);
    QVERIFY(reportHas(d, "hidden_size_per_layer_input: left out; Gemma4TextConfig's default 256"));
}

void TestHfFamilies::gemma4Refusals_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("all layers sharing") << "num_kv_shared_layers"
                                        << "30"
                                        << "cfg.json: num_kv_shared_layers: 30 must be at least 0 and fewer than the "
                                           "30 layers";
    QTest::newRow("no full layer to share")
        << "num_kv_shared_layers"
        << "26"
        << "cfg.json: num_kv_shared_layers: 26: the layers before the shared ones hold no full-attention layer for the "
           "shared full-attention layers to read";
    QTest::newRow("negative per-layer input")
        << "hidden_size_per_layer_input"
        << "-1"
        << "cfg.json: hidden_size_per_layer_input: -1 must be 0 (none) or positive";
    QTest::newRow("bidirectional") << "use_bidirectional_attention"
                                   << "\"all\""
                                   << "cfg.json: use_bidirectional_attention: 'all': bidirectional attention over "
                                      "every token is not modelled";
}

void TestHfFamilies::gemma4Refusals()
{
    // What Gemma 4 has that the block model does not, and KV sharing that leaves a shared layer no earlier layer of
    // its kind to read: refused by name.
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, message);
    nlohmann::json c = readJsonFile(configPath("gemma-4-26B-A4B.text_config.json"));
    c[key.toStdString()] = nlohmann::json::parse(value.toStdString());
    QCOMPARE(errorOf(c), message);
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestHfFamilies)

#include "tst_hffamilies.moc"
