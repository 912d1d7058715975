#pragma once

#include <QPointer>

#include "ui/charts/chartbase.h"

#include "core/analysis/serving.h"
#include "ui/charts/rooflinemath.h"

#include <QFont>
#include <QGraphicsSimpleTextItem>
#include <QHash>
#include <QList>
#include <QPointF>
#include <QString>

#include <array>
#include <vector>

class QAction;
class QGraphicsLineItem;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QXYSeries;

namespace memwall::ui {

class MeasuredPoints;

class Callout;
class LabelPlacer;
class MarkerLayer;

/// The roofline of the current device with the current model's operators on it (log–log).
///
/// - x: arithmetic intensity (FLOP/byte); y: performance in TFLOP/s (GFLOP/s for devices below 1 TFLOP/s).
/// - One horizontal ceiling per distinct peak (precisions with equal peaks share one, e.g. "FP16 · BF16"), the
///   matmul precision's ceiling drawn strongest; one slope per memory level (SRAM, L2, HBM/DRAM, host link), the
///   main-memory slope strongest; the ridge point of the active ceiling and main memory marked.
/// - Operators: one scatter series per operator class, each marker's area proportional to its share of the time
///   (rooflinemath::markerSize), drawn by a MarkerLayer. Operators without FLOPs are not plotted (they stay in the
///   table); one that moves no bytes is pinned to the right edge with an arrow (its intensity is infinite).
///   The whole model is a star at (total intensity, achieved FLOP/s). Hover shows a Callout, click selects.
/// - Compare mode (scenario B, document()->compare()) adds B's whole-model point (a hollow star in another colour,
///   labelled "B") whenever B analyses, and B's dashed matmul roofline when it differs from A's (another device,
///   or activations that move the matmuls to another ceiling).
/// Ceiling, slope and ridge labels are text items inside the chart, so they follow zoom, resize and export.
class RooflineChart : public ChartBase
{
    Q_OBJECT
public:
    explicit RooflineChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~RooflineChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;
    /// "Show L2/SRAM slopes".
    QList<QAction *> optionActions() override;
    /// The blackboard order a lesson can build the chart up in (ChartBase::setReveal()): "axes", "compute" (the
    /// ceilings), "memory" (the slopes), "ridge", then one operator class at a time ("ops:matmul", "ops:attention",
    /// "ops:normalization", "ops:elementwise", "ops:communication"), then "model" (the whole-model stars).
    static QStringList revealPieces();

    /// Whether the on-chip levels (SRAM, L2/caches) get their own slope; off draws only main memory and the host
    /// link (a level that is the device's main memory, e.g. SRAM on a wafer-scale chip, is always drawn).
    bool showCacheSlopes() const { return m_showCacheSlopes; }
    void setShowCacheSlopes(bool on);

    // ---- for tests and tools ----
    /// The legend entry (and on/off switch) of one operator class, and the document operator index of each of its
    /// points. The points themselves are drawn by operatorMarkers().
    QScatterSeries *operatorSeries(core::OpClass cls) const { return m_opSeries[static_cast<std::size_t>(cls)]; }
    /// The operator markers as painted: one per operator with FLOPs, keyed by operator index.
    MarkerLayer *operatorMarkers() const { return m_ops; }
    /// The whole-model stars of A and B (group 0 and 1), drawn where modelSeries() and compareModelSeries() put them.
    MarkerLayer *modelMarkers() const { return m_stars; }
    const std::vector<int> &operatorIndices(core::OpClass cls) const
    {
        return m_opIndex[static_cast<std::size_t>(cls)];
    }
    /// The ceilings and slopes currently drawn.
    const std::vector<rooflinemath::Ceiling> &ceilings() const { return m_ceilings; }
    const std::vector<rooflinemath::Slope> &slopes() const { return m_slopes; }
    /// Ceiling line series in use (one per entry of ceilings()).
    QList<QLineSeries *> ceilingSeries() const;
    /// The ring around the selected operator (visible only while one is selected).
    QScatterSeries *selectionSeries() const { return m_selection; }
    QScatterSeries *modelSeries() const { return m_model; }
    /// B's roofline (empty and hidden while B's roofs equal A's) and B's whole-model point.
    QLineSeries *compareSeries() const { return m_compareRoof; }
    QScatterSeries *compareModelSeries() const { return m_compareModel; }
    Callout *callout() const { return m_callout; }
    /// The value (plotted coordinates) where operator `index` is drawn; NaN if it is not drawn.
    QPointF operatorPoint(int index) const;
    /// y values are plotted in this many FLOP/s per unit (1e12: TFLOP/s).
    double yScale() const { return m_yScale; }

