// Tests for what a sweep checks and counts once for all its points (issue #38's regression: prepareAnalyses()).
//
// A sweep checks the model, counts its layer groups and parameters, and range-checks the options that do not vary
// once, then each point checks only its varied values. Nothing of that may show: every row must be what a fresh
// analyzeTotals() of the row's scenario gives, figures and error text alike, for models of different widths swept
// one after another (so a count kept from one model cannot serve the next), for varied values out of range (axes
// made by hand, past parseSweepAxis()'s own check), and for a base scenario that is itself out of range.
#include "core/analysis/analysis.h"
#include "core/analysis/options.h"
#include "core/analysis/sweep.h"
#include "core/io/analysisjson.h"

#include "../builtinpresets.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace memwall::core {

using testpresets::hw;
using testpresets::model;

namespace {

// Attention of different widths: Llama's ordinary layers, Gemma 4's global layers of their own head size and KV
// heads, Gemma 4 E2B's KV sharing and per-layer inputs, DeciLM's per-layer blocks, MLA, a hybrid with state-space
// layers, a vision tower (images).
const char *const kModels[] = {"llama-3-1-405b", "gemma-4-31b",    "gemma-4-e2b", "llama-3.3-nemotron-super-49b",
                               "deepseek-v3",    "jamba-1-5-mini", "qwen3-vl-8b", "llama-3-8b"};

/// What a sweep row holds, from a fresh analysis of its scenario.
SweepRow freshRow(const HardwareSpec &h, const ModelShape &m, const Scenario &s)
{
    SweepRow r;
    r.scenario = s;
    try {
        const Analysis a = analyzeTotals(h, m, s);
        r.totals = a.totals;
        r.memory = a.memory;
        r.phases = a.phases;
        r.kvTotalBytes = a.kvCache.totalBytes;
    } catch (const AnalysisError &e) {
        r.error = e.what();
    }
    return r;
}

/// "" if the rows are the same to the bit, else the first field that differs.
std::string rowDifference(const SweepRow &a, const SweepRow &b)
{
    if (!(a.scenario == b.scenario))
        return "scenario";
    if (a.error != b.error)
        return "error '" + a.error + "' against '" + b.error + "'";
    const std::pair<const char *, std::pair<double, double>> figures[] = {
        {"flops", {a.totals.flops, b.totals.flops}},
        {"bytes", {a.totals.bytes, b.totals.bytes}},
        {"intensity", {a.totals.intensity, b.totals.intensity}},
        {"timeS", {a.totals.timeS, b.totals.timeS}},
        {"launchS", {a.totals.launchS, b.totals.launchS}},
        {"quantizeS", {a.totals.quantizeS, b.totals.quantizeS}},
        {"timeLowS", {a.totals.timeLowS, b.totals.timeLowS}},
        {"timeHighS", {a.totals.timeHighS, b.totals.timeHighS}},
        {"tokensPerS", {a.totals.tokensPerS, b.totals.tokensPerS}},
        {"tokens", {a.totals.tokens, b.totals.tokens}},
        {"modelFlops", {a.totals.modelFlops, b.totals.modelFlops}},
        {"achievedFlopsPerS", {a.totals.achievedFlopsPerS, b.totals.achievedFlopsPerS}},
        {"memory.weights", {a.memory.weights, b.memory.weights}},
        {"memory.kv", {a.memory.kv, b.memory.kv}},
        {"memory.activations", {a.memory.activations, b.memory.activations}},
        {"memory.gradients", {a.memory.gradients, b.memory.gradients}},
        {"memory.optimizer", {a.memory.optimizer, b.memory.optimizer}},
        {"memory.state", {a.memory.state, b.memory.state}},
        {"memory.capacity", {a.memory.capacity, b.memory.capacity}},
        {"ttftS", {a.phases.ttftS, b.phases.ttftS}},
        {"tpotS", {a.phases.tpotS, b.phases.tpotS}},
        {"e2eS", {a.phases.e2eS, b.phases.e2eS}},
        {"kvTotalBytes", {a.kvTotalBytes, b.kvTotalBytes}}};
    for (const auto &[name, v] : figures)
        if (std::memcmp(&v.first, &v.second, sizeof(double)) != 0)
            return std::string(name) + " " + std::to_string(v.first) + " against " + std::to_string(v.second);
    if (a.totals.bound != b.totals.bound || a.totals.linearBound != b.totals.linearBound)
        return "bound";
    if (a.memory.fits != b.memory.fits)
        return "fits";
    return {};
}

/// What checkSweep() saw: the rows, of them the error rows, and the first row that differs from a fresh analysis.
struct SweepCheck
{
    int rows = 0, errors = 0;
    std::string firstDifference;
};

/// Sweeps `axes` over the model `modelId` from `base` and compares every row with a fresh analysis of its scenario.
SweepCheck checkSweep(const char *modelId, const Scenario &base, const std::vector<SweepAxis> &axes)
{
    const HardwareSpec &h = hw("h100-sxm");
    const ModelShape &m = model(modelId);
    SweepCheck c;
    sweepEach(h, m, base, axes, [&](const SweepRow &r) {
        ++c.rows;
        c.errors += r.error.empty() ? 0 : 1;
        const std::string diff = rowDifference(r, freshRow(h, m, r.scenario));
        if (!diff.empty() && c.firstDifference.empty())
            c.firstDifference = std::string(modelId) + " at batch " + std::to_string(r.scenario.batch) + ", context " +
                                std::to_string(r.scenario.context) + ", tp " + std::to_string(r.scenario.tp) + ": " +
                                diff;
    });
    return c;
}

/// checkSweep() that fails the test on a row unlike a fresh analysis; returns {rows, error rows}.
#define CHECK_SWEEP(c, ...)                                                                                            \
    const SweepCheck c = checkSweep(__VA_ARGS__);                                                                      \
    QVERIFY2(c.firstDifference.empty(), c.firstDifference.c_str())

Scenario decodeBase()
{
    Scenario s;
    s.phase = Phase::Decode;
    s.batch = 8;
    s.context = 4096;
    return s;
}

} // namespace

