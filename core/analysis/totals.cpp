// ---- totals ----: the step's time (operators and communication), its band, bound, tokens and rates.
#include "core/analysis/passcontext.h"

namespace memwall::core::detail {

namespace {

/// Tokens one step of `s` processes (prefill, encode, train) or generates (decode, generate), over all replicas.
double tokensOfStep(const Scenario &s, const Step &st)
{
    const double dpD = static_cast<double>(s.dp);
    switch (s.phase) {
    case Phase::Prefill:
    case Phase::Encode:
    case Phase::Train: return st.B * st.seq * dpD;
    case Phase::Decode: return st.B * dpD;
    case Phase::Generate: return st.B * static_cast<double>(s.output) * dpD;
    }
    return 0;
}

} // namespace

void addTotals(const Ctx &c, const Step &st, Analysis &a)
{
    const Scenario &s = c.s;
    const Communication &comm = a.comm;
    Totals &t = a.totals;
    t.timeS += comm.timeS;
    t.launchS = c.launchTime;
    t.quantizeS = c.quantizeTime;
    t.timeLowS = t.timeHighS = t.timeS;
    if (const std::optional<TimeBand> band = achievableBand(c.hw, s)) {
        t.timeLowS = t.timeS * band->low;
        t.timeHighS = t.timeS * band->high;
    }
    t.intensity = t.bytes > 0 ? t.flops / t.bytes : 0.0;
    if (comm.timeS > c.computeTime && comm.timeS > c.memoryTime)
        t.bound = Bound::Communication;
    else
        t.bound = c.computeTime > c.memoryTime ? Bound::Compute : Bound::Memory;
    t.linearBound = c.linearComputeTime > c.linearMemoryTime ? Bound::Compute : Bound::Memory;
    t.tokens = tokensOfStep(s, st);
    t.tokensPerS = t.timeS > 0 ? t.tokens / t.timeS : 0.0;
    t.achievedFlopsPerS = t.timeS > 0 ? t.flops / t.timeS : 0.0;
    // Whole-step work over all devices: the critical path counts pipeline fill slots, real work counts micro-batches.
    t.modelFlops = t.flops * s.tp * static_cast<double>(s.dp) * s.attentionDp * (st.mb * s.pp / st.pipelineSlots);
    if (s.phase == Phase::Generate) {
        a.phases.e2eS = t.timeS;
        a.phases.tpotS = s.output > 1 ? (t.timeS - a.phases.ttftS) / static_cast<double>(s.output - 1) : 0.0;
    }
}

} // namespace memwall::core::detail
