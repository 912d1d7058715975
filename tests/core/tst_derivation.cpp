// "Show the formula": every figure's derivation ends in the number the analysis reports. The first test walks every
// field of many scenarios (dense MHA, GQA, MLA, windowed, MoE, state space, encoder; decode, prefill, generate, train;
// ideal and achievable) and compares each derivation's value with the `memwall analyze --json` figure of the same
// name: that is what keeps the derivation and the analysis one truth. The others pin derivations counted by hand.
#include "core/analysis/derivation.h"
#include "core/analysis/options.h"
#include "core/io/analysisjson.h"

#include "../builtinpresets.h"

#include <QtTest>

#include <sstream>
#include <string>

using namespace memwall::core;
using testpresets::hw;
using testpresets::model;

namespace {

/// A scenario from command-line flags: "--phase=prefill --seq=4096 --no-fused-attention".
Scenario scenarioFrom(const QString &flags)
{
    Scenario s;
    WhatIf w;
    for (const QString &arg : flags.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QStringList kv = arg.split(QLatin1Char('='));
        bool negated = false;
        const ScenarioOption *o = findOptionByFlag(kv[0].toStdString(), &negated);
        if (!o)
            qFatal("no option %s", qPrintable(kv[0]));
        OptionValue v;
        if (o->kind == OptionKind::Switch)
            v = !negated;
        else if (const std::string e = parseOptionText(*o, kv.value(1).toStdString(), &v); !e.empty())
            qFatal("%s", e.c_str());
        if (const std::string e = applyOption(*o, s, w, v); !e.empty())
            qFatal("%s", e.c_str());
    }
    return s;
}

/// The figure `memwall analyze --json` prints under `field` (a derivation field): a dotted path into the JSON, or an
/// operator's figure. Bounds as derive() numbers them (1 compute, 0 memory, 2 communication).
double jsonFigure(const nlohmann::json &j, const Analysis &a, const std::string &field)
{
    auto bound = [](const std::string &b) { return b == "compute" ? 1.0 : b == "memory" ? 0.0 : 2.0; };
    if (field.rfind("op:", 0) == 0) {
        const std::size_t colon = field.rfind(':');
        const std::string key = field.substr(3, colon - 3), what = field.substr(colon + 1);
        for (std::size_t i = 0; i < a.operators.size(); ++i) {
            if (operatorKey(a, i) != key)
                continue;
            const nlohmann::json &op = j.at("operators").at(i);
            if (what == "bound")
                return bound(op.at("bound").get<std::string>());
            const char *name = what == "time" ? "time_s" : what == "intensity" ? "arithmetic_intensity" : what.c_str();
            return op.at(name).get<double>();
        }
        qFatal("no operator %s", key.c_str());
    }
    const std::size_t dot = field.find('.');
    const nlohmann::json &v = j.at(field.substr(0, dot)).at(field.substr(dot + 1));
    return v.is_string() ? bound(v.get<std::string>()) : v.get<double>();
}

bool close(double x, double y) { return std::fabs(x - y) <= 1e-9 * std::max(std::fabs(y), 1e-300) || x == y; }

} // namespace

