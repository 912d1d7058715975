#include "core/search/search.h"

#include "core/analysis/footprint.h"
#include "core/util/format.h"
#include "core/util/oneline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace memwall::core {

namespace {

bool smallFloat(DType t) { return bits(t) <= 8 && t != DType::INT8 && t != DType::INT4; }

/// Powers of two from 1 to `limit` that divide `n` (all of them when n is 0).
std::vector<int> powersDividing(int64_t n, int limit)
{
    std::vector<int> out;
    for (int v = 1; v <= limit; v *= 2)
        if (n == 0 || n % v == 0)
            out.push_back(v);
    return out;
}

/// One unit of work: everything but data parallelism and batch, which the worker loops over.
struct Job
{
    std::size_t device;
    int tp, pp, ep;
    std::size_t precision, kv;
    int replicaCounts;         ///< dp = 1, 2, 4, ... within the device budget
    int attentionDp = 1;       ///< MoE: attention data parallelism
    bool wholeExperts = false; ///< MoE: moe_tp 1, the experts whole and split over every device of the stage
    int stageDevices() const { return tp * attentionDp * ep; }
};

/// The figures of one configuration: its Generate analysis `gen`, then its serving options.
ServedRequest figures(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const Analysis &gen,
                      const ModelShape *draft, const Analysis *chunk = nullptr)
{
    if (s.speculativeK > 0 || s.chunkedPrefill > 0 || s.prefillDevices > 0)
        return servedRequest(s, serveRequest(hw, m, s, gen, draft, chunk));
    ServedRequest out;
    out.ttftS = gen.phases.ttftS;
    out.tpotS = gen.phases.tpotS;
    out.e2eS = gen.phases.e2eS;
    out.devices = static_cast<int>(devicesPerCopy(s)) * s.dp;
    out.tokensPerSPerDevice = gen.totals.tokensPerS / out.devices;
    return out;
}

/// Runs work(t) for t = 0 .. threads-1, t = 0 on the calling thread, and joins every thread however any of them ends:
/// the first exception thrown (std::bad_alloc when memory runs short) is thrown again once all have stopped, and
/// `stop` tells the others to leave early. A std::thread destroyed while joinable would end the program instead
/// ("terminate called without an active exception", issue #42). A thread that cannot start leaves its share of the
/// work to the others.
template <typename Work>
void onThreads(unsigned threads, std::atomic<bool> &stop, const Work &work)
{
    std::exception_ptr first;
    std::mutex firstMutex;
    const auto guarded = [&](unsigned t) {
        try {
            work(t);
        } catch (...) {
            const std::lock_guard lock(firstMutex);
            if (!first)
                first = std::current_exception();
            stop = true;
        }
    };
    {
        std::vector<std::jthread> pool; // joined when the block ends
        try {
            pool.reserve(threads);
            for (unsigned t = 1; t < threads; ++t)
                pool.emplace_back(guarded, t);
        } catch (const std::exception &) {
            // no memory or no thread left: the threads that started, and this one, do the work
        }
        guarded(0);
    }
    if (first)
        std::rethrow_exception(first);
}

std::string ms(double s)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
    return buf;
}

std::string perS(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f tokens/s", v);
    return buf;
}

} // namespace

std::optional<SearchPrecision> searchPrecisionFromString(std::string_view text)
{
    const auto colon = text.find(':');
    const auto w = weightFormatFromString(text.substr(0, colon));
    if (!w)
        return std::nullopt;
    SearchPrecision p{*w, smallFloat(w->type) ? w->type : DType::FP16};
    if (colon != std::string_view::npos) {
        const auto a = dtypeFromString(text.substr(colon + 1));
        if (!a)
            return std::nullopt;
        p.activations = *a;
    }
    return p;
}

std::string servingLabel(const Scenario &s)
{
    std::string out;
    const auto add = [&out](const std::string &part) { out += (out.empty() ? "" : ", ") + part; };
    if (s.prefillDevices > 0)
        add("disaggregated " + std::to_string(s.prefillDevices) + ":" + std::to_string(s.decodeDevices) +
            " (prefill batch " + std::to_string(s.prefillBatch > 0 ? s.prefillBatch : s.batch / s.dp) + ")");
    if (s.chunkedPrefill > 0)
        add("chunked prefill " + std::to_string(s.chunkedPrefill));
    if (s.speculativeK > 0)
        add("speculative K" + std::to_string(s.speculativeK));
    return out.empty() ? std::string("plain") : out;
}

