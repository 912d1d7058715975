#include "core/analysis/derivation.h"

#include "core/util/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace memwall::core {

namespace {

/// A number as the derivation substitutes it: whole numbers exactly, others with six significant digits ("0.515625",
/// "3.35e+12"). Whole numbers from 10 000 up are grouped in threes by a narrow no-break space (U+202F), as SI writes
/// them ("469 762 048", "8192"): a 13-digit count stays readable, and a comma would read as the separator in
/// "min(32 768, 512)".
std::string num(double x)
{
    if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(std::fabs(x)));
        const std::string digits = buf;
        std::string out = x < 0 ? "-" : "";
        for (std::size_t i = 0; i < digits.size(); ++i) {
            if (digits.size() > 4 && i > 0 && (digits.size() - i) % 3 == 0)
                out += "\u202f";
            out += digits[i];
        }
        return out;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", x);
    return buf;
}

/// A quantity with its unit, four significant digits and an SI prefix: "989.4 TFLOP/s", "1.342 GB".
std::string si(double x, std::string_view unit) { return formatSi(x, unit, 4); }

/// The closing line: "= 671,088,640 B (671 MB)", the exact value, then as people read it.
std::string result(double x, std::string_view unit)
{
    std::string human;
    if (unit == "B")
        human = formatBytes(x);
    else if (unit == "s")
        human = formatSeconds(x);
    else if (unit == "tokens/s")
        human = formatSiNumber(x) + " tokens/s"; // as the headline writes it
    else
        human = formatSi(x, unit);
    const bool whole = std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15;
    return "= " + (whole ? formatGrouped(static_cast<int64_t>(x)) : num(x)) + " " + std::string(unit) + " (" + human +
           ")";
}

std::string plural(double n, std::string_view one, std::string_view many)
{
    return num(n) + " " + std::string(n == 1 ? one : many);
}

const std::vector<std::pair<std::string_view, std::string_view>> kAliases = {
    {"time", "totals.time_s"},
    {"tokens_per_s", "totals.tokens_per_s"},
    {"flops", "totals.flops"},
    {"bytes", "totals.bytes"},
    {"intensity", "totals.arithmetic_intensity"},
    {"bound", "totals.bound"},
    {"ridge", "hardware.ridge_flops_per_byte"},
    {"kv", "kv_cache.total_bytes"},
    {"kv_per_token", "kv_cache.bytes_per_token"},
    {"weights", "model.weight_bytes"},
    {"memory", "memory.total_bytes_per_device"},
    {"ttft", "phases.ttft_s"},
    {"tpot", "phases.tpot_s"},
};

/// The whole-step fields, in the order derivationFields() lists them.
constexpr std::string_view kStepFields[] = {
    "totals.time_s",
    "totals.tokens_per_s",
    "totals.flops",
    "totals.bytes",
    "totals.arithmetic_intensity",
    "totals.bound",
    "hardware.ridge_flops_per_byte",
    "kv_cache.bytes_per_token",
    "kv_cache.total_bytes",
    "model.weight_bytes",
    "memory.total_bytes_per_device",
};

/// The fields only a generate analysis has (its TTFT and TPOT, the headline's time figure).
constexpr std::string_view kGenerateFields[] = {"phases.ttft_s", "phases.tpot_s"};

/// An operator's fields, each with the `analyze --json` name it also answers to.
constexpr std::string_view kOpFields[] = {"flops", "bytes", "intensity", "time", "bound"};
std::string_view opFieldFromJsonName(std::string_view f)
{
    if (f == "time_s")
        return "time";
    if (f == "arithmetic_intensity")
        return "intensity";
    return f;
}

double boundValue(Bound b)
{
    switch (b) {
    case Bound::Compute: return 1;
    case Bound::Memory: return 0;
    case Bound::Communication: return 2;
    }
    return 0;
}

/// A generate analysis: a prompt pass, then decode steps (only it has a TTFT and a TPOT).
bool isGenerate(const Analysis &a)
{
    return std::any_of(a.operators.begin(), a.operators.end(),
                       [](const Operator &op) { return op.phase == Phase::Prefill; }) &&
           std::any_of(a.operators.begin(), a.operators.end(),
                       [](const Operator &op) { return op.phase == Phase::Decode; });
}

/// Names shared by several operators in a list... only a generate analysis runs operators of the same name twice.
bool nameRepeats(const Analysis &a, std::size_t index)
{
    const std::string_view name = a.operators[index].name;
    return std::count_if(a.operators.begin(), a.operators.end(),
                         [name](const Operator &op) { return op.name == name; }) > 1;
}

// ---- the whole step ----

