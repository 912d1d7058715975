// Tests for core/search: the design-space search and its Pareto front.
//
// The front is checked against brute force: every power-of-two split of a small space is analysed here, without
// pruning, by analyze() itself (which refuses the splits a model does not divide); the non-dominated points of what
// fits and meets the targets are found by comparing every pair. The search must find the same fitting set (its
// pruning never drops a configuration that fits) and the same front.
//
// Hand count of the cost figure: an H100 at $3.99 an hour serving 1,000 tokens/s costs
//   3.99 / 3,600 s = 0.0011083 $ per second, / 1,000 tokens/s = 1.1083e-6 $ per token = $1.108 per million tokens.
#include "core/analysis/serving.h"
#include "core/io/presets.h"
#include "core/search/search.h"

#include <QtTest>

#include <atomic>
#include <mutex>
#include <new>

#include <set>

namespace memwall::core {

namespace {

struct Brute
{
    std::vector<SearchPoint> fitting;
};

/// The point of scenario `s` as `memwall analyze` reports it: serve()'s request with the serving options (serve()
/// without its listed timeline steps, which take 127 analyses here and are not part of the figures; the tests below
/// that compare with serve() itself cover the rest).
ServingReport reportOf(const HardwareSpec &hw, const ModelShape &m, const Scenario &s)
{
    Scenario g = s;
    g.phase = Phase::Generate;
    return serveRequest(hw, m, s, analyze(hw, m, g), nullptr);
}

SearchPoint served(std::size_t device, const HardwareSpec &hw, const ModelShape &m, const Scenario &s)
{
    const ServedRequest q = servedRequest(s, reportOf(hw, m, s));
    SearchPoint p;
    p.device = device;
    p.scenario = s;
    p.devices = q.devices;
    p.ttftS = q.ttftS;
    p.tpotS = q.tpotS;
    p.tokensPerSPerDevice = q.tokensPerSPerDevice;
    p.tokensPerSPerUser = 1.0 / p.tpotS;
    if (hw.usdPerHour)
        p.usdPerMillionTokens = hw.usdPerHour->value / 3600.0 / p.tokensPerSPerDevice * 1e6;
    return p;
}

/// Every configuration of `space`, analysed one by one: the plain ones by analyze() itself, those with serving options
/// by serve()'s serveRequest(). A disaggregated configuration of n copies is tried at every split P:D of them, and the
/// split with the most requests/s is kept (the first of equal ones).
Brute bruteForce(const ModelShape &m, const SearchSpace &space)
{
    Brute out;
    std::vector<int> powers;
    for (int v = 1; v <= space.maxDevices; v *= 2)
        powers.push_back(v);
    for (std::size_t d = 0; d < space.devices.size(); ++d) {
        const HardwareSpec &hw = space.devices[d];
        const int domain =
            hw.scaleUpLink() && hw.scaleUpLink()->maxDevices > 0 ? hw.scaleUpLink()->maxDevices : space.maxDevices;
        for (int tp : powers)
            for (int pp : powers)
                for (int ep : powers)
                    for (int dp : powers)
                        for (int adp : m.isMoe() ? powers : std::vector<int>{1})
                            for (int whole = 0; whole < (m.isMoe() && tp > 1 ? 2 : 1); ++whole) {
                                // A MoE model also runs with attention DP, and with its experts whole over the stage.
                                const int stage = tp * ep * adp;
                                if (int64_t(stage) * pp * dp > space.maxDevices || stage > domain)
                                    continue;
                                for (const SearchPrecision &prec : space.precisions)
                                    for (DType kv : space.kvFormats)
                                        for (int64_t b : space.batches) {
                                            Scenario s = space.base;
                                            s.phase = Phase::Generate;
                                            s.tp = tp;
                                            s.pp = pp;
                                            s.ep = ep;
                                            s.dp = dp;
                                            s.attentionDp = adp;
                                            s.moeTp = whole ? 1 : 0;
                                            s.moeEp = whole ? stage : 0;
                                            s.batch = b * dp;
                                            s.weights = prec.weights;
                                            s.activations = prec.activations;
                                            s.kv = kv;
                                            Analysis a;
                                            try {
                                                a = analyze(hw, m, s);
                                            } catch (const AnalysisError &) {
                                                continue;
                                            }
                                            if (!a.memory.fits)
                                                continue;
                                            for (int k : space.speculativeKs)
                                                for (int64_t chunk : space.prefillChunks) {
                                                    Scenario v = s;
                                                    v.speculativeK = k;
                                                    v.chunkedPrefill = chunk;
                                                    if (k > 0 || chunk > 0) {
                                                        try { // a serving option this split cannot run is left out
                                                            out.fitting.push_back(served(d, hw, m, v));
                                                        } catch (const AnalysisError &) {
                                                        }
                                                        continue;
                                                    }
                                                    SearchPoint p;
                                                    p.device = d;
                                                    p.scenario = s;
                                                    p.devices = stage * pp * dp;
                                                    p.ttftS = a.phases.ttftS;
                                                    p.tpotS = a.phases.tpotS;
                                                    p.tokensPerSPerDevice = a.totals.tokensPerS / p.devices;
                                                    p.tokensPerSPerUser = 1.0 / p.tpotS;
                                                    if (hw.usdPerHour)
                                                        p.usdPerMillionTokens =
                                                            hw.usdPerHour->value / 3600.0 / p.tokensPerSPerDevice * 1e6;
                                                    out.fitting.push_back(p);
                                                }
                                            // dp copies as prefill and decode pools, one copy's batch b each.
                                            if (!space.disaggregate || dp < 2)
                                                continue;
                                            const int g = stage * pp;
                                            for (int k : space.speculativeKs)
                                                for (int64_t prompts :
                                                     b > 1 ? std::vector<int64_t>{1, b} : std::vector<int64_t>{1}) {
                                                    std::optional<SearchPoint> best;
                                                    double bestRate = -1;
                                                    for (int pc = 1; pc < dp; ++pc) {
                                                        Scenario v = s;
                                                        v.dp = 1;
                                                        v.batch = b;
                                                        v.speculativeK = k;
                                                        v.prefillBatch = prompts;
                                                        v.prefillDevices = pc * g;
                                                        v.decodeDevices = (dp - pc) * g;
                                                        double rate = 0;
                                                        try { // a prefill this split cannot run (attention DP)
                                                            rate = reportOf(hw, m, v).disaggregation->requestsPerS;
                                                        } catch (const AnalysisError &) {
                                                            break;
                                                        }
                                                        if (rate > bestRate) {
                                                            bestRate = rate;
                                                            best = served(d, hw, m, v);
                                                        }
                                                    }
                                                    if (best)
                                                        out.fitting.push_back(*best);
                                                }
                                        }
                            }
    }
    return out;
}

bool sameFigures(const SearchPoint &a, const SearchPoint &b, bool withCost)
{
    const auto near = [](double x, double y) { return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y)); };
    return near(a.tokensPerSPerDevice, b.tokensPerSPerDevice) && near(a.tokensPerSPerUser, b.tokensPerSPerUser) &&
           (!withCost || near(*a.usdPerMillionTokens, *b.usdPerMillionTokens));
}