std::string toString(const SearchPrecision &p)
{
    const std::string w = toString(p.weights);
    const DType implied = smallFloat(p.weights.type) ? p.weights.type : DType::FP16;
    return p.activations == implied ? w : w + ":" + std::string(toString(p.activations));
}

Scenario searchBase(Scenario s)
{
    s.phase = Phase::Generate;
    s.tp = s.pp = s.dp = s.ep = 1;
    s.batch = 1;
    s.microBatches = 1;
    s.weights = WeightFormat{DType::FP16, 0, DType::FP16};
    s.activations = DType::FP16;
    s.kv = DType::FP16;
    s.speculativeK = 0;
    s.chunkedPrefill = 0;
    s.prefillDevices = s.decodeDevices = 0;
    s.prefillBatch = 0;
    s.kvOffload = s.weightOffload = KvOffload::None;
    s.kvOffloadFraction.reset();
    s.weightOffloadFraction.reset();
    s.attentionDp = 1;
    s.moeTp = s.moeEp = 0;
    return s;
}

bool dominates(const SearchFigures &a, const SearchFigures &b, bool withCost)
{
    const bool costNoWorse = !withCost || *a.usdPerMillionTokens <= *b.usdPerMillionTokens;
    const bool costBetter = withCost && *a.usdPerMillionTokens < *b.usdPerMillionTokens;
    return a.tokensPerSPerDevice >= b.tokensPerSPerDevice && a.tokensPerSPerUser >= b.tokensPerSPerUser &&
           costNoWorse &&
           (a.tokensPerSPerDevice > b.tokensPerSPerDevice || a.tokensPerSPerUser > b.tokensPerSPerUser || costBetter);
}

bool meets(const SearchFigures &p, const SearchTargets &t)
{
    return (t.maxTtftS <= 0 || p.ttftS <= t.maxTtftS) && (t.maxTpotS <= 0 || p.tpotS <= t.maxTpotS) &&
           (t.minTokensPerSPerUser <= 0 || p.tokensPerSPerUser >= t.minTokensPerSPerUser);
}

