#include "ui/charts/chartfactory.h"

#include "ui/charts/chartbase.h"

#include "ui/charts/rooflinechart.h"
#include "ui/charts/memorychart.h"
#include "ui/charts/sweepchart.h"
#include "ui/charts/breakdownchart.h"
#include "ui/charts/trendschart.h"
#include "ui/charts/scalingchart.h"

namespace memwall::ui {

QStringList chartIds()
{
    return {"roofline", "memory", "sweep", "breakdown", "trends", "scaling"};
}

std::unique_ptr<ChartBase> createChart(const QString &id, ScenarioDocument *doc)
{
    if (id == "roofline")
        return std::make_unique<RooflineChart>(doc);
    if (id == "memory")
        return std::make_unique<MemoryChart>(doc);
    if (id == "sweep")
        return std::make_unique<SweepChart>(doc);
    if (id == "breakdown")
        return std::make_unique<BreakdownChart>(doc);
    if (id == "trends")
        return std::make_unique<TrendsChart>(doc);
    if (id == "scaling")
        return std::make_unique<ScalingChart>(doc);
    return nullptr;
}

} // namespace memwall::ui
