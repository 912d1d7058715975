// The class's handout and its answer key (issue #41 item 4), checked page by page on the model that is painted:
// portrait A4 or Letter, several questions a page, each with the figures it needs, no answer on the handout and every
// answer in the key.
#include "ui/lessons/lesson.h"
#include "ui/lessons/lessonhandout.h"

#include "uitest.h"

#include <QRegularExpression>
#include <QTextDocumentFragment>
#include <QtTest>

using namespace memwall;

namespace {
QString plain(const QString &html) { return QTextDocumentFragment::fromHtml(html).toPlainText(); }
} // namespace

class TestLessonHandout : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        m_loaded = ui::loadLessons(*uitest::library());
        QVERIFY2(m_loaded.errors.isEmpty(), qPrintable(m_loaded.errors.join('\n')));
    }

    void pagesOfQuestions_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("paper");
        for (const ui::Lesson &l : m_loaded.lessons)
            if (std::any_of(l.steps.begin(), l.steps.end(), [](const auto &s) { return s.question.has_value(); }))
                for (auto [name, paper] : {std::pair{"A4", QPageSize::A4}, std::pair{"Letter", QPageSize::Letter}})
                    QTest::addRow("%s %s", qPrintable(l.id), name) << l.id << int(paper);
    }
    void pagesOfQuestions()
    {
        QFETCH(QString, id);
        QFETCH(int, paper);
        const ui::Lesson *lesson = ui::findLesson(m_loaded.lessons, id);
        QVERIFY(lesson);
        ui::HandoutOptions options;
        options.questionsOnly = true;
        options.paper = QPageSize::PageSizeId(paper);
        QString error;
        const auto handout = ui::buildHandout(*lesson, uitest::library(), options, &error);
        QVERIFY2(handout, qPrintable(error));
        options.answerKey = true;
        const auto key = ui::buildHandout(*lesson, uitest::library(), options, &error);
        QVERIFY2(key, qPrintable(error));

        // Portrait, on the paper asked for.
        for (const ui::Handout *h : {&*handout, &*key}) {
            QCOMPARE(h->layout.orientation(), QPageLayout::Portrait);
            QCOMPARE(h->layout.pageSize().id(), QPageSize::PageSizeId(paper));
            const QSizeF pt = h->layout.fullRect(QPageLayout::Point).size();
            QVERIFY(pt.height() > pt.width());
        }
        // Page by page, from the geometry that is painted: every question's text and its room to write lie inside
        // the margins, below the title block, one under the other; each room is at least kWritingRoomMm high; a page
        // holds up to kQuestionsPerPage, and fewer only when the next question would not fit with its room.
        const auto questions = std::count_if(lesson->steps.begin(), lesson->steps.end(),
                                             [](const auto &s) { return s.question.has_value(); });
        const QSizeF size = handout->layout.fullRect(QPageLayout::Point).size();
        const QRectF body(ui::kHandoutMarginPt, ui::kHandoutMarginPt + ui::kHandoutHeadPt,
                          size.width() - 2 * ui::kHandoutMarginPt,
                          size.height() - 2 * ui::kHandoutMarginPt - ui::kHandoutHeadPt);
        const qreal room = ui::kWritingRoomMm * 72 / 25.4;
        std::vector<ui::HandoutQuestion> all;
        for (std::size_t p = 0; p < handout->pages.size(); ++p) {
            const auto &page = handout->pages[p];
            QVERIFY(!page.empty());
            QVERIFY(static_cast<int>(page.size()) <= ui::kQuestionsPerPage);
            qreal y = body.top();
            for (const ui::HandoutQuestion &q : page) {
                const QString where = QStringLiteral("%1 page %2 question %3").arg(id).arg(p + 1).arg(q.number);
                QVERIFY2(q.textRect.height() > 20 && q.textRect.top() >= y - 1e-9, qPrintable(where));
                QVERIFY2(qFuzzyCompare(q.writingRect.top(), q.textRect.bottom()), qPrintable(where));
                QVERIFY2(q.writingRect.height() >= room - 1e-9,
                         qPrintable(where + QStringLiteral(": %1 pt to write").arg(q.writingRect.height())));
                QVERIFY2(body.contains(q.textRect) && body.contains(q.writingRect), qPrintable(where));
                y = q.writingRect.bottom();
            }
            if (p + 1 < handout->pages.size() && static_cast<int>(page.size()) < ui::kQuestionsPerPage) {
                // the next page's first question did not fit here with its least room, even with no spare given out
                const ui::HandoutQuestion &next = handout->pages[p + 1].front();
                qreal least = body.top();
                for (const ui::HandoutQuestion &q : page)
                    least += q.textRect.height() + room + 12;
                QVERIFY2(
                    least + next.textRect.height() + room > body.bottom(),
                    qPrintable(
                        QStringLiteral("%1: page %2 has room for question %3").arg(id).arg(p + 1).arg(next.number)));
            }
            all.insert(all.end(), page.begin(), page.end());
        }
        QCOMPARE(static_cast<qsizetype>(all.size()), static_cast<qsizetype>(questions));
        std::vector<ui::HandoutQuestion> answers;
        for (const auto &page : key->pages)
            answers.insert(answers.end(), page.begin(), page.end());
        QCOMPARE(answers.size(), all.size());

        static const QRegularExpression figure(QStringLiteral("\\d"));
        for (std::size_t i = 0; i < all.size(); ++i) {
            const ui::HandoutQuestion &q = all[i];
            const QString text = plain(q.html);
            const QString answer = answers[i].answer;
            QVERIFY(!answer.isEmpty());
            // Each question gives the figures it needs, and they are printed with it.
            QVERIFY2(plain(q.given).contains(figure), qPrintable(id + ": no figures given with: " + text));
            QVERIFY2(text.contains(plain(q.given)), qPrintable(text));
            // The handout gives no answer: none computed, none ticked, and the figures given are not the answer.
            QVERIFY(q.answer.isEmpty());
            QVERIFY2(!text.contains(QStringLiteral("Answer:")) && !text.contains(QChar(u'✓')), qPrintable(text));
            QVERIFY2(!plain(q.given).contains(answer), qPrintable(plain(q.given) + " gives away " + answer));
            // The key has every answer.
            QVERIFY2(plain(answers[i].html).contains(answer), qPrintable(plain(answers[i].html)));
            QCOMPARE(answers[i].number, q.number);
        }
    }

    // The handout PDF's pages are the model's pages, portrait.
    void writesThePdf()
    {
        const ui::Lesson *lesson = ui::findLesson(m_loaded.lessons, QStringLiteral("decode-and-batch"));
        QVERIFY(lesson);
        QTemporaryDir dir;
        ui::HandoutOptions options;
        options.questionsOnly = true;
        QString error;
        int pages = 0;
        QVERIFY2(ui::writeLessonPdf(*lesson, uitest::library(), dir.filePath("h.pdf"), options, &error, &pages),
                 qPrintable(error));
        const auto handout = ui::buildHandout(*lesson, uitest::library(), options, &error);
        QVERIFY(handout);
        QCOMPARE(pages, static_cast<int>(handout->pages.size()));
        QVERIFY(pages >= 2); // five questions
    }

private:
    ui::LessonLoadResult m_loaded;
};

QTEST_MAIN(TestLessonHandout)
#include "tst_lessonhandout.moc"
