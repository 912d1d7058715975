// The validation set (presets/validation/runs.json) and `memwall validate`'s arithmetic (issue #16).
#include "core/analysis/analysis.h"
#include "core/analysis/serving.h"
#include "core/io/jsonreader.h"
#include "core/io/presets.h"
#include "core/validation/validation.h"

#include "../builtinpresets.h"

#include <QtTest>

#include <cctype>

#include <algorithm>
#include <cmath>
#include <map>

using namespace memwall::core;
using namespace testpresets;

namespace {
nlohmann::json oneRun(const std::string &field, const nlohmann::json &value)
{
    nlohmann::json run{{"id", "r1"},
                       {"model", "llama-2-7b"},
                       {"device", "a100-80gb-sxm"},
                       {"tp", 1},
                       {"batch", 1},
                       {"input_tokens", 5},
                       {"output_tokens", 200},
                       {"weights", "fp16"},
                       {"framework", "test"},
                       {"metric", "decode_tokens_per_s"},
                       {"value", 100},
                       {"source", "a table"}};
    if (!field.empty())
        run[field] = value;
    return {{"kind", "validation"}, {"schema", 1}, {"runs", nlohmann::json::array({run})}};
}
} // namespace

class TestValidation : public QObject
{
    Q_OBJECT
private slots:
    void builtinSetIsLargeAndSourced()
    {
        const std::vector<MeasuredRun> runs = builtinRuns();
        // Issue #16 asks for at least 40 public runs.
        QVERIFY2(runs.size() >= 40, qPrintable(QString::number(runs.size())));
        for (const MeasuredRun &r : runs) {
            QVERIFY2(lib().findHardware(r.device), r.id.c_str());
            QVERIFY2(lib().findModel(r.model), r.id.c_str());
            QVERIFY2(r.source.size() > 10, r.id.c_str());
        }
    }

    // Every run is analysed, and the ideal roofline is a bound: no run is faster than it (the goal is 95 %).
    void everyRunIsAnalysedAndTheIdealIsABound()
    {
        const ValidationReport rep = validateRuns(builtinRuns(), lib());
        for (const ValidatedRun &v : rep.rows)
            QVERIFY2(v.error.empty(), (v.run.id + ": " + v.error).c_str());
        QCOMPARE(rep.summary.failed, 0);
        QVERIFY2(rep.summary.idealBound >= 0.95, qPrintable(QString::number(rep.summary.idealBound)));
        for (const ValidatedRun &v : rep.rows) {
            if (!v.predicted) { // no microbenchmarks in the device's preset: achievable is the ideal
                QCOMPARE(v.achievableRatio, v.idealRatio);
                continue;
            }
            QVERIFY2(v.idealRatio < v.achievableRatio, v.run.id.c_str()); // achievable is always slower than ideal
            // A prediction, not a bound: it may land on either side of the run. Tolerance: a factor of 3.5 either
            // way, the accuracy issue #16 found for the flat fractions (0.29x to 0.96x of the measured time); the
            // issue's goal is a median error of 15 %, reported by memwall validate.
            QVERIFY2(v.achievableRatio >= 1 / 3.5 && v.achievableRatio <= 3.5,
                     qPrintable(QString::fromStdString(v.run.id) + QStringLiteral(": %1").arg(v.achievableRatio)));
        }
    }

    // The validation chart puts every run on one time axis. By hand: 200 tokens of one sequence at 50 tokens/s took
    // 4 s; the batch of 8 at 400 output tokens/s, 8 x 200 / 400 = 4 s as well; a TTFT of 0.3 s stays 0.3 s.
    void timesShareOneAxis()
    {
        MeasuredRun run;
        run.outputTokens = 200;
        run.batch = 8;
        run.metric = RunMetric::DecodeTokensPerS;
        QCOMPARE(timeOf(run, 50), 4.0);
        run.metric = RunMetric::OutputTokensPerS;
        QCOMPARE(timeOf(run, 400), 4.0);
        run.metric = RunMetric::TtftS;
        QCOMPARE(timeOf(run, 0.3), 0.3);
        QCOMPARE(timeOf(run, 0), 0.0);
        // For every run of the set: the times' ratio is the time ratio validate reports.
        for (const ValidatedRun &v : validateRuns(builtinRuns(), lib()).rows) {
            const double measured = timeOf(v.run, v.run.value);
            QVERIFY(measured > 0);
            QVERIFY2(std::abs(timeOf(v.run, v.achievable) / measured - v.achievableRatio) <= 1e-12 * v.achievableRatio,
                     v.run.id.c_str());
            QVERIFY2(std::abs(timeOf(v.run, v.ideal) / measured - v.idealRatio) <= 1e-12 * v.idealRatio,
                     v.run.id.c_str());
        }
    }

