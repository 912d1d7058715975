// Tests for core/io/hfconfig: Hugging Face config.json -> ModelShape, pinned to published parameter counts.
//
// Conventions pinned here:
// - paramCount(shape).total equals `sum(p.numel())` of the Hugging Face model class exactly (decoders: *ForCausalLM;
//   BERT: BertModel, pooler included, no MLM head; ViT: ViTModel, pooler included), for every config below whose
//   family the importer models exactly.
// - KV cache bytes per token at FP16 = 2 (K and V) x layers x kv_heads x head_dim x 2 bytes.
// - Every error is one line "FILE: FIELD: message" naming the config.json key.
// The configs are copies kept in tests/data/configs (from shared/data/models and the model repositories), so the
// tests do not depend on anything outside the source tree.

#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"
#include "core/model/modelshape.h"

#include "../hfconfighelpers.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>

namespace memwall::core {

namespace {

using testhf::configPath;

/// Enums compared through their names, so that a failure prints them.
template <typename E>
QString str(E e)
{
    const std::string_view s = toString(e);
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

int64_t kvBytesPerTokenFp16(const ModelShape &m) { return 2 * m.layers * m.kvHeads * m.headDim * 2; }

/// A small, valid Llama-style config to break in the error tests.
nlohmann::json baseConfig()
{
    return nlohmann::json{{"model_type", "llama"},      {"hidden_size", 4096},
                          {"intermediate_size", 11008}, {"num_hidden_layers", 32},
                          {"num_attention_heads", 32},  {"num_key_value_heads", 32},
                          {"vocab_size", 32000},        {"max_position_embeddings", 4096}};
}

/// Runs `f`, expecting an InputError; returns its message (or a marker if none was thrown).
template <typename F>
QString errorOf(F f)
{
    try {
        f();
    } catch (const InputError &e) {
        return QString::fromStdString(e.what());
    } catch (const std::exception &e) {
        return QStringLiteral("unexpected exception type: ") + QString::fromStdString(e.what());
    }
    return QStringLiteral("<no error>");
}

} // namespace

class TestHfConfig : public QObject
{
    Q_OBJECT

private slots:
    void paramCounts_data();
    void paramCounts();
    void kvBytesPerToken_data();
    void kvBytesPerToken();
    void mixtralActive();
    void familyQuirks();
    void vitImport();
    void vitErrors_data();
    void vitErrors();
    void falconOldAndNewNamesAgree();
    void idAndName();
    void errors_data();
    void errors();
    void invalidJsonText();
    void unreadableFile();
};

void TestHfConfig::paramCounts_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("expected");

