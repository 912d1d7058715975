// The controls dock writes only through the ScenarioDocument (a drag is one undo step), is written back from the
// document without echo, and survives impossible combinations.
#include "ui/controls/controlspanel.h"
#include "ui/controls/logslider.h"
#include "ui/controls/optioncontrol.h"
#include "ui/controls/presetpicker.h"
#include "ui/controls/whatifgroup.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/cachedgroupbox.h"
#include "ui/util/text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QtTest>

#include <cmath>
#include <memory>

using namespace memwall;
using memwall::ui::ControlsPanel;
using memwall::ui::ScenarioDocument;

namespace {

bool near(double a, double b, double rel = 1e-9) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

/// What a user's pick in a combo box does: the index changes and activated() fires.
void choose(QComboBox *box, const QString &text)
{
    const int row = box->findText(text);
    QVERIFY2(row >= 0, qPrintable(text));
    box->setCurrentIndex(row);
    emit box->activated(row);
}

} // namespace

class TstControls : public QObject
{
    Q_OBJECT

private:
    std::shared_ptr<core::PresetLibrary> m_lib;
    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<ControlsPanel> m_panel;

private slots:
    void initTestCase()
    {
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
    }
    void init()
    {
        m_doc = std::make_unique<ScenarioDocument>(m_lib);
        // A combination that fits and analyses: Llama 2 7B decoding on an H100.
        m_doc->setModelById("llama-2-7b");
        m_doc->undoStack()->clear();
        m_panel = std::make_unique<ControlsPanel>(m_doc.get());
    }
    void cleanup()
    {
        m_panel.reset();
        m_doc.reset();
    }

    void groupBoxesPaintFromAFreshCache()
    {
        // A CachedGroupBox paints what a QGroupBox paints (to the rounding of one compositing step), and paints it
        // again after its title, size or enabled state change rather than showing the stale picture.
        ui::CachedGroupBox cached(QStringLiteral("Workload"));
        QGroupBox plain(QStringLiteral("Workload"));
        auto differing = [&] {
            cached.resize(plain.size());
            const QImage a = cached.grab().toImage().convertToFormat(QImage::Format_RGB32);
            const QImage b = plain.grab().toImage().convertToFormat(QImage::Format_RGB32);
            if (a.size() != b.size())
                return -1;
            int n = 0;
            for (int y = 0; y < a.height(); ++y)
                for (int x = 0; x < a.width(); ++x) {
                    const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
                    n += std::abs(qRed(p) - qRed(q)) > 1 || std::abs(qGreen(p) - qGreen(q)) > 1 ||
                         std::abs(qBlue(p) - qBlue(q)) > 1;
                }
            return n;
        };
        plain.resize(240, 90);
        QCOMPARE(differing(), 0);
        cached.setTitle(QStringLiteral("Precision and parallelism"));
        plain.setTitle(QStringLiteral("Precision and parallelism"));
        QCOMPARE(differing(), 0);
        plain.resize(300, 60);
        QCOMPARE(differing(), 0);
        cached.setEnabled(false);
        plain.setEnabled(false);
        QCOMPARE(differing(), 0);
        // and the comparison sees a change: a box with another title differs
        plain.setTitle(QStringLiteral("Options"));
        QVERIFY(differing() > 0);
    }

    void startsFromTheDocument()
    {
        QCOMPARE(m_panel->batchSlider()->value(), 1.0);
        QCOMPARE(m_panel->contextSlider()->value(), 2048.0);
        QCOMPARE(m_panel->devicePicker()->currentId(), QStringLiteral("h100-sxm"));
        QCOMPARE(m_panel->modelPicker()->currentId(), QStringLiteral("llama-2-7b"));
        QCOMPARE(m_panel->weightsCombo()->currentText(), QStringLiteral("fp16"));
        QCOMPARE(m_panel->phaseCombo()->currentText(), QStringLiteral("decode"));
        QVERIFY(m_panel->errorLabel()->isHidden());
    }

