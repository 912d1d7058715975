// The command-line contract (README, "The command line"): fields, exit codes and one-line errors.
#include "../runmemwall.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include <sys/resource.h>

namespace {
struct Run
{
    int code = -1;
    QByteArray out, err;
};

Run memwall(const QStringList &args)
{
    testprocess::RunOptions o;
    o.noUserData = true; // no per-user presets
    const testprocess::Run r = testprocess::runMemwall(args, o);
    return {r.exitCode, r.out, r.err};
}

QJsonValue at(const QJsonObject &o, const QString &path)
{
    QJsonValue v = o;
    for (const QString &k : path.split('.'))
        v = v.toObject().value(k);
    return v;
}
} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(!qgetenv("MEMWALL_MEMWALL_EXE").isEmpty(), "MEMWALL_MEMWALL_EXE not set"); }

    // First, so that no earlier child raises the children's peak: a 65,536-point sweep is written row by row, so its
    // memory stays that of one row (about 20 MB in all), where the list of rows as JSON took hundreds of megabytes.
    void largeSweepIsStreamed()
    {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("AddressSanitizer's shadow memory and quarantine dwarf the sweep's own memory");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
        QSKIP("AddressSanitizer's shadow memory and quarantine dwarf the sweep's own memory");
#endif
#endif
        QProcess p;
        p.setProgram(QString::fromLocal8Bit(qgetenv("MEMWALL_MEMWALL_EXE")));
        p.setArguments(
            {"sweep", "--model", "llama-2-7b", "--vary", "batch=1:16384:1", "--vary", "tp=1,2,4,8", "--json"});
        p.setStandardOutputFile(QProcess::nullDevice());
        p.start();
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        rusage usage{};
        QCOMPARE(getrusage(RUSAGE_CHILDREN, &usage), 0);
        QVERIFY2(usage.ru_maxrss < 100 * 1024, qPrintable(QString("peak %1 kB").arg(usage.ru_maxrss))); // kB on Linux
    }

    void namesFromFilesCannotDriveTheTerminal()
    {
        // A config.json whose name holds an escape sequence (retitle the terminal, then "fits") and a right-to-left
        // override: the text output shows them escaped, so nothing in it is a control or bidi character.
        QFile src(QStringLiteral(MEMWALL_SOURCE_DIR) + "/tests/data/configs/Llama-2-7b-hf.json");
        QVERIFY(src.open(QIODevice::ReadOnly));
        QJsonObject config = QJsonDocument::fromJson(src.readAll()).object();
        config["_name_or_path"] = QString("evil/\x1b]0;pwned\x07"
                                          "fits\u202etxt.exe");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile out(dir.filePath("config.json"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(config).toJson());
        out.close();
        const Run r = memwall({"analyze", "--model-config", out.fileName()});
        QCOMPARE(r.code, 0);
        QVERIFY(!r.out.contains('\x1b') && !r.out.contains('\x07'));
        QVERIFY(!r.out.contains("\xe2\x80\xae"));
        QVERIFY2(r.out.contains("\\x1b]0;pwned\\x07fits\\u202etxt.exe"), r.out.left(300).constData());
    }

    void analyzeJsonHasContractFields()
    {
        const Run r =
            memwall({"analyze", "--hardware", "a100-80gb-sxm", "--model", "llama-2-7b", "--context", "1024", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        for (const char *path : {"hardware.id", "model.id", "totals.bound"})
            QVERIFY2(at(o, path).isString(), path);
        for (const char *path :
             {"model.params", "model.weight_bytes", "kv_cache.bytes_per_token", "kv_cache.total_bytes",
              "memory.weights_bytes", "memory.kv_bytes", "memory.activation_bytes", "memory.total_bytes_per_device",
              "memory.capacity_bytes", "totals.flops", "totals.bytes", "totals.arithmetic_intensity", "totals.time_s",
              "totals.tokens_per_s", "parallelism.tp", "parallelism.pp", "parallelism.dp", "parallelism.comm_bytes",
              "parallelism.comm_time_s"})
            QVERIFY2(at(o, path).isDouble(), path);
        QVERIFY(at(o, "memory.fits").isBool());
        QCOMPARE(at(o, "model.params").toDouble(), 6738415616.0);
        QCOMPARE(at(o, "kv_cache.bytes_per_token").toDouble(), 524288.0);
        QCOMPARE(at(o, "scenario.context").toInt(), 1024);
        double time = at(o, "parallelism.comm_time_s").toDouble();
        QStringList names;
        for (const QJsonValue &op : o.value("operators").toArray()) {
            time += op.toObject().value("time_s").toDouble();
            names << op.toObject().value("name").toString();
        }
        QVERIFY(qAbs(time - at(o, "totals.time_s").toDouble()) <= 1e-9 * time);
        for (const char *n :
             {"embed", "attn.qkv_proj", "attn.score", "attn.softmax", "ffn.down", "final_norm", "lm_head"})
            QVERIFY2(names.contains(n), n);
    }

    void analyzeTextUsesDecimalUnits()
    {
        // The text report writes bytes in decimal units and times with prefixes (core/util/format.h). Llama 2 7B fp16
        // on an A100 80GB: 6,738,415,616 parameters x 2 B = 13,476,831,232 B = 13.5 GB of weights; the KV cache holds
        // 2 x 32 layers x 4096 x 2 B = 524,288 B = 524 kB per token; 80e9 B of HBM = 80 GB.
        const Run r = memwall({"analyze", "--hardware", "a100-80gb-sxm", "--model", "llama-2-7b", "--context", "1024"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("memory per device: weights 13.5 GB + KV "), r.out.constData());
        QVERIFY2(r.out.contains(" of 80 GB: fits\n"), r.out.constData());
        QVERIFY2(r.out.contains("KV cache: 524 kB per token, "), r.out.constData());
        QVERIFY2(!r.out.contains("e-0") && !r.out.contains("e+0"), r.out.constData()); // no exponent anywhere
    }

    void analyzeTextNamesTheExpertsFormatAndAlignsLongNames()
    {
        // DeepSeek-V3's preset keeps its checkpoint's FP8 block-scaled experts (128 x 128 blocks = 16,384 weights a
        // float32 scale) when --weights sets the rest: the text says so rather than showing only the weights' format.
        const Run r =
            memwall({"analyze", "--model", "deepseek-v3", "--hardware", "h200-sxm", "--tp", "8", "--weights", "nvfp4"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("routed experts: stored as fp8/g16384/fp32, not as the weights"), r.out.constData());
        const Run same = memwall({"analyze", "--model", "deepseek-v3", "--hardware", "h200-sxm", "--tp", "8",
                                  "--weights", "nvfp4", "--expert-weights", "same"});
        QVERIFY2(!same.out.contains("routed experts:"), same.out.constData());
        // Gemma 4's attn.global_qkv_proj (20 characters) widens the name column: the class starts after one space.
        const Run g = memwall({"analyze", "--model", "gemma-4-31b"});
        QCOMPARE(g.code, 0);
        QVERIFY2(g.out.contains("attn.global_qkv_proj matmul "), g.out.constData());
        QVERIFY2(g.out.contains("\noperator             class "), g.out.constData());
    }

    void analyzeTextSaysWhatTheAchievableRestsOn()
    {
        // B300 has aiconfigurator's GEMM sweeps but no published copy-bandwidth measurement (issue #37): the text says
        // which half is the datasheet's. GB200 has both (its HBM copy measured on Azure ND GB200 v6), so no line.
        const QStringList args{"analyze", "--model", "llama-3-70b", "--tp", "8", "--efficiency", "achievable"};
        const Run b300 = memwall(args + QStringList{"--hardware", "b300"});
        QCOMPARE(b300.code, 0);
        QVERIFY2(b300.out.contains("has only some microbenchmarks: no copy-bandwidth measurement, so its memory-bound "
                                   "operators run at the datasheet bandwidth\n"),
                 b300.out.constData());
        const Run gb200 = memwall(args + QStringList{"--hardware", "gb200-nvl72"});
        QCOMPARE(gb200.code, 0);
        QVERIFY2(!gb200.out.contains("microbenchmarks"), gb200.out.constData());
    }

    void analyzeTextNamesTheMlaModuleTable()
    {
        // DeepSeek-V3's decode on an H200 in FP8 reads the measured MLA module (issue #37); the JSON names the table
        // and the text says so. On a device without the table, neither.
        const QStringList args{"analyze", "--model", "deepseek-v3", "--batch",      "32",        "--weights",
                               "fp8",     "--kv",    "bf16",        "--efficiency", "achievable"};
        const Run h200 = memwall(args + QStringList{"--hardware", "h200-sxm"});
        QCOMPARE(h200.code, 0);
        QVERIFY2(h200.out.contains("MLA layers in decode: timed from the device's measured attention module "
                                   "(fp8_block/bfloat16 table), at "),
                 h200.out.constData());
        const Run json = memwall(args + QStringList{"--hardware", "h200-sxm", "--json"});
        QCOMPARE(at(QJsonDocument::fromJson(json.out).object(), "efficiency.mla_table").toString(),
                 QString("fp8_block/bfloat16"));
        const Run mi300x = memwall(args + QStringList{"--hardware", "mi300x"});
        QCOMPARE(mi300x.code, 0);
        QVERIFY2(!mi300x.out.contains("MLA layers in decode"), mi300x.out.constData());
    }

    void analyzeTextRequestIsTheServedOne()
    {
        // With engine admission (a token budget per step) the request line gives the admitted request, as --json's
        // request does, and the batch-at-once figures beside it; without a serving option, only the plain ones.
        const QStringList args{"analyze", "--model",  "gpt-oss-120b", "--hardware", "h200-sxm", "--batch", "64",
                               "--phase", "generate", "--seq",        "1024",       "--output", "1024"};
        const Run admitted = memwall(args + QStringList{"--max-batched-tokens", "2624"});
        QCOMPARE(admitted.code, 0);
        const Run json = memwall(args + QStringList{"--max-batched-tokens", "2624", "--json"});
        const QJsonObject o = QJsonDocument::fromJson(json.out).object();
        QVERIFY(at(o, "request.ttft_s").toDouble() < 0.5 * at(o, "request.plain_ttft_s").toDouble());
        const QList<QByteArray> lines = admitted.out.split('\n');
        const auto request =
            std::find_if(lines.begin(), lines.end(), [](const QByteArray &l) { return l.startsWith("request: "); });
        QVERIFY(request != lines.end());
        QVERIFY2(request->contains(" (the whole batch prefilled at once, then decoded: "), request->constData());
        QVERIFY2(admitted.out.contains("  plain (the batch prefilled at once): time to first token "),
                 admitted.out.constData());
        const Run plain = memwall(args);
        QVERIFY2(!plain.out.contains("prefilled at once"), plain.out.constData());
    }

    void analyzeNotesPositionsPastTheModels()
    {
        // GPT-2 learned 1,024 positions: decode at context 1,024 reaches position 1,025 (tst_explain pins the rule).
        const QByteArray note = "Note: this run reaches position 1,025, past the 1,024 positions GPT-2 (124M) learned; "
                                "it has no position embedding beyond them.\n";
        const Run past = memwall({"analyze", "--model", "gpt2", "--context", "1024"});
        QCOMPARE(past.code, 0);
        QVERIFY2(past.out.contains(note), past.out.constData());
        const Run json = memwall({"analyze", "--model", "gpt2", "--context", "1024", "--json"});
        const QJsonObject o = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(at(o, "position_note").toString().toUtf8() + "\n", note);
        QCOMPARE(at(o, "model.max_positions").toDouble(), 1024.0);
        // Within the positions: no line, and null.
        const Run within = memwall({"analyze", "--model", "gpt2", "--context", "1000"});
        QVERIFY2(!within.out.contains("Note:"), within.out.constData());
        const Run withinJson = memwall({"analyze", "--model", "gpt2", "--context", "1000", "--json"});
        QVERIFY(at(QJsonDocument::fromJson(withinJson.out).object(), "position_note").isNull());
    }

    void presetsJsonListsLibraries()
    {
        const Run r = memwall({"presets", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QVERIFY(o.value("hardware").toArray().size() >= 16);
        QVERIFY(o.value("models").toArray().size() >= 25);
        const QJsonObject first = o.value("models").toArray().first().toObject();
        QVERIFY(first.value("id").isString() && first.value("name").isString() && first.value("params").isDouble());
    }

    // `memwall validate`: every built-in run analysed, the ideal a bound, and a broken run file refused in one line.
    void validateHoldsThePredictionsAgainstRuns()
    {
        const Run r = memwall({"validate", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QJsonArray runs = o.value("runs").toArray();
        QVERIFY(runs.size() >= 6);
        const QJsonObject first = runs.first().toObject();
        QVERIFY(first.value("measured").toDouble() > 0 && first.value("achievable").toDouble() > 0);
        QVERIFY(first.value("source").toString().contains("gpt-fast"));
        const QJsonObject summary = o.value("summary").toObject();
        QCOMPARE(summary.value("failed").toInt(), 0);
        QCOMPARE(summary.value("ideal_not_slower").toDouble(), 1.0);
        QVERIFY(summary.value("median_error").toDouble() > 0);

        QTemporaryDir dir;
        const QString bad = dir.filePath("runs.json");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"kind": "validation", "runs": [{"id": "x", "metric": "speed"}]})");
        f.close();
        const Run e = memwall({"validate", "--runs", bad});
        QCOMPARE(e.code, 1);
        const QString err = QString::fromUtf8(e.err).trimmed();
        QVERIFY2(err.contains(bad + ": runs[0].") && !err.contains('\n'), qPrintable(err));
    }

    void visionEncoderEncodesItsPatches()
    {
        // Without --phase and --seq, ViT-L/32 encodes one image: its 49 patches and the class token. Given, they stay.
        const Run image = memwall({"analyze", "--model", "vit-large-patch32-224", "--json"});
        QCOMPARE(image.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(image.out).object();
        QCOMPARE(at(o, "scenario.phase").toString(), QString("encode"));
        QCOMPARE(at(o, "scenario.seq").toDouble(), 50.0);
        const Run asked = memwall({"analyze", "--model", "vit-large-patch32-224", "--seq", "20", "--json"});
        QCOMPARE(at(QJsonDocument::fromJson(asked.out).object(), "scenario.seq").toDouble(), 20.0);
        const Run text = memwall({"analyze", "--model", "bert-base-uncased", "--json"});
        QCOMPARE(at(QJsonDocument::fromJson(text.out).object(), "scenario.seq").toDouble(), 2048.0);
    }

    void trendsShowThePaperAndTheRefits()
    {
        // The paper's fits, and beside them the refits with the devices MemWall adds after its data (pinned in
        // tests/core/tst_trends.cpp): x3.03 and x1.59 per 2 years in the paper's points, x2.95 and x1.68 with them.
        const Run text = memwall({"trends"});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains("3.03x") && text.out.contains("1.59x"), text.out.constData());
        QVERIFY2(text.out.contains("hw_peak_flops           2.95x per 2 years, r2 0.947, 51 points with 14 added: "
                                   "h200-sxm, mi300x"),
                 text.out.constData());
        QVERIFY(text.out.contains("dram_bandwidth          1.68x per 2 years, r2 0.899, 26 points with 14 added"));
        const Run json = memwall({"trends", "--json"});
        QCOMPARE(json.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out).object();
        const QJsonObject flops = o["series"].toArray().first().toObject();
        QCOMPARE(flops["id"].toString(), QString("hw_peak_flops"));
        QCOMPARE(flops["added_points"].toArray().size(), 14);
        QCOMPARE(QString::number(flops["refit"].toObject()["factor_per_2_years"].toDouble(), 'f', 4),
                 QString("2.9454"));
    }

    void sweepFindsTheComputeBoundBatch()
    {
        const Run r = memwall({"sweep", "--hardware", "h100-sxm", "--model", "llama-2-7b", "--context", "512", "--vary",
                               "batch=1:4096", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QJsonArray rows = o.value("rows").toArray();
        QCOMPARE(rows.size(), 13);
        QCOMPARE(rows.first().toObject().value("batch").toInt(), 1);
        QVERIFY(rows.first().toObject().value("totals").toObject().value("time_s").toDouble() > 0);
        // The weight matmuls turn compute-bound near the ridge (~295 FLOP/byte on H100 FP16 = batch ~300), while
        // attention over 512 cached tokens per sequence keeps the whole step memory-bound (MHA: no GQA saving).
        QCOMPARE(o.value("answers").toObject().value("first_compute_bound_batch").toInt(), 0);
        const int first = o.value("answers").toObject().value("linear_layers_compute_bound_batch").toInt();
        QVERIFY2(first >= 128 && first <= 1024, qPrintable(QString::number(first)));
    }

    void searchJsonHasTheFront()
    {
        const Run r = memwall({"search", "--model", "llama-3-70b", "--devices", "h100-sxm,h200-sxm,b200,mi300x",
                               "--max-tpot-ms", "50", "--efficiency", "achievable", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QVERIFY(o.value("evaluated").toDouble() > 1000);
        QVERIFY(o.value("seconds").toDouble() > 0);
        QVERIFY(o.value("cost_objective").toBool()); // all four have an hourly price
        const QJsonArray front = o.value("pareto").toArray();
        QVERIFY(!front.isEmpty());
        double lastPerUser = 0;
        for (const QJsonValue &v : front) {
            const QJsonObject p = v.toObject();
            for (const char *field : {"tokens_per_s_per_device", "tokens_per_s_per_user", "ttft_s", "tpot_s",
                                      "usd_per_million_tokens", "devices", "tpot_floor_s"})
                QVERIFY2(p.value(field).toDouble() > 0, field);
            QVERIFY(p.value("tpot_s").toDouble() <= 0.050);
            QVERIFY(p.value("tpot_floor_s").toDouble() < p.value("tpot_s").toDouble());
            QCOMPARE(p.value("phase").toString(), QString("generate"));
            QCOMPARE(p.value("efficiency").toString(), QString("achievable"));
            // A copy's devices times its replicas; disaggregated, both pools ("51:13": 64 devices).
            const QStringList pools = p.value("disaggregate").toString().split(QLatin1Char(':'));
            QCOMPARE(p.value("devices").toInt(), pools.size() == 2 ? pools[0].toInt() + pools[1].toInt()
                                                                   : p.value("tp").toInt() * p.value("pp").toInt() *
                                                                         p.value("ep").toInt() * p.value("dp").toInt());
            QVERIFY(p.value("tokens_per_s_per_user").toDouble() >= lastPerUser);
            lastPerUser = p.value("tokens_per_s_per_user").toDouble();
        }
        QVERIFY(!o.contains("nearest"));
    }

    void searchNamesTheNearestMiss()
    {
        const Run r = memwall({"search", "--model", "llama-3-70b", "--devices", "h100-sxm", "--max-devices", "8",
                               "--max-tpot-ms", "0.5"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("no configuration meets the targets; nearest: h100-sxm x8") &&
                     r.out.contains("over 0.5 ms"),
                 r.out.constData());
        const Run csv =
            memwall({"search", "--model", "llama-3-8b", "--devices", "h100-sxm", "--max-devices", "2", "--csv"});
        QCOMPARE(csv.code, 0);
        QVERIFY(csv.out.startsWith("hardware,devices,tp,pp,ep,dp,batch,precision,kv,ttft_s,tpot_s,"));
        QVERIFY(csv.out.count('\n') >= 3);
    }

    void sweepCsvHasHeader()
    {
        const Run r = memwall({"sweep", "--model", "llama-2-7b", "--vary", "batch=1,2,4", "--csv"});
        QCOMPARE(r.code, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        QVERIFY(lines[0].startsWith("batch,time_s,"));
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown preset names the closest")
            << QStringList{"analyze", "--hardware", "h100"} << 2
            << "memwall analyze: unknown hardware 'h100' (closest: h100-sxm, h100-pcie, b200)";
        QTest::newRow("non-number batch") << QStringList{"analyze", "--batch", "many"} << 2
                                          << "memwall analyze: --batch: 'many' is not a whole number";
        QTest::newRow("zero batch") << QStringList{"analyze", "--batch", "0"} << 2
                                    << "memwall analyze: --batch: must be between 1 and 16777216, got 0";
        QTest::newRow("negative batch") << QStringList{"analyze", "--batch", "-3"} << 2
                                        << "memwall analyze: --batch: must be between 1 and 16777216, got -3";
        QTest::newRow("unknown option") << QStringList{"analyze", "--bogus"} << 2
                                        << "memwall analyze: unknown option '--bogus' (try --help)";
        QTest::newRow("tp not dividing heads")
            << QStringList{"analyze", "--model", "llama-65b", "--tp", "3"} << 1
            << "memwall analyze: tp 3 does not divide the 64 attention heads of llama-65b";
        QTest::newRow("missing config file")
            << QStringList{"analyze", "--model-config", "/nonexistent/config.json"} << 1
            << "memwall: /nonexistent/config.json: cannot read file: No such file or directory";
        QTest::newRow("unknown command") << QStringList{"analyse"} << 2
                                         << "memwall: unknown command 'analyse' (analyze, sweep, search, export, "
                                            "presets, trends, measure, validate; try --help)";
        QTest::newRow("search: unknown device")
            << QStringList{"search", "--devices", "h100-sxm,h100"} << 2
            << "memwall search: --devices: unknown hardware 'h100' (closest: h100-sxm, h100-pcie, b200)";
        QTest::newRow("search: not a precision")
            << QStringList{"search", "--precisions", "fp16,fp7"} << 2
            << "memwall search: --precisions: 'fp7' is not a format (fp16, fp8, int4/g128, nvfp4, int4/g128:fp8, ...)";
        QTest::newRow("search: a phase") << QStringList{"search", "--phase", "decode"} << 2
                                         << "memwall search: --phase: a search always analyses whole requests "
                                            "(generate: --seq prompt tokens, then --output tokens)";
        QTest::newRow("search: budget") << QStringList{"search", "--max-devices", "0"} << 2
                                        << "memwall search: --max-devices: must be between 1 and 4096, got 0";
        QTest::newRow("link: out of range") << QStringList{"analyze", "--scenario", "memwall:?v=1&batch=0"} << 1
                                            << "memwall: link: batch: must be between 1 and 16777216, got 0";
        QTest::newRow("link: unknown preset")
            << QStringList{"sweep", "memwall:?hardware=h100", "--vary", "batch=1:4"} << 1
            << "memwall: link: hardware: unknown hardware 'h100' (closest: h100-sxm, h100-pcie, b200)";
        QTest::newRow("link: the window needs a display")
            << QStringList{"memwall:?v=1&batch=8"} << 2
            << "memwall: the window needs a display: neither DISPLAY nor WAYLAND_DISPLAY is set (the commands need "
               "none: memwall --help)";
        QTest::newRow("bad sweep range") << QStringList{"sweep", "--vary", "batch=8:1"} << 2
                                         << "memwall sweep: --vary batch=8:1: FROM is larger than TO";
    }
    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, message);
        const Run r = memwall(args);
        QCOMPARE(r.code, code);
        QCOMPARE(QString::fromUtf8(r.err).trimmed(), message);
        QVERIFY(r.out.isEmpty());
    }

    void malformedConfigIsOneLine()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("config.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n  oops\n}\n");
        f.close();
        const Run r = memwall({"analyze", "--model-config", path});
        QCOMPARE(r.code, 1);
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(err.startsWith("memwall: " + path + ":4:"), qPrintable(err));
        QVERIFY(!err.contains('\n'));
    }

    void scenarioRoundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("s.memwall.json");
        const Run saved = memwall({"analyze", "--hardware", "h100-sxm", "--model", "llama-2-70b", "--tp", "4",
                                   "--batch", "16", "--weights", "int4/g128", "--save-scenario", path, "--json"});
        QCOMPARE(saved.code, 0);
        const Run loaded = memwall({"analyze", "--scenario", path, "--json"});
        QCOMPARE(loaded.code, 0);
        QCOMPARE(QJsonDocument::fromJson(loaded.out), QJsonDocument::fromJson(saved.out));
    }

    /// A memwall: link takes the place of a scenario file (issue #41): `--scenario LINK` or the link alone.
    void linkOpensLikeTheScenarioFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("s.memwall.json");
        const Run saved = memwall({"analyze", "--hardware", "h100-sxm", "--model", "llama-2-70b", "--tp", "4",
                                   "--batch", "16", "--weights", "int4/g128", "--save-scenario", path, "--json"});
        QCOMPARE(saved.code, 0);
        const Run file = memwall({"analyze", "--scenario", path, "--json"});
        QCOMPARE(file.code, 0);
        const QString link = "memwall:?v=1&hardware=h100-sxm&model=llama-2-70b&batch=16&weights=int4/g128&tp=4";
        const Run byOption = memwall({"analyze", "--scenario", link, "--json"});
        QCOMPARE(byOption.code, 0);
        QCOMPARE(QJsonDocument::fromJson(byOption.out), QJsonDocument::fromJson(file.out));
        const Run alone = memwall({"analyze", link, "--json"});
        QCOMPARE(alone.code, 0);
        QCOMPARE(QJsonDocument::fromJson(alone.out), QJsonDocument::fromJson(file.out));
        // Options after the link override it, as after a file.
        const Run changed = memwall({"analyze", "--scenario", link, "--batch", "2", "--json"});
        QCOMPARE(at(QJsonDocument::fromJson(changed.out).object(), "scenario.batch").toInt(), 2);
    }

    void versionAndHelp()
    {
        QVERIFY(memwall({"--version"}).out.startsWith("memwall "));
        const Run h = memwall({"analyze", "--help"});
        QCOMPARE(h.code, 0);
        QVERIFY(h.out.contains("--phase"));
        QVERIFY(h.out.contains("--explain FIELD"));
    }

    // `analyze --explain FIELD`: the derivation of one figure instead of the table (docs/derivations.md).
    void explainPrintsTheDerivation()
    {
        // Decode at context 2048 caches the step's new token too: 2 x 80 x 8 x 128 x 2 B x 2049 = 671,416,320 B.
        const Run r = memwall({"analyze", "--model", "llama-2-70b", "--hardware", "h100-sxm", "--phase", "decode",
                               "--context", "2048", "--explain", "kv"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.err.isEmpty());
        QCOMPARE(QString::fromUtf8(r.out),
                 QString("KV cache of all sequences (one replica, whole model)\n"
                         "  KV bytes = 2 × layers × KV heads × head_dim × bytes per element × tokens × sequences\n"
                         "  = 2 × 80 layers × 8 KV heads × 128 × 2 B (fp16) × 2049 tokens (context 2048 + 1 new "
                         "token) × 1 sequence\n"
                         "  = 671,416,320 B (671 MB)\n"));
    }

    void explainEndsInTheJsonFigure_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("path"); // in analyze --json
        QTest::newRow("time") << "time"
                              << "totals.time_s";
        QTest::newRow("kv_cache.bytes_per_token") << "kv_cache.bytes_per_token"
                                                  << "kv_cache.bytes_per_token";
        QTest::newRow("weights") << "weights"
                                 << "model.weight_bytes";
        QTest::newRow("memory") << "memory"
                                << "memory.total_bytes_per_device";
        QTest::newRow("ridge") << "ridge"
                               << "hardware.ridge_flops_per_byte";
    }
    void explainEndsInTheJsonFigure()
    {
        QFETCH(QString, field);
        QFETCH(QString, path);
        const QStringList scenario{"analyze", "--model", "llama-2-70b", "--batch",  "8",
                                   "--tp",    "2",       "--weights",   "int4/g128"};
        const Run plain = memwall(scenario + QStringList{"--json"});
        const Run explained = memwall(scenario + QStringList{"--explain", field, "--json"});
        QCOMPARE(explained.code, 0);
        const QJsonObject d = QJsonDocument::fromJson(explained.out).object();
        QCOMPARE(d.value("field").toString(), path);
        QVERIFY(d.value("lines").toArray().size() >= 2);
        const double expected = at(QJsonDocument::fromJson(plain.out).object(), path).toDouble();
        QVERIFY(expected > 0);
        QCOMPARE(d.value("value").toDouble(), expected);
    }

    void explainUnknownFieldListsTheValidOnes()
    {
        const Run r = memwall({"analyze", "--model", "llama-2-7b", "--explain", "speed"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(err.startsWith("memwall analyze: --explain: unknown field 'speed'; valid fields: time, tokens_per_s, "
                                "flops, bytes, intensity, bound, ridge, kv, kv_per_token, weights, memory, "
                                "totals.time_s, "),
                 qPrintable(err));
        QVERIFY2(err.contains("op:NAME:flops|bytes|intensity|time|bound with NAME one of embed, attn.norm, "),
                 qPrintable(err));
        QVERIFY(!err.contains('\n'));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