    auto row = [](const char *name, const char *file, qint64 n) { QTest::newRow(name) << QString(file) << n; };
    // Exact counts from shared/data/models/README.md (Hugging Face counting).
    row("Llama-2-7B = 6,738,415,616 params", "Llama-2-7b-hf.json", 6738415616);
    row("Llama-2-13B = 13,015,864,320 params", "Llama-2-13b-hf.json", 13015864320);
    row("Llama-2-70B = 68,976,648,192 params", "Llama-2-70b-hf.json", 68976648192);
    row("Llama-3-8B = 8,030,261,248 params", "Meta-Llama-3-8B.json", 8030261248);
    row("Llama-3-70B = 70,553,706,496 params", "Meta-Llama-3-70B.json", 70553706496);
    row("Llama-3.1-405B = 405,853,388,800 params", "Llama-3.1-405B.json", 405853388800);
    row("Mistral-7B = 7,241,732,096 params", "Mistral-7B-v0.1.json", 7241732096);
    row("Mixtral-8x7B = 46,702,792,704 params", "Mixtral-8x7B-v0.1.json", 46702792704);
    row("LLaMA-65B = 65,285,660,672 params", "llama-65b.json", 65285660672);
    row("LLaMA-7B = 6,738,415,616 params (same layers as Llama-2-7B)", "llama-7b.json", 6738415616);
    row("LLaMA-13B = 13,015,864,320 params (same layers as Llama-2-13B)", "llama-13b.json", 13015864320);
    row("GPT-2 = 124,439,808 params", "gpt2.json", 124439808);
    row("GPT-2 Medium = 354,823,168 params", "gpt2-medium.json", 354823168);
    row("GPT-2 Large = 774,030,080 params", "gpt2-large.json", 774030080);
    row("GPT-2 XL = 1,557,611,200 params", "gpt2-xl.json", 1557611200);
    row("BERT-Base = 109,482,240 params (BertModel, with pooler)", "bert-base-uncased.json", 109482240);
    row("BERT-Large = 335,141,888 params (BertModel, with pooler)", "bert-large-uncased.json", 335141888);
    row("OPT-13B = 12,853,473,280 params (tied head, 2,050 positions)", "opt-13b.json", 12853473280);
    // Other published exact counts.
    row("GPT-NeoX-20B = 20,554,567,680 params (model card)", "gpt-neox-20b.json", 20554567680);
    row("Phi-3-mini = 3,821,079,552 params (keras-hub preset)", "Phi-3-mini-4k-instruct.json", 3821079552);
    row("Gemma-7B = 8,537,680,896 params (keras-hub preset)", "gemma-7b.json", 8537680896);
    row("Qwen2-7B = 7,615,616,512 params (q/k/v bias, no o bias)", "Qwen2-7B.json", 7615616512);
    row("Mixtral-8x22B = 140,620,634,112 params", "Mixtral-8x22B-v0.1.json", 140620634112);
    // Falcon: TII publishes only rounded sizes; these are the layouts' exact counts (one shared LayerNorm for 7B).
    row("Falcon-7B = 6,921,720,704 params (multi_query, shared LayerNorm)", "falcon-7b-RefinedWebModel.json",
        6921720704);
    row("Falcon-40B = 41,303,293,952 params (8 KV groups, two LayerNorms)", "falcon-40b.json", 41303293952);
    // GPT-J: the card says 6,053,381,344; the LM head bias (50,400) is not modelled, so the count is a little lower.
    row("GPT-J-6B = 6,050,832,384 params without the LM-head bias", "gpt-j-6b.json", 6050832384);
    // A vision encoder: counted by hand in tests/core/tst_layerblocks.cpp (familyParamCounts).
    row("ViT-L/32 = 306,560,000 params (ViTModel, with pooler)", "vit-large-patch32-224-in21k.json", 306560000);
}

void TestHfConfig::paramCounts()
{
    QFETCH(QString, file);
    QFETCH(qint64, expected);
    const ModelShape m = importHfConfigFile(configPath(file.toUtf8().constData()));
    QCOMPARE(QString::fromStdString(validate(m).message), QString());
    QCOMPARE(static_cast<qint64>(paramCount(m).total), expected);
}

void TestHfConfig::kvBytesPerToken_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("OPT-13B = 819,200 B/token (vLLM paper's 800 KB)") << QString("opt-13b.json") << qint64(819200);
    QTest::newRow("Llama-2-70B = 327,680 B/token (8 KV heads)") << QString("Llama-2-70b-hf.json") << qint64(327680);
    QTest::newRow("Llama-2-7B = 524,288 B/token") << QString("Llama-2-7b-hf.json") << qint64(524288);
    QTest::newRow("Llama-3.1-405B = 516,096 B/token (8 KV heads)") << QString("Llama-3.1-405B.json") << qint64(516096);
    QTest::newRow("Falcon-7B = 8,192 B/token (multi-query)")
        << QString("falcon-7b-RefinedWebModel.json") << qint64(8192);
    QTest::newRow("Falcon-40B = 122,880 B/token (8 KV groups of 64)")
        << QString("falcon-40b-RefinedWeb.json") << qint64(122880);
    QTest::newRow("Gemma-7B = 458,752 B/token (head_dim 256)") << QString("gemma-7b.json") << qint64(458752);
}