class TstDerivation : public QObject
{
    Q_OBJECT

private slots:
    void everyDerivationEndsInTheAnalysisFigure_data()
    {
        QTest::addColumn<QString>("hardware");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("flags");
        QTest::newRow("dense MHA Llama 2 7B decode") << "h100-sxm"
                                                     << "llama-2-7b"
                                                     << "";
        QTest::newRow("dense MHA Llama 2 7B prefill unfused") << "a100-80gb-sxm"
                                                              << "llama-2-7b"
                                                              << "--phase=prefill --seq=1024 --no-fused-attention";
        QTest::newRow("dense Llama 2 7B decode without KV cache") << "h100-sxm"
                                                                  << "llama-2-7b"
                                                                  << "--context=512 --no-kv-cache";
        QTest::newRow("GQA Llama 2 70B decode b8 tp4 achievable") << "h100-sxm"
                                                                  << "llama-2-70b"
                                                                  << "--batch=8 --tp=4 --efficiency=achievable";
        QTest::newRow("GQA Llama 2 70B decode achievable eager int4")
            << "h100-sxm"
            << "llama-2-70b"
            << "--efficiency=achievable --execution=eager --weights=int4/g128";
        QTest::newRow("GQA Llama 3 70B prefill int4 zero points")
            << "h100-sxm"
            << "llama-3-70b"
            << "--phase=prefill --seq=4096 --weights=int4/g128 --weight-zero-points --unquantized-embeddings";
        QTest::newRow("GQA Llama 3 8B generate prompt cache") << "h100-sxm"
                                                              << "llama-3-8b"
                                                              << "--phase=generate --prompt-cache-hit-rate=0.5";
        QTest::newRow("MLA DeepSeek-V3 decode absorbed tp8") << "h200-sxm"
                                                             << "deepseek-v3"
                                                             << "--batch=16 --tp=8 --weights=fp8 --activations=fp8";
        // The measured tables: the MLA decode module and the fused MoE kernel read every byte at their own rate.
        QTest::newRow("MLA and MoE tables DeepSeek-V3 DEP8 decode achievable")
            << "h200-sxm"
            << "deepseek-v3"
            << "--batch=64 --context=2048 --attention-dp=8 --moe-ep=8 --weights=fp8/g16384/fp32 --activations=fp8 "
               "--efficiency=achievable";
        QTest::newRow("GQA Llama 3 70B generate fp8 dynamic scales tp8")
            << "h200-sxm"
            << "llama-3-70b"
            << "--phase=generate --batch=16 --tp=8 --weights=fp8 --activations=fp8 --efficiency=achievable "
               "--activation-scales=dynamic --allreduce=custom";
        QTest::newRow("MLA DeepSeek-V3 decode lifted") << "h200-sxm"
                                                       << "deepseek-v3"
                                                       << "--no-mla-absorb";
        QTest::newRow("MLA DeepSeek-V2-Lite prefill") << "h100-sxm"
                                                      << "deepseek-v2-lite"
                                                      << "--phase=prefill --seq=1024";
        QTest::newRow("global layers of their own widths, MoE beside a dense MLP: Gemma 4 26B-A4B decode 128k")
            << "h100-sxm"
            << "gemma-4-26b-a4b"
            << "--context=131072 --batch=8";
        QTest::newRow("KV sharing and per-layer embeddings: Gemma 4 E2B decode 128k") << "h100-sxm"
                                                                                      << "gemma-4-e2b"
                                                                                      << "--context=131072 --batch=8";
        QTest::newRow("windowed Gemma 3 1B prefill 32k") << "h100-sxm"
                                                         << "gemma-3-1b"
                                                         << "--phase=prefill --seq=32768";
        QTest::newRow("windowed Gemma 3 1B generate") << "h100-sxm"
                                                      << "gemma-3-1b"
                                                      << "--phase=generate --seq=1024 --output=128 --batch=4";
        QTest::newRow("windowed Gemma 2 9B decode 8k") << "h100-sxm"
                                                       << "gemma-2-9b"
                                                       << "--context=8192 --batch=2";
        QTest::newRow("MoE Mixtral 8x7B decode ep8") << "h100-sxm"
                                                     << "mixtral-8x7b"
                                                     << "--batch=4 --ep=8";
        QTest::newRow("MoE Qwen2 57B-A14B shared expert train")
            << "h100-sxm"
            << "qwen2-57b-a14b"
            << "--phase=train --seq=1024 --batch=8 --dp=2 --recompute=selective";
        QTest::newRow("MoE gpt-oss 20B decode mxfp4 experts") << "h100-sxm"
                                                              << "gpt-oss-20b"
                                                              << "--batch=32 --expert-weights=mxfp4";
        QTest::newRow("state space Mamba-2 2.7B prefill") << "h100-sxm"
                                                          << "mamba2-2-7b"
                                                          << "--phase=prefill";
        QTest::newRow("state space Mamba-2 2.7B decode") << "h100-sxm"
                                                         << "mamba2-2-7b"
                                                         << "--batch=8";
        QTest::newRow("dense Llama 2 7B train full recompute pp2")
            << "h100-sxm"
            << "llama-2-7b"
            << "--phase=train --seq=2048 --batch=8 --pp=2 --micro-batches=4 --recompute=full --optimizer=sgd";
        QTest::newRow("dense Llama 2 13B structured sparsity") << "a100-80gb-sxm"
                                                               << "llama-2-13b"
                                                               << "--structured-sparsity=0.5 --batch=64";
        QTest::newRow("encoder BERT base encode") << "a100-80gb-sxm"
                                                  << "bert-base-uncased"
                                                  << "--phase=encode --seq=512 --batch=32";
    }

