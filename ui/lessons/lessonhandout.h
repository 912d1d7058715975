#pragma once

#include "ui/lessons/lesson.h"
#include "ui/settings/theme.h"

#include <QPageLayout>
#include <QPageSize>
#include <QRectF>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace memwall::core {
class PresetLibrary;
}

namespace memwall::ui {

/// What a lesson's PDF holds.
struct HandoutOptions
{
    /// false: the deck, one 16:9 page per step with its chart and text, a question answered (✓ and the computed
    /// answer). true: the handout for the class on `paper` in portrait, kQuestionsPerPage questions a page, each
    /// with the figures it needs, its choices with boxes to tick and room to write, and no answer.
    bool questionsOnly = false;
    /// With questionsOnly: the answer key instead, each question with its right choice and computed answer.
    bool answerKey = false;
    QPageSize::PageSizeId paper = QPageSize::A4; ///< the handout's and key's paper (A4 or Letter)
    Theme theme = Theme::light();
};

/// Questions on one handout page at most; fewer when their text and writing room do not fit.
constexpr int kQuestionsPerPage = 3;
/// The least room to write under each question of a handout, in millimetres (five lines ruled 22 pt apart); a page
/// takes fewer questions rather than less room. A page's spare height goes to its questions' rooms in equal shares.
constexpr double kWritingRoomMm = 35;
/// The handout's page margins and the height of its title block, in points.
constexpr double kHandoutMarginPt = 40;
constexpr double kHandoutHeadPt = 60;

/// One question as printed on a handout or its key.
struct HandoutQuestion
{
    int number = 0;     ///< 1, 2, … through the lesson
    QString stepTitle;  ///< the step that asks it
    QString html;       ///< the question as printed: ask, given figures, choices (and in the key, the answer)
    QString given;      ///< the figures it gives, rendered (empty if none)
    QString answer;     ///< the computed answer ("4.11 ms"); empty on the handout itself
    QRectF textRect;    ///< where the number, step title and html are painted on the page, in points
    QRectF writingRect; ///< the ruled room to write under it, in points (empty in the key)
};

/// The handout (or its key) before painting: its paper and pages of questions. What tst_lessonhandout checks.
struct Handout
{
    QString title;
    QPageLayout layout; ///< portrait, on the options' paper
    std::vector<std::vector<HandoutQuestion>> pages;
};

/// Builds the handout of `lesson` (or its answer key, options.answerKey) from a fresh document with the lesson's own
/// scenarios. nullopt with a one-line `error` when a step cannot be shown.
std::optional<Handout> buildHandout(const Lesson &lesson, std::shared_ptr<const core::PresetLibrary> presets,
                                    const HandoutOptions &options, QString *error);

/// Writes `lesson` as a multi-page PDF at `path`. The deck: each page is 1280×720 px at the layout resolution (960×540
/// pt, a 16:9 slide) with the lesson and step titles, the step's chart as the window draws it at the end of the step
/// (the whole build-up, the highlighted operator), the step's text rendered live against the step's scenario, and a
/// footer. The handout and its key: buildHandout() painted on portrait paper. The numbers come from a fresh document,
/// never from the user's window. Atomic: false with a one-line
/// `error` naming the path (nothing written); `pages` gets the page count.
bool writeLessonPdf(const Lesson &lesson, std::shared_ptr<const core::PresetLibrary> presets, const QString &path,
                    const HandoutOptions &options, QString *error, int *pages = nullptr);

/// The lesson with that id among `lessons`; nullptr if none.
const Lesson *findLesson(const std::vector<Lesson> &lessons, const QString &id);

} // namespace memwall::ui
