#include "ui/charts/trendschart.h"

#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/charts/plotlabels.h"
#include "ui/charts/rooflinemath.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include "core/trends/ridge.h"

#include <QAction>
#include <QActionGroup>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace memwall::ui {

using namespace memwall::core;

// ---------------------------------------------------------------------------------------------------------------
namespace trendsmath {

namespace {

/// A growth factor as the legend prints it: one decimal below 10x, whole numbers above.
QString factorText(double factor) { return formatFixed(factor, factor < 10 ? 1 : 0); }

} // namespace

QString growthLabel(const QString &name, double factor)
{
    return QStringLiteral("%1 ×%2 / 2 yrs").arg(name, factorText(factor));
}

QString yearSpan(int firstYear, int lastYear)
{
    if (firstYear == lastYear)
        return QString::number(firstYear);
    if (firstYear / 100 == lastYear / 100)
        return QStringLiteral("%1–%2").arg(firstYear).arg(lastYear % 100, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1–%2").arg(firstYear).arg(lastYear);
}

QPair<QString, QString> refitLegend(const QString &name, double fitFactor, int firstYear, int lastYear,
                                    double refitFactor, int form)
{
    const QString fit = growthLabel(name, fitFactor), years = yearSpan(firstYear, lastYear);
    switch (form) {
    case 0: return {fit, growthLabel(QObject::tr("%1 refit with %2 devices").arg(name, years), refitFactor)};
    case 1: return {fit, growthLabel(QObject::tr("Refit with %1 devices").arg(years), refitFactor)};
    case 2: return {fit, growthLabel(QObject::tr("Refit with %1").arg(years), refitFactor)};
    default: return {QObject::tr("%1, refit ×%2").arg(fit, factorText(refitFactor)), QString()};
    }
}

double referenceYear(const TrendSeries &series, double baseYear)
{
    if (series.points.empty())
        return baseYear;
    double first = series.points.front().year;
    for (const auto &p : series.points)
        first = std::min(first, p.year);
    return std::max(baseYear, first);
}

double normalisationDivisor(const TrendSeries &series, const GrowthFit *fit, double baseYear)
{
    const double ref = referenceYear(series, baseYear);
    if (fit) {
        const double v = fit->at(ref);
        if (v > 0 && std::isfinite(v))
            return v;
    }
    for (const auto &p : series.points)
        if (p.year >= ref && p.value > 0)
            return p.value;
    return !series.points.empty() && series.points.back().value > 0 ? series.points.back().value : 1.0;
}

std::vector<QPointF> fitCurve(const GrowthFit &fit, double fromYear, double toYear, double divisor, int steps)
{
    std::vector<QPointF> pts;
    steps = std::max(1, steps);
    if (!(divisor > 0))
        return pts;
    pts.reserve(static_cast<std::size_t>(steps) + 1);
    for (int i = 0; i <= steps; ++i) {
        const double year = fromYear + (toYear - fromYear) * i / steps;
        pts.emplace_back(year, fit.at(year) / divisor);
    }
    return pts;
}

double devicePeak(const HardwareSpec &hw, DType *dtype)
{
    for (DType t : {DType::FP16, DType::BF16, DType::FP32}) {
        if (hw.supports(t)) {
            if (dtype)
                *dtype = t;
            return hw.peak(t);
        }
    }
    double best = 0;
    for (DType t : kAllDTypes) {
        if (hw.peak(t) > best) {
            best = hw.peak(t);
            if (dtype)
                *dtype = t;
        }
    }
    return best;
}

std::pair<double, double> yearRange(double minYear, double maxYear)
{
    if (!(minYear <= maxYear))
        return {2000, 2025};
    return {std::floor(minYear) - 1, std::ceil(maxYear) + 1};
}

double gapFactor(const GrowthFit &a, double divisorA, const GrowthFit &b, double divisorB, double year)
{
    return (a.at(year) / divisorA) / (b.at(year) / divisorB);
}

QString gapLabel(double factor, int fromYearA, int fromYearB)
{
    const QString f = factor >= 100 ? formatFixed(factor, 0) : formatSiNumber(factor, 2);
    if (fromYearA == fromYearB)
        return QObject::tr("compute grew ×%1 more\nthan DRAM bandwidth since %2").arg(f).arg(fromYearA);
    return QObject::tr("compute since %1 grew ×%2 more\nthan DRAM bandwidth since %3")
        .arg(fromYearA)
        .arg(f)
        .arg(fromYearB);
}

} // namespace trendsmath

// ---------------------------------------------------------------------------------------------------------------
namespace {

struct TrackDef
{
    const char *id;
    const char *shortName;
    const char *titleName; ///< as the title names it
    int colour;
    bool optional;
};

// Hardware first (the paper's 3.0x / 1.6x / 1.4x), then the optional model-side series.
constexpr TrackDef kTracks[] = {
    {"hw_peak_flops", "Peak FLOPS", "compute", 0, false},
    {"dram_bandwidth", "DRAM BW", "memory", 1, false},
    {"interconnect_bandwidth", "Interconnect", "interconnect", 2, false},
    {"transformer_params", "Model size", "model size", 3, true},
    {"training_compute", "Training compute", "training compute", 7, true}, // 5 is the accent (device star)
};

QString valueText(double v, const std::string &unit)
{
    if (unit == "parameters")
        return formatSiNumber(v) + QStringLiteral(" parameters");
    if (unit == "bit/s per lane")
        return formatSi(v, "bit/s") + QStringLiteral(" per lane");
    return formatSi(v, unit);
}

QString ratioText(double r)
{
    // "24 k", "0.0012": two significant digits far from 1, three near it
    return formatSiNumber(r, r >= 1000 || r < 0.01 ? 2 : 3);
}

constexpr const char *kAddedNote = "added by MemWall from its presets, not in the paper";
/// The added devices' diamonds, before the theme's marker scale: a little larger than the paper's dots (7), so that
/// the hollow shape reads as different.
constexpr qreal kAddedMarkerSize = 10;

constexpr const char *kMixedPrecisionNote =
    "Peak FLOPS mixes precisions: FP32 for older CPUs/GPUs,\nFP16/BF16 tensor peaks for P100…H100 and the TPUs";

} // namespace

// Long because the constructor only creates and wires what the chart draws (axes, one track of
// series per trend, the gap marker, the base-year and fit menus, hover connections), each a few lines, in the
// z-order they are painted; split, the order would be spread over several functions.
TrendsChart::TrendsChart(ScenarioDocument *doc, QObject *parent) : ChartBase(doc, parent)
{
    m_data = loadBuiltinTrends();

    m_x = new QValueAxis;
    m_x->setTitleText(xTitles().first());
    m_x->setLabelFormat(QStringLiteral("%d"));
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(2000);
    m_x->setTickInterval(5);
    m_y = new QLogValueAxis;
    m_y->setBase(10);
    m_y->setLabelFormat(QStringLiteral("%.10g")); // "1000000", not "%g"'s "1e+06"
    m_y->setMinorTickCount(-1);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);

