#pragma once

#include "ui/charts/chartbase.h"

#include "core/analysis/analysis.h"

#include <QHash>
#include <QString>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

class QAreaSeries;
class QCategoryAxis;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QLogValueAxis;

namespace memwall::ui {

class LabelPlacer;

class Callout;

/// What fills one device's memory, against the capacity of every level of its memory hierarchy (log scale).
///
/// Horizontal bars on a logarithmic byte axis (plotted in GB): one bar per memory level (SRAM, L2, HBM/DRAM, host)
/// showing its capacity, and on top the per-device footprint from analysis().memory as one stripe per component —
/// weights, KV cache, activations, and in training gradients and optimizer state — each from the left edge to its
/// own bytes and labelled with them and its share (stacking on a log axis would misstate the shares). It follows
/// parallelism (the numbers are per device); a dotted line marks the total. When the footprint exceeds main memory, the
/// part beyond capacity is overlaid in a translucent solid warning colour (no pattern brush: SVG renderers drop Qt's
/// hatch patterns, so PNG, SVG and PDF would disagree), the dashed capacity line turns the warning colour, and a label
/// says "does not fit: 139 GB > 80 GB".
///
/// Compare mode adds scenario B (document()->compare()): a second footprint row under A's, in the same
/// component colours, with its own verdict naming B ("B: int4 weights — fits: 57.1 GB of 80 GB") and overflow overlay;
/// when B runs on another device, a row with B's main-memory capacity and a dashed capacity mark across B's bar.
///
/// Bars are QAreaSeries rectangles (bar series do not work on log axes); each is updated in place.
class MemoryChart : public ChartBase
{
    Q_OBJECT
public:
    /// Footprint components, in stacking order.
    enum Component { Weights, KvCache, Activations, Gradients, Optimizer, State, ComponentCount };

    explicit MemoryChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~MemoryChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;

    // ---- for tests and tools ----
    /// The rectangle of one footprint component; x spans [start, end] in GB.
    QAreaSeries *componentSeries(Component c) const { return m_components[c]; }
    /// Bytes drawn for a component (end - start of its bar), from the series itself.
    double componentBytes(Component c) const;
    /// Capacity bars in use, one per memory level of the device (fastest first, as in the preset).
    QList<QAreaSeries *> levelSeries() const;
    /// The warning overlay from main-memory capacity to the footprint (visible only when it does not fit).
    QAreaSeries *overflowSeries() const { return m_overflow; }
    /// KV offload (scenario kv_offload): the KV-cache bytes per device that live in the offload tier, drawn on that
    /// level's row; 0 without KV offload.
    double offloadedBytes() const { return m_offloadBytes; }
    QAreaSeries *offloadSeries() const { return m_offloadBar; }
    /// The row (category value from the top, as the bars use) of the offload tier; -1 without offload.
    int offloadRow() const { return m_offloadRow; }
    /// Weight offload (scenario weight_offload): the same for the weights kept in their tier. In the KV cache's tier
    /// the two bars share the lower half of the row.
    double offloadedWeightBytes() const { return m_offloadWeightBytes; }
    QAreaSeries *offloadWeightSeries() const { return m_offloadWeightBar; }
    int offloadWeightRow() const { return m_offloadWeightRow; }
    bool overCapacity() const { return m_over; }
    /// "does not fit: 139 GB > 80 GB" or "fits: 17.4 GB of 80 GB (22 %)".
    QString fitText() const;
    Callout *callout() const { return m_callout; }
    /// The label at the end of A's stripe of component `c` (created at the first layout; null before).
    QGraphicsSimpleTextItem *componentLabel(Component c) const { return m_componentLabels[c]; }