void TestHfConfig::kvBytesPerToken()
{
    QFETCH(QString, file);
    QFETCH(qint64, expected);
    const ModelShape m = importHfConfigFile(configPath(file.toUtf8().constData()));
    QCOMPARE(static_cast<qint64>(kvBytesPerTokenFp16(m)), expected);
}

void TestHfConfig::mixtralActive()
{
    const ModelShape m = importHfConfigFile(configPath("Mixtral-8x7B-v0.1.json"));
    QCOMPARE(m.experts, int64_t(8));
    QCOMPARE(m.activeExperts, int64_t(2));
    QCOMPARE(m.slidingWindow, int64_t(0)); // "sliding_window": null
    const ParamCounts p = paramCount(m);
    QCOMPARE(static_cast<qint64>(p.active), qint64(12879925248)); // "Mixtral-8x7B active = 12,879,925,248"
    QCOMPARE(static_cast<qint64>(p.total), qint64(46702792704));
}

void TestHfConfig::familyQuirks()
{
    // OPT: learned positions with an offset of 2 rows, tied head, ReLU, biases.
    const ModelShape opt = importHfConfigFile(configPath("opt-13b.json"));
    QCOMPARE(str(opt.positions), str(PositionEncoding::Learned));
    QCOMPARE(opt.maxPositions + opt.positionOffset, int64_t(2050));
    QVERIFY(opt.tiedEmbeddings);
    QCOMPARE(str(opt.activation), str(Activation::Relu));
    QCOMPARE(opt.ffn, int64_t(20480));

    // GPT-2: n_* keys, n_inner absent -> 4 x n_embd, tied by default, learned positions.
    const ModelShape gpt2 = importHfConfigFile(configPath("gpt2.json"));
    QCOMPARE(gpt2.hidden, int64_t(768));
    QCOMPARE(gpt2.ffn, int64_t(4 * 768));
    QCOMPARE(gpt2.maxPositions, int64_t(1024));
    QVERIFY(gpt2.tiedEmbeddings);
    QCOMPARE(QString::fromStdString(gpt2.family), QString("gpt2"));

    // BERT: encoder, token types, embedding LayerNorm, pooler.
    const ModelShape bert = importHfConfigFile(configPath("bert-base-uncased.json"));
    QCOMPARE(str(bert.arch), str(Architecture::Encoder));
    QCOMPARE(bert.tokenTypes, int64_t(2));
    QVERIFY(bert.embeddingNorm);
    QVERIFY(bert.pooler);
    QCOMPARE(str(bert.norm), str(NormKind::LayerNorm));

    // Llama: untied by default; LLaMA-1 configs have no num_key_value_heads -> MHA.
    const ModelShape llama = importHfConfigFile(configPath("llama-7b.json"));
    QCOMPARE(llama.kvHeads, llama.heads);
    QVERIFY(!llama.tiedEmbeddings);
    QVERIFY(llama.gatedFfn);
    QCOMPARE(str(llama.activation), str(Activation::Silu));

    // Mistral: sliding window 4096.
    QCOMPARE(importHfConfigFile(configPath("Mistral-7B-v0.1.json")).slidingWindow, int64_t(4096));

    // Qwen2: q/k/v bias, no o bias; use_sliding_window false -> full attention.
    const ModelShape qwen = importHfConfigFile(configPath("Qwen2-7B.json"));
    QVERIFY(qwen.qkvBias);
    QVERIFY(!qwen.outBias);
    QVERIFY(!qwen.ffnBias);
    QCOMPARE(qwen.slidingWindow, int64_t(0));
    QCOMPARE(qwen.kvHeads, int64_t(4));

    // Gemma: explicit head_dim (16 x 256 = 4096 > hidden 3072), tied by default, GeGLU.
    const ModelShape gemma = importHfConfigFile(configPath("gemma-7b.json"));
    QCOMPARE(gemma.headDim, int64_t(256));
    QCOMPARE(gemma.qDim(), int64_t(4096));
    QVERIFY(gemma.tiedEmbeddings);
    QCOMPARE(str(gemma.activation), str(Activation::Gelu));
    QVERIFY(gemma.gatedFfn);

    // GPT-NeoX: rotary (rotary_pct 0.25), parallel residual with two LayerNorms, untied.
    const ModelShape neox = importHfConfigFile(configPath("gpt-neox-20b.json"));
    QCOMPARE(str(neox.positions), str(PositionEncoding::Rotary));
    QVERIFY(neox.parallelAttention);
    QVERIFY(!neox.sharedLayerNorm);
    QVERIFY(!neox.tiedEmbeddings);

    // Falcon-7B: multi-query, one shared LayerNorm; Falcon-40B: 8 KV groups, two LayerNorms.
    const ModelShape f7 = importHfConfigFile(configPath("falcon-7b-RefinedWebModel.json"));
    QCOMPARE(QString::fromStdString(f7.family), QString("falcon"));
    QCOMPARE(f7.kvHeads, int64_t(1));
    QVERIFY(f7.parallelAttention && f7.sharedLayerNorm);
    const ModelShape f40 = importHfConfigFile(configPath("falcon-40b.json"));
    QCOMPARE(f40.heads, int64_t(128));
    QCOMPARE(f40.kvHeads, int64_t(8));
    QVERIFY(f40.parallelAttention && !f40.sharedLayerNorm);

    // Phi-3 mini: sliding_window from the config.
    QCOMPARE(importHfConfigFile(configPath("Phi-3-mini-4k-instruct.json")).slidingWindow, int64_t(2047));

    // Qwen2-MoE (the Qwen1.5-MoE-A2.7B shape): 60 routed experts 1408 wide, 4 per token, and a shared expert
    // 5632 wide behind a sigmoid gate. Counted by hand (h 2048, 16 heads of 128, q/k/v biases, untied):
    //   attention 2048 x 6144 + 2048 x 2048 + 6144 = 16,783,360; routed 60 x 3 x 2048 x 1408 = 519,045,120;
    //   shared 3 x 2048 x 5632 + 2048 = 34,605,056; router 2048 x 60 = 122,880; norms 4,096;
    //   a layer 570,560,512, x 24 = 13,693,452,288; + embeddings 311,164,928 + norm and LM head 311,166,976
    //   = 14,315,784,192, the model card's "14.3B parameters in total". Active: 16,783,360 + 4 x 8,650,752
    //   + 34,605,056 + 122,880 + 4,096 = 86,118,400 a layer, x 24 + 622,331,904 = 2,689,173,504 ("2.7B activated",
    //   huggingface.co/Qwen/Qwen1.5-MoE-A2.7B).
    const nlohmann::json moe{{"model_type", "qwen2_moe"},
                             {"hidden_size", 2048},
                             {"intermediate_size", 5632},
                             {"moe_intermediate_size", 1408},
                             {"shared_expert_intermediate_size", 5632},
                             {"num_experts", 60},
                             {"num_experts_per_tok", 4},
                             {"num_hidden_layers", 24},
                             {"num_attention_heads", 16},
                             {"num_key_value_heads", 16},
                             {"vocab_size", 151936}};
    const ModelShape qmoe = importHfConfig(moe, "cfg.json");
    QCOMPARE(qmoe.ffn, int64_t(1408));
    QCOMPARE(qmoe.experts, int64_t(60));
    QCOMPARE(qmoe.activeExperts, int64_t(4));
    QCOMPARE(qmoe.sharedFfn, int64_t(5632));
    QVERIFY(qmoe.sharedExpertGate);
    QCOMPARE(static_cast<qint64>(paramCount(qmoe).total), qint64(14315784192));
    QCOMPARE(static_cast<qint64>(paramCount(qmoe).active), qint64(2689173504));
    QVERIFY(qmoe.qkvBias && !qmoe.outBias);

    // Activation from a config with an unusual but known GELU name.
    nlohmann::json c = baseConfig();
    c["hidden_act"] = "gelu_pytorch_tanh";
    QCOMPARE(str(importHfConfig(c, "cfg.json").activation), str(Activation::Gelu));
    // attention_bias switches q/k/v/o biases in Llama-style configs.
    c["attention_bias"] = true;
    const ModelShape biased = importHfConfig(c, "cfg.json");
    QVERIFY(biased.qkvBias && biased.outBias && !biased.ffnBias);
}

