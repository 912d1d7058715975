#include "cli.h"
#include "commands.h"

#include "core/analysis/sweep.h"
#include "core/io/analysisjson.h"
#include "core/io/outputs.h"
#include "core/search/search.h"
#include "core/util/csv.h"
#include "core/util/format.h"
#include "core/util/oneline.h"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace memwall::app {

using namespace memwall::core;

namespace {

/// The largest --max-configs: 100 million configurations may hold 26 GB (kSearchBytesPerConfiguration each).
constexpr int64_t kMaxSearchConfigurations = 100'000'000;

std::vector<std::string> splitList(const std::string &text)
{
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ',');)
        out.push_back(part);
    return out;
}

/// --devices: "gpus" (every GPU preset, the default), "all" (every preset) or a list of preset ids.
std::vector<HardwareSpec> searchDevices(const CommandLine &cl, const PresetLibrary &lib, const HardwareSpec &current)
{
    const std::string spec = cl.value("--devices").value_or(cl.hardware ? "" : "gpus");
    std::vector<HardwareSpec> out;
    if (spec.empty()) {
        out.push_back(current);
    } else if (spec == "gpus" || spec == "all") {
        for (const HardwareSpec &hw : lib.hardware())
            if (spec == "all" || hw.category == "gpu")
                out.push_back(hw);
    } else {
        for (const std::string &id : splitList(spec)) {
            const HardwareSpec *hw = lib.findHardware(id);
            if (!hw) {
                std::string closest;
                for (const auto &c : lib.closestHardware(id))
                    closest += (closest.empty() ? " (closest: " : ", ") + c;
                throw UsageError("--devices: unknown hardware '" + echoValue(id) + "'" +
                                 (closest.empty() ? "" : closest + ")"));
            }
            out.push_back(*hw);
        }
    }
    if (out.empty())
        throw UsageError("--devices " + spec + ": no device to search over");
    return out;
}

double milliseconds(const CommandLine &cl, const std::string &opt)
{
    const auto v = cl.value(opt);
    return v ? parseReal(opt, *v, 1e-6, 1e9) / 1000.0 : 0.0;
}

std::string money(const std::optional<double> &usd) { return usd ? formatFixed(*usd, 2) : std::string("-"); }

/// The search space of the command line: its devices, budget and lists, the scenario's own serving options added.
SearchSpace searchSpaceOf(const CommandLine &cl, const PresetLibrary &lib, const ScenarioFile &f)
{
    SearchSpace space;
    space.devices = searchDevices(cl, lib, effectiveHardware(f));
    space.base = f.scenario;
    if (auto v = cl.value("--max-devices"))
        space.maxDevices = static_cast<int>(parseCount("--max-devices", *v, 1, kMaxDeploymentDevices));
    if (auto v = cl.value("--threads"))
        space.threads = static_cast<int>(parseCount("--threads", *v, 1, 64));
    if (auto v = cl.value("--usd-per-device-hour"))
        space.usdPerDeviceHour = parseReal("--usd-per-device-hour", *v, 0.01, 1e4);
    if (auto v = cl.value("--batches")) {
        try {
            space.batches = parseSweepAxis("batch=" + *v).values;
        } catch (const AnalysisError &e) {
            throw UsageError(std::string("--batches: ") + e.what());
        }
    }
    if (auto v = cl.value("--precisions"))
        for (const std::string &part : splitList(*v)) {
            const auto p = searchPrecisionFromString(part);
            if (!p)
                throw UsageError("--precisions: '" + echoValue(part) +
                                 "' is not a format (fp16, fp8, int4/g128, nvfp4, "
                                 "int4/g128:fp8, ...)");
            space.precisions.push_back(*p);
        }
    if (auto v = cl.value("--kv-formats"))
        for (const std::string &part : splitList(*v)) {
            const auto t = dtypeFromString(part);
            if (!t)
                throw UsageError("--kv-formats: '" + echoValue(part) +
                                 "' is not a format (fp16, bf16, fp8, int8, int4, ...)");
            space.kvFormats.push_back(*t);
        }
    // The scenario's own serving options join the lists the search tries.
    if (auto v = cl.value("--speculative-ks"))
        for (const std::string &part : splitList(*v))
            space.speculativeKs.push_back(static_cast<int>(parseCount("--speculative-ks", part, 0, 16)));
    else if (f.scenario.speculativeK > 0)
        space.speculativeKs = {0, f.scenario.speculativeK};
    if (auto v = cl.value("--prefill-chunks"))
        for (const std::string &part : splitList(*v))
            space.prefillChunks.push_back(parseCount("--prefill-chunks", part, 0, kMaxTokens));
    else if (f.scenario.chunkedPrefill > 0)
        space.prefillChunks = {0, 512, f.scenario.chunkedPrefill};
    if (auto v = cl.value("--disaggregation")) {
        if (*v != "on" && *v != "off")
            throw UsageError("--disaggregation: '" + *v + "' is not on or off");
        space.disaggregate = *v == "on";
    }
    space.draft = lib.draftModel(f.scenario);
    return space;
}