    for (const TrackDef &def : kTracks) {
        const TrendSeries *s = m_data.find(def.id);
        if (!s || s->points.empty())
            continue;
        Track t;
        t.series = s;
        t.optional = def.optional;
        t.shortName = tr(def.shortName);
        t.titleName = tr(def.titleName);
        t.colour = def.colour;
        try {
            t.fit = fitExponential(s->points);
            t.hasFit = true;
        } catch (const std::invalid_argument &) {
            t.hasFit = false;
        }
        t.points = new QScatterSeries;
        t.points->setName(t.shortName);
        t.points->setMarkerShape(QScatterSeries::MarkerShapeCircle);
        t.curve = new QLineSeries;
        t.curve->setName(t.hasFit ? trendsmath::growthLabel(t.shortName, t.fit.factorPer2Years) : t.shortName);
        if (t.hasFit)
            t.added = devicesAfterPaper(*s, builtinRefitDevices());
        if (!t.added.empty()) {
            t.refit = core::refit(*s, t.added);
            const int first = static_cast<int>(std::floor(t.added.front().point.year));
            const int last = static_cast<int>(std::floor(t.added.back().point.year));
            m_addedYears = trendsmath::yearSpan(first, last);
            t.addedYears = {first, last};
            const QString name =
                trendsmath::refitLegend(t.shortName, t.fit.factorPer2Years, first, last, t.refit.factorPer2Years, 0)
                    .second;
            t.refitCurve = new QLineSeries;
            t.refitCurve->setName(name);
            t.addedPoints = new QScatterSeries;
            t.addedPoints->setName(name);
            t.addedPoints->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
        }
        // Legend order: each paper fit, then its refit; markers above the curves.
        for (QAbstractSeries *ser :
             {static_cast<QAbstractSeries *>(t.curve), static_cast<QAbstractSeries *>(t.refitCurve),
              static_cast<QAbstractSeries *>(t.points), static_cast<QAbstractSeries *>(t.addedPoints)}) {
            if (!ser)
                continue;
            m_chart->addSeries(ser);
            ser->attachAxis(m_x);
            ser->attachAxis(m_y);
        }
        setLegendVisible(t.points, false);
        if (t.addedPoints) {
            // One legend entry for the refit and its devices: the label of the refit beside a diamond, so that the
            // legend stays small enough for the plot's empty corner.
            setLegendVisible(t.refitCurve, false);
            if (QLegendMarker *m = m_chart->legend()->markers(t.addedPoints).value(0))
                m->setShape(QLegend::MarkerShapeFromSeries);
        }
        m_tracks.push_back(t);
    }
    // Connect after the vector is final (the lambdas look tracks up by index).
    for (const Track &track : m_tracks) {
        connect(track.points, &QScatterSeries::hovered, this,
                [this, &track](const QPointF &p, bool state) { showCallout(track, p, state); });
        if (!track.addedPoints)
            continue;
        connect(track.addedPoints, &QScatterSeries::hovered, this,
                [this, &track](const QPointF &p, bool state) { showAddedCallout(track, p, state); });
        connect(track.refitCurve, &QLineSeries::hovered, this, [this, &track](const QPointF &p, bool state) {
            if (!state) {
                m_callout->hide();
                return;
            }
            int fitted = 0;
            for (const TrendPoint &tp : track.series->points)
                fitted += tp.inFit ? 1 : 0;
            m_callout->setText(
                tr("%1\nleast squares over the paper's %2 points and %3 devices added by MemWall (r² %4);\nthe "
                   "paper's own fit: ×%5 / 2 yrs")
                    .arg(track.refitCurve->name())
                    .arg(fitted)
                    .arg(track.added.size())
                    .arg(formatFixed(track.refit.r2, 3), formatFixed(track.fit.factorPer2Years, 2)));
            m_callout->setAnchor(QPointF(p.x(), track.refit.at(p.x()) / track.divisor), track.refitCurve);
            m_callout->show();
        });
    }

    m_gap = new QLineSeries;
    m_gap->setName(tr("Gap"));
    m_chart->addSeries(m_gap);
    m_gap->attachAxis(m_x);
    m_gap->attachAxis(m_y);
    setLegendVisible(m_gap, false);
    m_gapLabel = addLabel();
    m_gapLabel->setToolTip(gapToolTip());
    connect(m_gap, &QLineSeries::hovered, this, [this](const QPointF &p, bool state) {
        if (!state) {
            m_callout->hide();
            return;
        }
        m_callout->setText(m_gapLabel->text() + QStringLiteral("\n") + gapToolTip());
        m_callout->setAnchor(p, m_gap);
        m_callout->show();
    });
    m_gapLeader = new QGraphicsLineItem(m_chart);
    m_gapLeader->setZValue(19);
    m_gapLeader->setVisible(false);

    m_device = new QScatterSeries;
    m_device->setMarkerShape(QScatterSeries::MarkerShapeStar);
    m_chart->addSeries(m_device);
    m_device->attachAxis(m_x);
    m_device->attachAxis(m_y);
    connect(m_device, &QScatterSeries::hovered, this, [this](const QPointF &p, bool state) {
        if (!state) {
            m_callout->hide();
            return;
        }
        int best = 0;
        for (int i = 1; i < m_device->count(); ++i)
            if (std::abs(std::log10(m_device->at(i).y() / p.y())) <
                std::abs(std::log10(m_device->at(best).y() / p.y())))
                best = i;
        if (best >= m_deviceTexts.size())
            return;
        m_callout->setText(m_deviceTexts[best]);
        m_callout->setAnchor(m_device->at(best), m_device);
        m_callout->show();
    });

