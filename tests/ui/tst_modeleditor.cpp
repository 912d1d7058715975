// The model editor: live parameter count equal to core::paramCount, KV bytes per token, core::validate messages at
// the fields they name, and a saved user model preset that PresetLibrary::loadDirectory reads back.
#include "core/io/presets.h"
#include "ui/dialogs/modeleditordialog.h"
#include "ui/dialogs/presetfiles.h"
#include "ui/util/text.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace memwall;
using memwall::ui::ModelEditorDialog;

namespace {
QPushButton *saveButton(ModelEditorDialog &d)
{
    return d.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save);
}
QSpinBox *spin(ModelEditorDialog &d, const QString &key) { return d.findChild<QSpinBox *>(key + "Spin"); }
QLabel *errorLabel(ModelEditorDialog &d, const QString &key) { return d.findChild<QLabel *>(key + "Error"); }
QString grouped(int64_t n) { return ui::formatGrouped(n); }
} // namespace

class TestModelEditor : public QObject
{
    Q_OBJECT
private:
    std::shared_ptr<core::PresetLibrary> m_lib;
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        qputenv("XDG_DATA_HOME", m_home.path().toUtf8());
        QVERIFY(ui::userPresetDir().startsWith(m_home.path()));
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
    }

    void paramCountShown_data()
    {
        QTest::addColumn<QString>("id");
        QTest::newRow("Llama 2 7B") << "llama-2-7b";
        QTest::newRow("Llama 2 70B (GQA)") << "llama-2-70b";
        QTest::newRow("Mixtral 8x7B (MoE)") << "mixtral-8x7b";
        QTest::newRow("GPT-2 (learned positions, tied)") << "gpt2";
        QTest::newRow("BERT base (encoder, pooler)") << "bert-base-uncased";
        QTest::newRow("GPT-3 175B (shape preset)") << "gpt-3-175b";
        QTest::newRow("ViT-L/32 (image patches, no vocabulary)") << "vit-large-patch32-224";
    }
    void paramCountShown()
    {
        QFETCH(QString, id);
        const core::ModelPreset *p = m_lib->findModel(id.toStdString());
        QVERIFY(p);
        ModelEditorDialog d(*m_lib, p->shape);
        QVERIFY2(d.isValid(), qPrintable(d.validationError()));
        QCOMPARE(d.shape().id, p->shape.id + "-custom");
        const core::ParamCounts expected = core::paramCount(p->shape);
        QCOMPARE(d.params().total, expected.total);
        QCOMPARE(d.params().active, expected.active);
        const QString shown = d.findChild<QLabel *>("paramsLabel")->text();
        QVERIFY2(shown.contains(grouped(expected.total)), qPrintable(shown));
        if (p->shape.isMoe())
            QVERIFY2(shown.contains(grouped(expected.active)), qPrintable(shown));
        // The fields the dialog does not show survive the round trip (position offset, token types, pooler, ...).
        core::ModelShape same = d.shape();
        same.id = p->shape.id;
        same.name = p->shape.name;
        QCOMPARE(QString::fromStdString(core::toJson(same).dump()),
                 QString::fromStdString(core::toJson(p->shape).dump()));
    }

    void patchModelOpens()
    {
        // A model of image patches has no vocabulary: the field shows 0, the shape is valid, and a vocabulary typed
        // in is refused at that field, since the patches are its tokens.
        ModelEditorDialog d(*m_lib, m_lib->findModel("vit-large-patch32-224")->shape);
        QVERIFY2(d.isValid(), qPrintable(d.validationError()));
        QCOMPARE(spin(d, "vocab")->value(), 0);
        QCOMPARE(d.shape().patchInputs, int64_t(3072));
        QVERIFY(d.findChild<QLabel *>("paramsLabel")->text().contains(grouped(306560000)));
        spin(d, "vocab")->setValue(1000);
        QVERIFY(!d.isValid());
        QCOMPARE(d.errorField(), QString("vocab"));
        QVERIFY2(errorLabel(d, "vocab")->text().contains("vocab must be 0 for a model of image patches"),
                 qPrintable(errorLabel(d, "vocab")->text()));
        spin(d, "vocab")->setValue(0);
        QVERIFY2(d.isValid(), qPrintable(d.validationError()));
        // Its layers stay editable: 12 layers count 12 x 12,596,224 fewer parameters.
        spin(d, "layers")->setValue(12);
        QVERIFY(d.isValid());
        QCOMPARE(d.params().total, int64_t(306560000) - 12 * int64_t(12596224));
    }

    void countFollowsEdits()
    {
        ModelEditorDialog d(*m_lib, m_lib->findModel("llama-2-7b")->shape);
        spin(d, "layers")->setValue(16);
        d.findChild<QCheckBox *>("tied_embeddingsCheck")->setChecked(true);
        QVERIFY(d.isValid());
        core::ModelShape expected = m_lib->findModel("llama-2-7b")->shape;
        expected.layers = 16;
        expected.tiedEmbeddings = true;
        QCOMPARE(d.params().total, core::paramCount(expected).total);
        QVERIFY(d.findChild<QLabel *>("paramsLabel")->text().contains(grouped(core::paramCount(expected).total)));
    }

    void kvBytesPerToken_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("kv");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<QString>("shown");
        QTest::newRow("OPT-13B fp16 KV = 800 KB/token (vLLM)")
            << "opt-13b" << int(core::DType::FP16) << 819200.0 << "819 kB";
        QTest::newRow("Llama 2 70B fp16 (GQA, 8 KV heads)")
            << "llama-2-70b" << int(core::DType::FP16) << 327680.0 << "328 kB";
        QTest::newRow("Llama 2 7B int8") << "llama-2-7b" << int(core::DType::INT8) << 262144.0 << "262 kB";
    }
    void kvBytesPerToken()
    {
        QFETCH(QString, id);
        QFETCH(int, kv);
        QFETCH(double, bytes);
        QFETCH(QString, shown);
        ModelEditorDialog d(*m_lib, m_lib->findModel(id.toStdString())->shape, nullptr, static_cast<core::DType>(kv));
        QCOMPARE(d.kvBytesPerToken(), bytes);
        const QString text = d.findChild<QLabel *>("kvLabel")->text();
        QVERIFY2(text.startsWith(shown + " per token"), qPrintable(text));
    }

    void invalidShapeShowsError_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<int>("value");
        QTest::addColumn<QString>("errorAt");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QStringList>("marked");
        QTest::newRow("64 heads, 5 KV heads")
            << "kv_heads" << 5 << "heads"
            << "heads (64) must be a multiple of kv_heads (5)" << QStringList{"heads", "kv_heads"};
        QTest::newRow("0 KV heads") << "kv_heads" << 0 << "kv_heads"
                                    << "must be positive" << QStringList{"kv_heads"};
        QTest::newRow("0 layers") << "layers" << 0 << "layers"
                                  << "must be positive" << QStringList{"layers"};
        QTest::newRow("2 of 1 experts active")
            << "active_experts" << 2 << "active_experts"
            << "active_experts (2) exceeds experts (1)" << QStringList{"active_experts", "experts"};
    }
    void invalidShapeShowsError()
    {
        QFETCH(QString, field);
        QFETCH(int, value);
        QFETCH(QString, errorAt);
        QFETCH(QString, message);
        QFETCH(QStringList, marked);
        ModelEditorDialog d(*m_lib, m_lib->findModel("llama-2-70b")->shape);
        QVERIFY(d.isValid());
        QVERIFY(saveButton(d)->isEnabled());
        const core::ParamCounts before = d.params();
        spin(d, field)->setValue(value);
        QVERIFY(!d.isValid());
        QCOMPARE(d.errorField(), errorAt);
        QLabel *label = errorLabel(d, errorAt);
        QVERIFY(label->isVisibleTo(&d));
        QVERIFY2(label->text().contains(message), qPrintable(label->text()));
        QVERIFY(!saveButton(d)->isEnabled());
        for (const QString &m : marked)
            QVERIFY2(!spin(d, m)->styleSheet().isEmpty(), qPrintable(m));
        QVERIFY(spin(d, "vocab")->styleSheet().isEmpty());
        QVERIFY(d.findChild<QLabel *>("paramsLabel")->text().startsWith("—"));
        QCOMPARE(d.params().total, before.total); // the last valid count is kept, not a garbage one

        spin(d, field)->setValue(field == "active_experts" ? 1 : field == "layers" ? 80 : 8);
        QVERIFY2(d.isValid(), qPrintable(d.validationError()));
        QVERIFY(!label->isVisibleTo(&d));
        QVERIFY(saveButton(d)->isEnabled());
    }

    void markedFieldsComeFromTheErrorNotItsWording()
    {
        // The fields come from core::InputError::fields(), not from words in the message: a rule about vocab and
        // layers in other words marks exactly those two and shows the message under the first.
        ModelEditorDialog d(*m_lib, m_lib->findModel("llama-2-7b")->shape);
        QVERIFY(d.isValid());
        d.showError(
            core::InputError::rule("model editor: shape", {"vocab", "layers"}, "Wortschatz passt nicht zu heads"));
        QVERIFY(!spin(d, "vocab")->styleSheet().isEmpty());
        QVERIFY(!spin(d, "layers")->styleSheet().isEmpty());
        QVERIFY(spin(d, "heads")->styleSheet().isEmpty()); // named in the text, not in the error
        QCOMPARE(errorLabel(d, "vocab")->text(), QString("Wortschatz passt nicht zu heads"));
        QVERIFY(!errorLabel(d, "heads")->isVisibleTo(&d));
        // A reader error (one field path) shows the path before the message, as the line does.
        ModelEditorDialog e(*m_lib, m_lib->findModel("llama-2-7b")->shape);
        e.showError(core::InputError("model editor: shape", "ffn", "zu klein"));
        QVERIFY(!spin(e, "ffn")->styleSheet().isEmpty());
        QCOMPARE(errorLabel(e, "ffn")->text(), QString("ffn: zu klein"));
    }

    void badIdAndEmptySource()
    {
        ModelEditorDialog d(*m_lib, m_lib->findModel("gpt2")->shape);
        d.findChild<QLineEdit *>("idEdit")->setText("GPT 2 mine");
        QVERIFY(!d.isValid());
        QCOMPARE(d.errorField(), QString("id"));
        QVERIFY(errorLabel(d, "id")->text().contains("lower-case"));
        d.findChild<QLineEdit *>("idEdit")->setText("gpt2-mine");
        d.findChild<QLineEdit *>("sourceEdit")->clear();
        QVERIFY(!d.isValid());
        QCOMPARE(d.errorField(), QString("source"));
        QVERIFY(errorLabel(d, "source")->isVisibleTo(&d));
    }

    void saveLoadsBack()
    {
        ModelEditorDialog d(*m_lib, m_lib->findModel("llama-2-7b")->shape);
        d.findChild<QLineEdit *>("idEdit")->setText("llama-2-7b-gqa");
        d.findChild<QLineEdit *>("nameEdit")->setText("Llama 2 7B with 8 KV heads");
        spin(d, "kv_heads")->setValue(8);
        QVERIFY2(d.isValid(), qPrintable(d.validationError()));
        QTest::mouseClick(saveButton(d), Qt::LeftButton);
        QCOMPARE(d.result(), int(QDialog::Accepted));
        const QString path = ui::userPresetDir() + "/models/llama-2-7b-gqa.json";
        QCOMPARE(d.savedPath(), path);

        core::PresetLibrary lib;
        lib.loadDirectory(ui::userPresetDir().toStdString(), true);
        QVERIFY2(lib.issues().empty(), lib.issues().empty() ? "" : lib.issues().front().message.c_str());
        const core::ModelPreset *loaded = lib.findModel("llama-2-7b-gqa");
        QVERIFY(loaded);
        QCOMPARE(loaded->shape.kvHeads, int64_t(8));
        QCOMPARE(QString::fromStdString(core::toJson(loaded->shape).dump()),
                 QString::fromStdString(core::toJson(d.shape()).dump()));
        QCOMPARE(loaded->source, m_lib->findModel("llama-2-7b")->source);
        QVERIFY(d.presetJson().at("kind") == "model");
        QVERIFY(d.presetJson().at("schema") == 1);
        QVERIFY(d.presetJson().at("shape").is_object());
    }

    void builtinIdAsks()
    {
        ModelEditorDialog d(*m_lib, m_lib->findModel("gpt2")->shape);
        d.findChild<QLineEdit *>("idEdit")->setText("gpt2");
        QString question;
        d.setConfirm([&](const QString &q) {
            question = q;
            return false;
        });
        QString error;
        QVERIFY(!d.save(&error));
        QVERIFY(question.contains("built-in"));
        QVERIFY(!QFile::exists(ui::userPresetDir() + "/models/gpt2.json"));
    }
};

QTEST_MAIN(TestModelEditor)
#include "tst_modeleditor.moc"