namespace {

/// What a search enumerates, checked and counted before any configuration is analysed.
struct Plan
{
    Scenario base;
    std::vector<int64_t> batches;
    std::vector<SearchPrecision> precisions;
    std::vector<DType> kvFormats;
    std::vector<int> ks;
    std::vector<int64_t> chunks;
    std::vector<Job> jobs;
    ParamCounts params;          ///< the model's, for the fit check (weightsPerDevice())
    uint64_t configurations = 0; ///< what `evaluated` will be
};

/// Replica counts dp = 1, 2, 4, ... that fit the device budget beside `modelDevices` devices per copy.
int replicaCountsOf(int modelDevices, int maxDevices)
{
    int n = 0;
    for (int dp = 1; modelDevices * dp <= maxDevices; dp *= 2)
        ++n;
    return n;
}

/// The configurations of one job at one batch per replica: every speculative K with every chunk and replica count,
/// and disaggregated pools of 2, 4, ... copies, each with a prefill batch of one prompt and (above 1) of the decode
/// batch.
uint64_t variantsOf(const Plan &p, bool disaggregate, int replicaCounts, int64_t perReplica)
{
    const uint64_t pools = disaggregate ? uint64_t(replicaCounts - 1) * (perReplica > 1 ? 2 : 1) : 0;
    return uint64_t(p.ks.size()) * (uint64_t(p.chunks.size()) * uint64_t(replicaCounts) + pools);
}

/// The jobs of a plan: every device with every parallel split the model allows and every precision and KV format.
void addJobs(Plan &plan, const ModelShape &m, const SearchSpace &space)
{
    // The parallel degrees the model allows: tp splitting heads and FFNs (tensorParallelIssue()), pp
    // dividing the layers, ep dividing the experts of a mixture-of-experts model.
    std::vector<int> tps;
    for (int tp : powersDividing(0, space.maxDevices))
        if (tensorParallelIssue(m, tp).empty())
            tps.push_back(tp);
    const std::vector<int> pps = powersDividing(m.layers, space.maxDevices);
    const std::vector<int> eps = m.isMoe() ? powersDividing(m.experts, space.maxDevices) : std::vector<int>{1};

    // Tensor and expert parallelism exchange activations in every layer, so they stay inside one scale-up domain (the
    // link's max_devices, where the preset gives it); pipeline stages and replicas may span domains.
    // A MoE model also takes attention data parallelism (the experts split over its ranks too) and, with tensor
    // parallelism, its experts whole (moe_tp 1) over all the stage's devices, as the engines run them.
    const std::vector<int> adps = m.isMoe() ? powersDividing(m.experts, space.maxDevices) : std::vector<int>{1};
    std::vector<Job> &jobs = plan.jobs;
    for (std::size_t d = 0; d < space.devices.size(); ++d) {
        const Interconnect *link = space.devices[d].scaleUpLink();
        const int64_t domain = link && link->maxDevices > 0 ? link->maxDevices : space.maxDevices;
        for (int tp : tps)
            for (int pp : pps)
                for (int ep : eps)
                    for (int adp : adps) {
                        const int64_t stage = int64_t(tp) * ep * adp;
                        if (stage * pp > space.maxDevices || stage > domain ||
                            (m.isMoe() && m.experts % (int64_t(ep) * adp)))
                            continue;
                        const bool whole = m.isMoe() && tp > 1 && m.experts % stage == 0;
                        for (int split = 0; split < (whole ? 2 : 1); ++split)
                            for (std::size_t p = 0; p < plan.precisions.size(); ++p)
                                for (std::size_t k = 0; k < plan.kvFormats.size(); ++k)
                                    jobs.push_back({d, tp, pp, ep, p, k,
                                                    replicaCountsOf(int(stage) * pp, space.maxDevices), adp,
                                                    split == 1});
                    }
    }
}

Plan makePlan(const ModelShape &m, const SearchSpace &space)
{
    Plan plan;
    if (space.devices.empty())
        throw AnalysisError("search: no devices to search over");
    if (space.maxDevices < 1 || space.maxDevices > kMaxDeploymentDevices)
        throw AnalysisError("search: device budget " + std::to_string(space.maxDevices) + " is outside 1.." +
                            std::to_string(kMaxDeploymentDevices));
    plan.base = searchBase(space.base);
    const Scenario &base = plan.base;
    if (auto e = validate(base); !e.empty())
        throw AnalysisError("search: " + e);
    if (auto e = validate(m); !e.empty())
        throw AnalysisError("model " + m.id + ": " + e.message);

    std::vector<int64_t> &batches = plan.batches;
    batches = space.batches;
    if (batches.empty())
        for (int64_t b = 1; b <= 1024; b *= 2)
            batches.push_back(b);
    std::sort(batches.begin(), batches.end());
    batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
    for (int64_t b : batches)
        if (b < 1 || b > kMaxTokens)
            throw AnalysisError("search: batch " + std::to_string(b) + " is outside 1.." + std::to_string(kMaxTokens));
    std::vector<SearchPrecision> &precisions = plan.precisions;
    precisions = space.precisions;
    if (precisions.empty())
        precisions = {{{DType::FP16, 0, DType::FP16}, DType::FP16},
                      {{DType::FP8, 0, DType::FP16}, DType::FP8},
                      {{DType::INT4, 128, DType::FP16}, DType::FP16}};
    std::vector<DType> &kvFormats = plan.kvFormats;
    kvFormats = space.kvFormats;
    if (kvFormats.empty())
        kvFormats = {DType::FP16, DType::FP8};
    const auto sortedUnique = [](auto v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return v;
    };
    plan.ks = sortedUnique(space.speculativeKs.empty() ? std::vector<int>{0} : space.speculativeKs);
    plan.chunks = sortedUnique(space.prefillChunks.empty() ? std::vector<int64_t>{0, 512} : space.prefillChunks);
    for (int k : plan.ks)
        if (k < 0 || k > 16)
            throw AnalysisError("search: speculative K " + std::to_string(k) + " is outside 0..16");
    for (int64_t c : plan.chunks)
        if (c < 0 || c > kMaxTokens)
            throw AnalysisError("search: prefill chunk " + std::to_string(c) + " is outside 0.." +
                                std::to_string(kMaxTokens));

    plan.params = paramCount(m);
    addJobs(plan, m, space);
    for (const Job &job : plan.jobs)
        for (int64_t perReplica : plan.batches)
            plan.configurations += variantsOf(plan, space.disaggregate, job.replicaCounts, perReplica);
    return plan;
}

/// What one worker thread of a search counts.
struct Tally
{
    uint64_t evaluated = 0, pruned = 0, analysed = 0, derived = 0;
};

/// One job of a search, run on one thread: every batch per replica, speculative K, prefill chunk and disaggregated
/// split of one device, parallel split and format, into `points`.
class JobRun
{
public:
    JobRun(const Plan &plan, const SearchSpace &space, const ModelShape &m, const Job &job, Tally &tally,
           std::vector<SearchCandidate> &points)
        : m_plan(plan), m_space(space), m_model(m), m_job(job), m_tally(tally), m_points(points),
          m_hw(space.devices[job.device]), m_link(kvTransferLink(m_hw)), m_chunkAnalyses(plan.chunks.size())
    {
    }

