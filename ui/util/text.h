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
QString formatSiNumber(double value);                                       ///< "1.98 k", "295", "0.0123"
QString formatBytes(double bytes);                                          ///< "80 GB", "819 kB"
QString formatSeconds(double seconds);                                      ///< "41.2 ms", "2.5 min"
QString formatSecondsRange(double low, double high);                        ///< "6.9–8.2 ms": an achievable band
QString formatGrouped(int64_t value);                                       ///< "6,738,415,616"
QString formatNumber(double value);                                         ///< "1,979", "29.5", "0.412"
QString formatRatio(double value);                                          ///< "1.0", "295"
QString formatPercent(double fraction);                                     ///< "61 %", "0.4 %"

/// Text of one of the core's formatters in the user's locale: in the number (up to the first space) '.' becomes the
/// locale's decimal point and ',' its group separator.
QString localized(std::string_view formatted);

/// One CSV field or record as core/util/csv.h writes it (RFC 4180 quoting), for the window's CSV.
QString csvField(const QString &text);
QString csvRow(const QStringList &fields); ///< ends with "\n"

} // namespace memwall::ui