    m_callout = new Callout(m_chart);
    // The legend sits inside the plot's top-left corner, which growth curves never reach (they rise to the right),
    // so it takes no width from the plot at any size. layoutOverlay() places it.
    m_chart->legend()->setShowToolTips(true);
    m_chart->legend()->setAlignment(Qt::AlignLeft); // one entry per line
    m_chart->legend()->detachFromChart();
    m_chart->legend()->setBackgroundVisible(true);
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { layoutOverlay(); });

    rebuildValues();
    setTheme(theme());
    refresh();
}

TrendsChart::~TrendsChart() = default;

QString TrendsChart::title() const
{
    QStringList parts;
    for (const Track &t : m_tracks)
        if (!t.optional && t.hasFit)
            parts << QStringLiteral("%1 ×%2").arg(t.titleName, formatFixed(t.fit.factorPer2Years, 1));
    return tr("Hardware trends: %1 every 2 years (relative to %2)")
        .arg(parts.join(QStringLiteral(", ")))
        .arg(m_baseYear);
}

bool TrendsChart::trackVisible(const Track &t) const
{
    if (!t.optional)
        return true;
    if (t.series->id == "transformer_params")
        return m_showModelSize;
    if (t.series->id == "training_compute")
        return m_showTrainingCompute;
    return false;
}

void TrendsChart::setBaseYear(int year)
{
    year = std::clamp(year, kMinBaseYear, kMaxBaseYear);
    if (year == m_baseYear)
        return;
    m_baseYear = year;
    rebuildValues();
    refresh();
    syncOptions();
    emit baseYearChanged(year);
}

void TrendsChart::setShowModelSize(bool on)
{
    if (on == m_showModelSize)
        return;
    m_showModelSize = on;
    rebuildValues();
    refresh();
    syncOptions();
}

void TrendsChart::setShowTrainingCompute(bool on)
{
    if (on == m_showTrainingCompute)
        return;
    m_showTrainingCompute = on;
    rebuildValues();
    refresh();
    syncOptions();
}

void TrendsChart::setShowAddedDevices(bool on)
{
    if (on == m_showAdded)
        return;
    m_showAdded = on;
    rebuildValues();
    refresh();
    syncOptions();
}

bool TrendsChart::addedVisible(const Track &t) const { return m_showAdded && t.addedPoints && trackVisible(t); }

QList<QAction *> TrendsChart::optionActions()
{
    if (!m_options.isEmpty())
        return m_options;
    m_baseYearMenu = std::make_unique<QMenu>(tr("&Base year"));
    m_baseYearMenu->setToolTipsVisible(true);
    m_baseYearMenu->menuAction()->setObjectName(QStringLiteral("option:baseYear"));
    m_baseYearMenu->menuAction()->setToolTip(
        tr("The year every series is normalised to: its fitted curve passes through 1 there (a series that starts "
           "later is normalised to its own first year)"));
    m_baseYearGroup = new QActionGroup(this);
    m_baseYearGroup->setExclusionPolicy(QActionGroup::ExclusionPolicy::Exclusive);
    for (int year : kBaseYearChoices) {
        auto *a =
            new QAction(year == kDefaultBaseYear ? tr("%1 (as in the paper)").arg(year) : QString::number(year), this);
        a->setObjectName(QStringLiteral("option:baseYear:%1").arg(year));
        a->setCheckable(true);
        a->setToolTip(tr("Show every series relative to its fitted value in %1").arg(year));
        a->setActionGroup(m_baseYearGroup);
        connect(a, &QAction::triggered, this, [this, year] { setBaseYear(year); });
        m_baseYearMenu->addAction(a);
    }
    auto factorText = [this](const char *id) {
        for (const Track &t : m_tracks)
            if (t.series->id == id && t.hasFit)
                return trendsmath::growthLabel(QString(), t.fit.factorPer2Years).trimmed();
        return QString();
    };
    const QString modelFactor = factorText("transformer_params");
    const QString trainingFactor = factorText("training_compute");
    m_modelSizeAction = new QAction(
        modelFactor.isEmpty() ? tr("Show &model size") : tr("Show &model size (%1)").arg(modelFactor), this);
    m_modelSizeAction->setObjectName(QStringLiteral("option:showModelSize"));
    m_modelSizeAction->setCheckable(true);
    m_modelSizeAction->setToolTip(tr("Add the parameter count of transformer models (dashed), relative to its first "
                                     "year: models grow far faster than memory bandwidth"));
    connect(m_modelSizeAction, &QAction::triggered, this, [this](bool on) { setShowModelSize(on); });
    m_trainingAction = new QAction(trainingFactor.isEmpty() ? tr("Show &training compute")
                                                            : tr("Show &training compute (%1)").arg(trainingFactor),
                                   this);
    m_trainingAction->setObjectName(QStringLiteral("option:showTrainingCompute"));
    m_trainingAction->setCheckable(true);
    m_trainingAction->setToolTip(tr("Add the FLOPs needed to train transformer models (dashed), relative to its "
                                    "first year"));
    connect(m_trainingAction, &QAction::triggered, this, [this](bool on) { setShowTrainingCompute(on); });
    // The optional series exist only if the trend data has them.
    m_modelSizeAction->setEnabled(m_data.find("transformer_params") != nullptr);
    m_trainingAction->setEnabled(m_data.find("training_compute") != nullptr);
    m_addedAction = new QAction(tr("Show %1 &devices and refit").arg(m_addedYears), this);
    m_addedAction->setObjectName(QStringLiteral("option:showAddedDevices"));
    m_addedAction->setCheckable(true);
    m_addedAction->setToolTip(
        tr("Add the data-center GPUs and ASICs with HBM of %1 from MemWall's presets (hollow diamonds; not in the "
           "paper) to the FLOPS and DRAM series, and a dashed refit over the paper's points and them beside each "
           "of the paper's fits. The paper's fits, the title and the gap stay as published")
            .arg(m_addedYears));
    connect(m_addedAction, &QAction::triggered, this, [this](bool on) { setShowAddedDevices(on); });
    m_addedAction->setEnabled(!m_addedYears.isEmpty());
    m_options = {m_baseYearMenu->menuAction(), m_modelSizeAction, m_trainingAction, m_addedAction};
    syncOptions();
    return m_options;
}

