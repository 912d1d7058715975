// The scenario-option table is the one home of every option's range: the command line, the scenario file and the GUI
// accept and refuse exactly the same values. The test walks the whole table: for each option its extremes, the values
// just beyond them, every choice and a bad one.
#include "../runmemwall.h"
#include "uitest.h"

#include "core/analysis/options.h"
#include "core/analysis/sweep.h"
#include "core/io/analysisjson.h"
#include "core/io/scenariofile.h"
#include "ui/controls/controlspanel.h"
#include "ui/controls/logslider.h"
#include "ui/controls/optioncontrol.h"
#include "ui/controls/whatifgroup.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"
#include "ui/widgets/comparepanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QtTest>

#include <climits>
#include <cmath>

using namespace memwall;
using core::OptionKind;
using core::OptionValue;

Q_DECLARE_METATYPE(OptionValue)

namespace {
/// The command line: exit code 2 is a usage error (a refused value); --help makes an accepted one exit 0 at once.
int cliExit(const QStringList &args, QByteArray *err)
{
    testprocess::RunOptions o;
    o.noUserData = true;
    const testprocess::Run r = testprocess::runMemwall(args, o);
    *err = r.err;
    return r.exitCode;
}

nlohmann::json jsonOf(const OptionValue &v)
{
    return std::visit(
        [](const auto &x) -> nlohmann::json {
            if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>)
                return nullptr;
            else
                return x;
        },
        v);
}
} // namespace