    // Issue #41 item 11: in decode the search and the timeline served the greyed prompt and output while the
    // context slider set the step. One rule (core::serve(): the request is the prompt and the output in every
    // phase), shown in the Controls: in decode the prompt and output boxes are enabled, and a line names both the
    // step's context and the request; in generate the line goes away (its lengths are the request's).
    void decodeShowsWhichRequestTheSearchServes()
    {
        core::Scenario s = m_doc->scenario();
        s.phase = core::Phase::Decode;
        s.seq = 512;
        s.context = 16384;
        s.output = 300;
        m_doc->setScenario(s, QStringLiteral("decode at 16,384"));
        QVERIFY(m_panel->promptSlider()->isEnabled());
        QVERIFY(m_panel->contextSlider()->isEnabled());
        QVERIFY(m_panel->outputSlider()->isEnabled());
        QVERIFY(!m_panel->requestNote()->isHidden());
        const QString note = m_panel->requestNote()->text();
        for (const QString &figure : {memwall::ui::formatGrouped(16384), QStringLiteral("512"), QStringLiteral("300")})
            QVERIFY2(note.contains(figure), qPrintable(note + " lacks " + figure));
        // what the note names is what the timeline serves
        QVERIFY2(m_doc->serving().report, qPrintable(m_doc->serving().error));
        QCOMPARE(m_doc->serving().report->request.stepToken.back(), int64_t(300));

        s.phase = core::Phase::Generate;
        m_doc->setScenario(s, QStringLiteral("generate"));
        QVERIFY(m_panel->promptSlider()->isEnabled());
        QVERIFY(!m_panel->contextSlider()->isEnabled());
        QVERIFY(m_panel->requestNote()->isHidden());
        s.phase = core::Phase::Train;
        m_doc->setScenario(s, QStringLiteral("train"));
        QVERIFY(!m_panel->outputSlider()->isEnabled());
    }

    void batchSpinChangesScenarioAndAnalysis()
    {
        const double before = m_doc->analysis().totals.intensity;
        QSignalSpy changed(m_doc.get(), &ScenarioDocument::analysisChanged);
        auto *spin = m_panel->batchSlider()->spinBox();
        spin->setFocus();
        spin->selectAll();
        QTest::keyClicks(spin, "64");
        QTest::keyClick(spin, Qt::Key_Return);
        QCOMPARE(m_doc->scenario().batch, int64_t{64});
        QVERIFY(changed.count() >= 1);
        // 64 sequences share each weight read: intensity grows by well over 10x.
        QVERIFY2(m_doc->analysis().totals.intensity > 10 * before,
                 qPrintable(QString::number(m_doc->analysis().totals.intensity)));
        QCOMPARE(m_panel->batchSlider()->slider()->value(), m_panel->batchSlider()->positionFor(64));
        QCOMPARE(m_doc->undoStack()->undoText(), QStringLiteral("Batch size 64"));
    }

    void sliderDragIsOneUndoStep()
    {
        QSlider *slider = m_panel->batchSlider()->slider();
        const int startCount = m_doc->undoStack()->count();
        slider->setSliderDown(true);
        for (int pos : {100, 250, 400, 600, 750})
            slider->setValue(pos);
        slider->setSliderDown(false);
        const auto dragged = m_doc->scenario().batch;
        QCOMPARE(dragged, static_cast<int64_t>(m_panel->batchSlider()->valueAt(750)));
        QVERIFY(dragged > 100);
        QCOMPARE(m_doc->undoStack()->count(), startCount + 1);
        QCOMPARE(m_doc->undoStack()->undoText(), QStringLiteral("Batch size %1").arg(dragged));

        m_doc->undoStack()->undo();
        QCOMPARE(m_doc->scenario().batch, int64_t{1});
        QCOMPARE(m_panel->batchSlider()->value(), 1.0);
        QCOMPARE(m_panel->batchSlider()->spinBox()->value(), 1.0);
        m_doc->undoStack()->redo();
        QCOMPARE(m_panel->batchSlider()->value(), static_cast<double>(dragged));
    }

    void keyboardStepsAlwaysMoveAnIntegerSlider()
    {
        QSlider *slider = m_panel->batchSlider()->slider();
        slider->setFocus();
        QTest::keyClick(slider, Qt::Key_Right);
        QCOMPARE(m_doc->scenario().batch, int64_t{2}); // a step too small for 1 -> 1.07 still moves to 2
        QTest::keyClick(slider, Qt::Key_Left);
        QCOMPARE(m_doc->scenario().batch, int64_t{1});
    }