/// A key naming a configuration, for comparing sets.
QString key(const SearchPoint &p)
{
    const Scenario &s = p.scenario;
    return QStringLiteral("%1 tp%2 pp%3 ep%4 dp%5 b%6 %7 %8 %9 %10 adp%11 moe%12x%13")
        .arg(p.device)
        .arg(s.tp)
        .arg(s.pp)
        .arg(s.ep)
        .arg(s.dp)
        .arg(s.batch)
        .arg(QString::fromStdString(toString(SearchPrecision{s.weights, s.activations})))
        .arg(QString::fromLatin1(toString(s.kv).data(), qsizetype(toString(s.kv).size())))
        .arg(p.devices)
        .arg(QString::fromStdString(servingLabel(s)))
        .arg(s.attentionDp)
        .arg(moeTp(s))
        .arg(moeEp(s));
}

} // namespace

class TestSearch : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { m_lib.loadBuiltin(); }
    void precisionText_data();
    void precisionText();
    void frontIsBruteForceFront_data();
    void frontIsBruteForceFront();
    void costByHand();
    void dominance();
    void nearestWhenNothingMeets();
    void floorsAreTheIdealRoofline();
    void chunkedPrefillAdmitsOneChunkAStep();
    void disaggregatedPointByHand();
    void sameResultOnAnyNumberOfThreads();
    void badSpacesAreRefused();
    void workerExceptionIsThrownAfterEveryThreadStops();
    void spaceAboveTheLimitIsRefusedBeforeSearching();
    void expertWeightsDecideTheFit();

