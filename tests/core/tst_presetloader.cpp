// Tests for core/io/presets: bad preset files give one exact line naming file, field and value; broken files are
// skipped (PresetLibrary::issues()) while the rest load; a later file overrides an earlier one with the same id.
//
// Conventions pinned here:
// - An issue's message is one line "FILE: FIELD.PATH: what is wrong (value)", FILE as given to loadText() or the
//   path found by loadDirectory().
// - A broken file changes nothing: a preset with the same id loaded before stays as it was.
// - Memory levels run fastest/smallest first: each level larger and slower than the one before (host excepted for
//   capacity).

#include "core/io/jsonreader.h"
#include "core/io/presets.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

/// One change to a valid preset, as a data column.
using Edit = std::function<void(nlohmann::json &)>;
Q_DECLARE_METATYPE(Edit)

namespace memwall::core {

using nlohmann::json;

namespace {

json sourced(double v) { return json{{"value", v}, {"source", "test"}}; }

/// One row of a preset-error table: the edit that breaks a valid preset and the one-line error it must give.
void errorRow(const char *name, const Edit &edit, const char *error) { QTest::newRow(name) << edit << QString(error); }

/// A small valid hardware preset to break.
json baseHardware()
{
    return json{{"kind", "hardware"},
                {"schema", 1},
                {"id", "test-gpu"},
                {"name", "Test GPU"},
                {"vendor", "Test"},
                {"category", "gpu"},
                {"year", sourced(2020)},
                {"tdp_w", sourced(300)},
                {"peak_flops", {{"fp16", sourced(1e14)}, {"int8", sourced(2e14)}}},
                {"memory", json::array({{{"name", "L2"},
                                         {"kind", "cache"},
                                         {"capacity_bytes", sourced(4e7)},
                                         {"bandwidth_bytes_per_s", sourced(5e12)}},
                                        {{"name", "HBM"},
                                         {"kind", "dram"},
                                         {"capacity_bytes", sourced(4e10)},
                                         {"bandwidth_bytes_per_s", sourced(1.5e12)}}})},
                {"interconnects", json::array({{{"name", "Link"},
                                                {"bandwidth_bytes_per_s", sourced(1e11)},
                                                {"latency_s", sourced(5e-6)},
                                                {"max_devices", 8}}})}};
}

/// A small valid model preset (an inline shape) to break.
json baseModel()
{
    return json{{"kind", "model"},
                {"schema", 1},
                {"id", "test-model"},
                {"name", "Test Model"},
                {"shape", {{"layers", 2}, {"hidden", 64}, {"heads", 4}, {"ffn", 256}, {"vocab", 1000}}},
                {"source", "test"}};
}

/// The one issue loading `text` as FILE "t.json" leaves (or a marker if it loaded).
QString issueOf(const std::string &text)
{
    PresetLibrary lib;
    if (lib.loadText(text, "t.json"))
        return QStringLiteral("<loaded>");
    if (lib.issues().size() != 1)
        return QStringLiteral("<%1 issues>").arg(lib.issues().size());
    if (lib.issues().front().file != "t.json")
        return QStringLiteral("<issue for the wrong file>");
    return QString::fromStdString(lib.issues().front().message);
}

void writeFile(const QString &path, const std::string &text)
{
    std::filesystem::create_directories(std::filesystem::path(path.toStdString()).parent_path());
    std::ofstream(path.toStdString(), std::ios::binary) << text;
}

} // namespace

class TestPresetLoader : public QObject
{
    Q_OBJECT

private slots:
    void basesLoad();
    void hardwareListedByVendorThenYear();
    void hardwareErrors_data();
    void hardwareErrors();
    void achievableErrors_data();
    void achievableErrors();
    void modelErrors_data();
    void modelErrors();
    void shapeErrorsNameTheirFields_data();
    void shapeErrorsNameTheirFields();
    void textErrors_data();
    void textErrors();
    void laterOverridesEarlier();
    void duplicateIdsAreNamed();
    void brokenFileLeavesEarlierPreset();
    void brokenFileAmongGoodOnesIsSkipped();
    void fileOverSizeLimitIsSkipped();
    void missingFolder();
};

void TestPresetLoader::basesLoad()
{
    PresetLibrary lib;
    QVERIFY(lib.loadText(baseHardware().dump(), "hw.json"));
    QVERIFY(lib.loadText(baseModel().dump(), "m.json"));
    QVERIFY(lib.issues().empty());
    QVERIFY(lib.findHardware("test-gpu"));
    QCOMPARE(lib.findHardware("test-gpu")->memory.size(), std::size_t(2));
    QVERIFY(lib.findModel("test-model"));
    QCOMPARE(lib.findModel("test-model")->shape.layers, int64_t(2));

    // A device whose only microbenchmark is a quantize sweep keeps it when written and read back.
    json quantizeOnly = baseHardware();
    quantizeOnly["id"] = "quantize-only";
    quantizeOnly["achievable"] = {
        {"fp8_quantize",
         {{"static", {{"source", "hand-made"}, {"points", json::array({{{"elements", 8192}, {"s", 2e-6}}})}}}}}};
    QVERIFY(lib.loadText(quantizeOnly.dump(), "q.json"));
    QVERIFY(lib.loadText(toJson(*lib.findHardware("quantize-only")).dump(), "q2.json"));
    const AchievableModel &read = lib.findHardware("quantize-only")->achievable;
    QVERIFY(read.quantizeStatic && !read.quantizeDynamic);
    QCOMPARE(read.quantizeStatic->points.front().second, 2e-6);
}

void TestPresetLoader::hardwareErrors_data()
{
    QTest::addColumn<Edit>("edit");
    QTest::addColumn<QString>("error");

    const auto row = errorRow;
    row(
        "unknown key", [](json &j) { j["colour"] = "green"; }, "t.json: colour: unknown field");
    row(
        "unknown key in a memory level", [](json &j) { j["memory"][1]["latency"] = 1; },
        "t.json: memory[1].latency: unknown field");
    row(
        "wrong type: string for an object", [](json &j) { j["tdp_w"] = "300"; },
        "t.json: tdp_w: expected an object, got \"300\"");
    row(
        "wrong type: string for a number", [](json &j) { j["tdp_w"]["value"] = "300"; },
        "t.json: tdp_w.value: expected a number, got \"300\"");
    row(
        "wrong type: object for an array", [](json &j) { j["memory"] = json::object(); },
        "t.json: memory: expected an array, got {}");
    row(
        "negative value", [](json &j) { j["tdp_w"]["value"] = -5; }, "t.json: tdp_w.value: must be positive, got -5");
    row(
        "zero value", [](json &j) { j["peak_flops"]["fp16"]["value"] = 0; },
        "t.json: peak_flops.fp16.value: must be positive, got 0");
    row(
        "zero capacity", [](json &j) { j["memory"][0]["capacity_bytes"]["value"] = 0.0; },
        "t.json: memory[0].capacity_bytes.value: must be positive, got 0.0");
    row(
        "levels out of order: capacity", [](json &j) { j["memory"][1]["capacity_bytes"]["value"] = 1e7; },
        "t.json: memory[1].capacity_bytes: levels out of order: capacity 10000000.0 is not larger than the previous "
        "level's 40000000.0");
    row(
        "levels out of order: bandwidth", [](json &j) { j["memory"][1]["bandwidth_bytes_per_s"]["value"] = 6e12; },
        "t.json: memory[1].bandwidth_bytes_per_s: levels out of order: bandwidth 6000000000000.0 is not lower than "
        "the previous level's 5000000000000.0");
    row(
        "missing source", [](json &j) { j["year"].erase("source"); }, "t.json: year.source: missing");
    row(
        "empty source", [](json &j) { j["memory"][0]["bandwidth_bytes_per_s"]["source"] = "  "; },
        "t.json: memory[0].bandwidth_bytes_per_s.source: must not be empty");
    row(
        "unknown dtype key", [](json &j) { j["peak_flops"]["fp12"] = sourced(1e12); },
        "t.json: peak_flops.fp12: unknown number format (use fp64, fp32, tf32, bf16, fp16, fp8, fp6, fp4, int8, int4)");
    row(
        "dtype alias is not a key", [](json &j) { j["peak_flops"]["float16"] = sourced(1e12); },
        "t.json: peak_flops.float16: unknown number format (use fp64, fp32, tf32, bf16, fp16, fp8, fp6, fp4, int8, "
        "int4)");
    row(
        "no peak at all", [](json &j) { j["peak_flops"] = json::object(); },
        "t.json: peak_flops: needs at least one number format");
    row(
        "unknown memory kind", [](json &j) { j["memory"][1]["kind"] = "hbm"; },
        "t.json: memory[1].kind: must be sram, cache, dram, host or storage, got \"hbm\"");
    row(
        "bad id", [](json &j) { j["id"] = "Test GPU"; },
        "t.json: id: must be lower-case letters, digits and dashes, got \"Test GPU\"");
    row(
        "bad category", [](json &j) { j["category"] = "fpga"; },
        "t.json: category: must be gpu, cpu, asic or wafer-scale, got \"fpga\"");
    // Finite and positive is not enough: 1e308 FLOP/s crashed the charts, 5e-324 B/s printed inf and nan.
    row(
        "absurd peak", [](json &j) { j["peak_flops"]["fp16"]["value"] = 1e308; },
        "t.json: peak_flops.fp16.value: must be between 1000000.0 and 1e+19 FLOP/s, got 1e+308");
    row(
        "absurd bandwidth", [](json &j) { j["memory"][0]["bandwidth_bytes_per_s"]["value"] = 5e-324; },
        "t.json: memory[0].bandwidth_bytes_per_s.value: must be between 1000.0 and 1e+18 B/s, got 5e-324");
    row(
        "absurd capacity", [](json &j) { j["memory"][1]["capacity_bytes"]["value"] = 1e30; },
        "t.json: memory[1].capacity_bytes.value: must be between 1.0 and 1e+16 B, got 1e+30");
    row(
        "absurd latency", [](json &j) { j["interconnects"][0]["latency_s"]["value"] = 1e6; },
        "t.json: interconnects[0].latency_s.value: must be between 1e-12 and 10.0 s, got 1000000.0");
    row(
        "year out of range", [](json &j) { j["year"]["value"] = 3024; },
        "t.json: year.value: must be between 1940.0 and 2100.0, got 3024.0");
    row(
        "negative max_devices", [](json &j) { j["interconnects"][0]["max_devices"] = -1; },
        "t.json: interconnects[0].max_devices: must not be negative");
    row(
        "newer schema", [](json &j) { j["schema"] = 2; },
        "t.json: schema: version 2 is newer than this MemWall understands (1)");
    row(
        "number written as text", [](json &j) { j["tdp_w"]["value"] = "1e309"; },
        "t.json: tdp_w.value: expected a number, got \"1e309\"");
}

void TestPresetLoader::hardwareErrors()
{
    QFETCH(Edit, edit);
    QFETCH(QString, error);
    json j = baseHardware();
    edit(j);
    QCOMPARE(issueOf(j.dump()), error);
}

namespace {
/// achievableErrors_data()'s rows for the MLA decode module's tables (tools/mla_tables.py).
void mlaDecodeErrorRows()
{
    const auto row = errorRow;
    const auto mla = [](json table) {
        return [table](json &j) {
            j["achievable"]["mla_decode"] = {{"source", "aiconfigurator"},
                                             {"formats", {{"fp8_block/bfloat16", json::array({table})}}}};
        };
    };
    const json goodRow = {{"batch", 1}, {"fraction", {0.4, 0.5}}};
    row("MLA fraction above 1",
        mla({{"heads", 128}, {"context", {2, 4}}, {"rows", json::array({{{"batch", 1}, {"fraction", {0.4, 1.2}}}})}}),
        "t.json: achievable.mla_decode.formats.fp8_block/bfloat16[0].rows[0].fraction: each fraction must be a number "
        "above 0 and at most 1.0, got 1.2");
    row("MLA row longer than the contexts",
        mla({{"heads", 128},
             {"context", {2, 4}},
             {"rows", json::array({{{"batch", 1}, {"fraction", {0.4, 0.5, 0.6}}}})}}),
        "t.json: achievable.mla_decode.formats.fp8_block/bfloat16[0].rows[0].fraction: needs 1 to 2 values, got 3");
    row("MLA contexts out of order", mla({{"heads", 128}, {"context", {4, 2}}, {"rows", json::array({goodRow})}}),
        "t.json: achievable.mla_decode.formats.fp8_block/bfloat16[0].context: must rise: 2 after 4.0");
    row("MLA batches out of order",
        mla({{"heads", 128},
             {"context", {2, 4}},
             {"rows", json::array({{{"batch", 4}, {"fraction", {0.4}}}, goodRow})}}),
        "t.json: achievable.mla_decode.formats.fp8_block/bfloat16[0].rows[1].batch: rows must rise in batch: 1.0 "
        "after 4.0");
    row(
        "MLA unknown format",
        [](json &j) {
            j["achievable"]["mla_decode"] = {{"source", "aiconfigurator"},
                                             {"formats", {{"int4/bfloat16", json::array()}}}};
        },
        "t.json: achievable.mla_decode.formats.int4/bfloat16: unknown MLA format (use bfloat16, fp8_block or nvfp4, a "
        "slash, and bfloat16 or fp8)");
}
} // namespace

// The achievable model's tables, each broken field by field (the same check as hardwareErrors()).
void TestPresetLoader::achievableErrors_data()
{
    QTest::addColumn<Edit>("edit");
    QTest::addColumn<QString>("error");

    const auto row = errorRow;
    row(
        "fraction above 1",
        [](json &j) {
            j["achievable"] = {{"compute_fraction", sourced(1.5)}};
        },
        "t.json: achievable.compute_fraction.value: must be between 1e-06 and 1.0, got 1.5");
    // The all-reduce sweep: a base to break field by field.
    auto sweep = [](json &j) {
        j["achievable"]["allreduce_sweep"] = {
            {"devices", 8},
            {"source", "nccl-tests"},
            {"points", json::array({{{"bytes", 1024}, {"bus_bandwidth_bytes_per_s", 7e7}},
                                    {{"bytes", 2048}, {"bus_bandwidth_bytes_per_s", 1.4e8}}})}};
    };
    row(
        "all-reduce sweep of one size",
        [sweep](json &j) {
            sweep(j);
            j["achievable"]["allreduce_sweep"]["points"].erase(1);
        },
        "t.json: achievable.allreduce_sweep.points: needs at least two message sizes, got 1");
    row(
        "all-reduce sweep out of order",
        [sweep](json &j) {
            sweep(j);
            j["achievable"]["allreduce_sweep"]["points"][1]["bytes"] = 512;
        },
        "t.json: achievable.allreduce_sweep.points[1].bytes: points out of order: 512.0 is not larger than the "
        "previous "
        "1024.0");
    row(
        "all-reduce sweep on one device",
        [sweep](json &j) {
            sweep(j);
            j["achievable"]["allreduce_sweep"]["devices"] = 1;
        },
        "t.json: achievable.allreduce_sweep.devices: must be between 2 and 1000000, got 1");
    row(
        "all-reduce sweep with an absurd bandwidth",
        [sweep](json &j) {
            sweep(j);
            j["achievable"]["allreduce_sweep"]["points"][0]["bus_bandwidth_bytes_per_s"] = 1e30;
        },
        "t.json: achievable.allreduce_sweep.points[0].bus_bandwidth_bytes_per_s: must be between 1000.0 and 1e+18 "
        "B/s, got 1e+30");
    row(
        "all-reduce sweep without a source",
        [sweep](json &j) {
            sweep(j);
            j["achievable"]["allreduce_sweep"]["source"] = " ";
        },
        "t.json: achievable.allreduce_sweep.source: must not be empty");
    row(
        "all-reduce sweep beside the two-number form",
        [sweep](json &j) {
            sweep(j);
            j["achievable"]["allreduce_latency_s"] = sourced(38e-6);
            j["achievable"]["allreduce_bus_bandwidth_bytes_per_s"] = sourced(479e9);
        },
        "t.json: achievable.allreduce_sweep: give the sweep or allreduce_latency_s with its bus bandwidth, not both");
    row(
        "custom all-reduce sweep alone",
        [](json &j) {
            j["achievable"]["custom_allreduce_sweep"] = {
                {"devices", 8},
                {"source", "aiconfigurator"},
                {"points", json::array({{{"bytes", 256}, {"bus_bandwidth_bytes_per_s", 1e8}},
                                        {{"bytes", 512}, {"bus_bandwidth_bytes_per_s", 2e8}}})}};
        },
        "t.json: achievable.custom_allreduce_sweep: needs the library's all-reduce (allreduce_sweep) beside it");
    row(
        "custom all-reduce sweep out of order",
        [sweep](json &j) {
            sweep(j);
            j["achievable"]["custom_allreduce_sweep"] = j["achievable"]["allreduce_sweep"];
            j["achievable"]["custom_allreduce_sweep"]["points"][1]["bytes"] = 512;
        },
        "t.json: achievable.custom_allreduce_sweep.points[1].bytes: points out of order: 512.0 is not larger than the "
        "previous 1024.0");
    row(
        "fp8 quantize without a sweep", [](json &j) { j["achievable"]["fp8_quantize"] = json::object(); },
        "t.json: achievable.fp8_quantize: needs static, dynamic or both");
    row(
        "fp8 quantize out of order",
        [](json &j) {
            j["achievable"]["fp8_quantize"]["dynamic"] = {
                {"source", "aiconfigurator"},
                {"points", json::array({{{"elements", 16384}, {"s", 8e-6}}, {{"elements", 8192}, {"s", 9e-6}}})}};
        },
        "t.json: achievable.fp8_quantize.dynamic.points[1].elements: points out of order: 8192.0 is not larger than "
        "the previous 16384.0");
    row(
        "fp8 quantize time out of range",
        [](json &j) {
            j["achievable"]["fp8_quantize"]["static"] = {{"source", "aiconfigurator"},
                                                         {"points", json::array({{{"elements", 8192}, {"s", 20}}})}};
        },
        "t.json: achievable.fp8_quantize.static.points[0].s: must be between 1e-12 and 10.0 s, got 20.0");
    mlaDecodeErrorRows();
    row(
        "all-reduce sweep without an interconnect",
        [sweep](json &j) {
            sweep(j);
            j.erase("interconnects");
        },
        "t.json: achievable.allreduce_sweep: needs an interconnect to measure the all-reduce on");
}

void TestPresetLoader::achievableErrors() { hardwareErrors(); }

void TestPresetLoader::modelErrors_data()
{
    QTest::addColumn<Edit>("edit");
    QTest::addColumn<QString>("error");

    const auto row = errorRow;
    row(
        "unknown key", [](json &j) { j["params"] = 7; }, "t.json: params: unknown field");
    row(
        "unknown shape key", [](json &j) { j["shape"]["layer"] = 2; }, "t.json: shape: layer: unknown field");
    row(
        "zero layers", [](json &j) { j["shape"]["layers"] = 0; }, "t.json: shape: layers: must be positive, got 0");
    row(
        "negative hidden", [](json &j) { j["shape"]["hidden"] = -64; },
        "t.json: shape: hidden: must be positive, got -64");
    row(
        "wrong type: string for a whole number", [](json &j) { j["shape"]["heads"] = "4"; },
        "t.json: shape: heads: expected a whole number, got \"4\"");
    row(
        "fractional count", [](json &j) { j["shape"]["ffn"] = 256.5; },
        "t.json: shape: ffn: expected a whole number, got 256.5");
    row(
        "kv heads not dividing heads", [](json &j) { j["shape"]["kv_heads"] = 3; },
        "t.json: shape: heads (4) must be a multiple of kv_heads (3)");
    row(
        "implausibly large shape", [](json &j) { j["shape"]["hidden"] = int64_t(1) << 40; },
        "t.json: shape: hidden is implausibly large, got 1099511627776");
    row(
        "missing source", [](json &j) { j.erase("source"); }, "t.json: source: missing");
    row(
        "missing params source",
        [](json &j) {
            j["params_official"] = {{"value", 7e9}};
        },
        "t.json: params_official.source: missing");
    row(
        "both config and shape", [](json &j) { j["config"] = json::object(); },
        "t.json: shape: a model preset needs exactly one of \"config\" or \"shape\"");
    row(
        "unknown kind", [](json &j) { j["kind"] = "dataset"; },
        "t.json: kind: must be \"hardware\" or \"model\", got \"dataset\"");
}

void TestPresetLoader::modelErrors()
{
    QFETCH(Edit, edit);
    QFETCH(QString, error);
    json j = baseModel();
    edit(j);
    QCOMPARE(issueOf(j.dump()), error);
}

void TestPresetLoader::shapeErrorsNameTheirFields_data()
{
    // The fields an error is about travel beside its line (an editor marks them without reading the line): a
    // reader error names one path, a rule of core::validate() every field it involves, the one to change first.
    QTest::addColumn<Edit>("edit");
    QTest::addColumn<QString>("origin");
    QTest::addColumn<QStringList>("fields");
    QTest::addColumn<QString>("message");
    auto row = [](const char *name, Edit e, const char *origin, QStringList fields, const char *message) {
        QTest::newRow(name) << e << QString(origin) << fields << QString(message);
    };
    row(
        "reader: zero layers", [](json &j) { j["shape"]["layers"] = 0; }, "t.json: shape", {"layers"},
        "must be positive, got 0");
    row(
        "reader: top-level id", [](json &j) { j["id"] = "Test Model"; }, "t.json", {"id"},
        "must be lower-case letters, digits and dashes, got \"Test Model\"");
    row(
        "rule: kv heads not dividing heads", [](json &j) { j["shape"]["kv_heads"] = 3; }, "t.json: shape",
        {"heads", "kv_heads"}, "heads (4) must be a multiple of kv_heads (3)");
    row(
        "rule: zero kv heads", [](json &j) { j["shape"]["kv_heads"] = 0; }, "t.json: shape", {"kv_heads"},
        "kv_heads must be positive, got 0");
    row(
        "rule: more active experts than experts", [](json &j) { j["shape"]["active_experts"] = 2; }, "t.json: shape",
        {"active_experts", "experts"}, "active_experts (2) exceeds experts (1)");
    row(
        "rule: a shared expert in a dense model", [](json &j) { j["shape"]["shared_ffn"] = 64; }, "t.json: shape",
        {"shared_ffn", "experts"}, "shared_ffn (64) needs a mixture-of-experts model (experts > 1)");
    row(
        "rule: only the negative ones of five",
        [](json &j) {
            j["shape"]["position_offset"] = -1;
            j["shape"]["sliding_window"] = -8;
        },
        "t.json: shape", {"position_offset", "sliding_window"},
        "max_positions, position_offset, token_types, sliding_window and shared_ffn must not be negative");
    row(
        "rule: learned positions without a table",
        [](json &j) {
            j["shape"]["positions"] = "learned";
            j["shape"]["max_positions"] = 0;
        },
        "t.json: shape", {"max_positions", "positions"}, "learned positions need max_positions > 0");
    row(
        "rule: one field too large", [](json &j) { j["shape"]["hidden"] = int64_t(1) << 40; }, "t.json: shape",
        {"hidden"}, "hidden is implausibly large, got 1099511627776");
    // 2^31 layers of a 2^20-wide model: each field within its limit, the whole far beyond 1000 T parameters.
    row(
        "rule: the whole shape too large, no field to blame",
        [](json &j) {
            j["shape"]["layers"] = int64_t(1) << 31;
            j["shape"]["hidden"] = int64_t(1) << 20;
        },
        "t.json: shape", {}, "");
}

void TestPresetLoader::shapeErrorsNameTheirFields()
{
    QFETCH(Edit, edit);
    QFETCH(QString, origin);
    QFETCH(QStringList, fields);
    QFETCH(QString, message);
    json j = baseModel();
    edit(j);
    try {
        modelPresetFromJson(j, "t.json");
        QFAIL("the preset loaded");
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.origin()), origin);
        QStringList got;
        for (const std::string &f : e.fields())
            got << QString::fromStdString(f);
        QCOMPARE(got, fields);
        if (!message.isEmpty())
            QCOMPARE(QString::fromStdString(e.message()), message);
        else
            QVERIFY2(e.message().starts_with("the shape is implausibly large"), e.what());
        // The line is unchanged by the parts: "ORIGIN: FIELD: MESSAGE" for a reader error, "ORIGIN: MESSAGE" for a
        // rule.
        const bool rule = QString(QTest::currentDataTag()).startsWith("rule:");
        QCOMPARE(QString::fromStdString(e.what()), origin + ": " +
                                                       (rule || fields.isEmpty() ? QString() : fields.front() + ": ") +
                                                       QString::fromStdString(e.message()));
    }
}

