// Lesson text substitution: every number in a lesson is computed from the analysis, never typed in.
#include "ui/lessons/lessontext.h"

#include "core/analysis/analysis.h"
#include "core/io/presets.h"
#include "ui/util/text.h"

#include <QtTest>

using namespace memwall;

namespace {

ui::LessonTextContext contextFor(const core::PresetLibrary &lib, const std::string &hw, const std::string &model)
{
    ui::LessonTextContext ctx;
    ctx.presets = &lib;
    ctx.file.hardware = *lib.findHardware(hw);
    ctx.file.model = lib.findModel(model)->shape;
    ctx.analysis = core::analyze(ctx.file.hardware, ctx.file.model, ctx.file.scenario);
    return ctx;
}

QString render(const std::string &text, const ui::LessonTextContext &ctx, QStringList *errors = nullptr)
{
    const ui::LessonTextResult r = ui::renderLessonText(text, ctx);
    if (errors)
        for (const std::string &e : r.errors)
            *errors << QString::fromStdString(e);
    return QString::fromStdString(r.text);
}

} // namespace

class TestLessonText : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { m_lib.loadBuiltin(); }

    void formatPercent_data()
    {
        QTest::addColumn<double>("fraction");
        QTest::addColumn<QString>("expected");
        QTest::newRow("99.8 % of FLOPs stays visible") << 0.998 << "99.8";
        QTest::newRow("61 % of runtime") << 0.61 << "61";
        QTest::newRow("one decimal below 10 %") << 0.053 << "5.3";
        QTest::newRow("two significant digits below 1 %") << 0.0017 << "0.17";
        QTest::newRow("all") << 1.0 << "100";
        QTest::newRow("none") << 0.0 << "0";
    }
    void formatPercent()
    {
        QFETCH(double, fraction);
        QFETCH(QString, expected);
        QCOMPARE(ui::formatPercentNumber(fraction), expected); // the one percentage helper (ui/util/text.h)
    }

    void numbersUseTheOneFormatter()
    {
        // Counts and numbers go through ui::formatNumber (pinned in tst_format and tst_text): a batch of 4096 is a
        // grouped count; GPT-2's 50,257-token vocabulary is grouped, and divided by 1000 it is 50.257, three
        // significant digits: 50.3.
        auto ctx = contextFor(m_lib, "h100-sxm", "llama-2-7b");
        ctx.facts["gpt2_vocab"] = ui::LessonFact{50257, "tokens", "GPT-2 config.json"};
        ctx.facts["thousand"] = ui::LessonFact{1000, "", "definition"};
        QStringList errors;
        QCOMPARE(render("{batch@batch=4096}", ctx, &errors), QString("4,096"));
        QCOMPARE(render("{gpt2_vocab}", ctx, &errors), QString("50,257"));
        QCOMPARE(render("{gpt2_vocab / thousand}", ctx, &errors), QString("50.3"));
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    }

    void placeholdersComeFromTheAnalysis()
    {
        const auto ctx = contextFor(m_lib, "h100-sxm", "llama-2-7b");
        QStringList errors;
        const QString out = render("ridge {ridge}, {hardware}, {model}, {bound}, {batch}", ctx, &errors);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        QCOMPARE(out, QString("ridge %1, %2, %3, memory-bound, 1")
                          .arg((ui::formatNumber(ctx.analysis.ridge)), QString::fromStdString(ctx.file.hardware.name),
                               QString::fromStdString(ctx.file.model.name)));
    }

    void kvPerTokenOfOpt13b()
    {
        // vLLM paper: OPT-13B at FP16 keeps 2 x 40 x 5120 x 2 B = 819,200 B (800 KiB) per token.
        const auto ctx = contextFor(m_lib, "h100-sxm", "opt-13b");
        QCOMPARE(render("{kv_per_token_kb}", ctx), QString("819"));
    }

    void ratioOfTwoVariations()
    {
        // P100 -> H100 FP16 compute: 989.5 / 21.2 TFLOP/s (seed_fact_checks.csv) = 46.7x.
        const auto ctx = contextFor(m_lib, "h100-sxm", "llama-2-7b");
        QStringList errors;
        const QString out = render("{peak_tflops:fp16@h100-sxm / peak_tflops:fp16@p100-sxm2}", ctx, &errors);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        const double expected = m_lib.findHardware("h100-sxm")->peak(core::DType::FP16) /
                                m_lib.findHardware("p100-sxm2")->peak(core::DType::FP16);
        QCOMPARE(out, (ui::formatNumber(expected)));
        QVERIFY(expected > 40 && expected < 50);
    }

    void scenarioFieldVariation()
    {
        const auto ctx = contextFor(m_lib, "h100-sxm", "llama-2-7b");
        core::Scenario s = ctx.file.scenario;
        s.batch = 64;
        s.weights = core::WeightFormat{core::DType::INT4, 128, core::DType::FP16};
        const core::Analysis a = core::analyze(ctx.file.hardware, ctx.file.model, s);
        QStringList errors;
        const QString out = render("{time_ms@batch=64@weights=int4/g128}", ctx, &errors);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        QCOMPARE(out, (ui::formatNumber(a.totals.timeS * 1e3)));
        // The variation leaves the context itself alone.
        QCOMPARE(render("{batch}", ctx), QString("1"));
    }

    void modelVariationAndOperatorArgument()
    {
        const auto ctx = contextFor(m_lib, "h100-sxm", "llama-2-7b");
        QStringList errors;
        QCOMPARE(render("{heads@llama-65b}", ctx, &errors), QString("64"));
        const QString intensity = render("{op_intensity:ffn.up}", ctx, &errors);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        QVERIFY(!intensity.isEmpty() && !intensity.contains('?'));
    }

    void factsAndArithmetic()
    {
        auto ctx = contextFor(m_lib, "h100-sxm", "llama-2-70b");
        ctx.facts["sram_mm2_per_gb"] = ui::LessonFact{200, "mm²/GB", "WikiChip"};
        QStringList errors;
        const QString out = render("{weights_gb * sram_mm2_per_gb}", ctx, &errors);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        QCOMPARE(out, (ui::formatNumber(ctx.analysis.weightBytes / 1e9 * 200)));
    }

    void bracesEscape()
    {
        QCOMPARE(render("{{not a placeholder}}", contextFor(m_lib, "h100-sxm", "llama-2-7b")),
                 QString("{not a placeholder}"));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shown");
        QTest::addColumn<QString>("error");
        QTest::newRow("unknown placeholder") << "a {foo} b"
                                             << "a [?foo] b"
                                             << "{foo}: unknown placeholder 'foo'";
        QTest::newRow("unknown operator") << "{op_intensity:nope}"
                                          << "[?op_intensity:nope]"
                                          << "{op_intensity:nope}: no operator 'nope'";
        QTest::newRow("operator missing") << "{op_intensity}"
                                          << "[?op_intensity]"
                                          << "needs an operator name";
        QTest::newRow("unknown preset") << "{ridge@h101}"
                                        << "[?ridge@h101]"
                                        << "neither a hardware or model preset";
        QTest::newRow("unknown field") << "{ridge@speed=3}"
                                       << "[?ridge@speed=3]"
                                       << "unknown scenario field 'speed'";
        QTest::newRow("bad field value") << "{ridge@batch=0}"
                                         << "[?ridge@batch=0]"
                                         << "batch";
        QTest::newRow("text in arithmetic") << "{model / ridge}"
                                            << "[?model / ridge]"
                                            << "is text";
        QTest::newRow("unclosed brace") << "x {ridge"
                                        << "x [?]ridge"
                                        << "unclosed '{'";
    }
    void errors()
    {
        QFETCH(QString, text);
        QFETCH(QString, shown);
        QFETCH(QString, error);
        QStringList errors;
        const QString out = render(text.toStdString(), contextFor(m_lib, "h100-sxm", "llama-2-7b"), &errors);
        QCOMPARE(out, shown);
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.front().contains(error), qPrintable(errors.front()));
        QVERIFY(!errors.front().contains('\n'));
    }

    void textValuesAreEscaped()
    {
        auto ctx = contextFor(m_lib, "h100-sxm", "llama-2-7b");
        ctx.file.model.name = "A<b>&B";
        QCOMPARE(render("{model}", ctx), QString("A&lt;b&gt;&amp;B"));
    }

    void checkWithoutEvaluating()
    {
        const std::map<std::string, ui::LessonFact, std::less<>> facts{{"area", ui::LessonFact{1, "", "s"}}};
        QVERIFY(ui::checkLessonText("{ridge} {area} {time_ms@batch=4 / time_ms} {op_bound:ffn.up}", facts).empty());
        const auto errors = ui::checkLessonText("{ridge} {nope} {area:x}", facts);
        QCOMPARE(errors.size(), std::size_t(2));
        QVERIFY(QString::fromStdString(errors[0]).contains("unknown placeholder 'nope'"));
    }

    void everyDocumentedKeyRenders()
    {
        // Every key evaluates on a scenario where all of them are meaningful (no operator or series argument left out).
        auto ctx = contextFor(m_lib, "h100-sxm", "llama-65b");
        ctx.file.scenario.tp = 4;
        ctx.analysis = core::analyze(ctx.file.hardware, ctx.file.model, ctx.file.scenario);
        for (const ui::LessonPlaceholder &p : ui::lessonPlaceholders()) {
            std::string text = "{" + std::string(p.key);
            if (p.argument == "operator name")
                text += ":ffn.up";
            else if (p.argument == "trend series id")
                text += ":dram_bandwidth";
            text += "}";
            QStringList errors;
            const QString out = render(text, ctx, &errors);
            QVERIFY2(errors.isEmpty(), qPrintable(QString::fromStdString(text) + ": " + errors.join('\n')));
            QVERIFY2(!out.isEmpty(), qPrintable(QString::fromStdString(text)));
            QVERIFY(!p.meaning.empty());
        }
    }

private:
    core::PresetLibrary m_lib;
};

QTEST_MAIN(TestLessonText)
#include "tst_lessontext.moc"
