#pragma once

class QWidget;

namespace memwall::ui {

class ChartBase;

/// The controls shown beside a chart in its view, made for `parent` (a ChartView, which owns them), or nullptr: the
/// search chart's targets (SearchTargetsPanel). Kept here, above the charts, so that no chart or chart registry
/// includes a panel: the panel reads the chart, not the other way round. A SidePanelFactory (ChartTabs,
/// PresentationWindow).
QWidget *createSidePanel(ChartBase &chart, QWidget *parent);

} // namespace memwall::ui