    /// Runs every configuration of the job; returns how many it stood for (evaluated, whether pruned or not).
    uint64_t run()
    {
        const double capacity = m_hw.memory.empty() ? 0.0 : m_hw.mainMemory().capacityBytes.value;
        m_price = m_space.usdPerDeviceHour ? *m_space.usdPerDeviceHour : m_hw.usdPerHour ? m_hw.usdPerHour->value : 0.0;
        m_modelDevices = m_job.stageDevices() * m_job.pp;
        m_scenario = jobScenario();
        // Weights alone, as the analysis holds them on a device of this split (the routed experts at their own
        // format), must fit: else no batch or replica count helps.
        m_fits = weightsPerDevice(m_model, m_plan.params, m_scenario) <= capacity;
        if (m_fits) {
            uint64_t most = 0;
            for (int64_t perReplica : m_plan.batches)
                most += variants(perReplica);
            m_points.reserve(most);
        }
        uint64_t configurations = 0;
        for (int64_t perReplica : m_plan.batches) {
            const uint64_t count = variants(perReplica);
            m_tally.evaluated += count;
            configurations += count;
            runBatch(perReplica, count);
        }
        return configurations;
    }

private:
    /// The base scenario with the job's split and formats.
    Scenario jobScenario() const
    {
        Scenario s = m_plan.base;
        s.tp = m_job.tp;
        s.pp = m_job.pp;
        s.ep = m_job.ep;
        s.attentionDp = m_job.attentionDp;
        s.moeTp = m_job.wholeExperts ? 1 : 0;
        s.moeEp = m_job.wholeExperts ? m_job.stageDevices() : 0;
        s.weights = m_plan.precisions[m_job.precision].weights;
        s.activations = m_plan.precisions[m_job.precision].activations;
        s.kv = m_plan.kvFormats[m_job.kv];
        return s;
    }

    uint64_t variants(int64_t perReplica) const
    {
        return variantsOf(m_plan, m_space.disaggregate, m_job.replicaCounts, perReplica);
    }

    /// The `count` configurations of one batch per replica: analysed once, then every speculative K with every
    /// chunk, replica count and disaggregated split. A batch that does not fit prunes every larger one.
    void runBatch(int64_t perReplica, uint64_t count)
    {
        // Attention DP splits the batch evenly over its ranks: a batch it does not divide is not run.
        if (!m_fits || perReplica % m_job.attentionDp != 0) {
            m_tally.pruned += count;
            return;
        }
        m_scenario.dp = 1;
        m_scenario.batch = perReplica;
        Analysis a;
        try {
            a = analyzeTotals(m_hw, m_model, m_scenario);
        } catch (const AnalysisError &) {
            m_fits = false; // a combination analyze() refuses; the splits above leave none for valid models
            m_tally.pruned += count;
            return;
        }
        ++m_tally.analysed;
        if (!a.memory.fits) {
            m_fits = false; // the footprint only grows with the batch
            m_tally.pruned += count - 1;
            return;
        }
        for (int k : m_plan.ks) {
            Scenario v = m_scenario;
            v.speculativeK = k;
            colocated(v, a);
            v.chunkedPrefill = 0;
            if (m_space.disaggregate && m_job.replicaCounts >= 2 && m_link)
                disaggregated(v, a, perReplica);
        }
    }

