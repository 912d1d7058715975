#pragma once

#include "core/io/presets.h"
#include "core/io/scenariofile.h"
#include "ui/document/scenariodocument.h"
#include "ui/lessons/lessonquestion.h"
#include "ui/lessons/lessontext.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memwall::ui {

/// One step of a lesson: the view it shows (chart, build-up, compare mode), the scenario to set, what to point at,
/// an optional question put before the answer is shown, and the text (rich text with live placeholders, see
/// renderLessonText()). Schema: resources/lessons/README.md.
struct LessonStep
{
    QString title;
    QString chart;           ///< a chart id of lessonChartNames()
    nlohmann::json scenario; ///< the lesson's base scenario merged with the step's (flat: hardware, model, batch...)
    QString highlight;       ///< operator name ("ffn.up"), "ridge", "model", a memory level name, or empty
    QString text;            ///< rich text with {placeholders}
    /// Build-up: the stages the chart appears in, one per key press, each one or more of the chart's pieces (its
    /// registry entry's revealPieces); empty shows the whole chart at once.
    QList<QStringList> reveal;
    /// Compare mode during the step: scenario B's overrides; nullopt turns compare mode off.
    std::optional<CompareSpec> compare;
    /// Predict, then reveal: asked first; the chart and the text appear with the answer.
    std::optional<LessonQuestion> question;
};

/// A guided lesson, read from resources/lessons/NN-name.json.
struct Lesson
{
    QString id;
    QString title;
    QString summary;
    QString file; ///< where it was read from (for messages)
    std::map<std::string, LessonFact, std::less<>> facts;
    std::vector<LessonStep> steps;
};

/// The chart names a step may use: the registry's charts that the presentation window shows (chartregistry.h).
QStringList lessonChartNames();

/// How far a step is shown: its question open or answered, and how many of its reveal pieces are drawn.
struct StepProgress
{
    bool answered = true; ///< false while the step's question waits for its answer
    int revealed = 0;     ///< stages of LessonStep::reveal drawn (all of them once the step is complete)
};
/// The step as it opens (question open, first stage drawn) and complete (answered, every piece drawn).
StepProgress stepStart(const LessonStep &step);
StepProgress stepComplete(const LessonStep &step);
/// The pieces `step` draws at `progress` (those of its first `revealed` stages): nullopt (the whole chart) for a step
/// without a build-up. (While a question is open the views cover the chart whole: ChartView::setCover().)
std::optional<QStringList> revealedPieces(const LessonStep &step, const StepProgress &progress);

/// Reads one lesson. Throws core::InputError with one line "FILE: FIELD: what is wrong" (unknown chart, unknown
/// preset, bad scenario field, unknown placeholder, a reveal piece the chart does not have, a question whose answer
/// cannot be computed or is not among its choices, missing title ...). `file` names it in messages.
Lesson lessonFromJson(const nlohmann::json &j, const std::string &file, const core::PresetLibrary &lib);
/// Reads and parses one lesson file (Qt resource paths work too).
Lesson readLessonFile(const QString &path, const core::PresetLibrary &lib);

struct LessonLoadResult
{
    std::vector<Lesson> lessons; ///< in file-name order
    QStringList errors;          ///< one line per skipped file
};
/// Every *.json in `dir` (default: the lessons compiled into the program), sorted by file name; a broken lesson is
/// skipped and reported.
LessonLoadResult loadLessons(const core::PresetLibrary &lib, const QString &dir = QStringLiteral(":/memwall/lessons"));

/// The scenario a step sets: its hardware and model presets (as published), its scenario fields on top of the
/// defaults, no what-if factors. Throws core::InputError naming `where` and the field.
core::ScenarioFile stepScenarioFile(const LessonStep &step, const core::PresetLibrary &lib, const std::string &where);

} // namespace memwall::ui
