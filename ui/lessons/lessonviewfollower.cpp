#include "ui/lessons/lessonviewfollower.h"

#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/charts/chartview.h"
#include "ui/lessons/lessoncontroller.h"

namespace memwall::ui {

LessonViewFollower::LessonViewFollower(LessonController *controller, QList<ChartView *> views,
                                       std::function<void(ChartView *)> show, std::function<ChartView *()> shown,
                                       bool restoreOnFinish, QObject *parent)
    : QObject(parent), m_controller(controller), m_views(std::move(views)), m_show(std::move(show)),
      m_shown(std::move(shown)), m_restore(restoreOnFinish)
{
    connect(controller, &LessonController::started, this, &LessonViewFollower::onStarted);
    connect(controller, &LessonController::stepChanged, this, &LessonViewFollower::onStep);
    connect(controller, &LessonController::progressChanged, this, &LessonViewFollower::onProgress);
    connect(controller, &LessonController::finished, this, &LessonViewFollower::onFinished);
    if (controller->isRunning()) { // made while a lesson runs (the presentation window opened mid-lesson)
        onStep();
        onProgress();
    }
}

QString LessonViewFollower::coverText() { return tr("?\n\nWhat do you predict?\nPress → (or Next) for the answer."); }

ChartView *LessonViewFollower::viewFor(const QString &chartId) const
{
    for (ChartView *v : m_views)
        if (const ChartBase *c = v->chartBase())
            if (const ChartInfo *info = chartInfoOf(*c); info && info->id == chartId)
                return v;
    return nullptr;
}

void LessonViewFollower::onStarted()
{
    if (m_shown)
        m_saved = m_shown();
}

void LessonViewFollower::onStep()
{
    const LessonStep *step = m_controller->currentStep();
    if (!step)
        return;
    ChartView *view = viewFor(step->chart);
    if (!view)
        return;
    m_show(view);
    if (view->isUserView()) // the step's numbers are in the automatic range, not in a zoom left behind
        view->resetView();
}

void LessonViewFollower::onProgress()
{
    const LessonStep *step = m_controller->currentStep();
    ChartView *current = step ? viewFor(step->chart) : nullptr;
    const bool covered = m_controller->questionOpen();
    for (ChartView *v : m_views) {
        ChartBase *c = v->chartBase();
        if (c)
            c->setReveal(v == current ? m_controller->currentReveal() : std::nullopt);
        v->setCover(v == current && covered ? coverText() : QString());
    }
}

void LessonViewFollower::onFinished()
{
    for (ChartView *v : m_views) {
        if (ChartBase *c = v->chartBase())
            c->setReveal(std::nullopt);
        v->setCover(QString());
    }
    if (m_restore && m_saved)
        m_show(m_saved);
    m_saved.clear();
}

} // namespace memwall::ui