void TestPresetLoader::textErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");

    QTest::newRow("invalid UTF-8")
        << QByteArray("{\"kind\": \"model\", \"id\": \"\xc3\x28\"}")
        << QString("t.json:1:27: not valid JSON: parse error at line 1, column 27: syntax error while parsing value - "
                   "invalid string: ill-formed UTF-8 byte; last read: '\"\\xc3('"); // the bad byte, escaped
    QTest::newRow("truncated")
        << QByteArray("{\"kind\": \"hardware\", \"id\": \"x")
        << QString("t.json:1:30: not valid JSON: parse error at line 1, column 30: syntax error while parsing value - "
                   "invalid string: missing closing quote; last read: '\"x'");
    QTest::newRow("binary (an ELF header)")
        << QByteArray("\x7f"
                      "ELF\x02\x01\x01",
                      7)
        << QString("t.json:1:1: not valid JSON: parse error at line 1, column 1: syntax error while parsing value - "
                   "invalid literal; last read: '\\x7f'"); // the DEL byte escaped, never printed raw
    QTest::newRow("NUL byte ends the input")
        << QByteArray("\0{}", 3)
        << QString("t.json:1:1: not valid JSON: parse error at line 1, column 1: syntax error while parsing value - "
                   "unexpected end of input; expected '[', '{', or a literal");
    QTest::newRow("top level array") << QByteArray("[]") << QString("t.json: top level: expected an object");
    QTest::newRow("no kind") << QByteArray("{\"id\": \"x\"}")
                             << QString("t.json: kind: missing (\"hardware\" or \"model\")");
    QTest::newRow("deep nesting") << QByteArray(5000, '[') << QString("t.json: nesting deeper than 256 levels");
    QTest::newRow("1e999") << QByteArray("{\"kind\": \"hardware\", \"tdp_w\": {\"value\": 1e999}}")
                           << QString("t.json: not valid JSON: number overflow parsing '1e999'");
}

