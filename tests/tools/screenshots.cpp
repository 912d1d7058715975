// The screenshot tool: a developer's pictures of the whole window in its main states (the roofline after typing
// batches, achievable efficiency, the dark theme, search with targets, validation, DeepSeek-V3, Gemma 3, Mamba-2,
// ViT, trends, a long headline at 1280 x 720, the custom all-reduce, dynamic FP8 scales), driven as a person does.
// Not a test: it is built with the suites but CTest does not run it. See docs/quality.md, "Looking at the window".
//
//   xvfb-run -a -s '-screen 0 1600x1000x24' build-test/tests/memwall-screenshots /tmp/shots/window.png
//
// saves window.png, window-batch64.png, window-dark.png, ... beside the name given. The checks it makes on the way
// (a typed batch took, a search found bands) stop it where the window did not do what the pictures show.
#include "ui/charts/chartbase.h"
#include "ui/charts/charttabs.h"
#include "ui/charts/searchchart.h"
#include "ui/controls/controlspanel.h"
#include "ui/controls/logslider.h"
#include "ui/document/scenariodocument.h"
#include "ui/mainwindow.h"
#include "ui/settings/settingsfile.h"
#include "ui/widgets/headlinebar.h"
#include "ui/widgets/searchtargetspanel.h"

#include <QDoubleSpinBox>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

#include "../ui/windowdriver.h"

#include <cstdio>
#include <memory>

using namespace memwall;