    /// Prefill and decode on the same devices: every prefill chunk, each with every replica count.
    void colocated(Scenario v, const Analysis &a)
    {
        const std::vector<int64_t> &chunks = m_plan.chunks;
        for (std::size_t c = 0; c < chunks.size(); ++c) {
            v.chunkedPrefill = chunks[c];
            try {
                // The chunk's own prefill depends on neither the batch nor K: made once per job.
                if (chunks[c] > 0 && !m_chunkAnalyses[c])
                    m_chunkAnalyses[c] = chunkAnalysis(m_hw, m_model, v);
                const Analysis *chunk = chunks[c] > 0 ? &*m_chunkAnalyses[c] : nullptr;
                emit(v, figures(m_hw, m_model, v, a, m_space.draft, chunk), 1 << (m_job.replicaCounts - 1));
            } catch (const AnalysisError &) {
                m_tally.pruned += uint64_t(m_job.replicaCounts); // a serving option this split cannot run
            }
        }
    }

    /// Prefill and decode pools of 2, 4, ... copies, each with a prefill batch of one prompt and (above 1) of the
    /// decode batch, at the best split of the copies.
    void disaggregated(Scenario v, const Analysis &a, int64_t perReplica)
    {
        const int replicaCounts = m_job.replicaCounts;
        const int64_t promptChoices[] = {1, perReplica};
        for (int c = 0; c < (perReplica > 1 ? 2 : 1); ++c) {
            v.prefillBatch = promptChoices[c];
            v.prefillDevices = v.decodeDevices = m_modelDevices;
            // One prefill and one decode analysis serve every pool size: only the split changes.
            ServingReport r;
            try {
                r = serveRequest(m_hw, m_model, v, a, m_space.draft);
            } catch (const AnalysisError &) {
                m_tally.pruned += uint64_t(replicaCounts - 1); // a prefill this split cannot run
                continue;
            }
            const DisaggregationReport &d = *r.disaggregation;
            for (int copies = 2; copies <= 1 << (replicaCounts - 1); copies *= 2) {
                v.prefillDevices = m_modelDevices;
                v.decodeDevices = (copies - 1) * m_modelDevices;
                const DisaggregationReport best = disaggregate(*m_link, v, d.prefillS, d.tpotS, a.kvCache, false);
                v.prefillDevices = best.bestPrefillDevices;
                v.decodeDevices = best.bestDecodeDevices;
                ServingReport split = r;
                split.disaggregation = disaggregate(*m_link, v, d.prefillS, d.tpotS, a.kvCache, false);
                emit(v, servedRequest(v, split), 1);
            }
        }
    }

    /// Records configuration `v` served as `q`, and its copies with 2, 4, ... up to `replicas` replicas.
    void emit(const Scenario &v, const ServedRequest &q, int replicas)
    {
        SearchCandidate p;
        p.device = m_job.device;
        p.config = {v.tp,
                    v.pp,
                    v.ep,
                    v.dp,
                    v.batch,
                    static_cast<uint16_t>(m_job.precision),
                    static_cast<uint16_t>(m_job.kv),
                    v.speculativeK,
                    v.chunkedPrefill,
                    v.prefillDevices,
                    v.decodeDevices,
                    v.prefillBatch,
                    static_cast<int16_t>(v.attentionDp),
                    static_cast<int16_t>(v.moeTp),
                    static_cast<int16_t>(v.moeEp)};
        p.devices = q.devices;
        p.ttftS = q.ttftS;
        p.tpotS = q.tpotS;
        p.e2eS = q.e2eS;
        p.tokensPerSPerDevice = q.tokensPerSPerDevice;
        p.tokensPerSPerUser = p.tpotS > 0 ? 1.0 / p.tpotS : 0.0;
        if (m_price > 0 && p.tokensPerSPerDevice > 0)
            p.usdPerMillionTokens = usdPerMillionTokens(m_price, p.tokensPerSPerDevice);
        m_points.push_back(p);
        // Replicas: outside training, data parallelism adds no communication and splits the batch evenly, so
        // every replica runs exactly this analysis; per device and per user the figures stay the same.
        for (int dp = 2; dp <= replicas; dp *= 2) {
            p.config.dp = dp;
            p.config.batch = v.batch * dp;
            p.devices = q.devices * dp;
            m_points.push_back(p);
            ++m_tally.derived;
        }
    }