    void everyDerivationEndsInTheAnalysisFigure()
    {
        QFETCH(QString, hardware);
        QFETCH(QString, model);
        QFETCH(QString, flags);
        const HardwareSpec &h = hw(qPrintable(hardware));
        const ModelShape &m = testpresets::model(qPrintable(model));
        const Scenario s = scenarioFrom(flags);
        const Analysis a = analyze(h, m, s);
        const nlohmann::json j = analysisToJson(h, m, s, a);
        const std::vector<std::string> fields = derivationFields(a);
        const std::size_t generate = s.phase == Phase::Generate && s.output > 1 ? 2 : 0; // TTFT and TPOT
        QCOMPARE(fields.size(), 11 + generate + 5 * a.operators.size());
        int checked = 0;
        for (const std::string &field : fields) {
            const Derivation d = derive(h, m, s, a, field);
            const double expected = jsonFigure(j, a, field);
            QVERIFY2(close(d.value, expected),
                     qPrintable(QString::fromStdString(field + ": derivation " + std::to_string(d.value) +
                                                       ", analysis " + std::to_string(expected) + "\n" + d.text())));
            QCOMPARE(d.field, field);
            QVERIFY2(d.lines.size() >= 2, field.c_str());
            QVERIFY2(!d.title.empty() && !d.valueText.empty(), field.c_str());
            ++checked;
        }
        QVERIFY(checked > 11);
    }