void TrendsChart::syncOptions()
{
    if (m_options.isEmpty())
        return;
    for (QAction *a : m_baseYearGroup->actions())
        a->setChecked(a->objectName() == QStringLiteral("option:baseYear:%1").arg(m_baseYear));
    m_modelSizeAction->setChecked(m_showModelSize);
    m_trainingAction->setChecked(m_showTrainingCompute);
    m_addedAction->setChecked(m_showAdded);
}

QStringList TrendsChart::fitLabels() const
{
    QStringList labels;
    for (const Track &t : m_tracks)
        if (t.hasFit && trackVisible(t))
            labels << t.curve->name();
    return labels;
}

QList<QPointF> TrendsChart::plottedPoints(const QString &seriesId) const
{
    for (const Track &t : m_tracks)
        if (QString::fromStdString(t.series->id) == seriesId && trackVisible(t))
            return t.points->points();
    return {};
}

QPointF TrendsChart::deviceMarker() const
{
    const qsizetype i = m_deviceSeries.indexOf(QStringLiteral("hw_peak_flops"));
    return i >= 0 && i < m_device->count() ? m_device->at(static_cast<int>(i)) : QPointF();
}

QList<QPair<QString, QPointF>> TrendsChart::deviceMarkers() const
{
    QList<QPair<QString, QPointF>> out;
    for (int i = 0; i < m_device->count() && i < m_deviceSeries.size(); ++i)
        out.append({m_deviceSeries[i], m_device->at(i)});
    return out;
}

std::vector<AddedDevice> TrendsChart::addedDevices(const QString &seriesId) const
{
    for (const Track &t : m_tracks)
        if (QString::fromStdString(t.series->id) == seriesId)
            return t.added;
    return {};
}

QScatterSeries *TrendsChart::addedSeries(const QString &seriesId) const
{
    for (const Track &t : m_tracks)
        if (QString::fromStdString(t.series->id) == seriesId)
            return t.addedPoints;
    return nullptr;
}

QLineSeries *TrendsChart::refitSeries(const QString &seriesId) const
{
    for (const Track &t : m_tracks)
        if (QString::fromStdString(t.series->id) == seriesId)
            return t.refitCurve;
    return nullptr;
}

std::optional<GrowthFit> TrendsChart::refitOf(const QString &seriesId) const
{
    for (const Track &t : m_tracks)
        if (QString::fromStdString(t.series->id) == seriesId && t.refitCurve)
            return t.refit;
    return std::nullopt;
}

QString TrendsChart::gapToolTip() const
{
    return tr("Measured between the paper's fits (solid lines) at the last year both of its series reach; the "
              "dashed refits with the added devices do not move it");
}

QList<QPointF> TrendsChart::gapBracket() const { return m_gap->isVisible() ? m_gap->points() : QList<QPointF>(); }

QString TrendsChart::gapText() const { return m_gapLabel->isVisible() ? m_gapLabel->text() : QString(); }

QList<QPair<QString, QRectF>> TrendsChart::visibleLabels() const { return plotlabels::shownLabels(m_names); }

void TrendsChart::rebuildValues()
{
    for (Track &t : m_tracks) {
        const bool visible = trackVisible(t);
        t.points->setVisible(visible);
        t.curve->setVisible(visible);
        setLegendVisible(t.curve, visible);
        setLegendVisible(t.points, false); // the fitted curve's entry names the series
        t.divisor = trendsmath::normalisationDivisor(*t.series, t.hasFit ? &t.fit : nullptr, m_baseYear);
        QList<QPointF> pts;
        pts.reserve(static_cast<qsizetype>(t.series->points.size()));
        for (const auto &p : t.series->points)
            pts.append(QPointF(p.year, p.value / t.divisor));
        t.points->replace(pts);
        if (t.hasFit) {
            const double from = t.series->points.front().year, to = t.series->points.back().year;
            const auto curve = trendsmath::fitCurve(t.fit, from, to, t.divisor);
            t.curve->replace(QList<QPointF>(curve.begin(), curve.end()));
        }
        if (t.addedPoints) {
            // On the paper's scale (its divisor), so that a diamond compares with the paper's points and the refit
            // with the paper's fit; the refit runs from the series' first point to its last added device.
            const bool added = addedVisible(t);
            t.addedPoints->setVisible(added);
            t.refitCurve->setVisible(added);
            setLegendVisible(t.refitCurve, false);
            setLegendVisible(t.addedPoints, added); // layoutOverlay() may fold it into the fit's entry
            QList<QPointF> devices;
            for (const AddedDevice &d : t.added)
                devices.append(QPointF(d.point.year, d.point.value / t.divisor));
            t.addedPoints->replace(devices);
            const auto curve =
                trendsmath::fitCurve(t.refit, t.series->points.front().year, t.added.back().point.year, t.divisor);
            t.refitCurve->replace(QList<QPointF>(curve.begin(), curve.end()));
        }
    }
}

const TrendsChart::Track *TrendsChart::track(const char *id) const
{
    for (const Track &t : m_tracks)
        if (t.series->id == id)
            return &t;
    return nullptr;
}

