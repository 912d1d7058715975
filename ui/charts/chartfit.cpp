#include "ui/charts/chartfit.h"

#include <QAbstractSeries>
#include <QChart>
#include <QFontMetricsF>
#include <QHash>
#include <QLegend>
#include <QLegendMarker>
#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace memwall::ui::chartfit {

namespace {
/// Widths of texts in a font and the font's line height, kept per font: a chart fits its title and legend after
/// every change, and a slider tick asks for the same few strings each time (the text shaper is the cost).
struct Measured
{
    qreal height = 0;
    QHash<QString, qreal> advances;
};

Measured &measuredIn(const QFont &font)
{
    thread_local QHash<QFont, Measured> fonts;
    auto it = fonts.find(font);
    if (it == fonts.end()) {
        if (fonts.size() >= 16)
            fonts.clear();
        it = fonts.insert(font, Measured{QFontMetricsF(font).height(), {}});
    }
    return *it;
}

qreal advance(Measured &m, const QFont &font, const QString &text)
{
    auto it = m.advances.constFind(text);
    if (it != m.advances.cend())
        return *it;
    if (m.advances.size() >= 512)
        m.advances.clear();
    return *m.advances.insert(text, QFontMetricsF(font).horizontalAdvance(text));
}
} // namespace

QString fittingTitle(const QStringList &candidates, const QFont &font, qreal width)
{
    if (candidates.isEmpty())
        return {};
    Measured &m = measuredIn(font);
    for (const QString &c : candidates)
        if (advance(m, font, c) <= width)
            return c;
    return candidates.last();
}

qreal textAdvance(const QFont &font, const QString &text) { return advance(measuredIn(font), font, text); }

void applyTitle(QChart *chart, const QStringList &candidates, const QFont &font)
{
    static constexpr const char *kAutoTitle = "memwallAutoTitle";
    const QString current = chart->title();
    const QString last = chart->property(kAutoTitle).toString();
    if (!current.isEmpty() && current != last)
        return; // someone else's title
    // A chart shorter than twelve title lines (a 1280x720 window's chart tab in the presentation theme) gives the
    // title's room to the plot: the tab and the headline above it already name the chart and the scenario.
    // (A chart not laid out yet has no height: it keeps its title until it has one.)
    const qreal height = chart->size().height();
    const bool tooShort = height > 0 && height < 12 * measuredIn(font).height;
    const QString t = tooShort ? QString() : fittingTitle(candidates, font, chart->size().width() - 40);
    chart->setProperty(kAutoTitle, t);
    if (current != t)
        chart->setTitle(t);
}

bool legendFitsInRow(const QStringList &labels, const QFont &font, qreal width)
{
    Measured &m = measuredIn(font);
    // Per entry: marker square (about one line height), its gap, the text and the spacing to the next entry.
    qreal need = 0;
    for (const QString &l : labels)
        need += advance(m, font, l) + 1.5 * m.height + 10;
    return need <= width;
}

void placeLegend(QChart *chart)
{
    QLegend *legend = chart->legend();
    if (!legend->isAttachedToChart())
        return;
    QStringList labels;
    for (QLegendMarker *m : legend->markers())
        if (m->isVisible())
            labels << m->label();
    const qreal width = chart->size().width() - chart->margins().left() - chart->margins().right();
    const Qt::Alignment want = legendFitsInRow(labels, legend->font(), width * 0.95) ? Qt::AlignBottom : Qt::AlignRight;
    if (legend->alignment() != want)
        legend->setAlignment(want);
}

bool setLogRange(QLogValueAxis *axis, double lo, double hi)
{
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo > 0) || !(hi > lo))
        return false;
    hi = std::min(logAxisMax(hi), kLogAxisCeiling);
    lo = std::max({logAxisMin(lo), kLogAxisFloor, hi / std::pow(10.0, kLogAxisMaxDecades)});
    if (!(hi > lo))
        return false;
    axis->setRange(lo, hi);
    fitLogLabelFormat(axis);
    return true;
}

QString logLabelFormat(double lo, double hi)
{
    if (lo >= 1e-4 * (1 - 1e-9) && hi < 1e6)
        return QStringLiteral("%g");
    if (lo >= 1 * (1 - 1e-9) && hi < 1e10)
        return QStringLiteral("%.0f");
    return QStringLiteral("%.0e");
}

void fitLogLabelFormat(QLogValueAxis *axis)
{
    const QString now = axis->labelFormat();
    if (now != QLatin1String("%g") && now != QLatin1String("%.0f") && now != QLatin1String("%.0e"))
        return; // a chart's own format ("%.10g" on the trends chart)
    if (const QString fitted = logLabelFormat(axis->min(), axis->max()); fitted != now)
        axis->setLabelFormat(fitted);
}

double niceStep(double span, int maxTicks)
{
    if (!std::isfinite(span) || !(span > 0) || maxTicks < 1)
        return 1;
    const double raw = span / maxTicks;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (m * decade >= raw * (1 - 1e-9))
            return m * decade;
    return 10 * decade;
}

void setZeroBasedRange(QValueAxis *axis, double hi, int maxTicks)
{
    if (!std::isfinite(hi) || !(hi > 0))
        hi = 1;
    const double step = niceStep(hi, maxTicks);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(step);
    // Enough decimals for the step: 0.05 needs two, 500 none.
    const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 9);
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
    axis->setRange(0, hi);
}

QLogValueAxis *addLogAxis(QChart *chart, Qt::Alignment alignment, const QString &title)
{
    auto *axis = new QLogValueAxis;
    axis->setLabelFormat(QStringLiteral("%g"));
    axis->setMinorTickCount(-1);
    axis->setTitleText(title);
    chart->addAxis(axis, alignment);
    return axis;
}

void addSeries(QChart *chart, QAbstractSeries *series, QLogValueAxis *x, QLogValueAxis *y)
{
    chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
}

} // namespace memwall::ui::chartfit