class TestSweep : public QObject
{
    Q_OBJECT
private slots:
    void rowsAreFreshAnalysesModelAfterModel();
    void variedValuesOutOfRangeGiveAnalyzeErrors();
    void baseOutOfRangeGivesAnalyzeErrors();
    void imagesCheckThePromptAtEveryPoint();
    void preparedForAnotherModelIsNotUsed();
    void optionAcceptsIsCheckOption();
};

void TestSweep::rowsAreFreshAnalysesModelAfterModel()
{
    // Every model twice, the second round in reverse, each sweep right after one of another width: batch, tp (3 and
    // 5 divide no model's heads: error rows) and context.
    std::vector<SweepAxis> axes{{"batch", {1, 3, 64, 1024}}, {"tp", {1, 2, 3, 5, 8}}, {"context", {16, 4096, 131072}}};
    int errors = 0, rows = 0;
    for (const char *id : kModels) {
        CHECK_SWEEP(c, id, decodeBase(), axes);
        rows += c.rows;
        errors += c.errors;
    }
    Scenario generate;
    generate.phase = Phase::Generate;
    generate.seq = 1024;
    generate.output = 256;
    for (auto it = std::rbegin(kModels); it != std::rend(kModels); ++it) {
        CHECK_SWEEP(c, *it, generate, {{"batch", {1, 16}}, {"tp", {1, 4}}, {"output", {1, 300}}});
        rows += c.rows;
        errors += c.errors;
    }
    QCOMPARE(rows, 8 * 60 + 8 * 8);
    QVERIFY(errors > 0);    // the error rows were compared too
    QVERIFY(errors < rows); // and the figures
}

void TestSweep::variedValuesOutOfRangeGiveAnalyzeErrors()
{
    // Axes made by hand: sweepEach() gets values parseSweepAxis() would refuse, and each row says what analyze()
    // says ("batch must be between 1 and ..., got 0"), in the option table's order when two are out of range.
    const int64_t huge = int64_t(1) << 40;
    CHECK_SWEEP(c, "llama-3-8b", decodeBase(),
                {{"batch", {0, 1, huge}}, {"context", {-1, 8, huge}}, {"pp", {0, 1, 70000}}});
    QCOMPARE(c.rows, 27);
    QCOMPARE(c.errors, 26); // only batch 1, context 8, pp 1 analyses
    // The error names the first option out of range in the table's order, as analyze() does.
    Scenario s = decodeBase();
    s.batch = 0;
    s.pp = 0;
    const PreparedAnalyses p =
        prepareAnalyses(model("llama-3-8b"), decodeBase(), {findOption("pp"), findOption("batch")});
    QVERIFY(p.othersPass);
    QCOMPARE(p.varied.size(), std::size_t(2));
    QVERIFY(p.varied[0]->key == "batch"); // the table's order, not the axes'
    QVERIFY_THROWS_EXCEPTION(AnalysisError, analyzeTotals(hw("h100-sxm"), model("llama-3-8b"), s, p));
    try {
        analyzeTotals(hw("h100-sxm"), model("llama-3-8b"), s, p);
    } catch (const AnalysisError &e) {
        QVERIFY2(std::string(e.what()).starts_with("batch must be between 1 and"), e.what());
    }
}

void TestSweep::baseOutOfRangeGivesAnalyzeErrors()
{
    // A base whose unvaried option is out of range: prepareAnalyses() cannot vouch for it, and each point checks every
    // option as analyze() does: batch 0 names the batch (first in the table), batch 8 the micro-batches.
    Scenario base = decodeBase();
    base.microBatches = 0;
    const PreparedAnalyses p = prepareAnalyses(model("llama-3-8b"), base, {findOption("batch")});
    QVERIFY(!p.othersPass);
    CHECK_SWEEP(c, "llama-3-8b", base, {{"batch", {0, 8}}});
    QCOMPARE(c.rows, 2);
    QCOMPARE(c.errors, 2);
    // And a bad real one (compute efficiency above 1) after a good sweep of the same model.
    base = decodeBase();
    base.computeEfficiency = 1.5;
    CHECK_SWEEP(r, "llama-3-8b", base, {{"batch", {1, 2}}});
    QCOMPARE(r.rows, 2);
    QCOMPARE(r.errors, 2);
}