void TrendsChart::updateDevice()
{
    const HardwareSpec &hw = document()->hardware();
    DType dt = DType::FP16;
    const double peak = trendsmath::devicePeak(hw, &dt);
    const Track *flops = track("hw_peak_flops");
    const Track *dram = track("dram_bandwidth");
    m_deviceSeries.clear();
    m_deviceTexts.clear();
    if (!(hw.year.value > 1900)) {
        m_device->clear();
        m_device->setName(QString());
        return;
    }
    const double year = markerYear(hw.year.value);
    const QString name = QString::fromStdString(hw.name);
    QList<QPointF> pts;
    if (flops && peak > 0) {
        pts.append(QPointF(year, peak / flops->divisor));
        m_deviceSeries << QStringLiteral("hw_peak_flops");
        m_deviceTexts << tr("%1 (this device)\n%2, %3 %4 dense peak\n%5× the fitted FLOPS of %6\n%7")
                             .arg(name)
                             .arg(static_cast<int>(hw.year.value))
                             .arg(formatSi(peak, "FLOP/s"))
                             .arg(QString::fromLatin1(toString(dt)).toUpper())
                             .arg(ratioText(pts.last().y()))
                             .arg(static_cast<int>(trendsmath::referenceYear(*flops->series, m_baseYear)))
                             .arg(tr(kMixedPrecisionNote));
    }
    // DRAM bandwidth only where main memory is DRAM: an on-chip SRAM figure is not a point of that series.
    const double bw = hw.memory.empty() ? 0.0 : hw.mainMemory().bandwidthBytesPerS.value;
    if (dram && bw > 0 && hw.mainMemory().kind == MemoryKind::Dram) {
        pts.append(QPointF(year, bw / dram->divisor));
        m_deviceSeries << QStringLiteral("dram_bandwidth");
        m_deviceTexts << tr("%1 (this device)\n%2, %3 main memory (%4)\n%5× the fitted DRAM bandwidth of %6")
                             .arg(name)
                             .arg(static_cast<int>(hw.year.value))
                             .arg(formatSi(bw, "B/s"), QString::fromStdString(hw.mainMemory().name))
                             .arg(ratioText(pts.last().y()))
                             .arg(static_cast<int>(trendsmath::referenceYear(*dram->series, m_baseYear)));
    }
    m_device->replace(pts);
    m_device->setName(pts.isEmpty() ? QString() : tr("%1 (this device)").arg(deviceNameWithoutVendor(hw)));
}

namespace {
/// What the trends chart draws of a device: its name, year, peak and main memory (a what-if scales the last two).
QString deviceKey(const HardwareSpec &hw)
{
    const double bw = hw.memory.empty() ? 0.0 : hw.mainMemory().bandwidthBytesPerS.value;
    const int kind = hw.memory.empty() ? -1 : static_cast<int>(hw.mainMemory().kind);
    return QStringLiteral("%1|%2|%3|%4|%5")
        .arg(QString::fromStdString(hw.name))
        .arg(csvNumber(hw.year.value), csvNumber(trendsmath::devicePeak(hw)), csvNumber(bw))
        .arg(kind);
}
} // namespace

void TrendsChart::documentChanged()
{
    if (deviceKey(document()->hardware()) != m_drawnDevice)
        refresh();
}

void TrendsChart::refresh()
{
    m_drawnDevice = deviceKey(document()->hardware());
    updateDevice();
    setLegendVisible(m_device, m_device->count() > 0);
    // Ranges: every visible point, curve and the device, in whole years and decades.
    double xmin = std::numeric_limits<double>::max(), xmax = std::numeric_limits<double>::lowest();
    double ymin = std::numeric_limits<double>::max(), ymax = 0;
    auto include = [&](const QPointF &p) {
        xmin = std::min(xmin, p.x());
        xmax = std::max(xmax, p.x());
        if (p.y() > 0) {
            ymin = std::min(ymin, p.y());
            ymax = std::max(ymax, p.y());
        }
    };
    for (const Track &t : m_tracks) {
        if (!trackVisible(t))
            continue;
        for (const QPointF &p : t.points->points())
            include(p);
        for (const QPointF &p : t.curve->points())
            include(p);
        if (addedVisible(t)) {
            for (const QPointF &p : t.addedPoints->points())
                include(p);
            for (const QPointF &p : t.refitCurve->points())
                include(p);
        }
    }
    for (const QPointF &p : m_device->points())
        include(p);
    updateGap();
    const auto [x0, x1] = trendsmath::yearRange(xmin, xmax);
    m_x->setRange(x0, x1);
    const auto yr = rooflinemath::decadeRange(ymin, ymax, 0.1);
    chartfit::setLogRange(m_y, yr.min, yr.max);
    m_y->setTitleText(tr("Growth since %1 (×)").arg(m_baseYear));
    layoutOverlay();
}

QStringList TrendsChart::xTitles() const
{
    return {tr("Year (FLOPS: FP32 before P100, FP16/BF16 tensor peaks after)"),
            tr("Year (FLOPS: FP32, later FP16/BF16)"), tr("Year")};
}

QStringList TrendsChart::titles() const
{
    QStringList parts, shortParts;
    for (const Track &t : m_tracks) {
        if (t.optional || !t.hasFit)
            continue;
        const QString f = formatFixed(t.fit.factorPer2Years, 1);
        parts << QStringLiteral("%1 ×%2").arg(t.titleName, f);
        shortParts << QStringLiteral("×%1").arg(f);
    }
    QString perTwo = tr("%1 per 2 years").arg(parts.join(QStringLiteral(", ")));
    if (!perTwo.isEmpty())
        perTwo[0] = perTwo[0].toUpper();
    return {title(), perTwo, tr("Compute vs memory vs links: %1").arg(shortParts.join(QStringLiteral(" / "))),
            tr("Hardware trends")};
}

