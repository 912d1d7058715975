#pragma once

#include "ui/charts/chartbase.h"

#include "core/hardware/hardwarespec.h"
#include "core/trends/trends.h"

#include <QPointF>
#include <QString>

#include <memory>
#include <vector>

class QAction;
class QActionGroup;
class QMenu;
class QLineSeries;
class QScatterSeries;
class QValueAxis;
class QLogValueAxis;

namespace memwall::ui {

class Callout;

/// Pure arithmetic of the trends chart (no Qt Charts types; tested in tests/ui/tst_trendschart.cpp).
namespace trendsmath {

/// "Peak FLOPS ×3.0 / 2 yrs": one decimal below 10x, whole numbers above ("Model size ×413 / 2 yrs").
QString growthLabel(const QString &name, double factorPer2Years);
/// The year a series is normalised at: the base year, or the series' first year if it starts later (a model-size
/// series beginning in 2018 is shown relative to 2018, not extrapolated back to 2003).
double referenceYear(const core::TrendSeries &series, double baseYear);
/// What every value of the series is divided by: its fitted value at referenceYear() (so every fitted curve passes
/// through 1 at its reference year and the curves fan out at their growth rates). Unfitted series: their first point
/// at or after the reference year (else the last point).
double normalisationDivisor(const core::TrendSeries &series, const core::GrowthFit *fit, double baseYear);
/// Points of the fitted curve from `fromYear` to `toYear`, normalised by `divisor` (an exponential is a straight
/// line on the log axis, so a few points suffice).
std::vector<QPointF> fitCurve(const core::GrowthFit &fit, double fromYear, double toYear, double divisor,
                              int steps = 8);
/// The peak the device marker uses on the (mixed-precision) FLOPS series: FP16, else BF16, else FP32, else the
/// largest peak the device has; 0 if none. `dtype` receives the format used.
double devicePeak(const core::HardwareSpec &hw, core::DType *dtype = nullptr);
/// The year-axis range: whole years around all points, with one year of margin.
std::pair<double, double> yearRange(double minYear, double maxYear);

} // namespace trendsmath

/// Hardware trends (Gholami et al., "AI and Memory Wall", 2024, figure 1): peak FLOPS, DRAM bandwidth and
/// interconnect bandwidth over the years, each normalised to its fitted value at a base year (default 2003, when the
/// DRAM and interconnect data begin, so the three curves start together at 1 and fan out at ×3.0, ×1.6 and ×1.4 per
/// two years), on a log axis; fitted curves labelled with their growth per two years. Transformer model size (×410)
/// and training compute (×750) can be added (off by default: they start in 2018 and are shown relative to their own
/// first year). The current device is marked on the FLOPS series by its year and peak (FP16 where it has one — the
/// series itself mixes FP32 and FP16/BF16 tensor peaks, as the tooltips say). Hovering a marker names it.
class TrendsChart : public ChartBase
{
    Q_OBJECT
public:
    explicit TrendsChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~TrendsChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;
    /// "Base year" submenu (kBaseYearChoices), "Show model size", "Show training compute".
    QList<QAction *> optionActions() override;

    static constexpr int kDefaultBaseYear = 2003;
    /// The base years offered in the context menu: the first FLOPS point, the paper's 2003, and later years.
    static constexpr int kBaseYearChoices[] = {1997, 2003, 2008, 2012, 2016};
    static constexpr int kMinBaseYear = 1995;
    static constexpr int kMaxBaseYear = 2022;

    int baseYear() const { return m_baseYear; }
    /// Normalise every series to this year (clamped to [kMinBaseYear, kMaxBaseYear]).
    void setBaseYear(int year);
    bool showModelSize() const { return m_showModelSize; }
    void setShowModelSize(bool on);
    bool showTrainingCompute() const { return m_showTrainingCompute; }
    void setShowTrainingCompute(bool on);

    /// Legend labels of the fitted curves, in order (hardware series, then the optional ones that are shown).
    QStringList fitLabels() const;
    /// Plotted (normalised) points of a series by id, empty if unknown or hidden.
    QList<QPointF> plottedPoints(const QString &seriesId) const;
    /// Where the device marker is drawn (year, normalised peak); null point if hidden.
    QPointF deviceMarker() const;

public slots:
    void refresh() override;

signals:
    void baseYearChanged(int year);

protected:
    void restyle() override;

private:
    struct Track
    {
        const core::TrendSeries *series = nullptr;
        core::GrowthFit fit;
        bool hasFit = false;
        bool optional = false;
        QString shortName;
        QString titleName;
        int colour = 0;
        double divisor = 1;
        QScatterSeries *points = nullptr;
        QLineSeries *curve = nullptr;
    };

    void rebuildValues();                 ///< normalisation, curves, ranges: replace() in place
    void layoutOverlay();                 ///< title that fits, legend inside the plot, callout
    void placeLegend(const QRectF &area); ///< the detached legend in the plot's top-left corner, sized to its entries
    QStringList titles() const;           ///< full title first, then shorter fallbacks
    QStringList xTitles() const;          ///< the year axis' title, then shorter ones for narrow plots
    void updateDevice();
    void showCallout(const Track &t, const QPointF &point, bool state);
    bool trackVisible(const Track &t) const;
    void syncOptions(); ///< check marks of the option actions follow the state

    QList<QAction *> m_options;
    std::unique_ptr<QMenu> m_baseYearMenu;
    QActionGroup *m_baseYearGroup = nullptr;
    QAction *m_modelSizeAction = nullptr;
    QAction *m_trainingAction = nullptr;

    core::TrendData m_data;
    std::vector<Track> m_tracks;
    QScatterSeries *m_device = nullptr;
    QValueAxis *m_x = nullptr;
    QLogValueAxis *m_y = nullptr;
    Callout *m_callout = nullptr;
    int m_baseYear = kDefaultBaseYear;
    bool m_showModelSize = false;
    bool m_showTrainingCompute = false;
    QString m_deviceText;
};

} // namespace memwall::ui