    /// Scenario B's footprint component (hidden while compare mode is off or B does not analyse).
    QAreaSeries *compareComponentSeries(Component c) const { return m_bComponents[c]; }
    double compareComponentBytes(Component c) const;
    /// B's main-memory capacity bar: drawn only when B runs on another device than A.
    QAreaSeries *compareCapacitySeries() const { return m_bCapacity; }
    /// Bytes of B's capacity bar (0 when hidden).
    double compareCapacityBytes() const;
    QAreaSeries *compareOverflowSeries() const { return m_bOverflow; }
    bool compareOverCapacity() const { return m_bOver; }
    /// "B: int4 weights — does not fit: 95 GB > 80 GB" or "B: Instinct MI300X — fits: 159 GB of 192 GB (83 %)";
    /// empty without B.
    QString compareFitText() const;

public slots:
    void refresh() override;

protected:
    void restyle() override;

private:
    QAreaSeries *makeBar(const QString &object);
    /// Sets `bar` on `row` (0 = top), as stripe `stripe` of `stripes` equal horizontal stripes of the row's band.
    void setBar(QAreaSeries *bar, double x0, double x1, double row, int stripe = 0, int stripes = 1);
    /// The row coordinate of the middle of a stripe (for labels).
    static double stripeRow(double row, int stripe, int stripes);
    void clearBar(QAreaSeries *bar);
    /// "fits: 57.1 GB of 80 GB (71 %)" or "does not fit: 139 GB > 80 GB".
    static QString verdictText(double total, double capacity, bool over);
    /// Stacks the components of `mem` on `row` and sets the footprint's tooltips.
    void setFootprint(const std::array<QAreaSeries *, ComponentCount> &bars, const core::MemoryFootprint &mem,
                      double row, const QString &who);
    void placeVerdict(LabelPlacer &placer, QGraphicsSimpleTextItem *label, const QString &text, double total,
                      double capacity, bool over, double row);
    /// The bytes the bars span, for the x axis's range: the smallest and largest bar end seen.
    struct ByteSpan
    {
        double lo = HUGE_VAL, hi = 0;
        void add(double bytes)
        {
            if (bytes > 0) {
                lo = std::min(lo, bytes);
                hi = std::max(hi, bytes);
            }
        }
    };
    // refresh()'s steps, in order
    void refreshRows(const core::HardwareSpec &hw, bool compare, const core::HardwareSpec *hwB);
    void refreshLevels(const core::HardwareSpec &hw, ByteSpan &span);
    void refreshOffload(const core::HardwareSpec &hw, const core::MemoryFootprint &mem);
    void refreshFootprint(const core::MemoryFootprint &mem, bool compare, ByteSpan &span);
    void refreshCompare(const core::Analysis *cmp, const core::HardwareSpec *hwB, ByteSpan &span);
    void refreshGuides(const ByteSpan &span);
    void layoutLabels();
    // layoutLabels()'s steps
    void fitLegendNames();
    /// Where value `x` (GB) of `row` (0 = top) is drawn.
    QPointF barPoint(double x, double row) const;
    /// Right of where a bar ends (else left of it, inside the bar), else a little above or below that; hidden when no
    /// such place is free.
    void placeAtBarEnd(LabelPlacer &placer, QGraphicsSimpleTextItem *label, double xEnd, double row,
                       double xBeyond = 0);
    void labelCapacities(LabelPlacer &placer);
    void labelStripes(LabelPlacer &placer, const std::array<QAreaSeries *, ComponentCount> &bars,
                      std::array<QGraphicsSimpleTextItem *, ComponentCount> &labels, const core::MemoryFootprint &mem,
                      double row, double capacityBytes);
    void restyleBars();
    QStringList titles() const; ///< full title first, then shorter ones for a small chart

    QLogValueAxis *m_x;
    QCategoryAxis *m_y;
    std::vector<QAreaSeries *> m_levels;
    std::array<QAreaSeries *, ComponentCount> m_components{};
    QAreaSeries *m_overflow;
    QAreaSeries *m_offloadBar;
    QGraphicsSimpleTextItem *m_offloadLabel = nullptr;
    double m_offloadBytes = 0;
    int m_offloadRow = -1;
    QString m_offloadLevel;
    QAreaSeries *m_offloadWeightBar;
    QGraphicsSimpleTextItem *m_offloadWeightLabel = nullptr;
    double m_offloadWeightBytes = 0;
    int m_offloadWeightRow = -1;
    QString m_offloadWeightLevel;
    std::pair<int, int> m_offloadStripe{1, 2}, m_offloadWeightStripe{1, 2}; ///< (stripe, stripes) of their row
    QLineSeries *m_capacityLine;
    QLineSeries *m_needLine;
    std::vector<QGraphicsSimpleTextItem *> m_levelLabels;
    QGraphicsSimpleTextItem *m_totalLabel;
    std::array<QGraphicsSimpleTextItem *, ComponentCount> m_componentLabels{};
    std::array<QGraphicsSimpleTextItem *, ComponentCount> m_bComponentLabels{};
    // Scenario B
    std::array<QAreaSeries *, ComponentCount> m_bComponents{};
    QAreaSeries *m_bOverflow;
    QAreaSeries *m_bCapacity;
    QLineSeries *m_bCapacityLine;
    QGraphicsSimpleTextItem *m_bTotalLabel;
    QGraphicsSimpleTextItem *m_bCapacityLabel;
    int m_bRow = -1;         ///< row of B's footprint; -1 without B
    int m_bCapacityRow = -1; ///< row of B's main memory; -1 unless B runs on another device
    double m_bTotal = 0;
    double m_bCapacityBytes = 0;
    bool m_bOver = false;
    Callout *m_callout;
    QHash<QAreaSeries *, QString> m_tips;
    QStringList m_rowNames;
    int m_rows = 0;
    int m_mainRow = 0;    ///< row of A's main memory
    int m_levelRow = 1;   ///< row of A's first (fastest) memory level
    int m_levelCount = 0; ///< A's memory levels drawn
    double m_total = 0;
    double m_capacity = 0;
    bool m_over = false;
    bool m_shortLegend = false; ///< legend names without sizes (a narrow chart)
};

} // namespace memwall::ui
