// Sharing a scenario as a memwall: link in the window (issue #41): Edit › Copy link puts the scenario on the
// clipboard; Ctrl+V outside a text field, or dropping the link's text, opens it in another window as one undo step;
// a bad link shows its one-line error and changes nothing; Ctrl+V in a text field stays the field's paste.

#include "ui/charts/charttabs.h"
#include "ui/document/scenariodocument.h"
#include "ui/mainwindow.h"
#include "ui/mainwindowactions.h"
#include "ui/settings/settingsfile.h"

#include "core/io/scenariolink.h"

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QGuiApplication>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace memwall;
using memwall::ui::MainWindow;
using memwall::ui::ScenarioDocument;

namespace {

/// One window on its own document, shown and active.
struct Window
{
    std::unique_ptr<ScenarioDocument> doc;
    std::unique_ptr<MainWindow> window;

    explicit Window(const std::shared_ptr<core::PresetLibrary> &lib)
        : doc(std::make_unique<ScenarioDocument>(lib)), window(std::make_unique<MainWindow>(doc.get()))
    {
        doc->startFirstLaunch();
        window->resize(1280, 720);
        window->show();
        window->activateWindow();
    }
    ~Window()
    {
        for (QMessageBox *box : window->findChildren<QMessageBox *>())
            delete box;
        window.reset();
    }
    Window(const Window &) = delete;
    Window &operator=(const Window &) = delete;

    /// Everything a scenario file records.
    nlohmann::json state() const { return core::toJson(doc->file()); }
    QString messages() const
    {
        QString text;
        for (QMessageBox *box : window->findChildren<QMessageBox *>())
            text += box->text();
        return text;
    }
    /// Ctrl+V with the focus on the current chart (not a text field), as a person presses it.
    void pasteOnChart() const
    {
        QWidget *chart = window->chartTabs()->currentWidget();
        chart->setFocus();
        QTest::keyClick(chart, Qt::Key_V, Qt::ControlModifier);
    }
};

} // namespace

class TstShareLink : public QObject
{
    Q_OBJECT

