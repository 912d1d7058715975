#pragma once

#include "ui/document/scenariodocument.h"

#include "core/io/scenariofile.h"
#include "ui/lessons/lesson.h"

#include <QObject>
#include <QString>

#include <optional>

namespace memwall::ui {

class ScenarioDocument;

/// Walks a lesson over one ScenarioDocument. Each step sets the document to the step's scenario through
/// ScenarioDocument::setFile(…, tr("Lesson step")) (undoable, so the user may still explore and undo), sets compare
/// mode as the step says, selects the highlighted operator, and the rendered text follows the document live. The
/// views (the window's tabs, the presentation window) show the step's chart and follow its progress.
///
/// A step opens with its question, if it has one, and its first reveal piece; advance() (→, Next) answers the
/// question, then reveals one piece at a time, then goes to the next step; back() takes one piece away, then goes
/// to the previous step, shown complete.
///
/// When the lesson ends (stop(), or a new lesson starts) the user's own scenario, compare mode and selection are
/// restored: the undo stack goes back to where it stood when the lesson began (or, if that history is gone, the
/// saved scenario is set again).
class LessonController : public QObject
{
    Q_OBJECT
public:
    explicit LessonController(ScenarioDocument *doc, QObject *parent = nullptr);

    ScenarioDocument *document() const { return m_doc; }
    bool isRunning() const { return m_lesson.has_value(); }
    /// The running lesson; only valid while isRunning().
    const Lesson &lesson() const { return *m_lesson; }
    int stepIndex() const { return m_step; }
    int stepCount() const { return m_lesson ? static_cast<int>(m_lesson->steps.size()) : 0; }
    const LessonStep *currentStep() const;
    /// The current step's text rendered against the document as it is now (see renderLessonText()).
    LessonTextResult renderCurrent() const;
    /// How far the current step is shown (question answered? pieces revealed?).
    const StepProgress &progress() const { return m_progress; }
    /// True while the current step's question waits for its answer (the views cover the chart).
    bool questionOpen() const { return currentStep() && !m_progress.answered; }
    /// The pieces the current step's chart draws now (nullopt: all), see revealedPieces().
    std::optional<QStringList> currentReveal() const;
    /// The current step's question as it stands now; nullopt for a step without one.
    std::optional<QuestionView> currentQuestion() const;
    /// True on the last step, complete: advance() then has nothing left to show.
    bool atEnd() const;
    /// The last step that could not be applied (one line), or empty.
    const QString &lastError() const { return m_error; }

    /// The text context of the document's current state (device with what-if factors, as analysed).
    static LessonTextContext contextFor(const ScenarioDocument &doc, const Lesson *lesson);

public slots:
    /// Starts `lesson` at its first step (ending a running one first). False if the lesson has no steps or its
    /// first step cannot be applied (the document is then unchanged).
    bool start(const memwall::ui::Lesson &lesson);
    /// → : answers the open question, else reveals the next piece, else goes to the next step. False at the end.
    bool advance();
    /// ← : hides the last piece revealed, else goes to the previous step (complete). False at the start.
    bool back();
    /// Shows the current step whole: its question answered, every piece revealed (what a printed deck shows).
    void completeStep();
    /// The next or previous step, from its start (next) or complete (previous).
    bool next();
    bool previous();
    bool goToStep(int index);
    /// Ends the lesson and restores the user's scenario.
    void stop();

signals:
    void started();
    void stepChanged(int index);
    /// The current step's progress changed (a step change emits it too, after stepChanged()).
    void progressChanged();
    void finished();
    void errorOccurred(const QString &message);

private:
    bool apply(int index, bool complete = false);

    ScenarioDocument *m_doc;
    std::optional<Lesson> m_lesson;
    int m_step = -1;
    StepProgress m_progress;
    core::ScenarioFile m_saved;
    int m_savedUndoIndex = 0;
    int m_savedSelection = -1;
    std::optional<CompareSpec> m_savedCompare; ///< compare mode at the start, restored at the end
    QString m_error;
};

} // namespace memwall::ui