/// Σ of a per-operator figure, in the order analyze() summed it, with the largest contributions named.
struct Sum
{
    double total = 0;
    std::string largest; ///< "ffn.up 13.4 GFLOP (31 %), ..."
};
Sum sumOperators(const Analysis &a, double (*figure)(const Operator &), std::string_view unit)
{
    Sum s;
    std::vector<std::size_t> order(a.operators.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (const Operator &op : a.operators)
        s.total += figure(op);
    std::sort(order.begin(), order.end(),
              [&](std::size_t x, std::size_t y) { return figure(a.operators[x]) > figure(a.operators[y]); });
    for (std::size_t i = 0; i < order.size() && i < 3; ++i) {
        const double v = figure(a.operators[order[i]]);
        if (!(v > 0))
            break;
        s.largest += std::string(s.largest.empty() ? "" : ", ") + operatorKey(a, order[i]) + " " +
                     (unit == "s"   ? formatSeconds(v)
                      : unit == "B" ? formatBytes(v)
                                    : si(v, unit)) +
                     " (" + formatPercent(s.total > 0 ? v / s.total : 0.0) + ")";
    }
    return s;
}

/// The time of the operators bound by compute and by memory, without their kernel launches and quantize kernels, as
/// analyze() adds them up to decide what bounds the step.
struct RoofSplit
{
    double compute = 0, memory = 0, launches = 0, quantize = 0;
    int computeOps = 0, memoryOps = 0;
};
RoofSplit roofSplit(const Analysis &a, const std::vector<OperatorRecord> &records)
{
    RoofSplit r;
    for (std::size_t i = 0; i < a.operators.size(); ++i) {
        const Operator &op = a.operators[i];
        const double launch = records[i].launchS;
        const double roof = op.timeS - launch - records[i].quantizeS;
        if (op.bound == Bound::Compute) {
            r.compute += roof;
            ++r.computeOps;
        } else {
            r.memory += roof;
            ++r.memoryOps;
        }
        r.launches += launch;
        r.quantize += records[i].quantizeS;
    }
    return r;
}

void deriveTime(Derivation &d, const Analysis &a, const std::vector<OperatorRecord> &records)
{
    d.title = "Step time on one device's critical path (operators in sequence, then communication)";
    const RoofSplit r = roofSplit(a, records);
    d.lines.emplace_back("time = Σ over the operators of max(FLOPs / compute roof, bytes / bandwidth)" +
                         std::string(r.launches > 0 ? " + kernel launches" : "") +
                         (r.quantize > 0 ? " + quantizing inputs to FP8" : "") + " + communication");
    d.lines.emplace_back("(each operator's own derivation: op:NAME:time)");
    double t = 0;
    for (const Operator &op : a.operators)
        t += op.timeS;
    t += a.comm.timeS;
    std::string line = "= " + formatSeconds(r.compute) + " (" +
                       plural(r.computeOps, "compute-bound operator", "compute-bound operators") + ") + " +
                       formatSeconds(r.memory) + " (" +
                       plural(r.memoryOps, "memory-bound operator", "memory-bound operators") + ")";
    if (r.launches > 0)
        line += " + " + formatSeconds(r.launches) + " (launches)";
    if (r.quantize > 0)
        line += " + " + formatSeconds(r.quantize) + " (quantizing)";
    line += " + " + formatSeconds(a.comm.timeS) + " (communication" +
            (a.comm.timeS > 0 ? ", " + si(a.comm.bytes, "B") + " over " + a.comm.link : std::string()) + ")";
    d.lines.emplace_back(line);
    d.lines.emplace_back("largest: " + sumOperators(
                                           a, [](const Operator &op) { return op.timeS; }, "s")
                                           .largest);
    d.lines.emplace_back(result(t, "s"));
    d.value = t;
    d.valueText = formatSeconds(t);
}

/// The time of the operators a generate analysis ran in `phase` (its prompt pass, or its decode steps).
double phaseOperatorTime(const Analysis &a, Phase phase, int *count)
{
    double t = 0;
    *count = 0;
    for (const Operator &op : a.operators)
        if (op.phase == phase) {
            t += op.timeS;
            ++*count;
        }
    return t;
}

void deriveTtft(Derivation &d, const Analysis &a)
{
    d.title = "Time to first token (generate: the prompt's pass, before the first new token)";
    int n = 0;
    const double ops = phaseOperatorTime(a, Phase::Prefill, &n);
    const double comm = a.phases.ttftS - ops; // the prompt pass's collectives, as the analysis added them
    d.lines.emplace_back(
        "TTFT = Σ over the prompt pass's operators (NAME@prefill) of max(FLOPs / compute roof, bytes / "
        "bandwidth) + the prompt pass's communication");
    d.lines.emplace_back("(each operator's own derivation: op:NAME@prefill:time)");
    d.lines.emplace_back("= " + formatSeconds(ops) + " (" + plural(n, "operator", "operators") + ") + " +
                         formatSeconds(comm) + " (communication)");
    d.lines.emplace_back(result(ops + comm, "s"));
    d.value = ops + comm;
    d.valueText = formatSeconds(d.value);
}

void deriveTpot(Derivation &d, const Scenario &s, const Analysis &a)
{
    d.title = "Time per output token (generate: one decode step at the mean context)";
    const double steps = static_cast<double>(s.output > 1 ? s.output - 1 : 1);
    int n = 0;
    const double ops = phaseOperatorTime(a, Phase::Decode, &n);
    d.lines.emplace_back("TPOT = (end-to-end time − TTFT) ÷ (output tokens − 1): the " + num(steps) +
                         " decode steps after the first token, each at the mean context prompt + (output − 1) / 2 = " +
                         num(static_cast<double>(s.seq) + (steps) / 2.0) + " tokens");
    d.lines.emplace_back("decode steps = Σ over the decode operators (NAME@decode, each run " + num(steps) +
                         " times) + their communication = " + formatSeconds(ops) + " (" +
                         plural(n, "operator", "operators") + ") + " +
                         formatSeconds(a.totals.timeS - a.phases.ttftS - ops) + " (communication)");
    d.lines.emplace_back("= (" + formatSeconds(a.totals.timeS) + " − " + formatSeconds(a.phases.ttftS) + ") ÷ " +
                         num(steps));
    d.value = (a.totals.timeS - a.phases.ttftS) / steps;
    d.lines.emplace_back(result(d.value, "s"));
    d.valueText = formatSeconds(d.value);
}

void deriveBound(Derivation &d, const Analysis &a, const std::vector<OperatorRecord> &records)
{
    d.title = "What bounds the step";
    const RoofSplit r = roofSplit(a, records);
    d.lines.emplace_back(
        "bound = the largest of: time of the compute-bound operators, of the memory-bound operators, of "
        "communication (communication only when it exceeds both)");
    d.lines.emplace_back("compute " + formatSeconds(r.compute) + ", memory " + formatSeconds(r.memory) +
                         ", communication " + formatSeconds(a.comm.timeS));
    Bound b = r.compute > r.memory ? Bound::Compute : Bound::Memory;
    if (a.comm.timeS > r.compute && a.comm.timeS > r.memory)
        b = Bound::Communication;
    d.valueText = std::string(toString(b));
    d.value = boundValue(b);
    d.lines.emplace_back("= " + d.valueText + "-bound");
}

void deriveSum(Derivation &d, const Analysis &a, bool flops)
{
    d.title =
        flops ? "FLOPs of one step on one device (all operators)" : "Bytes one step moves to and from main memory";
    const Sum s = flops ? sumOperators(
                              a, [](const Operator &op) { return op.flops; }, "FLOP")
                        : sumOperators(
                              a, [](const Operator &op) { return op.bytes(); }, "B");
    d.lines.emplace_back(std::string(flops ? "FLOPs" : "bytes") + " = Σ over the " +
                         num(static_cast<double>(a.operators.size())) +
                         " operators (each: op:NAME:" + (flops ? "flops" : "bytes") + ")");
    d.lines.emplace_back("largest: " + s.largest);
    d.lines.emplace_back(result(s.total, flops ? "FLOP" : "B"));
    d.value = s.total;
    d.valueText = flops ? formatSi(s.total, "FLOP") : formatBytes(s.total);
}

void deriveIntensity(Derivation &d, const Analysis &a)
{
    d.title = "Arithmetic intensity of the whole step";
    double flops = 0, bytes = 0;
    for (const Operator &op : a.operators) {
        flops += op.flops;
        bytes += op.bytes();
    }
    const double v = bytes > 0 ? flops / bytes : 0.0;
    d.lines.emplace_back("intensity = FLOPs / bytes (totals.flops / totals.bytes)");
    d.lines.emplace_back("= " + num(flops) + " FLOP / " + num(bytes) + " B");
    d.lines.emplace_back("= " + num(v) + " FLOP/B (" + (v >= a.ridge ? "at or above" : "below") + " the ridge, " +
                         formatRatio(a.ridge) + " FLOP/B)");
    d.value = v;
    d.valueText = formatRatio(v) + " FLOP/B";
}

void deriveTokensPerS(Derivation &d, const Scenario &s, const Analysis &a)
{
    d.title = "Tokens per second over all replicas";
    const double batch = static_cast<double>(s.batch);
    double tokens = 0;
    std::string words;
    switch (s.phase) {
    case Phase::Decode:
        tokens = batch;
        words = "batch " + num(batch) + " (one new token per sequence)";
        break;
    case Phase::Generate:
        tokens = batch * static_cast<double>(s.output);
        words = "batch " + num(batch) + " × " + num(static_cast<double>(s.output)) + " output tokens";
        break;
    case Phase::Prefill:
    case Phase::Encode:
    case Phase::Train:
        tokens = batch * static_cast<double>(s.seq);
        words = "batch " + num(batch) + " × " + num(static_cast<double>(s.seq)) + " tokens (seq)";
        break;
    }
    double t = 0;
    for (const Operator &op : a.operators)
        t += op.timeS;
    t += a.comm.timeS;
    const double v = t > 0 ? tokens / t : 0.0;
    d.lines.emplace_back("tokens/s = tokens of the step (" +
                         (s.dp == 1 ? std::string("one replica") : "all " + num(s.dp) + " replicas") +
                         ") / step time (totals.time_s)");
    d.lines.emplace_back("= " + words + " / " + num(t) + " s");
    d.lines.emplace_back("= " + num(tokens) + " / " + formatSeconds(t));
    d.lines.emplace_back(result(v, "tokens/s"));
    d.value = v;
    d.valueText = formatSiNumber(v) + " tokens/s";
}

void deriveRidge(Derivation &d, const HardwareSpec &hw, const Analysis &a)
{
    d.title = "Ridge point: the intensity where the compute roof meets main memory";
    const double peak = hw.peak(a.matmulType) * a.computeEfficiency;
    const double bw = hw.mainMemory().bandwidthBytesPerS.value * a.memoryEfficiency;
    d.lines.emplace_back("ridge = compute roof / bandwidth = (" + std::string(toString(a.matmulType)) +
                         " dense peak × compute efficiency) / (" + hw.mainMemory().name +
                         " bandwidth × memory efficiency)");
    d.lines.emplace_back("= (" + si(hw.peak(a.matmulType), "FLOP/s") + " × " + num(a.computeEfficiency) + ") / (" +
                         si(hw.mainMemory().bandwidthBytesPerS.value, "B/s") + " × " + num(a.memoryEfficiency) + ")");
    const double v = peak / bw;
    d.lines.emplace_back("= " + num(v) + " FLOP/B");
    d.value = v;
    d.valueText = formatRatio(v) + " FLOP/B";
}

/// "2 × 8 KV heads × 128 head_dim" (attention) or "(512 kv_lora_rank + 64 qk_rope_head_dim)" (MLA): the cached
/// elements per token and layer, as cachedElementsPerToken() counts them.
std::string perTokenWords(const ModelShape &m, const LayerBlock &b = {})
{
    if (m.mixer == MixerKind::Mla)
        return "(" + num(static_cast<double>(m.mla.kvLoraRank)) + " kv_lora_rank + " +
               num(static_cast<double>(m.mla.qkRopeHeadDim)) + " qk_rope_head_dim)";
    const AttentionWidths w = attentionWidths(m, b); // Gemma 4's global layers: their own
    return "2 (K and V) × " + plural(static_cast<double>(w.kvHeads), "KV head", "KV heads") + " × " +
           num(static_cast<double>(w.headDim)) + " head_dim";
}

void deriveKvPerToken(Derivation &d, const ModelShape &m, const Scenario &s, const Analysis &a)
{
    d.title = "KV cache one token adds (whole model, before any window)";
    const LayerGroups groups = layerGroups(m);
    const double attnLayers = static_cast<double>(attentionLayers(groups));
    const double kvb = bytesOf(s.kv);
    double v = cachedElements(m, groups, 1, 1) * kvb;
    const bool ownKv =
        std::any_of(groups.begin(), groups.end(), [](const LayerGroup &g) { return g.block.kvHeads > 0; });
    // Gemma 4's global layers and KV sharing, DeciLM's layers: their own KV heads (and head size), or none
    if (m.global.present() || ownKv || m.kvSharedLayers > 0) {
        d.lines.emplace_back("KV bytes per token = Σ over the attention layers of 2 × KV heads × head_dim × bytes per "
                             "element (some layers have their own)");
        std::string sum;
        for (const LayerGroup &g : groups) {
            if (!g.block.attends())
                continue;
            if (g.block.sharesKv) { // Gemma 4 E2B/E4B: they read an earlier layer's cache
                d.lines.emplace_back("  " + plural(static_cast<double>(g.count), "layer", "layers") +
                                     (g.block.window > 0 ? " with a window" : " with the whole context") +
                                     ": share an earlier layer's keys and values, cache none");
                continue;
            }
            const std::string each = num(cachedElementsPerToken(m, g.block, 1));
            d.lines.emplace_back("  " + plural(static_cast<double>(g.count), "layer", "layers") +
                                 (g.block.window > 0 ? " with a window" : " with the whole context") + ": " +
                                 perTokenWords(m, g.block) + " = " + each + " elements each");
            sum += (sum.empty() ? "" : " + ") + num(static_cast<double>(g.count)) + " × " + each;
        }
        d.lines.emplace_back("= (" + sum + ") elements × " + num(kvb) + " B (" + std::string(toString(s.kv)) + ")");
    } else {
        d.lines.emplace_back(
            m.mixer == MixerKind::Mla
                ? "KV bytes per token = (kv_lora_rank + qk_rope_head_dim) × attention layers × bytes per element"
                : "KV bytes per token = 2 × KV heads × head_dim × attention layers × bytes per element");
        d.lines.emplace_back("= " + perTokenWords(m) + " × " + plural(attnLayers, "layer", "layers") + " × " +
                             num(kvb) + " B (" + std::string(toString(s.kv)) + ")");
    }
    if (m.hasIndexer()) { // the indexer's keys, in their own format
        const double idx = indexerKeyBytes(m, groups, 1);
        d.lines.emplace_back(
            "+ indexer keys: " + plural(static_cast<double>(sparseLatentLayers(groups)), "layer", "layers") + " × (" +
            num(static_cast<double>(m.indexer.headDim)) +
            " index_head_dim in FP8 + an FP32 scale per 128) = " + num(idx) + " B");
        v += idx;
    }
    d.lines.emplace_back(result(v, "B"));
    d.value = v;
    d.valueText = formatBytes(v);
    (void)a;
}

void deriveKvTotal(Derivation &d, const ModelShape &m, const Scenario &s, const Analysis &a)
{
    d.title = "KV cache of all sequences (one replica, whole model)";
    const KvCache &kv = a.kvCache;
    const LayerGroups groups = layerGroups(m);
    const double kvHeads = static_cast<double>(m.kvHeads);
    const double tokens = kv.cachedTokens, seqs = kv.sequences, kvb = kv.bytesPerElement;
    const std::string kvFormat = num(kvb) + " B (" + std::string(toString(s.kv)) + ")";
    const double indexer = indexerKeyBytes(m, groups, tokens) * seqs; // sparse-latent layers' indexer keys
    const double v = cachedElements(m, groups, tokens, 1) * kvb * seqs + indexer;

    std::string tokenWords = plural(tokens, "token", "tokens");
    if (!s.kvCache)
        tokenWords += " (no KV cache)";
    else if (s.phase == Phase::Decode && tokens > static_cast<double>(s.context))
        tokenWords += " (context " + num(static_cast<double>(s.context)) + " + " +
                      plural(tokens - static_cast<double>(s.context), "new token", "new tokens") + ")";
    else if (s.phase == Phase::Generate)
        tokenWords +=
            " (seq " + num(static_cast<double>(s.seq)) + " + output " + num(static_cast<double>(s.output)) + ")";
    const std::string seqWords = plural(seqs, "sequence", "sequences");

    bool plain = true; // one group of attention layers with the whole context
    for (const LayerGroup &g : groups)
        plain = plain && g.block.attends() && g.block.window == 0;
    if (plain && groups.size() == 1) {
        const double layers = static_cast<double>(m.layers);
        if (m.mixer == MixerKind::Mla) {
            d.lines.emplace_back("KV bytes = (kv_lora_rank + qk_rope_head_dim) × layers × bytes per element × tokens × "
                                 "sequences");
            d.lines.emplace_back("= " + perTokenWords(m) + " × " + plural(layers, "layer", "layers") + " × " +
                                 kvFormat + " × " + tokenWords + " × " + seqWords);
        } else {
            d.lines.emplace_back(
                "KV bytes = 2 × layers × KV heads × head_dim × bytes per element × tokens × sequences");
            d.lines.emplace_back("= 2 × " + plural(layers, "layer", "layers") + " × " +
                                 plural(kvHeads, "KV head", "KV heads") + " × " + num(static_cast<double>(m.headDim)) +
                                 " × " + kvFormat + " × " + tokenWords + " × " + seqWords);
        }
    } else {
        d.lines.emplace_back(
            "KV bytes = Σ over the layer groups of layers × cached elements per token and layer × tokens "
            "kept (a window keeps at most its window) × bytes per element × sequences");
        if (!m.global.present() && m.layerBlocks.empty())
            d.lines.emplace_back("cached elements per token and layer = " + perTokenWords(m) + " = " +
                                 num(cachedElementsPerToken(m, LayerBlock{}, 1)));
        std::string sum;
        for (const LayerGroup &g : groups) {
            const double n = static_cast<double>(g.count);
            if (g.block.mixer == LayerMixer::None) {
                d.lines.emplace_back("  " + plural(n, "layer", "layers") + " without attention: no cache");
                continue;
            }
            if (g.block.mixer == LayerMixer::Linear) {
                d.lines.emplace_back("  " + plural(n, "layer", "layers") +
                                     " whose attention is one linear layer: no cache");
                continue;
            }
            if (g.block.mixer == LayerMixer::Ssm) {
                d.lines.emplace_back("  " + plural(n, "state-space layer", "state-space layers") +
                                     ": no per-token cache (a fixed state instead: kv_cache.state_bytes)");
                continue;
            }
            if (g.block.sharesKv) {
                d.lines.emplace_back("  " + plural(n, "layer", "layers") +
                                     ": share an earlier layer's keys and values, cache none");
                continue;
            }
            LayerGroups one;
            one.push(g);
            const double elements = cachedElements(m, one, tokens, 1);
            const double perToken = cachedElementsPerToken(m, g.block, 1);
            const double window = static_cast<double>(g.block.window);
            const double kept = g.block.window > 0 ? std::min(tokens, window) : tokens;
            d.lines.emplace_back(
                "  " + plural(n, "layer", "layers") +
                (g.block.window > 0 ? " with a " + num(window) + "-token window" : " with the whole context") +
                (g.block.routed() ? " (routed FFN)" : "") + ": " + num(n) + " × " + num(perToken) + " × " +
                (g.block.window > 0 ? "min(" + num(tokens) + ", " + num(window) + ") = " + num(n) + " × " +
                                          num(perToken) + " × " + num(kept)
                                    : num(kept)) +
                " = " + num(elements) + " elements");
            sum += (sum.empty() ? "" : " + ") + num(elements);
        }
        d.lines.emplace_back("= (" + (sum.empty() ? std::string("0") : sum) + ") elements × " + kvFormat + " × " +
                             seqWords + ", at " + tokenWords);
    }
    if (indexer > 0)
        d.lines.emplace_back("+ indexer keys: " + num(m.indexer.keyBytesPerToken()) + " B per token and layer × " +
                             plural(static_cast<double>(sparseLatentLayers(groups)), "layer", "layers") + " × " +
                             tokenWords + " × " + seqWords + " = " + num(indexer) + " B");
    d.lines.emplace_back(result(v, "B"));
    d.value = v;
    d.valueText = formatBytes(v);
}

void deriveWeights(Derivation &d, const ModelShape &m, const Scenario &s, const Analysis &a)
{
    (void)m;
    d.title = "Weights of the whole model at the weight format";
    const WeightFormat &w = s.weights;
    const double total = static_cast<double>(a.params.total);
    const double embed = static_cast<double>(a.params.embedding + a.params.head);
    const double routed = static_cast<double>(a.params.routed);
    const double bpw = a.bytesPerWeight, ebpw = a.embedBytesPerWeight, xbpw = a.expertBytesPerWeight;
    std::string formula = "weight bytes = parameters × bytes per weight";
    if (ebpw != bpw)
        formula += " + embedding and head parameters × (16-bit bytes − bytes per weight)";
    if (xbpw != bpw)
        formula += " + routed-expert parameters × (expert bytes − bytes per weight)";
    d.lines.emplace_back(formula);
    std::string perWeight = "bytes per weight = " + std::string(toString(w.type));
    if (w.groupSize > 0)
        perWeight += ": (" + num(static_cast<double>(bits(w.type))) + " bits + a " +
                     num(static_cast<double>(bits(w.scaleType))) + "-bit scale per " +
                     num(static_cast<double>(w.groupSize)) + " weights) / 8 = " + num(w.bytesPerWeight()) + " B";
    else
        perWeight += ": " + num(static_cast<double>(bits(w.type))) + " bits / 8 = " + num(w.bytesPerWeight()) + " B";
    if (bpw != w.bytesPerWeight())
        perWeight += "; with zero points and sparsity as set: " + num(bpw) + " B";
    d.lines.emplace_back(perWeight);
    std::string line = "= " + num(total) + " parameters × " + num(bpw) + " B";
    if (ebpw != bpw)
        line += " + " + num(embed) + " × (" + num(ebpw) + " − " + num(bpw) + ") B";
    if (xbpw != bpw)
        line += " + " + num(routed) + " × (" + num(xbpw) + " − " + num(bpw) + ") B";
    d.lines.emplace_back(line);
    const double v = total * bpw + embed * (ebpw - bpw) + routed * (xbpw - bpw);
    d.lines.emplace_back(result(v, "B"));
    d.value = v;
    d.valueText = formatBytes(v);
}

void deriveMemory(Derivation &d, const Scenario &s, const Analysis &a)
{
    d.title = "Memory one device holds";
    const MemoryFootprint &m = a.memory;
    const bool train = s.phase == Phase::Train;
    std::string formula = "memory per device = weights + KV cache + activations";
    std::string line = "= " + formatBytes(m.weights) + " + " + formatBytes(m.kv) + " + " + formatBytes(m.activations);
    if (train) {
        formula += " + gradients + optimizer state";
        line += " + " + formatBytes(m.gradients) + " + " + formatBytes(m.optimizer);
    }
    if (m.state > 0) {
        formula += " + recurrent state";
        line += " + " + formatBytes(m.state);
    }
    d.lines.emplace_back(formula + " (one device's share under tensor, pipeline" +
                         (train ? " and data" : " and expert") + " parallelism)");
    d.lines.emplace_back(line);
    const double v = m.weights + m.kv + m.activations + m.gradients + m.optimizer + m.state;
    d.lines.emplace_back(result(v, "B"));
    d.lines.emplace_back("of " + formatBytes(m.capacity) + ": " +
                         (v <= m.capacity ? "fits (" + formatPercent(m.capacity > 0 ? v / m.capacity : 0.0) + ")"
                                          : std::string("does not fit")));
    d.value = v;
    d.valueText = formatBytes(v);
}

// ---- one operator ----

/// "2 × tokens × inputs × outputs" and "2 × 1 × 8,192 × 10,240", from the terms analyze() multiplied.
void flopFactors(const FlopTerms &t, std::string &symbols, std::string &numbers)
{
    symbols = num(t.coeff) + " " + std::string(toString(t.coeffName));
    numbers = num(t.coeff);
    for (int i = 0; i < 4; ++i) {
        if (t.names[i] == FlopName::None)
            continue;
        symbols += " × " + std::string(toString(t.names[i]));
        numbers += " × " + num(t.f[i]);
    }
    if (t.kept != 1) {
        symbols += " × kept fraction (structured sparsity)";
        numbers += " × " + num(t.kept);
    }
    if (t.extra != 0) {
        symbols += " + " + std::string(toString(t.extraName));
        numbers += " + " + num(t.extra);
    }
}

std::string executions(const Operator &op, const OperatorRecord &rec)
{
    std::string s = " × " + plural(op.count, "execution", "executions");
    if (rec.trainFactor != 1)
        s += " × " + num(rec.trainFactor) + " (training: forward + backward" +
             (rec.trainFactor > 3 ? " + recompute" : "") + ")";
    return s;
}

void deriveOpFlops(Derivation &d, const Operator &op, const OperatorRecord &rec)
{
    const FlopTerms &t = rec.flops;
    const double once = t.value();
    const double v = once * op.count * rec.trainFactor;
    if (t.coeff == 0 && t.extra == 0) {
        d.lines.emplace_back("FLOPs = 0 (" + std::string(op.name) + " only moves data)");
    } else {
        std::string symbols, numbers;
        flopFactors(t, symbols, numbers);
        d.lines.emplace_back("FLOPs per execution = " + symbols);
        d.lines.emplace_back("= " + numbers + " = " + num(once));
        d.lines.emplace_back("FLOPs = " + num(once) + executions(op, rec));
    }
    d.lines.emplace_back(result(v, "FLOP"));
    d.value = v;
    d.valueText = formatSi(v, "FLOP");
}

void deriveOpBytes(Derivation &d, const Operator &op, const OperatorRecord &rec)
{
    const double n = op.count * rec.trainFactor;
    d.lines.emplace_back("bytes = weights + activations (inputs read, outputs written) + KV cache / state");
    const auto per = [n](double b) { return num(n > 0 ? b / n : 0.0) + " B"; };
    d.lines.emplace_back("per execution: " + per(op.weightBytes) + " + " + per(op.activationBytes) + " + " +
                         per(op.kvBytes) + "," + executions(op, rec));
    d.lines.emplace_back("= " + num(op.weightBytes) + " + " + num(op.activationBytes) + " + " + num(op.kvBytes) + " B");
    const double v = op.weightBytes + op.activationBytes + op.kvBytes;
    d.lines.emplace_back(result(v, "B"));
    d.value = v;
    d.valueText = formatBytes(v);
}

void deriveOpIntensity(Derivation &d, const Operator &op)
{
    const double bytes = op.weightBytes + op.activationBytes + op.kvBytes;
    const double v = bytes > 0 ? op.flops / bytes : 0.0;
    d.lines.emplace_back("intensity = FLOPs / bytes");
    d.lines.emplace_back("= " + num(op.flops) + " FLOP / " + num(bytes) + " B");
    d.lines.emplace_back("= " + num(v) + " FLOP/B");
    d.value = v;
    d.valueText = formatRatio(v) + " FLOP/B";
}

/// The two sides of an operator's roofline, as emit() computed them.
struct Sides
{
    double compute, memory;
};
Sides sides(const Operator &op, const OperatorRecord &rec)
{
    return {op.flops / rec.peakFlops,
            op.weightBytes / rec.weightBandwidth + (op.activationBytes + op.kvBytes) / rec.otherBandwidth};
}

std::string memorySide(const Operator &op, const OperatorRecord &rec, bool numbers)
{
    if (!numbers)
        return rec.weightBandwidth != rec.otherBandwidth ? "weight bytes / weight bandwidth + other bytes / bandwidth"
                                                         : "bytes / bandwidth";
    if (rec.weightBandwidth != rec.otherBandwidth)
        return si(op.weightBytes, "B") + " / " + si(rec.weightBandwidth, "B/s") + " + " +
               si(op.activationBytes + op.kvBytes, "B") + " / " + si(rec.otherBandwidth, "B/s");
    return si(op.bytes(), "B") + " / " + si(rec.otherBandwidth, "B/s");
}

void deriveOpTime(Derivation &d, const Operator &op, const OperatorRecord &rec, const Analysis &a)
{
    const Sides x = sides(op, rec);
    d.lines.emplace_back("time = max(FLOPs / compute roof, " + memorySide(op, rec, false) + ")" +
                         (rec.launchS > 0 ? " + kernel launches" : "") +
                         (rec.quantizeS > 0 ? " + quantizing the input to FP8" : ""));
    std::string roof = "compute roof " + si(rec.peakFlops, "FLOP/s") + " (" + std::string(toString(op.computeType));
    if (op.moduleFraction > 0)
        roof += ", the device's measured MLA decode module: " + num(op.moduleFraction) +
                " of the dense peak and of the bandwidth";
    else if (op.expertTokens > 0 && rec.otherBandwidth != a.bandwidth) // timeMoeOperator(): every byte at its rate
        roof += ", the device's measured fused MoE kernel at " + num(op.expertTokens) +
                " tokens per expert: its fraction of the dense peak and of the bandwidth";
    else if (rec.peakFlops != a.peakFlops && (op.cls == OpClass::Matmul || op.cls == OpClass::Attention))
        roof += std::string(op.cls == OpClass::Attention ? ", the fused-attention kernels' rate"
                                                         : ", what a GEMM of this size reaches");
    d.lines.emplace_back(roof + ")");
    d.lines.emplace_back("= max(" + si(op.flops, "FLOP") + " / " + si(rec.peakFlops, "FLOP/s") + ", " +
                         memorySide(op, rec, true) + ")" + (rec.launchS > 0 ? " + " + formatSeconds(rec.launchS) : "") +
                         (rec.quantizeS > 0 ? " + " + formatSeconds(rec.quantizeS) : ""));
    const double v = std::max(x.compute, x.memory) + rec.launchS + rec.quantizeS;
    d.lines.emplace_back("= max(" + si(x.compute, "s") + ", " + si(x.memory, "s") + ")" +
                         (rec.launchS > 0 ? " + " + si(rec.launchS, "s") : "") +
                         (rec.quantizeS > 0 ? " + " + si(rec.quantizeS, "s") : ""));
    d.lines.emplace_back(result(v, "s"));
    d.value = v;
    d.valueText = formatSeconds(v);
}

void deriveOpBound(Derivation &d, const Operator &op, const OperatorRecord &rec)
{
    const Sides x = sides(op, rec);
    d.lines.emplace_back("bound = compute when FLOPs / compute roof ≥ memory time, else memory");
    d.lines.emplace_back("compute " + formatSeconds(x.compute) + (x.compute >= x.memory ? " ≥ " : " < ") + "memory " +
                         formatSeconds(x.memory));
    const Bound b = x.compute >= x.memory ? Bound::Compute : Bound::Memory;
    d.valueText = std::string(toString(b));
    d.value = boundValue(b);
    d.lines.emplace_back("= " + d.valueText + "-bound");
}

/// A communication operator's time (Operator::onLink(): expert parallelism's all-to-all halves), which the
/// communication timed (core/analysis/communication.cpp), not the roofline.
void deriveLinkTime(Derivation &d, const Operator &op, const Analysis &a)
{
    const bool measured = a.comm.allToAll == "measured";
    d.lines.emplace_back(
        "time = executions (routed layers) × one all-to-all half's time at the bytes each layer sends, " +
        std::string(measured ? "from the device's measured DeepEP table (alltoall: measured)"
                             : "the (ep − 1)/ep of them that leave the device / the link's bandwidth + its latency "
                               "(alltoall: ideal)"));
    d.lines.emplace_back("over " + a.comm.link + ": " + si(op.activationBytes, "B") + " leave the device in all");
    d.lines.emplace_back("= " + num(op.count) + " × " + formatSeconds(op.count > 0 ? op.timeS / op.count : 0.0));
    d.lines.emplace_back("(part of the step's communication, " + formatSeconds(a.comm.timeS) + ")");
    d.lines.emplace_back(result(op.timeS, "s"));
    d.value = op.timeS;
    d.valueText = formatSeconds(op.timeS);
}

void deriveLinkBound(Derivation &d)
{
    d.lines.emplace_back("bound = communication: the operator only sends bytes over the link");
    d.valueText = std::string(toString(Bound::Communication));
    d.value = boundValue(Bound::Communication);
    d.lines.emplace_back("= " + d.valueText + "-bound");
}

std::string fieldList(const Analysis &a)
{
    std::string out;
    const bool generate = isGenerate(a);
    for (const auto &[alias, field] : kAliases)
        if (generate ||
            std::find(std::begin(kGenerateFields), std::end(kGenerateFields), field) == std::end(kGenerateFields))
            out += std::string(out.empty() ? "" : ", ") + std::string(alias);
    for (std::string_view f : kStepFields)
        out += ", " + std::string(f);
    if (generate)
        for (std::string_view f : kGenerateFields)
            out += ", " + std::string(f);
    out += ", op:NAME:flops|bytes|intensity|time|bound with NAME one of ";
    for (std::size_t i = 0; i < a.operators.size(); ++i)
        out += (i ? ", " : "") + operatorKey(a, i);
    return out;
}

} // namespace

