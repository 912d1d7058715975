#pragma once

#include "ui/charts/chartbase.h"

#include "core/search/search.h"

#include <QLineF>
#include <QPointF>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

class QFutureWatcherBase;
class QGraphicsRectItem;
class QGraphicsPathItem;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;

namespace memwall::ui {

class Callout;

/// The design-space search (core/search/search.h) for the document's model and scenario, drawn as its Pareto front:
/// tokens/s per device (throughput, y) against tokens/s per user (interactivity, x), both on log axes, one colour
/// (and marker shape) per device type, the latency targets as vertical lines (a minimum tokens/s per user at its x, a
/// maximum TPOT at x = 1 / TPOT). Hovering a point names its configuration; clicking it loads that device and
/// scenario into the document as one undo step. When nothing meets the targets the chart says so and names the
/// nearest configuration and what it misses by.
///
/// The search varies device, tp/pp/ep/dp, batch, weight/activation precision and KV format; the rest of the scenario
/// (prompt and output length, efficiency, attention, sparsity ...) is the document's, in phase Generate. Devices:
/// every GPU preset, or the ids set by setDeviceIds(), plus the document's device (with its what-if factors) when it
/// is not one of them as published.
///
/// searchCandidates() (the heavy part, about 0.1 s) runs off the GUI thread, only when the model, the scenario's
/// searched-over part, the device set or the budget change: a slider tick that changes none of them (the batch) costs
/// nothing, and a result that is stale when it arrives is discarded (the newest inputs are searched next). Targets
/// are view state (not undoable) and only re-select the front from the candidates (selectFront(), milliseconds).
class SearchChart : public ChartBase
{
    Q_OBJECT
public:
    explicit SearchChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~SearchChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;

    static constexpr int kDefaultBudget = 64;
    static constexpr double kDefaultMaxTpotS = 0.05;

    const core::SearchTargets &targets() const { return m_targets; }
    /// Re-selects the front from the candidates found (no new search).
    void setTargets(const core::SearchTargets &targets);
    int deviceBudget() const { return m_budget; }
    /// The most devices one configuration may use (1..4096); searches again.
    void setDeviceBudget(int devices);
    /// Preset ids to search over; empty: every GPU preset (the default). Searches again.
    const QStringList &deviceIds() const { return m_deviceIds; }
    void setDeviceIds(const QStringList &ids);

    /// True while the front shown is not yet that of the current inputs (a search runs or waits to run).
    bool isSearching() const;
    /// The candidates of the front shown; empty before the first search finished, or when it failed.
    const std::optional<core::SearchCandidates> &candidates() const { return m_candidates; }
    /// The front under the current targets.
    const core::SearchFront &front() const { return m_front; }
    /// The devices of the search shown (SearchPoint::device indexes them).
    const std::vector<core::HardwareSpec> &searchedDevices() const;
    /// What the chart says over the plot: how many configurations fit and meet the targets, or that nothing meets
    /// them and the nearest configuration with its miss, or the search's state.
    QString message() const;
    /// The opacity of a front drawn while a new search runs (it is the previous inputs' front).
    static constexpr qreal kStaleOpacity = 0.25;
    /// Why the search failed (an encoder model, an invalid scenario); empty otherwise.
    const QString &error() const { return m_error; }

    /// The series that draws front point `i`, and the value it is drawn at (for the tests: mapToPosition()).
    QScatterSeries *seriesOfFrontPoint(std::size_t i) const;
    static QPointF valueOf(const core::SearchPoint &p) { return {p.tokensPerSPerUser, p.tokensPerSPerDevice}; }
    /// The band of a front point with achievable efficiency (SearchPoint::band): every time band.low to band.high
    /// times the predicted one, so both rates divide by the same factor; the segment runs from the value / band.high
    /// to the value / band.low. Empty for a point without a band.
    static QLineF bandOf(const core::SearchPoint &p);
    /// The band segments as painted, in chart coordinates, one per front point with a band (front order).
    QList<QLineF> paintedBands() const;
    /// The vertical target lines drawn now, at their x (tokens/s per user): min tokens/s per user, then 1 / max TPOT.
    QList<double> targetLineXs() const;
    /// The multi-line description of front point `i` (its callout).
    QString describe(const core::SearchPoint &p) const;
    /// Loads front point `i`'s device and scenario into the document, as one undo step.
    void loadFrontPoint(std::size_t i);

public slots:
    void refresh() override;

signals:
    /// The targets changed (from setTargets()).
    void targetsChanged();
    /// The budget or device set changed (a search follows).
    void searchSettingsChanged();
    /// A search of the current inputs finished and its front is drawn (also after a failed search).
    void searchFinished();
    /// The front drawn changed (new candidates or targets).
    void frontChanged();

protected:
    void restyle() override;
    void finishBackgroundWork() override;

private:
    /// A point as core::searchPointToJson() gives it, with the device's name and (for one release) its old key.
    nlohmann::json pointJson(const core::SearchPoint &p) const;
    struct Key;
    struct Job;
    struct Outcome;
    static Outcome runSearch(const std::shared_ptr<const Job> &job); ///< on a worker thread
    /// The search the document asks for now, with its key (equal keys: same search).
    std::shared_ptr<const Job> currentJob() const;
    void startSearch();
    void take(std::shared_ptr<const Job> job, Outcome outcome);
    void reselect();
    void redraw();
    void layoutOverlay();
    void showCallout(QScatterSeries *series, const QPointF &value, bool state);
    void pointClicked(QScatterSeries *series, const QPointF &value);
    void load(const core::SearchPoint &p);
    int frontIndexAt(QScatterSeries *series, const QPointF &value) const;
    QScatterSeries *deviceSeries(std::size_t device);
    void styleDeviceSeries();
    QString deviceLabel(std::size_t device) const;

    core::SearchTargets m_targets;
    int m_budget = kDefaultBudget;
    QStringList m_deviceIds;

    std::shared_ptr<const Job> m_wanted;     ///< what the document asks for
    std::shared_ptr<const Job> m_running;    ///< what the background search works on (null: none)
    std::shared_ptr<const Job> m_shown;      ///< what the candidates are of
    QFutureWatcherBase *m_watcher = nullptr; ///< of m_running's search
    bool m_launchQueued = false;
    int m_runId = 0;
    std::optional<core::SearchCandidates> m_candidates;
    core::SearchFront m_front;
    core::SearchFront m_fullFront; ///< without targets: sets the axes, so they hold still while targets move
    std::vector<int> m_colourSlot; ///< per searched device
    QString m_error;

    QLogValueAxis *m_x = nullptr;
    QLogValueAxis *m_y = nullptr;
    std::vector<QScatterSeries *> m_devices; ///< one per searched device (grown on demand)
    QLineSeries *m_frontLine = nullptr;
    QScatterSeries *m_nearest = nullptr;
    QLineSeries *m_userLine = nullptr; ///< min tokens/s per user
    QLineSeries *m_tpotLine = nullptr; ///< 1 / max TPOT
    QGraphicsSimpleTextItem *m_userLabel = nullptr;
    QGraphicsSimpleTextItem *m_tpotLabel = nullptr;
    QGraphicsRectItem *m_messageBox = nullptr;
    QGraphicsPathItem *m_bands = nullptr; ///< one segment per front point that carries an uncertainty band
    QGraphicsSimpleTextItem *m_message = nullptr;
    Callout *m_callout = nullptr;
};

} // namespace memwall::ui
