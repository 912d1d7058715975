#include "ui/lessons/lessoncontroller.h"

#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

namespace memwall::ui {

LessonController::LessonController(ScenarioDocument *doc, QObject *parent) : QObject(parent), m_doc(doc) {}

const LessonStep *LessonController::currentStep() const
{
    if (!m_lesson || m_step < 0 || m_step >= stepCount())
        return nullptr;
    return &m_lesson->steps[static_cast<std::size_t>(m_step)];
}

LessonTextContext LessonController::contextFor(const ScenarioDocument &doc, const Lesson *lesson)
{
    LessonTextContext ctx;
    ctx.file = doc.file();
    ctx.file.hardware = doc.hardware();
    ctx.analysis = doc.analysis();
    ctx.presets = &doc.presets();
    if (lesson)
        ctx.facts = lesson->facts;
    return ctx;
}

LessonTextResult LessonController::renderCurrent() const
{
    const LessonStep *step = currentStep();
    if (!step)
        return {};
    return renderLessonText(step->text.toStdString(), contextFor(*m_doc, &*m_lesson));
}

std::optional<QStringList> LessonController::currentReveal() const
{
    const LessonStep *step = currentStep();
    return step ? revealedPieces(*step, m_progress) : std::nullopt;
}

std::optional<QuestionView> LessonController::currentQuestion() const
{
    const LessonStep *step = currentStep();
    if (!step || !step->question)
        return std::nullopt;
    return renderQuestion(*step->question, contextFor(*m_doc, &*m_lesson));
}

bool LessonController::atEnd() const
{
    const LessonStep *step = currentStep();
    return step && m_step + 1 >= stepCount() && m_progress.answered &&
           m_progress.revealed >= static_cast<int>(step->reveal.size());
}

bool LessonController::advance()
{
    const LessonStep *step = currentStep();
    if (!step)
        return false;
    if (!m_progress.answered) {
        m_progress.answered = true;
        emit progressChanged();
        return true;
    }
    if (m_progress.revealed < static_cast<int>(step->reveal.size())) {
        ++m_progress.revealed;
        emit progressChanged();
        return true;
    }
    return next();
}

void LessonController::completeStep()
{
    if (const LessonStep *step = currentStep()) {
        m_progress = stepComplete(*step);
        emit progressChanged();
    }
}

bool LessonController::back()
{
    const LessonStep *step = currentStep();
    if (!step)
        return false;
    if (m_progress.revealed > 1) {
        --m_progress.revealed;
        emit progressChanged();
        return true;
    }
    return previous();
}

bool LessonController::start(const Lesson &lesson)
{
    if (lesson.steps.empty()) {
        m_error = tr("%1: the lesson has no steps").arg(lesson.file);
        emit errorOccurred(m_error);
        return false;
    }
    if (m_lesson)
        stop();
    m_saved = m_doc->file();
    m_savedUndoIndex = m_doc->undoStack()->index();
    m_savedSelection = m_doc->selectedOperator();
    // A lesson's numbers are about its own scenario: compare mode is off while it runs, and back on after.
    m_savedCompare = m_doc->compare();
    if (m_savedCompare)
        m_doc->setCompare(std::nullopt);
    m_lesson = lesson;
    m_step = -1;
    if (!apply(0)) {
        m_lesson.reset();
        if (m_savedCompare)
            m_doc->setCompare(m_savedCompare);
        return false;
    }
    emit started();
    emit stepChanged(m_step);
    emit progressChanged();
    return true;
}

bool LessonController::apply(int index, bool complete)
{
    if (!m_lesson || index < 0 || index >= stepCount())
        return false;
    const LessonStep &step = m_lesson->steps[static_cast<std::size_t>(index)];
    core::ScenarioFile f;
    try {
        f = stepScenarioFile(step, m_doc->presets(),
                             m_lesson->file.toStdString() + ": steps[" + std::to_string(index) + "]");
    } catch (const std::exception &e) {
        m_error = QString::fromStdString(e.what());
        emit errorOccurred(m_error);
        return false;
    }
    m_error.clear();
    m_step = index;
    m_progress = complete ? stepComplete(step) : stepStart(step);
    m_doc->setFile(f, tr("Lesson step"), false);
    m_doc->setCompare(step.compare);
    int selected = -1;
    const auto &ops = m_doc->analysis().operators;
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (qs(ops[i].name) == step.highlight) {
            selected = static_cast<int>(i);
            break;
        }
    m_doc->setSelectedOperator(selected);
    return true;
}

bool LessonController::next()
{
    if (!m_lesson || m_step + 1 >= stepCount() || !apply(m_step + 1))
        return false;
    emit stepChanged(m_step);
    emit progressChanged();
    return true;
}

bool LessonController::previous()
{
    if (!m_lesson || m_step <= 0 || !apply(m_step - 1, true))
        return false;
    emit stepChanged(m_step);
    emit progressChanged();
    return true;
}

bool LessonController::goToStep(int index)
{
    if (!m_lesson || index == m_step || !apply(index))
        return false;
    emit stepChanged(m_step);
    emit progressChanged();
    return true;
}

void LessonController::stop()
{
    if (!m_lesson)
        return;
    m_lesson.reset();
    m_step = -1;
    m_progress = {};
    QUndoStack *undo = m_doc->undoStack();
    if (m_savedUndoIndex <= undo->count() && m_savedUndoIndex <= undo->index())
        undo->setIndex(m_savedUndoIndex);
    if (core::toJson(m_doc->file()) != core::toJson(m_saved))
        m_doc->setFile(m_saved, tr("End lesson"), false);
    m_doc->setSelectedOperator(m_savedSelection);
    m_doc->setCompare(m_savedCompare);
    m_savedCompare.reset();
    emit finished();
}

} // namespace memwall::ui