void TestPresetLoader::textErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    const QString got = issueOf(text.toStdString());
    QCOMPARE(got, error);
    QVERIFY(!got.contains('\n'));
}

void TestPresetLoader::laterOverridesEarlier()
{
    PresetLibrary lib;
    json a = baseHardware(), b = baseHardware();
    b["name"] = "Test GPU, revised";
    b["tdp_w"] = sourced(350);
    QVERIFY(lib.loadText(a.dump(), "a.json"));
    QVERIFY(lib.loadText(b.dump(), "b.json"));
    QCOMPARE(lib.hardware().size(), std::size_t(1));
    QCOMPARE(lib.findHardware("test-gpu")->name, std::string("Test GPU, revised"));
    QCOMPARE(lib.findHardware("test-gpu")->sourceFile, std::string("b.json"));
    QCOMPARE(lib.findHardware("test-gpu")->tdpW->value, 350.0);

    json m = baseModel();
    m["shape"]["layers"] = 4;
    QVERIFY(lib.loadText(baseModel().dump(), "m1.json"));
    QVERIFY(lib.loadText(m.dump(), "m2.json"));
    QCOMPARE(lib.models().size(), std::size_t(1));
    QCOMPARE(lib.findModel("test-model")->shape.layers, int64_t(4));
    // Both were user files, so neither hides the other silently.
    QCOMPARE(lib.issues().size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(lib.issues()[0].message),
             QString("b.json: id: hardware \"test-gpu\" is also defined in a.json; b.json is used"));
    QCOMPARE(QString::fromStdString(lib.issues()[1].message),
             QString("m2.json: id: model \"test-model\" is also defined in m1.json; m2.json is used"));
    QVERIFY(!lib.issues()[0].skipped);
}

