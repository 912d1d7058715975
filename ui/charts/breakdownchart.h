#pragma once

#include "ui/charts/chartbase.h"

#include "core/analysis/breakdown.h"

#include <QString>
#include <QStringList>

#include <array>

class QBarCategoryAxis;
class QBarSet;
class QGraphicsSimpleTextItem;
class QHorizontalStackedBarSeries;
class QValueAxis;

namespace memwall::ui {

class Callout;

/// Pure helpers of the breakdown chart (no Qt Charts types; tested in tests/ui/tst_breakdownchart.cpp).
namespace breakdownmath {

/// "61.0 %", "0.17 %", "< 0.01 %", "0 %": a share (0..1) as a percentage with enough digits to tell small ones apart.
QString percent(double share);
/// Legend entry: "Tensor contractions: 99.8 % of FLOPs, 61.0 % of time".
QString legendLabel(core::ShareClass c, double flopShare, double timeShare);
/// Whether a segment `share` (0..1) of a bar `barPixels` wide has room for its in-bar label `labelPixels` wide.
bool labelFits(double share, double barPixels, double labelPixels);

} // namespace breakdownmath

/// Share of FLOPs vs share of time by operator class — tensor contractions (matmuls + attention's batched matmuls),
/// normalisation (LayerNorm/RMSNorm, softmax), element-wise, communication — as two horizontal 100 % stacked bars
/// with percentage labels: the "99.8 % of FLOPs but 61 % of the runtime" lesson (Ivanov et al., MLSys 2021).
/// Toggling fused attention in the document moves time between the classes (the score matrix round trip).
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

public slots:
    void refresh() override;

protected:
    void restyle() override;

private:
    void placeLabels();
    void layoutOverlay(); ///< title and legend labels that fit, in-bar labels, callout
    QStringList titles() const;

    core::ClassShares m_shares;
    QHorizontalStackedBarSeries *m_series = nullptr;
    std::array<QBarSet *, core::kShareClassCount> m_sets{};
    std::array<QGraphicsSimpleTextItem *, 2 * core::kShareClassCount> m_labels{};
    QBarCategoryAxis *m_categories = nullptr;
    QValueAxis *m_percent = nullptr;
    Callout *m_callout = nullptr;
};

} // namespace memwall::ui
