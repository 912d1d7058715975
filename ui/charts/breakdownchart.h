#pragma once

#include "ui/charts/chartbase.h"

#include "core/analysis/breakdown.h"

#include <QString>
#include <QStringList>

#include <array>
#include <vector>

class QBarCategoryAxis;
class QBarSet;
class QGraphicsSimpleTextItem;
class QHorizontalBarSeries;
class QHorizontalStackedBarSeries;
class QValueAxis;

namespace memwall::ui {

class Callout;

/// Pure helpers of the breakdown chart (no Qt Charts types; tested in tests/ui/tst_breakdownchart.cpp).
namespace breakdownmath {

/// Legend entry: "Tensor contractions: 99.8 % of FLOPs, 61 % of time" (shares as formatPercent() writes them).
QString legendLabel(core::ShareClass c, double flopShare, double timeShare);
/// Whether a segment `share` (0..1) of a bar `barPixels` wide has room for its in-bar label `labelPixels` wide.
bool labelFits(double share, double barPixels, double labelPixels);

/// Share of the time above which one class is said to dominate a step (kDominantShare = 90 %).
inline constexpr double kDominantShare = 0.9;
/// Whether the chart groups its bars by operator instead of by class: in decode, when one class takes at least
/// kDominantShare of the time (a decode step is nearly all tensor contractions streaming weights, so the class bars
/// would be two full bars of one colour).
bool groupByOperator(core::Phase phase, const core::ClassShares &shares);

/// One bar pair of the chart grouped by operator: an operator name summed over its layers (or the rest, or the
/// communication between devices), with its FLOPs and time and their shares of the step's totals (communication
/// included in the time).
struct OperatorRow
{
    QString name;         ///< "ffn.up", "other (9 operators)", "communication"
    QString reads;        ///< what most of its bytes are: "weights", "KV cache", "activations", "" (none, or a mix)
    double flops = 0;     ///< FLOP
    double timeS = 0;     ///< s
    double flopShare = 0; ///< 0..1 of the step's FLOPs
    double timeShare = 0; ///< 0..1 of the step's time
    int operators = 1;    ///< operator names it stands for
};
/// The operators by time, largest first, at most `maxRows` rows: the first maxRows − 1 operators (summed by name),
/// then one row for the rest; communication (if any) is a row of its own among them. Shares add to 1.
std::vector<OperatorRow> operatorRows(const core::Analysis &a, std::size_t maxRows = 8);

} // namespace breakdownmath

/// Share of FLOPs vs share of time by operator class — tensor contractions (matmuls + attention's batched matmuls),
/// normalisation (LayerNorm/RMSNorm, softmax), element-wise, communication — as two horizontal 100 % stacked bars
/// with percentage labels: the "99.8 % of FLOPs but 61 % of the runtime" lesson (Ivanov et al., MLSys 2021).
/// Toggling fused attention in the document moves time between the classes (the score matrix round trip).
/// A decode step that one class dominates (groupByOperator()) is shown by operator instead: a pair of bars (share of
/// FLOPs, share of time) per operator, largest time first, each named with what it reads (weights, KV cache). The
/// title names the model, the phase and the device.
class BreakdownChart : public ChartBase
{
    Q_OBJECT
public:
    explicit BreakdownChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~BreakdownChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;

    /// The shares currently shown.
    const core::ClassShares &shares() const { return m_shares; }
    /// Plotted percentage of class `c` in the FLOPs bar (`time` false) or the time bar (`time` true), 0..100.
    double plotted(core::ShareClass c, bool time) const;
    /// Legend labels in class order ("Class: x % of FLOPs, y % of time" when they fit in a row, else class names).
    QStringList legendLabels() const;
    /// The in-bar labels currently visible (for tests and exports).
    QStringList visibleSegmentLabels() const;
    /// True while the bars are grouped by operator (groupByOperator()).
    bool byOperator() const { return m_byOperator; }
    /// The operator rows shown while byOperator(), largest time first.
    const std::vector<breakdownmath::OperatorRow> &operatorRows() const { return m_rows; }
    /// The category axis' labels, bottom to top.
    QStringList categories() const;

public slots:
    void refresh() override;

protected:
    void restyle() override;

private:
    void placeLabels();
    void layoutOverlay(); ///< title and legend labels that fit, in-bar labels, callout
    QStringList titles() const;

    void showMode();    ///< the class bars or the operator bars, their axis ranges and legend entries
    void styleLegend(); ///< the legend entries' outlines (Qt sets them only when it makes an entry)
    void showOperatorCallout(int row, bool time);

    core::ClassShares m_shares;
    bool m_byOperator = false;
    QStringList m_percentTitles; ///< the share axis' title, then shorter ones for narrow plots
    std::vector<breakdownmath::OperatorRow> m_rows;
    QHorizontalBarSeries *m_opSeries = nullptr;
    QBarSet *m_opFlops = nullptr;
    QBarSet *m_opTime = nullptr;
    QHorizontalStackedBarSeries *m_series = nullptr;
    std::array<QBarSet *, core::kShareClassCount> m_sets{};
    std::array<QGraphicsSimpleTextItem *, 2 * core::kShareClassCount> m_labels{};
    QBarCategoryAxis *m_categories = nullptr;
    QValueAxis *m_percent = nullptr;
    Callout *m_callout = nullptr;
};

} // namespace memwall::ui