private:
    PresetLibrary m_lib;
    const HardwareSpec &hw(const char *id) { return *m_lib.findHardware(id); }
    const ModelShape &model(const char *id) { return m_lib.findModel(id)->shape; }
    SearchSpace smallSpace(std::initializer_list<const char *> devices, int maxDevices)
    {
        SearchSpace space;
        for (const char *d : devices)
            space.devices.push_back(hw(d));
        space.maxDevices = maxDevices;
        space.batches = {1, 4, 16, 64, 256};
        space.precisions = {*searchPrecisionFromString("fp16"), *searchPrecisionFromString("fp8"),
                            *searchPrecisionFromString("int4/g128")};
        space.kvFormats = {DType::FP16, DType::FP8};
        space.base.seq = 1024;
        space.base.output = 128;
        space.speculativeKs = {0, 3};
        space.prefillChunks = {0, 256};
        return space;
    }
};

void TestSearch::precisionText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("weights");
    QTest::addColumn<QString>("activations");
    QTest::addColumn<QString>("back");
    QTest::newRow("fp16") << "fp16"
                          << "fp16"
                          << "fp16"
                          << "fp16";
    QTest::newRow("fp8 computes in fp8") << "fp8"
                                         << "fp8"
                                         << "fp8"
                                         << "fp8";
    QTest::newRow("int4 weight-only") << "int4/g128"
                                      << "int4/g128"
                                      << "fp16"
                                      << "int4/g128";
    QTest::newRow("int4 with fp8 activations") << "int4/g128:fp8"
                                               << "int4/g128"
                                               << "fp8"
                                               << "int4/g128:fp8";
    QTest::newRow("nvfp4") << "nvfp4"
                           << "fp4/g16/fp8"
                           << "fp4"
                           << "fp4/g16/fp8";
    QTest::newRow("not a format") << "fp7"
                                  << ""
                                  << ""
                                  << "";
    QTest::newRow("bad activations") << "fp16:fp99"
                                     << ""
                                     << ""
                                     << "";
}

void TestSearch::precisionText()
{
    QFETCH(QString, text);
    QFETCH(QString, weights);
    QFETCH(QString, activations);
    QFETCH(QString, back);
    const auto p = searchPrecisionFromString(text.toStdString());
    QCOMPARE(p.has_value(), !weights.isEmpty());
    if (!p)
        return;
    QCOMPARE(QString::fromStdString(toString(p->weights)), weights);
    QCOMPARE(QString::fromLatin1(toString(p->activations).data()), activations);
    QCOMPARE(QString::fromStdString(toString(*p)), back);
    QCOMPARE(searchPrecisionFromString(toString(*p)), p);
}

void TestSearch::frontIsBruteForceFront_data()
{
    QTest::addColumn<QStringList>("devices");
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("maxDevices");
    QTest::addColumn<double>("maxTtftMs");
    QTest::addColumn<double>("maxTpotMs");
    QTest::addColumn<double>("minPerUser");
    QTest::addColumn<bool>("withCost");
    QTest::newRow("Llama 3 8B, H100 and MI300X, no targets (priced)")
        << QStringList{"h100-sxm", "mi300x"} << "llama-3-8b" << 8 << 0.0 << 0.0 << 0.0 << true;
    QTest::newRow("Llama 3 70B, H100, H200, B200, TPOT 50 ms (priced)")
        << QStringList{"h100-sxm", "h200-sxm", "b200"} << "llama-3-70b" << 16 << 0.0 << 50.0 << 0.0 << true;
    QTest::newRow("Llama 3 70B, A100 80GB and GB300, TTFT 2 s, 20 tokens/s per user (GB300 unpriced)")
        << QStringList{"a100-80gb-sxm", "gb300"} << "llama-3-70b" << 16 << 2000.0 << 0.0 << 20.0 << false;
    QTest::newRow("Mixtral 8x7B, H100 and MI300X, expert parallelism")
        << QStringList{"h100-sxm", "mi300x"} << "mixtral-8x7b" << 8 << 0.0 << 30.0 << 0.0 << true;
}