void TestSweep::imagesCheckThePromptAtEveryPoint()
{
    // Images join the prompt's tokens (or the context's in decode): with images in the base, or varied, each point
    // checks the lengths again; 2,000 images are out of range, and a long prompt with images passes 2^24 tokens.
    Scenario base;
    base.phase = Phase::Prefill;
    base.images = 2;
    CHECK_SWEEP(a, "qwen3-vl-8b", base, {{"seq", {1, 4096, int64_t(1) << 24}}, {"batch", {1, 4}}});
    QCOMPARE(a.rows, 6);
    QCOMPARE(a.errors, 2); // the longest prompt, at both batches
    base.images = 0;
    CHECK_SWEEP(b, "qwen3-vl-8b", base, {{"images", {0, 1, 2000}}, {"seq", {1, (int64_t(1) << 24) - 100}}});
    QCOMPARE(b.rows, 6);
    QCOMPARE(b.errors, 3); // 2,000 images; one image on the longest prompt passes 2^24
    base.phase = Phase::Decode;
    base.images = 1;
    CHECK_SWEEP(c, "qwen3-vl-8b", base, {{"context", {128, (int64_t(1) << 24) - 100}}});
    QCOMPARE(c.rows, 2);
    QCOMPARE(c.errors, 1);
    // A model without a vision tower refuses the images at every point.
    CHECK_SWEEP(d, "llama-3-8b", base, {{"batch", {1, 2}}});
    QCOMPARE(d.rows, 2);
    QCOMPARE(d.errors, 2);
}

void TestSweep::preparedForAnotherModelIsNotUsed()
{
    // What was prepared for one model must not serve another of other widths: the counts and checks are the other
    // model's own, as a fresh analysis gives them.
    const HardwareSpec &h = hw("h100-sxm");
    const ModelShape &gemma = model("gemma-4-31b"), &llama = model("llama-3-8b");
    const Scenario s = decodeBase();
    const PreparedAnalyses forGemma = prepareAnalyses(gemma, s, {findOption("batch")});
    QCOMPARE(forGemma.params.total, paramCount(gemma).total);
    const Analysis fresh = analyzeTotals(h, llama, s);
    const Analysis other = analyzeTotals(h, llama, s, forGemma);
    QCOMPARE(other.params.total, fresh.params.total);
    QCOMPARE(analysisToJson(h, llama, s, other).dump(), analysisToJson(h, llama, s, fresh).dump());
    // Prepared for its own model, the whole analysis (parameters included) is the fresh one's, model after model.
    for (const char *id : kModels) {
        const ModelShape &m = model(id);
        const PreparedAnalyses p = prepareAnalyses(m, s, {findOption("batch"), findOption("tp")});
        for (int tp : {1, 2, 8}) {
            Scenario t = s;
            t.tp = tp;
            try {
                const Analysis a = analyzeTotals(h, m, t);
                QCOMPARE(analysisToJson(h, m, t, analyzeTotals(h, m, t, p)).dump(), analysisToJson(h, m, t, a).dump());
                QCOMPARE(analyzeTotals(h, m, t, p).params.checkpoint, paramCount(m).checkpoint);
            } catch (const AnalysisError &) {
                QVERIFY_THROWS_EXCEPTION(AnalysisError, analyzeTotals(h, m, t, p));
            }
        }
    }
}

void TestSweep::optionAcceptsIsCheckOption()
{
    // optionAccepts() (validate()'s fast check) says yes exactly where checkOption() has no reason, for every option
    // at and past its bounds, and for values of the wrong kind.
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    int checked = 0;
    for (const ScenarioOption &o : scenarioOptions()) {
        std::vector<OptionValue> values{
            OptionValue(),    OptionValue(true), OptionValue(std::string("fp8")), OptionValue(std::string("no such")),
            OptionValue(nan), OptionValue(inf)};
        for (double bound : {o.min, o.max})
            for (double d : {-1.0, -1e-9, 0.0, 1e-9, 1.0}) {
                values.emplace_back(bound + d);
                values.emplace_back(static_cast<int64_t>(bound + d));
            }
        for (const OptionValue &v : values) {
            QVERIFY2(optionAccepts(o, v) == checkOption(o, v).empty(),
                     qPrintable(QString::fromUtf8(o.key.data(), static_cast<int>(o.key.size())) + " " +
                                QString::fromStdString(optionText(v))));
            ++checked;
        }
    }
    QVERIFY(checked > 500);
}

} // namespace memwall::core

QTEST_APPLESS_MAIN(memwall::core::TestSweep)
#include "tst_sweep.moc"
