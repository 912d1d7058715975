#pragma once

#include "ui/charts/chartbase.h"

#include "core/analysis/sweep.h"

#include <QList>
#include <QPointF>
#include <QStringList>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

class QGraphicsItem;
class QGraphicsSimpleTextItem;
class QAreaSeries;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;

namespace memwall::ui {

class Callout;

/// Pure arithmetic of the batch sweep chart (no Qt Charts types; tested in tests/ui/tst_sweepchart.cpp).
namespace sweepmath {

inline constexpr int64_t kMinBatch = 1;
inline constexpr int64_t kMaxBatch = 4096;

/// 1, 2, 4, ... up to `maxBatch` (inclusive when it is a power of two).
std::vector<int64_t> batchSizes(int64_t maxBatch = kMaxBatch);
/// The power of two nearest to `batch` on a log scale (2.9 -> 4, 2.7 -> 2 since sqrt(8) = 2.83), clamped to
/// [lo, hi]; non-finite or non-positive input gives `lo`.
int64_t nearestPowerOfTwo(double batch, int64_t lo = kMinBatch, int64_t hi = kMaxBatch);
/// True for the phases where the y value is a time per generated token (decode, generate); else a time per step.
bool perToken(core::Phase p);
/// The plotted latency of one sweep row in seconds: TPOT for generate, the step time otherwise (for decode that is
/// the time per token of every sequence).
double latencyS(const core::SweepRow &row);
/// The same for the document's current analysis.
double latencyS(const core::Analysis &a, core::Phase p);
/// Log base of the batch axis: 2 (a label at every power of two) when `plotWidthPx` holds all labels of
/// `labelWidthPx`, else 4, 8 or 16 (fewer labels) — never overlapping tick labels.
int axisBase(double plotWidthPx, double labelWidthPx, int64_t maxBatch = kMaxBatch);

/// The latency and throughput curves of one sweep: up to and past the largest fitting batch.
struct Curves
{
    QList<QPointF> time, timeOver, rate, rateOver;
};
/// The smallest and largest latency (ms) and throughput (tokens/s) plotted.
struct Extent
{
    double tmin = std::numeric_limits<double>::max(), tmax = 0;
    double rmin = std::numeric_limits<double>::max(), rmax = 0;
    void addTime(double t)
    {
        tmin = std::min(tmin, t);
        tmax = std::max(tmax, t);
    }
    void add(double t, double k)
    {
        addTime(t);
        rmin = std::min(rmin, k);
        rmax = std::max(rmax, k);
    }
};

} // namespace sweepmath

/// Batch sweep: time per token (ms, left axis) and throughput (tokens/s, right axis) against batch 1…4096 (log2 x),
/// computed with core::sweep over powers of two for the document's scenario. Marks the batch where the step turns
/// compute-bound (core::answerBatchSweep), the largest batch whose footprint fits the device (warning colour; the
/// curve past it is dashed and greyed), and the document's current batch (moves with the slider). Clicking in the
/// plot sets the document's batch to the nearest power of two (one undo step per click).
///
/// Compare mode adds scenario B (document()->compare()) in the same axes: its time per token and throughput dashed
/// (dotted and greyed past B's memory limit), its value at the current batch as a hollow marker, and legend entries
/// "B: ms per token" and "B: tokens/s" that stay constant while the batch moves; the title names what B changes.
class SweepChart : public ChartBase
{
    Q_OBJECT
public:
    explicit SweepChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~SweepChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;

    /// The rows behind the curves (one per power of two).
    const std::vector<core::SweepRow> &rows() const { return m_rows; }
    const core::BatchAnswers &answers() const { return m_answers; }
    /// Batch of the compute-bound marker (0 = stays memory-bound, marker hidden).
    int64_t computeBoundBatch() const { return m_answers.firstComputeBound; }
    /// Batch of the memory-limit marker (0 = fits at no batch).
    /// The largest batch that fits (exact: ScenarioDocument::fitLimits()), where the memory line is drawn.
    int64_t memoryLimitBatch() const;
    /// Where the current-batch marker sits on the latency curve (batch, ms); null if hidden.
    QPointF currentMarker() const;
    /// The batch the vertical compute-bound / memory-limit lines mark (0 when hidden); where the two meet on screen
    /// they are drawn side by side, a few pixels apart, each label on its own side.
    double computeLineX() const;
    double memoryLineX() const;
    QString computeLabel() const;
    QString memoryLabel() const;

