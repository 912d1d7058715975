// Lessons: every built-in lesson loads, every step applies, every placeholder resolves, and the text follows the
// document live; broken lessons are skipped with one line naming the file and the field.
#include "core/io/scenariofile.h"
#include "ui/charts/chartregistry.h"
#include "ui/document/scenariodocument.h"
#include "ui/lessons/lesson.h"
#include "ui/lessons/lessoncontroller.h"
#include "ui/lessons/lessonpanel.h"
#include "ui/util/text.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace memwall;

namespace {

std::string dump(const core::ScenarioFile &f) { return core::toJson(f).dump(); }

const char *kGoodLesson = R"({"kind": "lesson", "schema": 1, "id": "tiny", "title": "Tiny",
  "scenario": {"hardware": "h100-sxm", "model": "llama-2-7b"},
  "steps": [{"title": "One", "chart": "roofline", "text": "ridge {ridge}"},
            {"title": "Two", "chart": "memory", "scenario": {"batch": 8}, "text": ["a {batch}", "b"]}]})";

} // namespace

class TestLessons : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
        m_loaded = ui::loadLessons(*m_lib);
    }

    void allBuiltinLessonsLoad()
    {
        QVERIFY2(m_loaded.errors.isEmpty(), qPrintable(m_loaded.errors.join('\n')));
        QVERIFY(m_loaded.lessons.size() >= 9);
        QSet<QString> ids;
        for (const ui::Lesson &l : m_loaded.lessons) {
            QVERIFY2(l.steps.size() >= 3 && l.steps.size() <= 6, qPrintable(l.file));
            QVERIFY(!l.title.isEmpty());
            QVERIFY2(!ids.contains(l.id), qPrintable(l.id));
            ids.insert(l.id);
        }
    }

    void everyStep_data()
    {
        QTest::addColumn<int>("lesson");
        QTest::addColumn<int>("step");
        for (int i = 0; i < static_cast<int>(m_loaded.lessons.size()); ++i)
            for (int s = 0; s < static_cast<int>(m_loaded.lessons[static_cast<std::size_t>(i)].steps.size()); ++s)
                QTest::addRow("%s step %d", qPrintable(m_loaded.lessons[static_cast<std::size_t>(i)].id), s + 1)
                    << i << s;
    }
    void everyStep()
    {
        QFETCH(int, lesson);
        QFETCH(int, step);
        const ui::Lesson &l = m_loaded.lessons[static_cast<std::size_t>(lesson)];
        const ui::LessonStep &st = l.steps[static_cast<std::size_t>(step)];
        ui::ScenarioDocument doc(m_lib);
        ui::LessonController c(&doc);
        QVERIFY(c.start(l));
        if (step > 0)
            QVERIFY(c.goToStep(step));
        QCOMPARE(c.stepIndex(), step);
        QVERIFY2(c.lastError().isEmpty(), qPrintable(c.lastError()));
        QVERIFY2(doc.analysisError().isEmpty(), qPrintable(doc.analysisError()));
        QCOMPARE(QString::fromStdString(doc.file().hardware.id),
                 QString::fromStdString(st.scenario.at("hardware").get<std::string>()));
        QCOMPARE(QString::fromStdString(doc.file().model.id),
                 QString::fromStdString(st.scenario.at("model").get<std::string>()));
        QVERIFY2(ui::chartIds().contains(st.chart) || ui::lessonChartNames().contains(st.chart), qPrintable(st.chart));
        const ui::LessonTextResult r = c.renderCurrent();
        QStringList errors;
        for (const std::string &e : r.errors)
            errors << QString::fromStdString(e);
        QVERIFY2(r.ok(), qPrintable(l.file + ": " + errors.join('\n')));
        const QString text = QString::fromStdString(r.text);
        QVERIFY2(!text.contains('{') && !text.contains('}'), qPrintable(text));
        QVERIFY2(!text.contains("[?"), qPrintable(text));
        QVERIFY2(!text.contains("nan") && !text.contains("inf"), qPrintable(text));
        // An operator highlight selects that operator.
        const auto &ops = doc.analysis().operators;
        const bool isOperator = std::any_of(ops.begin(), ops.end(), [&](const core::Operator &op) {
            return QString::fromUtf8(op.name.data(), static_cast<qsizetype>(op.name.size())) == st.highlight;
        });
        if (isOperator) {
            QVERIFY(doc.selectedOperator() >= 0);
            const core::Operator &sel = ops[static_cast<std::size_t>(doc.selectedOperator())];
            QCOMPARE(QString::fromUtf8(sel.name.data(), static_cast<qsizetype>(sel.name.size())), st.highlight);
        } else
            QVERIFY2(st.highlight.isEmpty() || st.highlight == "ridge" || st.highlight == "model" ||
                         std::any_of(doc.hardware().memory.begin(), doc.hardware().memory.end(),
                                     [&](const core::MemoryLevel &m) {
                                         return QString::fromStdString(m.name) == st.highlight;
                                     }),
                     qPrintable("unknown highlight " + st.highlight));
    }

    void textFollowsTheDevice()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::LessonController c(&doc);
        ui::LessonPanel panel(&c);
        QVERIFY(c.start(m_loaded.lessons.front())); // the roofline lesson: step 1 names the ridge
        const QString h100Ridge = (ui::formatNumber(doc.analysis().ridge));
        QVERIFY2(panel.html().contains(h100Ridge), qPrintable(panel.html()));
        const QString before = panel.html();
        doc.setHardwareById("a100-80gb-sxm");
        const QString a100Ridge = (ui::formatNumber(doc.analysis().ridge));
        QVERIFY(a100Ridge != h100Ridge);
        QVERIFY2(panel.html().contains(a100Ridge), qPrintable(panel.html()));
        QVERIFY(panel.html() != before);
    }

    void endingRestoresTheUsersScenario()
    {
        ui::ScenarioDocument doc(m_lib);
        doc.setModelById("llama-2-13b");
        core::Scenario s = doc.scenario();
        s.batch = 7;
        doc.setScenario(s, "batch");
        doc.setSelectedOperator(3);
        const std::string mine = dump(doc.file());
        const int undoIndex = doc.undoStack()->index();
        ui::LessonController c(&doc);
        QSignalSpy finished(&c, &ui::LessonController::finished);
        QVERIFY(c.start(m_loaded.lessons.at(1)));
        QVERIFY(dump(doc.file()) != mine);
        QVERIFY(c.next());
        c.stop();
        QCOMPARE(finished.count(), 1);
        QVERIFY(!c.isRunning());
        QCOMPARE(dump(doc.file()), mine);
        QCOMPARE(doc.undoStack()->index(), undoIndex);
        QCOMPARE(doc.selectedOperator(), 3);
    }

    void compareIsOffDuringALessonAndBackAfter()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::CompareSpec b;
        b.hardware = *m_lib->findHardware("mi300x");
        doc.setCompare(b);
        QVERIFY(doc.isComparing());
        ui::LessonController c(&doc);
        QVERIFY(c.start(m_loaded.lessons.front()));
        QVERIFY(!doc.isComparing()); // the lesson's numbers are about its own scenario
        QVERIFY(c.next());
        QVERIFY(!doc.isComparing());
        c.stop();
        QVERIFY(doc.isComparing());
        QCOMPARE(doc.compare()->hardware->id, std::string("mi300x"));
    }

    void panelButtons()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::LessonController c(&doc);
        ui::LessonPanel panel(&c);
        const ui::Lesson &l = m_loaded.lessons.at(1);
        QVERIFY(c.start(l));
        const QString n = QString::number(l.steps.size());
        QCOMPARE(panel.counterText(), "1 / " + n);
        QVERIFY(!panel.previousButton()->isEnabled());
        // Next answers the first step's question, if it has one, then reveals, then steps.
        while (c.stepIndex() == 0)
            QTest::mouseClick(panel.nextButton(), Qt::LeftButton);
        QCOMPARE(c.stepIndex(), 1);
        QCOMPARE(panel.counterText(), "2 / " + n);
        QCOMPARE(panel.stepTitle(), l.steps[1].title);
        QTest::mouseClick(panel.previousButton(), Qt::LeftButton);
        QCOMPARE(c.stepIndex(), 0);
        QVERIFY(c.goToStep(static_cast<int>(l.steps.size()) - 1));
        while (!c.atEnd())
            QTest::mouseClick(panel.nextButton(), Qt::LeftButton);
        QCOMPARE(panel.nextButton()->text(), QString("Finish ✓"));
        QTest::mouseClick(panel.nextButton(), Qt::LeftButton); // "Finish" on the last step ends the lesson
        QVERIFY(!c.isRunning());
        QVERIFY(panel.counterText().isEmpty());
    }

    void brokenLesson_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        const QString base =
            R"({"kind": "lesson", "id": "x", "title": "X", "scenario": {"hardware": "h100-sxm", "model": "llama-2-7b"}, "steps": [%1]})";
        QTest::newRow("unknown chart") << base.arg(R"({"title": "s", "chart": "pie", "text": "t"})")
                                       << R"(bad.json: steps[0].chart: unknown chart "pie")";
        QTest::newRow("unknown placeholder") << base.arg(R"({"title": "s", "chart": "roofline", "text": "{ridgee}"})")
                                             << "bad.json: steps[0].text: {ridgee}: unknown placeholder 'ridgee'";
        QTest::newRow("unknown hardware")
            << base.arg(R"({"title": "s", "chart": "roofline", "scenario": {"hardware": "h101"}, "text": "t"})")
            << "bad.json: steps[0]: scenario.hardware: unknown hardware 'h101'";
        QTest::newRow("bad scenario field")
            << base.arg(R"({"title": "s", "chart": "roofline", "scenario": {"bacth": 2}, "text": "t"})")
            << "bad.json: steps[0]: scenario.bacth";
        QTest::newRow("missing title") << base.arg(R"({"chart": "roofline", "text": "t"})")
                                       << "bad.json: steps[0].title";
        QTest::newRow("no steps") << base.arg("") << "bad.json: steps: a lesson needs at least one step";
        QTest::newRow("not json") << "{\"kind\": "
                                  << "bad.json";
    }
    void brokenLesson()
    {
        QFETCH(QString, json);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto write = [&](const QString &name, const QByteArray &text) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        };
        write("a-good.json", kGoodLesson);
        write("bad.json", json.toUtf8());
        const ui::LessonLoadResult r = ui::loadLessons(*m_lib, dir.path());
        QCOMPARE(r.lessons.size(), std::size_t(1)); // the good one still loads
        QCOMPARE(r.lessons.front().id, QString("tiny"));
        QCOMPARE(r.errors.size(), 1);
        QVERIFY2(r.errors.front().startsWith(message), qPrintable(r.errors.front()));
        QVERIFY(!r.errors.front().contains('\n'));
    }

    void textArrayBecomesParagraphs()
    {
        const ui::Lesson l = ui::lessonFromJson(nlohmann::json::parse(kGoodLesson), "tiny.json", *m_lib);
        QCOMPARE(l.steps.size(), std::size_t(2));
        QCOMPARE(l.steps[1].text, QString("<p>a {batch}</p><p>b</p>"));
        QCOMPARE(l.steps[1].scenario.at("batch").get<int>(), 8);
        QCOMPARE(l.steps[1].scenario.at("hardware").get<std::string>(), std::string("h100-sxm"));
    }

private:
    std::shared_ptr<core::PresetLibrary> m_lib;
    ui::LessonLoadResult m_loaded;
};

QTEST_MAIN(TestLessons)
#include "tst_lessons.moc"
