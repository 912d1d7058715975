#pragma once

#include "ui/charts/chartbase.h"

#include "core/hardware/hardwarespec.h"
#include "core/trends/refit.h"
#include "core/trends/trends.h"

#include <QList>
#include <QPair>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QGraphicsLineItem;
class QGraphicsSimpleTextItem;
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
/// A span of years as a legend names it: "2023–25", "2023" (one year), "1999–2001" (across centuries).
QString yearSpan(int firstYear, int lastYear);
/// How many forms refitLegend() has.
constexpr int kRefitLegendForms = 4;
/// The legend entries of a paper fit and its refit in form `form`, the longest first (the chart takes the longest that
/// keeps its legend off the data):
///   0: "Peak FLOPS ×3.0 / 2 yrs" and "Peak FLOPS refit with 2023–25 devices ×2.9 / 2 yrs";
///   1: the same and "Refit with 2023–25 devices ×2.9 / 2 yrs"; 2: the same and "Refit with 2023–25 ×2.9 / 2 yrs"
///      (the refit's entry has the diamond in the series' colour, and follows the fit's);
///   3: one entry, "Peak FLOPS ×3.0 / 2 yrs, refit ×2.9", and no second.
QPair<QString, QString> refitLegend(const QString &name, double fitFactor, int firstYear, int lastYear,
                                    double refitFactor, int form);
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
/// How many times more series A grew than series B, as plotted at `year`: each normalised fitted curve is its growth
/// since its own reference year (referenceYear()), so this is (fitA(year) / divisorA) / (fitB(year) / divisorB).
/// With both normalised at one year Y it is (A's factor per 2 years / B's)^((year − Y) / 2): 3.03 / 1.59 per two
/// years from 2003 to 2022 compound to some 500.
double gapFactor(const core::GrowthFit &a, double divisorA, const core::GrowthFit &b, double divisorB, double year);
/// The gap's annotation: "compute grew ×578 more\nthan DRAM bandwidth since 2003"; with different reference years
/// "compute since 1997 grew ×N more\nthan DRAM bandwidth since 2003".
QString gapLabel(double factor, int fromYearA, int fromYearB);

} // namespace trendsmath

/// Hardware trends (Gholami et al., "AI and Memory Wall", 2024, figure 1): peak FLOPS, DRAM bandwidth and
/// interconnect bandwidth over the years, each normalised to its fitted value at a base year (default 2003, when the
/// DRAM and interconnect data begin, so the three curves start together at 1 and fan out at ×3.0, ×1.6 and ×1.4 per
/// two years), on a log axis; fitted curves labelled with their growth per two years. Transformer model size (×410)
/// and training compute (×750) can be added (off by default: they start in 2018 and are shown relative to their own
/// first year). The current device is marked on every series it has a value for: on the FLOPS series by its peak
/// (FP16 where it has one — the series itself mixes FP32 and FP16/BF16 tensor peaks, as the tooltips say) and on the
/// DRAM series by its main memory's bandwidth (when that memory is DRAM). A bracket at the last year both hardware
/// series reach spans the gap between the fitted compute and DRAM curves, labelled with how many times more compute
/// grew (gapFactor(), from the fits). The points the paper's figure names are named; hovering a marker names any.
/// The built-in devices after the paper's data (core::devicesAfterPaper(): the HBM GPUs and ASICs of 2023-25) are
/// drawn as hollow diamonds on the FLOPS and DRAM series, with a dashed refit over the paper's points and them
/// (core::refit()) beside each of the paper's fits; the paper's fits, the title and the gap stay the paper's.
class TrendsChart : public ChartBase
{
    Q_OBJECT
public:
    explicit TrendsChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~TrendsChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;
    /// "Base year" submenu (kBaseYearChoices), "Show model size", "Show training compute", "Show 2023–25 devices
    /// and refit".
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
    bool showAddedDevices() const { return m_showAdded; }
    /// Draws the devices MemWall adds after the paper's data, and the refits with them (on by default). View state,
    /// as the other options: not in the document, not undoable.
    void setShowAddedDevices(bool on);

