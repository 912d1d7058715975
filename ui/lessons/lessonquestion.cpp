#include "ui/lessons/lessonquestion.h"

#include <QChar>
#include <QCoreApplication>

#include <cmath>
#include <cstdint>
#include <exception>

namespace memwall::ui {

namespace {

/// A place for the answer among four choices that depends only on the question's text (FNV-1a): stable across runs
/// and machines, and different from question to question.
int answerSlot(const QString &ask)
{
    std::uint32_t h = 2166136261u;
    for (const QChar c : ask) {
        h ^= c.unicode();
        h *= 16777619u;
    }
    return static_cast<int>(h % 4);
}

/// Four numbers a factor of two apart with `value` at `slot`, written as `value` is written.
QStringList numberChoices(const LessonValue &value, int slot)
{
    QStringList out;
    for (int k = 0; k < 4; ++k) {
        LessonValue v = value;
        v.number = value.number * std::ldexp(1.0, k - slot);
        out << QString::fromStdString(formatLessonValue(v));
    }
    return out;
}

bool allDistinct(const QStringList &list)
{
    for (int i = 0; i < list.size(); ++i)
        for (int j = i + 1; j < list.size(); ++j)
            if (list[i] == list[j])
                return false;
    return true;
}

} // namespace

QString choiceLetter(int index) { return QString(QChar(u'A' + index)); }

QString questionHtml(const QuestionView &q, QuestionMode mode, bool oneLine)
{
    QString html =
        QStringLiteral("<p><b>%1</b> %2</p>").arg(QCoreApplication::translate("LessonQuestion", "Question:"), q.ask);
    if (mode == QuestionMode::Blank && !q.given.isEmpty()) // on paper, the figures to work it out with
        html +=
            QStringLiteral("<p><i>%1</i> %2</p>").arg(QCoreApplication::translate("LessonQuestion", "Given:"), q.given);
    QStringList choices;
    for (int i = 0; i < q.choices.size(); ++i) {
        const bool right = mode == QuestionMode::Answered && i == q.correct;
        QString mark = QStringLiteral("&nbsp;");
        if (mode == QuestionMode::Blank)
            mark = QStringLiteral("☐");
        else if (right)
            mark = QStringLiteral("✓");
        QString text = QStringLiteral("%1. %2").arg(choiceLetter(i), q.choices[i].toHtmlEscaped());
        if (oneLine) // a choice never breaks; the line breaks between choices
            text.replace(QChar(u' '), QStringLiteral("&nbsp;"));
        if (right)
            text = "<b>" + text + "</b>";
        choices << (oneLine ? (mark == QStringLiteral("&nbsp;") ? text : mark + "&nbsp;" + text)
                            : QStringLiteral("<tr><td>%1</td><td>%2</td></tr>").arg(mark, text));
    }
    html += oneLine ? QStringLiteral("<p>") + choices.join(QStringLiteral("&nbsp;&nbsp;&nbsp;&nbsp; ")) +
                          QStringLiteral("</p>")
                    : QStringLiteral("<table cellpadding='3'>") + choices.join(QString()) + QStringLiteral("</table>");
    switch (mode) {
    case QuestionMode::Open:
        if (oneLine) // the band's chart is covered with the same words, larger
            break;
        html +=
            QStringLiteral("<p><i>%1</i></p>")
                .arg(QCoreApplication::translate("LessonQuestion", "Predict, then press → or Next for the answer."));
        break;
    case QuestionMode::Answered:
        html += QStringLiteral("<p><b>%1</b> %2</p>")
                    .arg(QCoreApplication::translate("LessonQuestion", "Answer:"), q.answer.toHtmlEscaped());
        break;
    case QuestionMode::Blank:
        html += QStringLiteral("<p>%1 ______________________________________</p>")
                    .arg(QCoreApplication::translate("LessonQuestion", "Why?"));
        break;
    }
    return html;
}

QuestionView renderQuestion(const LessonQuestion &q, const LessonTextContext &ctx)
{
    QuestionView view;
    const LessonTextResult ask = renderLessonText(q.ask.toStdString(), ctx);
    view.ask = QString::fromStdString(ask.text);
    view.errors = ask.errors;
    if (!q.given.isEmpty()) {
        const LessonTextResult given = renderLessonText(q.given.toStdString(), ctx);
        view.given = QString::fromStdString(given.text);
        view.errors.insert(view.errors.end(), given.errors.begin(), given.errors.end());
    }

    LessonValue value;
    try {
        value = evaluateLessonValue(q.answer, ctx);
    } catch (const std::exception &e) {
        view.errors.emplace_back(std::string("answer: ") + e.what());
        view.choices = q.choices;
        return view;
    }
    const QString written = QString::fromStdString(formatLessonValue(value));
    // "123 sequences", "4.11 ms", but "1.99×"
    const QString unit = q.unit.isEmpty() ? QString() : (q.unit.startsWith(u'×') ? q.unit : QChar(u' ') + q.unit);
    view.answer = written + unit;

    if (!q.choices.isEmpty()) {
        view.choices = q.choices;
        view.correct = static_cast<int>(q.choices.indexOf(written));
        if (view.correct < 0)
            view.errors.push_back("answer: {" + q.answer + "} is \"" + written.toStdString() +
                                  "\", which is not one of the choices (" + q.choices.join(", ").toStdString() + ")");
        return view;
    }
    if (value.kind == LessonValueKind::Text) {
        view.errors.push_back("answer: {" + q.answer + "} is text (\"" + written.toStdString() +
                              "\"): a text answer needs its \"choices\"");
        return view;
    }
    if (!std::isfinite(value.number) || !(value.number > 0)) {
        view.errors.push_back("answer: {" + q.answer + "} is " + written.toStdString() +
                              ": numeric choices need a positive answer");
        return view;
    }
    int slot = answerSlot(q.ask);
    if (value.kind == LessonValueKind::Percent) // no share above 100 %: the answer moves up among the choices
        while (slot < 3 && value.number * std::ldexp(1.0, 3 - slot) > 1.0)
            ++slot;
    QStringList choices = numberChoices(value, slot);
    // Small counts round together (1/4 and 1/2 of 1 are both "1"): then the answer comes first, the others above.
    if (!allDistinct(choices) && slot > 0) {
        slot = 0;
        choices = numberChoices(value, slot);
    }
    if (!allDistinct(choices))
        view.errors.push_back("answer: {" + q.answer + "} is " + written.toStdString() +
                              ": its choices cannot be told apart (" + choices.join(", ").toStdString() + ")");
    for (QString &c : choices)
        c += unit;
    view.choices = choices;
    view.correct = slot;
    return view;
}

} // namespace memwall::ui
