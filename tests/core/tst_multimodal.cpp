// Tests for the multimodal wrappers of issue #38 (Gemma 3 with its SigLIP tower, Qwen3-VL, Llama 4's full config):
// the vision tower's parameters counted by hand against each checkpoint's published total, the image tokens an image
// becomes, and what --images does to prefill (the tower's operators, the image tokens prefilled and cached) and to
// decode (the image tokens in the cache).

#include "../analysishelpers.h"
#include "../builtinpresets.h"
#include "../hfconfighelpers.h"

#include "core/analysis/analysis.h"
#include "core/analysis/explain.h"
#include "core/analysis/scenario.h"
#include "core/analysis/serving.h"
#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"
#include "core/io/presets.h"
#include "core/model/modelshape.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace memwall::core {

namespace {

using testhf::configPath;
using testhf::reportHas;

using testanalysis::findOp;

bool isVision(const Operator &op) { return op.name.rfind("vision.", 0) == 0; }

QString analysisError(const ModelShape &m, const Scenario &s)
{
    try {
        analyze(testpresets::hw("h100-sxm"), m, s);
    } catch (const AnalysisError &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestMultimodal : public QObject
{
    Q_OBJECT

private slots:
    void gemma3WithSiglip();
    void qwen3Vl();
    void qwen3VlMoe();
    void llama4FullConfig();
    void visionRoundTrip();
    void imagesInPrefill();
    void imagesInDecode();
    void imagesRefused();
    void visionUseHeadRefused();
    void tensorParallelNamesTheTower();
};

void TestMultimodal::gemma3WithSiglip()
{
    // google/gemma-3-27b-it, the published file with its vision_config (Gemma3ForConditionalGeneration).
    //   Language model (tst_hffamilies::gemma3TextDefaults): 27,009,346,304.
    //   SigLIP tower: patch convolution 3 x 14 x 14 x 1152 + 1152 = 678,528; positions (896 / 14)^2 = 4,096 x 1152 =
    //   4,718,592; a block: LayerNorms 2 x 2 x 1152 = 4,608, q, k, v, o 4 x (1152^2 + 1152) = 5,313,024, fc1
    //   1152 x 4304 + 4304 = 4,962,512, fc2 4304 x 1152 + 1152 = 4,959,360: 15,239,504, x 27 = 411,466,608;
    //   post_layernorm 2,304: 416,866,032.
    //   Projector: mm_soft_emb_norm 1152 + mm_input_projection_weight 1152 x 5376 = 6,193,152: 6,194,304.
    //   Total 27,432,406,640: the Hugging Face safetensors total of google/gemma-3-27b-it (debaditc/kvfit
    //   scripts/build_registry.py @ bd4ccabf, "exact params from HF safetensors").
    const HfImport in = importHfConfigFileReport(configPath("gemma-3-27b-it.transcribed.json"));
    const ModelShape &m = in.shape;
    QCOMPARE(visionTowerParams(m.vision), int64_t(416866032));
    QCOMPARE(visionProjectorParams(m.vision), int64_t(6194304));
    const ParamCounts p = paramCount(m);
    QCOMPARE(p.vision, int64_t(423060336));
    QCOMPARE(p.total, int64_t(27432406640));
    QCOMPARE(p.active, int64_t(27009346304)); // a text token does not touch the tower
    // 4,096 patches pooled 4 x 4: 256 image tokens (mm_tokens_per_image).
    QCOMPARE(m.vision.patches, int64_t(4096));
    QCOMPARE(m.vision.tokensPerImage(), int64_t(256));
    QCOMPARE(m.family, std::string("gemma3"));
    // The keys the file leaves out, filled with transformers' defaults and named in the report.
    QVERIFY(reportHas(in, "vocab_size 262208"));
    QVERIFY(reportHas(in, "vision_config.num_channels: left out; SiglipVisionConfig's default 3"));
    QVERIFY(reportHas(in, "vision_config.hidden_act: left out"));
    QVERIFY(!reportHas(in, "mm_tokens_per_image: left out")); // given in the file
    QVERIFY(reportHas(in, "256 image tokens"));
}

void TestMultimodal::qwen3Vl()
{
    // Qwen/Qwen3-VL-8B-Instruct. Language model: Qwen3-8B's shape (36 layers, 4096 wide, untied head),
    // 8,190,735,360 (tst_hfconfig counts Qwen3-8B).
    //   Tower: Conv3d 3 x 2 x 16 x 16 = 1,536 inputs x 1152 + 1152 = 1,770,624; positions 2,304 x 1152 = 2,654,208;
    //   27 blocks as SigLIP's (qkv 1152 x 3456 + 3456 and proj 1152^2 + 1152 are the same 5,313,024):
    //   411,466,608: 415,891,440.
    //   Merger: LayerNorm 2 x 1152 = 2,304, fc1 4608 x 4608 + 4608 = 21,238,272, fc2 4608 x 4096 + 4096 =
    //   18,878,464: 40,119,040; three deepstack mergers, each LayerNorm 2 x 4608 + the same fc1 and fc2:
    //   3 x 40,125,952 = 120,377,856. Projector 160,496,896.
    //   Total 8,767,123,696: the Hugging Face API's safetensors total of Qwen/Qwen3-VL-8B-Instruct.
    const HfImport in = importHfConfigFileReport(configPath("Qwen3-VL-8B-Instruct.transcribed.json"));
    const ModelShape &m = in.shape;
    QCOMPARE(visionTowerParams(m.vision), int64_t(415891440));
    QCOMPARE(visionProjectorParams(m.vision), int64_t(160496896));
    const ParamCounts p = paramCount(m);
    QCOMPARE(p.total - p.vision, int64_t(8190735360));
    QCOMPARE(p.total, int64_t(8767123696));
    // An image at the 48 x 48 grid of its 2,304 learned positions in patches of 16: 768 px, 2,304 patches, merged
    // 2 x 2 into 576 image tokens.
    QCOMPARE(m.vision.imageSize, int64_t(768));
    QCOMPARE(m.vision.patches, int64_t(2304));
    QCOMPARE(m.vision.tokensPerImage(), int64_t(576));
    QVERIFY(reportHas(in, "video is not modelled"));
    QVERIFY(m.qkNorm);
}

void TestMultimodal::qwen3VlMoe()
{
    // Qwen3-VL-30B-A3B: Qwen3-30B-A3B's language model (30,532,122,624, the Hugging Face safetensors total
    // debaditc/kvfit records for Qwen3-30B-A3B) and Qwen3-VL 8B's tower (415,891,440) with its mergers to 2,048:
    //   merger 2,304 + 21,238,272 + fc2 4608 x 2048 + 2048 = 9,439,232: 30,679,808; three deepstack mergers
    //   3 x (9,216 + 21,238,272 + 9,439,232) = 92,060,160; the tower and projector 538,631,408.
    //   Total 31,070,754,032: the published paramCount of Qwen3-VL-30B-A3B quoted in a public code index.
    // The keys MemWall reads, with the values of Qwen/Qwen3-VL-30B-A3B-Instruct's config.json as a Rust test of a
    // Qwen3-VL port quotes it (hf_30b_a3b_json, found through a code index that gave no repository path).
    const nlohmann::json c = nlohmann::json::parse(R"({"model_type": "qwen3_vl_moe", "tie_word_embeddings": false,
      "text_config": {"attention_bias": false, "decoder_sparse_step": 1, "head_dim": 128, "hidden_size": 2048,
        "intermediate_size": 6144, "max_position_embeddings": 262144, "mlp_only_layers": [],
        "model_type": "qwen3_vl_moe_text", "moe_intermediate_size": 768, "num_attention_heads": 32,
        "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4,
        "vocab_size": 151936},
      "vision_config": {"deepstack_visual_indexes": [8, 16, 24], "depth": 27, "hidden_act": "gelu_pytorch_tanh",
        "hidden_size": 1152, "in_channels": 3, "intermediate_size": 4304, "num_heads": 16,
        "num_position_embeddings": 2304, "out_hidden_size": 2048, "patch_size": 16, "spatial_merge_size": 2,
        "temporal_patch_size": 2}})");
    const ParamCounts p = paramCount(importHfConfig(c, "cfg.json"));
    QCOMPARE(p.vision, int64_t(538631408));
    QCOMPARE(p.total, int64_t(31070754032));
}

void TestMultimodal::llama4FullConfig()
{
    // meta-llama/Llama-4-Scout-17B-16E-Instruct with its vision_config. Language model 107,769,861,120
    // (tst_layerblocks).
    //   Tower: unfold-linear 3 x 14 x 14 = 588 x 1408 = 827,904 (no bias); class embedding 1,408; positions
    //   (24^2 + 1) x 1408 = 812,416; layernorm_pre and _post 4 x 1408 = 5,632; a block: q, k, v, o
    //   4 x (1408^2 + 1408) = 7,935,488, fc1 1408 x 5632 + 5632 = 7,935,488, fc2 5632 x 1408 + 1408 = 7,931,264,
    //   LayerNorms 4 x 1408 = 5,632: 23,807,872, x 34 = 809,467,648: 811,115,008.
    //   Adapter fc1 5632 x 4096 = 23,068,672, fc2 4096 x 4096 = 16,777,216, projector 4096 x 5120 = 20,971,520:
    //   60,817,408.
    //   Total 108,641,793,536: the Hugging Face safetensors total of meta-llama/Llama-4-Scout-17B-16E-Instruct
    //   (debaditc/kvfit scripts/build_registry.py @ bd4ccabf).
    const HfImport in = importHfConfigFileReport(configPath("Llama-4-Scout-17B-16E-Instruct.vision.transcribed.json"));
    const ModelShape &m = in.shape;
    QCOMPARE(visionTowerParams(m.vision), int64_t(811115008));
    QCOMPARE(visionProjectorParams(m.vision), int64_t(60817408));
    QCOMPARE(paramCount(m).total, int64_t(108641793536));
    // One tile of 336 px: 576 patches, pixel-shuffled 2 x 2 into 144 image tokens.
    QCOMPARE(m.vision.tokensPerImage(), int64_t(144));
    QCOMPARE(m.vision.encoderTokens(), int64_t(577)); // and the class token
    QVERIFY(m.vision.rotary);                         // Llama4VisionRotaryEmbedding in every block
    QVERIFY(m.name.find("(language model)") == std::string::npos);
    // Without its vision_config (the trimmed copy) it stays the language model alone.
    QVERIFY(!importHfConfigFile(configPath("Llama-4-Scout-17B-16E-Instruct.trimmed.json")).vision.present());
}

void TestMultimodal::visionRoundTrip()
{
    // A preset shape (and a scenario file's inline model) keeps the tower: written and read back, the same counts.
    for (const char *file : {"gemma-3-27b-it.transcribed.json", "Qwen3-VL-8B-Instruct.transcribed.json",
                             "Llama-4-Scout-17B-16E-Instruct.vision.transcribed.json"}) {
        const ModelShape m = importHfConfigFile(configPath(file));
        const ModelShape back = modelShapeFromJson(toJson(m), "shape.json");
        QCOMPARE(paramCount(back).total, paramCount(m).total);
        QCOMPARE(back.vision.tokensPerImage(), m.vision.tokensPerImage());
        QCOMPARE(back.vision.encoderTokens(), m.vision.encoderTokens());
    }
    // The presets the picker offers carry the tower.
    QCOMPARE(paramCount(testpresets::model("gemma-3-27b")).total, int64_t(27432406640));
    QCOMPARE(paramCount(testpresets::model("qwen3-vl-8b")).total, int64_t(8767123696));
}

void TestMultimodal::imagesInPrefill()
{
    // Qwen3-VL 8B on an H100, one prompt of 1,000 text tokens and one image (576 image tokens): the language model
    // prefills 1,576 tokens, exactly as a text prompt of 1,576 would, and the tower's operators come first.
    const ModelShape m = importHfConfigFile(configPath("Qwen3-VL-8B-Instruct.transcribed.json"));
    Scenario s;
    s.phase = Phase::Prefill;
    s.seq = 1000;
    s.images = 1;
    Scenario text = s;
    text.images = 0;
    text.seq = 1576;
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, s);
    const Analysis b = analyze(testpresets::hw("h100-sxm"), m, text);
    double visionTime = 0, visionFlops = 0, otherFlops = 0;
    for (const Operator &op : a.operators)
        (isVision(op) ? visionFlops : otherFlops) += op.flops, visionTime += isVision(op) ? op.timeS : 0;
    QVERIFY(visionTime > 0);
    QCOMPARE(otherFlops, b.totals.flops);
    QVERIFY(std::fabs(a.totals.timeS - (b.totals.timeS + visionTime)) <= 1e-12 * a.totals.timeS);
    QCOMPARE(a.totals.flops, b.totals.flops + visionFlops);
    QCOMPARE(a.memory.kv, b.memory.kv); // the image tokens are cached with the prompt
    // The patch embedding: 2,304 patches x 1,536 values x 1,152 outputs x 2 = 8,153,726,976, + 2,304 x 1,152 bias
    // adds = 8,156,381,184.
    QCOMPARE(findOp(a, "vision.patch_embed")->flops, 8156381184.0);
    // The tower's scores: 27 layers x 2 x 16 heads x 2,304^2 pairs x 72 = 330,225,942,528.
    QCOMPARE(findOp(a, "vision.attn.score")->flops, 330225942528.0);
    // The deepstack mergers: three LayerNorms over 576 tokens x 4,608, 7 FLOPs each = 55,738,368.
    QCOMPARE(findOp(a, "vision.deepstack.norm")->flops, 55738368.0);
    // Its blocks' 2D rotary positions (Qwen3VLVisionRotaryEmbedding) on every q and k element: 27 layers x 3 FLOPs x
    // 2,304 patches x 2 x 1,152 = 429,981,696.
    QCOMPARE(findOp(a, "vision.attn.rope")->flops, 429981696.0);
    // Weights: every parameter, the tower's too, at 2 bytes.
    QCOMPARE(a.weightBytes, 2.0 * 8767123696.0);
    // The headline names the images, and the tokens each weight read serves count their 576 tokens.
    const std::string why = explain(testpresets::hw("h100-sxm"), m, s, a);
    QVERIFY2(why.find("prefill of 1,000 tokens and 1 image") != std::string::npos, why.c_str());
    QVERIFY2(why.find("reused by 1,576 tokens") != std::string::npos, why.c_str());
    // Two images: the tower's work doubles.
    s.images = 2;
    const Analysis two = analyze(testpresets::hw("h100-sxm"), m, s);
    QCOMPARE(findOp(two, "vision.attn.score")->flops, 2 * 330225942528.0);

    // Gemma 3 27B: an image is 4,096 patches pooled into 256 tokens; the pool adds each patch once:
    // 4,096 x 1,152 = 4,718,592 FLOPs.
    const ModelShape g = testpresets::model("gemma-3-27b");
    s.images = 1;
    const Analysis ga = analyze(testpresets::hw("h100-sxm"), g, s);
    QCOMPARE(findOp(ga, "vision.merger.pool")->flops, 4718592.0);
    // The projector: 256 tokens x 1,152 x 5,376 x 2 = 3,170,893,824 (no bias).
    QCOMPARE(findOp(ga, "vision.projector.fc1")->flops, 3170893824.0);
    // SigLIP's positions are learned and added once: no rotary positions in its blocks.
    QVERIFY(!findOp(ga, "vision.attn.rope"));

    // Live activations: the tower's peak when it is the higher. Unfused attention over one image of 4,096 patches:
    // the MLP's 4,304-wide tensor in and out, 2 x 4,096 x 4,304 x 2 B = 70,516,736, and 16 heads' score matrices
    // 16 x 4,096^2 x 2 B = 536,870,912: 607,387,648 B, above the language model's prefill of 1 + 256 tokens
    // (2 x 257 x 43,008 x 2 B = 44,212,224 for its gated FFN, its small score matrices and the FP32 logits).
    s.seq = 1;
    s.fusedAttention = false;
    QCOMPARE(analyze(testpresets::hw("h100-sxm"), g, s).memory.activations, 607387648.0);
}

void TestMultimodal::imagesInDecode()
{
    // Decode: the request's image tokens sit in the cache beside its context; the tower does not run again.
    const ModelShape m = testpresets::model("qwen3-vl-8b");
    Scenario s;
    s.phase = Phase::Decode;
    s.context = 1000;
    s.images = 2;
    Scenario text = s;
    text.images = 0;
    text.context = 1000 + 2 * 576;
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, s);
    const Analysis b = analyze(testpresets::hw("h100-sxm"), m, text);
    QCOMPARE(a.totals.timeS, b.totals.timeS);
    QCOMPARE(a.memory.kv, b.memory.kv);
    QVERIFY(std::none_of(a.operators.begin(), a.operators.end(), isVision));
    // Generate: the tower in the prefill, so the time to the first token grows by its operators.
    s.phase = Phase::Generate;
    s.seq = 1000;
    s.output = 16;
    const Analysis gen = analyze(testpresets::hw("h100-sxm"), m, s);
    QVERIFY(findOp(gen, "vision.attn.score"));
}