void TestPresetLoader::duplicateIdsAreNamed()
{
    // A user's copy of a built-in device replaces it without a word: that is what saving an edited device does.
    PresetLibrary lib;
    lib.loadBuiltin();
    QVERIFY2(lib.issues().empty(), lib.issues().empty() ? "" : lib.issues().front().message.c_str());
    json h100 = toJson(*lib.findHardware("h100-sxm"));
    h100["name"] = "My H100";
    QVERIFY(lib.loadText(h100.dump(), "/home/u/presets/hardware/h100.json"));
    QCOMPARE(lib.findHardware("h100-sxm")->name, std::string("My H100"));
    // The copy is written and read back whole: the all-reduce sweep's 24 sizes too.
    QCOMPARE(lib.findHardware("h100-sxm")->achievable.allReduceSweep->points.size(), std::size_t(24));
    QCOMPARE(lib.findHardware("h100-sxm")->achievable.customAllReduceSweep->points.size(), std::size_t(23));
    QVERIFY(lib.findHardware("h100-sxm")->achievable.kernelGraphsS);
    QCOMPARE(lib.findHardware("h100-sxm")->achievable.quantizeStatic->points.size(), std::size_t(16));
    QCOMPARE(lib.findHardware("h100-sxm")->achievable.quantizeDynamic->points.back().second, 677.2e-6);
    QVERIFY(lib.issues().empty());

    // Two user files with one id: the later in path order is used, and both are named.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    json second = baseHardware();
    second["name"] = "Second";
    writeFile(dir.filePath("hardware/a.json"), baseHardware().dump(2));
    writeFile(dir.filePath("hardware/sub/z.json"), second.dump(2));
    lib.loadDirectory(dir.path().toStdString());
    QCOMPARE(lib.findHardware("test-gpu")->name, std::string("Second"));
    QCOMPARE(lib.issues().size(), std::size_t(1));
    const std::string a = dir.filePath("hardware/a.json").toStdString();
    const std::string z = dir.filePath("hardware/sub/z.json").toStdString();
    QCOMPARE(lib.issues().front().file, z);
    QCOMPARE(QString::fromStdString(lib.issues().front().message),
             QString::fromStdString(z + ": id: hardware \"test-gpu\" is also defined in " + a + "; " + z + " is used"));
}