void TestHfConfig::vitImport()
{
    // ViT-L/32: image patches instead of a vocabulary. 224 / 32 = 7 patches a side, 49 in all, each of 3 x 32 x 32
    // values; the class token makes 50 positions. Pre-norm, so a LayerNorm after the last layer; the pooler as BERT's.
    const ModelShape vit = importHfConfigFile(configPath("vit-large-patch32-224-in21k.json"));
    QCOMPARE(QString::fromStdString(vit.family), QString("vit"));
    QCOMPARE(QString::fromStdString(vit.id), QString("vit-large-patch32-224-in21k"));
    QCOMPARE(str(vit.arch), str(Architecture::Encoder));
    QCOMPARE(vit.vocab, int64_t(0));
    QCOMPARE(vit.patchInputs, int64_t(3072));
    QCOMPARE(vit.maxPositions, int64_t(50));
    QCOMPARE(str(vit.positions), str(PositionEncoding::Learned));
    QCOMPARE(str(vit.norm), str(NormKind::LayerNorm));
    QCOMPARE(str(vit.activation), str(Activation::Gelu));
    QVERIFY(!vit.gatedFfn);
    QVERIFY(vit.finalNorm && vit.pooler && !vit.embeddingNorm);
    QCOMPARE(vit.tokenTypes, int64_t(0));
    QVERIFY(vit.qkvBias && vit.outBias && vit.ffnBias);
    QCOMPARE(vit.headDim, int64_t(64));
    QCOMPARE(vit.kvHeads, int64_t(16));

    nlohmann::json c = readJsonFile(configPath("vit-large-patch32-224-in21k.json"));
    // encoder_stride (newer configs write it) sizes only ViTForMaskedImageModeling's decoder; a ViTModel ignores it,
    // as it does pooler_act (no weights) and a pooler_output_size of hidden_size (or null: hidden_size).
    c["encoder_stride"] = 32;
    c["pooler_act"] = "tanh";
    c["pooler_output_size"] = 1024;
    QCOMPARE(static_cast<qint64>(paramCount(importHfConfig(c, "cfg.json")).total), qint64(306560000));
    c["pooler_output_size"] = nullptr;
    QCOMPARE(static_cast<qint64>(paramCount(importHfConfig(c, "cfg.json")).total), qint64(306560000));
    // No architectures key: a ViTModel too.
    c.erase("architectures");
    QCOMPARE(static_cast<qint64>(paramCount(importHfConfig(c, "cfg.json")).total), qint64(306560000));
    // qkv_bias false drops the 3 x 1024 q/k/v biases of each of the 24 layers (the output's stays):
    // 306,560,000 - 73,728 = 306,486,272.
    c["qkv_bias"] = false;
    const ModelShape noBias = importHfConfig(c, "cfg.json");
    QVERIFY(!noBias.qkvBias && noBias.outBias);
    QCOMPARE(static_cast<qint64>(paramCount(noBias).total), qint64(306486272));
    // ViT-B/16's geometry on the same file: 14 x 14 = 196 patches of 3 x 16 x 16 = 768 values, 197 positions.
    c["patch_size"] = 16;
    const ModelShape b16 = importHfConfig(c, "cfg.json");
    QCOMPARE(b16.patchInputs, int64_t(768));
    QCOMPARE(b16.maxPositions, int64_t(197));
}

