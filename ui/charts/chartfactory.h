#pragma once

#include <QStringList>

#include <memory>

namespace memwall::ui {

class ChartBase;
class ScenarioDocument;

/// The ids of every chart MemWall draws, in display order: roofline, memory, sweep, breakdown, trends, scaling.
QStringList chartIds();
/// Creates the chart with that id, following `doc`; nullptr for an unknown id.
std::unique_ptr<ChartBase> createChart(const QString &id, ScenarioDocument *doc);

} // namespace memwall::ui
