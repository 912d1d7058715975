#include "core/analysis/serving.h"

#include "core/analysis/operatortime.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <tuple>

namespace memwall::core {

namespace {

/// The scenario's request as one decode step at context `context`.
Scenario decodeAt(const Scenario &s, int64_t context)
{
    Scenario d = s;
    d.phase = Phase::Decode;
    d.context = std::max<int64_t>(context, 0);
    return d;
}

/// The context of the mean decode step of the request: the prompt and half the tokens generated after the first.
int64_t meanContext(const Scenario &s) { return s.seq + (s.output - 1) / 2; }

/// The time of `op` with the offloaded shares of its KV cache (`kvShare`) and weights (`weightShare`) read from
/// elsewhere: what it does in main memory, timed as analyze() times an operator.
double inMemoryTime(const OperatorRoofs &roofs, Operator op, double kvShare, double weightShare)
{
    op.kvBytes -= kvShare * op.kvBytes;
    op.weightBytes -= weightShare * op.weightBytes;
    return timeOperator(roofs, op).timeS;
}

/// The largest power of two up to `limit` that the draft model's heads, KV heads and FFN allow.
int draftTp(const ModelShape &m, int limit)
{
    int tp = 1;
    for (int t = 2; t <= limit; t *= 2)
        if (tensorParallelIssue(m, t).empty())
            tp = t;
    return tp;
}

const MemoryLevel *levelOfKind(const HardwareSpec &hw, MemoryKind kind)
{
    for (const MemoryLevel &l : hw.memory)
        if (l.kind == kind)
            return &l;
    return nullptr;
}

} // namespace

double usdPerMillionTokens(double usdPerHour, double tokensPerSPerDevice)
{
    return tokensPerSPerDevice > 0 ? usdPerHour / 3600.0 / tokensPerSPerDevice * 1e6 : 0.0;
}

double speculativeTokensPerStep(int k, double acceptance)
{
    if (acceptance >= 1)
        return k + 1.0;
    return (1.0 - std::pow(acceptance, k + 1)) / (1.0 - acceptance);
}

SpeculativeReport speculate(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const ModelShape *draft)
{
    const Scenario mean = decodeAt(s, meanContext(s));
    SpeculativeReport sp;
    sp.k = s.speculativeK;
    sp.acceptance = s.acceptance;
    sp.draft = draft ? draft->id : std::string("mtp");
    const Analysis plain = analyzeTotals(hw, m, mean);
    const Analysis verify = analyzeDecodeStep(hw, m, mean, sp.k + 1);
    Scenario ds = mean;
    ds.pp = 1;
    Analysis drafted;
    if (draft) {
        if (draft->arch != Architecture::Decoder)
            throw AnalysisError("draft model " + draft->id + " is not a decoder");
        ds.tp = draftTp(*draft, s.tp);
        ds.ep = 1;
        drafted = analyzeTotals(hw, *draft, ds);
    } else {
        // A multi-token-prediction module (DeepSeek-V3's MTP): one transformer block of the model's own shape,
        // sharing its embedding and output head.
        ModelShape mtp = m;
        mtp.layers = 1;
        drafted = analyzeTotals(hw, mtp, ds);
    }
    sp.plainStepS = plain.totals.timeS;
    sp.verifyStepS = verify.totals.timeS;
    sp.draftStepS = drafted.totals.timeS;
    sp.plainIntensity = plain.totals.intensity;
    sp.verifyIntensity = verify.totals.intensity;
    sp.plainFlops = plain.totals.flops;
    sp.verifyFlops = verify.totals.flops;
    sp.tokensPerStep = speculativeTokensPerStep(sp.k, sp.acceptance);
    const double cost = sp.verifyStepS + sp.k * sp.draftStepS;
    sp.speedup = sp.tokensPerStep * sp.plainStepS / cost;
    // Break-even: E(A) = cost / plain. E rises from 1 at A = 0 to K + 1 as A -> 1.
    const double need = cost / sp.plainStepS;
    if (need <= 1) {
        sp.breakEvenAcceptance = 0.0;
    } else if (need < sp.k + 1) {
        double lo = 0, hi = 1;
        for (int it = 0; it < 60; ++it) {
            const double mid = (lo + hi) / 2;
            (speculativeTokensPerStep(sp.k, mid) < need ? lo : hi) = mid;
        }
        sp.breakEvenAcceptance = (lo + hi) / 2;
    }
    return sp;
}

Analysis chunkAnalysis(const HardwareSpec &hw, const ModelShape &m, const Scenario &s)
{
    // A chunk in the middle of its prompt, on average: half the rest of the prompt already prefilled.
    const int64_t chunk = std::min(s.chunkedPrefill, s.seq);
    Scenario pc = s;
    pc.phase = Phase::Prefill;
    pc.batch = int64_t{s.dp} * s.attentionDp; // one prompt per replica and attention-DP rank
    pc.microBatches = 1;
    const int64_t prefix = (s.seq - chunk) / 2;
    pc.seq = prefix + chunk;
    pc.promptCacheHitRate = static_cast<double>(prefix) / static_cast<double>(pc.seq);
    return analyze(hw, m, pc);
}

namespace {

/// The prefill of `tokens` prompt tokens per attention rank in one step: a chunk in the middle of its prompt
/// (chunkAnalysis()) when it is at most a prompt, else that many whole prompts (rounded to whole ones).
Analysis promptTokensAnalysis(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, int64_t tokens)
{
    Scenario c = s;
    if (tokens <= s.seq) {
        c.chunkedPrefill = tokens;
        return chunkAnalysis(hw, m, c);
    }
    c.phase = Phase::Prefill;
    c.microBatches = 1;
    const int64_t prompts =
        std::max<int64_t>(1, std::llround(static_cast<double>(tokens) / static_cast<double>(s.seq)));
    c.batch = prompts * s.dp * s.attentionDp;
    return analyze(hw, m, c);
}

/// The steady state of admission for `running` requests of one attention rank (AdmissionReport's first two points).
struct Steady
{
    double r = 0, d = 0, p = 0;
    int64_t k = 1;
};
Steady steadyState(double running, double budget, int64_t seq, int64_t output)
{
    const double prompt = static_cast<double>(seq), decodes = static_cast<double>(output - 1);
    Steady st;
    for (int it = 0; it < 8; ++it) { // k settles in two or three rounds; eight bounds a flip between two values
        st.r = running / (static_cast<double>(st.k) + decodes);
        st.d = st.r * decodes;
        st.p = std::max(1.0, std::min(budget - st.d, std::max(prompt, st.r * prompt)));
        const auto k = static_cast<int64_t>(std::ceil(prompt / st.p));
        if (k == st.k)
            break;
        st.k = k;
    }
    return st;
}

/// Admission limited by the budget: r x (seq + output - 1) = budget.
Steady budgetLimited(double budget, int64_t seq, int64_t output)
{
    Steady st;
    st.r = budget / static_cast<double>(seq + output - 1);
    st.d = st.r * static_cast<double>(output - 1);
    st.p = std::max(1.0, budget - st.d);
    st.k = static_cast<int64_t>(std::ceil(static_cast<double>(seq) / st.p));
    return st;
}

/// Requests of one attention rank whose KV cache (and state) fits beside the weights, at the mean context: the
/// footprint's per-request part scales with the requests. Unbounded (the concurrency) when nothing grows with them.
double fittingRequests(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, double concurrency)
{
    const Analysis a = analyze(hw, m, decodeAt(s, meanContext(s)));
    const double perRequest = (a.memory.kv + a.memory.state) / concurrency;
    if (!(perRequest > 0))
        return concurrency;
    const double fixed = a.memory.total() - a.memory.kv - a.memory.state;
    return std::floor((a.memory.capacity - fixed) / perRequest);
}

} // namespace

namespace {

/// `s` with `decodes` sequences per attention rank, rounded to whole micro-batches of whole sequences.
Scenario withDecodes(const Scenario &s, double decodes)
{
    Scenario d = s;
    const auto mb = static_cast<double>(s.microBatches);
    d.batch = static_cast<int64_t>(std::max(1.0, std::round(decodes / mb)) * mb) * s.dp * s.attentionDp;
    return d;
}

/// The steps of admission: the prefill of `promptTokens` per rank and the mixed step of it beside `decodes` decodes
/// per rank (rounded to whole micro-batches of whole sequences).
std::pair<Analysis, ChunkedPrefillReport> admissionSteps(const HardwareSpec &hw, const ModelShape &m, const Scenario &s,
                                                         double promptTokens, double decodes)
{
    Scenario d = withDecodes(s, decodes);
    d.chunkedPrefill = std::max<int64_t>(1, std::llround(promptTokens));
    Analysis pre = promptTokensAnalysis(hw, m, d, d.chunkedPrefill);
    ChunkedPrefillReport mixed = chunkPrefill(hw, m, d, &pre);
    return {std::move(pre), mixed};
}

/// Arrivals together: the wave of `a.running` requests (AdmissionReport), filled into `a`.
void admitWave(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, AdmissionReport &a)
{
    const auto n = static_cast<int64_t>(std::max(1.0, std::floor(a.running)));
    const auto budget = static_cast<double>(s.maxBatchedTokens);
    const auto seq = static_cast<double>(s.seq), decodes = static_cast<double>(s.output - 1);
    const double prompt = std::min(budget, static_cast<double>(n) * seq);
    a.waveSteps = static_cast<int64_t>(std::ceil(static_cast<double>(n) * seq / budget));
    double firstSteps = 0, mixedAfterFirst = 0;
    for (int64_t j = 0; j < n; ++j) {
        const double sj = std::ceil(static_cast<double>(j + 1) * seq / budget);
        firstSteps += sj;
        mixedAfterFirst += std::min(static_cast<double>(a.waveSteps) - sj, decodes);
    }
    a.meanFirstStep = firstSteps / static_cast<double>(n);
    const auto [pre, mixed] = admissionSteps(hw, m, s, prompt, static_cast<double>(n) / 2);
    const Analysis dec = analyze(hw, m, decodeAt(withDecodes(s, static_cast<double>(n)), meanContext(s)));
    a.decodeStepS = dec.totals.timeS;
    a.mixedStepS = a.waveSteps > 1 ? mixed.mixedStepS : pre.totals.timeS;
    a.promptTokensPerStep = prompt;
    a.stepsPerPrompt = static_cast<int64_t>(std::ceil(seq / prompt));
    a.decodesPerStep = static_cast<double>(n);
    a.running = static_cast<double>(n);
    const double waveSteps = static_cast<double>(a.waveSteps) + decodes;
    a.requestsPerStep = static_cast<double>(n) / waveSteps;
    a.mixedShare = static_cast<double>(a.waveSteps) / waveSteps;
    const double meanMixed = mixedAfterFirst / static_cast<double>(n);
    a.stepS =
        decodes > 0 ? (meanMixed * a.mixedStepS + (decodes - meanMixed) * a.decodeStepS) / decodes : a.decodeStepS;
    const double waveS = static_cast<double>(a.waveSteps) * a.mixedStepS + decodes * a.decodeStepS;
    a.queued = std::max(0.0, a.concurrency - a.running);
    a.queueS = (a.concurrency / a.running - 1) / 2 * waveS;
    a.ttftS = a.queueS + a.meanFirstStep * a.mixedStepS;
    a.requestsPerS = static_cast<double>(n) * static_cast<double>(s.attentionDp) / waveS;
}

} // namespace

namespace {
/// Arrivals spread: the steady state of `a.running` requests (AdmissionReport), filled into `a`.
void admitSpread(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, AdmissionReport &a)
{
    const auto budget = static_cast<double>(s.maxBatchedTokens);
    Steady st = steadyState(a.running, budget, s.seq, s.output);
    if (st.r * static_cast<double>(s.seq) + st.d > budget * (1 + 1e-12)) {
        st = budgetLimited(budget, s.seq, s.output);
        a.running = std::min(a.running, st.r * static_cast<double>(st.k + s.output - 1));
        a.limit = "token budget";
    } else if (a.fitting < a.concurrency) {
        a.limit = "memory";
    }
    a.queued = std::max(0.0, a.concurrency - a.running);
    a.requestsPerStep = st.r;
    a.decodesPerStep = st.d;
    a.promptTokensPerStep = st.p;
    a.stepsPerPrompt = st.k;
    a.mixedShare = std::min(1.0, st.r * static_cast<double>(s.seq) / st.p);

    // The steps: the decodes with and without P prompt tokens.
    const ChunkedPrefillReport mixed = admissionSteps(hw, m, s, st.p, st.d).second;
    a.decodeStepS = mixed.decodeStepS;
    a.mixedStepS = mixed.mixedStepS;
    a.stepS = a.decodeStepS + a.mixedShare * (a.mixedStepS - a.decodeStepS);
    a.queueS = a.queued / st.r * a.stepS;
    a.ttftS = a.queueS + static_cast<double>(st.k) * a.mixedStepS;
    a.requestsPerS = st.r * static_cast<double>(s.attentionDp) / a.stepS;
}
} // namespace

AdmissionReport admit(const HardwareSpec &hw, const ModelShape &m, const Scenario &s)
{
    AdmissionReport a;
    a.budget = s.maxBatchedTokens;
    const int64_t ranks = int64_t{s.dp} * s.attentionDp;
    a.concurrency = static_cast<double>(s.batch) / static_cast<double>(ranks);
    a.fitting = fittingRequests(hw, m, s, a.concurrency);
    if (a.fitting < 1)
        throw AnalysisError("max_batched_tokens: not one request of " + std::to_string(s.seq + s.output) +
                            " tokens fits in " + hw.id + "'s memory beside the weights");
    a.running = std::min(a.concurrency, a.fitting);
    a.arrivals = s.arrivals;
    if (s.arrivals == Arrivals::Together) {
        a.limit = a.fitting < a.concurrency ? "memory" : "";
        admitWave(hw, m, s, a);
        return a;
    }
    if (s.arrivals == Arrivals::Rounds) {
        AdmissionReport wave = a;
        admitWave(hw, m, s, wave);
        admitSpread(hw, m, s, a);
        const double rounds = kBenchmarkRounds;
        a.rounds = kBenchmarkRounds;
        a.waveSteps = wave.waveSteps;
        a.meanFirstStep = wave.meanFirstStep;
        a.waveTtftS = wave.ttftS;
        a.laterTtftS = a.ttftS;
        a.ttftS = (wave.ttftS + (rounds - 1) * a.ttftS) / rounds;
        a.stepS = (wave.stepS + (rounds - 1) * a.stepS) / rounds;
        return a;
    }
    admitSpread(hw, m, s, a);
    return a;
}

ChunkedPrefillReport chunkPrefill(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const Analysis *chunk)
{
    const Scenario mean = decodeAt(s, meanContext(s));
    ChunkedPrefillReport cp;
    cp.chunk = std::min(s.chunkedPrefill, s.seq);
    const Analysis dec = analyze(hw, m, mean);
    Analysis own;
    if (!chunk)
        own = chunkAnalysis(hw, m, s);
    const Analysis &pre = chunk ? *chunk : own;
    // The two passes list their operators in the same order, so each match is found at the cursor; a name either
    // lacks is run on its own.
    std::vector<bool> matched(pre.operators.size(), false);
    std::size_t cursor = 0;
    const auto find = [&](std::string_view name) -> const Operator * {
        for (std::size_t n = 0; n < pre.operators.size(); ++n) {
            const std::size_t i = (cursor + n) % pre.operators.size();
            if (!matched[i] && pre.operators[i].name == name) {
                matched[i] = true;
                cursor = i + 1;
                return &pre.operators[i];
            }
        }
        return nullptr;
    };
    // Both passes' operators are timed on the roofs of the decode step (the chunk's differ only in phase and batch).
    const OperatorRoofs roofs = operatorRoofs(hw, mean);
    double mixed = 0, flops = 0, bytes = 0;
    for (const Operator &op : dec.operators) {
        if (op.onLink())
            continue; // the all-to-all's halves: in dec.comm and pre.comm below
        const Operator *match = find(op.name);
        if (!match) {
            mixed += op.timeS;
            flops += op.flops;
            bytes += op.bytes();
            continue;
        }
        // One kernel over both, as many times as the decode step runs it: the weights are read once, the rest of the
        // traffic, the work and the input to quantize add up.
        const Operator &c = *match;
        Operator both = op;
        both.flops = op.flops + c.flops;
        both.weightBytes = std::max(op.weightBytes, c.weightBytes);
        both.activationBytes = op.activationBytes + c.activationBytes;
        both.kvBytes = op.kvBytes + c.kvBytes;
        both.quantizedInput = op.quantizedInput + c.quantizedInput * c.count / op.count;
        mixed += timeOperator(roofs, both).timeS;
        flops += both.flops;
        bytes += both.bytes();
    }
    for (std::size_t i = 0; i < pre.operators.size(); ++i) {
        const Operator &op = pre.operators[i];
        if (matched[i] || op.onLink())
            continue;
        mixed += op.timeS;
        flops += op.flops;
        bytes += op.bytes();
    }
    cp.decodeStepS = dec.totals.timeS;
    cp.chunkAloneS = pre.totals.timeS;
    cp.mixedStepS = mixed + dec.comm.timeS + pre.comm.timeS;
    cp.slowdown = cp.mixedStepS / cp.decodeStepS;
    cp.mixedIntensity = bytes > 0 ? flops / bytes : 0.0;
    cp.decodeIntensity = dec.totals.intensity;
    cp.mixedFlops = flops;
    cp.stepsPerPrompt = (s.seq + cp.chunk - 1) / cp.chunk;
    cp.ttftS = static_cast<double>(cp.stepsPerPrompt) * cp.mixedStepS;
    return cp;
}

bool offloads(const Scenario &s) { return s.kvOffload != KvOffload::None || s.weightOffload != KvOffload::None; }

bool servesPlainly(const Scenario &s)
{
    return s.speculativeK <= 0 && s.chunkedPrefill <= 0 && s.maxBatchedTokens <= 0 &&
           !(s.prefillDevices > 0 && s.decodeDevices > 0) && !offloads(s);
}

OffloadReport offload(const HardwareSpec &hw, const ModelShape &m, const Scenario &s)
{
    OffloadReport o;
    o.tier = s.kvOffload;
    o.weightTier = s.weightOffload;
    const auto tierOf = [&](KvOffload t, const char *option) -> OffloadTier & {
        for (OffloadTier &x : o.tiers)
            if (x.tier == t)
                return x;
        const MemoryKind kind = t == KvOffload::Host ? MemoryKind::Host : MemoryKind::Storage;
        const MemoryLevel *level = levelOfKind(hw, kind);
        if (!level)
            throw AnalysisError(std::string(option) + " " + std::string(toString(t)) + ": hardware " + hw.id +
                                " has no " + std::string(toString(kind)) + " memory level");
        OffloadTier x;
        x.tier = t;
        x.level = level->name;
        x.bandwidth = level->bandwidthBytesPerS.value;
        x.capacity = level->capacityBytes.value;
        o.tiers.push_back(x);
        return o.tiers.back();
    };
    if (s.kvOffload != KvOffload::None)
        o.level = tierOf(s.kvOffload, "kv_offload").level;
    if (s.weightOffload != KvOffload::None)
        o.weightLevel = tierOf(s.weightOffload, "weight_offload").level;
    std::sort(o.tiers.begin(), o.tiers.end(),
              [](const OffloadTier &a, const OffloadTier &b) { return a.tier < b.tier; });

    const Scenario step = s.phase == Phase::Decode ? decodeAt(s, s.context) : decodeAt(s, meanContext(s));
    const Analysis a = analyze(hw, m, step);
    const double capacity = a.memory.capacity;
    o.kvBytes = a.memory.kv;
    o.weightBytes = a.memory.weights;
    // Fractions set by hand first; then an automatic KV share takes what does not fit (weights are read every step,
    // the cache only in part at a long context, so it moves first), then an automatic weight share what is left.
    const double excess = a.memory.total() - capacity;
    const auto share = [](double over, double bytes) { return bytes > 0 ? std::clamp(over / bytes, 0.0, 1.0) : 0.0; };
    const double fixedWeights =
        s.weightOffload != KvOffload::None && s.weightOffloadFraction ? *s.weightOffloadFraction : 0.0;
    if (s.kvOffload != KvOffload::None)
        o.fraction =
            s.kvOffloadFraction ? *s.kvOffloadFraction : share(excess - fixedWeights * o.weightBytes, o.kvBytes);
    if (s.weightOffload != KvOffload::None)
        o.weightFraction =
            s.weightOffloadFraction ? *s.weightOffloadFraction : share(excess - o.fraction * o.kvBytes, o.weightBytes);
    o.offloadedBytes = o.fraction * o.kvBytes;
    o.offloadedWeightBytes = o.weightFraction * o.weightBytes;
    o.mainMemoryBytes = a.memory.total() - o.offloadedBytes - o.offloadedWeightBytes;
    o.fitsMainMemory = o.mainMemoryBytes <= capacity;

    const OperatorRoofs roofs = operatorRoofs(hw, step);
    double inMemory = 0, kvRead = 0, weightRead = 0;
    for (const Operator &op : a.operators) {
        if (op.onLink())
            continue; // in a.comm.timeS
        inMemory += inMemoryTime(roofs, op, o.fraction, o.weightFraction);
        kvRead += op.kvBytes;
        weightRead += op.weightBytes;
    }
    // Each tier streams its share in over its own link while the step works on what is in main memory (prefetched
    // layer by layer); host DRAM and NVMe have links of their own, so the step takes the longest of them all.
    o.fitsTier = true;
    for (OffloadTier &x : o.tiers) {
        if (x.tier == s.kvOffload) {
            x.kvBytes = o.offloadedBytes;
            x.streamedBytes += o.fraction * kvRead;
        }
        if (x.tier == s.weightOffload) {
            x.weightBytes = o.offloadedWeightBytes;
            x.streamedBytes += o.weightFraction * weightRead;
        }
        x.linkS = x.streamedBytes / x.bandwidth;
        x.fits = x.kvBytes + x.weightBytes <= x.capacity;
        o.fitsTier = o.fitsTier && x.fits;
    }
    const OffloadTier *slowest = nullptr;
    for (const OffloadTier &x : o.tiers)
        if (!slowest || x.linkS > slowest->linkS)
            slowest = &x;
    o.linkS = slowest ? slowest->linkS : 0.0;
    o.stepS = std::max(inMemory, o.linkS) + a.comm.timeS;

    // The prompt's prefill reads every weight once, so it streams the offloaded weights in once too, and it writes the
    // offloaded share of the prompt's KV cache out over the same links, while it computes on the rest.
    Scenario pf = s;
    pf.phase = Phase::Prefill;
    const Analysis p = analyze(hw, m, pf);
    double prefillInMemory = 0, prefillWeightRead = 0;
    const OperatorRoofs prefillRoofs = operatorRoofs(hw, pf);
    for (const Operator &op : p.operators) {
        if (op.onLink())
            continue; // in p.comm.timeS
        prefillInMemory += inMemoryTime(prefillRoofs, op, o.fraction, o.weightFraction);
        prefillWeightRead += op.weightBytes;
    }
    double prefillLinkS = 0;
    for (const OffloadTier &x : o.tiers) {
        const double bytes = (x.tier == s.kvOffload ? o.fraction * p.memory.kv : 0.0) +
                             (x.tier == s.weightOffload ? o.weightFraction * prefillWeightRead : 0.0);
        prefillLinkS = std::max(prefillLinkS, bytes / x.bandwidth);
    }
    o.ttftS = std::max(prefillInMemory, prefillLinkS) + p.comm.timeS;
    o.e2eS = o.ttftS + static_cast<double>(std::max<int64_t>(s.output - 1, 0)) * o.stepS;
    o.stepInMemoryS = a.totals.timeS;
    o.stepFlops = a.totals.flops;
    o.stepBytes = a.totals.bytes;
    if (slowest && o.linkS > 0 && o.linkS >= inMemory && o.linkS >= a.comm.timeS)
        o.wall = "the " + slowest->level + " link";
    else
        o.wall = a.totals.bound == Bound::Compute  ? "compute"
                 : a.totals.bound == Bound::Memory ? "memory bandwidth"
                                                   : "communication";
    return o;
}

std::optional<KvLink> kvTransferLink(const HardwareSpec &hw)
{
    KvLink out;
    if (const Interconnect *link = hw.scaleUpLink()) {
        out.name = link->name;
        out.bandwidth = link->bandwidthBytesPerS.value;
        out.latencyS = link->latencyS.value;
    } else if (const MemoryLevel *host = levelOfKind(hw, MemoryKind::Host)) {
        out.name = host->name;
        out.bandwidth = host->bandwidthBytesPerS.value;
    }
    if (!(out.bandwidth > 0))
        return std::nullopt;
    return out;
}

DisaggregationReport disaggregate(const KvLink &link, const Scenario &s, double prefillS, double decodeTpotS,
                                  const KvCache &kv, bool listSplits)
{
    DisaggregationReport d;
    d.prefillDevices = s.prefillDevices;
    d.decodeDevices = s.decodeDevices;
    d.devicesPerInstance = static_cast<int>(devicesPerCopy(s));
    const int gsize = d.devicesPerInstance;
    if (d.prefillDevices % gsize != 0 || d.decodeDevices % gsize != 0)
        throw AnalysisError("disaggregate " + std::to_string(d.prefillDevices) + ":" + std::to_string(d.decodeDevices) +
                            ": each pool must hold whole copies of the model, a multiple of tp x pp x ep = " +
                            std::to_string(gsize) + " devices");
    const double perInstance = static_cast<double>(s.batch / s.dp);
    const double prompts = s.prefillBatch > 0 ? static_cast<double>(s.prefillBatch) : perInstance;
    d.link = link.name;
    d.prefillS = prefillS;
    d.kvBytesPerRequest = kv.requestBytes(static_cast<double>(s.seq));
    // Each of the copy's devices sends its own share of the prefilled prompts' cache over its own link.
    d.kvTransferS = prompts * d.kvBytesPerRequest / (gsize * link.bandwidth) + link.latencyS;
    d.ttftS = d.prefillS + d.kvTransferS;
    d.tpotS = decodeTpotS;
    const double decodeS = std::max(1e-12, static_cast<double>(s.output - 1) * d.tpotS);
    const auto rates = [&](int p, int dd) {
        return std::pair{(p / gsize) * prompts / d.prefillS, (dd / gsize) * perInstance / decodeS};
    };
    std::tie(d.prefillRequestsPerS, d.decodeRequestsPerS) = rates(d.prefillDevices, d.decodeDevices);
    d.requestsPerS = std::min(d.prefillRequestsPerS, d.decodeRequestsPerS);
    const int total = d.prefillDevices + d.decodeDevices;
    double best = -1;
    for (int p = gsize; p < total; p += gsize) {
        const auto [pr, dr] = rates(p, total - p);
        if (listSplits)
            d.splits.push_back({p, total - p, std::min(pr, dr)});
        if (std::min(pr, dr) > best) {
            best = std::min(pr, dr);
            d.bestPrefillDevices = p;
            d.bestDecodeDevices = total - p;
        }
    }
    return d;
}

namespace {
/// The request as the engine's admission serves it: TTFT and TPOT of the steady state, r / step requests per copy.
ServedRequest admittedRequest(const Scenario &s, const AdmissionReport &a)
{
    ServedRequest out;
    out.ttftS = a.ttftS;
    out.tpotS = a.stepS;
    out.e2eS = out.ttftS + static_cast<double>(s.output - 1) * out.tpotS;
    out.devices = static_cast<int>(devicesPerCopy(s) * s.dp);
    out.tokensPerSPerDevice =
        a.requestsPerS * static_cast<double>(s.output) * static_cast<double>(s.dp) / static_cast<double>(out.devices);
    return out;
}
} // namespace

ServedRequest servedRequest(const Scenario &s, const ServingReport &r)
{
    if (r.admission)
        return admittedRequest(s, *r.admission);
    ServedRequest out;
    double step = r.chunkedPrefill ? r.chunkedPrefill->mixedStepS : r.request.tpotS;
    if (r.offload && r.offload->stepInMemoryS > 0)
        step *= r.offload->stepS / r.offload->stepInMemoryS;
    const double wallStep = step; // one step as the clock sees it
    if (r.speculative && r.speculative->speedup > 0)
        step /= r.speculative->speedup;
    out.ttftS = r.disaggregation   ? r.disaggregation->ttftS
                : r.chunkedPrefill ? r.chunkedPrefill->ttftS
                : r.offload        ? r.offload->ttftS
                                   : r.request.ttftS;
    out.tpotS = r.disaggregation ? r.disaggregation->tpotS : step;
    out.e2eS = out.ttftS + static_cast<double>(s.output - 1) * out.tpotS;
    if (r.disaggregation) {
        out.devices = r.disaggregation->prefillDevices + r.disaggregation->decodeDevices;
        out.tokensPerSPerDevice =
            r.disaggregation->requestsPerS * static_cast<double>(s.output) / static_cast<double>(out.devices);
    } else {
        out.devices = static_cast<int>(devicesPerCopy(s) * s.dp);
        const double perReplica = static_cast<double>(s.batch / s.dp);
        double tokensPerS = out.e2eS > 0 ? perReplica * static_cast<double>(s.output) / out.e2eS : 0.0;
        if (r.chunkedPrefill && wallStep > 0) {
            // A mixed step takes one chunk: in the steady state it admits chunk / seq new prompts, and as many
            // requests finish, so it yields at most chunk x output / seq tokens however large the batch.
            const double admitted = static_cast<double>(r.chunkedPrefill->chunk) / static_cast<double>(s.seq);
            tokensPerS = std::min(tokensPerS, admitted * static_cast<double>(s.output) / wallStep);
        }
        out.tokensPerSPerDevice = tokensPerS * static_cast<double>(s.dp) / static_cast<double>(out.devices);
    }
    return out;
}

ServingReport serveRequest(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const Analysis &gen,
                           const ModelShape *draft, const Analysis *chunk)
{
    ServingReport out;
    RequestTimeline &r = out.request;
    r.ttftS = gen.phases.ttftS;
    r.tpotS = gen.phases.tpotS;
    r.e2eS = gen.phases.e2eS;
    r.tokensPerSPerUser = r.tpotS > 0 ? 1.0 / r.tpotS : 0.0;
    if (s.speculativeK > 0)
        out.speculative = speculate(hw, m, s, draft);
    if (s.images > 0 && (s.chunkedPrefill > 0 || s.maxBatchedTokens > 0))
        throw AnalysisError("images with chunked_prefill or max_batched_tokens are not modelled: where the tower's "
                            "encoding falls among a prompt's chunks is not modelled");
    if (s.chunkedPrefill > 0)
        out.chunkedPrefill = chunkPrefill(hw, m, s, chunk);
    if (s.maxBatchedTokens > 0)
        out.admission = admit(hw, m, s);

    // ---- prefill/decode disaggregation ----
    if (s.prefillDevices > 0 && s.decodeDevices > 0) {
        const std::optional<KvLink> link = kvTransferLink(hw);
        if (!link)
            throw AnalysisError("disaggregate: hardware " + hw.id +
                                " has no interconnect or host link to move the KV cache over");
        Scenario pf = s;
        pf.phase = Phase::Prefill;
        pf.dp = 1;
        pf.batch = s.prefillBatch > 0 ? s.prefillBatch : s.batch / s.dp;
        const double decodeTpot = out.speculative ? r.tpotS / out.speculative->speedup : r.tpotS;
        // The request's cache holds its image tokens too.
        Scenario moved = s;
        moved.seq += imageTokens(s, m);
        out.disaggregation = disaggregate(*link, moved, analyzeTotals(hw, m, pf).totals.timeS, decodeTpot, gen.kvCache);
    }
    return out;
}

ServingReport serve(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const ModelShape *draft)
{
    if (m.arch == Architecture::Encoder)
        throw AnalysisError(m.id + " is an encoder: it serves no generated tokens");
    Scenario g = s;
    g.phase = Phase::Generate;
    ServingReport out = serveRequest(hw, m, s, analyzeTotals(hw, m, g), draft);
    RequestTimeline &r = out.request;
    const int64_t steps = s.output - 1;
    const int64_t listed = std::min<int64_t>(steps, 256);
    for (int64_t j = 0; j < listed; ++j) {
        const int64_t i = listed > 1 ? 1 + j * (steps - 1) / (listed - 1) : 1; // step i generates token i + 1
        r.stepToken.push_back(i + 1);
        r.stepS.push_back(analyzeTotals(hw, m, decodeAt(s, s.seq + i - 1)).totals.timeS);
    }
    const double devices = static_cast<double>(devicesPerCopy(s)) * s.dp;
    const double generated = static_cast<double>(s.batch) * static_cast<double>(s.output);

    if (offloads(s))
        out.offload = offload(hw, m, s);

    // ---- energy and cost ----
    // Of the request as it runs: offloaded, its steps take the offloaded step's time (what does not fit main memory
    // cannot be served at the in-memory speed).
    const double e2eS = out.offload ? out.offload->e2eS : r.e2eS;
    if (hw.tdpW && e2eS > 0) {
        EnergyReport e;
        e.utilization = s.powerUtilization;
        e.powerW = hw.tdpW->value * s.powerUtilization;
        e.joulesPerToken = e.powerW * devices * e2eS / generated;
        out.energy = e;
    }
    if ((s.usdPerDeviceHour || hw.usdPerHour) && e2eS > 0) {
        CostReport c;
        c.usdPerDeviceHour = s.usdPerDeviceHour ? *s.usdPerDeviceHour : hw.usdPerHour->value;
        c.source = s.usdPerDeviceHour ? std::string("set by the user") : hw.usdPerHour->source;
        c.usdPerMillionTokens = usdPerMillionTokens(c.usdPerDeviceHour, generated / e2eS / devices);
        out.cost = c;
    }
    out.served = servedRequest(s, out);
    if (servesPlainly(s))
        out.served.e2eS = r.e2eS; // the analysis' own sum, not ttft + (output - 1) x tpot rounded again
    return out;
}

std::vector<ServingStep> servingSteps(const HardwareSpec &hw, const ModelShape &m, const Scenario &s,
                                      const ModelShape *draft)
{
    std::vector<ServingStep> out;
    if (s.speculativeK <= 0 && s.chunkedPrefill <= 0 && !offloads(s))
        return out;
    if (m.arch == Architecture::Encoder)
        throw AnalysisError(m.id + " is an encoder: it serves no generated tokens");
    const Analysis plain = analyzeTotals(hw, m, decodeAt(s, meanContext(s)));
    out.push_back({"decode", plain.totals.flops, plain.totals.intensity, plain.totals.timeS});
    if (s.speculativeK > 0) {
        const SpeculativeReport sp = speculate(hw, m, s, draft);
        out.push_back({"verify", sp.verifyFlops, sp.verifyIntensity, sp.verifyStepS});
    }
    if (s.chunkedPrefill > 0) {
        const ChunkedPrefillReport cp = chunkPrefill(hw, m, s);
        out.push_back({"mixed", cp.mixedFlops, cp.mixedIntensity, cp.mixedStepS});
    }
    if (offloads(s)) {
        const OffloadReport o = offload(hw, m, s);
        out.push_back({"offload", o.stepFlops, o.stepBytes > 0 ? o.stepFlops / o.stepBytes : 0.0, o.stepS});
    }
    return out;
}

std::vector<TimelineCurve> timelineCurves(const ServingReport &r)
{
    const RequestTimeline &q = r.request;
    // The decode part of the plain request: (tokens, time after the first token) at every listed step.
    std::vector<double> tok{1}, after{0};
    int64_t last = 1;
    double lastS = q.stepS.empty() ? q.tpotS : q.stepS.front(), t = 0;
    for (size_t j = 0; j < q.stepToken.size(); ++j) {
        const int64_t g = q.stepToken[j] - last;
        if (g <= 0)
            continue;
        const double s1 = q.stepS[j];
        t += static_cast<double>(g) * lastS + (s1 - lastS) * static_cast<double>(g + 1) / 2;
        tok.push_back(static_cast<double>(q.stepToken[j]));
        after.push_back(t);
        last = q.stepToken[j];
        lastS = s1;
    }
    const auto curve = [&](std::string id, double prefill, double first, double stepScale) {
        TimelineCurve c;
        c.id = std::move(id);
        c.prefillS = prefill;
        c.firstTokenS = first;
        c.tokens = tok;
        for (double a : after)
            c.timeS.push_back(first + a * stepScale);
        return c;
    };
    std::vector<TimelineCurve> out;
    out.push_back(curve("plain", q.ttftS, q.ttftS, 1));
    if (r.speculative && r.speculative->speedup > 0)
        out.push_back(curve("speculative", q.ttftS, q.ttftS, 1 / r.speculative->speedup));
    if (r.chunkedPrefill)
        out.push_back(
            curve("chunked_prefill", r.chunkedPrefill->ttftS, r.chunkedPrefill->ttftS, r.chunkedPrefill->slowdown));
    if (r.disaggregation)
        out.push_back(curve("disaggregated", r.disaggregation->prefillS, r.disaggregation->ttftS,
                            q.tpotS > 0 ? r.disaggregation->tpotS / q.tpotS : 1));
    if (r.offload && r.offload->stepInMemoryS > 0)
        out.push_back(
            curve("offload", r.offload->ttftS, r.offload->ttftS, r.offload->stepS / r.offload->stepInMemoryS));
    return out;
}

} // namespace memwall::core