void TestHfConfig::vitErrors_data()
{
    QTest::addColumn<QByteArray>("changes"); // a JSON object of keys set in the ViT-L/32 config
    QTest::addColumn<QString>("removed");    // a key removed from it, or ""
    QTest::addColumn<QString>("message");
    QTest::newRow("patches that do not tile the image")
        << QByteArray(R"({"patch_size": 30})") << QString()
        << "cfg.json: patch_size: 30 does not divide image_size (224): the patches must tile the image";
    QTest::newRow("a patch larger than the image")
        << QByteArray(R"({"patch_size": 448})") << QString()
        << "cfg.json: patch_size: 448 does not divide image_size (224): the patches must tile the image";
    QTest::newRow("no image_size") << QByteArray("{}") << "image_size"
                                   << "cfg.json: image_size: missing";
    QTest::newRow("a null patch_size") << QByteArray(R"({"patch_size": null})") << QString()
                                       << "cfg.json: patch_size: missing";
    QTest::newRow("no num_channels") << QByteArray("{}") << "num_channels"
                                     << "cfg.json: num_channels: missing";
    QTest::newRow("a rectangular image") << QByteArray(R"({"image_size": [224, 320]})") << QString()
                                         << "cfg.json: image_size: expected a whole number, got [224,320]";
    QTest::newRow("implausibly many patches") << QByteArray(R"({"image_size": 2147483648})") << QString()
                                              << "cfg.json: image_size: implausibly many patches of 32, got 2147483648";
    QTest::newRow("an implausibly large patch")
        << QByteArray(R"({"image_size": 65536, "patch_size": 65536})") << QString()
        << "cfg.json: patch_size: implausibly large with num_channels 3, got 65536";
    QTest::newRow("ViTForImageClassification")
        << QByteArray(R"({"architectures": ["ViTForImageClassification"]})") << QString()
        << "cfg.json: architectures: ViTForImageClassification's classifier (hidden_size x num_labels, on a "
           "ViTModel without its pooler) is not modelled; only ViTModel is";
    QTest::newRow("ViTForMaskedImageModeling")
        << QByteArray(R"({"architectures": ["ViTForMaskedImageModeling"], "encoder_stride": 32})") << QString()
        << "cfg.json: architectures: ViTForMaskedImageModeling's decoder (a convolution to encoder_stride^2 x "
           "num_channels values per patch) is not modelled; only ViTModel is";
    QTest::newRow("another class") << QByteArray(R"({"architectures": ["ViTModel", "ViTHybridModel"]})") << QString()
                                   << "cfg.json: architectures: 'ViTHybridModel' is not modelled; only ViTModel is";
    QTest::newRow("architectures of numbers") << QByteArray(R"({"architectures": [1]})") << QString()
                                              << "cfg.json: architectures: expected class names, got 1";
    QTest::newRow("a pooler of another width")
        << QByteArray(R"({"pooler_output_size": 768})") << QString()
        << "cfg.json: pooler_output_size: 768 differs from hidden_size (1024): only a pooler of hidden_size x "
           "hidden_size is modelled";
    QTest::newRow("heads that do not divide hidden_size")
        << QByteArray(R"({"num_attention_heads": 24})") << QString()
        << "cfg.json: num_attention_heads: 24 does not divide hidden_size (1024); give head_dim";
}