    void handCounts_data()
    {
        QTest::addColumn<QString>("hardware");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("flags");
        QTest::addColumn<QString>("field");
        QTest::addColumn<double>("expected");
        QTest::addColumn<QString>("substituted");

        // The issue's example: 2 · 80 · 8 · 128 · 2 · 2048 = 671,088,640 B.
        QTest::newRow("Llama 2 70B fp16 KV at 2048 tokens = 671,088,640 B (671 MB)")
            << "h100-sxm"
            << "llama-2-70b"
            << "--phase=prefill --seq=2048"
            << "kv" << 671088640.0 << "= 2 × 80 layers × 8 KV heads × 128 × 2 B (fp16) × 2048 tokens × 1 sequence";
        // Decode at context 2048 caches the new token too: 2049 × 327,680 B.
        QTest::newRow("Llama 2 70B decode at context 2048 caches 2049 tokens = 671,416,320 B")
            << "h100-sxm"
            << "llama-2-70b"
            << "--context=2048"
            << "kv_cache.total_bytes" << 671416320.0 << "2049 tokens (context 2048 + 1 new token) × 1 sequence";
        // vLLM's "800 KB": 2 × 40 layers × 5120 × 2 B.
        QTest::newRow("OPT-13B fp16 KV = 819,200 B/token")
            << "a100-80gb-sxm"
            << "opt-13b"
            << ""
            << "kv_per_token" << 819200.0 << "= 2 (K and V) × 40 KV heads × 128 head_dim × 40 layers × 2 B (fp16)";
        // MLA caches the latent and the shared rotary key: (512 + 64) × 61 layers × 2 B.
        QTest::newRow("DeepSeek-V3 MLA KV = 70,272 B/token")
            << "h200-sxm"
            << "deepseek-v3"
            << ""
            << "kv_per_token" << 70272.0 << "= (512 kv_lora_rank + 64 qk_rope_head_dim) × 61 layers × 2 B (fp16)";
        // Gemma 3 1B at 32,768 tokens: 22 windowed layers keep 512 tokens, the 4 global ones all:
        // (22 × 512 × 512 + 4 × 512 × 32768) × 2 B = (5,767,168 + 67,108,864) × 2 = 145,752,064 B.
        QTest::newRow("Gemma 3 1B KV at 32k tokens = 145,752,064 B (146 MB, not 872 MB)")
            << "h100-sxm"
            << "gemma-3-1b"
            << "--phase=prefill --seq=32768"
            << "kv" << 145752064.0
            << "22 layers with a 512-token window: 22 × 512 × min(32\u202f768, 512) = 22 × 512 × 512 = "
               "5\u202f767\u202f168 elements\n"
               "  4 layers with the whole context: 4 × 512 × 32\u202f768 = 67\u202f108\u202f864 elements";
        // Gemma 4 26B-A4B: 25 windowed layers of 8 KV heads of 256, 5 global ones of 2 KV heads of 512:
        // (25 × 4,096 + 5 × 2,048) elements × 2 B = 225,280 B.
        QTest::newRow("Gemma 4 26B-A4B KV = 225,280 B/token")
            << "h100-sxm"
            << "gemma-4-26b-a4b"
            << ""
            << "kv_per_token" << 225280.0 << "= (25 × 4096 + 5 × 2048) elements × 2 B (fp16)";
        // Gemma 4 E2B: only layers 0-14 cache (12 windowed of one KV head of 256, 3 global of one of 512); the 20
        // sharing layers cache none: (12 × 512 + 3 × 1,024) elements × 2 B = 18,432 B.
        QTest::newRow("Gemma 4 E2B KV = 18,432 B/token")
            << "h100-sxm"
            << "gemma-4-e2b"
            << ""
            << "kv_per_token" << 18432.0 << "= (12 × 512 + 3 × 1024) elements × 2 B (fp16)";
        // Decode at batch 1: 2 × 1 token × 8192 × 28672 per layer, 80 layers.
        QTest::newRow("Llama 2 70B ffn.up decode = 37,580,963,840 FLOPs")
            << "h100-sxm"
            << "llama-2-70b"
            << ""
            << "op:ffn.up:flops" << 37580963840.0 << "= 2 × 1 × 8192 × 28\u202f672 = 469\u202f762\u202f048";
        // Its weights: 8192 × 28672 × 2 B × 80 layers = 37,580,963,840 B; input 8192 and output 28672 fp16 values
        // per layer: (16,384 + 57,344) × 80 = 5,898,240 B.
        QTest::newRow("Llama 2 70B ffn.up decode bytes = 37,586,862,080 B")
            << "h100-sxm"
            << "llama-2-70b"
            << ""
            << "op:ffn.up:bytes" << 37586862080.0
            << "per execution: 469\u202f762\u202f048 B + 73\u202f728 B + 0 B, × 80 executions";
        // Llama 2 7B at int4/g128: 6,738,415,616 parameters × (4 + 16/128) / 8 B = 3,474,495,552 B.
        QTest::newRow("Llama 2 7B int4/g128 weights = 3,474,495,552 B")
            << "h100-sxm"
            << "llama-2-7b"
            << "--weights=int4/g128"
            << "weights" << 3474495552.0 << "(4 bits + a 16-bit scale per 128 weights) / 8 = 0.515625 B";
        // H100 SXM: 989.4 TFLOP/s dense fp16 over 3.35 TB/s.
        QTest::newRow("H100 SXM fp16 ridge = 295.3 FLOP/B")
            << "h100-sxm"
            << "llama-2-7b"
            << ""
            << "ridge" << 989.4e12 / 3.35e12 << "= (989.4 TFLOP/s × 1) / (3.35 TB/s × 1)";
        // Decode at batch 1 of Llama 2 70B is memory-bound: its ffn.up reads 37.6 GB at 3.35 TB/s = 11.2 ms, against
        // 37.6 GFLOP at 989.4 TFLOP/s = 38 µs.
        QTest::newRow("Llama 2 70B ffn.up decode time = 11.22 ms")
            << "h100-sxm"
            << "llama-2-70b"
            << ""
            << "op:ffn.up:time" << 37586862080.0 / 3.35e12 << "= max(37.98 µs, 11.22 ms)";
    }

    void handCounts()
    {
        QFETCH(QString, hardware);
        QFETCH(QString, model);
        QFETCH(QString, flags);
        QFETCH(QString, field);
        QFETCH(double, expected);
        QFETCH(QString, substituted);
        const HardwareSpec &h = hw(qPrintable(hardware));
        const ModelShape &m = testpresets::model(qPrintable(model));
        const Scenario s = scenarioFrom(flags);
        const Derivation d = derive(h, m, s, analyze(h, m, s), field.toStdString());
        const QString text = QString::fromStdString(d.text());
        QVERIFY2(close(d.value, expected), qPrintable(QString::number(d.value, 'f', 3) + "\n" + text));
        QVERIFY2(text.contains(substituted), qPrintable(text));
    }