void TestMultimodal::imagesRefused()
{
    Scenario s;
    s.phase = Phase::Prefill;
    s.images = 1;
    QCOMPARE(analysisError(testpresets::model("llama-3-8b"), s),
             QString("images 1 needs a model with a vision tower; llama-3-8b has none"));
    s.phase = Phase::Train;
    QCOMPARE(analysisError(testpresets::model("qwen3-vl-8b"), s),
             QString("images apply to prefill, decode and generate, not train"));
    s.phase = Phase::Prefill;
    s.images = 1025;
    QCOMPARE(analysisError(testpresets::model("qwen3-vl-8b"), s),
             QString("images must be between 0 and 1024, got 1025"));
    // Chunked prefill with images is not modelled: the serving model says so rather than guess.
    s.images = 1;
    s.phase = Phase::Generate;
    s.chunkedPrefill = 512;
    try {
        serve(testpresets::hw("h100-sxm"), testpresets::model("qwen3-vl-8b"), s);
        QFAIL("no error");
    } catch (const AnalysisError &e) {
        QVERIFY(std::string(e.what()).find("images with chunked_prefill") == 0);
    }
}

void TestMultimodal::visionUseHeadRefused()
{
    nlohmann::json c = readJsonFile(configPath("gemma-3-27b-it.transcribed.json"));
    c["vision_config"]["vision_use_head"] = true;
    try {
        importHfConfig(c, "cfg.json");
        QFAIL("no error");
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.what()),
                 QString("cfg.json: vision_config.vision_use_head: SigLIP's attention-pooling head is not modelled "
                         "(Gemma 3's tower has none)"));
    }
}

void TestMultimodal::tensorParallelNamesTheTower()
{
    // Gemma 3 27B's language model has 32 heads, its tower 16: tp 32 splits the one and not the other.
    QCOMPARE(QString::fromStdString(tensorParallelIssue(testpresets::model("gemma-3-27b"), 32)),
             QString("tp 32 does not divide the vision tower's 16 heads and MLP width 4304 of gemma-3-27b"));
    QVERIFY(tensorParallelIssue(testpresets::model("gemma-3-27b"), 8).empty());
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestMultimodal)
#include "tst_multimodal.moc"
