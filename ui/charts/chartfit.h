#pragma once

#include <QFont>
#include <QString>
#include <QStringList>

class QAbstractSeries;
class QChart;
class QLogValueAxis;
class QValueAxis;

namespace memwall::ui::chartfit {

/// The first of `candidates` (longest first) whose width in `font` fits `width` pixels; the last one otherwise.
/// Charts pass a full title and shorter fallbacks so a small or presentation-sized chart shows a whole title
/// instead of an elided one.
QString fittingTitle(const QStringList &candidates, const QFont &font, qreal width);
/// The width of `text` in `font` (QFontMetricsF::horizontalAdvance), kept with the widths fittingTitle() measured:
/// asking again for the title it chose does not shape the text again.
qreal textAdvance(const QFont &font, const QString &text);

/// Sets the chart's title to fittingTitle(candidates, font, chart width - 40), or to none in a chart shorter than
/// twelve lines of `font`, unless the title was replaced from outside since the last call (an export with its own
/// --title): such a title is left alone until it is restored.
void applyTitle(QChart *chart, const QStringList &candidates, const QFont &font);

/// True when a horizontal legend with these labels (marker and spacing included) fits `width` pixels.
bool legendFitsInRow(const QStringList &labels, const QFont &font, qreal width);

/// Puts the legend at the bottom when its visible entries fit in one row, else at the right (one entry per line), so
/// entries are never elided. Call on resize (QChart::plotAreaChanged) and after a theme or label change.
void placeLegend(QChart *chart);

/// A log axis range slightly widened so that Qt Charts puts a tick on both decade ends (log10(0.01) is
/// -1.9999999999999996 in floating point, which would drop the 0.01 label).
inline double logAxisMin(double v) { return v * (1 - 1e-9); }
inline double logAxisMax(double v) { return v * (1 + 1e-9); }

/// The widest a log axis may be set from data: 10^-30 to 10^30, at most 40 decades. Every value MemWall accepts stays
/// far inside (devices: 1e6..1e19 FLOP/s, 1e3..1e18 B/s); beyond, Qt Charts lays out ticks without end and, near
/// 1e308, recurses until the stack is gone.
constexpr double kLogAxisFloor = 1e-30;
constexpr double kLogAxisCeiling = 1e30;
constexpr double kLogAxisMaxDecades = 40;

/// Sets `axis` to [logAxisMin(lo), logAxisMax(hi)], clamped to the limits above (the low end rises if the span is
/// too wide). A range that is not finite, not positive or empty leaves the axis as it was; returns whether it was set.
bool setLogRange(QLogValueAxis *axis, double lo, double hi);
/// The one printf format for every label of a log axis over [lo, hi]: "%g" while each decade reads plainly under it
/// (1e-4 up to 100000), whole numbers up to 10^10 ("1000000", never "100000" beside "1e+06"), else exponents for all
/// ("1e-06" … "1e+02").
QString logLabelFormat(double lo, double hi);
/// Gives `axis` logLabelFormat() for its range, unless its labels have a format of their own (set to anything but
/// "%g" or one logLabelFormat() gives). setLogRange() and the chart views' zoom and pan call it.
void fitLogLabelFormat(QLogValueAxis *axis);
/// A base-10 log axis with "%g" labels, automatic minor ticks and `title`, added to `chart` at `alignment`
/// (Qt::AlignBottom, Qt::AlignLeft ...).
QLogValueAxis *addLogAxis(QChart *chart, Qt::Alignment alignment, const QString &title);
/// Adds `series` to `chart`, drawn against the axes `x` and `y`.
void addSeries(QChart *chart, QAbstractSeries *series, QLogValueAxis *x, QLogValueAxis *y);

/// The smallest step of the form 1, 2 or 5 times a power of ten that divides `span` into at most `maxTicks` intervals.
double niceStep(double span, int maxTicks);

/// Sets a linear `axis` to 0..hi with ticks every niceStep(hi, maxTicks), anchored at 0 (so a time axis reads 0, 500,
/// 1000 rather than 0, 704.5, 1409), and a label format that shows that step's digits. A `hi` that is not finite
/// and positive sets 0..1.
void setZeroBasedRange(QValueAxis *axis, double hi, int maxTicks = 6);

} // namespace memwall::ui::chartfit
