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
/// ScenarioDocument::setFile(…, tr("Lesson step")) (undoable, so the user may still explore and undo), selects the
/// highlighted operator, and the rendered text follows the document live. When the lesson ends (stop(), or a new
/// lesson starts) the user's own scenario and selection are restored: the undo stack goes back to where it stood
/// when the lesson began (or, if that history is gone, the saved scenario is set again).
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
    /// The last step that could not be applied (one line), or empty.
    const QString &lastError() const { return m_error; }

    /// The text context of the document's current state (device with what-if factors, as analysed).
    static LessonTextContext contextFor(const ScenarioDocument &doc, const Lesson *lesson);

public slots:
    /// Starts `lesson` at its first step (ending a running one first). False if the lesson has no steps or its
    /// first step cannot be applied (the document is then unchanged).
    bool start(const memwall::ui::Lesson &lesson);
    bool next();
    bool previous();
    bool goToStep(int index);
    /// Ends the lesson and restores the user's scenario.
    void stop();

signals:
    void started();
    void stepChanged(int index);
    void finished();
    void errorOccurred(const QString &message);

private:
    bool apply(int index);

    ScenarioDocument *m_doc;
    std::optional<Lesson> m_lesson;
    int m_step = -1;
    core::ScenarioFile m_saved;
    int m_savedUndoIndex = 0;
    int m_savedSelection = -1;
    std::optional<CompareSpec> m_savedCompare; ///< compare mode at the start, restored at the end
    QString m_error;
};

} // namespace memwall::ui