/// --max-ttft-ms, --max-tpot-ms and --min-tokens-per-s-per-user.
SearchTargets targetsOf(const CommandLine &cl)
{
    SearchTargets targets;
    targets.maxTtftS = milliseconds(cl, "--max-ttft-ms");
    targets.maxTpotS = milliseconds(cl, "--max-tpot-ms");
    if (auto v = cl.value("--min-tokens-per-s-per-user"))
        targets.minTokensPerSPerUser = parseReal("--min-tokens-per-s-per-user", *v, 1e-6, 1e9);
    return targets;
}

/// Runs the search, its progress on stderr when stderr is a terminal (the line cleared at the end, or before an
/// error).
SearchCandidates runSearch(const ModelShape &m, SearchSpace &space)
{
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    if (terminal)
        space.progress = [](uint64_t done, uint64_t total) {
            std::fprintf(stderr, "\rsearching: %s of %s configurations (%.0f %%)", formatGrouped(int64_t(done)).c_str(),
                         formatGrouped(int64_t(total)).c_str(), 100.0 * double(done) / double(total));
        };
    SearchCandidates candidates;
    try {
        candidates = searchCandidates(m, space);
    } catch (...) {
        if (terminal)
            std::fputs("\r\033[K", stderr); // the progress line gives way to the error
        throw;
    }
    if (terminal)
        std::fputs("\r\033[K", stderr);
    return candidates;
}

