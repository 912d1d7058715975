// Compare mode: picking device B or B's formats fills the delta table from ScenarioDocument::compareAnalysis(),
// "None" clears it, "same as A" drops an override, the table and status name what B changes, a B that does not
// analyse says why in one line, the table follows analysisChanged, and the headline metrics point the right way.
#include "core/io/presets.h"
#include "ui/controls/presetpicker.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"
#include "ui/widgets/comparemetrics.h"
#include "ui/widgets/comparepanel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTest>
#include <QToolButton>

#include <algorithm>
#include <cmath>

using namespace memwall;

namespace {
int rowOf(QTableWidget *t, const QString &metric)
{
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, 0)->text() == metric)
            return r;
    return -1;
}
void pick(ui::ComparePanel &panel, const QString &id)
{
    const int row = panel.picker()->findData(id);
    QVERIFY2(row >= 0, qPrintable(id));
    panel.picker()->setCurrentIndex(row);
    emit panel.picker()->activated(row); // what a click in the list does
}
/// Chooses the item with this text in a format picker as a click in its list does.
void choose(QComboBox *box, const QString &text)
{
    const int row = box->findText(text);
    QVERIFY2(row >= 0, qPrintable(text));
    box->setCurrentIndex(row);
    emit box->activated(row);
}
bool near(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)); }
} // namespace

class TestComparePanel : public QObject
{
    Q_OBJECT
private:
    std::shared_ptr<core::PresetLibrary> m_lib;

private slots:
    void initTestCase()
    {
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
    }

