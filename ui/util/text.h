#pragma once

#include <QString>
#include <QStringList>

#include <cstdint>
#include <string_view>

namespace memwall::ui {

/// The core's UTF-8 text as a QString.
inline QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

/// The window's numbers: the core's formatters (core/util/format.h, which say what each writes) in the user's locale.
/// Only the decimal point and the digit grouping are the locale's (QLocale(): "8,04 ns" and "1.979" in German);
/// prefixes, units and rounding are the core's, so the window and the command line agree on every figure.
QString formatSi(double value, std::string_view unit, int significant = 3); ///< "8.04 ns", "989 TFLOP/s"
QString formatSiNumber(double value, int significant = 3);                  ///< "1.98 k", "295", "0.0123"
QString formatBytes(double bytes);                                          ///< "80 GB", "819 kB"
QString formatSeconds(double seconds);                                      ///< "41.2 ms", "2.5 min"
QString formatSecondsRange(double low, double high);                        ///< "6.9–8.2 ms": an achievable band
QString formatGrouped(int64_t value);                                       ///< "6,738,415,616"
QString formatNumber(double value);                                         ///< "1,979", "29.5", "0.412"
QString formatRatio(double value);                                          ///< "1.0", "295"
QString formatPercent(double fraction);                                     ///< "61 %", "0.4 %", ">99.9 %"
QString formatPercentNumber(double fraction);                               ///< "61", "0.17": without " %"
QString formatPercentChange(double fraction);                               ///< "+12 %", "-8 %"
QString formatFixed(double value, int decimals);                            ///< "39.30", "1,234.5": printf's %.*f
/// A figure exactly as far as `significant` digits go, for a tooltip that gives more than the cell: whole values
/// grouped ("37,580,963,840"), others with `significant` digits ("0.0412417", "3.35e+12").
QString formatExact(double value, int significant = 6);

/// A number for machine-read text (CSV, clipboard data, file names): C locale, `significant` digits of %g, never
/// grouped, so that a spreadsheet or script reads it back whatever the user's locale. Not for figures people read.
QString csvNumber(double value, int significant = 17);

/// Text of one of the core's formatters in the user's locale: in the number (up to the first space) '.' becomes the
/// locale's decimal point and ',' its group separator.
QString localized(std::string_view formatted);

/// One CSV field or record as core/util/csv.h writes it (RFC 4180 quoting), for the window's CSV.
QString csvField(const QString &text);
QString csvRow(const QStringList &fields); ///< ends with "\n"

} // namespace memwall::ui
