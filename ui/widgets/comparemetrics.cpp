#include "ui/widgets/comparemetrics.h"

#include "ui/util/precisionchoices.h"
#include "ui/util/text.h"

#include <QCoreApplication>

#include <cmath>

namespace memwall::ui {

namespace {

QString tr(const char *s) { return QCoreApplication::translate("CompareMetrics", s); }

} // namespace

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
    number(tr("Tokens/s in all"), tr("Tokens processed or generated per second over all replicas (higher is better)"),
           a.totals.tokensPerS, b.totals.tokensPerS, formatNumber(a.totals.tokensPerS),
           formatNumber(b.totals.tokensPerS), Higher);
    number(tr("Achieved compute per device"), tr("FLOPs of one device divided by its time (higher is better)"),
           a.totals.achievedFlopsPerS, b.totals.achievedFlopsPerS, formatSi(a.totals.achievedFlopsPerS, "FLOP/s"),
           formatSi(b.totals.achievedFlopsPerS, "FLOP/s"), Higher);
    number(tr("Peak compute per device (%1)").arg(qs(core::toString(a.matmulType)).toUpper()),
           tr("The compute roof the matrix multiplications run against, after efficiency (B may compute in another "
              "format if it lacks this one)"),
           a.peakFlops, b.peakFlops, formatSi(a.peakFlops, "FLOP/s"), formatSi(b.peakFlops, "FLOP/s"), Higher);
    number(tr("Memory bandwidth per device"),
           tr("Main-memory bandwidth of one device after efficiency (higher is better)"), a.bandwidth, b.bandwidth,
           formatSi(a.bandwidth, "B/s"), formatSi(b.bandwidth, "B/s"), Higher);
    number(tr("Arithmetic intensity per device"),
           tr("FLOPs per byte of main-memory traffic of one device over the step"), a.totals.intensity,
           b.totals.intensity, formatNumber(a.totals.intensity) + " FLOP/B",
           formatNumber(b.totals.intensity) + " FLOP/B", Neutral);
    number(tr("Ridge point per device"),
           tr("Intensity where the compute roof meets main memory: work below it is memory-bound on that device"),
           a.ridge, b.ridge, formatNumber(a.ridge) + " FLOP/B", formatNumber(b.ridge) + " FLOP/B", Neutral);
    text(tr("Bound"), tr("What limits the step as a whole"), qs(core::toString(a.totals.bound)),
         qs(core::toString(b.totals.bound)), Better::Neither);
    number(tr("Memory per device"), tr("Weights + KV cache + activations (+ gradients and optimizer when training)"),
           a.memory.total(), b.memory.total(), formatBytes(a.memory.total()), formatBytes(b.memory.total()), Neutral);
    number(tr("Capacity per device"), tr("Main memory of one device (higher is better)"), a.memory.capacity,
           b.memory.capacity, formatBytes(a.memory.capacity), formatBytes(b.memory.capacity), Higher);
    const Better fitBetter = a.memory.fits == b.memory.fits ? Better::Neither : a.memory.fits ? Better::A : Better::B;
    text(tr("Fits"), tr("Whether the memory per device fits the capacity"), a.memory.fits ? tr("yes") : tr("no"),
         b.memory.fits ? tr("yes") : tr("no"), fitBetter);
    number(tr("KV cache per device"), tr("The KV cache one device holds (part of its memory above)"), a.memory.kv,
           b.memory.kv, formatBytes(a.memory.kv), formatBytes(b.memory.kv), Neutral);
    number(tr("KV cache in all"), tr("All sequences of one replica, whole model, over all its devices"),
           a.kvCache.totalBytes, b.kvCache.totalBytes, formatBytes(a.kvCache.totalBytes),
           formatBytes(b.kvCache.totalBytes), Neutral);
    number(tr("Communication time per device"),
           tr("Collectives and pipeline transfers over the device's link (lower is better)"), a.comm.timeS,
           b.comm.timeS, formatSeconds(a.comm.timeS), formatSeconds(b.comm.timeS), Lower);
    return rows;
}

} // namespace memwall::ui
