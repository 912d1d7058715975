#include "ui/lessons/presentationwindow.h"
#include "ui/widgets/sidepanels.h"

#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/charts/chartview.h"
#include "ui/lessons/laserpointer.h"
#include "ui/lessons/lessoncontroller.h"
#include "ui/lessons/lessonpanel.h"
#include "ui/lessons/lessonviewfollower.h"

#include <QBoxLayout>
#include <QCloseEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QStackedWidget>

namespace memwall::ui {

PresentationWindow::PresentationWindow(ScenarioDocument *doc, LessonController *lessons, QWidget *parent)
    : QWidget(parent, Qt::Window), m_doc(doc), m_lessons(lessons), m_theme(Theme::presentation()),
      m_stack(new QStackedWidget(this)), m_footer(new QLabel(this))
{
    setObjectName("presentationWindow");
    setWindowTitle(tr("MemWall — presentation"));
    setFocusPolicy(Qt::StrongFocus);
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, m_theme.background);
    pal.setColor(QPalette::WindowText, m_theme.foreground);
    pal.setColor(QPalette::Base, m_theme.background);
    pal.setColor(QPalette::Text, m_theme.foreground);
    pal.setColor(QPalette::Button, m_theme.plotArea);
    pal.setColor(QPalette::ButtonText, m_theme.foreground);
    setPalette(pal);

    for (const ChartInfo &info : chartRegistry()) {
        if (!info.presentation)
            continue;
        std::unique_ptr<ChartBase> chart = info.create(doc);
        chart->setTheme(m_theme);
        auto *view = new ChartView(chart.get(), m_stack);
        view->setSidePanel(createSidePanel(*chart, view));
        view->setFocusPolicy(Qt::NoFocus); // the window takes the keys; the mouse still zooms and pans
        view->setToolTip(QString());
        m_stack->addWidget(view);
        auto *laser = new LaserPointer(view->viewport());
        laser->setRadius(m_theme.lineWidth * 3);
        m_lasers.push_back(laser);
        m_views.push_back(view);
        m_ids << info.id;
        m_charts.push_back(std::move(chart));
    }

    QFont footerFont = font();
    footerFont.setPointSize(std::max(12, m_theme.tickPointSize - 4));
    m_footer->setFont(footerFont);
    m_footer->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_footer->setContentsMargins(8, 2, 12, 4);
    m_footer->setToolTip(tr("→ / Page Down: next · ← / Page Up: previous · 1–9: jump · Esc: leave"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_stack, 1);
    if (m_lessons) {
        m_caption = new LessonPanel(m_lessons, this);
        m_caption->setCaptionMode(true);
        m_caption->setPalette(pal);
        layout->addWidget(m_caption);
        // The step's chart, its build-up and its question's cover; the window's own page stays after the lesson.
        new LessonViewFollower(
            m_lessons, QList<ChartView *>(m_views.begin(), m_views.end()),
            [this](ChartView *v) { m_stack->setCurrentWidget(v); }, [this] { return currentView(); }, false, this);
        connect(m_lessons, &LessonController::stepChanged, this, &PresentationWindow::followLesson);
        connect(m_lessons, &LessonController::started, this, &PresentationWindow::followLesson);
        connect(m_lessons, &LessonController::finished, this, &PresentationWindow::followLesson);
    }
    layout->addWidget(m_footer);
    connect(m_stack, &QStackedWidget::currentChanged, this, &PresentationWindow::updateFooter);
    // Only the chart on screen follows the document, as in the window's tabs: an edit costs one chart, and a hidden
    // search chart does not search.
    const auto suspendHidden = [this](int current) {
        for (std::size_t i = 0; i < m_charts.size(); ++i)
            m_charts[i]->setSuspended(static_cast<int>(i) != current);
    };
    connect(m_stack, &QStackedWidget::currentChanged, this, suspendHidden);
    suspendHidden(m_stack->currentIndex());
    followLesson();
    updateFooter();
}

PresentationWindow::~PresentationWindow()
{
    // The views hold the charts' QChart in their scenes: remove the views before the chart objects.
    delete m_stack;
    m_stack = nullptr;
    m_views.clear();
    m_lasers.clear();
    m_charts.clear();
}

int PresentationWindow::currentIndex() const { return m_stack ? m_stack->currentIndex() : -1; }

QString PresentationWindow::currentChartId() const
{
    const int i = currentIndex();
    return i >= 0 && i < m_ids.size() ? m_ids[i] : QString();
}

ChartView *PresentationWindow::currentView() const
{
    const int i = currentIndex();
    return i >= 0 && i < static_cast<int>(m_views.size()) ? m_views[static_cast<std::size_t>(i)] : nullptr;
}

ChartBase *PresentationWindow::currentChart() const
{
    const int i = currentIndex();
    return i >= 0 && i < static_cast<int>(m_charts.size()) ? m_charts[static_cast<std::size_t>(i)].get() : nullptr;
}

LaserPointer *PresentationWindow::laserPointer() const
{
    const int i = currentIndex();
    return i >= 0 && i < static_cast<int>(m_lasers.size()) ? m_lasers[static_cast<std::size_t>(i)] : nullptr;
}

void PresentationWindow::showChart(int index)
{
    if (index >= 0 && index < m_stack->count())
        m_stack->setCurrentIndex(index);
}

void PresentationWindow::showChartId(const QString &id) { showChart(static_cast<int>(m_ids.indexOf(id))); }

void PresentationWindow::nextPage()
{
    if (m_lessons && m_lessons->isRunning())
        m_lessons->advance();
    else if (m_stack->count() > 0)
        showChart((currentIndex() + 1) % m_stack->count());
}

void PresentationWindow::previousPage()
{
    if (m_lessons && m_lessons->isRunning())
        m_lessons->back();
    else if (m_stack->count() > 0)
        showChart((currentIndex() + m_stack->count() - 1) % m_stack->count());
}

void PresentationWindow::followLesson()
{
    const bool running = m_lessons && m_lessons->isRunning();
    if (m_caption)
        m_caption->setVisible(running);
    updateFooter();
}

void PresentationWindow::updateFooter()
{
    QString where;
    if (m_lessons && m_lessons->isRunning())
        where = tr("Lesson: %1").arg(m_lessons->lesson().title);
    else
        where = tr("chart %1 / %2").arg(currentIndex() + 1).arg(m_stack ? m_stack->count() : 0);
    m_footer->setText(tr("%1   ·   → next   ← previous   1–9 jump   Esc leave").arg(where));
}

void PresentationWindow::keyPressEvent(QKeyEvent *event)
{
    const int key = event->key();
    switch (key) {
    case Qt::Key_Right:
    case Qt::Key_PageDown:
    case Qt::Key_Space: nextPage(); return;
    case Qt::Key_Left:
    case Qt::Key_PageUp:
    case Qt::Key_Backspace: previousPage(); return;
    case Qt::Key_Escape:
    case Qt::Key_F11:
    case Qt::Key_F5: close(); return;
    default: break;
    }
    if (key >= Qt::Key_1 && key <= Qt::Key_9) {
        const int n = key - Qt::Key_1;
        if (m_lessons && m_lessons->isRunning())
            m_lessons->goToStep(n);
        else
            showChart(n);
        return;
    }
    QWidget::keyPressEvent(event);
}

void PresentationWindow::closeEvent(QCloseEvent *event)
{
    emit closed();
    QWidget::closeEvent(event);
}

} // namespace memwall::ui
