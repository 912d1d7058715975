// The device editor: the preset-file rules (core::hardwareFromJson) shown next to the field they name, Save
// disabled while invalid, and a saved user preset that PresetLibrary::loadDirectory reads back identically.
#include "core/io/presets.h"
#include "ui/dialogs/hardwareeditordialog.h"
#include "ui/dialogs/presetfiles.h"
#include "ui/document/scenariodocument.h"

#include <QApplication>
#include <QTimer>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace memwall;
using memwall::ui::HardwareEditorDialog;

namespace {
QPushButton *saveButton(HardwareEditorDialog &d)
{
    return d.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save);
}
QTableWidget *memoryTable(HardwareEditorDialog &d) { return d.findChild<QTableWidget *>("memoryTable"); }
QLabel *errorLabel(HardwareEditorDialog &d, const QString &key) { return d.findChild<QLabel *>(key + "Error"); }
int dramRow(const core::HardwareSpec &hw) { return static_cast<int>(hw.mainMemoryIndex()); }
} // namespace

class TestHardwareEditor : public QObject
{
    Q_OBJECT
private:
    std::shared_ptr<core::PresetLibrary> m_lib;
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        // The per-user preset folder lives under XDG_DATA_HOME: point it at a temporary folder before any use.
        qputenv("XDG_DATA_HOME", m_home.path().toUtf8());
        QVERIFY(ui::userPresetDir().startsWith(m_home.path()));
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
        QVERIFY(m_lib->findHardware("h100-sxm"));
    }

    void copyOfBuiltinGetsNewId()
    {
        HardwareEditorDialog d(*m_lib, *m_lib->findHardware("h100-sxm"));
        QVERIFY2(d.isValid(), qPrintable(d.validationError()));
        QCOMPARE(d.spec().id, std::string("h100-sxm-custom"));
        QCOMPARE(d.findChild<QLineEdit *>("idEdit")->text(), QString("h100-sxm-custom"));
        // Unchanged numbers keep their exact published values and sources.
        const core::HardwareSpec &orig = *m_lib->findHardware("h100-sxm");
        QCOMPARE(d.spec().memory.size(), orig.memory.size());
        for (std::size_t i = 0; i < orig.memory.size(); ++i) {
            QCOMPARE(d.spec().memory[i].bandwidthBytesPerS.value, orig.memory[i].bandwidthBytesPerS.value);
            QCOMPARE(d.spec().memory[i].capacityBytes.source, orig.memory[i].capacityBytes.source);
        }
        QCOMPARE(d.spec().peak(core::DType::FP16), orig.peak(core::DType::FP16));
        QCOMPARE(d.spec().peakFlops[core::index(core::DType::FP16)]->source,
                 orig.peakFlops[core::index(core::DType::FP16)]->source);
        QVERIFY(saveButton(d)->isEnabled());
    }

    void memoryErrorShownAtField_data()
    {
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        QTest::newRow("negative HBM bandwidth") << 3 << "-1"
                                                << "bandwidth_bytes_per_s.value"
                                                << "must be positive, got -1 GB/s";
        QTest::newRow("zero HBM capacity") << 2 << "0"
                                           << "capacity_bytes.value"
                                           << "must be positive";
        QTest::newRow("capacity not a number") << 2 << "eighty"
                                               << "capacity_bytes.value"
                                               << "expected a number, got \"eighty\"";
        QTest::newRow("HBM faster than L2: out of order") << 3 << "1e9"
                                                          << "bandwidth_bytes_per_s"
                                                          << "levels out of order";
        QTest::newRow("number typed with its unit: the quoted text is left alone")
            << 2 << "80 GB"
            << "capacity_bytes.value"
            << "expected a number, got \"80 GB\"";
        QTest::newRow("empty bandwidth") << 3 << ""
                                         << "bandwidth_bytes_per_s.value"
                                         << "missing";
    }
    void memoryErrorShownAtField()
    {
        QFETCH(int, column);
        QFETCH(QString, text);
        QFETCH(QString, field);
        QFETCH(QString, message);
        const core::HardwareSpec &h100 = *m_lib->findHardware("h100-sxm");
        HardwareEditorDialog d(*m_lib, h100);
        QTableWidget *table = memoryTable(d);
        const int row = dramRow(h100);
        const QString before = table->item(row, column)->text();
        table->item(row, column)->setText(text);

        QVERIFY(!d.isValid());
        QCOMPARE(d.errorField(), QStringLiteral("memory[%1].%2").arg(row).arg(field));
        QLabel *label = errorLabel(d, "memory");
        QVERIFY(label->isVisibleTo(&d));
        QVERIFY2(label->text().contains(message), qPrintable(label->text()));
        QVERIFY(label->text().startsWith(QStringLiteral("Row %1").arg(row + 1)));
        QVERIFY(!saveButton(d)->isEnabled());
        QVERIFY(table->item(row, column)->background().style() != Qt::NoBrush);
        QVERIFY(!errorLabel(d, "id")->isVisibleTo(&d));

        // Putting the number back clears the message and enables Save.
        table->item(row, column)->setText(before);
        QVERIFY2(d.isValid(), qPrintable(d.validationError()));
        QVERIFY(!label->isVisibleTo(&d));
        QVERIFY(saveButton(d)->isEnabled());
        QCOMPARE(table->item(row, column)->background().style(), Qt::NoBrush);
    }

    void fieldErrors_data()
    {
        QTest::addColumn<QString>("widget");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("errorKey");
        QTest::addColumn<QString>("message");
        QTest::newRow("id with capitals and spaces") << "idEdit"
                                                     << "My Device"
                                                     << "id"
                                                     << "lower-case";
        QTest::newRow("empty device source") << "source0Edit"
                                             << " "
                                             << "source0"
                                             << "must not be empty";
        QTest::newRow("negative TDP") << "tdp_wEdit"
                                      << "-700"
                                      << "tdp_w"
                                      << "must be positive";
        QTest::newRow("FP16 peak not a number") << "peak_fp16Edit"
                                                << "lots"
                                                << "peak_flops"
                                                << "FP16: expected a number";
        QTest::newRow("empty compute source") << "source1Edit"
                                              << ""
                                              << "source1"
                                              << "must not be empty";
        // The editor applies the presets' plausible ranges: this once saved, and the chart then crashed on it.
        QTest::newRow("FP16 peak 1e296 TFLOP/s") << "peak_fp16Edit"
                                                 << "1e296"
                                                 << "peak_flops"
                                                 << "must be between";
        QTest::newRow("TDP of 1e300 W") << "tdp_wEdit"
                                        << "1e300"
                                        << "tdp_w"
                                        << "must be between";
    }
    void emptyTdpIsLeftOut()
    {
        // Google publishes no TPU power figure: an empty TDP is valid and the saved preset has none.
        HardwareEditorDialog d(*m_lib, *m_lib->findHardware("mi300x"));
        auto *edit = d.findChild<QLineEdit *>("tdp_wEdit");
        QVERIFY(edit);
        edit->setText(QString());
        QVERIFY(d.isValid());
        QVERIFY(!d.spec().tdpW);
    }
    void fieldErrors()
    {
        QFETCH(QString, widget);
        QFETCH(QString, text);
        QFETCH(QString, errorKey);
        QFETCH(QString, message);
        HardwareEditorDialog d(*m_lib, *m_lib->findHardware("mi300x"));
        QVERIFY(d.isValid());
        auto *edit = d.findChild<QLineEdit *>(widget);
        QVERIFY(edit);
        edit->setText(text);
        QVERIFY(!d.isValid());
        QLabel *label = errorLabel(d, errorKey);
        QVERIFY(label);
        QVERIFY(label->isVisibleTo(&d));
        QVERIFY2(label->text().contains(message), qPrintable(label->text()));
        QVERIFY(!saveButton(d)->isEnabled());
    }

    void markedFieldComesFromTheErrorNotItsWording()
    {
        // The field an error is about is a member of core::InputError: a message in other words, even one naming
        // another field, marks the field the error names, and its numbers, members too, appear in the unit shown.
        const core::HardwareSpec &h100 = *m_lib->findHardware("h100-sxm");
        HardwareEditorDialog d(*m_lib, h100);
        const int row = dramRow(h100);
        d.showError(core::InputError(
            "hardware editor", QStringLiteral("memory[%1].bandwidth_bytes_per_s.value").arg(row).toStdString(),
            core::InputMessage("capacity_bytes: zu klein, ").number(2e12).text(" statt ").number(3.35e12), 2e12));
        QTableWidget *table = memoryTable(d);
        QVERIFY(table->item(row, 3)->background().style() != Qt::NoBrush); // bandwidth, as the member says
        QCOMPARE(table->item(row, 2)->background().style(), Qt::NoBrush);  // not capacity, as the text says
        QCOMPARE(errorLabel(d, "memory")->text(),
                 QStringLiteral("Row %1, bandwidth: capacity_bytes: zu klein, 2000 GB/s statt 3350 GB/s").arg(row + 1));

        HardwareEditorDialog e(*m_lib, h100);
        e.showError(core::InputError("hardware editor", "peak_flops.fp16.value",
                                     core::InputMessage("viel zu hoch (").number(2e15).text(")"), 2e15));
        QVERIFY(!e.findChild<QLineEdit *>("peak_fp16Edit")->styleSheet().isEmpty());
        QVERIFY(e.findChild<QLineEdit *>("peak_fp32Edit")->styleSheet().isEmpty());
        QCOMPARE(errorLabel(e, "peak_flops")->text(), QString("FP16: viel zu hoch (2000 TFLOP/s)"));

        // No text is read (issue #39): the digits of an error made from text alone are not taken for the field's
        // numbers, and stay as written.
        HardwareEditorDialog f(*m_lib, h100);
        f.showError(core::InputError("hardware editor", "peak_flops.fp16.value", "viel zu hoch (2e+15)"));
        QCOMPARE(errorLabel(f, "peak_flops")->text(), QString("FP16: viel zu hoch (2e+15)"));
    }

    void emptyPeakMeansUnsupported()
    {
        HardwareEditorDialog d(*m_lib, *m_lib->findHardware("h100-sxm"));
        QVERIFY(d.spec().supports(core::DType::FP64));
        d.findChild<QLineEdit *>("peak_fp64Edit")->clear();
        QVERIFY(d.isValid());
        QVERIFY(!d.spec().supports(core::DType::FP64));
        QVERIFY(!d.presetJson().at("peak_flops").contains("fp64"));
        // All empty: the schema needs at least one format.
        for (core::DType t : core::kAllDTypes)
            d.findChild<QLineEdit *>("peak_" + QString::fromLatin1(core::toString(t).data()) + "Edit")->clear();
        QVERIFY(!d.isValid());
        QCOMPARE(d.errorField(), QString("peak_flops"));
        QVERIFY(errorLabel(d, "peak_flops")->isVisibleTo(&d));
    }

    void unitsAreConverted()
    {
        HardwareEditorDialog d(*m_lib, *m_lib->findHardware("h100-sxm"));
        const int row = dramRow(d.spec());
        memoryTable(d)->item(row, 3)->setText("4000");              // GB/s
        memoryTable(d)->item(row, 2)->setText("96");                // GB
        d.findChild<QLineEdit *>("peak_fp16Edit")->setText("1000"); // TFLOP/s
        QVERIFY2(d.isValid(), qPrintable(d.validationError()));
        QCOMPARE(d.spec().memory[static_cast<std::size_t>(row)].bandwidthBytesPerS.value, 4e12);
        QCOMPARE(d.spec().memory[static_cast<std::size_t>(row)].capacityBytes.value, 96e9);
        QCOMPARE(d.spec().peak(core::DType::FP16), 1e15);
        // A changed number takes the group's source text.
        const QString memorySource = d.findChild<QLineEdit *>("source2Edit")->text();
        QCOMPARE(QString::fromStdString(d.spec().memory[static_cast<std::size_t>(row)].bandwidthBytesPerS.source),
                 memorySource);
    }

    void rowsAddRemoveMove()
    {
        HardwareEditorDialog d(*m_lib, *m_lib->findHardware("h100-sxm"));
        QTableWidget *table = memoryTable(d);
        const int rows = table->rowCount();
        const std::string firstName = d.spec().memory[0].name;
        // Moving the fastest level below the second breaks the order, and the core says so.
        table->setCurrentCell(0, 0);
        QTest::mouseClick(d.findChild<QToolButton *>("memoryTableDown"), Qt::LeftButton);
        QVERIFY(!d.isValid());
        QVERIFY(d.errorField().startsWith("memory[1]."));
        QCOMPARE(table->item(1, 0)->text().toStdString(), firstName);
        QTest::mouseClick(d.findChild<QToolButton *>("memoryTableUp"), Qt::LeftButton);
        QVERIFY2(d.isValid(), qPrintable(d.validationError()));
        QCOMPARE(d.spec().memory[0].name, firstName);
        // A new row starts empty and invalid until filled.
        table->setCurrentCell(rows - 1, 0);
        QTest::mouseClick(d.findChild<QToolButton *>("memoryTableAdd"), Qt::LeftButton);
        QCOMPARE(table->rowCount(), rows + 1);
        QVERIFY(!d.isValid());
        QVERIFY(d.errorField().startsWith(QStringLiteral("memory[%1].").arg(rows)));
        QTest::mouseClick(d.findChild<QToolButton *>("memoryTableRemove"), Qt::LeftButton);
        QCOMPARE(table->rowCount(), rows);
        QVERIFY(d.isValid());
    }

    void saveLoadsBackIdentically()
    {
        HardwareEditorDialog d(*m_lib, *m_lib->findHardware("h100-sxm"));
        d.findChild<QLineEdit *>("idEdit")->setText("my-h100");
        d.findChild<QLineEdit *>("nameEdit")->setText("My H100 with faster HBM");
        const int row = dramRow(d.spec());
        memoryTable(d)->item(row, 3)->setText("4800");
        d.findChild<QLineEdit *>("source2Edit")->setText("what-if: HBM3e at 4.8 TB/s");
        QVERIFY2(d.isValid(), qPrintable(d.validationError()));
        bool asked = false;
        d.setConfirm([&](const QString &) { return asked = true; });
        QTest::mouseClick(saveButton(d), Qt::LeftButton);
        QVERIFY(!asked);
        QCOMPARE(d.result(), int(QDialog::Accepted));
        const QString path = ui::userPresetDir() + "/hardware/my-h100.json";
        QCOMPARE(d.savedPath(), path);
        QVERIFY(QFile::exists(path));

        core::PresetLibrary lib;
        lib.loadDirectory(ui::userPresetDir().toStdString(), true);
        QVERIFY2(lib.issues().empty(), lib.issues().empty() ? "" : lib.issues().front().message.c_str());
        const core::HardwareSpec *loaded = lib.findHardware("my-h100");
        QVERIFY(loaded);
        QCOMPARE(QString::fromStdString(core::toJson(*loaded).dump()),
                 QString::fromStdString(core::toJson(d.spec()).dump()));
        QCOMPARE(loaded->memory[static_cast<std::size_t>(row)].bandwidthBytesPerS.value, 4.8e12);
        QCOMPARE(loaded->memory[static_cast<std::size_t>(row)].bandwidthBytesPerS.source,
                 std::string("what-if: HBM3e at 4.8 TB/s"));
        QCOMPARE(loaded->sourceFile, path.toStdString());
    }

    // "Edit current device…": Save switches the document to the saved device (inline), one undo step.
    void editIntoSwitchesTheDocument()
    {
        ui::ScenarioDocument doc(m_lib);
        bool sawDialog = false;
        QTimer::singleShot(0, this, [&sawDialog] {
            auto *d = qobject_cast<HardwareEditorDialog *>(QApplication::activeModalWidget());
            if (!d)
                return;
            sawDialog = true;
            d->findChild<QLineEdit *>("idEdit")->setText("doc-h100");
            d->findChild<QLineEdit *>("peak_fp16Edit")->setText("1200");
            QTest::mouseClick(saveButton(*d), Qt::LeftButton);
        });
        const auto spec = HardwareEditorDialog::editInto(&doc, doc.baseHardware(), nullptr);
        QVERIFY(sawDialog);
        QVERIFY(spec);
        QCOMPARE(doc.hardware().id, std::string("doc-h100"));
        QCOMPARE(doc.hardware().peak(core::DType::FP16), 1.2e15);
        QVERIFY(doc.file().hardwareInline);
        QVERIFY(QFile::exists(ui::userPresetDir() + "/hardware/doc-h100.json"));
        doc.undoStack()->undo();
        QCOMPARE(doc.hardware().id, std::string("h100-sxm"));
    }

    void builtinIdIsNotClobberedSilently()
    {
        HardwareEditorDialog d(*m_lib, *m_lib->findHardware("a100-80gb-sxm"));
        d.findChild<QLineEdit *>("idEdit")->setText("a100-80gb-sxm");
        QVERIFY(d.isValid());
        QString question;
        d.setConfirm([&](const QString &q) {
            question = q;
            return false;
        });
        QString error = "unset";
        QVERIFY(!d.save(&error));
        QVERIFY(error.isEmpty());
        QVERIFY2(question.contains("built-in"), qPrintable(question));
        QVERIFY(!QFile::exists(ui::userPresetDir() + "/hardware/a100-80gb-sxm.json"));
        d.setConfirm([](const QString &) { return true; });
        QVERIFY(d.save(&error));
        QVERIFY(QFile::exists(ui::userPresetDir() + "/hardware/a100-80gb-sxm.json"));
        QVERIFY(QFile::remove(ui::userPresetDir() + "/hardware/a100-80gb-sxm.json"));
    }

    void existingUserPresetAsks()
    {
        HardwareEditorDialog first(*m_lib, *m_lib->findHardware("rtx-4090"));
        first.findChild<QLineEdit *>("idEdit")->setText("my-4090");
        QString error;
        QVERIFY(first.save(&error));
        HardwareEditorDialog second(*m_lib, *m_lib->findHardware("rtx-4090"));
        second.findChild<QLineEdit *>("idEdit")->setText("my-4090");
        QStringList questions;
        second.setConfirm([&](const QString &q) {
            questions << q;
            return false;
        });
        QVERIFY(!second.save(&error));
        QCOMPARE(questions.size(), 1);
        QVERIFY2(questions.front().contains("already exists"), qPrintable(questions.front()));
    }
};

QTEST_MAIN(TestHardwareEditor)
#include "tst_hardwareeditor.moc"
