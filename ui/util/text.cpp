#include "ui/util/text.h"

#include "core/util/csv.h"
#include "core/util/format.h"

#include <QLocale>

#include <cmath>

#include <string>
#include <vector>

namespace memwall::ui {

QString localized(std::string_view formatted)
{
    QString text = qs(formatted);
    // The default locale's separators, asked again only when the default locale changes (asking the system
    // locale each time costs a slider tick more than the formatting).
    struct Separators
    {
        QLocale locale;
        QString point, group;
    };
    static thread_local Separators cached{QLocale::c(), QStringLiteral("."), QStringLiteral(",")};
    if (const QLocale locale; locale != cached.locale)
        cached = {locale, locale.decimalPoint(), locale.groupSeparator()};
    const QString &point = cached.point, &group = cached.group;
    if (point == QLatin1String(".") && group == QLatin1String(","))
        return text;
    qsizetype end = text.indexOf(QLatin1Char(' '));
    if (end < 0)
        end = text.size();
    QString number;
    for (qsizetype i = 0; i < end; ++i) {
        if (text[i] == QLatin1Char('.'))
            number += point;
        else if (text[i] == QLatin1Char(','))
            number += group;
        else
            number += text[i];
    }
    return number + text.mid(end);
}

QString formatSi(double value, std::string_view unit, int significant)
{
    return localized(core::formatSi(value, unit, significant));
}
QString formatSiNumber(double value, int significant) { return localized(core::formatSiNumber(value, significant)); }
QString formatBytes(double bytes) { return localized(core::formatBytes(bytes)); }
QString formatSeconds(double seconds) { return localized(core::formatSeconds(seconds)); }
QString formatSecondsRange(double low, double high) { return localized(core::formatSecondsRange(low, high)); }
QString formatGrouped(int64_t value) { return localized(core::formatGrouped(value)); }
QString formatNumber(double value) { return localized(core::formatNumber(value)); }
QString formatRatio(double value) { return localized(core::formatRatio(value)); }
QString formatPercent(double fraction) { return localized(core::formatPercent(fraction)); }
QString formatPercentNumber(double fraction) { return localized(core::formatPercentNumber(fraction)); }
QString formatPercentChange(double fraction) { return localized(core::formatPercentChange(fraction)); }
QString formatFixed(double value, int decimals)
{
    // formatFixed() writes no grouping; the locale's digit grouping comes from the whole number grouped apart.
    const std::string fixed = core::formatFixed(value, decimals);
    const std::size_t point = fixed.find('.');
    const std::string whole = fixed.substr(0, point), fraction = point == std::string::npos ? "" : fixed.substr(point);
    const bool negative = !whole.empty() && whole[0] == '-';
    if (whole.size() - (negative ? 1 : 0) < 4 || whole.find_first_not_of("-0123456789") != std::string::npos)
        return localized(fixed);
    return localized(core::formatGrouped(std::stoll(whole)) + fraction);
}
QString formatExact(double value, int significant)
{
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9e18)
        return formatGrouped(static_cast<int64_t>(value));
    return localized(QString::number(value, 'g', significant).toStdString());
}

QString csvNumber(double value, int significant) { return QString::number(value, 'g', significant); }

QString csvField(const QString &text) { return qs(core::csvField(text.toStdString())); }

QString csvRow(const QStringList &fields)
{
    std::vector<std::string> cells;
    cells.reserve(static_cast<std::size_t>(fields.size()));
    for (const QString &f : fields)
        cells.push_back(f.toStdString());
    return qs(core::csvRow(cells));
}

} // namespace memwall::ui