    // The band analyze() puts around achievable times is this set's 10th to 90th percentile of measured over
    // achievable time: change the model or the set, and this test says what the band must become.
    void bandIsTheValidationSets()
    {
        const ValidationSummary s = validateRuns(builtinRuns(), lib()).summary;
        QVERIFY2(std::fabs(kAchievableBand.low - s.ratioLow) < 0.0005 &&
                     std::fabs(kAchievableBand.high - s.ratioHigh) < 0.0005,
                 qPrintable(QStringLiteral("kAchievableBand should be {%1, %2}")
                                .arg(s.ratioLow, 0, 'f', 3)
                                .arg(s.ratioHigh, 0, 'f', 3)));
    }

    // The band is an 80 % interval, so it should hold about 80 % of runs it was not taken from: taken from the runs
    // at even places in the set, it must hold at least 60 % of those at odd places (and the other way round). A band
    // that only describes the runs it came from fails here.
    void bandHoldsRunsItWasNotTakenFrom()
    {
        const ValidationReport rep = validateRuns(builtinRuns(), lib());
        std::vector<const ValidatedRun *> predicted;
        for (const ValidatedRun &v : rep.rows)
            if (v.error.empty() && v.predicted)
                predicted.push_back(&v);
        QVERIFY(predicted.size() >= 40);
        for (std::size_t from : {0, 1}) {
            std::vector<MeasuredRun> taken;
            for (std::size_t i = from; i < predicted.size(); i += 2)
                taken.push_back(predicted[i]->run);
            const ValidationSummary band = validateRuns(taken, lib()).summary;
            int held = 0, others = 0;
            for (std::size_t i = 1 - from; i < predicted.size(); i += 2, ++others) {
                const double measuredOverPredicted = 1.0 / predicted[i]->achievableRatio;
                held += measuredOverPredicted >= band.ratioLow && measuredOverPredicted <= band.ratioHigh ? 1 : 0;
            }
            QVERIFY2(held >= 0.6 * others, qPrintable(QStringLiteral("%1 of %2").arg(held).arg(others)));
        }
    }

    // Public measured runs from another source, not in the validation set (tests/data/heldout/README.md): every one
    // analyses, the ideal stays a bound, and the achievable figures meet issue #16's goals (median error at most 15 %,
    // at least 75 % within 25 %; 7.2 % and 80 % when written). The band comes from the validation set, where the
    // model is still optimistic, so it sits above the held-out runs' centre: it holds 62 % of them (it held 86 % while
    // the vLLM FP8 runs were predicted fast), and the guard keeps at least 60 %.
    void heldOutRunsFromAnotherSource()
    {
        const std::string file = MEMWALL_SOURCE_DIR "/tests/data/heldout/aiconfigurator-silicon.json";
        const std::vector<MeasuredRun> runs = runsFromJson(readJsonFile(file), file);
        QCOMPARE(runs.size(), std::size_t(402));
        const ValidationReport rep = validateRuns(runs, lib());
        const ValidationSummary &s = rep.summary;
        QCOMPARE(s.failed, 0);
        QCOMPARE(s.predicted, 402);
        QVERIFY2(s.idealBound >= 0.95, qPrintable(QString::number(s.idealBound)));
        int inBand = 0;
        for (const ValidatedRun &v : rep.rows) {
            const double measuredOverAchievable = 1.0 / v.achievableRatio;
            inBand += measuredOverAchievable >= kAchievableBand.low && measuredOverAchievable <= kAchievableBand.high;
        }
        qInfo("held out: median error %.3f, within 25 %% %.3f, worst %.3f, in the band %d of 402", s.medianError,
              s.within25, s.worstError, inBand);
        QVERIFY2(s.medianError <= 0.15, qPrintable(QString::number(s.medianError)));
        QVERIFY2(s.within25 >= 0.75, qPrintable(QString::number(s.within25)));
        QVERIFY2(inBand >= 0.6 * 402, qPrintable(QString::number(inBand)));
    }

