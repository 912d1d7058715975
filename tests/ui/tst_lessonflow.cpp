// Lessons as a class sees them: each step shows its chart (in the window's tabs and in the presentation window),
// builds the roofline up piece by piece, asks its question before it shows the chart, and answers with the numbers of
// the analysis; Esc or the end restores the user's own view; a lesson prints as a PDF deck or a question handout.
#include "core/analysis/breakdown.h"
#include "core/analysis/limits.h"
#include "core/analysis/sweep.h"
#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/charts/charttabs.h"
#include "ui/charts/chartview.h"
#include "ui/charts/markerlayer.h"
#include "ui/charts/rooflinechart.h"
#include "ui/document/scenariodocument.h"
#include "ui/lessons/lesson.h"
#include "ui/lessons/lessonactions.h"
#include "ui/lessons/lessoncontroller.h"
#include "ui/lessons/lessonhandout.h"
#include "ui/lessons/lessonpanel.h"
#include "ui/lessons/presentationwindow.h"
#include "ui/util/text.h"

#include <QAction>
#include <QLineSeries>
#include <QMainWindow>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace memwall;

namespace {

core::Analysis analyzeFile(const core::ScenarioFile &f) { return core::analyze(f.hardware, f.model, f.scenario); }

/// The bound of the longest-running operator called `name`.
core::Bound opBound(const core::Analysis &a, const std::string &name)
{
    double longest = -1;
    core::Bound b = core::Bound::Memory;
    for (const core::Operator &op : a.operators)
        if (op.name == name && op.timeS > longest) {
            longest = op.timeS;
            b = op.bound;
        }
    return b;
}

/// Bytes all the operators called `name` move.
double opBytes(const core::Analysis &a, const std::string &name)
{
    double bytes = 0;
    for (const core::Operator &op : a.operators)
        if (op.name == name)
            bytes += op.bytes();
    return bytes;
}

QString boundWord(core::Bound b) { return QString::fromStdString(std::string(core::toString(b)) + "-bound"); }

/// The answer to a question, computed here from the analysis of the step's scenario (not by the lesson text
/// engine), written as the lesson writes it. Every answer expression a lesson uses needs a row here: a new question
/// without one fails the test.
std::optional<QString> oracle(const std::string &answer, core::ScenarioFile f, const core::PresetLibrary &lib)
{
    const core::Analysis a = analyzeFile(f);
    const auto varied = [&f](auto change) {
        core::ScenarioFile g = f;
        change(g.scenario);
        return analyzeFile(g);
    };
    if (answer == "bound")
        return boundWord(a.totals.bound);
    if (answer.rfind("op_bound:", 0) == 0)
        return boundWord(opBound(a, answer.substr(9)));
    if (answer == "fits")
        return QString(a.memory.fits ? "fits" : "does not fit");
    if (answer == "ridge")
        return ui::formatNumber(a.ridge);
    if (answer == "ridge / ridge@p100-sxm2") {
        core::ScenarioFile p100 = f;
        p100.hardware = *lib.findHardware("p100-sxm2");
        return ui::formatNumber(a.ridge / analyzeFile(p100).ridge);
    }
    if (answer == "time_ms")
        return ui::formatNumber(a.totals.timeS * 1e3);
    if (answer == "time_ms / time_ms@batch=1")
        return ui::formatNumber(a.totals.timeS / varied([](core::Scenario &s) { s.batch = 1; }).totals.timeS);
    if (answer == "time_ms@tp=1 / time_ms")
        return ui::formatNumber(varied([](core::Scenario &s) { s.tp = 1; }).totals.timeS / a.totals.timeS);
    if (answer == "time_ms@weights=fp16 / time_ms")
        return ui::formatNumber(
            varied([](core::Scenario &s) { s.weights = *core::weightFormatFromString("fp16"); }).totals.timeS /
            a.totals.timeS);
    if (answer == "op_mb:attn.score@deepseek-v3 / op_mb:attn.score") {
        core::ScenarioFile dense = f;
        dense.model = lib.findModel("deepseek-v3")->shape;
        return ui::formatNumber(opBytes(analyzeFile(dense), "attn.score") / opBytes(a, "attn.score"));
    }
    if (answer == "kv_total_gb")
        return ui::formatNumber(a.kvCache.totalBytes / 1e9);
    if (answer == "kv_per_token_kb")
        return ui::formatNumber(a.kvCache.bytesPerToken / 1e3);
    if (answer == "largest_fitting_batch")
        return ui::formatNumber(static_cast<double>(core::fitLimits(f.hardware, f.model, f.scenario).batch));
    if (answer == "first_compute_bound_batch") {
        const auto rows = core::sweep(f.hardware, f.model, f.scenario, {core::parseSweepAxis("batch=1:65536")});
        return ui::formatNumber(static_cast<double>(core::answerBatchSweep(rows).firstLinearComputeBound));
    }
    if (answer == "matmul_flop_share")
        return ui::formatPercentNumber(core::classShares(a).flopShareOf(core::ShareClass::TensorContraction));
    return std::nullopt;
}

/// Presses → (LessonController::advance()) until the step changes or the lesson is at its end; the presses made.
int pressesToLeaveStep(ui::LessonController &c, const std::function<void()> &press)
{
    const int step = c.stepIndex();
    int presses = 0;
    while (c.stepIndex() == step && !c.atEnd() && presses < 50) {
        press();
        ++presses;
    }
    return presses;
}

int questionCount(const std::vector<ui::Lesson> &lessons)
{
    int n = 0;
    for (const ui::Lesson &l : lessons)
        for (const ui::LessonStep &s : l.steps)
            n += s.question ? 1 : 0;
    return n;
}

/// The PDF's pages, counted by their page objects.
int pdfPages(const QByteArray &pdf)
{
    return static_cast<int>(pdf.count("/Type /Page\n") + pdf.count("/Type /Page ") + pdf.count("/Type /Page>") +
                            pdf.count("/Type /Page/"));
}

} // namespace