    const Plan &m_plan;
    const SearchSpace &m_space;
    const ModelShape &m_model;
    const Job &m_job;
    Tally &m_tally;
    std::vector<SearchCandidate> &m_points;
    const HardwareSpec &m_hw;
    const std::optional<KvLink> m_link;
    std::vector<std::optional<Analysis>> m_chunkAnalyses;
    Scenario m_scenario;
    double m_price = 0;
    int m_modelDevices = 0;
    bool m_fits = false;
};

/// The search's progress for space.progress: at most every 100 ms, from one thread at a time (the others go on).
class Progress
{
public:
    Progress(const SearchSpace &space, uint64_t total, std::atomic<bool> &stop)
        : m_space(space), m_total(total), m_stop(stop)
    {
    }

    /// Counts `configurations` more as done, and reports.
    void operator()(uint64_t configurations)
    {
        const uint64_t now = m_done += configurations;
        if (!m_space.progress)
            return;
        const std::unique_lock lock(m_mutex, std::try_to_lock);
        const auto t = std::chrono::steady_clock::now();
        if (lock.owns_lock() && !m_stop && t - m_last >= std::chrono::milliseconds(100)) {
            m_last = t;
            try {
                m_space.progress(now, m_total);
            } catch (...) {
                m_stop = true; // before the lock is released: no other report follows
                throw;
            }
        }
    }

private:
    const SearchSpace &m_space;
    const uint64_t m_total;
    std::atomic<bool> &m_stop;
    std::atomic<uint64_t> m_done{0};
    std::mutex m_mutex;
    std::chrono::steady_clock::time_point m_last{}; // the first job to end reports at once
};

/// The threads' counts and points into `out`, the points in job order (each job's list freed as it goes).
void gather(const std::vector<Tally> &tallies, std::vector<std::vector<SearchCandidate>> &perJob, SearchCandidates &out)
{
    for (const Tally &t : tallies) {
        out.evaluated += t.evaluated;
        out.pruned += t.pruned;
        out.analysed += t.analysed;
        out.derived += t.derived;
    }
    std::size_t total = 0;
    for (const auto &v : perJob)
        total += v.size();
    out.points.reserve(total);
    for (auto &v : perJob) {
        out.points.insert(out.points.end(), v.begin(), v.end());
        std::vector<SearchCandidate>().swap(v); // freed as it goes, for the lists that follow
    }
}

/// The indices of the contenders among `pts`, in increasing order. One device at a time, in falling tokens/s per
/// user, a point is out when one seen before (so at least as fast per user) with no longer a TTFT has strictly more
/// tokens/s per device. The staircase maps TTFT to the best tokens/s per device of the points seen with at most that
/// TTFT.
std::vector<uint32_t> contendersOf(const std::vector<SearchCandidate> &pts)
{
    std::vector<uint32_t> order(pts.size());
    for (uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&pts](uint32_t a, uint32_t b) {
        const SearchCandidate &p = pts[a], &q = pts[b];
        if (p.device != q.device)
            return p.device < q.device;
        if (p.tokensPerSPerUser != q.tokensPerSPerUser)
            return p.tokensPerSPerUser > q.tokensPerSPerUser;
        if (p.tokensPerSPerDevice != q.tokensPerSPerDevice)
            return p.tokensPerSPerDevice > q.tokensPerSPerDevice;
        return a < b;
    });
    std::vector<uint32_t> contenders;
    std::map<double, double> staircase;
    std::size_t device = SIZE_MAX;
    for (uint32_t i : order) {
        const SearchCandidate &p = pts[i];
        if (p.device != device) {
            staircase.clear();
            device = p.device;
        }
        auto it = staircase.upper_bound(p.ttftS);
        if (it != staircase.begin() && std::prev(it)->second > p.tokensPerSPerDevice)
            continue;
        contenders.push_back(i);
        // Keep the staircase rising: drop the entries at this TTFT or later that do not beat this point.
        it = staircase.lower_bound(p.ttftS);
        while (it != staircase.end() && it->second <= p.tokensPerSPerDevice)
            it = staircase.erase(it);
        if (it == staircase.end() || it->first != p.ttftS)
            staircase.emplace(p.ttftS, p.tokensPerSPerDevice);
    }
    std::sort(contenders.begin(), contenders.end());
    return contenders;
}

} // namespace

uint64_t searchConfigurations(const ModelShape &m, const SearchSpace &space)
{
    return makePlan(m, space).configurations;
}

