// Tests for core/io/scenariolink: a scenario as a memwall: link and back (issue #41).
//
// Pinned here:
// - the link of the default scenario names the device and the model and nothing else; a changed option adds its
//   scenario-file key with the command line's word, percent-encoded where a query needs it;
// - every option of the option table, walked from the table itself, survives the trip through a link when changed
//   to a value other than its default, alone and all together;
// - a custom device and model are inlined and come back whole;
// - a hostile link (too long, another scheme, control characters, bad percent-encoding, an unknown or repeated key,
//   a value out of range, an inline object that is not base64url, too deep, or not a valid model) is refused with
//   one line "link: KEY: what is wrong" that quotes the value, and nothing is returned.

#include "core/analysis/assemble.h"
#include "core/io/analysisjson.h"
#include "core/io/scenariolink.h"

#include "../builtinpresets.h"

#include <QtTest>

#include <string>

namespace memwall::core {

namespace {

/// The scenario a fresh `memwall analyze` builds for `hw` and `model` (what a link's options are written against).
ScenarioFile defaults(const char *hw, const char *model)
{
    ScenarioFile f;
    f.hardware = testpresets::hw(hw);
    f.model = testpresets::model(model);
    adaptToModel(f.scenario, f.model);
    return f;
}

/// Everything a scenario file would record: equal JSON means the same scenario.
nlohmann::json everything(const ScenarioFile &f) { return toJson(f); }

/// Values to try for an option, other than its default: the ends of its range, a number that has no short decimal
/// form, its choices, the other side of a switch.
std::vector<OptionValue> candidates(const ScenarioOption &o, const OptionValue &current)
{
    std::vector<OptionValue> out;
    switch (o.kind) {
    case OptionKind::Integer:
        for (double x : {o.min + 1, o.min + 2, o.min, o.max, 4.0, 8.0})
            out.emplace_back(static_cast<int64_t>(x));
        break;
    case OptionKind::Real:
        for (double x : {o.min + (o.max - o.min) * 0.3701, o.max, o.min + (o.max - o.min) / 3})
            out.emplace_back(x);
        break;
    case OptionKind::Choice:
        for (const auto &c : o.choices)
            out.emplace_back(c);
        if (o.openChoice)
            out.emplace_back(std::string("llama-2-7b")); // draft_model also takes a model preset id
        break;
    case OptionKind::Switch: out.emplace_back(!std::get<bool>(current)); break;
    }
    std::erase_if(out, [&](const OptionValue &v) { return v == current || !checkOption(o, v).empty(); });
    return out;
}

/// Sets `o` to the first candidate that validate() accepts in `f`; false if none does.
bool changeOption(ScenarioFile &f, const ScenarioOption &o)
{
    for (const OptionValue &v : candidates(o, o.get(f.scenario, f.whatIf))) {
        ScenarioFile g = f;
        if (!applyOption(o, g.scenario, g.whatIf, v).empty() || !validate(g.scenario).empty())
            continue;
        f = g;
        return true;
    }
    return false;
}

/// `o` changed in `base`, or where it needs another option first (dp and micro-batches a batch they divide, a draft
/// model speculative decoding): in `base` with batch 8 and speculative_k 2. False if no value is found.
bool changeOptionSomewhere(ScenarioFile &f, const ScenarioOption &o)
{
    if (changeOption(f, o))
        return true;
    ScenarioFile g = f;
    g.scenario.batch = 8;
    g.scenario.speculativeK = 2;
    if (!validate(g.scenario).empty() || !changeOption(g, o))
        return false;
    f = g;
    return true;
}

template <typename F>
std::string errorOf(F f)
{
    try {
        f();
    } catch (const InputError &e) {
        return e.what();
    } catch (const std::exception &e) {
        return std::string("unexpected exception type: ") + e.what();
    }
    return "<no error>";
}

std::string base64Url(const std::string &bytes)
{
    return QByteArray::fromStdString(bytes)
        .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals)
        .toStdString();
}

} // namespace

class TestScenarioLink : public QObject
{
    Q_OBJECT
private slots:
    void defaultScenarioNamesOnlyDeviceAndModel()
    {
        const ScenarioFile f = defaults("h100-sxm", "llama-2-70b");
        QCOMPARE(scenarioLink(f, testpresets::lib()), std::string("memwall:?v=1&hardware=h100-sxm&model=llama-2-70b"));
        const ScenarioFile back = scenarioFromLink(scenarioLink(f, testpresets::lib()), testpresets::lib());
        QCOMPARE(everything(back), everything(f));
        QVERIFY(!back.hardwareInline && !back.modelInline);
    }

