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

private:
    void suspendHidden(int current);

    std::vector<std::unique_ptr<ChartBase>> m_charts;
};

} // namespace memwall::ui