    // Predicted figures of each metric from one analysis, by hand: a request of 4 sequences, 100 output tokens, TTFT
    // 0.5 s, TPOT 20 ms, end to end 0.5 + 99 x 0.02 = 2.48 s.
    void metricsFromAnAnalysis_data()
    {
        QTest::addColumn<QString>("metric");
        QTest::addColumn<double>("predicted");
        QTest::addColumn<double>("measured");
        QTest::addColumn<double>("ratio");
        // Rates: time ratio = measured rate / predicted rate. Times: predicted / measured.
        QTest::newRow("decode tokens/s: 100 / 2.48 s")
            << "decode_tokens_per_s" << 100 / 2.48 << 20.0 << 20.0 / (100 / 2.48);
        QTest::newRow("output tokens/s: 4 x 100 / 2.48 s")
            << "output_tokens_per_s" << 400 / 2.48 << 200.0 << 200.0 / (400 / 2.48);
        QTest::newRow("ttft") << "ttft_s" << 0.5 << 0.4 << 1.25;
        QTest::newRow("tpot") << "tpot_s" << 0.02 << 0.025 << 0.8;
        QTest::newRow("e2e") << "e2e_s" << 2.48 << 2.48 << 1.0;
        // Served at a steady 4 requests: each of the 100 steps also carries 1/100 of the batch's 0.5 s prefill.
        QTest::newRow("served tpot: 0.02 + 0.5 / 100") << "served_tpot_s" << 0.025 << 0.05 << 0.5;
    }
    void metricsFromAnAnalysis()
    {
        QFETCH(QString, metric);
        QFETCH(double, predicted);
        QFETCH(double, measured);
        QFETCH(double, ratio);
        MeasuredRun run;
        run.batch = 4;
        run.outputTokens = 100;
        run.metric = *runMetricFromString(metric.toStdString());
        run.value = measured;
        Analysis a;
        a.phases.ttftS = 0.5;
        a.phases.tpotS = 0.02;
        a.phases.e2eS = 2.48;
        QVERIFY(std::fabs(predictedValue(run, a) - predicted) < 1e-12);
        QVERIFY(std::fabs(timeRatio(run, predictedValue(run, a)) - ratio) < 1e-12);
    }