    void changedOptionsAreWrittenInTheCommandLinesWords()
    {
        ScenarioFile f = defaults("h100-sxm", "llama-3-70b");
        f.scenario.batch = 8;
        f.scenario.tp = 2;
        f.scenario.weights = *weightFormatFromString("int4/g128");
        f.whatIf.bandwidth = 2;
        QCOMPARE(scenarioLink(f, testpresets::lib()),
                 std::string("memwall:?v=1&hardware=h100-sxm&model=llama-3-70b&batch=8&weights=int4/"
                             "g128&tp=2&what_if.bandwidth=2"));
        // The same scenario as `memwall analyze --model llama-3-70b --batch 8 --tp 2 --weights int4/g128
        // --what-if-bandwidth 2` builds.
        std::vector<OptionSetting> settings;
        for (const auto &[key, text] : {std::pair{"batch", "8"}, {"tp", "2"}, {"weights", "int4/g128"}})
            settings.push_back(parseSetting(*findOption(key), text));
        settings.push_back(parseSetting(*findOption("bandwidth", OptionSection::WhatIf), "2"));
        const ScenarioFile cli = assembleScenario({std::string("h100-sxm"), std::string("llama-3-70b"), {}, {}, {}},
                                                  settings, testpresets::lib());
        QCOMPARE(everything(scenarioFromLink(scenarioLink(f, testpresets::lib()), testpresets::lib())),
                 everything(cli));
    }

    void aLinkTakesThePlaceOfAScenarioFile()
    {
        // `memwall analyze --scenario LINK --batch 4`: the link first, then the options given after it.
        const std::string link = "memwall:?v=1&hardware=a100-80gb-sxm&model=llama-2-13b&batch=16&kv=fp8";
        const ScenarioFile f =
            assembleScenario({{}, {}, {}, link, {}}, {parseSetting(*findOption("batch"), "4")}, testpresets::lib());
        QCOMPARE(f.hardware.id, std::string("a100-80gb-sxm"));
        QCOMPARE(f.model.id, std::string("llama-2-13b"));
        QCOMPARE(f.scenario.batch, 4);
        QCOMPARE(std::string(toString(f.scenario.kv)), std::string("fp8"));
        QVERIFY(isScenarioLink("  MemWall:?v=1\n"));
        QVERIFY(!isScenarioLink("memwall.json"));
    }

    /// Walks the option table: each option changed alone to a value other than its default goes through a link and
    /// comes back; then all of them together (each kept if validate() accepts it with the others).
    void everyOptionOfTheTableSurvivesALink_data()
    {
        QTest::addColumn<QString>("model");
        QTest::newRow("dense") << "llama-2-70b";
        QTest::newRow("moe") << "mixtral-8x7b";
        QTest::newRow("mla") << "deepseek-v3";
    }
    void everyOptionOfTheTableSurvivesALink()
    {
        QFETCH(QString, model);
        const ScenarioFile base = defaults("h100-sxm", model.toUtf8().constData());
        ScenarioFile all = base;
        int changed = 0;
        QStringList unchanged;
        for (const ScenarioOption &o : scenarioOptions()) {
            ScenarioFile one = base;
            if (!changeOptionSomewhere(one, o)) {
                unchanged << QString::fromUtf8(o.key.data(), static_cast<int>(o.key.size()));
                continue;
            }
            ++changed;
            const std::string link = scenarioLink(one, testpresets::lib());
            const std::string pair = "&" + linkKey(o) + "=";
            QVERIFY2(link.find(pair) != std::string::npos, link.c_str());
            // hardware, model, this option and those it needs (batch, speculative_k)
            QVERIFY2(std::count(link.begin(), link.end(), '&') <= 5, link.c_str());
            const ScenarioFile back = scenarioFromLink(link, testpresets::lib());
            QVERIFY2(everything(back) == everything(one), link.c_str());
            changeOptionSomewhere(all, o);
        }
        QVERIFY2(unchanged.isEmpty(), qPrintable("no other valid value found for: " + unchanged.join(", ")));
        QCOMPARE(changed, static_cast<int>(scenarioOptions().size()));
        const std::string link = scenarioLink(all, testpresets::lib());
        QCOMPARE(everything(scenarioFromLink(link, testpresets::lib())), everything(all));
    }

    void aHandWrittenLinkDoesNotDependOnItsOrder()
    {
        const auto a = scenarioFromLink("memwall:?model=mixtral-8x7b&moe_ep=2&ep=2&v=1", testpresets::lib());
        const auto b = scenarioFromLink("memwall:?v=1&ep=2&moe_ep=2&model=mixtral-8x7b", testpresets::lib());
        QCOMPARE(everything(a), everything(b));
        QCOMPARE(a.hardware.id, std::string(kDefaultHardware)); // hardware left out: the command line's default
    }

    void customDeviceAndModelAreInlined()
    {
        ScenarioFile f = defaults("h100-sxm", "llama-2-7b");
        f.hardware.id = "lab-gpu";
        f.hardware.name = "Lab GPU & co (prototype)";
        f.hardwareInline = true;
        f.model.id = "my-7b";
        f.model.name = "My 7B";
        f.model.layers = 30;
        f.modelInline = true;
        f.scenario.batch = 3;
        const std::string link = scenarioLink(f, testpresets::lib());
        // Each as a merge patch onto the preset it was made from: a few fields, where the H100's object is 70 kB.
        QVERIFY2(link.find("&hardware=h100-sxm&hardware_json=") != std::string::npos, link.c_str());
        QVERIFY2(link.find("&model=llama-2-7b&model_json=") != std::string::npos, link.c_str());
        QVERIFY2(link.size() < 400, link.c_str()); // short enough to paste in a chat
        const ScenarioFile back = scenarioFromLink(link, testpresets::lib());
        QVERIFY(back.hardwareInline && back.modelInline);
        QCOMPARE(toJson(back.hardware), toJson(f.hardware));
        QCOMPARE(toJson(back.model), toJson(f.model));
        QCOMPARE(everything(back), everything(f));
    }

