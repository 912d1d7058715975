#pragma once

#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>

namespace memwall::ui {

class ChartView;
class LessonController;

/// Makes a set of chart views follow a running lesson, so that what a step says is what is on screen:
/// - each step shows its chart (by its registry id) in its automatic range, not a zoom the user left behind;
/// - the step's chart draws the pieces its build-up has revealed (ChartBase::setReveal()), every other chart all;
/// - while the step's question is open, the step's chart is covered (ChartView::setCover()), so it cannot give the
///   answer away.
/// When the lesson ends, every chart is drawn whole and uncovered again, and (if `restoreOnFinish`) the view that was
/// shown when the lesson started is shown again. The window's tabs and the presentation window each have one.
class LessonViewFollower : public QObject
{
    Q_OBJECT
public:
    /// `show` brings one of `views` to the front; `shown` says which one is in front now.
    LessonViewFollower(LessonController *controller, QList<ChartView *> views, std::function<void(ChartView *)> show,
                       std::function<ChartView *()> shown, bool restoreOnFinish, QObject *parent = nullptr);

    /// The view showing the chart with that registry id; nullptr if none.
    ChartView *viewFor(const QString &chartId) const;
    /// The cover text while a question is open.
    static QString coverText();

private:
    void onStarted();
    void onStep();
    void onProgress();
    void onFinished();

    LessonController *m_controller;
    QList<ChartView *> m_views;
    std::function<void(ChartView *)> m_show;
    std::function<ChartView *()> m_shown;
    bool m_restore;
    QPointer<ChartView> m_saved; ///< in front when the lesson started
};

} // namespace memwall::ui
