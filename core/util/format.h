#pragma once

#include <cstdint>
#include <string>
#include <string_view>

/// MemWall's one way of writing numbers and units. The command line prints these as they are; the window shows them
/// through ui/util/text.h, which only swaps in the user's decimal point and digit grouping.
///
/// Units are decimal everywhere: 1 kB = 1,000 B and 1 GB = 10⁹ B, as vendors' datasheets state capacities and
/// bandwidths; prefixes go both ways, so a time reads "8.04 ns", never "8.04e-09 s".
namespace memwall::core {

/// `value` with a decimal SI prefix (p, n, µ, m, none, k, M, G, T, P, E) before `unit` and `significant` digits,
/// trailing zeros dropped: formatSi(8.04e-9, "s") == "8.04 ns", formatSi(1.38e11, "B") == "138 GB",
/// formatSi(9.894e14, "FLOP/s") == "989 TFLOP/s", formatSi(999.97e9, "B") == "1 TB" (rounding carries to the next
/// prefix), formatSi(0, "B") == "0 B". Without a unit the prefix stands alone: formatSi(1.5e12, "") == "1.5 T",
/// formatSi(42, "") == "42". Infinity is "∞ unit", NaN "? unit".
std::string formatSi(double value, std::string_view unit, int significant = 3);

/// A count or a ratio: a prefix only from 1000 up (k to E), so that a small value stays a plain decimal with
/// `significant` digits: formatSiNumber(1.98e3) == "1.98 k", formatSiNumber(295.3) == "295",
/// formatSiNumber(0.0123) == "0.0123" (formatSi would write "12.3 m").
std::string formatSiNumber(double value, int significant = 3);

/// Bytes in decimal units: formatBytes(8e10) == "80 GB", formatBytes(819200) == "819 kB", formatBytes(512) == "512 B".
std::string formatBytes(double bytes);

/// A duration as people read it: under a minute with an SI prefix ("8.04 ns", "41.2 ms", "12.3 s"), then in minutes,
/// hours and days with three significant digits ("2.5 min", "1.5 h", "3.2 d").
std::string formatSeconds(double seconds);
/// A range of durations, the unit once when both share it: "6.9–8.2 ms", else "950 ms – 1.2 s".
std::string formatSecondsRange(double low, double high);

/// Whole number with commas between groups of three digits: formatGrouped(6738415616) == "6,738,415,616".
std::string formatGrouped(int64_t value);

/// A number for prose: whole and grouped from 100 up ("295", "1,979"), three significant digits below ("29.5",
/// "0.412"), "∞" for infinity and "?" for NaN.
std::string formatNumber(double value);

/// An intensity or ratio for prose: one decimal below 10 ("1.0", "8.0"), whole numbers above ("295", "1800").
std::string formatRatio(double value);

/// A share (0.61 for 61 %) as a percentage, the one way MemWall writes one (headline, tables, charts, lessons, CLI):
/// whole from 10 % ("61 %"), one decimal from 1 % ("5.3 %"), two significant digits below ("0.17 %", "0.029 %"),
/// trailing zeros dropped ("5 %", "0.4 %"). Almost all stays visible: "99.8 %" from 99.5 %, ">99.9 %" from 99.95 %
/// (never "100 %" for less than all); below 0.001 % it is "<0.001 %"; 0 is "0 %", NaN "? %", infinity "∞ %".
std::string formatPercent(double fraction);
/// formatPercent() without the " %", for text that writes the sign itself ("{share} %" in a lesson): "61", "0.17".
std::string formatPercentNumber(double fraction);
/// A signed change, "+" before a rise: formatPercentChange(0.12) == "+12 %", formatPercentChange(-0.08) == "-8 %".
std::string formatPercentChange(double fraction);

/// `value` with exactly `decimals` digits after the point (printf's %.*f): formatFixed(2.345, 1) == "2.3".
std::string formatFixed(double value, int decimals);

} // namespace memwall::core
