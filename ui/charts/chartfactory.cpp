#include "ui/charts/chartfactory.h"

#include "ui/charts/chartbase.h"

#if __has_include("ui/charts/rooflinechart.h")
#include "ui/charts/rooflinechart.h"
#define MEMWALL_HAS_ROOFLINE 1
#endif
#if __has_include("ui/charts/memorychart.h")
#include "ui/charts/memorychart.h"
#define MEMWALL_HAS_MEMORY 1
#endif
#if __has_include("ui/charts/sweepchart.h")
#include "ui/charts/sweepchart.h"
#define MEMWALL_HAS_SWEEP 1
#endif
#if __has_include("ui/charts/breakdownchart.h")
#include "ui/charts/breakdownchart.h"
#define MEMWALL_HAS_BREAKDOWN 1
#endif
#if __has_include("ui/charts/trendschart.h")
#include "ui/charts/trendschart.h"
#define MEMWALL_HAS_TRENDS 1
#endif
#if __has_include("ui/charts/scalingchart.h")
#include "ui/charts/scalingchart.h"
#define MEMWALL_HAS_SCALING 1
#endif

namespace memwall::ui {

QStringList chartIds()
{
    QStringList ids;
#ifdef MEMWALL_HAS_ROOFLINE
    ids << "roofline";
#endif
#ifdef MEMWALL_HAS_MEMORY
    ids << "memory";
#endif
#ifdef MEMWALL_HAS_SWEEP
    ids << "sweep";
#endif
#ifdef MEMWALL_HAS_BREAKDOWN
    ids << "breakdown";
#endif
#ifdef MEMWALL_HAS_TRENDS
    ids << "trends";
#endif
#ifdef MEMWALL_HAS_SCALING
    ids << "scaling";
#endif
    return ids;
}

std::unique_ptr<ChartBase> createChart(const QString &id, ScenarioDocument *doc)
{
#ifdef MEMWALL_HAS_ROOFLINE
    if (id == "roofline")
        return std::make_unique<RooflineChart>(doc);
#endif
#ifdef MEMWALL_HAS_MEMORY
    if (id == "memory")
        return std::make_unique<MemoryChart>(doc);
#endif
#ifdef MEMWALL_HAS_SWEEP
    if (id == "sweep")
        return std::make_unique<SweepChart>(doc);
#endif
#ifdef MEMWALL_HAS_BREAKDOWN
    if (id == "breakdown")
        return std::make_unique<BreakdownChart>(doc);
#endif
#ifdef MEMWALL_HAS_TRENDS
    if (id == "trends")
        return std::make_unique<TrendsChart>(doc);
#endif
#ifdef MEMWALL_HAS_SCALING
    if (id == "scaling")
        return std::make_unique<ScalingChart>(doc);
#endif
    Q_UNUSED(id);
    Q_UNUSED(doc);
    return nullptr;
}

} // namespace memwall::ui