SearchCandidates searchCandidates(const ModelShape &m, const SearchSpace &space)
{
    const auto start = std::chrono::steady_clock::now();
    const Plan plan = makePlan(m, space);
    if (plan.configurations > space.maxConfigurations)
        throw AnalysisError("the space holds " + formatGrouped(int64_t(plan.configurations)) +
                            " configurations, more than the limit of " +
                            formatGrouped(int64_t(space.maxConfigurations)) +
                            ": search fewer devices, batches, formats or serving options, or raise the limit");
    SearchCandidates out;
    out.efficiency = plan.base.efficiency;
    out.withCost = space.usdPerDeviceHour.has_value() ||
                   std::all_of(space.devices.begin(), space.devices.end(),
                               [](const HardwareSpec &hw) { return hw.usdPerHour.has_value(); });

    unsigned threads = space.threads > 0 ? static_cast<unsigned>(space.threads) : std::thread::hardware_concurrency();
    threads = std::clamp(threads, 1u, 64u);
    std::vector<Tally> tallies(threads);
    std::vector<std::vector<SearchCandidate>> perJob(plan.jobs.size());
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    Progress report(space, plan.configurations, stop);
    onThreads(threads, stop, [&](unsigned t) {
        for (std::size_t j = next++; j < plan.jobs.size() && !stop; j = next++)
            report(JobRun(plan, space, m, plan.jobs[j], tallies[t], perJob[j]).run());
    });

    gather(tallies, perJob, out);
    out.contenders = contendersOf(out.points);
    out.base = plan.base;
    out.precisions = plan.precisions;
    out.kvFormats = plan.kvFormats;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

SearchPoint SearchCandidates::point(std::size_t i) const
{
    const SearchCandidate &c = points.at(i);
    SearchPoint p;
    static_cast<SearchFigures &>(p) = c;
    Scenario &s = p.scenario = base;
    const SearchConfig &k = c.config;
    s.tp = k.tp;
    s.pp = k.pp;
    s.ep = k.ep;
    s.attentionDp = k.attentionDp;
    s.moeTp = k.moeTp;
    s.moeEp = k.moeEp;
    s.dp = k.dp;
    s.batch = k.batch;
    s.weights = precisions.at(k.precision).weights;
    s.activations = precisions.at(k.precision).activations;
    s.kv = kvFormats.at(k.kv);
    s.speculativeK = k.speculativeK;
    s.chunkedPrefill = k.chunkedPrefill;
    s.prefillDevices = k.prefillDevices;
    s.decodeDevices = k.decodeDevices;
    s.prefillBatch = k.prefillBatch;
    if (s.efficiency == EfficiencyMode::Ideal && !s.computeEfficiency && !s.memoryEfficiency) {
        p.ttftFloorS = p.ttftS;
        p.tpotFloorS = p.tpotS;
    }
    return p;
}

SearchFront selectFront(const SearchCandidates &candidates, const SearchTargets &targets, const ModelShape &m,
                        const SearchSpace &space)
{
    SearchFront out;
    const bool withCost = candidates.withCost;
    // The front in three objectives is a subset of the union of each device's front in two: for one device the
    // hourly price is fixed, so $/million tokens falls exactly as tokens/s per device rises.
    for (const SearchCandidate &p : candidates.points)
        out.meeting += meets(p, targets) ? 1 : 0;
    std::vector<const SearchCandidate *> meeting;
    for (uint32_t i : candidates.contenders)
        if (meets(candidates.points[i], targets))
            meeting.push_back(&candidates.points[i]);
    std::sort(meeting.begin(), meeting.end(), [](const SearchCandidate *a, const SearchCandidate *b) {
        if (a->device != b->device)
            return a->device < b->device;
        if (a->tokensPerSPerUser != b->tokensPerSPerUser)
            return a->tokensPerSPerUser > b->tokensPerSPerUser;
        if (a->tokensPerSPerDevice != b->tokensPerSPerDevice)
            return a->tokensPerSPerDevice > b->tokensPerSPerDevice;
        return a->devices < b->devices;
    });
    // Equal up to rounding: replicas repeat the same figures, with the last bit of the division differing.
    const auto above = [](double a, double b) { return a > b * (1 + 1e-9); };
    std::vector<const SearchCandidate *> union2d;
    for (std::size_t i = 0; i < meeting.size();) {
        std::size_t end = i;
        double best = -1; // the highest tokens/s per device among the points faster per user than this one
        for (; end < meeting.size() && meeting[end]->device == meeting[i]->device; ++end) {
            const SearchCandidate *p = meeting[end];
            if (above(p->tokensPerSPerDevice, best)) {
                union2d.push_back(p);
                best = p->tokensPerSPerDevice;
            }
        }
        i = end;
    }
    const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
    for (const SearchCandidate *p : union2d) {
        bool dominated = false;
        for (const SearchCandidate *q : union2d) {
            if (q == p)
                continue;
            const bool same = near(q->tokensPerSPerDevice, p->tokensPerSPerDevice) &&
                              near(q->tokensPerSPerUser, p->tokensPerSPerUser) &&
                              (!withCost || near(*q->usdPerMillionTokens, *p->usdPerMillionTokens));
            // Of equal points the first in (fewest devices, then search order) stays.
            if (same ? (q->devices < p->devices || (q->devices == p->devices && q < p)) : dominates(*q, *p, withCost)) {
                dominated = true;
                break;
            }
        }
        if (!dominated)
            out.pareto.push_back(candidates.point(static_cast<std::size_t>(p - candidates.points.data())));
    }
    std::sort(out.pareto.begin(), out.pareto.end(), [](const SearchPoint &a, const SearchPoint &b) {
        if (a.tokensPerSPerUser != b.tokensPerSPerUser)
            return a.tokensPerSPerUser < b.tokensPerSPerUser;
        return a.tokensPerSPerDevice > b.tokensPerSPerDevice;
    });

    if (out.pareto.empty() && !candidates.points.empty()) {
        // The candidate whose worst shortfall is smallest: reached over required, inverted for the upper bounds.
        double bestScore = -1;
        std::size_t nearest = 0;
        for (std::size_t i = 0; i < candidates.points.size(); ++i) {
            const SearchCandidate &p = candidates.points[i];
            double score = 1e300;
            if (targets.maxTtftS > 0)
                score = std::min(score, targets.maxTtftS / p.ttftS);
            if (targets.maxTpotS > 0)
                score = std::min(score, targets.maxTpotS / p.tpotS);
            if (targets.minTokensPerSPerUser > 0)
                score = std::min(score, p.tokensPerSPerUser / targets.minTokensPerSPerUser);
            if (score > bestScore) {
                bestScore = score;
                nearest = i;
            }
        }
        out.nearest = candidates.point(nearest);
        const SearchPoint &n = *out.nearest;
        std::string miss;
        const auto add = [&miss](const std::string &part) { miss += (miss.empty() ? "" : "; ") + part; };
        if (targets.maxTtftS > 0 && n.ttftS > targets.maxTtftS)
            add("TTFT " + ms(n.ttftS) + " is " + ms(n.ttftS - targets.maxTtftS) + " over " + ms(targets.maxTtftS));
        if (targets.maxTpotS > 0 && n.tpotS > targets.maxTpotS)
            add("TPOT " + ms(n.tpotS) + " is " + ms(n.tpotS - targets.maxTpotS) + " over " + ms(targets.maxTpotS));
        if (targets.minTokensPerSPerUser > 0 && n.tokensPerSPerUser < targets.minTokensPerSPerUser)
            add(perS(n.tokensPerSPerUser) + " per user is " + perS(targets.minTokensPerSPerUser - n.tokensPerSPerUser) +
                " short of " + perS(targets.minTokensPerSPerUser));
        out.nearestMiss = miss;
    }

    // Floors: the same configurations on the pure roofline.
    const auto floor = [&](SearchPoint &p) {
        const HardwareSpec &hw = space.devices.at(p.device);
        p.band = achievableBand(hw, p.scenario);
        if (p.tpotFloorS > 0)
            return;
        Scenario s = p.scenario;
        s.efficiency = EfficiencyMode::Ideal;
        s.computeEfficiency.reset();
        s.memoryEfficiency.reset();
        const ServedRequest q = figures(hw, m, s, analyzeTotals(hw, m, s), space.draft);
        p.ttftFloorS = q.ttftS;
        p.tpotFloorS = q.tpotS;
    };
    for (SearchPoint &p : out.pareto)
        floor(p);
    if (out.nearest)
        floor(*out.nearest);
    return out;
}

} // namespace memwall::core
