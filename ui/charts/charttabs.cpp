#include "ui/charts/charttabs.h"

#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/charts/chartview.h"
#include "ui/document/scenariodocument.h"

#include <QEvent>
#include <QSignalBlocker>
#include <QTabBar>

namespace memwall::ui {

ChartTabs::ChartTabs(ScenarioDocument *doc, SidePanelFactory sidePanels, QWidget *parent) : QTabWidget(parent)
{
    setDocumentMode(true);
    for (const ChartInfo &info : chartRegistry()) {
        std::unique_ptr<ChartBase> chart = info.create(doc);
        connect(chart.get(), &ChartBase::operatorClicked, doc, &ScenarioDocument::setSelectedOperator);
        auto *view = new ChartView(chart.get());
        if (sidePanels)
            view->setSidePanel(sidePanels(*chart, view));
        view->setObjectName(info.id + "View");
        const int tab = addTab(view, info.title()); // the chart's own title() is the tooltip
        setTabToolTip(tab, chart->title());
        m_charts.push_back(std::move(chart));
    }
    connect(this, &QTabWidget::currentChanged, this, &ChartTabs::suspendHidden);
    suspendHidden(currentIndex());
    // Tab tooltips follow the titles (they name device, model and phase), set when one is about to show.
    connect(doc, &ScenarioDocument::analysisChanged, this, [this] { m_tipsStale = true; });
    tabBar()->installEventFilter(this);
}

void ChartTabs::updateTabToolTips()
{
    if (!m_tipsStale)
        return;
    m_tipsStale = false;
    for (int i = 0; i < static_cast<int>(m_charts.size()); ++i)
        if (const QString title = m_charts[static_cast<std::size_t>(i)]->title(); tabToolTip(i) != title)
            setTabToolTip(i, title);
}

bool ChartTabs::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == tabBar() && event->type() == QEvent::ToolTip)
        updateTabToolTips(); // then the tab bar shows the tooltip of the tab under the mouse
    return QTabWidget::eventFilter(watched, event);
}

ChartTabs::~ChartTabs()
{
    // The views go first (they hand their charts back), then the charts they showed. Silently: removing the tabs
    // switches the current one, and a listener may be half-destroyed itself (the window, whose destructor deletes
    // this one).
    const QSignalBlocker quiet(this);
    while (count() > 0) {
        QWidget *view = widget(0);
        removeTab(0);
        delete view;
    }
}

QList<ChartBase *> ChartTabs::chartList() const
{
    QList<ChartBase *> all;
    for (const auto &c : m_charts)
        all << c.get();
    return all;
}

ChartBase *ChartTabs::currentChart() const
{
    const int i = currentIndex();
    return i >= 0 && i < static_cast<int>(m_charts.size()) ? m_charts[static_cast<std::size_t>(i)].get() : nullptr;
}

QStringList ChartTabs::tabNames() const
{
    QStringList names;
    for (const ChartInfo &info : chartRegistry())
        names << info.title();
    return names;
}

void ChartTabs::setTheme(const Theme &theme)
{
    for (const auto &chart : m_charts)
        chart->setTheme(theme);
}

void ChartTabs::suspendHidden(int current)
{
    for (int i = 0; i < static_cast<int>(m_charts.size()); ++i)
        m_charts[static_cast<std::size_t>(i)]->setSuspended(i != current);
}

} // namespace memwall::ui