    std::shared_ptr<core::PresetLibrary> m_lib;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MemWallTest");
        QCoreApplication::setApplicationName("tst_sharelink");
        ui::useCheckedSettings();
        QSettings().clear();
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
    }

    void copyLinkThenPasteInAFreshWindowGivesTheSameScenario()
    {
        nlohmann::json shared;
        {
            Window a(m_lib);
            QVERIFY(QTest::qWaitForWindowActive(a.window.get()));
            a.doc->setHardwareById("a100-80gb-sxm");
            core::ModelShape custom = a.doc->model();
            custom.id = "my-model";
            custom.name = "My model";
            custom.layers = 40;
            a.doc->setModel(custom, true);
            core::Scenario s = a.doc->scenario();
            s.batch = 8;
            s.tp = 4;
            s.kv = core::DType::FP8;
            a.doc->setScenario(s, "test");
            QVERIFY(a.doc->analysisError().isEmpty());
            shared = a.state();
            QGuiApplication::clipboard()->clear();
            QTest::keyClick(a.window.get(), Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
            const QString link = QGuiApplication::clipboard()->text();
            QVERIFY2(link.startsWith("memwall:?v=1&hardware=a100-80gb-sxm&model=llama-2-70b&model_json="),
                     qPrintable(link));
            QVERIFY2(link.contains("&batch=8") && link.contains("&tp=4") && link.contains("&kv=fp8"), qPrintable(link));
            QVERIFY2(link.size() < 300, qPrintable(link)); // the model as the three fields changed from its preset
            QVERIFY(a.window->actions()->copyLinkAction()->toolTip().contains("memwall:"));
            // Its keys are its own: an action sharing them would make Qt call both ambiguous and run neither.
            for (QAction *mine : {a.window->actions()->copyLinkAction(), a.window->actions()->openLinkAction()}) {
                int holders = 0;
                for (QAction *other : a.window->findChildren<QAction *>())
                    holders += other->shortcuts().contains(mine->shortcut()) ? 1 : 0;
                QVERIFY2(holders == 1, qPrintable(mine->shortcut().toString()));
            }
        }
        Window b(m_lib);
        QVERIFY(QTest::qWaitForWindowActive(b.window.get()));
        const nlohmann::json before = b.state();
        QVERIFY(before != shared);
        const int steps = b.doc->undoStack()->count();
        b.pasteOnChart();
        QCOMPARE(b.state(), shared);
        QCOMPARE(b.doc->undoStack()->count(), steps + 1); // one undo step
        QCOMPARE(b.doc->undoStack()->undoText(), QString("Open link"));
        b.doc->undoStack()->undo();
        QCOMPARE(b.state(), before);
        QVERIFY(b.messages().isEmpty());
    }

    void aBadLinkShowsOneLineAndChangesNothing_data()
    {
        QTest::addColumn<QString>("link");
        QTest::addColumn<QString>("error");
        QTest::newRow("out of range") << "memwall:?v=1&batch=0"
                                      << "link: batch: must be between 1 and";
        QTest::newRow("unknown key") << "memwall:?v=1&bach=8"
                                     << "link: bach: unknown key";
        QTest::newRow("control character") << "memwall:?v=1&model=llama%0A"
                                           << "link: model: 'llama%0A' encodes";
        QTest::newRow("unknown model") << "memwall:?model=nope"
                                       << "link: model: unknown model 'nope'";
    }
    void aBadLinkShowsOneLineAndChangesNothing()
    {
        QFETCH(QString, link);
        QFETCH(QString, error);
        Window w(m_lib);
        QVERIFY(QTest::qWaitForWindowActive(w.window.get()));
        const nlohmann::json before = w.state();
        const int steps = w.doc->undoStack()->count();
        QGuiApplication::clipboard()->setText(link);
        w.pasteOnChart();
        QCOMPARE(w.state(), before);
        QCOMPARE(w.doc->undoStack()->count(), steps);
        const QString status = w.window->statusBar()->currentMessage();
        QVERIFY2(status.startsWith(error) && !status.contains('\n'), qPrintable(status));
        QVERIFY2(w.messages().startsWith(error), qPrintable(w.messages()));
    }

    void ctrlVInATextFieldIsTheFieldsPaste()
    {
        Window w(m_lib);
        QVERIFY(QTest::qWaitForWindowActive(w.window.get()));
        const nlohmann::json before = w.state();
        QGuiApplication::clipboard()->setText("memwall:?v=1&hardware=a100-80gb-sxm&batch=8");
        auto *picker = w.window->findChild<QComboBox *>("devicePicker");
        QVERIFY(picker && picker->lineEdit());
        picker->lineEdit()->setFocus();
        QTRY_VERIFY(picker->lineEdit()->hasFocus());
        picker->lineEdit()->clear();
        QTest::keyClick(picker->lineEdit(), Qt::Key_V, Qt::ControlModifier);
        QCOMPARE(picker->lineEdit()->text(), QString("memwall:?v=1&hardware=a100-80gb-sxm&batch=8"));
        QCOMPARE(w.state(), before);
    }

    // Issue #41: a link opened over a saved scenario kept its file name, so Save wrote the link's scenario over
    // that file. After a link the document is untitled, as a new one: Save asks for a name, the file is untouched.
    void aLinkOpensUntitled()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("mine.memwall.json");
        QByteArray saved;
        {
            Window w(m_lib);
            QVERIFY(QTest::qWaitForWindowActive(w.window.get()));
            QString error;
            QVERIFY2(w.doc->save(path, &error), qPrintable(error));
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            saved = file.readAll();
        }
        Window w(m_lib);
        QVERIFY(QTest::qWaitForWindowActive(w.window.get()));
        QVERIFY(w.window->openScenario(path));
        QCOMPARE(w.doc->filePath(), path);
        QVERIFY(w.window->windowTitle().startsWith("mine.memwall.json"));
        const nlohmann::json opened = w.state();
        QSignalSpy renamed(w.doc.get(), &ScenarioDocument::filePathChanged);
        // A bad link changes nothing, the name included.
        QVERIFY(!w.window->openLink("memwall:?v=1&batch=0"));
        QCOMPARE(w.doc->filePath(), path);
        QCOMPARE(renamed.count(), 0);
        for (QMessageBox *box : w.window->findChildren<QMessageBox *>())
            delete box;
        QVERIFY(w.window->openLink("memwall:?v=1&hardware=h200-sxm&batch=32"));
        QCOMPARE(w.doc->scenario().batch, 32);
        QVERIFY(w.doc->filePath().isEmpty());
        QCOMPARE(renamed.count(), 1);
        QVERIFY2(w.window->windowTitle().startsWith("Untitled"), qPrintable(w.window->windowTitle()));
        QVERIFY(w.doc->isModified()); // closing asks; Save (no name) goes to Save As
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), saved);
        // Undo brings the file's scenario back, still untitled: Save cannot write over a file unasked.
        w.doc->undoStack()->undo();
        QCOMPARE(w.state(), opened);
        QVERIFY(w.doc->filePath().isEmpty());
    }

    void droppingALinksTextOpensIt()
    {
        Window w(m_lib);
        QVERIFY(QTest::qWaitForWindowActive(w.window.get()));
        QMimeData mime;
        mime.setText("memwall:?v=1&hardware=h200-sxm&model=llama-3-8b&batch=32");
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(w.window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(w.window.get(), &drop);
        QCOMPARE(w.doc->baseHardware().id, std::string("h200-sxm"));
        QCOMPARE(w.doc->model().id, std::string("llama-3-8b"));
        QCOMPARE(w.doc->scenario().batch, 32);
        QCOMPARE(w.doc->undoStack()->undoText(), QString("Open link"));
        // Plain text that is not a link is not taken.
        QMimeData other;
        other.setText("batch=8");
        QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &other, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(w.window.get(), &refused);
        QVERIFY(!refused.isAccepted());
    }
};

QTEST_MAIN(TstShareLink)
#include "tst_sharelink.moc"
