#pragma once

#include "core/analysis/analysis.h"

#include <optional>
#include <string>
#include <vector>

namespace memwall::core {

/// One request served: a prompt of `seq` tokens, then `output` generated tokens, for each of the batch's sequences.
struct RequestTimeline
{
    double ttftS = 0; ///< time to first token: the prompt's prefill, whose last position gives the first token
    double tpotS = 0; ///< mean time per output token after the first (decode at the mean context)
    double e2eS = 0;  ///< ttft + (output - 1) x tpot
    double tokensPerSPerUser = 0; ///< 1 / tpot
    /// Decode steps as the cache grows: step i (1-based) generates token i + 1 against seq + i cached tokens. At most
    /// 256 steps are listed, evenly spread; `stepToken` names each listed step's token.
    std::vector<int64_t> stepToken;
    std::vector<double> stepS;
};

/// Speculative decoding (Leviathan et al. 2023, "Fast Inference from Transformers via Speculative Decoding"): a draft
/// proposes K tokens, one step of the model verifies all K + 1 positions, and the accepted prefix plus one token of
/// the model's own are kept. With each draft token accepted independently with probability A, a step yields
/// E = (1 - A^(K+1)) / (1 - A) tokens on average.
struct SpeculativeReport
{
    int k = 0;
    double acceptance = 0;
    std::string draft;          ///< "mtp" or the draft model's id
    double tokensPerStep = 1;   ///< E
    double plainStepS = 0;      ///< one ordinary decode step (one token per sequence)
    double verifyStepS = 0;     ///< the model over K + 1 tokens per sequence
    double draftStepS = 0;      ///< one draft token for every sequence
    double speedup = 1;         ///< E x plain / (verify + K x draft): above 1 is a gain
    double plainIntensity = 0;  ///< FLOP/byte of the plain step ...
    double verifyIntensity = 0; ///< ... and of the verification step: K + 1 tokens move it right on the roofline
    double plainFlops = 0, verifyFlops = 0; ///< per device, for placing the two steps on the roofline
    /// The acceptance rate at which speculation breaks even (speedup 1); nullopt when even A -> 1 cannot pay for it.
    std::optional<double> breakEvenAcceptance;
};

/// Chunked prefill (Agrawal et al. 2024, Sarathi-Serve): each step runs one chunk of a new prompt together with the
/// batch's decodes, so the weights are read once for both.
struct ChunkedPrefillReport
{
    int64_t chunk = 0;
    double decodeStepS = 0; ///< the batch's decode step alone
    double chunkAloneS = 0; ///< the chunk alone
    double mixedStepS = 0;  ///< both in one step: per operator, FLOPs and activation/KV bytes add, weights read once
    double slowdown = 1;    ///< mixed / decode: what the chunk costs each decode step
    double mixedIntensity = 0, decodeIntensity = 0; ///< FLOP/byte: where the steps land on the roofline
    double mixedFlops = 0;                          ///< per device
    int64_t stepsPerPrompt = 0;                     ///< ceil(seq / chunk)
    double ttftS = 0; ///< a prompt prefilled chunk by chunk alongside the decodes: stepsPerPrompt x mixed step
};

/// Engine admission (vLLM V1's scheduler, SGLang's chunked prefill, TensorRT-LLM's max_num_tokens): every engine step
/// runs at most `budget` tokens, the running decodes first (one token each) and prompt chunks in the rest, so prompts
/// share steps with the decodes (mixed steps). The steady state of a client keeping `concurrency` requests of `seq`
/// prompt and `output` generated tokens in flight, per copy of the model (attention-DP ranks schedule on their own,
/// so a copy's budget is budget x attention_dp):
/// - running N = min(concurrency, the requests whose KV cache fits at the mean context); each stays k + output - 1
///   steps (k: the steps its prompt's chunks take), so r = N / (k + output - 1) requests finish per step (Little's
///   law) and D = r x (output - 1) decodes run in every step;
/// - a prompt's step carries P = min(budget - D, max(seq, r x seq)) prompt tokens, k = ceil(seq / P); on average a
///   step carries r x seq, so a share f = min(1, r x seq / P) of the steps are mixed ones;
/// - if r x seq + D exceeds the budget, admission limits: r = budget / (seq + output - 1), N = r x (k + output - 1);
/// - the C - N requests beyond N wait in the queue: (C - N) / r steps (Little's law).
/// TPOT = the mean step: decode step + f x (mixed step - decode step); TTFT = the wait + k mixed steps.
/// That is arrivals spread (the default). With arrivals together (a benchmark client at a fixed concurrency) the N
/// running requests arrive as one wave: their N x seq prompt tokens fill W = ceil(N x seq / budget) steps, prompt j
/// (0-based) has its first token after s_j = ceil((j + 1) x seq / budget) of them, and then decodes in the wave's
/// remaining W - s_j prompt steps (mixed steps, timed with N / 2 decodes) before output - 1 - (W - s_j) plain decode
/// steps of N. TTFT = the wait + mean s_j mixed steps (a single step is the prompts alone); TPOT = the mean over the
/// wave; a wave takes W mixed + output - 1 decode steps, and requests beyond N wait (C / N - 1) / 2 waves on average.
/// With arrivals rounds (aiperf at a fixed concurrency C with R x C requests after a warm-up it waits out) the first
/// round is a wave; each client then sends its next request when its last returns, so the later rounds arrive as the
/// first was admitted, each prompt when the budget has room for it: they see the spread steady state. TTFT and TPOT
/// are the means over the R rounds: (the wave's + (R - 1) x the steady state's) / R.
struct AdmissionReport
{
    Arrivals arrivals = Arrivals::Spread;
    int64_t waveSteps = 0;    ///< together, rounds: W, the steps the wave's prompts fill
    double meanFirstStep = 0; ///< together, rounds: the mean s_j
    int rounds = 0;           ///< rounds: R
    double waveTtftS = 0;     ///< rounds: the first round's TTFT (the wave's)
    double laterTtftS = 0;    ///< rounds: the later rounds' TTFT (the steady state's)
    int64_t budget = 0;       ///< tokens per step of one copy
    double concurrency = 0;   ///< requests in flight per copy (batch / dp)
    double fitting = 0;       ///< requests whose KV cache fits at the mean context
    double running = 0;       ///< N
    double queued = 0;        ///< concurrency - N
    std::string limit;        ///< what holds requests in the queue: "", "memory" or "token budget"
    double requestsPerStep = 0, decodesPerStep = 0; ///< r and D
    double promptTokensPerStep = 0;                 ///< P, in a step that carries a prompt
    int64_t stepsPerPrompt = 1;                     ///< k
    double mixedShare = 0;                          ///< f
    double decodeStepS = 0, mixedStepS = 0;         ///< D decodes alone; with P prompt tokens
    double stepS = 0;                               ///< the mean step: the TPOT
    double queueS = 0;                              ///< time in the queue
    double ttftS = 0;                               ///< queueS + k x mixedStepS
    double requestsPerS = 0;                        ///< per copy: r / stepS
};

/// Requests per client in aiconfigurator's served benchmarks: aiperf's --request-count is MULTI_ROUND x concurrency
/// with MULTI_ROUND 20 (ai-dynamo/aiconfigurator @ 095f58a5, src/aiconfigurator/generator/sflow.py and
/// src/aiconfigurator/generator/config/backend_templates/benchmark/bench_run.sh.j2, BENCH_MULTI_ROUND).
inline constexpr int kBenchmarkRounds = 20;

/// The admission of `s` (s.maxBatchedTokens > 0). Throws AnalysisError when not one request fits.
AdmissionReport admit(const HardwareSpec &hw, const ModelShape &m, const Scenario &s);

/// Prefill and decode on separate devices (Zhong et al. 2024, DistServe; Patel et al. 2024, Splitwise).
struct DisaggregationReport
{
    int prefillDevices = 0, decodeDevices = 0;
    int devicesPerInstance = 1; ///< tp x pp x ep: one copy of the model
    std::string link;           ///< what the KV cache travels over
    double kvBytesPerRequest = 0;
    double kvTransferS = 0;                                 ///< the batch's KV cache over the link
    double prefillS = 0;                                    ///< one instance prefills the batch
    double ttftS = 0;                                       ///< prefill + transfer
    double tpotS = 0;                                       ///< the decode pool's time per output token
    double prefillRequestsPerS = 0, decodeRequestsPerS = 0; ///< what each pool can take
    double requestsPerS = 0;                                ///< the slower pool's rate
    int bestPrefillDevices = 0, bestDecodeDevices = 0;      ///< of the same total, the split with the most requests/s
    struct Split
    {
        int prefillDevices = 0, decodeDevices = 0;
        double requestsPerS = 0;
    };
    std::vector<Split> splits; ///< every split of the total in whole instances
};

/// One offload tier's part of a decode step: the bytes of one device that live there and their streaming time.
struct OffloadTier
{
    KvOffload tier = KvOffload::Host;
    std::string level;        ///< the memory level's name
    double bandwidth = 0;     ///< bytes/s of its link
    double capacity = 0;      ///< bytes it holds
    double kvBytes = 0;       ///< KV cache of one device kept there
    double weightBytes = 0;   ///< weights of one device kept there
    double streamedBytes = 0; ///< what one decode step reads from it (the offloaded share of its KV and weight reads)
    double linkS = 0;         ///< streamedBytes over its link
    bool fits = false;        ///< capacity holds kvBytes + weightBytes
};

/// KV-cache bytes and weights beyond main memory, in host DRAM or NVMe, streamed back over their link every decode
/// step (kv_offload, weight_offload).
struct OffloadReport
{
    KvOffload tier = KvOffload::None; ///< the KV cache's tier; None when only weights are offloaded
    std::string level;                ///< the KV cache's memory level
    double fraction = 0;              ///< share of the KV cache there
    double kvBytes = 0;               ///< the KV cache of one device
    double offloadedBytes = 0;        ///< of it, offloaded
    KvOffload weightTier = KvOffload::None;
    std::string weightLevel;
    double weightFraction = 0; ///< share of the weights in weightTier
    double weightBytes = 0;    ///< the weights of one device
    double offloadedWeightBytes = 0;
    std::vector<OffloadTier> tiers; ///< each tier used, host before storage
    double stepS = 0;               ///< a decode step with the offloaded parts streamed over their links
    double ttftS = 0; ///< the prompt's prefill with the offloaded weights streamed in and the offloaded KV written out
    double e2eS = 0;  ///< the request: ttftS, then output - 1 offloaded decode steps
    double stepInMemoryS = 0;                      ///< the same step if everything fitted
    double linkS = 0;                              ///< the slowest tier's streaming alone (tiers stream in parallel)
    double mainMemoryBytes = 0;                    ///< what stays in main memory
    double stepFlops = 0, stepBytes = 0;           ///< per device: the step's work and its traffic (all tiers)
    bool fitsMainMemory = false, fitsTier = false; ///< fitsTier: every tier holds what it was given
    std::string wall; ///< what limits the step: "compute", "memory bandwidth", "the <level> link", "communication"
};

struct EnergyReport
{
    double powerW = 0; ///< per device: TDP x utilisation
    double utilization = 1;
    double joulesPerToken = 0; ///< all devices' power over the request's time, per generated token
};

struct CostReport
{
    double usdPerDeviceHour = 0;
    std::string source; ///< the price's source: the preset's, or "set by the user"
    double usdPerMillionTokens = 0;
};

/// The scenario's request as its serving options run it: the figures the search ranks and `analyze` reports.
/// - With engine admission (max_batched_tokens), its TTFT and TPOT (AdmissionReport) and its requests/s; the other
///   options then leave the request alone.
/// - TTFT: disaggregated, the prefill pool's (prefill + KV transfer); with chunked prefill, ceil(seq / chunk) mixed
///   steps; offloaded, the prefill with the offloaded weights streamed in; else the prompt's prefill.
/// - A decode step: the plain one (at the mean context), or with chunked prefill the mixed step; x the offload's
///   slowdown, and / the speculative speed-up (tokens come E at a time for verify + K drafts).
/// - End to end: TTFT + (output - 1) decode steps. Tokens/s per device: disaggregated, the slower pool's
///   requests/s x output / (P + D) devices; else batch x output / end to end / (tp x pp x ep x dp), and with chunked
///   prefill at most chunk / seq admitted prompts x output tokens per mixed step (one chunk a step is all the
///   prompts a replica can take in, however large its batch).
struct ServedRequest
{
    double ttftS = 0, tpotS = 0, e2eS = 0;
    double tokensPerSPerDevice = 0;
    int devices = 1;
};
/// The serving figures of a scenario, beyond one step's analysis.
struct ServingReport
{
    RequestTimeline request; ///< the request served plainly (prefill, then decode steps): the timeline's "plain" curve
    /// The request as the scenario's serving options run it (servedRequest()): what `analyze --json` reports as its
    /// `request` and the window's headline shows. serve() fills it; serveRequest() leaves it for the caller.
    ServedRequest served;
    std::optional<SpeculativeReport> speculative;       ///< speculative_k > 0
    std::optional<ChunkedPrefillReport> chunkedPrefill; ///< chunked_prefill > 0
    std::optional<AdmissionReport> admission;           ///< max_batched_tokens > 0
    std::optional<DisaggregationReport> disaggregation; ///< disaggregate P:D
    std::optional<OffloadReport> offload;               ///< kv_offload or weight_offload host or storage
    std::optional<EnergyReport> energy;                 ///< the device has a TDP
    std::optional<CostReport> cost;                     ///< a price: set, or the preset's
};

/// The parts of serve(), for views that need only one (each throws as serve() does).
SpeculativeReport speculate(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const ModelShape *draft);
/// `chunk`: chunkAnalysis() of `s` when the caller keeps it (it depends on neither batch nor context); nullptr: made
/// here.
ChunkedPrefillReport chunkPrefill(const HardwareSpec &hw, const ModelShape &m, const Scenario &s,
                                  const Analysis *chunk = nullptr);
/// The prefill of one chunk per replica, in the middle of its prompt (half the rest already cached).
Analysis chunkAnalysis(const HardwareSpec &hw, const ModelShape &m, const Scenario &s);

/// What the KV cache crosses between the prefill and decode pools: the scale-up interconnect, else the host link;
/// nullopt when the device has neither.
struct KvLink
{
    std::string name;
    double bandwidth = 0; ///< bytes/s of one device's link
    double latencyS = 0;
};
std::optional<KvLink> kvTransferLink(const HardwareSpec &hw);

/// The disaggregation of `s` (s.prefillDevices : s.decodeDevices, whole copies of tp x pp x ep devices each) from its
/// parts: `prefillS`, one copy prefilling s.prefillBatch prompts (batch / dp when 0) at once; `decodeTpotS`, the decode
/// pool's time per output token; `kv`, the whole model's cache (requestBytes()). The prefill pool takes
/// copies x prompts / prefillS requests/s, the decode pool copies x (batch / dp) / ((output - 1) x TPOT); TTFT =
/// prefillS + the prefilled prompts' KV cache over the link (each device sends its share). `listSplits` fills
/// `splits`; the best split is found either way. Throws AnalysisError for pools that are not whole copies or a
/// device without a link.
DisaggregationReport disaggregate(const KvLink &link, const Scenario &s, double prefillS, double decodeTpotS,
                                  const KvCache &kv, bool listSplits = true);

OffloadReport offload(const HardwareSpec &hw, const ModelShape &m, const Scenario &s);
/// True when the scenario offloads anything (kv_offload or weight_offload not none).
bool offloads(const Scenario &s);
/// True when the scenario asks for no serving option (speculative decoding, chunked prefill, engine admission,
/// disaggregation, offload): its request is then the plain one.
bool servesPlainly(const Scenario &s);

/// A whole serving step as a point on the roofline: FLOPs per device over its time, at its intensity.
struct ServingStep
{
    std::string id; ///< "decode" (plain, at the mean context), "verify" (K + 1 tokens), "mixed" (chunk + decodes),
                    ///< "offload" (decode with the offloaded bytes streamed over their links)
    double flops = 0, intensity = 0, timeS = 0;
};
/// The steps the scenario's serving options add (speculative decoding, chunked prefill, KV offload), after the plain
/// decode step they are measured against; empty when it asks for none.
std::vector<ServingStep> servingSteps(const HardwareSpec &hw, const ModelShape &m, const Scenario &s,
                                      const ModelShape *draft);

/// One way of serving the request, drawn as tokens generated per sequence against the time since it arrived.
struct TimelineCurve
{
    std::string id;                    ///< "plain", "speculative", "chunked_prefill", "disaggregated", "offload"
    double prefillS = 0;               ///< the prompt's prefill ends (the KV transfer of a disaggregated run follows)
    double firstTokenS = 0;            ///< the first token is out: the curve's first point, (firstTokenS, 1)
    std::vector<double> tokens, timeS; ///< from (1, firstTokenS) to (output, the last token's time)
};

/// The report's request as curves, one per way of serving it that the report holds, "plain" first. Each listed decode
/// step of the plain request keeps its own time; the gaps between listed steps are filled by linear interpolation,
/// so that g steps from s0 to s1 take g x s0 + (s1 - s0) x (g + 1) / 2. The other ways scale those steps:
/// - speculative: every step divided by the speed-up (tokens come E at a time, at the cost of verify + K drafts);
/// - chunked prefill: first token after ceil(seq / chunk) mixed steps, every decode step x the slowdown (other
///   prompts' chunks share each step: the steady state of continuous batching);
/// - disaggregated: first token after prefill + KV transfer, decode steps on the decode pool (the same step);
/// - offload: every decode step x (step with the offloaded part streamed / step in memory).
std::vector<TimelineCurve> timelineCurves(const ServingReport &r);

/// $/million tokens of a device rented at `usdPerHour` that generates `tokensPerSPerDevice`:
/// usdPerHour / 3,600 / tokensPerSPerDevice x 10^6. The search uses the same formula.
double usdPerMillionTokens(double usdPerHour, double tokensPerSPerDevice);

/// Expected tokens per speculative step: (1 - A^(K+1)) / (1 - A) (K + 1 at A = 1, 1 at A = 0).
double speculativeTokensPerStep(int k, double acceptance);

/// The serving figures for `s` (any phase: the request is `seq` prompt tokens and `output` generated ones at the
/// scenario's batch, formats and parallelism). `draft` is the draft model when s.draftModel names one (the caller
/// resolves the id), nullptr for "mtp". Throws AnalysisError for an encoder, a disaggregation that does not split into
/// whole copies of the model, or an offload tier the device lacks.
ServingReport serve(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const ModelShape *draft = nullptr);

/// serve()'s request, speculative decoding, chunked prefill, admission and disaggregation (no listed timeline steps,
/// offload, energy or cost), from `gen`, the analysis of `s` at phase Generate: what the search asks of every
/// configuration. `chunk` as for chunkPrefill().
ServingReport serveRequest(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const Analysis &gen,
                           const ModelShape *draft, const Analysis *chunk = nullptr);

/// The request of `s` as `r` (serve()'s report of `s`, or the parts of it that `s` asks for) runs it.
ServedRequest servedRequest(const Scenario &s, const ServingReport &r);

} // namespace memwall::core
