#pragma once

#include "ui/settings/theme.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QStackedWidget;

namespace memwall::ui {

class ChartBase;
class ChartView;
class LaserPointer;
class LessonController;
class LessonPanel;
class ScenarioDocument;

/// The lecture-hall view: one chart at a time, large, in the presentation theme, with a laser-pointer dot following
/// the mouse (the chart's own hover tooltips still work). Keys:
/// - → / Page Down / Space: while a lesson runs, the answer to the step's question, the next piece of its build-up, or
///   the next step (LessonController::advance()), else the next chart; ← / Page Up / Backspace: back;
/// - 1…9: jump to that step (lesson) or that chart;
/// - Esc or F11 (or F5 again): leave.
/// While a lesson runs, the lesson's text is shown as a caption band under the chart, and each step shows its chart
/// (LessonViewFollower: its build-up, covered while its question is open).
/// The window follows the same ScenarioDocument as the main window (its charts are its own instances).
class PresentationWindow : public QWidget
{
    Q_OBJECT
public:
    /// `lessons` may be nullptr (no lesson captions).
    PresentationWindow(ScenarioDocument *doc, LessonController *lessons, QWidget *parent = nullptr);
    ~PresentationWindow() override;

    QStringList chartIds() const { return m_ids; }
    int currentIndex() const;
    QString currentChartId() const;
    ChartView *currentView() const;
    ChartBase *currentChart() const;
    LessonPanel *caption() const { return m_caption; }
    LaserPointer *laserPointer() const;

public slots:
    void showChart(int index);
    void showChartId(const QString &id);
    void nextPage();
    void previousPage();

signals:
    void closed();

protected:
    void keyPressEvent(QKeyEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void followLesson();
    void updateFooter();

    ScenarioDocument *m_doc;
    LessonController *m_lessons;
    Theme m_theme;
    QStringList m_ids;
    std::vector<std::unique_ptr<ChartBase>> m_charts;
    std::vector<ChartView *> m_views;
    std::vector<LaserPointer *> m_lasers;
    QStackedWidget *m_stack;
    LessonPanel *m_caption = nullptr;
    QLabel *m_footer;
};

} // namespace memwall::ui
