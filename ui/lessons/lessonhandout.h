#pragma once

#include "ui/lessons/lesson.h"
#include "ui/settings/theme.h"

#include <QString>

#include <memory>

namespace memwall::core {
class PresetLibrary;
}

namespace memwall::ui {

/// What a lesson's PDF holds.
struct HandoutOptions
{
    /// false: the deck, one page per step with its chart and text, a question answered (✓ and the computed
    /// answer). true: the handout for the class, the questions and their choices with boxes to tick, and no answer:
    /// a question's step shows neither its chart nor its text, which would give the answer away.
    bool questionsOnly = false;
    Theme theme = Theme::light();
};

/// Writes `lesson` as a multi-page PDF at `path`: each page is 1280×720 px at the layout resolution (960×540 pt, a
/// 16:9 slide) with the lesson and step titles, the step's chart as the window draws it at the end of the step (the
/// whole build-up, the highlighted operator), the step's text rendered live against the step's scenario, and a
/// footer. The numbers come from a fresh document, never from the user's window. Atomic: false with a one-line
/// `error` naming the path (nothing written); `pages` gets the page count.
bool writeLessonPdf(const Lesson &lesson, std::shared_ptr<const core::PresetLibrary> presets, const QString &path,
                    const HandoutOptions &options, QString *error, int *pages = nullptr);

/// The lesson with that id among `lessons`; nullptr if none.
const Lesson *findLesson(const std::vector<Lesson> &lessons, const QString &id);

} // namespace memwall::ui