    void issueExampleReadsAsTheIssueWritesIt()
    {
        const HardwareSpec &h = hw("h100-sxm");
        const ModelShape &m = model("llama-2-70b");
        const Scenario s = scenarioFrom("--phase=prefill --seq=2048");
        const Derivation d = derive(h, m, s, analyze(h, m, s), "kv");
        QCOMPARE(d.field, std::string("kv_cache.total_bytes"));
        QCOMPARE(d.valueText, std::string("671 MB"));
        QCOMPARE(d.lines.front(),
                 std::string("KV bytes = 2 × layers × KV heads × head_dim × bytes per element × tokens × "
                             "sequences"));
        QCOMPARE(d.lines.back(), std::string("= 671,088,640 B (671 MB)"));
    }

    // Generate: TTFT is the prompt pass's operators (no communication on one device), and TTFT + (output − 1) ×
    // TPOT is the end-to-end time; decode has neither.
    void generateTtftAndTpot()
    {
        const HardwareSpec &h = hw("h100-sxm");
        const ModelShape &m = testpresets::model("llama-2-7b");
        const Scenario s = scenarioFrom("--phase=generate --seq=512 --output=64 --batch=8");
        const Analysis a = analyze(h, m, s);
        double prefill = 0;
        for (const Operator &op : a.operators)
            if (op.phase == Phase::Prefill)
                prefill += op.timeS;
        const Derivation ttft = derive(h, m, s, a, "ttft");
        QVERIFY(close(ttft.value, prefill));
        QVERIFY(close(ttft.value, a.phases.ttftS));
        const Derivation tpot = derive(h, m, s, a, "tpot");
        QVERIFY(close(ttft.value + 63 * tpot.value, a.totals.timeS));
        QVERIFY2(QString::fromStdString(tpot.text()).contains("the 63 decode steps"), tpot.text().c_str());
        const Scenario decode = scenarioFrom("--phase=decode");
        QVERIFY_THROWS_EXCEPTION(DerivationError, derive(h, m, decode, analyze(h, m, decode), "ttft"));
    }

    void generateNamesEachPhasesOperators()
    {
        const HardwareSpec &h = hw("h100-sxm");
        const ModelShape &m = model("llama-2-7b");
        const Scenario s = scenarioFrom("--phase=generate");
        const Analysis a = analyze(h, m, s);
        const std::vector<std::string> fields = derivationFields(a);
        for (const char *f : {"op:ffn.up@prefill:flops", "op:ffn.up@decode:time", "op:attn.score@decode:bound"})
            QVERIFY2(std::find(fields.begin(), fields.end(), f) != fields.end(), f);
        QVERIFY(std::find(fields.begin(), fields.end(), "op:ffn.up:flops") == fields.end());
        // The JSON's own names for an operator's figures are accepted too.
        QCOMPARE(derive(h, m, s, a, "op:ffn.up@decode:time_s").field, std::string("op:ffn.up@decode:time"));
    }

    void unknownFieldListsTheValidOnes_data()
    {
        QTest::addColumn<QString>("field");
        QTest::newRow("no such figure") << "speed";
        QTest::newRow("no such operator") << "op:ffn.sideways:flops";
        QTest::newRow("no such operator figure") << "op:ffn.up:colour";
        QTest::newRow("operator without figure") << "op:ffn.up";
        QTest::newRow("empty") << "";
    }

    void unknownFieldListsTheValidOnes()
    {
        QFETCH(QString, field);
        const HardwareSpec &h = hw("h100-sxm");
        const ModelShape &m = model("llama-2-7b");
        const Scenario s;
        const Analysis a = analyze(h, m, s);
        try {
            derive(h, m, s, a, field.toStdString());
            QFAIL("no error");
        } catch (const DerivationError &e) {
            const std::string what = e.what();
            QCOMPARE(what.find('\n'), std::string::npos);
            QVERIFY2(what.rfind("unknown field '" + field.toStdString() + "'; valid fields: time, tokens_per_s, ", 0) ==
                         0,
                     what.c_str());
            QVERIFY2(what.find("kv_cache.total_bytes") != std::string::npos, what.c_str());
            QVERIFY2(what.find("op:NAME:flops|bytes|intensity|time|bound with NAME one of embed, attn.norm,") !=
                         std::string::npos,
                     what.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TstDerivation)
#include "tst_derivation.moc"
