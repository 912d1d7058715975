#pragma once

#include <QFont>
#include <QString>
#include <QStringList>

class QChart;

namespace memwall::ui::chartfit {

/// The first of `candidates` (longest first) whose width in `font` fits `width` pixels; the last one otherwise.
/// Charts pass a full title and shorter fallbacks so a small or presentation-sized chart shows a whole title
/// instead of an elided one.
QString fittingTitle(const QStringList &candidates, const QFont &font, qreal width);

/// Sets the chart's title to fittingTitle(candidates, font, chart width - 40) unless the title was replaced from
/// outside since the last call (an export with its own --title): such a title is left alone until it is restored.
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

} // namespace memwall::ui::chartfit