void TestPresetLoader::brokenFileLeavesEarlierPreset()
{
    PresetLibrary lib;
    QVERIFY(lib.loadText(baseHardware().dump(), "a.json"));
    json broken = baseHardware();
    broken["name"] = "Broken";
    broken["tdp_w"]["value"] = -1;
    QVERIFY(!lib.loadText(broken.dump(), "b.json"));
    QCOMPARE(lib.hardware().size(), std::size_t(1));
    QCOMPARE(lib.findHardware("test-gpu")->name, std::string("Test GPU"));
    QCOMPARE(lib.issues().size(), std::size_t(1));
    QCOMPARE(lib.issues().front().file, std::string("b.json"));
}

void TestPresetLoader::brokenFileAmongGoodOnesIsSkipped()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    json second = baseHardware();
    second["id"] = "test-gpu-2";
    json broken = baseHardware();
    broken["id"] = "test-gpu-3";
    broken["peak_flops"]["fp12"] = sourced(1);
    writeFile(dir.filePath("hardware/a.json"), baseHardware().dump(2));
    writeFile(dir.filePath("hardware/b.json"), broken.dump(2));
    writeFile(dir.filePath("hardware/c.json"), second.dump(2));
    writeFile(dir.filePath("models/m.json"), baseModel().dump(2));
    writeFile(dir.filePath("models/notes.txt"), "not a preset");

    PresetLibrary lib;
    lib.loadDirectory(dir.path().toStdString(), true);
    QCOMPARE(lib.hardware().size(), std::size_t(2));
    QVERIFY(lib.findHardware("test-gpu"));
    QVERIFY(lib.findHardware("test-gpu-2"));
    QVERIFY(!lib.findHardware("test-gpu-3"));
    QCOMPARE(lib.models().size(), std::size_t(1));
    QCOMPARE(lib.issues().size(), std::size_t(1));
    const std::string path = dir.filePath("hardware/b.json").toStdString();
    QCOMPARE(lib.issues().front().file, path);
    QCOMPARE(QString::fromStdString(lib.issues().front().message),
             QString::fromStdString(path + ": peak_flops.fp12: unknown number format (use fp64, fp32, tf32, bf16, "
                                           "fp16, fp8, fp6, fp4, int8, int4)"));
}

