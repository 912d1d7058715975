#include "core/util/format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace memwall::core {

namespace {

/// Decimal prefixes from 10^-12 to 10^18; index = power of 1000 + 4.
constexpr std::array<const char *, 11> kPrefixes{"p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E"};
constexpr int kLowestPower = -4, kHighestPower = 6;

/// Digits after the point that leave `significant` significant digits for a magnitude `mag` (at most 12).
int decimalsFor(double mag, int significant)
{
    if (mag == 0 || !std::isfinite(mag))
        return 0;
    const int before = static_cast<int>(std::floor(std::log10(mag))) + 1; // 3 for 295, 0 for 0.41, -1 for 0.041
    return std::clamp(significant - before, 0, 12);
}

/// `value` with `decimals` digits after the point, trailing zeros (and a bare point) dropped: "80.0" -> "80".
std::string trimmed(double value, int decimals)
{
    std::string s = formatFixed(value, decimals);
    if (s.find('.') != std::string::npos) {
        s.erase(s.find_last_not_of('0') + 1);
        if (s.back() == '.')
            s.pop_back();
    }
    return s == "-0" ? "0" : s;
}

/// `digits` (no sign) with a comma between groups of three, after a minus if `negative`.
std::string grouped(const std::string &digits, bool negative)
{
    std::string out = negative ? "-" : "";
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

/// formatSi() with the smallest power of 1000 it may use: -4 (pico) for units, 0 for plain numbers.
std::string withPrefix(double value, std::string_view unit, int significant, int lowestPower)
{
    std::string number = "0";
    int power = 0;
    if (std::isnan(value)) {
        number = "?";
    } else if (std::isinf(value)) {
        number = value > 0 ? "∞" : "-∞";
    } else if (value != 0) {
        const double mag = std::abs(value);
        power = std::clamp(static_cast<int>(std::floor(std::log10(mag) / 3.0)), lowestPower, kHighestPower);
        int decimals = decimalsFor(mag / std::pow(1000.0, power), significant);
        // Rounding may carry into the next prefix: 999.97 G is "1 T", not "1000 G".
        const double unit10 = std::pow(10.0, decimals);
        if (power < kHighestPower && std::round(mag / std::pow(1000.0, power) * unit10) >= 1000 * unit10) {
            ++power;
            decimals = decimalsFor(mag / std::pow(1000.0, power), significant);
        }
        number = trimmed(value / std::pow(1000.0, power), decimals);
    }
    const std::string_view prefix = kPrefixes[static_cast<std::size_t>(power - kLowestPower)];
    if (prefix.empty() && unit.empty())
        return number;
    return number + " " + std::string(prefix) + std::string(unit);
}

} // namespace

std::string formatSi(double value, std::string_view unit, int significant)
{
    return withPrefix(value, unit, significant, kLowestPower);
}

std::string formatSiNumber(double value, int significant) { return withPrefix(value, "", significant, 0); }

std::string formatBytes(double bytes) { return formatSi(bytes, "B"); }

std::string formatSeconds(double seconds)
{
    const double mag = std::abs(seconds);
    if (!(mag >= 60) || std::isinf(mag))
        return formatSi(seconds, "s");
    const auto inUnit = [seconds](double unitSeconds, const char *name) {
        const double v = seconds / unitSeconds;
        return trimmed(v, decimalsFor(std::abs(v), 3)) + " " + name;
    };
    if (mag < 3600)
        return inUnit(60, "min");
    if (mag < 86400)
        return inUnit(3600, "h");
    return inUnit(86400, "d");
}

std::string formatSecondsRange(double low, double high)
{
    const std::string a = formatSeconds(low), b = formatSeconds(high);
    const std::size_t ua = a.rfind(' '), ub = b.rfind(' ');
    if (ua != std::string::npos && ub != std::string::npos && a.substr(ua) == b.substr(ub))
        return a.substr(0, ua) + "–" + b;
    return a + " – " + b;
}

std::string formatGrouped(int64_t value)
{
    // The magnitude as unsigned, so that the most negative int64 has one too.
    const uint64_t mag = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    return grouped(std::to_string(mag), value < 0);
}

std::string formatNumber(double value)
{
    if (std::isnan(value))
        return "?";
    if (std::isinf(value))
        return value > 0 ? "∞" : "-∞";
    const double mag = std::abs(value);
    if (mag >= 100) {
        const double whole = std::round(mag);
        return grouped(formatFixed(whole, 0), value < 0);
    }
    // Rounding may reach 100 (99.96 -> "100.0" trimmed to "100").
    return trimmed(value, decimalsFor(mag, 3));
}

std::string formatRatio(double value) { return formatFixed(value, std::abs(value) < 10 ? 1 : 0); }

std::string formatPercentNumber(double fraction)
{
    if (std::isnan(fraction))
        return "?";
    if (std::isinf(fraction))
        return fraction > 0 ? "∞" : "-∞";
    const double p = fraction * 100.0;
    const double mag = std::abs(p);
    const std::string sign = p < 0 ? "-" : "";
    if (mag == 0)
        return "0";
    if (mag < 0.001)
        return sign + "<0.001";
    if (mag >= 99.95 && mag < 100) // "100" would hide what is left
        return sign + ">99.9";
    int decimals = 0; // whole from 10 %
    if (mag < 1)      // two significant digits: "0.34", "0.029"
        decimals = 1 - static_cast<int>(std::floor(std::log10(mag)));
    else if (mag < 10 || (mag >= 99.5 && mag < 100)) // one decimal; "99.8": almost all stays visible
        decimals = 1;
    return trimmed(p, decimals);
}

std::string formatPercent(double fraction) { return formatPercentNumber(fraction) + " %"; }

std::string formatPercentChange(double fraction) { return (fraction >= 0 ? "+" : "") + formatPercent(fraction); }

std::string formatFixed(double value, int decimals)
{
    char buf[384]; // %.*f of the largest double has 309 digits before the point
    std::snprintf(buf, sizeof buf, "%.*f", std::clamp(decimals, 0, 30), value);
    return buf;
}

} // namespace memwall::core