/// The text report: the counts, then the Pareto front (or the nearest miss) and what its efficiency means.
void printFront(const ScenarioFile &f, const SearchSpace &space, const SearchCandidates &candidates,
                const SearchFront &front)
{
    const double seconds = candidates.seconds;
    std::printf(
        "%s, prompt %lld, output %lld tokens, %s efficiency: %s configurations, %s analysed, %s fit, %s meet "
        "the targets (%.3f s)\n",
        f.model.id.c_str(), static_cast<long long>(space.base.seq), static_cast<long long>(space.base.output),
        std::string(toString(candidates.efficiency)).c_str(), formatGrouped(int64_t(candidates.evaluated)).c_str(),
        formatGrouped(int64_t(candidates.analysed)).c_str(), formatGrouped(int64_t(candidates.points.size())).c_str(),
        formatGrouped(int64_t(front.meeting)).c_str(), seconds);
    if (front.pareto.empty()) {
        if (front.nearest) {
            const SearchPoint &n = *front.nearest;
            std::printf("no configuration meets the targets; nearest: %s x%d (tp %d, pp %d, ep %d, dp %d, batch %lld, "
                        "%s, kv %s, %s): %s\n",
                        space.devices[n.device].id.c_str(), n.devices, n.scenario.tp, n.scenario.pp, n.scenario.ep,
                        n.scenario.dp, static_cast<long long>(n.scenario.batch),
                        toString(SearchPrecision{n.scenario.weights, n.scenario.activations}).c_str(),
                        std::string(toString(n.scenario.kv)).c_str(), servingLabel(n.scenario).c_str(),
                        front.nearestMiss.c_str());
        } else {
            std::printf("no configuration fits in memory within %d devices\n", space.maxDevices);
        }
        return;
    }
    std::printf("\nPareto front (tokens/s per device against tokens/s per user%s):\n",
                candidates.withCost ? " and $/million tokens" : "");
    std::printf("%-14s %4s %3s %3s %3s %3s %6s %-15s %-5s %10s %10s %10s %12s %8s  %s\n", "device", "devs", "tp", "pp",
                "ep", "dp", "batch", "precision", "kv", "TTFT", "TPOT", "tok/s/user", "tok/s/device", "$/Mtok",
                "serving");
    for (const SearchPoint &p : front.pareto) {
        const Scenario &s = p.scenario;
        std::printf("%-14s %4d %3d %3d %3d %3d %6lld %-15s %-5s %10s %10s %10s %12s %8s  %s\n",
                    space.devices[p.device].id.c_str(), p.devices, s.tp, s.pp, s.ep, s.dp,
                    static_cast<long long>(s.batch), toString(SearchPrecision{s.weights, s.activations}).c_str(),
                    std::string(toString(s.kv)).c_str(), formatSeconds(p.ttftS).c_str(), formatSeconds(p.tpotS).c_str(),
                    formatNumber(p.tokensPerSPerUser).c_str(), formatNumber(p.tokensPerSPerDevice).c_str(),
                    money(p.usdPerMillionTokens).c_str(), servingLabel(s).c_str());
        if (s.attentionDp > 1 || s.moeTp > 0)
            std::printf("%-14s %53s experts: attention-dp %d, moe-tp %d x moe-ep %d\n", "", "", s.attentionDp, moeTp(s),
                        moeEp(s));
        if (p.band)
            std::printf("%-14s %53s measured likely %s to %s per token\n", "", "",
                        formatSeconds(p.tpotS * p.band->low).c_str(), formatSeconds(p.tpotS * p.band->high).c_str());
    }
    if (candidates.efficiency == EfficiencyMode::Achievable)
        std::printf("\nAchievable efficiency: the published fractions of peak. Measured runs fell between %.2f and "
                    "%.2f x the achievable time (memwall validate); the pure roofline bounds each time from below "
                    "(--json: ttft_s_low/high, tpot_s_low/high, ttft_floor_s, tpot_floor_s).\n",
                    kAchievableBand.low, kAchievableBand.high);
    else
        std::printf("\nIdeal efficiency: the pure roofline, a bound no real run beats (--efficiency achievable for "
                    "published fractions of peak).\n");
}

} // namespace

int cmdSearch(const CommandLine &cl)
{
    if (cl.json && cl.csv)
        throw UsageError("--json and --csv are alternatives: give one");
    for (const auto &o : cl.overrides)
        if (o.option->key == "phase")
            throw UsageError("--phase: a search always analyses whole requests (generate: --seq prompt tokens, then "
                             "--output tokens)");
    const auto presets = loadPresets(cl);
    const PresetLibrary &lib = *presets;
    const ScenarioFile f = resolveScenario(cl, lib);
    SearchSpace space = searchSpaceOf(cl, lib, f);
    const SearchTargets targets = targetsOf(cl);
    if (auto v = cl.value("--max-configs"))
        space.maxConfigurations = static_cast<uint64_t>(parseCount("--max-configs", *v, 1, kMaxSearchConfigurations));
    const SearchCandidates candidates = runSearch(f.model, space);
    const SearchFront front = selectFront(candidates, targets, f.model, space);
    if (cl.json)
        std::cout << searchToJson(f.model, space, targets, candidates, front).dump(2) << "\n";
    else if (cl.csv)
        std::cout << searchToCsv(space, candidates, front);
    else
        printFront(f, space, candidates, front);
    return 0;
}

} // namespace memwall::app