void TestPresetLoader::fileOverSizeLimitIsSkipped()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    json big = baseHardware();
    big["notes"] = std::string(kMaxInputFileBytes, 'x');
    const std::string text = big.dump();
    writeFile(dir.filePath("hardware/big.json"), text);
    json good = baseHardware();
    good["id"] = "small-gpu";
    writeFile(dir.filePath("hardware/small.json"), good.dump());

    PresetLibrary lib;
    lib.loadDirectory(dir.path().toStdString());
    QCOMPARE(lib.hardware().size(), std::size_t(1));
    QVERIFY(lib.findHardware("small-gpu"));
    QCOMPARE(lib.issues().size(), std::size_t(1));
    const std::string path = dir.filePath("hardware/big.json").toStdString();
    QCOMPARE(QString::fromStdString(lib.issues().front().message),
             QString::fromStdString(path + ": file is too large (" + std::to_string(text.size()) +
                                    " bytes; the limit is 8388608)"));
}

void TestPresetLoader::missingFolder()
{
    PresetLibrary lib;
    lib.loadDirectory("/nonexistent/presets");
    QVERIFY(lib.issues().empty());
    lib.loadDirectory("/nonexistent/presets", true);
    QCOMPARE(lib.issues().size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(lib.issues().front().message), QString("/nonexistent/presets: not a folder"));
}

void TestPresetLoader::hardwareListedByVendorThenYear()
{
    PresetLibrary lib;
    lib.loadBuiltin();
    const auto &hw = lib.hardware();
    QVERIFY(hw.size() > 5);
    for (std::size_t i = 1; i < hw.size(); ++i) {
        const HardwareSpec &a = hw[i - 1], &b = hw[i];
        QVERIFY2(a.vendor < b.vendor || (a.vendor == b.vendor && a.year.value <= b.year.value),
                 (a.id + " before " + b.id).c_str());
    }
    // A100 (2020) before H100 (2022), both before the B200 if present: NVIDIA's devices in the order they came.
    const auto pos = [&](std::string_view id) {
        return std::find_if(hw.begin(), hw.end(), [&](const HardwareSpec &h) { return h.id == id; }) - hw.begin();
    };
    QVERIFY(pos("a100-80gb-sxm") < pos("h100-sxm"));
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestPresetLoader)
#include "tst_presetloader.moc"
