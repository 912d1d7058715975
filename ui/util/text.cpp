#include "ui/util/text.h"

#include "core/util/csv.h"
#include "core/util/format.h"

#include <QLocale>

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
QString formatSiNumber(double value) { return localized(core::formatSiNumber(value)); }
QString formatBytes(double bytes) { return localized(core::formatBytes(bytes)); }
QString formatSeconds(double seconds) { return localized(core::formatSeconds(seconds)); }
QString formatSecondsRange(double low, double high) { return localized(core::formatSecondsRange(low, high)); }
QString formatGrouped(int64_t value) { return localized(core::formatGrouped(value)); }
QString formatNumber(double value) { return localized(core::formatNumber(value)); }
QString formatRatio(double value) { return localized(core::formatRatio(value)); }
QString formatPercent(double fraction) { return localized(core::formatPercent(fraction)); }

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