    /// The "Measure this computer" result: while the document's device is the measured machine, its kernels
    /// (matrix-vector, matrix-matrix) are drawn as points under their own measured roofline.
    void setMeasuredPoints(MeasuredPoints *points) override;
    QScatterSeries *measuredSeries() const { return m_measured; }
    /// The whole serving steps drawn (core::servingSteps of the scenario) and their series, in the same order.
    const std::vector<core::ServingStep> &servingSteps() const { return m_servingSteps; }
    QScatterSeries *servingSeries() const { return m_serving; }
    /// "verify 5 tokens", "decodes + 512-token chunk".
    QString servingStepName(const core::ServingStep &step) const;

public slots:
    void refresh() override;

protected:
    void restyle() override;
    void legendToggled() override; ///< the operator markers and labels follow their series' visibility

private:
    // refresh()'s steps, in order; `keep` collects the points the automatic range must show (FLOP/byte, FLOP/s)
    void refreshRoofs(const core::Analysis &a, const core::HardwareSpec &hw);
    void refreshOperators(const core::Analysis &a, std::vector<rooflinemath::PlotPoint> &keep);
    void refreshModel(const core::Analysis &a, std::vector<rooflinemath::PlotPoint> &keep);
    /// Scenario B's star and roof; its roof's ceiling and slope join `rangeCeilings` and `rangeSlopes`.
    void refreshCompare(std::vector<rooflinemath::Ceiling> &rangeCeilings,
                        std::vector<rooflinemath::Slope> &rangeSlopes, std::vector<rooflinemath::PlotPoint> &keep);
    void refreshMeasured(const core::HardwareSpec &hw, std::vector<rooflinemath::PlotPoint> &keep);
    void refreshServingSteps(const core::HardwareSpec &hw, std::vector<rooflinemath::PlotPoint> &keep);
    void placeStars(); ///< the model stars where the model series' points are
    /// Shows the document's selected operator; `relayout`: and places the labels again.
    void updateSelection(bool relayout = true);
    void updateAxisTitles();
    void stylePools();
    /// Places every label (ceilings, slopes, ridge, points, scenario B) without overlaps: LabelLayout's steps.
    void layoutLabels();
    /// One pass of layoutLabels(): the plans of every label and leader line, and the steps that make them.
    class LabelLayout;
    /// A placer for the labels: the roofs as curves, the points as obstacles.
    LabelPlacer labelObstacles(const QRectF &area) const;
    /// The size of a label showing `text` in `font` (cached: a slider tick measures the same texts again).
    QSizeF textSize(const QString &text, const QFont &font);
    QGraphicsLineItem *addLeader();
    void showOperatorTooltip(int index, bool state);
    /// Operators drawn exactly at `p` (equal shapes coincide, e.g. ffn.up and ffn.gate), longest-running first.
    std::vector<int> operatorsAt(const QPointF &p) const;
    /// Where operator `index`'s marker is drawn, in plotted coordinates: operatorPoint(), except for a marker pinned
    /// to the right edge (no bytes), which is drawn just left of it.
    QPointF drawnPoint(int index) const;
    void applyRanges(const rooflinemath::Ranges &r);
    QString unitLabel() const;
    bool compareRoofDiffers() const; ///< B analyses and its matmul roof or main-memory slope is not A's
    QStringList titles() const;      ///< full title first, then shorter ones for a small chart

    QLogValueAxis *m_x;
    QLogValueAxis *m_y;
    std::vector<QLineSeries *> m_ceilingPool;
    std::vector<QLineSeries *> m_slopePool;
    std::vector<QGraphicsSimpleTextItem *> m_ceilingLabels;
    /// A ceiling label with no room beside its line (ceilings closer than a line of the presentation font) sits in
    /// free space with a leader line to its ceiling's left end.
    std::vector<QGraphicsLineItem *> m_ceilingLeaders;
    std::vector<QGraphicsSimpleTextItem *> m_slopeLabels;
    QLineSeries *m_ridgeLine;
    QScatterSeries *m_ridge;
    QGraphicsSimpleTextItem *m_ridgeLabel;
    std::array<QScatterSeries *, core::kOpClassCount> m_opSeries{};
    std::array<std::vector<int>, core::kOpClassCount> m_opIndex;
    std::vector<QPointF> m_opPoints; ///< per document operator (plotted coordinates)
    std::vector<double> m_opSizes;
    QScatterSeries *m_model;
    QGraphicsSimpleTextItem *m_modelLabel;
    QScatterSeries *m_selection;
    QGraphicsSimpleTextItem *m_selectionLabel;
    QString m_selectionText; ///< the selected operator's name, shown by m_selectionLabel where it finds room
    QLineSeries *m_compareRoof;
    QScatterSeries *m_compareModel;
    QGraphicsSimpleTextItem *m_compareLabel;
    QGraphicsSimpleTextItem *m_compareModelLabel;
    Callout *m_callout;
    MarkerLayer *m_ops;
    MarkerLayer *m_stars;
    QScatterSeries *m_measured;
    QScatterSeries *m_serving = nullptr;
    std::vector<core::ServingStep> m_servingSteps;
    QPointer<MeasuredPoints> m_measuredPoints;
    std::vector<rooflinemath::Ceiling> m_ceilings;
    /// Each ceiling's label in the forms its placement tries, made when the ceilings or the y unit change (not at
    /// every slider tick).
    struct CeilingTexts
    {
        QString label;    ///< "FP16 · BF16 989 TFLOP/s"
        QString twoLines; ///< "FP16 · BF16" over "989 TFLOP/s"
        QString compact;  ///< "FP16 · BF16 989"
        QString compactTwoLines;
    };
    std::vector<CeilingTexts> m_ceilingTexts;
    std::vector<rooflinemath::Slope> m_slopes;
    rooflinemath::Ranges m_ranges;
    double m_yScale = 1e12;
    int m_hovered = -1;
    bool m_showCacheSlopes = true;
    bool m_refreshing = false;  ///< refresh() lays out the labels once, at its end
    bool m_shortLegend = false; ///< legend entries in their short names (fitLegend())

    /// A series' legend entry: the class, model and B-model entries in their full or short names, others as named.
    QString legendName(const QAbstractSeries *series, bool shortForm) const;
    void nameLegendEntries(); ///< every entry by legendName() in the current form
    void fitLegend();         ///< short names where the full ones do not fit in one row
    QAction *m_cacheSlopesAction = nullptr;
    QGraphicsSimpleTextItem m_measure;                ///< measures label texts (textSize()); never in a scene
    QHash<QFont, QHash<QString, QSizeF>> m_textSizes; ///< by font and text
};

} // namespace memwall::ui