    void hostileLinksAreRefusedInOneLine_data()
    {
        QTest::addColumn<QString>("link");
        QTest::addColumn<QString>("error");
        const auto row = [](const char *name, const std::string &link, const char *error) {
            QTest::newRow(name) << QString::fromStdString(link) << QString::fromUtf8(error);
        };
        row("too long", "memwall:?v=1&batch=" + std::string(70000, '9'),
            "link: 70019 bytes, more than the 65536 bytes a link may hold");
        row("another scheme", "https://example.com/?batch=8",
            "link: 'https://example.com/?batch=8' is not a memwall: link");
        row("NUL", std::string("memwall:?batch=8\0", 17),
            "link: character 17 is '\\x00': a link holds printable ASCII");
        row("newline inside", "memwall:?batch=8\n&tp=2", "link: character 17 is '\\n'");
        row("escape sequence", "memwall:?model=\x1b[31m", "link: character 16 is '\\x1b'");
        row("percent NUL", "memwall:?draft_model=a%00b",
            "link: draft_model: 'a%00b' encodes a control character (\\x00)");
        row("bad percent", "memwall:?weights=int4%2", "link: weights: bad percent-encoding at '%2' in 'int4%2'");
        row("bad percent digits", "memwall:?weights=%zz", "link: weights: bad percent-encoding at '%zz'");
        row("unknown key", "memwall:?v=1&bach=8", "link: bach: unknown key");
        row("key without value", "memwall:?v=1&batch", "link: batch: has no value (write batch=VALUE)");
        row("duplicate key", "memwall:?batch=8&tp=2&batch=9", "link: batch: given twice");
        row("out of range", "memwall:?batch=0", "link: batch: must be between 1 and");
        row("huge number", "memwall:?tp=" + std::string(400, '7'), "link: tp: must be between 1 and 65536, got 7777");
        row("not a number", "memwall:?moe_imbalance=lots", "link: moe_imbalance: 'lots' is not a number");
        row("what-if out of range", "memwall:?what_if.compute=1000",
            "link: what_if.compute: must be between 0.01 and 100, got 1000");
        row("unknown choice", "memwall:?phase=sideways", "link: phase: 'sideways' is not one of");
        row("newer version", "memwall:?v=2&batch=8", "link: v: version 2 was written by a newer MemWall");
        row("bad version", "memwall:?v=one", "link: v: 'one' is not a link version");
        row("fragment", "memwall:?batch=8#tp=2", "link: '#tp=2': a scenario link has no fragment");
        row("no query", "memwall:batch=8", "link: expected '?' after memwall:, got 'batch=8'");
        row("unknown hardware", "memwall:?hardware=h100", "link: hardware: unknown hardware 'h100' (closest:");
        row("patch onto an unknown preset", "memwall:?hardware=nope&hardware_json=e30",
            "link: hardware: unknown hardware 'nope'");
        row("patch that breaks the preset", "memwall:?model=llama-2-7b&model_json=" + base64Url(R"({"layers":-3})"),
            "link: model_json: layers: ");
        row("rule between options", "memwall:?batch=3&dp=2", "link: batch (3) must be a multiple of dp (2)");
        row("not base64url", "memwall:?model_json=e30!", "link: model_json: is not base64url: character 4 is '!'");
        row("not JSON", "memwall:?model_json=" + base64Url("{nope"), "link: model_json:1:");
        row("deeply nested", "memwall:?model_json=" + base64Url(std::string(300, '[') + std::string(300, ']')),
            "link: model_json: nesting deeper than 256");
        row("invalid model", "memwall:?model_json=" + base64Url(R"({"id":"x","name":"x","layers":0})"),
            "link: model_json: ");
    }
    void hostileLinksAreRefusedInOneLine()
    {
        QFETCH(QString, link);
        QFETCH(QString, error);
        const std::string what = errorOf([&] { scenarioFromLink(link.toStdString(), testpresets::lib()); });
        QVERIFY2(what.starts_with(error.toStdString()), what.c_str());
        QVERIFY2(what.find('\n') == std::string::npos && what.size() < 400, what.c_str());
    }

    void aLinkTooLongIsNeverWritten()
    {
        ScenarioFile f = defaults("h100-sxm", "llama-2-7b");
        f.model.name = std::string(60000, 'x');
        f.modelInline = true;
        QVERIFY(errorOf([&] { scenarioLink(f, testpresets::lib()); }).starts_with("link: not written: "));
    }
};

} // namespace memwall::core

QTEST_APPLESS_MAIN(memwall::core::TestScenarioLink)
#include "tst_scenariolink.moc"