void TestSearch::frontIsBruteForceFront()
{
    QFETCH(QStringList, devices);
    QFETCH(QString, model);
    QFETCH(int, maxDevices);
    QFETCH(double, maxTtftMs);
    QFETCH(double, maxTpotMs);
    QFETCH(double, minPerUser);
    QFETCH(bool, withCost);
    QVERIFY2(m_lib.findModel(model.toStdString()), qPrintable(model));
    SearchSpace space = smallSpace({}, maxDevices);
    for (const QString &d : devices)
        space.devices.push_back(*m_lib.findHardware(d.toStdString()));
    const ModelShape &m = m_lib.findModel(model.toStdString())->shape;
    const SearchTargets targets{maxTtftMs / 1e3, maxTpotMs / 1e3, minPerUser};

    const SearchCandidates c = searchCandidates(m, space);
    QCOMPARE(c.withCost, withCost);
    const Brute brute = bruteForce(m, space);
    // The same fitting set: pruning dropped nothing that fits, and nothing was searched twice.
    std::set<QString> searched, expected;
    for (std::size_t i = 0; i < c.points.size(); ++i)
        QVERIFY2(searched.insert(key(c.point(i))).second, qPrintable(key(c.point(i))));
    for (const auto &p : brute.fitting)
        expected.insert(key(p));
    std::vector<QString> extra, missing;
    std::set_difference(searched.begin(), searched.end(), expected.begin(), expected.end(), std::back_inserter(extra));
    std::set_difference(expected.begin(), expected.end(), searched.begin(), searched.end(),
                        std::back_inserter(missing));
    for (std::size_t i = 0; i < std::min<std::size_t>(extra.size(), 5); ++i)
        qWarning("searched, not brute force: %s", qPrintable(extra[i]));
    for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 5); ++i)
        qWarning("brute force, not searched: %s", qPrintable(missing[i]));
    QCOMPARE(searched, expected);
    QVERIFY(c.evaluated >= c.analysed + c.pruned);

    const SearchFront f = selectFront(c, targets, m, space);
    std::vector<SearchPoint> meeting;
    for (const auto &p : brute.fitting)
        if (meets(p, targets))
            meeting.push_back(p);
    QCOMPARE(f.meeting, uint64_t(meeting.size()));
    QVERIFY(!f.pareto.empty());
    // Every front point meets the targets and nothing that meets them dominates it.
    for (const SearchPoint &p : f.pareto) {
        QVERIFY(meets(p, targets));
        for (const SearchPoint &q : meeting)
            QVERIFY2(!dominates(q, p, withCost), qPrintable(key(q) + " dominates " + key(p)));
    }
    // Every non-dominated point of brute force is on the front, or has its exact figures there (replicas).
    int nonDominated = 0;
    for (const SearchPoint &p : meeting) {
        const bool dominated = std::any_of(meeting.begin(), meeting.end(),
                                           [&](const SearchPoint &q) { return dominates(q, p, withCost); });
        if (dominated)
            continue;
        ++nonDominated;
        QVERIFY2(std::any_of(f.pareto.begin(), f.pareto.end(),
                             [&](const SearchPoint &q) { return sameFigures(p, q, withCost); }),
                 qPrintable("missing from the front: " + key(p)));
    }
    QVERIFY(nonDominated >= int(f.pareto.size()));
    // Ordered by tokens/s per user, rising.
    for (std::size_t i = 1; i < f.pareto.size(); ++i)
        QVERIFY(f.pareto[i - 1].tokensPerSPerUser <= f.pareto[i].tokensPerSPerUser);
}