    // Issue #41: at 1024 x 768 the compare dock asked for more width than the screen left beside the Controls and
    // the chart, and the window grew past the screen's edge (its combos asked for their longest item's width). With
    // B chosen and its table filled, the panel is as narrow as its table's whole figure columns allow: the combos
    // and the picker add nothing to it.
    void panelStaysNarrow()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        pick(panel, "h200-sxm");
        QVERIFY(doc.compareHardware());
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QMargins m = panel.layout()->contentsMargins();
        const int table = std::max(panel.table()->minimumWidth(), panel.table()->minimumSizeHint().width());
        const int want = panel.minimumSizeHint().width();
        QVERIFY2(want <= table + m.left() + m.right() + 2,
                 qPrintable(QStringLiteral("the panel asks %1 px, its table %2 px").arg(want).arg(table)));
    }

    // A slider tick costs nothing here while the panel is hidden in a window on screen (its dock closed, or a tab
    // behind the Controls): it falls behind, and catches up, whole, when it is shown (issue #41, the tick's cost).
    void hiddenPanelCatchesUpWhenShown()
    {
        ui::ScenarioDocument doc(m_lib);
        QWidget window;
        auto *panel = new ui::ComparePanel(&doc, &window);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!panel->isStale());
        panel->hide();
        doc.setCompareHardware(*m_lib->findHardware("mi300x"));
        core::Scenario s = doc.scenario();
        s.batch = 24;
        doc.setScenario(s, QStringLiteral("batch"));
        QVERIFY(panel->isStale());
        QCOMPARE(panel->table()->rowCount(), 0); // not drawn: still the panel of "no B"
        panel->show();
        QVERIFY(!panel->isStale());
        const auto expected = ui::compareMetrics(doc.analysis(), *doc.compareAnalysis(), doc.scenario());
        QCOMPARE(panel->table()->rowCount(), int(expected.size()));
        for (int r = 0; r < panel->table()->rowCount(); ++r) {
            const ui::CompareMetric &m = expected[static_cast<std::size_t>(r)];
            QCOMPARE(panel->table()->item(r, 0)->text(), m.name);
            QCOMPARE(panel->table()->item(r, 1)->text(), m.a);
            QCOMPARE(panel->table()->item(r, 2)->text(), m.b);
        }
        QVERIFY2(panel->table()->horizontalHeaderItem(2)->text().contains(doc.compareSummary()),
                 qPrintable(panel->table()->horizontalHeaderItem(2)->text()));
        // Shown, it follows every change again at once.
        s.batch = 48;
        doc.setScenario(s, QStringLiteral("batch"));
        QVERIFY(!panel->isStale());
        const auto now = ui::compareMetrics(doc.analysis(), *doc.compareAnalysis(), doc.scenario());
        QCOMPARE(panel->table()->item(0, 1)->text(), now.front().a);
    }

    void choosingBFillsTable_data()
    {
        QTest::addColumn<QString>("b");
        QTest::newRow("H100 vs MI300X") << "mi300x";
        QTest::newRow("H100 vs A100 80GB") << "a100-80gb-sxm";
        QTest::newRow("H100 vs H100") << "h100-sxm";
        QTest::newRow("H100 vs TPU v5e") << "tpu-v5e";
    }
    void choosingBFillsTable()
    {
        QFETCH(QString, b);
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        QTableWidget *table = panel.table();
        QCOMPARE(table->rowCount(), 0);
        QVERIFY(!doc.compareHardware());

        pick(panel, b);
        QVERIFY(doc.compareHardware());
        QCOMPARE(QString::fromStdString(doc.compareHardware()->id), b);
        QVERIFY(doc.compareAnalysis());
        const auto expected = ui::compareMetrics(doc.analysis(), *doc.compareAnalysis(), doc.scenario());
        QCOMPARE(table->rowCount(), int(expected.size()));
        // The header names B's device (without its vendor: "Instinct MI300X").
        const QString header = table->horizontalHeaderItem(2)->text();
        QVERIFY2(header.startsWith("B: ") && header.contains(doc.compareSummary()), qPrintable(header));
        QVERIFY(QString::fromStdString(doc.compareHardware()->name).endsWith(doc.compareSummary()));

        const int time = rowOf(table, "Time per token");
        QVERIFY(time >= 0);
        QCOMPARE(table->item(time, 1)->text(), ui::formatSeconds(doc.analysis().totals.timeS));
        QCOMPARE(table->item(time, 2)->text(), ui::formatSeconds(doc.compareAnalysis()->totals.timeS));
        const double ratio = doc.compareAnalysis()->totals.timeS / doc.analysis().totals.timeS;
        QCOMPARE(table->item(time, 3)->text(), ui::formatNumber(ratio) + "×");
        QVERIFY(rowOf(table, "Fits") >= 0);
        QVERIFY(rowOf(table, "KV cache in all") >= 0);
        QVERIFY(rowOf(table, "Ridge point per device") >= 0);
        QVERIFY(rowOf(table, "Communication time per device") >= 0);
    }

    // Every amount says whether it is one device's or all of them (issue #41 item 10: "KV cache 5.37 GB", all devices,
    // sat beside "memory per device 5.08 GB").
    void everyAmountSaysPerDeviceOrInAll()
    {
        ui::ScenarioDocument doc(m_lib);
        core::Scenario s = doc.scenario();
        s.tp = 2;
        doc.setScenario(s, "tp");
        ui::ComparePanel panel(&doc);
        pick(panel, "mi300x");
        const auto rows = ui::compareMetrics(doc.analysis(), *doc.compareAnalysis(), doc.scenario());
        int amounts = 0;
        for (const auto &r : rows) {
            static const QRegularExpression unit(QStringLiteral("(B|B/s|FLOP/s|FLOP/B)$"));
            if (!r.numeric || !(unit.match(r.a).hasMatch() || r.name.startsWith("Tokens")))
                continue;
            ++amounts;
            QVERIFY2(r.name.contains("per device") || r.name.contains("in all"), qPrintable(r.name + ": " + r.a));
        }
        QVERIFY(amounts >= 8);
        // The KV cache of one device is the memory chart's, and the one in all is split over the TP 2 devices.
        const auto kv =
            std::find_if(rows.begin(), rows.end(), [](const auto &r) { return r.name == "KV cache per device"; });
        QVERIFY(kv != rows.end());
        QCOMPARE(kv->valueA, doc.analysis().memory.kv);
        QVERIFY(kv->valueA < doc.analysis().kvCache.totalBytes);
    }

    // The B / A column is whole in a dock of a 1600-pixel window and in a narrow one.
    void ratioColumnNotCut_data()
    {
        QTest::addColumn<int>("width");
        QTest::newRow("dock of a 1600 px window") << 420;
        QTest::newRow("narrow dock") << 300;
    }
    void ratioColumnNotCut()
    {
        QFETCH(int, width);
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        panel.resize(width, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        pick(panel, "mi300x");
        QCoreApplication::processEvents();
        QTableWidget *t = panel.table();
        const int right = t->horizontalHeader()->sectionViewportPosition(3) + t->horizontalHeader()->sectionSize(3);
        QVERIFY2(right <= t->viewport()->width(),
                 qPrintable(QStringLiteral("B / A ends at %1 of %2 px").arg(right).arg(t->viewport()->width())));
        QVERIFY(t->horizontalHeader()->sectionSize(3) >= t->horizontalHeader()->sectionSizeHint(3));
    }

    void noneClears()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        pick(panel, "mi300x");
        QVERIFY(doc.compareAnalysis());
        QVERIFY(panel.table()->rowCount() > 0);
        pick(panel, QString()); // "None (compare off)"
        QVERIFY(!doc.compareHardware());
        QVERIFY(!doc.compareAnalysis());
        QCOMPARE(panel.table()->rowCount(), 0);
        QVERIFY(!panel.findChild<QToolButton *>("swapButton")->isEnabled());
    }

    void followsTheDocument()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        pick(panel, "mi300x");
        const int tps = rowOf(panel.table(), "Tokens/s in all");
        const QString before = panel.table()->item(tps, 2)->text();
        core::Scenario s = doc.scenario();
        s.batch = 64;
        doc.setScenario(s, "batch");
        QVERIFY(panel.table()->item(tps, 2)->text() != before);
        QCOMPARE(panel.table()->item(tps, 2)->text(), ui::formatNumber(doc.compareAnalysis()->totals.tokensPerS));
        // Set from elsewhere (a menu action): the picker shows it.
        doc.setCompareHardware(*m_lib->findHardware("b200"));
        QCOMPARE(panel.picker()->currentId(), QString("b200"));
        QVERIFY(panel.table()->horizontalHeaderItem(2)->text().contains("B200"));
    }

    // B = A with other formats on A's own device: Llama-2-70B decode on an H100, batch 1.
    void formatPickersSetB_data()
    {
        QTest::addColumn<QString>("picker");
        QTest::addColumn<QString>("choice");
        QTest::addColumn<QString>("summary");
        QTest::addColumn<QString>("row");
        QTest::newRow("fp16 -> int4 weights") << "compareWeights"
                                              << "int4"
                                              << "int4 weights"
                                              << "Weight format";
        QTest::newRow("fp16 -> int4-g128 weights") << "compareWeights"
                                                   << "int4 (g128 fp16 scales)"
                                                   << "int4-g128 weights"
                                                   << "Weight format";
        QTest::newRow("fp16 -> fp8 KV cache") << "compareKv"
                                              << "fp8"
                                              << "fp8 KV cache"
                                              << "KV-cache format";
        QTest::newRow("fp16 -> fp8 activations") << "compareActivations"
                                                 << "fp8"
                                                 << "fp8 activations"
                                                 << "Activation format";
    }
    void formatPickersSetB()
    {
        QFETCH(QString, picker);
        QFETCH(QString, choice);
        QFETCH(QString, summary);
        QFETCH(QString, row);
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        auto *box = panel.findChild<QComboBox *>(picker);
        QVERIFY(box);
        QVERIFY(!doc.isComparing());
        QCOMPARE(box->currentIndex(), 0);
        QCOMPARE(box->itemText(0), QString("same as A (fp16)"));

        choose(box, choice); // with comparison off: compare A with itself in that format
        QVERIFY(doc.isComparing());
        QVERIFY(!doc.compareHardware()); // same device as A
        QCOMPARE(panel.picker()->currentId(), ui::ComparePanel::sameDeviceId());
        QCOMPARE(doc.compareSummary(), summary);
        QVERIFY(doc.compareAnalysis());
        QVERIFY(doc.compareError().isEmpty());
        QCOMPARE(doc.compareDevice().id, doc.hardware().id);
        // The table and the status line name what B changes.
        QCOMPARE(panel.table()->horizontalHeaderItem(2)->text(), "B: " + summary);
        QVERIFY2(panel.statusLabel()->text().startsWith("B: " + summary + " — "),
                 qPrintable(panel.statusLabel()->text()));
        const int r = rowOf(panel.table(), row);
        QVERIFY(r >= 0);
        QCOMPARE(panel.table()->item(r, 3)->text(), QString("differs"));
        QVERIFY(panel.table()->item(r, 2)->text().startsWith(choice.left(4)));
        QVERIFY(panel.findChild<QToolButton *>("swapButton")->isEnabled());
        // A's scenario is untouched (view state): nothing to undo.
        QVERIFY(doc.scenario().weights.type == core::DType::FP16);
        QCOMPARE(doc.undoStack()->count(), 0);

        choose(box, box->itemText(0)); // "same as A": the override goes, comparison stays on
        QVERIFY(doc.isComparing());
        QCOMPARE(doc.compareSummary(), QString("same as A"));
        QVERIFY(doc.compareScenario() == doc.scenario());
        QVERIFY(!panel.findChild<QToolButton *>("swapButton")->isEnabled());
    }

    // Llama-2-70B decode at batch 1 on an H100: int4 weights are a quarter of fp16's 138 GB, and the memory-bound
    // step that streams them gets faster.
    void int4WeightsOnOneDevice()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        choose(panel.weightsPicker(), "int4 (g128 fp16 scales)");
        const core::Analysis &a = doc.analysis();
        const core::Analysis &b = *doc.compareAnalysis();
        QVERIFY(near(a.memory.weights, 138e9, 0.01));
        QVERIFY(near(b.memory.weights, a.memory.weights * 4.125 / 16, 1e-9)); // 4 bits + one fp16 scale per 128
        QVERIFY(near(b.memory.kv, a.memory.kv, 1e-12));
        QVERIFY(b.totals.timeS < a.totals.timeS * 0.5);
        const int time = rowOf(panel.table(), "Time per token");
        QCOMPARE(panel.table()->item(time, 2)->text(), ui::formatSeconds(b.totals.timeS));
        QCOMPARE(panel.table()->item(time, 3)->data(Qt::ForegroundRole).value<QBrush>().color(), QColor("#009E73"));
        // A later edit of A (the batch) carries over to B; B keeps its override.
        core::Scenario s = doc.scenario();
        s.batch = 8;
        doc.setScenario(s, "batch");
        QCOMPARE(doc.compareScenario().batch, int64_t(8));
        QVERIFY(doc.compareScenario().weights.type == core::DType::INT4);
        QCOMPARE(panel.weightsPicker()->currentText(), QString("int4 (g128 fp16 scales)"));
    }

    // A device and a format together; the summary lists both, and None turns everything off.
    void deviceAndFormat()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        pick(panel, "mi300x");
        choose(panel.weightsPicker(), "int4");
        QCOMPARE(doc.compareSummary(), QString("Instinct MI300X, int4 weights"));
        QCOMPARE(doc.compareLabel(), QString("B: Instinct MI300X, int4 weights"));
        QCOMPARE(panel.table()->horizontalHeaderItem(2)->text(), QString("B: Instinct MI300X\nint4 weights"));
        QCOMPARE(doc.compareAnalysis()->memory.capacity, 192e9);
        pick(panel, ui::ComparePanel::sameDeviceId()); // keeps the format
        QCOMPARE(doc.compareSummary(), QString("int4 weights"));
        pick(panel, "mi300x");
        pick(panel, QString());
        QVERIFY(!doc.isComparing());
        QVERIFY(!doc.compareAnalysis());
        QCOMPARE(panel.weightsPicker()->currentIndex(), 0);
        QCOMPARE(panel.table()->rowCount(), 0);
        QCOMPARE(panel.table()->horizontalHeaderItem(2)->text(), QString("B"));
    }

    // A B that does not analyse has no analysis, and the panel says why in one line; A is unaffected.
    void bThatDoesNotAnalyse()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        core::HardwareSpec broken = *m_lib->findHardware("h100-sxm");
        broken.id = "h100-no-bandwidth";
        broken.name = "H100 without bandwidth";
        broken.memory[broken.mainMemoryIndex()].bandwidthBytesPerS.value = 0;
        const double timeA = doc.analysis().totals.timeS;
        doc.setCompareHardware(broken);
        QVERIFY(doc.isComparing());
        QVERIFY(!doc.compareAnalysis());
        QCOMPARE(doc.compareError(), QString("hardware h100-no-bandwidth has no usable compute peak or bandwidth"));
        QCOMPARE(panel.table()->rowCount(), 0);
        QCOMPARE(
            panel.statusLabel()->text(),
            QString("B (H100 without bandwidth) cannot run this scenario: hardware h100-no-bandwidth has no usable "
                    "compute peak or bandwidth"));
        QVERIFY(!panel.statusLabel()->text().contains('\n'));
        QCOMPARE(panel.picker()->currentText(), QString("H100 without bandwidth")); // not a preset: its name
        QCOMPARE(doc.analysis().totals.timeS, timeA);
        QVERIFY(doc.analysisError().isEmpty());
        // A good device again: the error goes.
        pick(panel, "mi300x");
        QVERIFY(doc.compareAnalysis());
        QVERIFY(doc.compareError().isEmpty());
    }

    // Every control has a tooltip and a keyboard way in (a label with a mnemonic as its buddy, or its own).
    void toolTipsAndKeyboard()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        const QList<QWidget *> controls{panel.picker(),
                                        panel.findChild<QToolButton *>("swapButton"),
                                        panel.weightsPicker(),
                                        panel.kvPicker(),
                                        panel.activationsPicker(),
                                        panel.table()};
        for (QWidget *w : controls) {
            QVERIFY2(!w->toolTip().isEmpty(), qPrintable(w->objectName()));
            QVERIFY2(w->focusPolicy() & Qt::TabFocus, qPrintable(w->objectName()));
        }
        QStringList mnemonics;
        for (QLabel *label : panel.findChildren<QLabel *>()) {
            if (!label->buddy())
                continue;
            const int amp = label->text().indexOf('&');
            QVERIFY2(amp >= 0, qPrintable(label->text()));
            mnemonics << label->text().mid(amp + 1, 1).toLower();
        }
        QCOMPARE(mnemonics.size(), 4); // device and the three formats
        const int amp = panel.findChild<QToolButton *>("swapButton")->text().indexOf('&');
        QVERIFY(amp >= 0);
        mnemonics << panel.findChild<QToolButton *>("swapButton")->text().mid(amp + 1, 1).toLower();
        QCOMPARE(QSet<QString>(mnemonics.begin(), mnemonics.end()).size(), mnemonics.size()); // no clashes
        // The tooltip of the device picker survives the document writing the current device back.
        pick(panel, "mi300x");
        QVERIFY(panel.picker()->toolTip().startsWith("Device B"));
    }

    void swapMakesBCurrent()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        pick(panel, "mi300x");
        QTest::mouseClick(panel.findChild<QToolButton *>("swapButton"), Qt::LeftButton);
        QCOMPARE(doc.hardware().id, std::string("mi300x"));
        QCOMPARE(doc.compareHardware()->id, std::string("h100-sxm"));
        doc.undoStack()->undo();
        QCOMPARE(doc.hardware().id, std::string("h100-sxm"));
    }

    // Swap carries B's formats into A in one undo step, and A's old formats into B.
    void swapCarriesFormats()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::ComparePanel panel(&doc);
        pick(panel, "mi300x");
        choose(panel.weightsPicker(), "int4");
        const double timeB = doc.compareAnalysis()->totals.timeS;
        QTest::mouseClick(panel.findChild<QToolButton *>("swapButton"), Qt::LeftButton);
        QCOMPARE(doc.hardware().id, std::string("mi300x"));
        QVERIFY(doc.scenario().weights.type == core::DType::INT4);
        QVERIFY(near(doc.analysis().totals.timeS, timeB, 1e-12));
        QCOMPARE(doc.compareHardware()->id, std::string("h100-sxm"));
        QVERIFY(doc.compareScenario().weights.type == core::DType::FP16);
        QCOMPARE(doc.compareSummary(), QString("H100 SXM5 80GB, fp16 weights"));
        QCOMPARE(doc.undoStack()->count(), 1);
        doc.undoStack()->undo();
        QCOMPARE(doc.hardware().id, std::string("h100-sxm"));
        QVERIFY(doc.scenario().weights.type == core::DType::FP16);
    }

    // Llama-2-70B decode at batch 1 is memory-bound: the device with more bandwidth is faster per token.
    void metricsPointTheRightWay_data()
    {
        QTest::addColumn<QString>("b");
        QTest::addColumn<bool>("bFaster");
        QTest::newRow("MI300X 5.3 TB/s beats H100 3.35 TB/s") << "mi300x" << true;
        QTest::newRow("A100 80GB 2.0 TB/s loses to H100") << "a100-80gb-sxm" << false;
    }
    void metricsPointTheRightWay()
    {
        QFETCH(QString, b);
        QFETCH(bool, bFaster);
        ui::ScenarioDocument doc(m_lib);
        const core::HardwareSpec &hwB = *m_lib->findHardware(b.toStdString());
        const core::Analysis ab = core::analyze(hwB, doc.model(), doc.scenario());
        const auto rows = ui::compareMetrics(doc.analysis(), ab, doc.scenario());
        const auto find = [&rows](const QString &name) {
            for (const auto &r : rows)
                if (r.name.startsWith(name))
                    return r;
            return ui::CompareMetric{};
        };
        const auto time = find("Time per token");
        QCOMPARE(time.better, bFaster ? ui::Better::B : ui::Better::A);
        QVERIFY((time.ratio < 1) == bFaster);
        const auto tps = find("Tokens/s in all");
        QCOMPARE(tps.better, bFaster ? ui::Better::B : ui::Better::A);
        const auto bw = find("Memory bandwidth per device");
        const double expected = ab.bandwidth / doc.analysis().bandwidth;
        QVERIFY(std::fabs(bw.ratio - expected) <= 1e-12 * expected);
        const auto bound = find("Bound");
        QVERIFY(!bound.numeric);
        QCOMPARE(bound.a, QString("memory"));
        // Same model and scenario: the memory needed per device does not depend on the device.
        const auto mem = find("Memory per device");
        QCOMPARE(mem.better, ui::Better::Neither);
        QVERIFY(std::fabs(mem.ratio - 1.0) < 1e-12);
    }
};

QTEST_MAIN(TestComparePanel)
#include "tst_comparepanel.moc"