void TestHfConfig::vitErrors()
{
    QFETCH(QByteArray, changes);
    QFETCH(QString, removed);
    QFETCH(QString, message);
    nlohmann::json c = readJsonFile(configPath("vit-large-patch32-224-in21k.json"));
    c.update(nlohmann::json::parse(changes.toStdString()));
    if (!removed.isEmpty())
        c.erase(removed.toStdString());
    QCOMPARE(errorOf([&] { importHfConfig(c, "cfg.json"); }), message);
}

void TestHfConfig::falconOldAndNewNamesAgree()
{
    // The first Falcon-40B config (model_type RefinedWeb, n_layer/n_head/n_head_kv) and the current one (falcon,
    // new_decoder_architecture, num_kv_heads) describe the same model.
    const ModelShape oldForm = importHfConfigFile(configPath("falcon-40b-RefinedWeb.json"));
    const ModelShape newForm = importHfConfigFile(configPath("falcon-40b.json"));
    QCOMPARE(oldForm.layers, newForm.layers);
    QCOMPARE(oldForm.kvHeads, newForm.kvHeads);
    QCOMPARE(paramCount(oldForm).total, paramCount(newForm).total);

    // Falcon-7B in its current form: same count as the RefinedWebModel form.
    nlohmann::json f7 = readJsonFile(configPath("falcon-7b-RefinedWebModel.json"));
    f7["model_type"] = "falcon";
    f7["num_hidden_layers"] = f7["n_layer"];
    f7["num_attention_heads"] = f7["n_head"];
    f7.erase("n_layer");
    f7.erase("n_head");
    f7["new_decoder_architecture"] = false;
    QCOMPARE(static_cast<qint64>(paramCount(importHfConfig(f7, "falcon-7b.json")).total), qint64(6921720704));
}