void TestSearch::costByHand()
{
    SearchPoint p;
    SearchSpace space = smallSpace({"h100-sxm"}, 1);
    space.usdPerDeviceHour = 3.99;
    space.batches = {8};
    space.speculativeKs = {0};
    space.prefillChunks = {0};
    const SearchCandidates c = searchCandidates(model("llama-3-8b"), space);
    QVERIFY(c.withCost);
    QVERIFY(!c.points.empty());
    for (std::size_t i = 0; i < c.points.size(); ++i) {
        const SearchPoint q = c.point(i);
        // $/million tokens = price per second / tokens per second per device x 1e6.
        QCOMPARE(*q.usdPerMillionTokens, 3.99 / 3600.0 / q.tokensPerSPerDevice * 1e6);
        const Analysis a = analyze(hw("h100-sxm"), model("llama-3-8b"), q.scenario);
        QCOMPARE(q.tokensPerSPerDevice, a.totals.tokensPerS);
        QCOMPARE(q.tpotS, a.phases.tpotS);
        QCOMPARE(q.tokensPerSPerUser, 1.0 / a.phases.tpotS);
    }
    p.tokensPerSPerDevice = 1000;
    p.usdPerMillionTokens = 3.99 / 3600.0 / p.tokensPerSPerDevice * 1e6;
    QCOMPARE(qRound(*p.usdPerMillionTokens * 1000), 1108); // the hand count above: $1.108
}

void TestSearch::dominance()
{
    SearchPoint a, b;
    a.tokensPerSPerDevice = 100;
    a.tokensPerSPerUser = 50;
    a.usdPerMillionTokens = 2;
    b = a;
    QVERIFY(!dominates(a, b, true)); // equal: neither
    b.tokensPerSPerUser = 40;
    QVERIFY(dominates(a, b, true));
    QVERIFY(!dominates(b, a, true));
    b.usdPerMillionTokens = 1; // cheaper: a trade-off in three objectives, still dominated in two
    QVERIFY(!dominates(a, b, true));
    QVERIFY(dominates(a, b, false));
}

void TestSearch::nearestWhenNothingMeets()
{
    const SearchSpace space = smallSpace({"h100-sxm", "mi300x"}, 8);
    const ModelShape &m = model("llama-3-70b");
    const SearchCandidates c = searchCandidates(m, space);
    QVERIFY(!c.points.empty());
    const SearchFront f = selectFront(c, {0, 1e-4, 0}, m, space); // TPOT 0.1 ms: out of reach
    QVERIFY(f.pareto.empty());
    QCOMPARE(f.meeting, uint64_t(0));
    QVERIFY(f.nearest);
    // With only a TPOT target, the nearest is the fastest per token.
    double fastest = 1e300;
    for (const auto &p : c.points)
        fastest = std::min(fastest, p.tpotS);
    QCOMPARE(f.nearest->tpotS, fastest);
    QVERIFY2(QString::fromStdString(f.nearestMiss).startsWith("TPOT ") &&
                 QString::fromStdString(f.nearestMiss).endsWith(" over 0.1 ms"),
             f.nearestMiss.c_str());
    // A target met by some: no nearest.
    QVERIFY(!selectFront(c, {0, 1.0, 0}, m, space).nearest);
}

void TestSearch::floorsAreTheIdealRoofline()
{
    SearchSpace space = smallSpace({"h100-sxm", "mi300x"}, 8);
    space.base.efficiency = EfficiencyMode::Achievable;
    const ModelShape &m = model("llama-3-8b");
    const SearchCandidates c = searchCandidates(m, space);
    QVERIFY(c.efficiency == EfficiencyMode::Achievable);
    const SearchFront f = selectFront(c, {}, m, space);
    QVERIFY(!f.pareto.empty());
    int serving = 0;
    for (const SearchPoint &p : f.pareto) {
        Scenario ideal = p.scenario;
        ideal.efficiency = EfficiencyMode::Ideal;
        const HardwareSpec &dev = space.devices[p.device];
        const ServedRequest q = servedRequest(ideal, serve(dev, m, ideal));
        QCOMPARE(p.tpotFloorS, q.tpotS);
        QCOMPARE(p.ttftFloorS, q.ttftS);
        QVERIFY(p.tpotFloorS < p.tpotS); // the published fractions are below 1
        serving += servingLabel(p.scenario) != "plain" ? 1 : 0;
        // Both devices have microbenchmarks: every point carries the validation set's band.
        QVERIFY(!dev.achievable.empty());
        QVERIFY(p.band);
        QCOMPARE(p.band->low, kAchievableBand.low);
        QCOMPARE(p.band->high, kAchievableBand.high);
    }
    QVERIFY(serving > 0); // the front holds serving options, whose floors come through serve()
    // At ideal efficiency the times are the bound itself: no band.
    space.base.efficiency = EfficiencyMode::Ideal;
    const SearchCandidates ci = searchCandidates(m, space);
    for (const SearchPoint &p : selectFront(ci, {}, m, space).pareto) {
        QVERIFY(!p.band);
        QCOMPARE(p.tpotFloorS, p.tpotS);
    }
}

