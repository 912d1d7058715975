#include "ui/charts/chartregistry.h"

#include "ui/charts/breakdownchart.h"
#include "ui/charts/memorychart.h"
#include "ui/charts/ridgechart.h"
#include "ui/charts/rooflinechart.h"
#include "ui/charts/scalingchart.h"
#include "ui/charts/searchchart.h"
#include "ui/charts/sweepchart.h"
#include "ui/charts/timelinechart.h"
#include "ui/charts/trendschart.h"
#include "ui/charts/validationchart.h"

#include <QCoreApplication>

#include <vector>

namespace memwall::ui {

namespace {

constexpr const char *kContext = "ChartRegistry";

template <class Chart>
ChartInfo entry(const char *id, const char *name, bool presentation = true)
{
    QStringList pieces;
    if constexpr (requires { Chart::revealPieces(); })
        pieces = Chart::revealPieces();
    return {QString::fromLatin1(id),
            name,
            &Chart::staticMetaObject,
            [](ScenarioDocument *doc) -> std::unique_ptr<ChartBase> { return std::make_unique<Chart>(doc); },
            presentation,
            pieces};
}

} // namespace

QString ChartInfo::title() const { return QCoreApplication::translate(kContext, name); }

std::span<const ChartInfo> chartRegistry()
{
    // Built once; only what never changes is kept (the names are translated by title() when asked).
    static const std::vector<ChartInfo> charts{
        entry<RooflineChart>("roofline", QT_TRANSLATE_NOOP("ChartRegistry", "Roofline")),
        entry<MemoryChart>("memory", QT_TRANSLATE_NOOP("ChartRegistry", "Memory")),
        entry<SweepChart>("sweep", QT_TRANSLATE_NOOP("ChartRegistry", "Batch sweep")),
        entry<TimelineChart>("timeline", QT_TRANSLATE_NOOP("ChartRegistry", "Request timeline")),
        entry<BreakdownChart>("breakdown", QT_TRANSLATE_NOOP("ChartRegistry", "Breakdown")),
        entry<TrendsChart>("trends", QT_TRANSLATE_NOOP("ChartRegistry", "Trends")),
        entry<RidgeChart>("ridge", QT_TRANSLATE_NOOP("ChartRegistry", "Ridge point")),
        entry<ScalingChart>("scaling", QT_TRANSLATE_NOOP("ChartRegistry", "Scaling")),
        entry<SearchChart>("search", QT_TRANSLATE_NOOP("ChartRegistry", "Deployment search")),
        entry<ValidationChart>("validation", QT_TRANSLATE_NOOP("ChartRegistry", "Validation")),
    };
    return charts;
}

const ChartInfo *findChart(const QString &id)
{
    for (const ChartInfo &info : chartRegistry())
        if (info.id == id)
            return &info;
    return nullptr;
}

const ChartInfo *chartInfoOf(const ChartBase &chart)
{
    for (const QMetaObject *type = chart.metaObject(); type; type = type->superClass()) // a subclass is its base's
        for (const ChartInfo &info : chartRegistry())
            if (info.type == type)
                return &info;
    return nullptr;
}

QStringList chartIds()
{
    QStringList ids;
    for (const ChartInfo &info : chartRegistry())
        ids << info.id;
    return ids;
}

std::unique_ptr<ChartBase> createChart(const QString &id, ScenarioDocument *doc)
{
    const ChartInfo *info = findChart(id);
    return info ? info->create(doc) : nullptr;
}

} // namespace memwall::ui