void TrendsChart::layoutOverlay()
{
    chartfit::applyTitle(m_chart, titles(), theme().titleFont());
    // Year ticks every 5 years, or every 10 when the plot is narrow.
    const QRectF area = m_chart->plotArea();
    if (!area.isEmpty()) {
        const QString xt = chartfit::fittingTitle(xTitles(), theme().labelFont(), area.width());
        if (m_x->titleText() != xt)
            m_x->setTitleText(xt);
        // The entries shown (QLegendMarker::isVisible() is false while the legend is hidden), the refits' in the
        // longest form that keeps the legend off the curves and markers: in large type on a small plot the full
        // names would widen and lengthen it across the FLOPS fit, which rises through its corner.
        const std::vector<QRectF> plotted = plottedRects();
        const auto legendOf = [](const Track &t, int form) {
            return t.addedPoints ? trendsmath::refitLegend(t.shortName, t.fit.factorPer2Years, t.addedYears.first,
                                                           t.addedYears.second, t.refit.factorPer2Years, form)
                                 : QPair<QString, QString>(t.curve->name(), QString());
        };
        QStringList entries;
        int form = 0;
        for (; form < trendsmath::kRefitLegendForms; ++form) {
            entries.clear();
            for (const Track &t : m_tracks) {
                if (!trackVisible(t))
                    continue;
                const auto [fit, refit] = addedVisible(t) ? legendOf(t, form) : legendOf(t, 0);
                entries << (addedVisible(t) ? fit : t.curve->name());
                if (addedVisible(t) && !refit.isEmpty())
                    entries << refit;
            }
            if (m_device->count() > 0 && !m_device->name().isEmpty())
                entries << m_device->name();
            const QRectF r = plotlabels::legendRectInside(m_chart, entries, area, Qt::TopLeftCorner);
            if (!m_showAdded ||
                std::none_of(plotted.begin(), plotted.end(), [&r](const QRectF &o) { return o.intersects(r); }))
                break;
        }
        form = std::min(form, trendsmath::kRefitLegendForms - 1);
        for (const Track &t : m_tracks) {
            if (!t.addedPoints)
                continue;
            const auto [fit, refit] = addedVisible(t) ? legendOf(t, form) : legendOf(t, 0);
            setLegendVisible(t.addedPoints, addedVisible(t) && !refit.isEmpty());
            QLegendMarker *fitMarker = m_chart->legend()->markers(t.curve).value(0);
            QLegendMarker *refitMarker = m_chart->legend()->markers(t.addedPoints).value(0);
            if (fitMarker && fitMarker->label() != (addedVisible(t) ? fit : t.curve->name()))
                fitMarker->setLabel(addedVisible(t) ? fit : t.curve->name());
            if (refitMarker && !refit.isEmpty() && refitMarker->label() != refit)
                refitMarker->setLabel(refit);
        }
        const QRectF legend = plotlabels::placeLegendInside(m_chart, entries, area);
        placeNames(area, legend);
        const double span = m_x->max() - m_x->min();
        const double labelW = QFontMetricsF(theme().tickFont()).horizontalAdvance(QStringLiteral("2000")) * 1.6;
        const double interval = area.width() / (span / 5) >= labelW ? 5 : 10;
        if (m_x->tickInterval() != interval)
            m_x->setTickInterval(interval);
    }
    m_callout->updateGeometry();
}

void TrendsChart::updateGap()
{
    const Track *flops = track("hw_peak_flops");
    const Track *dram = track("dram_bandwidth");
    if (!flops || !dram || !flops->hasFit || !dram->hasFit || flops->series->points.empty() ||
        dram->series->points.empty()) {
        m_gap->clear();
        m_gap->setVisible(false);
        return;
    }
    // The last year both series have data for: the fits are not extrapolated.
    const double year = std::min(flops->series->points.back().year, dram->series->points.back().year);
    const double top = flops->fit.at(year) / flops->divisor, bottom = dram->fit.at(year) / dram->divisor;
    m_gap->replace(QList<QPointF>{{year, bottom}, {year, top}});
    m_gap->setVisible(true);
    setLegendVisible(m_gap, false);
    m_gapLabel->setText(
        trendsmath::gapLabel(trendsmath::gapFactor(flops->fit, flops->divisor, dram->fit, dram->divisor, year),
                             static_cast<int>(std::floor(trendsmath::referenceYear(*flops->series, m_baseYear))),
                             static_cast<int>(std::floor(trendsmath::referenceYear(*dram->series, m_baseYear)))));
}

std::vector<QRectF> TrendsChart::plottedRects() const
{
    const Theme &th = theme();
    std::vector<QRectF> obstacles;
    // A marker as painted: its size (restyle()), plus its outline and antialiasing.
    const qreal dot = 7 * th.markerScale + 4, star = 20 * th.markerScale + 4,
                diamond = kAddedMarkerSize * th.markerScale + 4;
    for (const Track &t : m_tracks) {
        if (trackVisible(t))
            for (const QPointF &p : t.points->points())
                obstacles.emplace_back(m_chart->mapToPosition(p, t.points) - QPointF(dot / 2, dot / 2),
                                       QSizeF(dot, dot));
        if (addedVisible(t))
            for (const QPointF &p : t.addedPoints->points())
                obstacles.emplace_back(m_chart->mapToPosition(p, t.addedPoints) - QPointF(diamond / 2, diamond / 2),
                                       QSizeF(diamond, diamond));
    }
    for (const QPointF &p : m_device->points())
        obstacles.emplace_back(m_chart->mapToPosition(p, m_device) - QPointF(star / 2, star / 2), QSizeF(star, star));
    // No text across a fitted curve (nor a refit).
    for (const Track &t : m_tracks)
        for (QLineSeries *line :
             {t.hasFit && trackVisible(t) ? t.curve : nullptr, addedVisible(t) ? t.refitCurve : nullptr}) {
            if (!line)
                continue;
            QList<QPointF> path;
            for (const QPointF &p : line->points())
                path.append(m_chart->mapToPosition(p, line));
            const auto strip = plotlabels::alongLine(path, 4, 4);
            obstacles.insert(obstacles.end(), strip.begin(), strip.end());
        }
    return obstacles;
}