void TestSearch::chunkedPrefillAdmitsOneChunkAStep()
{
    // Llama 3 8B on one H100, prompt 1,024, output 128, chunk 256: a mixed step takes one chunk, a quarter of a
    // prompt, so in the steady state it admits 256 / 1,024 = 0.25 prompts and finishes as many requests: at most
    // 0.25 x 128 = 32 tokens a step. At batch 64 that caps the throughput at 32 / mixed step (64 x 128 / 131 steps
    // would be 62.5); at batch 4 the request's own figure, 4 x 128 / (TTFT + 127 mixed steps), is below the cap and
    // stands.
    SearchSpace space = smallSpace({"h100-sxm"}, 1);
    space.batches = {4, 64};
    space.precisions = {*searchPrecisionFromString("fp16")};
    space.kvFormats = {DType::FP16};
    space.speculativeKs = {0};
    space.prefillChunks = {256};
    const ModelShape &m = model("llama-3-8b");
    const SearchCandidates c = searchCandidates(m, space);
    QCOMPARE(c.points.size(), std::size_t(2));
    for (std::size_t i = 0; i < c.points.size(); ++i) {
        const SearchPoint p = c.point(i);
        QCOMPARE(p.scenario.chunkedPrefill, int64_t(256));
        const ChunkedPrefillReport cp = chunkPrefill(hw("h100-sxm"), m, p.scenario);
        QCOMPARE(p.tpotS, cp.mixedStepS);
        QCOMPARE(p.ttftS, 4 * cp.mixedStepS); // ceil(1,024 / 256) mixed steps
        const double request = double(p.scenario.batch) * 128 / (p.ttftS + 127 * p.tpotS);
        const double cap = 0.25 * 128 / cp.mixedStepS;
        if (p.scenario.batch == 64) {
            QVERIFY(cap < request);
            QVERIFY(qFuzzyCompare(p.tokensPerSPerDevice, cap));
        } else {
            QVERIFY(request < cap);
            QVERIFY(qFuzzyCompare(p.tokensPerSPerDevice, request));
        }
    }
}