class TestLessonFlow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
        m_loaded = ui::loadLessons(*m_lib);
        QVERIFY2(m_loaded.errors.isEmpty(), qPrintable(m_loaded.errors.join('\n')));
    }

    void atLeastTenQuestions() { QVERIFY(questionCount(m_loaded.lessons) >= 10); }

    // Each question's answer, as the class sees it revealed, equals the analysis of the step's scenario, and is the
    // choice marked right.
    void questionAnswersAreTheAnalysis_data()
    {
        QTest::addColumn<int>("lesson");
        QTest::addColumn<int>("step");
        for (int i = 0; i < static_cast<int>(m_loaded.lessons.size()); ++i) {
            const ui::Lesson &l = m_loaded.lessons[static_cast<std::size_t>(i)];
            for (int s = 0; s < static_cast<int>(l.steps.size()); ++s)
                if (const auto &q = l.steps[static_cast<std::size_t>(s)].question)
                    QTest::addRow("%s step %d: {%s}", qPrintable(l.id), s + 1, q->answer.c_str()) << i << s;
        }
    }
    void questionAnswersAreTheAnalysis()
    {
        QFETCH(int, lesson);
        QFETCH(int, step);
        const ui::Lesson &l = m_loaded.lessons[static_cast<std::size_t>(lesson)];
        const ui::LessonStep &st = l.steps[static_cast<std::size_t>(step)];
        ui::ScenarioDocument doc(m_lib);
        ui::LessonController c(&doc);
        QVERIFY(c.start(l));
        QVERIFY(c.goToStep(step) || step == 0);
        QVERIFY(c.questionOpen());
        const std::optional<QString> expected =
            oracle(st.question->answer, ui::stepScenarioFile(st, *m_lib, "step"), *m_lib);
        QVERIFY2(expected, ("no oracle for the answer {" + st.question->answer + "}: add one").c_str());

        const std::optional<ui::QuestionView> q = c.currentQuestion();
        QVERIFY(q);
        QVERIFY2(q->ok(), q->errors.empty() ? "no answer" : q->errors.front().c_str());
        QString unit = st.question->unit;
        if (!unit.isEmpty() && !unit.startsWith(u'×'))
            unit = " " + unit;
        QCOMPARE(q->answer, *expected + unit);
        QCOMPARE(q->choices.at(q->correct), *expected + unit);
        QVERIFY(q->choices.size() >= 2);
        for (int i = 0; i < q->choices.size(); ++i) // no choice twice
            QCOMPARE(q->choices.count(q->choices[i]), 1);

        // Open, the panel asks without answering; answered, it shows the answer and then the text.
        ui::LessonPanel panel(&c);
        QVERIFY(!panel.html().contains("Answer:"));
        QVERIFY(panel.html().contains("<td>B. "));
        QCOMPARE(panel.nextButton()->text(), QString("Answer ▶"));
        QTest::mouseClick(panel.nextButton(), Qt::LeftButton);
        QVERIFY(!c.questionOpen());
        QCOMPARE(c.stepIndex(), step);
        QVERIFY(panel.html().contains("Answer:"));
        QVERIFY(panel.html().contains(q->answer.toHtmlEscaped()));
    }

    // The answers are live: the same question on another device gives that device's number.
    void answersFollowTheDocument()
    {
        const ui::Lesson *l = ui::findLesson(m_loaded.lessons, "roofline");
        QVERIFY(l);
        int step = -1;
        for (int s = 0; s < static_cast<int>(l->steps.size()); ++s)
            if (l->steps[static_cast<std::size_t>(s)].question &&
                l->steps[static_cast<std::size_t>(s)].question->answer == "ridge")
                step = s;
        QVERIFY(step >= 0);
        ui::ScenarioDocument doc(m_lib);
        ui::LessonController c(&doc);
        QVERIFY(c.start(*l));
        QVERIFY(c.goToStep(step));
        const QString before = c.currentQuestion()->answer;
        doc.setHardwareById("h100-sxm");
        const QString after = c.currentQuestion()->answer;
        QVERIFY(before != after);
        QCOMPARE(after, ui::formatNumber(doc.analysis().ridge) + " FLOP/byte");
    }

    // Number choices: a factor of 2 apart, the answer among them, formatted as the answer is.
    void numberChoicesByHand()
    {
        ui::LessonTextContext ctx;
        ctx.file.hardware = *m_lib->findHardware("h100-sxm");
        ctx.file.model = m_lib->findModel("llama-2-7b")->shape;
        ctx.analysis = analyzeFile(ctx.file);
        ctx.presets = m_lib.get();
        ui::LessonQuestion q{"Where is the ridge?", "ridge", "FLOP/byte", {}, {}};
        const ui::QuestionView v = ui::renderQuestion(q, ctx);
        QVERIFY(v.ok());
        QCOMPARE(v.choices.size(), 4);
        const double ridge = ctx.analysis.ridge;
        for (int i = 0; i < 4; ++i)
            QCOMPARE(v.choices[i], ui::formatNumber(ridge * std::ldexp(1.0, i - v.correct)) + " FLOP/byte");
        // A text answer that is not among its choices is an error, not a wrong tick.
        const ui::QuestionView bad = ui::renderQuestion({"?", "bound", "", {"fast", "slow"}, {}}, ctx);
        QVERIFY(!bad.ok());
        QCOMPARE(bad.correct, -1);
        QVERIFY(QString::fromStdString(bad.errors.front()).contains("not one of the choices"));
    }

    // Every lesson, start to end, in the window: the tab shown is the step's chart, the chart draws the pieces
    // revealed so far, and the chart is covered exactly while a question is open. Esc then restores the user's tab
    // and compare mode.
    void windowFollowsEveryStep_data()
    {
        QTest::addColumn<int>("lesson");
        for (int i = 0; i < static_cast<int>(m_loaded.lessons.size()); ++i)
            QTest::addRow("%s", qPrintable(m_loaded.lessons[static_cast<std::size_t>(i)].id)) << i;
    }
    void windowFollowsEveryStep()
    {
        QFETCH(int, lesson);
        ui::ScenarioDocument doc(m_lib);
        QMainWindow window;
        auto *tabs = new ui::ChartTabs(&doc);
        window.setCentralWidget(tabs);
        ui::LessonActions actions(&doc, &window, tabs);
        window.resize(1280, 720);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        tabs->setCurrentIndex(static_cast<int>(ui::chartIds().indexOf("validation")));
        ui::CompareSpec b;
        b.hardware = *m_lib->findHardware("mi300x");
        doc.setCompare(b);

        ui::LessonController *c = actions.controller();
        QVERIFY(actions.startLesson(lesson));
        const ui::Lesson &l = m_loaded.lessons[static_cast<std::size_t>(lesson)];
        for (int s = 0; s < static_cast<int>(l.steps.size()); ++s) {
            const ui::LessonStep &st = l.steps[static_cast<std::size_t>(s)];
            QCOMPARE(c->stepIndex(), s);
            int presses = 0;
            while (c->stepIndex() == s) {
                ui::ChartBase *shown = tabs->currentChart();
                QVERIFY(shown);
                QCOMPARE(shown->id(), st.chart);
                QCOMPARE(shown->reveal(), c->currentReveal());
                auto *view = qobject_cast<ui::ChartView *>(tabs->currentWidget());
                QCOMPARE(view->cover() != nullptr, c->questionOpen());
                QCOMPARE(doc.isComparing(), st.compare.has_value());
                if (c->atEnd())
                    break;
                QVERIFY(c->advance());
                ++presses;
            }
            const int expected = (st.question ? 1 : 0) + std::max(0, static_cast<int>(st.reveal.size()) - 1) +
                                 (s + 1 < static_cast<int>(l.steps.size()) ? 1 : 0);
            QCOMPARE(presses, expected);
        }
        QTest::keyClick(&window, Qt::Key_Escape); // Esc ends the lesson
        QVERIFY(!c->isRunning());
        QCOMPARE(tabs->currentChart()->id(), QString("validation"));
        QVERIFY(doc.isComparing());
        QCOMPARE(doc.compare()->hardware->id, std::string("mi300x"));
        for (ui::ChartBase *chart : tabs->chartList())
            QVERIFY(!chart->reveal());
    }

    // The blackboard roofline: the axes alone, then the compute roof, the memory slope, the ridge, and one class of
    // operators at a time, read back from the painted series and markers.
    void rooflineBuildsUp()
    {
        ui::ScenarioDocument doc(m_lib);
        ui::RooflineChart chart(&doc);
        chart.refresh();
        const auto drawnMarkers = [&chart] {
            int n = 0;
            for (std::size_t i = 0; i < chart.operatorMarkers()->markers().size(); ++i)
                n += std::isnan(chart.operatorMarkers()->centre(i).x()) ? 0 : 1; // NaN: not painted
            return n;
        };
        const int allMarkers = drawnMarkers();
        QVERIFY(allMarkers > 0);

        chart.setReveal(QStringList{"axes"});
        QVERIFY(!chart.ceilingSeries().front()->isVisible());
        QCOMPARE(drawnMarkers(), 0);
        QVERIFY(!chart.modelSeries()->isVisible());
        chart.setReveal(QStringList{"axes", "compute"});
        QVERIFY(chart.ceilingSeries().front()->isVisible());
        chart.setReveal(QStringList{"axes", "compute", "memory", "ridge", "ops:matmul"});
        const int matmuls = drawnMarkers();
        QCOMPARE(matmuls, static_cast<int>(chart.operatorIndices(core::OpClass::Matmul).size()));
        QVERIFY(chart.operatorSeries(core::OpClass::Matmul)->isVisible());
        QVERIFY(!chart.operatorSeries(core::OpClass::Attention)->isVisible());
        // A highlighted operator of a class not shown yet gets no ring around empty space.
        int attention = -1;
        for (std::size_t i = 0; i < doc.analysis().operators.size(); ++i)
            if (doc.analysis().operators[i].cls == core::OpClass::Attention && doc.analysis().operators[i].flops > 0)
                attention = static_cast<int>(i);
        QVERIFY(attention >= 0);
        doc.setSelectedOperator(attention);
        QVERIFY(!chart.selectionSeries()->isVisible());
        chart.setReveal(std::nullopt);
        QCOMPARE(drawnMarkers(), allMarkers);
        QVERIFY(chart.selectionSeries()->isVisible());
        QVERIFY(chart.modelSeries()->isVisible());
    }

    // The presentation window follows the same way: → answers, reveals, then steps; the chart is covered while a
    // question is open.
    void presentationFollows()
    {
        const ui::Lesson *l = ui::findLesson(m_loaded.lessons, "decode-and-batch");
        QVERIFY(l);
        ui::ScenarioDocument doc(m_lib);
        ui::LessonController c(&doc);
        ui::PresentationWindow w(&doc, &c);
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(c.start(*l));
        for (int s = 0; s < static_cast<int>(l->steps.size()); ++s) {
            QCOMPARE(w.currentChartId(), l->steps[static_cast<std::size_t>(s)].chart);
            QCOMPARE(w.currentView()->cover() != nullptr, c.questionOpen());
            pressesToLeaveStep(c, [&w] { QTest::keyClick(&w, Qt::Key_Right); });
        }
        QVERIFY(c.atEnd());
        QTest::keyClick(&w, Qt::Key_Left); // back to the previous step, complete
        QCOMPARE(c.stepIndex(), static_cast<int>(l->steps.size()) - 2);
        QVERIFY(!c.questionOpen());
        QVERIFY(w.currentView()->cover() == nullptr);
    }

    // A room's projector: every lesson, start to end, in the presentation window at 1280×720 and 1024×768. At every
    // press the step's chart has most of the window and the caption shows all of its text, at 14 pt or more. With
    // MEMWALL_SCREENSHOT_DIR set, each state is saved as a PNG (lesson-id-WxH-step-press.png) to look at.
    void roomSizes_data()
    {
        QTest::addColumn<int>("lesson");
        QTest::addColumn<QSize>("size");
        for (const QSize size : {QSize(1280, 720), QSize(1024, 768)})
            for (int i = 0; i < static_cast<int>(m_loaded.lessons.size()); ++i)
                QTest::addRow("%s %dx%d", qPrintable(m_loaded.lessons[static_cast<std::size_t>(i)].id), size.width(),
                              size.height())
                    << i << size;
    }
    void roomSizes()
    {
        QFETCH(int, lesson);
        QFETCH(QSize, size);
        const ui::Lesson &l = m_loaded.lessons[static_cast<std::size_t>(lesson)];
        ui::ScenarioDocument doc(m_lib);
        ui::LessonController c(&doc);
        ui::PresentationWindow w(&doc, &c);
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(c.start(l));
        const QString dir = qEnvironmentVariable("MEMWALL_SCREENSHOT_DIR");
        int press = 0;
        while (true) {
            QCoreApplication::processEvents(); // the layout follows the new caption
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            const QString where = QString("step %1, press %2").arg(c.stepIndex() + 1).arg(press);
            if (!dir.isEmpty())
                QVERIFY(w.grab().save(QString("%1/%2-%3x%4-step%5-%6.png")
                                          .arg(dir, l.id)
                                          .arg(size.width())
                                          .arg(size.height())
                                          .arg(c.stepIndex() + 1)
                                          .arg(press)));
            QCOMPARE(w.size(), size);
            QVERIFY2(w.caption()->textFits(), qPrintable(where));
            QVERIFY2(w.caption()->textView()->document()->defaultFont().pointSizeF() >= 14, qPrintable(where));
            QVERIFY2(w.currentView()->height() >= size.height() * 0.35, qPrintable(where));
            if (c.atEnd())
                break;
            QTest::keyClick(&w, Qt::Key_Right);
            ++press;
        }
    }

    // Broken new fields are skipped with one line naming the field.
    void brokenStepFields_data()
    {
        QTest::addColumn<QString>("step");
        QTest::addColumn<QString>("message");
        QTest::newRow("reveal piece unknown")
            << R"({"title": "s", "chart": "roofline", "reveal": ["axes", "roof"], "text": "t"})"
            << R"(bad.json: steps[0].reveal[1]: the roofline chart has no piece "roof")";
        QTest::newRow("reveal twice")
            << R"({"title": "s", "chart": "roofline", "reveal": ["axes", ["axes"]], "text": "t"})"
            << R"(bad.json: steps[0].reveal[1][0]: "axes" is revealed twice)";
        QTest::newRow("reveal a whole chart")
            << R"({"title": "s", "chart": "memory", "reveal": ["axes"], "text": "t"})"
            << "bad.json: steps[0].reveal: the memory chart is shown whole; it has no pieces to reveal";
        QTest::newRow("answer not a choice")
            << R"({"title": "s", "chart": "roofline", "question": {"ask": "?", "answer": "bound", "choices": ["fast", "slow"]}, "text": "t"})"
            << "bad.json: steps[0]: question: answer: {bound} is \"memory-bound\", which is not one of the choices";
        QTest::newRow("answer with braces")
            << R"({"title": "s", "chart": "roofline", "question": {"ask": "?", "answer": "{ridge}"}, "text": "t"})"
            << "bad.json: steps[0].question.answer: expected a placeholder expression without braces";
        QTest::newRow("text answer without choices")
            << R"({"title": "s", "chart": "roofline", "question": {"ask": "?", "answer": "bound"}, "text": "t"})"
            << "bad.json: steps[0]: question: answer: {bound} is text";
        QTest::newRow("compare unknown device")
            << R"({"title": "s", "chart": "roofline", "compare": {"hardware": "h101"}, "text": "t"})"
            << "bad.json: steps[0].compare.hardware: unknown hardware 'h101'";
    }
    void brokenStepFields()
    {
        QFETCH(QString, step);
        QFETCH(QString, message);
        const QString json =
            QString(
                R"({"kind": "lesson", "id": "x", "title": "X", "scenario": {"hardware": "h100-sxm", "model": "llama-2-7b"}, "steps": [%1]})")
                .arg(step);
        QTemporaryDir dir;
        QFile f(dir.filePath("bad.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(json.toUtf8());
        f.close();
        const ui::LessonLoadResult r = ui::loadLessons(*m_lib, dir.path());
        QCOMPARE(r.errors.size(), 1);
        QVERIFY2(r.errors.front().startsWith(message), qPrintable(r.errors.front()));
        QVERIFY(!r.errors.front().contains('\n'));
    }

    // The deck has one page per step; the handout three questions a page (tst_lessonhandout checks what they say).
    void deckAndHandout_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("questionsOnly");
        for (const char *id : {"roofline", "decode-and-batch", "hardware-trends"})
            for (bool q : {false, true})
                QTest::addRow("%s %s", id, q ? "handout" : "deck") << QString(id) << q;
    }
    void deckAndHandout()
    {
        QFETCH(QString, id);
        QFETCH(bool, questionsOnly);
        const ui::Lesson *l = ui::findLesson(m_loaded.lessons, id);
        QVERIFY(l);
        QTemporaryDir dir;
        const QString path = dir.filePath(id + ".pdf");
        ui::HandoutOptions options;
        options.questionsOnly = questionsOnly;
        QString error;
        int pages = 0;
        QVERIFY2(ui::writeLessonPdf(*l, m_lib, path, options, &error, &pages), qPrintable(error));
        const auto questions = std::count_if(l->steps.begin(), l->steps.end(),
                                             [](const ui::LessonStep &s) { return s.question.has_value(); });
        // the deck: a page per step; the handout: one to ui::kQuestionsPerPage questions a page, fewer when the next
        // would leave it less than its writing room (tst_lessonhandout::pagesOfQuestions checks each page's layout)
        if (questionsOnly) {
            QVERIFY(pages >= static_cast<int>((questions + ui::kQuestionsPerPage - 1) / ui::kQuestionsPerPage));
            QVERIFY(pages <= static_cast<int>(questions));
        } else {
            QCOMPARE(pages, static_cast<int>(l->steps.size()));
        }
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray pdf = f.readAll();
        QVERIFY(pdf.startsWith("%PDF-"));
        QCOMPARE(pdfPages(pdf), pages);
    }

    void deckWriteFailsCleanly()
    {
        const ui::Lesson &l = m_loaded.lessons.front();
        QTemporaryDir dir;
        QString error;
        QVERIFY(!ui::writeLessonPdf(l, m_lib, dir.filePath("missing/x.pdf"), {}, &error));
        QVERIFY2(error.contains("missing/x.pdf") && error.contains("does not exist"), qPrintable(error));
        QVERIFY(!ui::writeLessonPdf(l, m_lib, dir.filePath("x.png"), {}, &error));
        QVERIFY2(error.contains("use a .pdf file name"), qPrintable(error));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
    }

private:
    std::shared_ptr<core::PresetLibrary> m_lib;
    ui::LessonLoadResult m_loaded;
};

QTEST_MAIN(TestLessonFlow)
#include "tst_lessonflow.moc"