void TrendsChart::placeNames(const QRectF &area, const QRectF &legend)
{
    const Theme &th = theme();
    const qreal dot = 7 * th.markerScale + 4; // as plottedRects() counts a point
    std::vector<QRectF> obstacles = plottedRects();
    if (!legend.isEmpty())
        obstacles.push_back(legend.adjusted(-2, -2, 2, 2));

    // The gap's label left of its bracket, right-aligned to it: half way up the bracket (on the log axis) if the
    // points leave room, else the nearest free height below or above, with a leader to the bracket.
    m_gapLabel->setVisible(false);
    m_gapLeader->setVisible(false);
    if (m_gap->isVisible() && m_gap->count() == 2) {
        const QPointF lo = m_chart->mapToPosition(m_gap->at(0), m_gap);
        const QPointF hi = m_chart->mapToPosition(m_gap->at(1), m_gap);
        const QRectF text = m_gapLabel->boundingRect();
        obstacles.emplace_back(QRectF(QPointF(hi.x() - 4, hi.y()), QPointF(lo.x() + 4, lo.y())));
        const double midY = (lo.y() + hi.y()) / 2 - text.height() / 2;
        for (double dy = 0; dy < area.height(); dy += 4) {
            bool placed = false;
            for (const double sign : {1.0, -1.0}) {
                const QRectF box(QPointF(lo.x() - 10 - text.width(), midY + sign * dy), text.size());
                if (!area.contains(box) ||
                    std::any_of(obstacles.begin(), obstacles.end(), [&](const QRectF &o) { return o.intersects(box); }))
                    continue;
                m_gapLabel->setPos(box.topLeft());
                m_gapLabel->setVisible(true);
                obstacles.push_back(box);
                if (box.bottom() < hi.y() || box.top() > lo.y()) {
                    const QPointF end = box.top() > lo.y() ? lo : hi;
                    m_gapLeader->setLine(
                        QLineF(QPointF(box.right() + 2, box.top() > lo.y() ? box.top() : box.bottom()), end));
                    m_gapLeader->setVisible(true);
                }
                placed = true;
                break;
            }
            if (placed)
                break;
        }
    }

    // Names: the points the paper's figure names, hardware first.
    std::vector<plotlabels::Request> requests;
    std::size_t used = 0;
    for (const Track &t : m_tracks) {
        if (!trackVisible(t))
            continue;
        const QList<QPointF> pts = t.points->points();
        for (std::size_t i = 0; i < t.series->points.size() && i < static_cast<std::size_t>(pts.size()); ++i) {
            const TrendPoint &tp = t.series->points[i];
            if (tp.labelInFigure.empty())
                continue;
            if (used == m_names.size()) {
                QGraphicsSimpleTextItem *l = addLabel();
                l->setFont(th.tickFont());
                l->setBrush(th.foreground);
                m_names.push_back(l);
            }
            QGraphicsSimpleTextItem *l = m_names[used++];
            l->setText(QString::fromStdString(tp.labelInFigure));
            requests.push_back(
                {m_chart->mapToPosition(pts[static_cast<int>(i)], t.points), l->boundingRect().size(), dot / 2 + 2});
        }
    }
    const auto placed = plotlabels::place(requests, area, obstacles);
    for (std::size_t i = 0; i < m_names.size(); ++i) {
        const bool shown = i < placed.size() && placed[i].has_value();
        m_names[i]->setVisible(shown);
        if (shown)
            m_names[i]->setPos(placed[i]->topLeft());
    }
}

namespace {
/// The index of the plotted point nearest `point` (years apart plus decades apart on the log axis); -1 if none.
int nearestPoint(const QList<QPointF> &pts, const QPointF &point)
{
    int best = -1;
    double bestD = std::numeric_limits<double>::max();
    for (int i = 0; i < pts.size(); ++i) {
        const double d = std::abs(pts[i].x() - point.x()) + std::abs(std::log10(pts[i].y() / point.y()));
        if (d < bestD) {
            bestD = d;
            best = i;
        }
    }
    return best;
}
} // namespace

void TrendsChart::showCallout(const Track &t, const QPointF &point, bool state)
{
    if (!state) {
        m_callout->hide();
        return;
    }
    // The data point under the cursor (the plotted points are in data order).
    const auto pts = t.points->points();
    const int best = nearestPoint(pts, point);
    if (best < 0 || best >= static_cast<int>(t.series->points.size()))
        return;
    const TrendPoint &tp = t.series->points[static_cast<std::size_t>(best)];
    QString text = QString::fromStdString(tp.name);
    text += QStringLiteral("\n%1 · %2")
                .arg(tp.date.empty() ? QString::number(tp.year, 'f', 1) : QString::fromStdString(tp.date),
                     valueText(tp.value, t.series->unit));
    text += tr("\n%1× the fitted %2 of %3")
                .arg(ratioText(pts[best].y()), t.shortName)
                .arg(static_cast<int>(trendsmath::referenceYear(*t.series, m_baseYear)));
    if (!tp.inFit)
        text += tr("\nnot used in the growth fit (as in the paper)");
    if (t.series->id == "hw_peak_flops")
        text += QStringLiteral("\n") + tr(kMixedPrecisionNote);
    if (t.series->id == "interconnect_bandwidth")
        text += tr("\nper-lane signalling rate, not a device's total bandwidth");
    m_callout->setText(text);
    m_callout->setAnchor(pts[best], t.points);
    m_callout->show();
}

void TrendsChart::showAddedCallout(const Track &t, const QPointF &point, bool state)
{
    if (!state) {
        m_callout->hide();
        return;
    }
    const auto pts = t.addedPoints->points();
    const int best = nearestPoint(pts, point);
    if (best < 0 || best >= static_cast<int>(t.added.size()))
        return;
    const AddedDevice &d = t.added[static_cast<std::size_t>(best)];
    const int year = static_cast<int>(std::floor(d.point.year));
    QString text = QString::fromStdString(d.point.name);
    if (d.format)
        text += tr("\n%1 · %2 dense %3 peak")
                    .arg(year)
                    .arg(formatSi(d.point.value, "FLOP/s"), QString::fromLatin1(toString(*d.format)).toUpper());
    else
        text += tr("\n%1 · %2 main memory (%3)")
                    .arg(year)
                    .arg(formatSi(d.point.value, "B/s"), QString::fromStdString(d.memory));
    text += tr("\n%1× the fitted %2 of %3")
                .arg(ratioText(pts[best].y()), t.shortName)
                .arg(static_cast<int>(trendsmath::referenceYear(*t.series, m_baseYear)));
    text += QStringLiteral("\n") + tr(kAddedNote);
    m_callout->setText(text);
    m_callout->setAnchor(pts[best], t.addedPoints);
    m_callout->show();
}