void TestSearch::disaggregatedPointByHand()
{
    // Llama 3 8B on H100s, tp 1, 4 copies, decode batch 16 per copy, a prefill copy takes one prompt at a time:
    //   prefill pool of P copies: P x 1 / prefill(1 prompt) requests/s;
    //   decode pool of 4 - P copies: (4 - P) x 16 / (127 steps x TPOT) requests/s;
    //   the search keeps the P with the most requests/s (the slower pool's), and
    //   tokens/s per device = requests/s x 128 output tokens / 4 devices;
    //   TTFT = prefill(1 prompt) + 1 prompt x KV bytes per token x 1,024 tokens / NVLink bandwidth + its latency.
    SearchSpace space = smallSpace({"h100-sxm"}, 4);
    space.batches = {16};
    space.precisions = {*searchPrecisionFromString("fp16")};
    space.kvFormats = {DType::FP16};
    space.speculativeKs = {0};
    space.prefillChunks = {0};
    const ModelShape &m = model("llama-3-8b");
    const HardwareSpec &h100 = hw("h100-sxm");
    const SearchCandidates c = searchCandidates(m, space);
    std::optional<SearchPoint> p;
    for (std::size_t i = 0; i < c.points.size(); ++i) {
        const SearchConfig &k = c.points[i].config;
        if (k.tp == 1 && k.pp == 1 && c.points[i].devices == 4 && k.prefillBatch == 1)
            p = c.point(i);
    }
    QVERIFY(p);

    Scenario s = space.base;
    s.phase = Phase::Generate;
    s.batch = 16;
    const Analysis gen = analyze(h100, m, s);
    Scenario pf = s;
    pf.phase = Phase::Prefill;
    pf.batch = 1;
    const double prefill = analyze(h100, m, pf).totals.timeS;
    const double decode = 127 * gen.phases.tpotS;
    double best = -1;
    int bestP = 0;
    for (int pc = 1; pc < 4; ++pc) {
        const double rate = std::min(pc * 1.0 / prefill, (4 - pc) * 16.0 / decode);
        if (rate > best) {
            best = rate;
            bestP = pc;
        }
    }
    QCOMPARE(p->scenario.prefillDevices, bestP);
    QCOMPARE(p->scenario.decodeDevices, 4 - bestP);
    QCOMPARE(p->devices, 4);
    QVERIFY(qFuzzyCompare(p->tokensPerSPerDevice, best * 128 / 4));
    QVERIFY(qFuzzyCompare(p->tpotS, gen.phases.tpotS));
    const Interconnect &nvlink = *h100.scaleUpLink();
    const double kvPerToken = 2.0 * 32 * 8 * 128 * 2; // layers x KV heads x head dim x FP16, K and V: 131,072 B
    QCOMPARE(gen.kvCache.bytesPerToken, kvPerToken);
    QVERIFY(
        qFuzzyCompare(p->ttftS, prefill + kvPerToken * 1024 / nvlink.bandwidthBytesPerS.value + nvlink.latencyS.value));
    // The same point through `memwall analyze`'s serving report.
    const ServedRequest q = servedRequest(p->scenario, serve(h100, m, p->scenario));
    QCOMPARE(q.tokensPerSPerDevice, p->tokensPerSPerDevice);
    QCOMPARE(q.ttftS, p->ttftS);
}

void TestSearch::sameResultOnAnyNumberOfThreads()
{
    SearchSpace space = smallSpace({"h100-sxm", "mi300x", "b200"}, 16);
    space.threads = 1;
    const SearchCandidates one = searchCandidates(model("llama-3-70b"), space);
    space.threads = 3;
    const SearchCandidates three = searchCandidates(model("llama-3-70b"), space);
    QCOMPARE(one.points.size(), three.points.size());
    QCOMPARE(one.evaluated, three.evaluated);
    QCOMPARE(one.pruned, three.pruned);
    for (std::size_t i = 0; i < one.points.size(); ++i)
        QCOMPARE(key(one.point(i)), key(three.point(i)));
    QVERIFY(one.pruned > 0); // FP16 Llama 3 70B does not fit one H100: pruned before analysis
}

void TestSearch::badSpacesAreRefused()
{
    SearchSpace space;
    QVERIFY_THROWS_EXCEPTION(AnalysisError, searchCandidates(model("llama-3-8b"), space));
    space = smallSpace({"h100-sxm"}, 0);
    QVERIFY_THROWS_EXCEPTION(AnalysisError, searchCandidates(model("llama-3-8b"), space));
    space = smallSpace({"h100-sxm"}, 8);
    space.batches = {0};
    QVERIFY_THROWS_EXCEPTION(AnalysisError, searchCandidates(model("llama-3-8b"), space));
    space = smallSpace({"h100-sxm"}, 8);
    space.base.seq = 0;
    QVERIFY_THROWS_EXCEPTION(AnalysisError, searchCandidates(model("llama-3-8b"), space));
}

