#pragma once

#include "ui/charts/chartview.h"

#include <QList>
#include <QTabWidget>

#include <memory>
#include <vector>

namespace memwall::ui {

class ChartBase;
class ScenarioDocument;
struct Theme;

/// The charts of the window, one tab each (in chartRegistry() order, each in a ChartView): owns them, sends a
/// clicked operator to the document, keeps each tab's tooltip on its chart's title, and suspends every chart but
/// the shown one (a slider tick then costs only the chart on screen; a chart catches up when its tab is shown).
/// The tabs' tooltips are the charts' titles, brought up to date when a tooltip is asked for (a slider tick does not
/// build the titles of the charts behind the shown one).
class ChartTabs : public QTabWidget
{
    Q_OBJECT
public:
    /// `sidePanels` makes each view's side panel (ui/widgets/sidepanels.h), if given.
    explicit ChartTabs(ScenarioDocument *doc, SidePanelFactory sidePanels = nullptr, QWidget *parent = nullptr);
    ~ChartTabs() override;

    const std::vector<std::unique_ptr<ChartBase>> &charts() const { return m_charts; }
    QList<ChartBase *> chartList() const;
    /// The chart of the shown tab (nullptr if none).
    ChartBase *currentChart() const;
    /// Short tab names, in tab order ("Roofline", "Memory", ...): the registry's titles, translated now.
    QStringList tabNames() const;
    void setTheme(const Theme &theme);
    /// Sets every tab's tooltip to its chart's title now, if the document changed since they were set.
    void updateTabToolTips();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void suspendHidden(int current);

    bool m_tipsStale = false; ///< the document changed since the tooltips were set

    std::vector<std::unique_ptr<ChartBase>> m_charts;
};

} // namespace memwall::ui