    /// Legend labels of the fitted curves, in order (hardware series, then the optional ones that are shown).
    QStringList fitLabels() const;
    /// Plotted (normalised) points of a series by id, empty if unknown or hidden.
    QList<QPointF> plottedPoints(const QString &seriesId) const;
    /// Where the device marker is drawn on the FLOPS series (year, normalised peak); null point if hidden.
    QPointF deviceMarker() const;
    /// Every device marker: the id of the series it sits on, and its point (year, normalised value).
    QList<QPair<QString, QPointF>> deviceMarkers() const;
    /// The gap bracket's two ends (year, normalised DRAM fit) and (year, normalised FLOPS fit); empty if hidden.
    QList<QPointF> gapBracket() const;
    /// The gap annotation's text, empty if hidden.
    QString gapText() const;
    /// The point names shown now, with their rectangles in chart coordinates.
    QList<QPair<QString, QRectF>> visibleLabels() const;
    /// The device star series (for mapping its points).
    QScatterSeries *deviceSeries() const { return m_device; }
    /// The devices added to a series (core::devicesAfterPaper()), whether shown or not; empty for other series.
    std::vector<core::AddedDevice> addedDevices(const QString &seriesId) const;
    /// The series drawing a track's added devices, and the one drawing its refit: nullptr for a series without them.
    QScatterSeries *addedSeries(const QString &seriesId) const;
    QLineSeries *refitSeries(const QString &seriesId) const;
    /// The refit of a series with its added devices; nullopt for a series without them.
    std::optional<core::GrowthFit> refitOf(const QString &seriesId) const;
    /// The gap bracket's tooltip (it measures the paper's fits, not the refits).
    QString gapToolTip() const;

public slots:
    void refresh() override;

signals:
    void baseYearChanged(int year);

protected:
    /// Refreshes only when the device changed: nothing else of the document is drawn here, and a slider tick would
    /// otherwise lay out the legend, the names and the gap again for the same picture.
    void documentChanged() override;
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
        std::vector<core::AddedDevice> added;  ///< devices after the paper's data (FLOPS and DRAM only)
        core::GrowthFit refit;                 ///< over the paper's in-fit points and `added`
        QScatterSeries *addedPoints = nullptr; ///< null without added devices
        QLineSeries *refitCurve = nullptr;     ///< null without added devices
        QPair<int, int> addedYears;            ///< first and last release year of `added`
    };

    void rebuildValues(); ///< normalisation, curves, ranges: replace() in place
    void layoutOverlay(); ///< title that fits, legend inside the plot, gap label, point names, callout
    void updateGap();     ///< the bracket between the fitted FLOPS and DRAM curves at their last common year
    void placeNames(const QRectF &area, const QRectF &legend);
    /// Where the visible markers and curves are painted (chart coordinates): what no text or legend may cover.
    std::vector<QRectF> plottedRects() const;
    const Track *track(const char *id) const;
    QStringList titles() const;  ///< full title first, then shorter fallbacks
    QStringList xTitles() const; ///< the year axis' title, then shorter ones for narrow plots
    void updateDevice();
    void showCallout(const Track &t, const QPointF &point, bool state);
    void showAddedCallout(const Track &t, const QPointF &point, bool state);
    bool addedVisible(const Track &t) const; ///< its added devices and refit are drawn
    bool trackVisible(const Track &t) const;
    void syncOptions(); ///< check marks of the option actions follow the state

    QList<QAction *> m_options;
    std::unique_ptr<QMenu> m_baseYearMenu;
    QActionGroup *m_baseYearGroup = nullptr;
    QAction *m_modelSizeAction = nullptr;
    QAction *m_trainingAction = nullptr;
    QAction *m_addedAction = nullptr;

    core::TrendData m_data;
    std::vector<Track> m_tracks;
    QString m_addedYears; ///< "2023–25": the years of the added devices
    QScatterSeries *m_device = nullptr;
    QStringList m_deviceSeries; ///< the series id each device marker sits on
    QStringList m_deviceTexts;  ///< its tooltip
    QString m_drawnDevice;      ///< deviceKey() of the device the last refresh() drew
    QLineSeries *m_gap = nullptr;
    QGraphicsSimpleTextItem *m_gapLabel = nullptr;
    QGraphicsLineItem *m_gapLeader = nullptr; ///< from the gap's label to its bracket, when it could not sit beside it
    std::vector<QGraphicsSimpleTextItem *> m_names; ///< the named points' labels, made as needed
    QValueAxis *m_x = nullptr;
    QLogValueAxis *m_y = nullptr;
    Callout *m_callout = nullptr;
    int m_baseYear = kDefaultBaseYear;
    bool m_showModelSize = false;
    bool m_showTrainingCompute = false;
    bool m_showAdded = true;
};

} // namespace memwall::ui