void TestSearch::workerExceptionIsThrownAfterEveryThreadStops()
{
    // Memory running out in one thread (here: the progress callback, called from whichever thread ends a job, throws
    // what a failed allocation throws) reaches the caller as that exception once every thread has been joined; a
    // joinable std::thread destroyed by the unwinding ended the program instead (issue #42).
    SearchSpace space = smallSpace({"h100-sxm", "mi300x", "b200"}, 16);
    for (int threads : {1, 2, 4}) {
        space.threads = threads;
        std::atomic<int> calls{0};
        space.progress = [&calls](uint64_t, uint64_t) {
            if (++calls == 1)
                throw std::bad_alloc();
        };
        QVERIFY_THROWS_EXCEPTION(std::bad_alloc, searchCandidates(model("llama-3-70b"), space));
        QCOMPARE(calls.load(), 1); // the first report throws at once (it is never held back), and no thread goes on
    }
    // Reports count up to the total, which searchConfigurations() gives before the search starts.
    space.threads = 2;
    uint64_t last = 0, total = 0;
    std::mutex m;
    space.progress = [&](uint64_t done, uint64_t all) {
        const std::lock_guard lock(m);
        QVERIFY(done >= last && done <= all);
        last = done;
        total = all;
    };
    const SearchCandidates c = searchCandidates(model("llama-3-70b"), space);
    QCOMPARE(total, c.evaluated);
    QCOMPARE(searchConfigurations(model("llama-3-70b"), space), c.evaluated);
}

void TestSearch::spaceAboveTheLimitIsRefusedBeforeSearching()
{
    SearchSpace space = smallSpace({"h100-sxm", "mi300x", "b200"}, 16);
    const uint64_t n = searchConfigurations(model("llama-3-70b"), space);
    space.maxConfigurations = n; // at the limit: searched
    QCOMPARE(searchCandidates(model("llama-3-70b"), space).evaluated, n);
    space.maxConfigurations = n - 1;
    bool called = false;
    space.progress = [&called](uint64_t, uint64_t) { called = true; };
    try {
        searchCandidates(model("llama-3-70b"), space);
        QFAIL("a space above the limit was searched");
    } catch (const AnalysisError &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains("more than the limit of"), e.what());
    }
    QVERIFY(!called); // refused before any configuration was analysed
    // Every list of the command line at its largest: 26.6 million configurations for K 0-16 alone.
    SearchSpace huge;
    for (const HardwareSpec &h : m_lib.hardware())
        if (h.category == "gpu")
            huge.devices.push_back(h);
    for (int k = 0; k <= 16; ++k)
        huge.speculativeKs.push_back(k);
    QVERIFY(searchConfigurations(model("llama-2-7b"), huge) > kDefaultMaxSearchConfigurations);
    QVERIFY_THROWS_EXCEPTION(AnalysisError, searchCandidates(model("llama-2-7b"), huge));
}

// Issue #37: the search's fit check counts the weights as analyze() does, the routed experts at expert_weights.
// gpt-oss-20b in BF16 holds about 42 GB of weights (20.9 G parameters x 2 B): not on one 24 GB RTX 4090. With its
// experts in MXFP4 (4 bits and one 8-bit scale per 32: 4.25 bits a weight) analyze() says it fits; the search must
// offer it, and must not offer it without them.
void TestSearch::expertWeightsDecideTheFit()
{
    const ModelShape &m = model("gpt-oss-20b");
    SearchSpace space = smallSpace({"rtx-4090"}, 1);
    space.precisions = {*searchPrecisionFromString("fp16")};
    space.kvFormats = {DType::FP16};
    space.batches = {1};
    space.speculativeKs = {0};
    space.prefillChunks = {0};
    space.disaggregate = false;
    Scenario s = searchBase(space.base);
    QVERIFY(!analyze(hw("rtx-4090"), m, s).memory.fits);
    QVERIFY(searchCandidates(m, space).points.empty());
    space.base.expertWeights = *weightFormatFromString("mxfp4");
    s = searchBase(space.base);
    QVERIFY(s.expertWeights.has_value());
    const Analysis a = analyze(hw("rtx-4090"), m, s);
    QVERIFY(a.memory.fits);
    const SearchCandidates c = searchCandidates(m, space);
    QCOMPARE(c.points.size(), std::size_t(1));
    QCOMPARE(c.point(0).scenario.expertWeights.has_value(), true);
    QVERIFY(std::abs(c.point(0).tpotS / analyze(hw("rtx-4090"), m, s).phases.tpotS - 1) < 1e-12);
}

} // namespace memwall::core

QTEST_APPLESS_MAIN(memwall::core::TestSearch)
#include "tst_search.moc"
