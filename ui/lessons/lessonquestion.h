#pragma once

#include "ui/lessons/lessontext.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace memwall::ui {

/// "Predict, then reveal": a question a lesson step puts to the class before it shows its chart and text. The
/// answer is never typed in: it is a placeholder expression computed live from the step's scenario, so the answer
/// follows the device and every slider as the text does.
struct LessonQuestion
{
    QString ask;         ///< rich text with {placeholders} ("How many sequences of {context} tokens fit?")
    std::string answer;  ///< a placeholder expression without braces ("largest_fitting_batch", "op_bound:ffn.up")
    QString unit;        ///< written after a number ("sequences", "ms", "×"); empty for a text answer
    QStringList choices; ///< a text answer's choices ("memory-bound", "compute-bound"); empty for a number
    /// The figures a student needs to work the answer out on paper, rich text with {placeholders} ("Weights
    /// {weights_gb} GB, {bandwidth_tbs} TB/s"); printed with the question on a handout. Empty: none given.
    QString given;
};

/// A question as shown: its text and choices rendered against the current scenario, and which choice is right.
struct QuestionView
{
    QString ask;                     ///< rendered rich text
    QString given;                   ///< rendered rich text; empty when the question gives no figures
    QStringList choices;             ///< rendered, in the order shown (A, B, C, D)
    int correct = -1;                ///< index into choices; -1 if the answer could not be computed
    QString answer;                  ///< the computed answer as written in the text, unit included ("123 sequences")
    std::vector<std::string> errors; ///< one line per problem (a placeholder, an answer not among the choices)
    bool ok() const { return errors.empty() && correct >= 0; }
};

/// Renders `q` against `ctx`. A number's choices are the answer and three others a factor of 2 apart (×¼ … ×8), the
/// answer's place among them fixed per question (by its text) so that it is not always first; a share stays at or
/// below 100 %. Every choice is written as the answer is, so a choice can never give the answer away by its form.
QuestionView renderQuestion(const LessonQuestion &q, const LessonTextContext &ctx);

/// "A", "B", … for choice `index`.
QString choiceLetter(int index);

/// How a question is written out.
enum class QuestionMode {
    Open,     ///< asked in class: the choices, lettered, and how to see the answer
    Answered, ///< the right choice ticked and in bold, then the computed answer
    Blank,    ///< for a printed handout: a box to tick per choice, and a line for the reason
};
/// `q` as rich text (the lesson panel, the presentation caption and the PDF all write it so). `oneLine` puts the
/// choices side by side and leaves out the "press →" hint (the presentation's caption band, where height is what the
/// chart needs, and the covered chart says it).
QString questionHtml(const QuestionView &q, QuestionMode mode, bool oneLine = false);

} // namespace memwall::ui