class Screenshots : public QObject
{
    Q_OBJECT
public:
    explicit Screenshots(QString out) : m_out(std::move(out)) {}

private:
    QString m_out;
    std::shared_ptr<core::PresetLibrary> m_lib;
    std::unique_ptr<ui::ScenarioDocument> m_doc;
    std::unique_ptr<ui::MainWindow> m_window;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the user's settings stay as they are
        QCoreApplication::setOrganizationName("MemWallTest");
        QCoreApplication::setApplicationName("memwall-screenshots");
        ui::useCheckedSettings();
        QSettings().clear();
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
        m_doc = std::make_unique<ui::ScenarioDocument>(m_lib);
        m_window = std::make_unique<ui::MainWindow>(m_doc.get());
        m_window->resize(1600, 1000);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    // Long because it is one walk through the window as a person would take it, each picture in the state the ones
    // before it left (device, model, theme, tab); split into steps, each would have to rebuild that state.
    void takeScreenshots()
    {
        const QString out = m_out;
        QTest::qWait(50);
        QVERIFY(m_window->grab().save(out));
        // The roofline after typing 64, then 256, into the batch box, as the screen shows it (the window's own pixels,
        // which a tick repaints only in part, not a fresh render).
        for (const char *batch : {"64", "256"}) {
            windowdriver::type(m_window->controls()->batchSlider()->spinBox(), QLatin1String(batch));
            QTest::qWait(50);
            QString typed = out;
            typed.replace(".png", QStringLiteral("-batch%1.png").arg(QLatin1String(batch)));
            QVERIFY(m_window->screen()->grabWindow(m_window->winId()).save(typed));
        }
        // The headline with achievable efficiency: the band measured runs fell in.
        {
            core::Scenario a = m_doc->scenario();
            a.efficiency = core::EfficiencyMode::Achievable;
            m_doc->setScenario(a, "efficiency");
            QTest::qWait(50);
            QVERIFY(windowdriver::grabAs(m_window.get(), out, "-achievable"));
            a.efficiency = core::EfficiencyMode::Ideal;
            m_doc->setScenario(a, "efficiency");
        }
        // A second state: generate on an H200 with int4 weights, dark theme, the sweep tab.
        m_doc->setHardwareById("h200-sxm");
        core::Scenario s = m_doc->scenario();
        s.phase = core::Phase::Generate;
        s.batch = 16;
        s.weights = {core::DType::INT4, 128, core::DType::FP16};
        m_doc->setScenario(s, "generate");
        m_window->applyTheme("dark");
        m_window->chartTabs()->setCurrentIndex(std::min(2, m_window->chartTabs()->count() - 1));
        QTest::qWait(50);
        QString second = out;
        second.replace(".png", "-dark.png");
        QVERIFY(m_window->grab().save(second));
        // A third: the search tab (its targets panel beside the front), after the device change above.
        const auto showTab = [this](const char *id) { return windowdriver::showTab(m_window.get(), id); };
        QVERIFY(showTab("search"));
        showTab("search")->settle();
        QTest::qWait(50);
        QString third = out;
        third.replace(".png", "-search.png");
        QVERIFY(m_window->grab().save(third));
        m_window->applyTheme("light");
        // A fourth: Llama 3 70B on H100, H200, B200 and MI300X with achievable efficiency, the targets typed into the
        // panel (TTFT 1 s, TPOT 50 ms): the front with its bands and its ways of serving, as the screen shows it.
        m_doc->setModelById("llama-3-70b");
        core::Scenario g = m_doc->scenario();
        g.efficiency = core::EfficiencyMode::Achievable;
        g.weights = {core::DType::FP16, 0, core::DType::FP16};
        m_doc->setScenario(g, "achievable");
        auto *search = qobject_cast<ui::SearchChart *>(showTab("search"));
        QVERIFY(search);
        search->setDeviceIds({"h100-sxm", "h200-sxm", "b200", "mi300x"});
        auto *panel = m_window->findChild<ui::SearchTargetsPanel *>();
        QVERIFY(panel);
        for (auto [box, text] : {std::pair{panel->maxTtft(), "1000"}, std::pair{panel->maxTpot(), "50"}})
            windowdriver::type(box, QLatin1String(text));
        search->settle();
        QCOMPARE(search->targets().maxTtftS, 1.0);
        QVERIFY(!search->paintedBands().isEmpty());
        QTest::qWait(50);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-search-llama-3-70b"));
        // A fifth: the validation tab after a device change (its rings follow the device), as the screen shows it.
        m_doc->setHardwareById("a100-80gb-sxm");
        QVERIFY(showTab("validation"));
        QTest::qWait(50);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-validation"));
        // A sixth: the sweep tab with achievable efficiency after typing 8 into the batch box: the band around the
        // time curve, as the screen shows it after a tick.
        m_doc->setHardwareById("h100-sxm");
        m_doc->setModelById("llama-2-7b");
        QVERIFY(showTab("sweep"));
        // Types a batch into the batch box as a person does.
        const auto typeBatch = [this](const char *batch) {
            windowdriver::type(m_window->controls()->batchSlider()->spinBox(), QLatin1String(batch));
        };
        typeBatch("8");
        QCOMPARE(m_doc->scenario().batch, int64_t(8));
        QTest::qWait(50);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-sweep-band"));
        // A seventh: DeepSeek-V3 (latent attention, dense layers before the experts) on 8 B200s, the roofline after
        // typing 64 into the batch box; an eighth: Gemma 3 1B's memory at 32k tokens (5 local layers to 1 global).
        m_doc->setHardwareById("b200");
        m_doc->setModelById("deepseek-v3");
        core::Scenario d = m_doc->scenario();
        d.efficiency = core::EfficiencyMode::Ideal;
        d.tp = 8;
        m_doc->setScenario(d, "tp");
        QVERIFY(showTab("roofline"));
        typeBatch("64");
        QCOMPARE(m_doc->scenario().batch, int64_t(64));
        QTest::qWait(50);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-deepseek-v3"));
        m_doc->setModelById("gemma-3-1b");
        core::Scenario g3 = m_doc->scenario();
        g3.tp = 1;
        g3.context = 32000;
        m_doc->setScenario(g3, "context");
        QVERIFY(showTab("memory"));
        QTest::qWait(50);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-gemma-3-memory"));
        // A ninth: Mamba-2 2.7B at batch 64 and 32k tokens: no KV cache, a state per sequence.
        m_doc->setModelById("mamba2-2-7b");
        typeBatch("64");
        QCOMPARE(m_doc->scenario().batch, int64_t(64));
        QTest::qWait(50);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-mamba2-memory"));
        // A tenth: ViT-L/32 picked in the model picker, encoding batches of 64 images of 50 tokens, on the roofline.
        QVERIFY(windowdriver::pick(m_window.get(), "modelPicker", "vit-large-patch32-224"));
        QCOMPARE(m_doc->scenario().seq, int64_t(50));
        QVERIFY(showTab("roofline"));
        QTest::qWait(50);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-vit-roofline"));
        // An eleventh: the trends tab after picking another device in the device picker (its marker moves; the
        // added devices and the refits stay).
        QVERIFY(showTab("trends"));
        QVERIFY(windowdriver::pick(m_window.get(), "devicePicker", "mi355x"));
        QCOMPARE(QString::fromStdString(m_doc->hardware().id), QStringLiteral("mi355x"));
        QTest::qWait(50);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-trends-mi355x"));
        // A twelfth: GPT-2 picked at a context past its 1,024 learned positions; the headline notes it.
        QVERIFY(windowdriver::pick(m_window.get(), "modelPicker", "gpt2"));
        core::Scenario past = m_doc->scenario();
        past.phase = core::Phase::Decode;
        past.context = 2048;
        m_doc->setScenario(past, "context");
        QVERIFY(m_window->headline()->explanationText().contains("Note: this run reaches position 2,049"));
        QVERIFY(showTab("roofline"));
        QTest::qWait(50);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-gpt2-positions"));
        // A thirteenth, the longest headline: Llama 2 70B does not fit at 8,192 tokens of context, past the 4,096 it
        // was trained on, in a 1280 x 720 window.
        QVERIFY(windowdriver::pick(m_window.get(), "modelPicker", "llama-2-70b"));
        core::Scenario longer = m_doc->scenario();
        longer.context = 8192;
        m_doc->setScenario(longer, "context");
        m_window->resize(1280, 720);
        QTest::qWait(100);
        QVERIFY(m_window->headline()->explanationText().contains("does not fit"));
        QVERIFY(m_window->headline()->explanationText().contains("Note: this run reaches position 8,193"));
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-llama-2-70b-8k-1280"));
        // A fourteenth: the same model at 2,048 tokens on 8 H100s with achievable efficiency, the engine's custom
        // all-reduce picked in the Options group as a person does: the communication row and the headline shrink.
        m_window->resize(1600, 1000);
        QVERIFY(windowdriver::pick(m_window.get(), "devicePicker", "h100-sxm"));
        core::Scenario tp8 = m_doc->scenario();
        tp8.context = 2048;
        tp8.batch = 1;
        tp8.tp = 8;
        tp8.efficiency = core::EfficiencyMode::Achievable;
        m_doc->setScenario(tp8, "tp");
        const double library = m_doc->analysis().totals.timeS;
        QVERIFY(windowdriver::choose(m_window.get(), "allreduce", "custom"));
        QVERIFY(m_doc->scenario().allReduce == core::AllReduce::Custom);
        QVERIFY(m_doc->analysis().totals.timeS < library);
        QTest::qWait(100);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-allreduce-custom"));
        // A fifteenth: FP8 weights and activations on the same 8 H100s, then dynamic activation scales picked in the
        // Options group, as vLLM quantizes a BF16 checkpoint online: the quantize kernels lengthen the step.
        core::Scenario fp8 = m_doc->scenario();
        fp8.weights = core::WeightFormat{core::DType::FP8, 0, core::DType::FP16};
        fp8.activations = core::DType::FP8;
        m_doc->setScenario(fp8, "activations");
        const double fused = m_doc->analysis().totals.timeS;
        QVERIFY(windowdriver::choose(m_window.get(), "activation_scales", "dynamic"));
        QVERIFY(m_doc->scenario().activationScales == core::ActivationScales::Dynamic);
        QVERIFY(m_doc->analysis().totals.quantizeS > 0);
        QVERIFY(std::abs(m_doc->analysis().totals.timeS - fused - m_doc->analysis().totals.quantizeS) < 1e-12);
        QTest::qWait(100);
        QVERIFY(windowdriver::grabAs(m_window.get(), out, "-activation-scales-dynamic"));
    }
};

int main(int argc, char **argv)
{
    if (argc != 2 || !QString::fromLocal8Bit(argv[1]).endsWith(".png")) {
        std::fprintf(stderr, "usage: memwall-screenshots OUT.png   (pictures are saved beside OUT.png)\n");
        return 2;
    }
    QApplication app(argc, argv);
    Screenshots tool(QString::fromLocal8Bit(argv[1]));
    const char *testArgs[] = {argv[0], "-silent"};
    return QTest::qExec(&tool, 2, const_cast<char **>(testArgs));
}

#include "screenshots.moc"