std::string Derivation::text() const
{
    std::string out = title;
    for (const std::string &l : lines)
        out += "\n" + l;
    return out;
}

const std::vector<std::pair<std::string_view, std::string_view>> &derivationAliases() { return kAliases; }

std::string operatorKey(const Analysis &a, std::size_t index)
{
    const Operator &op = a.operators.at(index);
    std::string key(op.name);
    if (nameRepeats(a, index))
        key += "@" + std::string(toString(op.phase));
    return key;
}

std::vector<std::string> derivationFields(const Analysis &a)
{
    std::vector<std::string> out(std::begin(kStepFields), std::end(kStepFields));
    if (isGenerate(a))
        out.insert(out.end(), std::begin(kGenerateFields), std::end(kGenerateFields));
    for (std::size_t i = 0; i < a.operators.size(); ++i)
        for (std::string_view f : kOpFields)
            out.push_back("op:" + operatorKey(a, i) + ":" + std::string(f));
    return out;
}

Derivation derive(const HardwareSpec &hw, const ModelShape &model, const Scenario &s, const Analysis &whole,
                  std::string_view field)
{
    // The step's figures sum the operators and add the communication, so they run over the operators that are not
    // part of it (Operator::onLink(): the all-to-all's halves); an operator's own figures over all of them.
    const bool hasLink =
        std::any_of(whole.operators.begin(), whole.operators.end(), [](const Operator &op) { return op.onLink(); });
    Analysis kept;
    if (hasLink) {
        kept = whole;
        std::erase_if(kept.operators, [](const Operator &op) { return op.onLink(); });
    }
    const Analysis &a = hasLink ? kept : whole;
    std::string_view canonical = field;
    for (const auto &[alias, f] : kAliases)
        if (field == alias)
            canonical = f;
    Derivation d;
    d.field = std::string(canonical);
    // What analyze() multiplied for each operator, recorded by running it again on the same inputs (analyze() itself
    // keeps none of it, so that it stays as fast as before): the same code, the same numbers.
    std::vector<OperatorRecord> records;
    const Analysis again = analyzeRecorded(hw, model, s, &records);
    bool same = again.operators.size() == whole.operators.size();
    for (std::size_t i = 0; same && i < whole.operators.size(); ++i)
        same =
            again.operators[i].name == whole.operators[i].name && again.operators[i].timeS == whole.operators[i].timeS;
    if (!same)
        throw DerivationError("the analysis to derive is not analyze() of the device, model and scenario given");

    std::vector<OperatorRecord> stepRecords;
    for (std::size_t i = 0; i < whole.operators.size(); ++i)
        if (!whole.operators[i].onLink())
            stepRecords.push_back(records[i]);

    if (canonical.substr(0, 3) == "op:") {
        const std::string_view rest = canonical.substr(3);
        const std::size_t colon = rest.rfind(':');
        if (colon != std::string_view::npos) {
            const std::string_view key = rest.substr(0, colon);
            const std::string_view opField = opFieldFromJsonName(rest.substr(colon + 1));
            for (std::size_t i = 0; i < whole.operators.size(); ++i) {
                if (operatorKey(whole, i) != key ||
                    std::find(std::begin(kOpFields), std::end(kOpFields), opField) == std::end(kOpFields))
                    continue;
                const Operator &op = whole.operators[i];
                const OperatorRecord &rec = records[i];
                d.field = "op:" + std::string(key) + ":" + std::string(opField);
                d.title = std::string(key) + " (" + std::string(toString(op.cls)) + "), " + std::string(opField) +
                          ": one device's total over its " + plural(op.count, "execution", "executions");
                if (opField == "flops")
                    deriveOpFlops(d, op, rec);
                else if (opField == "bytes")
                    deriveOpBytes(d, op, rec);
                else if (opField == "intensity")
                    deriveOpIntensity(d, op);
                else if (opField == "time" && op.onLink())
                    deriveLinkTime(d, op, a);
                else if (opField == "time")
                    deriveOpTime(d, op, rec, a);
                else if (op.onLink())
                    deriveLinkBound(d);
                else
                    deriveOpBound(d, op, rec);
                return d;
            }
        }
    } else if (canonical == "totals.time_s") {
        deriveTime(d, a, stepRecords);
        return d;
    } else if (canonical == "phases.ttft_s" || canonical == "phases.tpot_s") {
        if (s.phase != Phase::Generate)
            throw DerivationError("'" + std::string(field) +
                                  "' is a figure of --phase generate (a prompt, then output tokens)");
        if (canonical == "phases.ttft_s")
            deriveTtft(d, a);
        else
            deriveTpot(d, s, a);
        return d;
    } else if (canonical == "totals.tokens_per_s") {
        deriveTokensPerS(d, s, a);
        return d;
    } else if (canonical == "totals.flops" || canonical == "totals.bytes") {
        deriveSum(d, a, canonical == "totals.flops");
        return d;
    } else if (canonical == "totals.arithmetic_intensity") {
        deriveIntensity(d, a);
        return d;
    } else if (canonical == "totals.bound") {
        deriveBound(d, a, stepRecords);
        return d;
    } else if (canonical == "hardware.ridge_flops_per_byte") {
        deriveRidge(d, hw, a);
        return d;
    } else if (canonical == "kv_cache.bytes_per_token") {
        deriveKvPerToken(d, model, s, a);
        return d;
    } else if (canonical == "kv_cache.total_bytes") {
        deriveKvTotal(d, model, s, a);
        return d;
    } else if (canonical == "model.weight_bytes") {
        deriveWeights(d, model, s, a);
        return d;
    } else if (canonical == "memory.total_bytes_per_device") {
        deriveMemory(d, s, a);
        return d;
    }
    throw DerivationError("unknown field '" + std::string(field) + "'; valid fields: " + fieldList(whole));
}

} // namespace memwall::core