void TrendsChart::restyle()
{
    const Theme &th = theme();
    for (Track &t : m_tracks) {
        const QColor c = th.color(t.colour);
        QPen pen(c, th.lineWidth, t.optional ? Qt::DashLine : Qt::SolidLine);
        t.curve->setPen(pen);
        QColor fill = c;
        fill.setAlpha(170);
        t.points->setColor(fill);
        t.points->setBorderColor(c.darker(th.darkWindow ? 100 : 120));
        t.points->setMarkerSize(7 * th.markerScale);
        if (t.addedPoints) {
            // The refit in the fit's colour, dashed and a little lighter; the added devices hollow, in the same colour.
            QColor refit = c;
            refit.setAlpha(200);
            t.refitCurve->setPen(QPen(refit, th.lineWidth, Qt::DashLine));
            t.addedPoints->setColor(th.plotArea);
            t.addedPoints->setPen(markerPen(c, 2));
            t.addedPoints->setMarkerSize(kAddedMarkerSize * th.markerScale);
        }
    }
    QLegend *legend = m_chart->legend();
    QColor legendFill = th.plotArea;
    legendFill.setAlpha(225);
    legend->setBrush(legendFill);
    legend->setPen(QPen(th.grid, 1));
    legend->setLabelColor(th.foreground);
    QColor gapColour = th.foreground;
    m_gap->setPen(QPen(gapColour, std::max<qreal>(1.5, th.lineWidth * 0.75), Qt::SolidLine, Qt::FlatCap));
    QFont gapFont = th.labelFont();
    gapFont.setBold(true);
    m_gapLabel->setFont(gapFont);
    m_gapLabel->setBrush(th.foreground);
    m_gapLeader->setPen(QPen(th.foreground, 1, Qt::DotLine));
    for (QGraphicsSimpleTextItem *l : m_names) {
        l->setFont(th.tickFont());
        l->setBrush(th.foreground);
    }
    m_device->setColor(th.accent);
    m_device->setBorderColor(th.foreground);
    m_device->setMarkerSize(20 * th.markerScale);
    m_callout->setTheme(th);
    layoutOverlay();
}

nlohmann::json TrendsChart::data() const
{
    nlohmann::json j;
    j["chart"] = id().toStdString();
    j["base_year"] = m_baseYear;
    j["normalisation"] = "each series divided by its fitted value at max(base_year, first year of the series)";
    j["note"] = "peak FLOPS mixes precisions: FP32 for older parts, FP16/BF16 tensor peaks for P100..H100 and TPUs";
    j["added_devices"] = {{"shown", m_showAdded},
                          {"note", std::string(kAddedNote) +
                                       ": the data-center GPUs and ASICs with HBM after the paper's data, in "
                                       "\"added_points\" of a series, refitted with its in-fit points in \"refit\""}};
    auto &arr = j["series"] = nlohmann::json::array();
    for (const Track &t : m_tracks) {
        if (!trackVisible(t))
            continue;
        nlohmann::json s;
        s["id"] = t.series->id;
        s["name"] = t.series->name;
        s["unit"] = t.series->unit;
        s["label"] = t.curve->name().toStdString();
        s["reference_year"] = trendsmath::referenceYear(*t.series, m_baseYear);
        s["divisor"] = t.divisor;
        if (t.hasFit) {
            s["factor_per_2_years"] = t.fit.factorPer2Years;
            s["r2"] = t.fit.r2;
        }
        auto &pts = s["points"] = nlohmann::json::array();
        for (const auto &p : t.series->points)
            pts.push_back({{"name", p.name},
                           {"year", p.year},
                           {"value", p.value},
                           {"normalized", p.value / t.divisor},
                           {"in_fit", p.inFit}});
        if (addedVisible(t)) {
            auto &added = s["added_points"] = nlohmann::json::array();
            for (const AddedDevice &d : t.added) {
                nlohmann::json a = toJson(d);
                a["normalized"] = d.point.value / t.divisor;
                added.push_back(std::move(a));
            }
            s["refit"] = toJson(t.refit);
            s["refit"]["label"] = t.refitCurve->name().toStdString();
        }
        arr.push_back(std::move(s));
    }
    if (m_device->count() > 0) {
        nlohmann::json d{{"name", document()->hardware().name}, {"year", m_device->at(0).x()}};
        for (const auto &[series, p] : deviceMarkers())
            d[series == QLatin1String("hw_peak_flops") ? "normalized_peak" : "normalized_dram_bandwidth"] = p.y();
        j["device"] = std::move(d);
    }
    if (m_gap->isVisible() && m_gap->count() == 2)
        j["gap"] = {{"year", m_gap->at(0).x()},
                    {"compute_over_dram", m_gap->at(1).y() / m_gap->at(0).y()},
                    {"label", m_gapLabel->text().toStdString()}};
    return j;
}

QString TrendsChart::csv() const
{
    // in_fit: in the paper's fit; in_refit: in the refit with the added devices (empty where none is shown);
    // origin: "paper", or "memwall" for a device of MemWall's presets (device_id names it).
    QString out = QStringLiteral("series,name,year,value,unit,normalized,in_fit,in_refit,origin,device_id\n");
    const auto yesNo = [](bool b) { return b ? QStringLiteral("true") : QStringLiteral("false"); };
    for (const Track &t : m_tracks) {
        if (!trackVisible(t))
            continue;
        const bool refit = addedVisible(t);
        const QString id = QString::fromStdString(t.series->id), unit = QString::fromStdString(t.series->unit);
        for (const auto &p : t.series->points)
            out += csvRow({id, QString::fromStdString(p.name), csvNumber(p.year, 10), csvNumber(p.value, 10), unit,
                           csvNumber(p.value / t.divisor, 10), yesNo(p.inFit), refit ? yesNo(p.inFit) : QString(),
                           QStringLiteral("paper"), QString()});
        if (refit)
            for (const AddedDevice &d : t.added)
                out += csvRow({id, QString::fromStdString(d.point.name), csvNumber(d.point.year, 10),
                               csvNumber(d.point.value, 10), unit, csvNumber(d.point.value / t.divisor, 10),
                               yesNo(false), yesNo(true), QStringLiteral("memwall"), QString::fromStdString(d.id)});
    }
    return out;
}

} // namespace memwall::ui
