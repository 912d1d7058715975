#include "ui/charts/rooflinemath.h"

#include "ui/util/text.h"

#include "core/util/format.h"

#include <QStringList>

#include <algorithm>
#include <cmath>

namespace memwall::ui::rooflinemath {

using namespace memwall::core;

QString Ceiling::name() const
{
    QStringList parts;
    for (DType t : dtypes)
        parts << QString::fromLatin1(toString(t).data(), static_cast<int>(toString(t).size())).toUpper();
    return parts.join(QStringLiteral(" · "));
}

QString Ceiling::label() const { return name() + QLatin1Char(' ') + ui::formatSi(flopsPerS, "FLOP/s"); }

QString Ceiling::compactLabel(double unitFlopsPerS) const
{
    const double v = unitFlopsPerS > 0 ? flopsPerS / unitFlopsPerS : flopsPerS;
    // Whole units from 10 up ("1979", "989"), else three significant digits ("4.4", "0.367").
    // Not grouped: "4500" is the compact form of a tight chart, one character shorter than "4,500".
    return name() + QLatin1Char(' ') + (v >= 10 ? ui::localized(core::formatFixed(v, 0)) : ui::formatSiNumber(v));
}

QString levelShortName(MemoryKind kind, const QString &name)
{
    const QString n = name.toLower();
    switch (kind) {
    case MemoryKind::Sram: return QStringLiteral("SRAM");
    case MemoryKind::Cache:
        if (n.contains(QLatin1String("l3")))
            return QStringLiteral("L3");
        if (n.contains(QLatin1String("infinity")))
            return QStringLiteral("Infinity Cache");
        return QStringLiteral("L2");
    case MemoryKind::Dram:
        if (n.contains(QLatin1String("hbm")))
            return QStringLiteral("HBM");
        if (n.contains(QLatin1String("gddr")))
            return QStringLiteral("GDDR");
        return QStringLiteral("DRAM");
    case MemoryKind::Host: return QStringLiteral("Host");
    case MemoryKind::Storage: return QStringLiteral("NVMe");
    }
    return name;
}

QString Slope::shortName() const
{
    if (kind == MemoryKind::Host)
        return QStringLiteral("Host link");
    if (kind == MemoryKind::Storage)
        return QStringLiteral("NVMe link");
    return levelShortName(kind, name);
}

QString Slope::label() const { return shortName() + QLatin1Char(' ') + ui::formatSi(bytesPerS, "B/s"); }

double LogRange::decades() const { return (min > 0 && max > 0) ? std::log10(max / min) : 0.0; }

std::vector<Ceiling> ceilings(const HardwareSpec &hw, DType activeType, double computeEfficiency)
{
    std::vector<Ceiling> out;
    for (DType t : kAllDTypes) {
        const double peak = hw.peak(t) * computeEfficiency;
        if (!(peak > 0))
            continue;
        auto same = std::find_if(out.begin(), out.end(),
                                 [&](const Ceiling &c) { return std::abs(c.flopsPerS - peak) <= 1e-9 * peak; });
        if (same == out.end()) {
            out.push_back({{t}, peak, false});
            same = out.end() - 1;
        } else {
            same->dtypes.push_back(t);
        }
        if (t == activeType)
            same->active = true;
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Ceiling &a, const Ceiling &b) { return a.flopsPerS > b.flopsPerS; });
    return out;
}

std::vector<Slope> slopes(const HardwareSpec &hw, double memoryEfficiency)
{
    std::vector<Slope> out;
    const std::size_t mainIndex = hw.memory.empty() ? 0 : hw.mainMemoryIndex();
    for (std::size_t i = 0; i < hw.memory.size(); ++i) {
        const MemoryLevel &lvl = hw.memory[i];
        const double bw = lvl.bandwidthBytesPerS.value * memoryEfficiency;
        if (!(bw > 0))
            continue;
        out.push_back({QString::fromStdString(lvl.name), lvl.kind, bw, i == mainIndex});
    }
    std::stable_sort(out.begin(), out.end(), [](const Slope &a, const Slope &b) { return a.bytesPerS > b.bytesPerS; });
    return out;
}

double ridgePoint(double peakFlopsPerS, double bytesPerS) { return bytesPerS > 0 ? peakFlopsPerS / bytesPerS : 0.0; }

double attainable(double intensity, double peakFlopsPerS, double bytesPerS)
{
    return std::min(peakFlopsPerS, intensity * bytesPerS);
}

double plottedIntensity(double intensity) { return std::clamp(intensity, kMinIntensity, kMaxIntensity); }

double plottedIntensity(double flops, double bytes)
{
    if (!(flops > 0))
        return kMinIntensity;
    if (!(bytes > 0))
        return kMaxIntensity;
    return plottedIntensity(flops / bytes);
}

double plottedPerformance(double flops, double timeS, double mainBytesPerS)
{
    if (!(timeS > 0))
        return 0.0;
    if (flops > 0)
        return flops / timeS;
    return kMinIntensity * mainBytesPerS;
}

double plottedLinkPerformance(double linkBytes, double timeS)
{
    return timeS > 0 && linkBytes > 0 ? kMinIntensity * linkBytes / timeS : 0.0;
}

LogRange decadeRange(double lo, double hi, double marginDecades)
{
    if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi))
        return {1, 10};
    if (lo > hi)
        std::swap(lo, hi);
    const double l = std::floor(std::log10(lo) - marginDecades + 1e-9);
    double h = std::ceil(std::log10(hi) + marginDecades - 1e-9);
    if (h <= l)
        h = l + 1;
    return {std::pow(10.0, l), std::pow(10.0, h)};
}

Ranges rooflineRanges(const std::vector<Ceiling> &ceils, const std::vector<Slope> &sl,
                      const std::vector<PlotPoint> &points, double maxYDecades)
{
    double xlo = HUGE_VAL, xhi = 0, ylo = HUGE_VAL, yhi = 0;
    auto addX = [&](double x) {
        if (x > 0 && std::isfinite(x)) {
            xlo = std::min(xlo, x);
            xhi = std::max(xhi, x);
        }
    };
    auto addY = [&](double y) {
        if (y > 0 && std::isfinite(y)) {
            ylo = std::min(ylo, y);
            yhi = std::max(yhi, y);
        }
    };
    double lowest = HUGE_VAL;
    for (const Ceiling &c : ceils)
        if (c.flopsPerS > 0)
            lowest = std::min(lowest, c.flopsPerS);
    for (const Ceiling &c : ceils) {
        addY(c.flopsPerS);
        for (const Slope &s : sl)
            if ((s.kind != MemoryKind::Host && s.kind != MemoryKind::Storage) || c.flopsPerS == lowest)
                addX(ridgePoint(c.flopsPerS, s.bytesPerS));
    }
    for (const PlotPoint &p : points) {
        addX(p.intensity);
        addY(p.flopsPerS);
    }
    if (xhi <= 0)
        xlo = 1, xhi = 1000;
    if (yhi <= 0)
        ylo = 1e9, yhi = 1e12;
    Ranges r;
    r.x = decadeRange(xlo, xhi);
    r.y = decadeRange(ylo, yhi);
    if (r.y.decades() > maxYDecades)
        r.y.min = r.y.max / std::pow(10.0, std::floor(maxYDecades));
    return r;
}

double markerSize(double share, double minPx, double maxPx)
{
    if (!(share > 0) || !std::isfinite(share))
        return minPx;
    return std::clamp(maxPx * std::sqrt(std::min(share, 1.0)), minPx, maxPx);
}

} // namespace memwall::ui::rooflinemath
