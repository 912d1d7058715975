#pragma once

#include "ui/charts/chartbase.h"

#include "core/scaling/scaling.h"

#include <QPointF>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QActionGroup;
class QMenu;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace memwall::ui {

class Callout;

/// Pure helpers of the scaling chart (no Qt Charts types; tested in tests/ui/tst_scalingchart.cpp).
namespace scalingmath {

/// Device counts on the x axis: 1, 2, 4, ... `maxDevices`.
std::vector<int> deviceCounts(int maxDevices = 64);
/// The serial fraction the chart uses: `explicitFraction` if set (clamped to [0, 1]); else the scenario's measured
/// communication share when it splits the model (tp x pp > 1) and that share is > 0; else `fallback` (5 %).
double effectiveSerialFraction(std::optional<double> explicitFraction, const core::Analysis &a, const core::Scenario &s,
                               double fallback = 0.05);
} // namespace scalingmath

/// Scaling laws against device count (1…64, log2 x): Amdahl's and Gustafson's speedup (left axis, log2) at a serial
/// fraction, the ideal linear speedup, and the scenario's own tensor-parallel (or pipeline) scaling from
/// core::scenarioScaling — points only where the split divides the model — with its efficiency and its communication
/// share of the step time (right axis, %). Six series, each with its own colour and dash pattern; the laws'
/// efficiencies are not drawn (on the log-log plot a law's efficiency is its gap below the ideal line; the tooltip,
/// CSV and JSON still give them). The serial fraction defaults to the scenario's measured communication share when it
/// is split over devices, else 5 % (Végh: "How deep the machine learning can be"). The title names the model, the
/// phase and the device; both axes are padded so that no marker sits on the frame.
class ScalingChart : public ChartBase
{
    Q_OBJECT
public:
    explicit ScalingChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~ScalingChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;
    /// "Serial fraction" submenu (the scenario's communication share, or kFractionChoices), then "Tensor parallel" /
    /// "Pipeline parallel".
    QList<QAction *> optionActions() override;

    static constexpr int kMaxDevices = 64;
    /// Explicit serial fractions offered in the context menu.
    static constexpr double kFractionChoices[] = {0.01, 0.05, 0.10, 0.25};

    /// The serial fraction used for Amdahl and Gustafson (explicit, or the automatic default).
    double serialFraction() const { return m_fraction; }
    bool serialFractionIsAutomatic() const { return !m_explicitFraction.has_value(); }
    /// Sets Amdahl's/Gustafson's serial fraction (0..1); std::nullopt returns to the automatic default.
    void setSerialFraction(std::optional<double> fraction);
    core::ParallelKind parallelKind() const { return m_kind; }
    void setParallelKind(core::ParallelKind kind);

    /// The scenario's own scaling points currently plotted.
    const std::vector<core::ScalingPoint> &scenarioPoints() const { return m_points; }
    QList<QPointF> amdahlSpeedupPoints() const;
    QList<QPointF> gustafsonSpeedupPoints() const;
    QList<QPointF> scenarioSpeedupPoints() const;
    QList<QPointF> commSharePoints() const;          ///< (devices, %)
    QList<QPointF> scenarioEfficiencyPoints() const; ///< (devices, %)
    /// The range of the percent axis: 0..100 and a margin, so that 0 % and 100 % markers clear the frame.
    static constexpr double kPercentMin = -6, kPercentMax = 106;

public slots:
    void refresh() override;

protected:
    void restyle() override;

private:
    void showCallout(const QPointF &point, bool state);
    void layoutOverlay(); ///< title that fits, legend placement, callout
    QStringList titles() const;
    QString scenarioName() const; ///< "Llama 2 7B decode on H100 SXM5 80GB"
    void syncOptions();           ///< check marks of the option actions follow the state

    QList<QAction *> m_options;
    std::unique_ptr<QMenu> m_fractionMenu;
    QActionGroup *m_fractionGroup = nullptr;
    QAction *m_autoFraction = nullptr;
    QAction *m_tensorAction = nullptr;
    QAction *m_pipelineAction = nullptr;

    std::optional<double> m_explicitFraction;
    double m_fraction = 0.05;
    core::ParallelKind m_kind = core::ParallelKind::Tensor;
    std::vector<core::ScalingPoint> m_points;
    QLogValueAxis *m_x = nullptr;
    QLogValueAxis *m_speedup = nullptr;
    QValueAxis *m_percent = nullptr;
    QLineSeries *m_ideal = nullptr;
    QLineSeries *m_amdahl = nullptr;
    QLineSeries *m_gustafson = nullptr;
    QLineSeries *m_scenario = nullptr;
    QLineSeries *m_scenarioEff = nullptr;
    QScatterSeries *m_comm = nullptr;
    Callout *m_callout = nullptr;
};

} // namespace memwall::ui
