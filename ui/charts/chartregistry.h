#pragma once

#include <QString>
#include <QStringList>

#include <memory>
#include <span>

struct QMetaObject;

namespace memwall::ui {

class ChartBase;
class ScenarioDocument;

/// What MemWall knows about one of its charts, in one place. Tabs, the presentation window, lessons, the export
/// dialog and `memwall export --chart` all read the registry (chartRegistry()); a new chart is one entry there.
struct ChartInfo
{
    /// Stable id: `memwall export --chart`, lesson files ("chart"), exported file names, the JSON's "chart" field.
    QString id;
    /// The short English name (tab, menu), marked for translation; title() translates it.
    const char *name;
    /// The ChartBase subclass create() makes (ChartBase::id() finds its entry by it).
    const QMetaObject *type;
    /// Makes the chart, following `doc`.
    std::unique_ptr<ChartBase> (*create)(ScenarioDocument *doc);
    /// Shown in the presentation window (one chart at a time, full screen).
    bool presentation;
    /// The pieces a lesson step may reveal the chart in (ChartBase::setReveal()), in teaching order: a chart class
    /// that can be built up declares them as `static QStringList revealPieces()`. Empty: shown whole.
    QStringList revealPieces;

    /// The short name in the current language ("Roofline", "Batch sweep"), translated now: a language installed
    /// after start-up shows at the next call.
    QString title() const;
};

/// Every chart, in display order (the order of the tabs).
std::span<const ChartInfo> chartRegistry();
/// The entry with that id; nullptr for an unknown id.
const ChartInfo *findChart(const QString &id);
/// The entry of `chart`'s class (or of the nearest base class that has one); nullptr for a chart that is not
/// registered (a test's own chart).
const ChartInfo *chartInfoOf(const ChartBase &chart);
/// The ids of chartRegistry(), in display order.
QStringList chartIds();
/// Creates the chart with that id, following `doc`; nullptr for an unknown id.
std::unique_ptr<ChartBase> createChart(const QString &id, ScenarioDocument *doc);

} // namespace memwall::ui