void TestHfConfig::idAndName()
{
    // From _name_or_path: last path part; id lower-case with dashes.
    const ModelShape a = importHfConfigFile(configPath("Llama-2-7b-hf.json"));
    QCOMPARE(QString::fromStdString(a.id), QString("llama-2-7b-hf"));
    QCOMPARE(QString::fromStdString(a.name), QString("Llama-2-7b-hf"));
    // From the file name stem when there is no _name_or_path.
    const ModelShape b = importHfConfigFile(configPath("Llama-3.1-405B.json"));
    QCOMPARE(QString::fromStdString(b.id), QString("llama-3-1-405b"));
    QCOMPARE(QString::fromStdString(b.name), QString("Llama-3.1-405B"));
    // A file called config.json is named after its folder (a Hugging Face checkout).
    const ModelShape c = importHfConfig(baseConfig(), "/models/Meta_Llama--Tiny/config.json");
    QCOMPARE(QString::fromStdString(c.id), QString("meta-llama-tiny"));
    nlohmann::json named = baseConfig();
    named["_name_or_path"] = "org/My Model_v2.5/";
    QCOMPARE(QString::fromStdString(importHfConfig(named, "x.json").id), QString("my-model-v2-5"));
}

void TestHfConfig::errors_data()
{
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QString>("message");

    auto without = [](const char *key) {
        nlohmann::json c = baseConfig();
        c.erase(key);
        return QByteArray::fromStdString(c.dump());
    };
    auto with = [](const char *key, const nlohmann::json &v) {
        nlohmann::json c = baseConfig();
        c[key] = v;
        return QByteArray::fromStdString(c.dump());
    };

    QTest::newRow("missing hidden_size") << without("hidden_size") << QString("cfg.json: hidden_size: missing");
    QTest::newRow("missing model_type") << without("model_type") << QString("cfg.json: model_type: missing");
    QTest::newRow("null num_hidden_layers")
        << with("num_hidden_layers", nullptr) << QString("cfg.json: num_hidden_layers: missing");
    QTest::newRow("unknown model_type")
        << with("model_type", "xyz")
        << QString(
               "cfg.json: model_type: unsupported 'xyz': no reader for this model_type (supported: llama, mistral, "
               "mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3_text, phi3, phimoe, olmo2, gpt2, "
               "gptj, bert, roberta, vit, opt, falcon, RefinedWeb, RefinedWebModel, gpt_neox, deepseek_v2, "
               "deepseek_v3, kimi_k2, gpt_oss, mamba, mamba2, cohere, jamba, nemotron_h, llama4, llama4_text, "
               "minimax_m2, mimo, glm4_moe, cohere2, kimi_k25, gemma3, qwen3_vl, qwen3_vl_moe, qwen3_next, "
               "qwen3_5_text, qwen3_5_moe_text, qwen3_5, qwen3_5_moe, kimi_linear, deepseek_v32, glm_moe_dsa, gemma3n, "
               "gemma3n_text, gemma4, "
               "gemma4_text, deci, nemotron-nas, step3p5, step3p7)");
    QTest::newRow("hidden_size is a string")
        << with("hidden_size", "big") << QString("cfg.json: hidden_size: expected a whole number, got \"big\"");
    QTest::newRow("hidden_size is fractional")
        << with("hidden_size", 4096.5) << QString("cfg.json: hidden_size: expected a whole number, got 4096.5");
    QTest::newRow("hidden_size is zero") << with("hidden_size", 0)
                                         << QString("cfg.json: hidden_size: must be positive, got 0");
    QTest::newRow("hidden_size of 2^62 (fuzz: 4 x hidden_size overflowed)")
        << with("hidden_size", int64_t(1) << 62)
        << QString("cfg.json: hidden_size: implausibly large, got 4611686018427387904");
    {
        // The fuzzer's input: a Falcon config whose missing ffn_hidden_size defaults to 4 x hidden_size.
        nlohmann::json c = readJsonFile(configPath("falcon-40b.json"));
        c["hidden_size"] = int64_t(1) << 62;
        QTest::newRow("Falcon hidden_size of 2^62")
            << QByteArray::fromStdString(c.dump())
            << QString("cfg.json: hidden_size: implausibly large, got 4611686018427387904");
    }
    QTest::newRow("kv heads do not divide heads")
        << with("num_key_value_heads", 5)
        << QString("cfg.json: num_key_value_heads: 5 does not divide num_attention_heads (32)");
    QTest::newRow("more kv heads than heads")
        << with("num_attention_heads", 7)
        << QString("cfg.json: num_key_value_heads: 32 does not divide num_attention_heads (7)");
    {
        nlohmann::json c = baseConfig();
        c["num_attention_heads"] = 30;
        c["num_key_value_heads"] = 10;
        QTest::newRow("heads do not divide hidden_size")
            << QByteArray::fromStdString(c.dump())
            << QString("cfg.json: num_attention_heads: 30 does not divide hidden_size (4096); give head_dim");
    }
    QTest::newRow("unknown activation") << with("hidden_act", "tanh")
                                        << QString(
                                               "cfg.json: hidden_act: unsupported activation 'tanh' (supported: gelu "
                                               "and its variants, silu, swish, relu)");
    QTest::newRow("top level is an array")
        << QByteArray("[1, 2]") << QString("cfg.json: top level: expected an object, got [1,2]");
    {
        nlohmann::json c = readJsonFile(configPath("opt-13b.json"));
        c["word_embed_proj_dim"] = 512;
        QTest::newRow("OPT word_embed_proj_dim != hidden_size")
            << QByteArray::fromStdString(c.dump())
            << QString(
                   "cfg.json: word_embed_proj_dim: 512 differs from hidden_size (5120): OPT's project_in/project_out "
                   "layers are not modelled");
    }
    {
        nlohmann::json c = readJsonFile(configPath("Mixtral-8x7B-v0.1.json"));
        c["num_experts_per_tok"] = 9;
        QTest::newRow("more active experts than experts")
            << QByteArray::fromStdString(c.dump())
            << QString("cfg.json: num_experts_per_tok: 9 exceeds the number of experts (8)");
    }
}

void TestHfConfig::errors()
{
    QFETCH(QByteArray, config);
    QFETCH(QString, message);
    const nlohmann::json j = nlohmann::json::parse(config.toStdString());
    QCOMPARE(errorOf([&] { importHfConfig(j, "cfg.json"); }), message);
}

void TestHfConfig::invalidJsonText()
{
    QCOMPARE(
        errorOf([] { parseJson("{\"model_type\": \"llama\",}", "cfg.json"); }),
        QString("cfg.json:1:24: not valid JSON: parse error at line 1, column 24: syntax error while parsing object "
                "key - unexpected '}'; expected string literal"));
}

void TestHfConfig::unreadableFile()
{
    const std::string path = configPath("does-not-exist.json");
    const QString msg = errorOf([&] { importHfConfigFile(path); });
    QVERIFY2(msg.startsWith(QString::fromStdString(path + ": cannot read file")), qPrintable(msg));
    QVERIFY(!msg.contains('\n'));
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestHfConfig)
#include "tst_hfconfig.moc"