    /// Scenario B's rows and answers (empty while compare mode is off).
    const std::vector<core::SweepRow> &compareRows() const { return m_bRows; }
    const core::BatchAnswers &compareAnswers() const { return m_bAnswers; }
    /// B's curves: batches that fit B's device, and those past its memory limit.
    QLineSeries *timeSeries() const { return m_time; }
    QLineSeries *rateSeries() const { return m_rate; }
    QLineSeries *compareTimeSeries() const { return m_bTime; }
    QLineSeries *compareTimeOverSeries() const { return m_bTimeOver; }
    QLineSeries *compareRateSeries() const { return m_bRate; }
    QLineSeries *compareRateOverSeries() const { return m_bRateOver; }
    /// Where B's current-batch marker sits on B's latency curve (batch, ms); null if hidden.
    QPointF compareMarker() const;
    /// B's marker on the throughput curve at the current batch (null point without B).
    QPointF compareRateMarker() const;

    /// The batch a click at `scenePos` (chart/scene coordinates) selects: nearest power of two; 0 outside the plot.
    int64_t batchAt(const QPointF &scenePos) const;
    /// Sets the document's batch (undoable, one step).
    void selectBatch(int64_t batch);

    /// The band painted around the time curve (ms): its upper and lower bounds, empty when there is none.
    QList<QPointF> bandUpper() const;
    QList<QPointF> bandLower() const;
    QAreaSeries *bandSeries() const { return m_band; }

public slots:
    void refresh() override;

protected:
    void restyle() override;
    void legendToggled() override; ///< the current batch's label goes with its marker

private:
    // refresh()'s steps, in order
    void refreshBand(const QList<QPointF> &time, sweepmath::Extent &ext);
    void refreshCompare(sweepmath::Extent &ext);
    /// Both y axes over `ext` with the same number of decades, and the x axis; returns the time axis's range (min,
    /// max).
    std::pair<double, double> refreshAxes(const sweepmath::Extent &ext);
    /// The compute-bound and memory-limit markers over the time axis's range, and their texts.
    void refreshMarkers(double tmin, double tmax);
    void placeLabels();
    void layoutOverlay(); ///< title that fits, legend placement, x-axis label density, marker labels
    QStringList titles() const;
    void showCallout(const QPointF &point, bool state, bool rateSeries, bool b);
    /// Scenario B's curves and marker.
    QList<QAbstractSeries *> compareSeries() const;

    std::vector<core::SweepRow> m_rows;
    core::BatchAnswers m_answers;
    std::vector<core::SweepRow> m_bRows;
    core::BatchAnswers m_bAnswers;
    QLogValueAxis *m_x = nullptr;
    QLogValueAxis *m_yTime = nullptr;
    QLogValueAxis *m_yRate = nullptr;
    QLineSeries *m_time = nullptr; ///< batches that fit
    /// With achievable efficiency on a device with microbenchmarks: where measured runs fell around the time curve
    /// (core::achievableBand), as a shaded area between its upper and lower bounds.
    QAreaSeries *m_band = nullptr;
    QLineSeries *m_bandUpper = nullptr;
    QLineSeries *m_bandLower = nullptr;
    QLineSeries *m_timeOver = nullptr; ///< batches past the memory limit (dashed, greyed)
    QLineSeries *m_rate = nullptr;
    QLineSeries *m_rateOver = nullptr;
    QLineSeries *m_computeLine = nullptr;
    QLineSeries *m_memoryLine = nullptr;
    /// The batches the two vertical lines mark (0: hidden). Where they coincide on screen the lines are drawn a few
    /// pixels apart (placeLabels()), so a series' x is not the value: these are.
    double m_computeX = 0;
    double m_memoryX = 0;
    QScatterSeries *m_currentTime = nullptr;
    QScatterSeries *m_currentRate = nullptr;
    QLineSeries *m_bTime = nullptr;
    QLineSeries *m_bTimeOver = nullptr;
    QLineSeries *m_bRate = nullptr;
    QLineSeries *m_bRateOver = nullptr;
    QScatterSeries *m_bCurrent = nullptr;     ///< B at the current batch on the time curve
    QScatterSeries *m_bCurrentRate = nullptr; ///< and on the throughput curve, as A's markers are on both
    QGraphicsSimpleTextItem *m_computeText = nullptr;
    QGraphicsSimpleTextItem *m_memoryText = nullptr;
    QGraphicsSimpleTextItem *m_currentText = nullptr; ///< "batch N" beside the current marker
    QGraphicsItem *m_catcher = nullptr;
    Callout *m_callout = nullptr;
};

} // namespace memwall::ui