    void documentWritesBackWithoutEcho()
    {
        core::Scenario s = m_doc->scenario();
        s.batch = 32;
        s.context = 8192;
        s.tp = 2;
        s.fusedAttention = false;
        m_doc->setScenario(s, "external edit");
        QCOMPARE(m_doc->undoStack()->count(), 1); // the write-back pushed nothing
        QCOMPARE(m_panel->batchSlider()->value(), 32.0);
        QCOMPARE(m_panel->contextSlider()->spinBox()->value(), 8192.0);
        QCOMPARE(m_panel->tpSpin()->value(), 2);
        QVERIFY(!m_panel->fusedAttentionCheck()->isChecked());
    }

    void weightPrecisionChangesWeightMemory_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<double>("bitsPerWeight");
        QTest::newRow("int8 = 8 bits") << "int8" << 8.0;
        QTest::newRow("int4 = 4 bits") << "int4" << 4.0;
        QTest::newRow("GPTQ int4 g128 = 4.125 bits") << "int4 (g128 fp16 scales)" << 4.125;
        QTest::newRow("fp32 = 32 bits") << "fp32" << 32.0;
        QTest::newRow("NVFP4 = 4 bits + FP8 scale per 16 = 4.5 bits") << "nvfp4 (fp4, g16 fp8 scales)" << 4.5;
        QTest::newRow("MXFP4 = 4 bits + 8-bit scale per 32 = 4.25 bits") << "mxfp4 (fp4, g32 8-bit scales)" << 4.25;
    }
    void weightPrecisionChangesWeightMemory()
    {
        QFETCH(QString, format);
        QFETCH(double, bitsPerWeight);
        const double fp16 = m_doc->analysis().memory.weights;
        choose(m_panel->weightsCombo(), format);
        QVERIFY2(near(m_doc->analysis().memory.weights, fp16 * bitsPerWeight / 16.0),
                 qPrintable(QString::number(m_doc->analysis().memory.weights / fp16)));
        QCOMPARE(m_doc->scenario().weights.bitsPerWeight(), bitsPerWeight);
        QCOMPARE(m_doc->undoStack()->undoText(), QStringLiteral("Weights %1").arg(format));
    }

    void invalidTensorParallelShowsErrorAndKeepsAnalysis()
    {
        const double time = m_doc->analysis().totals.timeS;
        m_panel->tpSpin()->setValue(3); // 32 heads do not split over 3 devices
        QCOMPARE(m_doc->scenario().tp, 3);
        QVERIFY(m_doc->analysisError().contains("tp 3"));
        QVERIFY(!m_panel->errorLabel()->isHidden());
        QCOMPARE(m_panel->errorLabel()->text(), m_doc->analysisError());
        QCOMPARE(m_doc->analysis().totals.timeS, time); // the last valid analysis stays
        m_panel->tpSpin()->setValue(4);
        QVERIFY(m_doc->analysisError().isEmpty());
        QVERIFY(m_panel->errorLabel()->isHidden());
        QCOMPARE(m_doc->scenario().tp, 4);
    }

    void whatIfBandwidthMovesTheRidge()
    {
        const double ridge = m_doc->analysis().ridge;
        auto *spin = m_panel->whatIfGroup()->bandwidthSlider()->spinBox();
        spin->setValue(2.0);
        QCOMPARE(m_doc->file().whatIf.bandwidth, 2.0);
        QVERIFY(near(m_doc->analysis().ridge, ridge / 2.0));
        QVERIFY(m_panel->whatIfGroup()->resetButton()->isEnabled());

        // A drag of the bandwidth slider right after merges into that same step (same merge key).
        const int count = m_doc->undoStack()->count();
        QSlider *slider = m_panel->whatIfGroup()->bandwidthSlider()->slider();
        slider->setSliderDown(true);
        for (int pos : {800, 900, 1000})
            slider->setValue(pos);
        slider->setSliderDown(false);
        QCOMPARE(m_doc->undoStack()->count(), count);
        QVERIFY(m_doc->undoStack()->undoText().contains(QStringLiteral("bandwidth ×8")));
        QVERIFY(near(m_doc->analysis().ridge, ridge / 8.0));

        QTest::mouseClick(m_panel->whatIfGroup()->resetButton(), Qt::LeftButton);
        QVERIFY(m_doc->file().whatIf.isIdentity());
        QVERIFY(near(m_doc->analysis().ridge, ridge));
        QCOMPARE(m_panel->whatIfGroup()->bandwidthSlider()->value(), 1.0);
    }

    void phaseEnablesTheLengthsItUses()
    {
        QVERIFY(m_panel->contextSlider()->isEnabled());
        QVERIFY(m_panel->promptSlider()->isEnabled()); // decode: the request's prompt (search, timeline)
        choose(m_panel->phaseCombo(), "generate");
        QVERIFY(m_doc->scenario().phase == core::Phase::Generate);
        QVERIFY(m_panel->promptSlider()->isEnabled());
        QVERIFY(m_panel->outputSlider()->isEnabled());
        QVERIFY(!m_panel->contextSlider()->isEnabled());
    }

    void checkboxesAndEfficiency()
    {
        const double cachedFlops = m_doc->analysis().totals.flops;
        QTest::mouseClick(m_panel->kvCacheCheck(), Qt::LeftButton);
        QVERIFY(!m_doc->scenario().kvCache);
        // Without a cache each step re-runs the whole 2048-token context.
        QVERIFY(m_doc->analysis().totals.flops > 100 * cachedFlops);
        choose(m_panel->efficiencyCombo(), m_panel->efficiencyCombo()->itemText(1));
        QVERIFY(m_doc->scenario().efficiency == core::EfficiencyMode::Achievable);
        QVERIFY(m_doc->analysis().memoryEfficiency < 1.0);
    }

    // Llama 2 7B decode on 8 H100s, achievable: 64 all-reduces of one token's hidden state, 4,096 x 2 B = 8,192 B.
    // The library's (nccl-tests) took 8,192 x 2 x 7/8 B / 0.53 GB/s = 27.05 us each; the engine's custom all-reduce
    // (aiconfigurator's TensorRT-LLM table) 3.54 us, kept as 4.04844 GB/s of bus bandwidth. One pick, one undo step.
    void allReducePickChangesTheCommunication()
    {
        core::Scenario s = m_doc->scenario();
        s.tp = 8;
        s.efficiency = core::EfficiencyMode::Achievable;
        m_doc->setScenario(s, "tp");
        QCOMPARE(m_doc->hardware().id, std::string("h100-sxm"));
        const double perByte = 8192 * 2 * 7.0 / 8;
        QVERIFY2(near(m_doc->analysis().comm.timeS, 64 * perByte / 0.53e9, 1e-6),
                 qPrintable(QString::number(m_doc->analysis().comm.timeS * 1e6)));
        ui::OptionControl *control = m_panel->optionControl("allreduce");
        QVERIFY(control);
        auto *combo = qobject_cast<QComboBox *>(control->editor());
        QVERIFY(combo);
        QVERIFY(!combo->toolTip().isEmpty());
        const int before = m_doc->undoStack()->index();
        choose(combo, "custom");
        QVERIFY(m_doc->scenario().allReduce == core::AllReduce::Custom);
        QCOMPARE(m_doc->undoStack()->index(), before + 1);
        QVERIFY2(near(m_doc->analysis().comm.timeS, 64 * perByte / 4.04844e9, 1e-6),
                 qPrintable(QString::number(m_doc->analysis().comm.timeS * 1e6)));
        m_doc->undoStack()->undo();
        QVERIFY(m_doc->scenario().allReduce == core::AllReduce::Library);
        QCOMPARE(combo->currentText(), QStringLiteral("library"));
    }

    // FP8 activations on the H100: picking "dynamic" charges TensorRT-LLM's measured quantize kernels before each
    // linear layer, 32 layers x 4 inputs of Llama-2-7B at batch 1 (the hand count in
    // tst_timemodel::activationScalesChargeTheQuantizeKernels), in one undo step that undo reverts.
    void activationScalesPickChargesTheQuantizeKernels()
    {
        core::Scenario s = m_doc->scenario();
        s.activations = core::DType::FP8;
        s.efficiency = core::EfficiencyMode::Achievable;
        m_doc->setScenario(s, "activations");
        QCOMPARE(m_doc->hardware().id, std::string("h100-sxm"));
        QCOMPARE(m_doc->model().id, std::string("llama-2-7b"));
        QCOMPARE(m_doc->analysis().totals.quantizeS, 0.0);
        const double fused = m_doc->analysis().totals.timeS;
        ui::OptionControl *control = m_panel->optionControl("activation_scales");
        QVERIFY(control);
        auto *combo = qobject_cast<QComboBox *>(control->editor());
        QVERIFY(combo);
        QVERIFY(!combo->toolTip().isEmpty());
        const int before = m_doc->undoStack()->index();
        choose(combo, "dynamic");
        QVERIFY(m_doc->scenario().activationScales == core::ActivationScales::Dynamic);
        QCOMPARE(m_doc->undoStack()->index(), before + 1);
        const double x = std::log(11008.0 / 8192) / std::log(2.0);
        const double expected = 32 * (3 * 8.551e-6 + 8.551e-6 - x * 0.105e-6);
        QVERIFY2(near(m_doc->analysis().totals.quantizeS, expected, 1e-9),
                 qPrintable(QString::number(m_doc->analysis().totals.quantizeS * 1e6)));
        QVERIFY(near(m_doc->analysis().totals.timeS, fused + expected, 1e-9));
        m_doc->undoStack()->undo();
        QVERIFY(m_doc->scenario().activationScales == core::ActivationScales::Fused);
        QCOMPARE(combo->currentText(), QStringLiteral("fused"));
        QCOMPARE(m_doc->analysis().totals.quantizeS, 0.0);
    }

    void pickingAVisionEncoderEncodesItsPatches()
    {
        // ViT-L/32 takes a 224-pixel image as 49 patches and a class token: picking it switches the decode scenario to
        // an encode pass of exactly those 50 tokens, shown in the prompt control, in one undo step.
        ui::PresetPicker *models = m_panel->modelPicker();
        const int row = models->findData(QStringLiteral("vit-large-patch32-224"));
        QVERIFY(row >= 0);
        const core::Scenario before = m_doc->scenario();
        QVERIFY(before.phase == core::Phase::Decode && before.seq != 50);
        models->setCurrentIndex(row);
        emit models->activated(row);
        QVERIFY(m_doc->scenario().phase == core::Phase::Encode);
        QCOMPARE(m_doc->scenario().seq, int64_t(50));
        QCOMPARE(m_panel->phaseCombo()->currentText(), QStringLiteral("encode"));
        QCOMPARE(m_panel->promptSlider()->value(), 50.0);
        QVERIFY(m_doc->analysisError().isEmpty());
        QVERIFY(!m_doc->analysis().operators.empty());
        QCOMPARE(m_doc->analysis().operators.front().name, std::string("patch_embed"));
        m_doc->undoStack()->undo();
        QVERIFY(m_doc->scenario().phase == before.phase);
        QCOMPARE(m_doc->scenario().seq, before.seq);
        QCOMPARE(m_panel->promptSlider()->value(), double(before.seq));
    }

    void pickersSearchAndSelect()
    {
        ui::PresetPicker *models = m_panel->modelPicker();
        QCompleter *completer = models->completer();
        QCOMPARE(completer->filterMode(), Qt::MatchContains);
        completer->setCompletionPrefix("70b");
        QStringList hits;
        for (int r = 0; r < completer->completionModel()->rowCount(); ++r)
            hits << completer->completionModel()->index(r, 0).data().toString();
        QVERIFY2(hits.contains(QStringLiteral("Llama 2 70B — llama-2-70b")), qPrintable(hits.join(" | ")));
        QVERIFY(!hits.contains(QStringLiteral("Llama 2 7B — llama-2-7b")));

        const int row = models->findData(QStringLiteral("mistral-7b"));
        QVERIFY(row >= 0);
        QVERIFY(!models->itemData(row, Qt::ToolTipRole).toString().isEmpty());
        models->setCurrentIndex(row);
        emit models->activated(row);
        QCOMPARE(QString::fromStdString(m_doc->model().id), QStringLiteral("mistral-7b"));
        QCOMPARE(m_doc->undoStack()->undoText(), QStringLiteral("Model: Mistral 7B (v0.1)"));

        ui::PresetPicker *devices = m_panel->devicePicker();
        const int h200 = devices->findData(QStringLiteral("h200-sxm"));
        devices->setCurrentIndex(h200);
        emit devices->activated(h200);
        QCOMPARE(QString::fromStdString(m_doc->baseHardware().id), QStringLiteral("h200-sxm"));
        m_doc->undoStack()->undo();
        QCOMPARE(devices->currentId(), QStringLiteral("h100-sxm"));
    }

    // Issue #41: the Images control (`--images N`) was offered for text-only models. It is greyed for a model
    // without a vision tower, its tooltip saying why, and enabled for one with a tower; a text-only model picked
    // after a multimodal one drops the images in the same step instead of failing.
    void imagesOnlyForAModelWithAVisionTower()
    {
        ui::OptionControl *images = m_panel->optionControl("images");
        QVERIFY(images);
        QVERIFY(!m_doc->model().vision.present()); // Llama 2 7B
        QVERIFY(!images->isEnabled());
        QVERIFY2(images->toolTip().contains("no vision tower"), qPrintable(images->toolTip()));
        QVERIFY(images->editor()->toolTip().contains("no vision tower"));

        m_doc->setModelById("gemma-3-27b");
        QVERIFY(m_doc->model().vision.present());
        QVERIFY(images->isEnabled());
        QCOMPARE(images->toolTip(), QString::fromUtf8(core::findOption("images")->help.data(),
                                                      qsizetype(core::findOption("images")->help.size())));
        QVERIFY(images->write(int64_t(2)).isEmpty());
        QCOMPARE(m_doc->scenario().images, 2);
        QVERIFY(m_doc->analysisError().isEmpty());

        const int steps = m_doc->undoStack()->count();
        m_doc->setModelById("llama-2-7b");
        QCOMPARE(m_doc->scenario().images, 0);
        QVERIFY2(m_doc->analysisError().isEmpty(), qPrintable(m_doc->analysisError()));
        QCOMPARE(m_doc->undoStack()->count(), steps + 1);
        QVERIFY(!images->isEnabled());
        m_doc->undoStack()->undo(); // back to the multimodal model with its images
        QCOMPARE(m_doc->scenario().images, 2);
        QVERIFY(images->isEnabled());

        // A scenario asking a text-only model for images (a file, a link) keeps the control usable to undo it.
        m_doc->setModelById("llama-2-7b");
        core::Scenario s = m_doc->scenario();
        s.images = 3;
        m_doc->setScenario(s, "images");
        QVERIFY(!m_doc->analysisError().isEmpty());
        QVERIFY(images->isEnabled());
        QVERIFY(images->write(int64_t(0)).isEmpty());
        QVERIFY(m_doc->analysisError().isEmpty());
        QVERIFY(!images->isEnabled());
    }

    void everyControlExplainsItself()
    {
        const auto widgets = m_panel->findChildren<QWidget *>();
        int checked = 0;
        for (QWidget *w : widgets) {
            if (!qobject_cast<QComboBox *>(w) && !qobject_cast<QAbstractSpinBox *>(w) && !qobject_cast<QSlider *>(w) &&
                !qobject_cast<QAbstractButton *>(w))
                continue;
            if (qobject_cast<QComboBox *>(w->parentWidget()) || qobject_cast<QLineEdit *>(w->parentWidget()))
                continue; // a combo box's own line edit, a line edit's clear button
            QVERIFY2(!w->toolTip().isEmpty(), qPrintable(w->objectName() + " " + w->metaObject()->className()));
            ++checked;
        }
        QVERIFY(checked > 20);
    }
};

QTEST_MAIN(TstControls)
#include "tst_controls.moc"