class TstOptions : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(!qgetenv("MEMWALL_MEMWALL_EXE").isEmpty(), "MEMWALL_MEMWALL_EXE not set"); }

    void sameValuesEverywhere_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<OptionValue>("value");
        QTest::addColumn<bool>("accepted");
        for (const core::ScenarioOption &o : core::scenarioOptions()) {
            const std::string key(o.key);
            auto row = [&](const char *what, const OptionValue &v, bool ok) {
                QTest::addRow("%s %s (%s)", key.c_str(), what, core::optionText(v).c_str())
                    << QString::fromStdString(std::string(o.flag)) << v << ok;
            };
            switch (o.kind) {
            case OptionKind::Integer:
                row("lowest", static_cast<int64_t>(o.min), true);
                row("highest", static_cast<int64_t>(o.max), true);
                row("below", static_cast<int64_t>(o.min) - 1, false);
                row("above", static_cast<int64_t>(o.max) + 1, false);
                break;
            case OptionKind::Real:
                row("highest", o.max, true);
                row("above", std::nextafter(o.max, 1e300) + 1e-9, false);
                if (o.minOpen) {
                    row("at the open end", o.min, false);
                    row("just inside", o.min + 1e-3, true);
                } else {
                    row("lowest", o.min, true);
                    row("below", o.min - 1e-3, false);
                }
                if (o.nullable)
                    row("unset", std::monostate{}, true);
                break;
            case OptionKind::Choice:
                for (const std::string &c : o.choices)
                    row("choice", c, true);
                // A name no choice takes, open ones included (a draft model may be any preset id, so not "fp13").
                row("unknown", std::string("FP 13?"), false);
                break;
            case OptionKind::Switch:
                row("on", true, true);
                row("off", false, true);
                break;
            }
        }
    }

    void sameValuesEverywhere()
    {
        QFETCH(QString, flag);
        QFETCH(OptionValue, value);
        QFETCH(bool, accepted);
        bool negated = false;
        const core::ScenarioOption *o = core::findOptionByFlag(flag.toStdString(), &negated);
        QVERIFY(o && !negated);

        // Core: the table's own check.
        QCOMPARE(core::checkOption(*o, value).empty(), accepted);

        // The command line.
        QStringList args{"analyze", "--help"};
        if (o->kind == OptionKind::Switch)
            args << (std::get<bool>(value) ? flag : "--no-" + flag.mid(2));
        else
            args << flag << QString::fromStdString(core::optionText(value));
        QByteArray err;
        const int code = cliExit(args, &err);
        QVERIFY2((code == 0) == accepted,
                 qPrintable(QStringLiteral("exit %1: %2").arg(code).arg(QString::fromUtf8(err))));
        if (!accepted) {
            QCOMPARE(code, 2);
            QVERIFY2(err.contains(flag.toUtf8() + ": "), err.constData()); // names the option
        }

        // The scenario file.
        nlohmann::json file{{"kind", "scenario"}, {"schema", 1}, {"hardware", "h100-sxm"}, {"model", "llama-2-7b"}};
        file[o->section == core::OptionSection::WhatIf ? "what_if" : "scenario"] = {
            {std::string(o->key), jsonOf(value)}};
        if (o->section == core::OptionSection::Scenario && o->key != "batch")
            file["scenario"]["batch"] = 65536; // a multiple of every dp and micro-batch count tried

        QString fileError;
        try {
            core::scenarioFileFromJson(file, "t.memwall.json", *uitest::library());
        } catch (const core::InputError &e) {
            fileError = QString::fromUtf8(e.what());
        }
        QVERIFY2(fileError.isEmpty() == accepted, qPrintable(fileError));
        if (!accepted)
            QVERIFY2(fileError.contains(QString::fromStdString(std::string(o->key))), qPrintable(fileError));

        // The GUI: the generic control writes through the document, and its editor's range is the table's.
        ui::ScenarioDocument doc(uitest::library());
        ui::OptionControl control(*o, &doc);
        const QString guiError = control.write(value);
        QVERIFY2(guiError.isEmpty() == accepted, qPrintable(guiError));
        if (accepted)
            QVERIFY(o->get(doc.scenario(), doc.file().whatIf) == value);
        if (auto *slider = qobject_cast<ui::LogSlider *>(control.editor())) {
            QCOMPARE(slider->spinBox()->minimum(), o->min);
            QCOMPARE(slider->spinBox()->maximum(), o->max);
        } else if (auto *spin = qobject_cast<QSpinBox *>(control.editor())) {
            QCOMPARE(spin->minimum(), static_cast<int>(o->min));
            QCOMPARE(spin->maximum(), static_cast<int>(std::min<double>(o->max, INT_MAX)));
        }
    }

    void handMadeControlsTakeTheTableRanges()
    {
        ui::ScenarioDocument doc(uitest::library());
        ui::ControlsPanel panel(&doc);
        auto range = [](const char *key, core::OptionSection section = core::OptionSection::Scenario) {
            const core::ScenarioOption &o = *core::findOption(key, section);
            return std::pair{o.min, o.max};
        };
        auto spinRange = [](const ui::LogSlider *s) {
            return std::pair{s->spinBox()->minimum(), s->spinBox()->maximum()};
        };
        auto intRange = [](const QSpinBox *s) { return std::pair<double, double>{s->minimum(), s->maximum()}; };
        QCOMPARE(spinRange(panel.batchSlider()), range("batch"));
        QCOMPARE(spinRange(panel.promptSlider()), range("seq"));
        QCOMPARE(spinRange(panel.contextSlider()), range("context"));
        QCOMPARE(spinRange(panel.outputSlider()), range("output"));
        QCOMPARE(intRange(panel.tpSpin()), range("tp"));
        QCOMPARE(intRange(panel.ppSpin()), range("pp"));
        QCOMPARE(intRange(panel.dpSpin()), range("dp"));
        QCOMPARE(spinRange(panel.whatIfGroup()->computeSlider()), range("compute", core::OptionSection::WhatIf));
        QCOMPARE(spinRange(panel.whatIfGroup()->bandwidthSlider()), range("bandwidth", core::OptionSection::WhatIf));
        QCOMPARE(spinRange(panel.whatIfGroup()->capacitySlider()), range("capacity", core::OptionSection::WhatIf));
        // Every option without a hand-made control gets a generic one.
        for (const char *key : {"ep", "micro_batches", "compute_efficiency", "memory_efficiency", "structured_sparsity",
                                "unstructured_sparsity", "recompute", "optimizer", "zero_stage"})
            QVERIFY2(panel.optionControl(QString::fromLatin1(key)), key);
    }

    // One precision list (issue #39): the window's boxes, A's and B's, offer exactly what the command line's
    // --weights, --activations and --kv offer, in the same order, and each item sets the format the command line
    // reads from the same name.
    void precisionBoxesOfferTheCommandLinesLists()
    {
        ui::ScenarioDocument doc(uitest::library());
        ui::ControlsPanel panel(&doc);
        ui::ComparePanel compare(&doc);
        auto offered = [](const QComboBox *box) {
            QStringList texts;
            for (int i = 0; i < box->count(); ++i)
                if (box->itemData(i).toInt() >= 0) // not the scenario's own format or "same as A"
                    texts << box->itemText(i);
            return texts;
        };
        for (const auto &[key, compareName] :
             {std::pair{"weights", "compareWeights"}, {"activations", "compareActivations"}, {"kv", "compareKv"}}) {
            const std::vector<std::string> &cli = core::findOption(key)->choices;
            auto *box = panel.findChild<QComboBox *>(QString::fromLatin1(key));
            QVERIFY2(box, key);
            QVERIFY2(!cli.empty(), key);
            QCOMPARE(offered(box).size(), static_cast<qsizetype>(cli.size()));
            auto *other = compare.findChild<QComboBox *>(QString::fromLatin1(compareName));
            QVERIFY2(other, compareName);
            QCOMPARE(offered(other), offered(box));
            for (std::size_t i = 0; i < cli.size(); ++i) {
                const int item = box->findText(offered(box).at(static_cast<qsizetype>(i)));
                box->setCurrentIndex(item);
                emit box->activated(item);
                const core::Scenario &s = doc.scenario();
                core::Scenario expected = s;
                core::WhatIf w;
                QCOMPARE(core::findOption(key)->set(expected, w, core::OptionValue(cli[i])), std::string());
                QVERIFY2(s.weights == expected.weights && s.activations == expected.activations && s.kv == expected.kv,
                         qPrintable(QStringLiteral("%1: item %2 is not %3").arg(key).arg(i).arg(ui::qs(cli[i]))));
            }
        }
        // Formats the window used to leave out are there: plain fp4 weights, tf32 activations, an fp6 KV cache.
        QVERIFY(panel.findChild<QComboBox *>("weights")->findText("fp4") >= 0);
        QVERIFY(panel.findChild<QComboBox *>("activations")->findText("tf32") >= 0);
        QVERIFY(panel.findChild<QComboBox *>("kv")->findText("fp6") >= 0);
    }

    void genericControlIsOneUndoStep()
    {
        ui::ScenarioDocument doc(uitest::library());
        ui::ControlsPanel panel(&doc);
        ui::OptionControl *zero = panel.optionControl("zero_stage");
        auto *spin = qobject_cast<QSpinBox *>(zero->editor());
        QVERIFY(spin);
        const int before = doc.undoStack()->index();
        spin->setValue(2);
        QCOMPARE(doc.scenario().zeroStage, 2);
        QCOMPARE(doc.undoStack()->index(), before + 1);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("ZeRO stage 2"));
        doc.undoStack()->undo();
        QCOMPARE(doc.scenario().zeroStage, 0);
        QCOMPARE(spin->value(), 0); // written back from the document
    }

    // moe_tp and moe_ep 0 mean "derived from the other degrees", speculative_k 0 "off": the window shows the word, not
    // a count of 0 devices, and the command line takes the word for 0.
    void zeroThatMeansAChoiceIsShownAsTheChoice()
    {
        ui::ScenarioDocument doc(uitest::library());
        ui::ControlsPanel panel(&doc);
        for (auto [key, word] : {std::pair{"moe_tp", "auto"}, {"moe_ep", "auto"}, {"speculative_k", "off"}}) {
            auto *spin = qobject_cast<QSpinBox *>(panel.optionControl(key)->editor());
            QVERIFY2(spin, key);
            QCOMPARE(spin->value(), 0);
            QCOMPARE(spin->text(), QString::fromLatin1(word));
            spin->setValue(2);
            QCOMPARE(spin->text(), QStringLiteral("2"));
            core::OptionValue v;
            QCOMPARE(core::parseOptionText(*core::findOption(key), word, &v), std::string());
            QCOMPARE(std::get<int64_t>(v), int64_t(0));
        }
        QByteArray err;
        QCOMPARE(cliExit({"analyze", "--model", "deepseek-v3", "--tp", "8", "--moe-ep", "auto", "--moe-tp", "auto",
                          "--json"},
                         &err),
                 0);
        QCOMPARE(cliExit({"analyze", "--moe-ep", "automatic"}, &err), 2);
        QVERIFY2(err.contains("'automatic' is not a whole number"), err.constData());
    }

    void sweepFieldsComeFromTheTable()
    {
        // Every whole-number scenario option can be swept, and a swept value outside its range is refused up front.
        for (std::string_view f : core::sweepableFields()) {
            const core::ScenarioOption &o = *core::findOption(f);
            QCOMPARE(o.kind, OptionKind::Integer);
            const std::string spec = std::string(f) + "=" + std::to_string(static_cast<int64_t>(o.max) + 1);
            QVERIFY_THROWS_EXCEPTION(core::AnalysisError, core::parseSweepAxis(spec));
        }
        QVERIFY_THROWS_EXCEPTION(core::AnalysisError, core::parseSweepAxis("structured_sparsity=1"));
    }
};

QTEST_MAIN(TstOptions)
#include "tst_options.moc"
