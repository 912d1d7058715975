#include "cli.h"
#include "commands.h"
#include "core/util/oneline.h"

#include "core/analysis/analysis.h"
#include "core/analysis/derivation.h"
#include "core/analysis/explain.h"
#include "core/analysis/limits.h"
#include "core/analysis/operatortime.h"
#include "core/analysis/serving.h"
#include "core/io/analysisjson.h"
#include "core/io/outputs.h"
#include "core/util/format.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

namespace memwall::app {

using namespace memwall::core;

namespace {

/// The request line: as it is served the way asked for (admission, chunked prefill, ...), as `--json`'s request and
/// the window's headline give it; the plain figures beside it when they differ.
void printRequest(const Analysis &a, const Scenario &s, const std::optional<ServingReport> &serving)
{
    const bool served = !servesPlainly(s) && serving;
    const ServedRequest q =
        served ? serving->served : ServedRequest{a.phases.ttftS, a.phases.tpotS, a.phases.e2eS, 0, 1};
    std::printf("request: time to first token %s, time per output token %s, end to end %s",
                formatSeconds(q.ttftS).c_str(), formatSeconds(q.tpotS).c_str(), formatSeconds(q.e2eS).c_str());
    if (served)
        std::printf(" (the whole batch prefilled at once, then decoded: %s, %s, %s)",
                    formatSeconds(a.phases.ttftS).c_str(), formatSeconds(a.phases.tpotS).c_str(),
                    formatSeconds(a.phases.e2eS).c_str());
    std::printf("\n");
}

/// The serving figures, one line each (what `analyze --json` gives as objects).
void printServing(const ServingReport &r, const Scenario &s)
{
    std::printf("\nserving a request of %lld prompt and %lld output tokens (batch %lld):\n",
                static_cast<long long>(s.seq), static_cast<long long>(s.output), static_cast<long long>(s.batch));
    std::printf("  %stime to first token %s, time per output token %s, end to end %s, %s tokens/s per user\n",
                servesPlainly(s) ? "" : "plain (the batch prefilled at once): ", formatSeconds(r.request.ttftS).c_str(),
                formatSeconds(r.request.tpotS).c_str(), formatSeconds(r.request.e2eS).c_str(),
                formatNumber(r.request.tokensPerSPerUser).c_str());
    if (const auto &sp = r.speculative)
        std::printf("  speculative decoding, K %d at acceptance %s (draft %s): %s tokens per step, verify step %s, "
                    "draft %s per token, plain step %s: %sx; breaks even at acceptance %s\n",
                    sp->k, formatFixed(sp->acceptance, 2).c_str(), sp->draft.c_str(),
                    formatFixed(sp->tokensPerStep, 2).c_str(), formatSeconds(sp->verifyStepS).c_str(),
                    formatSeconds(sp->draftStepS).c_str(), formatSeconds(sp->plainStepS).c_str(),
                    formatFixed(sp->speedup, 2).c_str(),
                    sp->breakEvenAcceptance ? formatFixed(*sp->breakEvenAcceptance, 2).c_str() : "never");
    if (const auto &c = r.chunkedPrefill)
        std::printf("  chunked prefill of %lld tokens: mixed step %s against %s for the decodes alone (%sx), %s "
                    "FLOP/byte against %s; first token after %lld steps, %s\n",
                    static_cast<long long>(c->chunk), formatSeconds(c->mixedStepS).c_str(),
                    formatSeconds(c->decodeStepS).c_str(), formatFixed(c->slowdown, 2).c_str(),
                    formatNumber(c->mixedIntensity).c_str(), formatNumber(c->decodeIntensity).c_str(),
                    static_cast<long long>(c->stepsPerPrompt), formatSeconds(c->ttftS).c_str());
    if (const auto &a = r.admission) {
        std::printf(
            "  admission of %lld tokens per step: %s of %s requests running, %s decodes and a prompt step of %s "
            "tokens; TPOT %s (decode step %s, mixed step %s in %s of the steps); %lld step(s) of its own per prompt",
            static_cast<long long>(a->budget), formatNumber(a->running).c_str(), formatNumber(a->concurrency).c_str(),
            formatNumber(a->decodesPerStep).c_str(), formatNumber(a->promptTokensPerStep).c_str(),
            formatSeconds(a->stepS).c_str(), formatSeconds(a->decodeStepS).c_str(),
            formatSeconds(a->mixedStepS).c_str(), formatPercent(a->mixedShare).c_str(),
            static_cast<long long>(a->stepsPerPrompt));
        if (a->arrivals == core::Arrivals::Together)
            std::printf(", on average, in a wave whose prompts fill %lld steps", static_cast<long long>(a->waveSteps));
        if (a->arrivals == core::Arrivals::Rounds)
            std::printf("; over %d rounds, the first a wave whose prompts fill %lld steps (TTFT %s), the later ones "
                        "admitted as they return (TTFT %s)",
                        a->rounds, static_cast<long long>(a->waveSteps), formatSeconds(a->waveTtftS).c_str(),
                        formatSeconds(a->laterTtftS).c_str());
        if (a->queued > 0)
            std::printf("; %s requests queue (%s) for %s", formatNumber(a->queued).c_str(), a->limit.c_str(),
                        formatSeconds(a->queueS).c_str());
        std::printf(": TTFT %s\n", formatSeconds(a->ttftS).c_str());
    }
    if (const auto &d = r.disaggregation)
        std::printf("  disaggregated %d:%d: KV cache %s per request over %s in %s; TTFT %s, TPOT %s; %s requests/s "
                    "(prefill pool %s, decode pool %s); best split of %d devices: %d:%d\n",
                    d->prefillDevices, d->decodeDevices, formatBytes(d->kvBytesPerRequest).c_str(),
                    oneLine(d->link).c_str(), formatSeconds(d->kvTransferS).c_str(), formatSeconds(d->ttftS).c_str(),
                    formatSeconds(d->tpotS).c_str(), formatNumber(d->requestsPerS).c_str(),
                    formatNumber(d->prefillRequestsPerS).c_str(), formatNumber(d->decodeRequestsPerS).c_str(),
                    d->prefillDevices + d->decodeDevices, d->bestPrefillDevices, d->bestDecodeDevices);
    if (const auto &o = r.offload) {
        if (o->tier != KvOffload::None)
            std::printf("  KV offload to %s: %s of %s (%s) there\n", oneLine(o->level).c_str(),
                        formatBytes(o->offloadedBytes).c_str(), formatBytes(o->kvBytes).c_str(),
                        formatPercent(o->fraction).c_str());
        if (o->weightTier != KvOffload::None)
            std::printf("  weight offload to %s: %s of %s (%s) there\n", oneLine(o->weightLevel).c_str(),
                        formatBytes(o->offloadedWeightBytes).c_str(), formatBytes(o->weightBytes).c_str(),
                        formatPercent(o->weightFraction).c_str());
        for (const OffloadTier &t : o->tiers)
            std::printf("    %s: %s streamed per step in %s%s\n", oneLine(t.level).c_str(),
                        formatBytes(t.streamedBytes).c_str(), formatSeconds(t.linkS).c_str(),
                        t.fits ? "" : "; the tier OVERFLOWS");
        std::printf("  offloaded decode step %s (in memory: %s), limited by %s%s\n", formatSeconds(o->stepS).c_str(),
                    formatSeconds(o->stepInMemoryS).c_str(), o->wall.c_str(),
                    !o->fitsMainMemory ? "; main memory STILL OVERFLOWS" : "");
        std::printf("  offloaded request: time to first token %s, end to end %s (energy and cost below are for it)\n",
                    formatSeconds(o->ttftS).c_str(), formatSeconds(o->e2eS).c_str());
    }
    if (const auto &e = r.energy)
        std::printf("  energy: %s J per token at %s of TDP (%s W per device)\n",
                    formatNumber(e->joulesPerToken).c_str(), formatPercent(e->utilization).c_str(),
                    formatNumber(e->powerW).c_str());
    if (const auto &c = r.cost)
        std::printf("  cost: $%s per million tokens at $%s per device-hour (%s)\n",
                    formatFixed(c->usdPerMillionTokens, 3).c_str(), formatFixed(c->usdPerDeviceHour, 2).c_str(),
                    oneLine(c->source).c_str());
}

/// --explain FIELD: the derivation of one figure, as text (a line each) or as JSON. An unknown field is a usage error
/// naming the valid ones.
int printDerivation(const HardwareSpec &hw, const ScenarioFile &f, const Analysis &a, const std::string &field,
                    bool json)
{
    Derivation d;
    try {
        d = derive(hw, f.model, f.scenario, a, field);
    } catch (const DerivationError &e) {
        throw UsageError(std::string("--explain: ") + e.what());
    }
    if (json) {
        nlohmann::json j = {{"field", d.field},
                            {"title", d.title},
                            {"lines", d.lines},
                            {"value", d.value},
                            {"value_text", d.valueText}};
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << oneLine(d.title) << "\n";
    for (const std::string &line : d.lines)
        std::cout << "  " << oneLine(line) << "\n";
    return 0;
}

/// What the achievable figure rests on, for the text: the share of launches, communication and quantize kernels, the
/// device's missing microbenchmarks, the measured MLA module and all-to-all a step read.
void printAchievable(const HardwareSpec &hw, const Scenario &s, const Analysis &a)
{
    std::printf("achievable: %s predicted, %s likely (the band measured runs fell in: memwall validate); %s of it "
                "kernel launches (%s), %s of it communication (%s all-reduce)",
                formatSeconds(a.totals.timeS).c_str(),
                formatSecondsRange(a.totals.timeLowS, a.totals.timeHighS).c_str(),
                formatSeconds(a.totals.launchS).c_str(), std::string(toString(s.execution)).c_str(),
                formatSeconds(a.comm.timeS).c_str(),
                hw.achievable.usesCustomAllReduce(s.allReduce == AllReduce::Custom) ? "custom" : "library");
    if (a.totals.quantizeS > 0)
        std::printf(", %s of it quantizing FP8 activations (%s scales)", formatSeconds(a.totals.quantizeS).c_str(),
                    std::string(toString(s.activationScales)).c_str());
    std::printf("\n");
    const std::string_view basis = achievableBasis(hw, s);
    if (basis == "ideal")
        std::printf("achievable: %s has no published microbenchmarks here, so the achievable figure is the ideal "
                    "one for this device\n",
                    oneLine(hw.name).c_str());
    else if (basis == "partial")
        // "partial": no GEMM figure (sweep or compute_fraction) or no copy-bandwidth figure; say which.
        std::printf("achievable: %s has only some microbenchmarks: %s\n", oneLine(hw.name).c_str(),
                    hw.achievable.memoryFraction
                        ? "no GEMM measurement, so its matmuls run at the dense peak"
                        : "no copy-bandwidth measurement, so its memory-bound operators run at the datasheet "
                          "bandwidth");
    // A decode step's MLA layer read from the device's measured module (core/analysis/attention.cpp).
    const auto module =
        std::find_if(a.operators.begin(), a.operators.end(), [](const Operator &o) { return o.moduleFraction > 0; });
    if (module != a.operators.end())
        std::printf(
            "MLA layers in decode: timed from the device's measured attention module (%s table), at %s of their "
            "operators' ideal rooflines\n",
            std::string(kMlaFormats[operatorRoofs(hw, s).mlaFormat]).c_str(),
            formatPercent(module->moduleFraction).c_str());
    if (!a.comm.allToAll.empty())
        std::printf("all-to-all (expert parallelism): dispatch %s, combine %s (%s)\n",
                    formatSeconds(a.comm.epDispatchS).c_str(), formatSeconds(a.comm.epCombineS).c_str(),
                    a.comm.allToAll == "measured" ? "measured: the device's DeepEP table"
                                                  : "ideal: the link's bandwidth, no measured table");
}

} // namespace

int cmdAnalyze(const CommandLine &cl)
{
    const auto presets = loadPresets(cl);
    const PresetLibrary &lib = *presets;
    const ScenarioFile f = resolveScenario(cl, lib);
    const HardwareSpec hw = effectiveHardware(f);
    const Analysis a = analyze(hw, f.model, f.scenario);
    maybeSaveScenario(cl, f);
    if (const std::optional<std::string> field = cl.value("--explain"))
        return printDerivation(hw, f, a, *field, cl.json);
    if (cl.json) {
        std::cout << analyzeOutputJson(hw, f, a, lib).dump(2) << "\n";
        return 0;
    }
    const FitLimits limits = fitLimits(hw, f.model, f.scenario);
    std::optional<ServingReport> serving;
    if (f.model.arch != Architecture::Encoder)
        serving = serve(hw, f.model, f.scenario, lib.draftModel(f.scenario));
    const Scenario &s = f.scenario;
    std::printf("%s on %s — %s, batch %lld, %s %lld, weights %s, activations %s, KV %s, tp %d pp %d dp %d\n",
                oneLine(f.model.name).c_str(), oneLine(hw.name).c_str(), std::string(toString(s.phase)).c_str(),
                static_cast<long long>(s.batch), s.phase == Phase::Decode ? "context" : "seq",
                static_cast<long long>(s.phase == Phase::Decode ? s.context : s.seq), toString(s.weights).c_str(),
                std::string(toString(s.activations)).c_str(), std::string(toString(s.kv)).c_str(), s.tp, s.pp, s.dp);
    if (s.images > 0)
        std::printf("images: %lld a request, %lld image tokens each (%lld in all), %s the %s tokens\n",
                    static_cast<long long>(s.images), static_cast<long long>(f.model.vision.tokensPerImage()),
                    static_cast<long long>(imageTokens(s, f.model)),
                    s.phase == Phase::Decode ? "cached beside" : "prefilled after",
                    s.phase == Phase::Decode ? "context" : "prompt");
    if (f.model.isMoe() && s.expertWeights)
        std::printf("routed experts: stored as %s, not as the weights (--expert-weights same stores them alike)\n",
                    toString(*s.expertWeights).c_str());
    if (s.ep > 1 || s.attentionDp > 1 || s.moeTp > 0 || s.moeEp > 0 || s.moeImbalance > 1)
        std::printf("experts: ep %d, attention-dp %d, moe-tp %d x moe-ep %d (%lld devices per copy), busiest rank "
                    "%sx the mean\n",
                    s.ep, s.attentionDp, moeTp(s), moeEp(s), static_cast<long long>(devicesPerCopy(s)),
                    formatFixed(s.moeImbalance, 2).c_str());
    // The name column is as wide as the longest name (attn.global_qkv_proj), at least 16.
    int nameWidth = 16;
    for (const Operator &op : a.operators)
        nameWidth = std::max(nameWidth, static_cast<int>(op.name.size()));
    std::printf("\n%-*s %-13s %8s %10s %10s %9s %10s %7s  %s\n", nameWidth, "operator", "class", "count", "FLOPs",
                "bytes", "FLOP/B", "time", "share", "bound");
    for (const Operator &op : a.operators) {
        std::printf("%-*s %-13s %8g %10s %10s %9s %10s %7s  %s%s\n", nameWidth, std::string(op.name).c_str(),
                    std::string(toString(op.cls)).c_str(), op.count, formatSiNumber(op.flops).c_str(),
                    formatBytes(op.bytes()).c_str(), formatNumber(op.intensity()).c_str(),
                    formatSeconds(op.timeS).c_str(), formatPercent(op.timeS / a.totals.timeS).c_str(),
                    std::string(toString(op.bound)).c_str(),
                    s.phase == Phase::Generate ? (op.phase == Phase::Prefill ? " (prefill)" : " (decode)") : "");
    }
    // The communication's total; the all-to-all's halves above (Operator::onLink()) are part of it.
    const bool linkOps =
        std::any_of(a.operators.begin(), a.operators.end(), [](const Operator &op) { return op.onLink(); });
    if (a.comm.timeS > 0)
        std::printf("%-*s %-13s %8s %10s %10s %9s %10s %7s  over %s%s\n", nameWidth, "communication", "communication",
                    "", "", formatBytes(a.comm.bytes).c_str(), "", formatSeconds(a.comm.timeS).c_str(),
                    formatPercent(a.comm.timeS / a.totals.timeS).c_str(), oneLine(a.comm.link).c_str(),
                    linkOps ? " (all of it: moe.dispatch and moe.combine included)" : "");
    std::printf("\ntotal: %s FLOPs, %s, %s FLOP/byte (ridge %s), %s, %s-bound, %s tokens/s\n",
                formatSiNumber(a.totals.flops).c_str(), formatBytes(a.totals.bytes).c_str(),
                formatNumber(a.totals.intensity).c_str(), formatNumber(a.ridge).c_str(),
                formatSeconds(a.totals.timeS).c_str(), std::string(toString(a.totals.bound)).c_str(),
                formatSiNumber(a.totals.tokensPerS).c_str());
    if (s.efficiency == EfficiencyMode::Achievable)
        printAchievable(hw, s, a);
    if (s.phase == Phase::Generate)
        printRequest(a, s, serving);
    std::printf("memory per device: weights %s + KV %s + activations %s", formatBytes(a.memory.weights).c_str(),
                formatBytes(a.memory.kv).c_str(), formatBytes(a.memory.activations).c_str());
    if (a.memory.state > 0)
        std::printf(" + state %s", formatBytes(a.memory.state).c_str());
    if (s.phase == Phase::Train)
        std::printf(" + gradients %s + optimizer %s", formatBytes(a.memory.gradients).c_str(),
                    formatBytes(a.memory.optimizer).c_str());
    std::printf(" = %s of %s: %s\n", formatBytes(a.memory.total()).c_str(), formatBytes(a.memory.capacity).c_str(),
                a.memory.fits ? "fits" : "DOES NOT FIT");
    std::printf("largest batch that fits: %s; largest %s that fits at batch %lld: %s\n",
                limits.batch > 0 ? std::to_string(limits.batch).c_str() : "none",
                s.phase == Phase::Decode ? "context" : "sequence", static_cast<long long>(s.batch),
                limits.context > 0 ? std::to_string(limits.context).c_str() : "none");
    std::printf("KV cache: %s per token, %s in all\n", formatBytes(a.kvCache.bytesPerToken).c_str(),
                formatBytes(a.kvCache.totalBytes).c_str());
    if (const std::string note = positionNote(f.model, s); !note.empty())
        std::printf("%s\n", oneLine(note).c_str());
    if (serving)
        printServing(*serving, s);
    return 0;
}

} // namespace memwall::app