    void badRunsNameTheField_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected");
        QTest::newRow("metric") << "metric"
                                << "\"tokens\""
                                << "runs[0].metric: must be decode_tokens_per_s";
        QTest::newRow("weights") << "weights"
                                 << "\"int3\""
                                 << "runs[0].weights: unknown weight format \"int3\"";
        QTest::newRow("value") << "value"
                               << "-1"
                               << "runs[0].value";
        QTest::newRow("tp") << "tp"
                            << "0"
                            << "runs[0].tp: must be between 1 and 4096, got 0";
        QTest::newRow("execution") << "execution"
                                   << "\"lazy\""
                                   << "runs[0].execution: must be graphs or eager";
        QTest::newRow("allreduce") << "allreduce"
                                   << "\"nccl\""
                                   << "runs[0].allreduce: must be library or custom, got \"nccl\"";
        QTest::newRow("activation_scales") << "activation_scales"
                                           << "\"per-token\""
                                           << "runs[0].activation_scales: must be fused, static or dynamic, got "
                                              "\"per-token\"";
        QTest::newRow("expert_activations") << "expert_activations"
                                            << "\"fp8\""
                                            << "runs[0].expert_activations: must be same or mxfp8, got \"fp8\"";
        QTest::newRow("value denormal") << "value"
                                        << "5e-324"
                                        << "runs[0].value: must be between 1e-06 and 1e+09, got 5e-324";
        QTest::newRow("value absurd") << "value"
                                      << "1e300"
                                      << "runs[0].value: must be between 1e-06 and 1e+09, got 1e+300";
        QTest::newRow("attention_dp") << "attention_dp"
                                      << "0"
                                      << "runs[0].attention_dp: must be between 1 and 4096, got 0";
        QTest::newRow("moe_ep") << "moe_ep"
                                << "-2"
                                << "runs[0].moe_ep: must be between 0 and 4096, got -2";
        QTest::newRow("max_batched_tokens") << "max_batched_tokens"
                                            << "-1"
                                            << "runs[0].max_batched_tokens: must be between 0 and 16777216, got -1";
        QTest::newRow("expert_weights") << "expert_weights"
                                        << "\"fp5\""
                                        << "runs[0].expert_weights: unknown weight format \"fp5\"";
        QTest::newRow("arrivals") << "arrivals"
                                  << "\"burst\""
                                  << "runs[0].arrivals: must be spread, together or rounds, got \"burst\"";
        QTest::newRow("unknown key") << "speed"
                                     << "1"
                                     << "runs[0].speed";
    }
    void badRunsNameTheField()
    {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        try {
            runsFromJson(oneRun(field.toStdString(), nlohmann::json::parse(value.toStdString())), "runs.json");
            QFAIL("accepted");
        } catch (const InputError &e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.startsWith("runs.json: ") && what.contains(expected), qPrintable(what));
        }
    }

    void emptySetIsRefused()
    {
        // No runs gave "median error 0.0 %, worst 0.0 %" and exit 0: a validation that validated nothing (issue #42).
        try {
            runsFromJson({{"kind", "validation"}, {"schema", 1}, {"runs", nlohmann::json::array()}}, "runs.json");
            QFAIL("accepted");
        } catch (const InputError &e) {
            QCOMPARE(QString::fromStdString(e.what()),
                     QString("runs.json: runs: holds no run: a validation set needs at least one"));
        }
    }

    void goodRunReads()
    {
        const std::vector<MeasuredRun> runs = runsFromJson(oneRun("weights", "int4/g32"), "runs.json");
        QCOMPARE(runs.size(), std::size_t(1));
        QVERIFY(runs[0].weights.type == DType::INT4);
        QCOMPARE(runs[0].weights.groupSize, 32);
        QCOMPARE(runs[0].inputTokens, int64_t(5));
        const Scenario s = scenarioFor(runs[0], lib().findModel("llama-2-7b")->shape, EfficiencyMode::Achievable);
        QVERIFY(s.phase == Phase::Generate);
        QVERIFY(!s.unquantizedEmbeddings); // Meta's checkpoint has no quantization_config
        QCOMPARE(s.seq, int64_t(5));
        QCOMPARE(s.output, int64_t(200));
        QVERIFY(s.efficiency == EfficiencyMode::Achievable);
    }

    // Issue #37: a served MoE run carries attention-DP, the experts' split, their format and the engine's budget,
    // and they reach its scenario.
    void servedRunCarriesTheEngineSettings()
    {
        nlohmann::json j = oneRun("attention_dp", 8);
        nlohmann::json &run = j["runs"][0];
        run["model"] = "deepseek-v3";
        run["device"] = "h200-sxm";
        run["moe_tp"] = 1;
        run["moe_ep"] = 8;
        run["expert_weights"] = "mxfp4";
        run["max_batched_tokens"] = 8192;
        run["arrivals"] = "together";
        run["metric"] = "ttft_s";
        const MeasuredRun r = runsFromJson(j, "runs.json").at(0);
        QCOMPARE(r.attentionDp, 8);
        QCOMPARE(r.moeTp, 1);
        QCOMPARE(r.moeEp, 8);
        QCOMPARE(r.maxBatchedTokens, int64_t(8192));
        QVERIFY(r.expertWeights && r.expertWeights->type == DType::FP4 && r.expertWeights->groupSize == 32);
        const Scenario s = scenarioFor(r, lib().findModel("deepseek-v3")->shape, EfficiencyMode::Ideal);
        QCOMPARE(s.attentionDp, 8);
        // DeepSeek's FP8 checkpoint keeps its embedding and LM head in BF16, as analyze --model deepseek-v3 does.
        QVERIFY(s.unquantizedEmbeddings);
        QCOMPARE(s.moeEp, 8);
        QCOMPARE(s.maxBatchedTokens, int64_t(8192));
        QVERIFY(s.arrivals == Arrivals::Together);
        QVERIFY(s.expertWeights && s.expertWeights->type == DType::FP4);
        // Without the keys: one attention rank, the split derived, no admission.
        const MeasuredRun plain = runsFromJson(oneRun("", nullptr), "runs.json").at(0);
        QCOMPARE(plain.attentionDp, 1);
        QCOMPARE(plain.moeEp, 0);
        QCOMPARE(plain.maxBatchedTokens, int64_t(0));
        QVERIFY(!plain.expertWeights);
    }

    // A hand-checked served row: Llama 3 70B at tp 8 on H100s, 64 clients of 8,192 + 1,024 tokens, an 8,192-token
    // budget. tst_serving works the admission out by hand. Spread (the default): each prompt takes 2 steps of
    // 8,128.125 prompt tokens beside 63.875 decodes, so the TTFT is 2 mixed steps and the TPOT the mean step.
    // Together: the 64 prompts fill 64 steps and the mean one has its first token after 32.5 of them.
    void servedRunIsPredictedThroughAdmission()
    {
        MeasuredRun run;
        run.model = "llama-3-70b";
        run.device = "h100-sxm";
        run.tp = 8;
        run.batch = 64;
        run.inputTokens = 8192;
        run.outputTokens = 1024;
        run.maxBatchedTokens = 8192;
        const HardwareSpec &hw = *lib().findHardware("h100-sxm");
        const ModelShape &m = lib().findModel("llama-3-70b")->shape;
        const AdmissionReport a = admit(hw, m, scenarioFor(run, m, EfficiencyMode::Ideal));
        QCOMPARE(a.stepsPerPrompt, int64_t(2));
        run.metric = RunMetric::TtftS;
        QVERIFY(std::fabs(predict(hw, m, run, EfficiencyMode::Ideal) - 2 * a.mixedStepS) <= 1e-12 * a.ttftS);
        run.metric = RunMetric::TpotS;
        QCOMPARE(predict(hw, m, run, EfficiencyMode::Ideal), a.stepS);
        run.metric = RunMetric::ServedTpotS;
        QVERIFY(std::fabs(predict(hw, m, run, EfficiencyMode::Ideal) - (a.stepS + a.ttftS / 1024)) < 1e-12);
        run.arrivals = Arrivals::Together;
        run.metric = RunMetric::TpotS;
        const AdmissionReport w = admit(hw, m, scenarioFor(run, m, EfficiencyMode::Ideal));
        QCOMPARE(w.meanFirstStep, 32.5);
        QCOMPARE(predict(hw, m, run, EfficiencyMode::Ideal), w.stepS);
        run.arrivals = Arrivals::Spread;
        // Without a budget the run is the one batch of before.
        run.maxBatchedTokens = 0;
        run.metric = RunMetric::TpotS;
        QCOMPARE(predict(hw, m, run, EfficiencyMode::Ideal),
                 analyzeTotals(hw, m, scenarioFor(run, m, EfficiencyMode::Ideal)).phases.tpotS);
    }

    // The breakdown: one group per metric, family, device and engine, each summarising exactly its runs.
    void groupsSplitByMetricFamilyDeviceAndEngine()
    {
        std::vector<MeasuredRun> runs = builtinRuns();
        const ValidationReport rep = validateRuns(runs, lib());
        std::size_t frameworks = 0;
        for (const ValidationGroup &g : rep.groups) {
            std::vector<const ValidatedRun *> mine;
            for (const ValidatedRun &v : rep.rows) {
                const std::string key = g.by == "metric"   ? std::string(toString(v.run.metric))
                                        : g.by == "family" ? v.run.model
                                        : g.by == "device" ? v.run.device
                                                           : v.run.framework;
                if (key == g.name && v.run.metric == g.metric)
                    mine.push_back(&v);
            }
            QVERIFY2(!mine.empty(), (g.by + " " + g.name).c_str());
            const ValidationSummary want = summarize(mine);
            QCOMPARE(g.summary.runs, want.runs);
            QCOMPARE(g.summary.medianError, want.medianError);
            QCOMPARE(g.summary.idealBound, want.idealBound);
            frameworks += g.by == "framework" ? static_cast<std::size_t>(g.summary.runs + g.summary.failed) : 0;
        }
        QCOMPARE(frameworks, runs.size()); // every run in exactly one engine's group
        const nlohmann::json j = toJson(rep);
        QCOMPARE(j.at("groups").size(), rep.groups.size());
        QCOMPARE(j.at("groups").at(0).at("by").get<std::string>(), std::string("metric"));
        QVERIFY(j.at("groups").at(0).contains("within_25_percent"));
    }

    // The MoE served runs of aiconfigurator (tools/aiconfigurator-served-runs.py): the build split compiled in as the
    // set "moe-served", the held-out split in tests/data/heldout. Each run names its source row; every one reads.
    void moeServedSetsAreSourced()
    {
        const std::vector<MeasuredRun> build = builtinRunSet("moe-served");
        QCOMPARE(build.size(), std::size_t(4122)); // 1,374 rows: TTFT, TPOT and served TPOT
        const std::string file = MEMWALL_SOURCE_DIR "/tests/data/heldout/aiconfigurator-moe-served.json";
        const std::vector<MeasuredRun> held = runsFromJson(readJsonFile(file), file);
        QCOMPARE(held.size(), std::size_t(4365)); // 1,455 rows
        // Each row's served TPOT is its measured tpot + ttft / output tokens.
        std::map<std::string, const MeasuredRun *> byId;
        for (const MeasuredRun &r : build)
            byId[r.id] = &r;
        int served = 0;
        for (const MeasuredRun &r : build) {
            if (r.metric != RunMetric::ServedTpotS)
                continue;
            const std::string row = r.id.substr(0, r.id.size() - std::string("-served").size());
            const MeasuredRun *tpot = byId.at(row + "-tpot"), *ttft = byId.at(row + "-ttft");
            QVERIFY2(std::abs(r.value / (tpot->value + ttft->value / static_cast<double>(r.outputTokens)) - 1) < 1e-12,
                     r.id.c_str());
            ++served;
        }
        QCOMPARE(served, 1374);
        for (const auto *set : {&build, &held})
            for (const MeasuredRun &r : *set) {
                QVERIFY2(r.source.find("silicon_sample.csv @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce, row id ") !=
                             std::string::npos,
                         r.id.c_str());
                QVERIFY2(r.maxBatchedTokens > 0, r.id.c_str());
                // aiperf's rounds: the benchmark's client (tools/aiconfigurator-served-runs.py, ARRIVALS).
                QVERIFY2(r.arrivals == Arrivals::Rounds, r.id.c_str());
                QVERIFY2(lib().findModel(r.model) && lib().findHardware(r.device), r.id.c_str());
                // The batch is the client's concurrency, the "cN" of the row id where it has one: with attention DP the
                // row's batch_size is per attention rank, and was once taken for the whole batch.
                std::size_t c = r.id.find("_c");
                while (c != std::string::npos && !std::isdigit(static_cast<unsigned char>(r.id[c + 2])))
                    c = r.id.find("_c", c + 1);
                if (c != std::string::npos) // a few ids leave the concurrency out ("..._c_tp8_...")
                    QCOMPARE(r.batch, std::stoll(r.id.substr(c + 2)));
            }
        try {
            builtinRunSet("moe");
            QFAIL("accepted");
        } catch (const InputError &e) {
            QCOMPARE(QString::fromStdString(e.what()),
                     QString("--set: no validation set \"moe\" (the sets: moe-served, runs)"));
        }
    }
};

QTEST_GUILESS_MAIN(TestValidation)
#include "tst_validation.moc"
