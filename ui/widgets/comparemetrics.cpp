#include "ui/widgets/comparemetrics.h"

#include "ui/util/precisionchoices.h"
#include "ui/util/text.h"

#include <QCoreApplication>

#include <cmath>

namespace memwall::ui {

namespace {

QString tr(const char *s) { return QCoreApplication::translate("CompareMetrics", s); }

QString scaled(double v, const char *const *units, int n, double step, int digits = 3)
{
    int u = 0;
    double x = v;
    while (std::fabs(x) >= step && u + 1 < n) {
        x /= step;
        ++u;
    }
    return QStringLiteral("%1 %2").arg(QString::number(x, 'g', digits), QLatin1String(units[u]));
}

} // namespace

QString formatSeconds(double s)
{
    if (s == 0)
        return QStringLiteral("0 s");
    if (std::fabs(s) >= 1)
        return QStringLiteral("%1 s").arg(QString::number(s, 'g', 3));
    if (std::fabs(s) >= 1e-3)
        return QStringLiteral("%1 ms").arg(QString::number(s * 1e3, 'g', 3));
    if (std::fabs(s) >= 1e-6)
        return QStringLiteral("%1 µs").arg(QString::number(s * 1e6, 'g', 3));
    return QStringLiteral("%1 ns").arg(QString::number(s * 1e9, 'g', 3));
}

QString formatBytes(double b)
{
    static const char *units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    return scaled(b, units, 6, 1000.0);
}

QString formatRate(double v) { return std::fabs(v) >= 100 ? QString::number(v, 'f', 0) : QString::number(v, 'g', 3); }

QString formatFlopsPerS(double f)
{
    static const char *units[] = {"FLOP/s", "kFLOP/s", "MFLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s", "EFLOP/s"};
    return scaled(f, units, 7, 1000.0);
}

std::vector<CompareMetric> compareMetrics(const core::Analysis &a, const core::Analysis &b, const core::Scenario &s)
{
    return compareMetrics(a, b, s, s);
}

std::vector<CompareMetric> compareMetrics(const core::Analysis &a, const core::Analysis &b, const core::Scenario &s,
                                          const core::Scenario &sb)
{
    std::vector<CompareMetric> rows;
    enum Direction { Lower, Higher, Neutral };
    auto number = [&rows](const QString &name, const QString &tip, double va, double vb, QString fa, QString fb,
                          Direction d) {
        CompareMetric m;
        m.name = name;
        m.toolTip = tip;
        m.valueA = va;
        m.valueB = vb;
        m.a = std::move(fa);
        m.b = std::move(fb);
        m.ratio = va != 0 ? vb / va : 0.0;
        const double rel = std::fabs(va - vb) / std::max({std::fabs(va), std::fabs(vb), 1e-300});
        if (d != Neutral && rel > 1e-9)
            m.better = ((vb < va) == (d == Lower)) ? Better::B : Better::A;
        rows.push_back(std::move(m));
    };
    auto text = [&rows](const QString &name, const QString &tip, const QString &ta, const QString &tb, Better better) {
        CompareMetric m;
        m.name = name;
        m.toolTip = tip;
        m.a = ta;
        m.b = tb;
        m.numeric = false;
        m.better = better;
        rows.push_back(std::move(m));
    };

    // What B changes besides the device, first.
    if (!(s.weights == sb.weights))
        text(tr("Weight format"), tr("How weights are stored, including any per-group scales"),
             precision::weightLabel(s.weights), precision::weightLabel(sb.weights), Better::Neither);
    if (s.kv != sb.kv)
        text(tr("KV-cache format"), tr("Format of the cached keys and values"), precision::dtypeLabel(s.kv),
             precision::dtypeLabel(sb.kv), Better::Neither);
    if (s.activations != sb.activations)
        text(tr("Activation format"), tr("Format of activations; matmuls run in it where the device supports it"),
             precision::dtypeLabel(s.activations), precision::dtypeLabel(sb.activations), Better::Neither);

    const bool decode = s.phase == core::Phase::Decode;
    number(decode                             ? tr("Time per token")
           : s.phase == core::Phase::Generate ? tr("Time per request")
                                              : tr("Time per step"),
           tr("Operators plus communication on one device's critical path (lower is better)"), a.totals.timeS,
           b.totals.timeS, formatSeconds(a.totals.timeS), formatSeconds(b.totals.timeS), Lower);
    if (s.phase == core::Phase::Generate) {
        number(tr("Time to first token"), tr("The prefill of the prompt"), a.phases.ttftS, b.phases.ttftS,
               formatSeconds(a.phases.ttftS), formatSeconds(b.phases.ttftS), Lower);
        number(tr("Time per output token"), tr("One decode step at the mean context"), a.phases.tpotS, b.phases.tpotS,
               formatSeconds(a.phases.tpotS), formatSeconds(b.phases.tpotS), Lower);
    }
    number(tr("Tokens/s"), tr("Tokens processed or generated per second over all replicas (higher is better)"),
           a.totals.tokensPerS, b.totals.tokensPerS, formatRate(a.totals.tokensPerS), formatRate(b.totals.tokensPerS),
           Higher);
    number(tr("Achieved compute"), tr("FLOPs of one device divided by its time (higher is better)"),
           a.totals.achievedFlopsPerS, b.totals.achievedFlopsPerS, formatFlopsPerS(a.totals.achievedFlopsPerS),
           formatFlopsPerS(b.totals.achievedFlopsPerS), Higher);
    number(tr("Peak compute (%1)").arg(qs(core::toString(a.matmulType)).toUpper()),
           tr("The compute roof the matrix multiplications run against, after efficiency (B may compute in another "
              "format if it lacks this one)"),
           a.peakFlops, b.peakFlops, formatFlopsPerS(a.peakFlops), formatFlopsPerS(b.peakFlops), Higher);
    number(tr("Memory bandwidth"), tr("Main-memory bandwidth after efficiency (higher is better)"), a.bandwidth,
           b.bandwidth, formatBytes(a.bandwidth) + "/s", formatBytes(b.bandwidth) + "/s", Higher);
    number(tr("Arithmetic intensity"), tr("FLOPs per byte of main-memory traffic of the whole step"),
           a.totals.intensity, b.totals.intensity, QString::number(a.totals.intensity, 'g', 3) + " FLOP/B",
           QString::number(b.totals.intensity, 'g', 3) + " FLOP/B", Neutral);
    number(tr("Ridge point"),
           tr("Intensity where the compute roof meets main memory: work below it is memory-bound on that device"),
           a.ridge, b.ridge, QString::number(a.ridge, 'g', 3) + " FLOP/B", QString::number(b.ridge, 'g', 3) + " FLOP/B",
           Neutral);
    text(tr("Bound"), tr("What limits the step as a whole"), qs(core::toString(a.totals.bound)),
         qs(core::toString(b.totals.bound)), Better::Neither);
    number(tr("Memory per device"), tr("Weights + KV cache + activations (+ gradients and optimizer when training)"),
           a.memory.total(), b.memory.total(), formatBytes(a.memory.total()), formatBytes(b.memory.total()), Neutral);
    number(tr("Capacity per device"), tr("Main memory of one device (higher is better)"), a.memory.capacity,
           b.memory.capacity, formatBytes(a.memory.capacity), formatBytes(b.memory.capacity), Higher);
    const Better fitBetter = a.memory.fits == b.memory.fits ? Better::Neither : a.memory.fits ? Better::A : Better::B;
    text(tr("Fits"), tr("Whether the memory per device fits the capacity"), a.memory.fits ? tr("yes") : tr("no"),
         b.memory.fits ? tr("yes") : tr("no"), fitBetter);
    number(tr("KV cache"), tr("All sequences of one replica, whole model"), a.kvCache.totalBytes, b.kvCache.totalBytes,
           formatBytes(a.kvCache.totalBytes), formatBytes(b.kvCache.totalBytes), Neutral);
    number(tr("Communication time"), tr("Collectives and pipeline transfers over the device's link (lower is better)"),
           a.comm.timeS, b.comm.timeS, formatSeconds(a.comm.timeS), formatSeconds(b.comm.timeS), Lower);
    return rows;
}

} // namespace memwall::ui
