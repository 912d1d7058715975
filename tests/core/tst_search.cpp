// Tests for core/search: the design-space search and its Pareto front.
//
// The front is checked against brute force: every power-of-two split of a small space is analysed here, without
// pruning, by analyze() itself (which refuses the splits a model does not divide); the non-dominated points of what
// fits and meets the targets are found by comparing every pair. The search must find the same fitting set (its
// pruning never drops a configuration that fits) and the same front.
//
// Hand count of the cost figure: an H100 at $3.99 an hour serving 1,000 tokens/s costs
//   3.99 / 3,600 s = 0.0011083 $ per second, / 1,000 tokens/s = 1.1083e-6 $ per token = $1.108 per million tokens.
#include "core/io/presets.h"
#include "core/search/search.h"

#include <QtTest>

#include <set>

namespace memwall::core {

namespace {

struct Brute
{
    std::vector<SearchPoint> fitting;
};

/// Every configuration of `space`, analysed one by one.
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
                    for (int dp : powers) {
                        if (int64_t(tp) * pp * ep * dp > space.maxDevices || tp * ep > domain)
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
                                    SearchPoint p;
                                    p.device = d;
                                    p.scenario = s;
                                    p.devices = tp * pp * ep * dp;
                                    p.ttftS = a.phases.ttftS;
                                    p.tpotS = a.phases.tpotS;
                                    p.tokensPerSPerDevice = a.totals.tokensPerS / p.devices;
                                    p.tokensPerSPerUser = 1.0 / p.tpotS;
                                    if (hw.usdPerHour)
                                        p.usdPerMillionTokens =
                                            hw.usdPerHour->value / 3600.0 / p.tokensPerSPerDevice * 1e6;
                                    out.fitting.push_back(p);
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
    return QStringLiteral("%1 tp%2 pp%3 ep%4 dp%5 b%6 %7 %8 %9")
        .arg(p.device)
        .arg(s.tp)
        .arg(s.pp)
        .arg(s.ep)
        .arg(s.dp)
        .arg(s.batch)
        .arg(QString::fromStdString(toString(SearchPrecision{s.weights, s.activations})))
        .arg(QString::fromLatin1(toString(s.kv).data(), qsizetype(toString(s.kv).size())))
        .arg(p.devices);
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
    void sameResultOnAnyNumberOfThreads();
    void badSpacesAreRefused();

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
    for (const auto &p : c.points)
        QVERIFY2(searched.insert(key(p)).second, qPrintable(key(p)));
    for (const auto &p : brute.fitting)
        expected.insert(key(p));
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
    const SearchCandidates c = searchCandidates(model("llama-3-8b"), space);
    QVERIFY(c.withCost);
    QVERIFY(!c.points.empty());
    for (const SearchPoint &q : c.points) {
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
    for (const SearchPoint &p : f.pareto) {
        Scenario ideal = p.scenario;
        ideal.efficiency = EfficiencyMode::Ideal;
        const Analysis a = analyze(space.devices[p.device], m, ideal);
        QCOMPARE(p.tpotFloorS, a.phases.tpotS);
        QCOMPARE(p.ttftFloorS, a.phases.ttftS);
        QVERIFY(p.tpotFloorS < p.tpotS); // the published fractions are below 1
    }
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
        QCOMPARE(key(one.points[i]), key(three.points[i]));
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

} // namespace memwall::core

QTEST_APPLESS_MAIN(memwall::core::TestSearch)
#include "tst_search.moc"
