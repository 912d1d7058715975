#include "core/io/presets.h"

#include "core/analysis/analysis.h"
#include "core/io/hfconfig.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <tuple>

namespace memwall::core {

using nlohmann::json;

namespace {

bool validId(const std::string &id)
{
    static const std::regex re("[a-z0-9]+([.-][a-z0-9]+)*");
    return std::regex_match(id, re);
}

std::string requireId(JsonReader &r)
{
    std::string id = r.string("id");
    if (!validId(id))
        r.fail("id", "must be lower-case letters, digits and dashes, got \"" + id + "\"");
    return id;
}

/// The physically plausible range of a device figure: wide enough for every part from a phone to a wafer-scale engine
/// (and what-if factors of 100 on top), narrow enough that nothing derived from it overflows a double or drives a
/// chart's log axis out of range. A device of 1e308 FLOP/s once passed as "finite and positive" and crashed the charts.
struct Plausible
{
    double min, max;
    const char *unit;
};
constexpr Plausible kPeakFlops{1e6, 1e19, "FLOP/s"};
constexpr Plausible kBandwidth{1e3, 1e18, "B/s"};
constexpr Plausible kCapacity{1, 1e16, "B"};
constexpr Plausible kLatency{1e-12, 10, "s"};
constexpr Plausible kKernel{1e-9, 1e-2, "s"};
constexpr Plausible kPower{0.01, 1e6, "W"};
constexpr Plausible kPrice{0.01, 1e9, "USD"};
constexpr Plausible kHourly{0.01, 1e4, "USD per hour"};
constexpr Plausible kYear{1940, 2100, ""};
constexpr Plausible kFraction{1e-6, 1, ""};
constexpr Plausible kParams{1e3, 1e15, "parameters"};

Sourced sourced(JsonReader &parent, std::string_view key, Plausible range)
{
    JsonReader r = parent.object(key);
    Sourced s;
    s.value = r.positive("value");
    if (s.value < range.min || s.value > range.max)
        r.fail("value",
               InputMessage("must be between ")
                   .number(range.min)
                   .text(" and ")
                   .number(range.max)
                   .text((*range.unit ? std::string(" ") + range.unit : std::string()) + ", got ")
                   .number(s.value),
               s.value);
    s.source = r.string("source");
    if (s.source.find_first_not_of(" \t") == std::string::npos)
        r.fail("source", "must not be empty");
    r.rejectUnknown({"note"});
    return s;
}

std::optional<Sourced> optionalSourced(JsonReader &parent, std::string_view key, Plausible range)
{
    if (!parent.has(key)) {
        parent.string(key, ""); // marks the key as read (null is allowed)
        return std::nullopt;
    }
    return sourced(parent, key, range);
}

json toJson(const Sourced &s) { return json{{"value", s.value}, {"source", s.source}}; }

void readPeaks(JsonReader &r, std::string_view key, std::array<std::optional<Sourced>, kDTypeCount> *out)
{
    JsonReader peaks = r.object(key);
    for (auto it = peaks.node().begin(); it != peaks.node().end(); ++it) {
        auto t = dtypeFromString(it.key());
        if (!t || it.key() != toString(*t))
            peaks.fail(it.key(), "unknown number format (use " + dtypeList() + ")");
        if (out)
            (*out)[index(*t)] = sourced(peaks, it.key(), kPeakFlops);
        else
            sourced(peaks, it.key(), kPeakFlops);
    }
}

/// The formats a per-format table of the achievable block names: "bf16", "int4", ... (the exact spelling).
template <typename Read>
void readPerFormat(JsonReader &parent, std::string_view key, Read read)
{
    if (!parent.has(key)) {
        parent.string(key, "");
        return;
    }
    JsonReader table = parent.object(key);
    for (auto it = table.node().begin(); it != table.node().end(); ++it) {
        auto t = dtypeFromString(it.key());
        if (!t || it.key() != toString(*t))
            table.fail(it.key(), "unknown number format (use " + dtypeList() + ")");
        read(table, it.key(), *t);
    }
}

/// A sweep's "source", which must say something.
std::string sweepSource(JsonReader &w)
{
    std::string source = w.string("source");
    if (source.find_first_not_of(" \t") == std::string::npos)
        w.fail("source", "must not be empty");
    return source;
}

/// A measured sweep's "points": [{SIZE: ..., VALUE: ...}, ...], at least `fewest` of them (`tooFew` says what is
/// missing), sizes positive, at most 1e13 and increasing, each value within `range`.
std::vector<std::pair<double, double>> sweepPoints(JsonReader &w, const char *size, const char *value, Plausible range,
                                                   std::size_t fewest, const std::string &tooFew)
{
    const json &points = w.array("points");
    if (points.size() < fewest)
        w.fail("points", tooFew + ", got " + std::to_string(points.size()));
    std::vector<std::pair<double, double>> out;
    for (std::size_t i = 0; i < points.size(); ++i) {
        JsonReader p = w.element(points[i], i, "points");
        const double x = p.positive(size);
        if (x > 1e13)
            p.fail(size, "must be at most 1e13, got " + brief(x));
        if (!out.empty() && x <= out.back().first)
            p.fail(size,
                   "points out of order: " + brief(x) + " is not larger than the previous " + brief(out.back().first));
        const double y = p.positive(value);
        if (y < range.min || y > range.max)
            p.fail(value, "must be between " + brief(range.min) + " and " + brief(range.max) + " " + range.unit +
                              ", got " + brief(y));
        p.rejectUnknown();
        out.emplace_back(x, y);
    }
    return out;
}

/// "allreduce_sweep" (or "custom_allreduce_sweep"): {"devices": 8, "source": "...", "points": [{"bytes": 1024,
/// "bus_bandwidth_bytes_per_s": 7e7}, ...]}, sizes increasing.
AllReduceSweep allReduceSweepFromJson(JsonReader &a, const char *key)
{
    JsonReader w = a.object(key);
    AllReduceSweep sweep;
    const int64_t devices = w.integer("devices");
    if (devices < 2 || devices > 1'000'000)
        w.fail("devices", "must be between 2 and 1000000, got " + std::to_string(devices));
    sweep.devices = static_cast<int>(devices);
    sweep.source = sweepSource(w);
    sweep.points =
        sweepPoints(w, "bytes", "bus_bandwidth_bytes_per_s", kBandwidth, 2, "needs at least two message sizes");
    w.rejectUnknown({"note"});
    return sweep;
}

/// "static" or "dynamic" of "fp8_quantize": {"source": "...", "points": [{"elements": 8192, "s": 2.7e-6}, ...]}, sizes
/// increasing.
QuantizeSweep quantizeSweepFromJson(JsonReader &q, const char *key)
{
    JsonReader w = q.object(key);
    QuantizeSweep sweep;
    sweep.source = sweepSource(w);
    sweep.points = sweepPoints(w, "elements", "s", kLatency, 1, "needs at least one input size");
    w.rejectUnknown({"note"});
    return sweep;
}

/// One sweep of "moe_grouped_gemm": {"source": "...", "hidden": 7168, "inter": 2048, "topk": 8, "experts": 256,
/// "moe_ep": 8, "points": [{"tokens_per_expert": 1, "experts_touched": 1, "fraction": 0.23, "tokens": 1,
/// "measured_s": 1.1e-4}, ...]}: the fused MoE kernel's share of the routed experts' roofline by tokens per expert
/// (and, where batches tie on it, by the experts the busiest rank runs), the table's reference shape and, per point,
/// the measured batch and latency it was derived from (tools/moe_tables.py), kept for the tests.
MoeSweep moeSweepFromJson(JsonReader &w)
{
    MoeSweep sweep;
    sweep.source = sweepSource(w);
    for (auto [key, out] :
         {std::pair{"hidden", &sweep.hidden}, std::pair{"inter", &sweep.inter}, std::pair{"topk", &sweep.topk},
          std::pair{"experts", &sweep.experts}, std::pair{"moe_ep", &sweep.moeEp}}) {
        const int64_t v = w.positiveInteger(key);
        if (v > 1'000'000)
            w.fail(key, "must be at most 1000000, got " + std::to_string(v));
        *out = static_cast<int>(v);
    }
    const json &points = w.array("points");
    if (points.empty())
        w.fail("points", "needs at least one point");
    for (std::size_t i = 0; i < points.size(); ++i) {
        JsonReader p = w.element(points[i], i, "points");
        const double x = p.positive("tokens_per_expert");
        const double touched = p.positive("experts_touched");
        if (!sweep.points.empty() && x < sweep.points.back().first)
            p.fail("tokens_per_expert", "points out of order: " + brief(x) + " is smaller than the previous " +
                                            brief(sweep.points.back().first));
        if (!sweep.points.empty() && x == sweep.points.back().first && touched <= sweep.touched.back())
            p.fail("experts_touched", "points of the same tokens per expert must touch more experts each: " +
                                          brief(touched) + " after " + brief(sweep.touched.back()));
        const double y = p.positive("fraction");
        if (y > kFraction.max)
            p.fail("fraction", "must be between " + brief(kFraction.min) + " and 1, got " + brief(y));
        const double tokens = static_cast<double>(p.positiveInteger("tokens"));
        sweep.measured.emplace_back(tokens, p.positive("measured_s"));
        p.rejectUnknown();
        sweep.points.emplace_back(x, y);
        sweep.touched.push_back(touched);
    }
    w.rejectUnknown({"note"});
    return sweep;
}

/// "moe_grouped_gemm": {"fp8_block": [sweep, ...], ...}: per expert format (aiconfigurator's moe_dtype names), its
/// sweeps by expert split, moe_ep increasing.
void readMoeSweeps(JsonReader &a, AchievableModel &m)
{
    if (!a.has("moe_grouped_gemm"))
        return;
    JsonReader table = a.object("moe_grouped_gemm");
    for (auto it = table.node().begin(); it != table.node().end(); ++it) {
        const auto f = moeFormatFromString(it.key());
        if (!f)
            table.fail(it.key(), "unknown MoE format (use bfloat16, fp8, fp8_block, nvfp4, w4a16_mxfp4 or "
                                 "w4a8_mxfp4_mxfp8)");
        const json &sweeps = table.array(it.key());
        if (sweeps.empty())
            table.fail(it.key(), "needs at least one sweep");
        std::vector<MoeSweep> &out = m.moe[static_cast<std::size_t>(*f)];
        for (std::size_t i = 0; i < sweeps.size(); ++i) {
            JsonReader w = table.element(sweeps[i], i, it.key());
            MoeSweep sweep = moeSweepFromJson(w);
            if (!out.empty() && sweep.moeEp <= out.back().moeEp)
                w.fail("moe_ep", "sweeps out of order: " + std::to_string(sweep.moeEp) +
                                     " is not larger than the previous " + std::to_string(out.back().moeEp));
            out.push_back(std::move(sweep));
        }
    }
    table.rejectUnknown();
}

/// A list of 1 to `atMost` positive numbers under `key` of `r`, each at most `largest`, rising when `rising` (what: a
/// message's name of one).
std::vector<double> numberList(JsonReader &r, std::string_view key, std::string_view what, std::size_t atMost,
                               bool rising, double largest)
{
    const json &list = r.array(key);
    std::vector<double> out;
    for (const json &v : list) {
        const double x = v.is_number() ? v.get<double>() : 0.0;
        if (!(x > 0) || x > largest)
            r.fail(key, "each " + std::string(what) + " must be a number above 0 and at most " + brief(largest) +
                            ", got " + brief(v));
        if (rising && !out.empty() && x <= out.back())
            r.fail(key, "must rise: " + brief(v) + " after " + brief(out.back()));
        out.push_back(x);
    }
    if (out.empty() || out.size() > atMost)
        r.fail(key, "needs 1 to " + std::to_string(atMost) + " values, got " + std::to_string(out.size()));
    return out;
}

/// One table of "mla_decode": {"heads": 128, "context": [2, 4, ...], "rows": [{"batch": 1, "fraction": [...]}, ...]}.
MlaModuleTable mlaTableFromJson(JsonReader &t)
{
    MlaModuleTable table;
    const int64_t heads = t.positiveInteger("heads");
    if (heads > 65536)
        t.fail("heads", "must be at most 65536, got " + std::to_string(heads));
    table.heads = static_cast<int>(heads);
    const std::vector<double> contexts = numberList(t, "context", "context", 64, true, 1e9);
    const json &rows = t.array("rows");
    if (rows.empty() || rows.size() > 64)
        t.fail("rows", "needs 1 to 64 rows, got " + std::to_string(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        JsonReader row = t.element(rows[i], i, "rows");
        MlaModuleTable::Row &out = table.rows.emplace_back();
        out.batch = row.positive("batch");
        if (table.rows.size() > 1 && out.batch <= table.rows[table.rows.size() - 2].batch)
            row.fail("batch", "rows must rise in batch: " + brief(out.batch) + " after " +
                                  brief(table.rows[table.rows.size() - 2].batch));
        const std::vector<double> f = numberList(row, "fraction", "fraction", contexts.size(), false, 1.0);
        for (std::size_t k = 0; k < f.size(); ++k)
            out.points.emplace_back(contexts[k], f[k]);
        row.rejectUnknown();
    }
    t.rejectUnknown();
    return table;
}

/// "mla_decode": {"source": "...", "formats": {"fp8_block/bfloat16": [table, ...], ...}}: per format (kMlaFormats),
/// the MLA decode module's tables by heads per rank, falling (tools/mla_tables.py).
void readMlaDecode(JsonReader &a, AchievableModel &m)
{
    if (!a.has("mla_decode"))
        return;
    JsonReader w = a.object("mla_decode");
    m.mlaDecodeSource = sweepSource(w);
    JsonReader formats = w.object("formats");
    for (auto it = formats.node().begin(); it != formats.node().end(); ++it) {
        const auto f = std::find(kMlaFormats.begin(), kMlaFormats.end(), it.key());
        if (f == kMlaFormats.end())
            formats.fail(it.key(),
                         "unknown MLA format (use bfloat16, fp8_block or nvfp4, a slash, and bfloat16 or fp8)");
        const json &tables = formats.array(it.key());
        if (tables.empty())
            formats.fail(it.key(), "needs at least one table");
        std::vector<MlaModuleTable> &out = m.mlaDecode[static_cast<std::size_t>(f - kMlaFormats.begin())];
        for (std::size_t i = 0; i < tables.size(); ++i) {
            JsonReader t = formats.element(tables[i], i, it.key());
            MlaModuleTable table = mlaTableFromJson(t);
            if (!out.empty() && table.heads >= out.back().heads)
                t.fail("heads", "tables out of order: " + std::to_string(table.heads) +
                                    " is not smaller than the previous " + std::to_string(out.back().heads));
            out.push_back(std::move(table));
        }
    }
    formats.rejectUnknown();
    w.rejectUnknown({"note"});
}

/// "alltoall": {"source": "...", "dispatch": {"points": [{"bytes": 59136, "s": 1.19e-5}, ...]}, "combine": {...}}.
void readAllToAll(JsonReader &a, AchievableModel &m)
{
    if (!a.has("alltoall"))
        return;
    JsonReader w = a.object("alltoall");
    AllToAllSweep sweep;
    sweep.source = sweepSource(w);
    for (auto [key, out] : {std::pair{"dispatch", &sweep.dispatch}, std::pair{"combine", &sweep.combine}}) {
        JsonReader part = w.object(key);
        out->source = sweep.source;
        out->points = sweepPoints(part, "bytes", "s", kLatency, 1, "needs at least one message size");
        part.rejectUnknown({"note"});
    }
    w.rejectUnknown({"note"});
    m.allToAll = std::move(sweep);
}

AchievableModel achievableFromJson(JsonReader &a)
{
    AchievableModel m;
    m.computeFraction = optionalSourced(a, "compute_fraction", kFraction);
    m.memoryFraction = optionalSourced(a, "memory_fraction", kFraction);
    readPerFormat(a, "gemm", [&m](JsonReader &table, const std::string &key, DType t) {
        const json &points = table.array(key);
        if (points.empty())
            table.fail(key, "needs at least one point");
        std::vector<GemmPoint> &sweep = m.gemm[index(t)];
        for (std::size_t i = 0; i < points.size(); ++i) {
            JsonReader p = table.element(points[i], i, key);
            GemmPoint g;
            g.size = p.positive("size");
            if (g.size < 1 || g.size > 1e7)
                p.fail("size", "must be between 1 and 1e7, got " + brief(g.size));
            if (!sweep.empty() && g.size <= sweep.back().size)
                p.fail("size", "points out of order: " + brief(g.size) + " is not larger than the previous " +
                                   brief(sweep.back().size));
            g.fraction.value = p.positive("value");
            if (g.fraction.value > kFraction.max)
                p.fail("value", "must be between " + brief(kFraction.min) + " and 1, got " + brief(g.fraction.value));
            g.fraction.source = p.string("source");
            if (g.fraction.source.find_first_not_of(" \t") == std::string::npos)
                p.fail("source", "must not be empty");
            p.rejectUnknown({"note"});
            sweep.push_back(std::move(g));
        }
    });
    m.attentionFraction = optionalSourced(a, "attention_fraction", kFraction);
    if (a.has("kernel_s")) {
        JsonReader k = a.object("kernel_s");
        m.kernelGraphsS = optionalSourced(k, "graphs", kKernel);
        m.kernelEagerS = optionalSourced(k, "eager", kKernel);
        k.rejectUnknown({"note"});
    } else {
        a.string("kernel_s", "");
    }
    readPerFormat(a, "weight_only_memory_fraction", [&m](JsonReader &table, const std::string &key, DType t) {
        if (!isInteger(t))
            table.fail(key, "weight-only kernels are for integer weights (int8, int4)");
        m.weightOnlyMemoryFraction[index(t)] = sourced(table, key, kFraction);
    });
    m.allReduceLatencyS = optionalSourced(a, "allreduce_latency_s", kLatency);
    m.allReduceBusBandwidthBytesPerS = optionalSourced(a, "allreduce_bus_bandwidth_bytes_per_s", kBandwidth);
    if (m.allReduceLatencyS.has_value() != m.allReduceBusBandwidthBytesPerS.has_value())
        a.fail(m.allReduceLatencyS ? "allreduce_bus_bandwidth_bytes_per_s" : "allreduce_latency_s",
               "the all-reduce needs both its latency and its bus bandwidth");
    if (a.has("allreduce_sweep")) {
        if (m.allReduceLatencyS)
            a.fail("allreduce_sweep", "give the sweep or allreduce_latency_s with its bus bandwidth, not both");
        m.allReduceSweep = allReduceSweepFromJson(a, "allreduce_sweep");
    } else {
        a.string("allreduce_sweep", "");
    }
    if (a.has("custom_allreduce_sweep")) {
        if (!m.hasAllReduce())
            a.fail("custom_allreduce_sweep", "needs the library's all-reduce (allreduce_sweep) beside it");
        m.customAllReduceSweep = allReduceSweepFromJson(a, "custom_allreduce_sweep");
    } else {
        a.string("custom_allreduce_sweep", "");
    }
    if (a.has("fp8_quantize")) {
        JsonReader q = a.object("fp8_quantize");
        if (q.has("static"))
            m.quantizeStatic = quantizeSweepFromJson(q, "static");
        if (q.has("dynamic"))
            m.quantizeDynamic = quantizeSweepFromJson(q, "dynamic");
        if (!m.quantizeStatic && !m.quantizeDynamic)
            a.fail("fp8_quantize", "needs static, dynamic or both");
        q.rejectUnknown({"note"});
    } else {
        a.string("fp8_quantize", "");
    }
    readMoeSweeps(a, m);
    readAllToAll(a, m);
    readMlaDecode(a, m);
    a.rejectUnknown({"note"});
    return m;
}

void checkKind(JsonReader &r, std::string_view expected)
{
    const std::string kind = r.string("kind", expected);
    if (kind != expected)
        r.fail("kind", "expected \"" + std::string(expected) + "\", got \"" + kind + "\"");
    const int64_t schema = r.integer("schema", 1);
    if (schema != 1)
        r.fail("schema", "version " + std::to_string(schema) + " is newer than this MemWall understands (1)");
}

} // namespace

HardwareSpec hardwareFromJson(const json &j, const std::string &file)
{
    JsonReader r(j, file);
    checkKind(r, "hardware");
    HardwareSpec hw;
    hw.id = requireId(r);
    hw.name = r.string("name");
    hw.vendor = r.string("vendor");
    hw.category = r.string("category");
    static const std::set<std::string, std::less<>> categories{"gpu", "cpu", "asic", "wafer-scale"};
    if (!categories.count(hw.category))
        r.fail("category", "must be gpu, cpu, asic or wafer-scale, got \"" + hw.category + "\"");
    hw.year = sourced(r, "year", kYear);
    hw.tdpW = optionalSourced(r, "tdp_w", kPower);
    hw.priceUsd = optionalSourced(r, "price_usd", kPrice);
    hw.usdPerHour = optionalSourced(r, "usd_per_hour", kHourly);
    readPeaks(r, "peak_flops", &hw.peakFlops);
    if (r.has("sparse_peak_flops"))
        readPeaks(r, "sparse_peak_flops", nullptr);
    else
        r.string("sparse_peak_flops", "");
    if (std::none_of(hw.peakFlops.begin(), hw.peakFlops.end(), [](const auto &p) { return p.has_value(); }))
        r.fail("peak_flops", "needs at least one number format");

    const json &levels = r.array("memory");
    if (levels.empty())
        r.fail("memory", "needs at least one level");
    for (std::size_t i = 0; i < levels.size(); ++i) {
        JsonReader l = r.element(levels[i], i, "memory");
        MemoryLevel m;
        m.name = l.string("name");
        const std::string kind = l.string("kind");
        auto k = memoryKindFromString(kind);
        if (!k)
            l.fail("kind", "must be sram, cache, dram, host or storage, got \"" + kind + "\"");
        m.kind = *k;
        m.capacityBytes = sourced(l, "capacity_bytes", kCapacity);
        m.bandwidthBytesPerS = sourced(l, "bandwidth_bytes_per_s", kBandwidth);
        l.rejectUnknown({"note"});
        if (!hw.memory.empty()) {
            const MemoryLevel &prev = hw.memory.back();
            if (m.capacityBytes.value <= prev.capacityBytes.value && m.kind != MemoryKind::Host)
                l.fail("capacity_bytes",
                       InputMessage("levels out of order: capacity ")
                           .number(m.capacityBytes.value)
                           .text(" is not larger than the previous level's ")
                           .number(prev.capacityBytes.value),
                       m.capacityBytes.value);
            if (m.bandwidthBytesPerS.value >= prev.bandwidthBytesPerS.value)
                l.fail("bandwidth_bytes_per_s",
                       InputMessage("levels out of order: bandwidth ")
                           .number(m.bandwidthBytesPerS.value)
                           .text(" is not lower than the previous level's ")
                           .number(prev.bandwidthBytesPerS.value),
                       m.bandwidthBytesPerS.value);
        }
        hw.memory.push_back(std::move(m));
    }

    if (r.has("interconnects")) {
        const json &links = r.array("interconnects");
        for (std::size_t i = 0; i < links.size(); ++i) {
            JsonReader l = r.element(links[i], i, "interconnects");
            Interconnect ic;
            ic.name = l.string("name");
            ic.bandwidthBytesPerS = sourced(l, "bandwidth_bytes_per_s", kBandwidth);
            ic.latencyS = sourced(l, "latency_s", kLatency);
            ic.maxDevices = static_cast<int>(l.integer("max_devices", 0));
            if (ic.maxDevices < 0)
                l.fail("max_devices", "must not be negative");
            l.string("direction", ""); // documentation only: bandwidth is per direction by schema
            l.rejectUnknown({"note"});
            hw.interconnects.push_back(std::move(ic));
        }
    } else {
        r.string("interconnects", "");
    }

    if (r.has("achievable")) {
        JsonReader a = r.object("achievable");
        hw.achievable = achievableFromJson(a);
        if (hw.achievable.hasAllReduce() && hw.interconnects.empty())
            a.fail(hw.achievable.allReduceSweep ? "allreduce_sweep" : "allreduce_latency_s",
                   "needs an interconnect to measure the all-reduce on");
    } else {
        r.string("achievable", "");
    }
    hw.notes = r.string("notes", "");
    hw.sourceFile = file;
    r.rejectUnknown();
    return hw;
}

json toJson(const AchievableModel &m)
{
    json a = json::object();
    auto put = [&a](const char *key, const std::optional<Sourced> &v) {
        if (v)
            a[key] = toJson(*v);
    };
    put("compute_fraction", m.computeFraction);
    put("memory_fraction", m.memoryFraction);
    json gemm = json::object();
    for (DType t : kAllDTypes) {
        if (m.gemm[index(t)].empty())
            continue;
        json points = json::array();
        for (const GemmPoint &p : m.gemm[index(t)])
            points.push_back({{"size", p.size}, {"value", p.fraction.value}, {"source", p.fraction.source}});
        gemm[std::string(toString(t))] = points;
    }
    if (!gemm.empty())
        a["gemm"] = gemm;
    put("attention_fraction", m.attentionFraction);
    if (m.kernelGraphsS || m.kernelEagerS) {
        json k = json::object();
        if (m.kernelGraphsS)
            k["graphs"] = toJson(*m.kernelGraphsS);
        if (m.kernelEagerS)
            k["eager"] = toJson(*m.kernelEagerS);
        a["kernel_s"] = k;
    }
    json weightOnly = json::object();
    for (DType t : kAllDTypes)
        if (m.weightOnlyMemoryFraction[index(t)])
            weightOnly[std::string(toString(t))] = toJson(*m.weightOnlyMemoryFraction[index(t)]);
    if (!weightOnly.empty())
        a["weight_only_memory_fraction"] = weightOnly;
    put("allreduce_latency_s", m.allReduceLatencyS);
    put("allreduce_bus_bandwidth_bytes_per_s", m.allReduceBusBandwidthBytesPerS);
    auto putSweep = [&a](const char *key, const std::optional<AllReduceSweep> &w) {
        if (!w)
            return;
        json points = json::array();
        for (const auto &[bytes, bus] : w->points)
            points.push_back({{"bytes", bytes}, {"bus_bandwidth_bytes_per_s", bus}});
        a[key] = {{"devices", w->devices}, {"source", w->source}, {"points", points}};
    };
    putSweep("allreduce_sweep", m.allReduceSweep);
    putSweep("custom_allreduce_sweep", m.customAllReduceSweep);
    json quantize = json::object();
    for (const auto &[key, w] : {std::pair{"static", &m.quantizeStatic}, std::pair{"dynamic", &m.quantizeDynamic}}) {
        if (!*w)
            continue;
        json points = json::array();
        for (const auto &[elements, seconds] : (*w)->points)
            points.push_back({{"elements", elements}, {"s", seconds}});
        quantize[key] = {{"source", (*w)->source}, {"points", points}};
    }
    if (!quantize.empty())
        a["fp8_quantize"] = quantize;
    json moe = json::object();
    for (std::size_t f = 0; f < kMoeFormatCount; ++f) {
        if (m.moe[f].empty())
            continue;
        json sweeps = json::array();
        for (const MoeSweep &w : m.moe[f]) {
            json points = json::array();
            for (std::size_t i = 0; i < w.points.size(); ++i)
                points.push_back({{"tokens_per_expert", w.points[i].first},
                                  {"experts_touched", w.touched[i]},
                                  {"fraction", w.points[i].second},
                                  {"tokens", static_cast<int64_t>(w.measured[i].first)},
                                  {"measured_s", w.measured[i].second}});
            sweeps.push_back({{"source", w.source},
                              {"hidden", w.hidden},
                              {"inter", w.inter},
                              {"topk", w.topk},
                              {"experts", w.experts},
                              {"moe_ep", w.moeEp},
                              {"points", points}});
        }
        moe[std::string(toString(static_cast<MoeFormat>(f)))] = sweeps;
    }
    if (!moe.empty())
        a["moe_grouped_gemm"] = moe;
    if (m.allToAll) {
        json all = {{"source", m.allToAll->source}};
        for (auto [key, w] :
             {std::pair{"dispatch", &m.allToAll->dispatch}, std::pair{"combine", &m.allToAll->combine}}) {
            json points = json::array();
            for (const auto &[bytes, seconds] : w->points)
                points.push_back({{"bytes", bytes}, {"s", seconds}});
            all[key] = {{"points", points}};
        }
        a["alltoall"] = all;
    }
    json mla = json::object();
    for (std::size_t f = 0; f < kMlaFormats.size(); ++f) {
        json tables = json::array();
        for (const MlaModuleTable &t : m.mlaDecode[f]) {
            json rows = json::array(), contexts = json::array();
            for (const MlaModuleTable::Row &r : t.rows) {
                json fractions = json::array();
                for (const auto &[context, fraction] : r.points) {
                    if (fractions.size() == contexts.size())
                        contexts.push_back(context); // the longest row gives the table's contexts
                    fractions.push_back(fraction);
                }
                rows.push_back({{"batch", r.batch}, {"fraction", fractions}});
            }
            tables.push_back({{"heads", t.heads}, {"context", contexts}, {"rows", rows}});
        }
        if (!tables.empty())
            mla[std::string(kMlaFormats[f])] = tables;
    }
    if (!mla.empty())
        a["mla_decode"] = {{"source", m.mlaDecodeSource}, {"formats", mla}};
    return a;
}

json toJson(const HardwareSpec &hw)
{
    json j{{"kind", "hardware"},     {"schema", 1},         {"id", hw.id},
           {"name", hw.name},        {"vendor", hw.vendor}, {"category", hw.category},
           {"year", toJson(hw.year)}};
    if (hw.tdpW)
        j["tdp_w"] = toJson(*hw.tdpW);
    if (hw.priceUsd)
        j["price_usd"] = toJson(*hw.priceUsd);
    if (hw.usdPerHour)
        j["usd_per_hour"] = toJson(*hw.usdPerHour);
    json peaks = json::object();
    for (DType t : kAllDTypes)
        if (hw.peakFlops[index(t)])
            peaks[std::string(toString(t))] = toJson(*hw.peakFlops[index(t)]);
    j["peak_flops"] = peaks;
    json levels = json::array();
    for (const auto &m : hw.memory)
        levels.push_back({{"name", m.name},
                          {"kind", toString(m.kind)},
                          {"capacity_bytes", toJson(m.capacityBytes)},
                          {"bandwidth_bytes_per_s", toJson(m.bandwidthBytesPerS)}});
    j["memory"] = levels;
    json links = json::array();
    for (const auto &l : hw.interconnects)
        links.push_back({{"name", l.name},
                         {"bandwidth_bytes_per_s", toJson(l.bandwidthBytesPerS)},
                         {"latency_s", toJson(l.latencyS)},
                         {"max_devices", l.maxDevices}});
    if (!links.empty())
        j["interconnects"] = links;
    if (!hw.achievable.empty())
        j["achievable"] = toJson(hw.achievable);
    if (!hw.notes.empty())
        j["notes"] = hw.notes;
    return j;
}

namespace {
/// The linear-attention keys of a model shape (Gated DeltaNet: linear_key_heads > 0; Kimi Delta Attention with
/// linear_gate_rank > 0), with the layers that attend among them (attention_every, attention_offset, or one character
/// a layer in linear_pattern).
void readLinearAttention(JsonReader &r, ModelShape &m)
{
    LinearAttentionShape &x = m.linear;
    x.keyHeads = r.integer("linear_key_heads", 0);
    if (x.keyHeads == 0)
        return;
    x.valueHeads = r.positiveInteger("linear_value_heads");
    x.keyHeadDim = r.positiveInteger("linear_key_head_dim");
    x.valueHeadDim = r.positiveInteger("linear_value_head_dim");
    x.convKernel = r.integer("linear_conv_kernel", 4);
    x.chunkSize = r.integer("linear_chunk", 64);
    x.gateRank = r.integer("linear_gate_rank", 0);
    m.attentionEvery = r.integer("attention_every", 0);
    m.attentionOffset = r.integer("attention_offset", 0);
    m.linearPattern = r.string("linear_pattern", "");
}

/// Writes what readLinearAttention() reads, and the gated and partially rotary attention, when not the default.
void linearAttentionToJson(const ModelShape &m, json &j)
{
    if (m.attentionOutputGate)
        j["attention_output_gate"] = true;
    if (m.rotaryFraction != 1)
        j["rotary_fraction"] = m.rotaryFraction;
    if (m.globalNoPositions)
        j["global_nope"] = true;
    if (!m.hasLinearAttention())
        return;
    const LinearAttentionShape &x = m.linear;
    j["linear_key_heads"] = x.keyHeads;
    j["linear_value_heads"] = x.valueHeads;
    j["linear_key_head_dim"] = x.keyHeadDim;
    j["linear_value_head_dim"] = x.valueHeadDim;
    j["linear_conv_kernel"] = x.convKernel;
    j["linear_chunk"] = x.chunkSize;
    if (x.kimiDelta())
        j["linear_gate_rank"] = x.gateRank;
    j["attention_every"] = m.attentionEvery;
    j["attention_offset"] = m.attentionOffset;
    if (!m.linearPattern.empty())
        j["linear_pattern"] = m.linearPattern;
}

/// A model's multi-token-prediction modules and its checkpoint's formats (issue #38; ModelShape's last fields), in a
/// preset shape or a scenario file's inline model: mtp_layers, mtp_stores_copies, mtp_shares_embedding, mtp_dense_ffn,
/// checkpoint_weights, checkpoint_expert_weights (weight-format strings), checkpoint_unquantized_embeddings,
/// checkpoint_zero_points.
void readCheckpointFields(JsonReader &r, ModelShape &m)
{
    m.mtpLayers = r.integer("mtp_layers", 0);
    if (m.mtpLayers < 0 || m.mtpLayers > 16)
        r.fail("mtp_layers", "must be between 0 and 16, got " + std::to_string(m.mtpLayers));
    m.mtpStoresCopies = r.boolean("mtp_stores_copies", false);
    m.mtpSharesEmbedding = r.boolean("mtp_shares_embedding", false);
    m.mtpDenseFfn = r.boolean("mtp_dense_ffn", false);
    const auto format = [&r](std::string_view key) -> std::optional<WeightFormat> {
        if (!r.has(key))
            return std::nullopt;
        const std::string text = r.string(key);
        const auto f = weightFormatFromString(text);
        if (!f)
            r.fail(key, "unknown weight format '" + text + "'");
        return f;
    };
    m.checkpointWeights = format("checkpoint_weights");
    m.checkpointExpertWeights = format("checkpoint_expert_weights");
    m.checkpointUnquantizedEmbeddings = r.boolean("checkpoint_unquantized_embeddings", false);
    m.checkpointZeroPoints = r.boolean("checkpoint_zero_points", false);
    if (r.has("state_dtype")) {
        const std::string text = r.string("state_dtype");
        const auto t = dtypeFromString(text);
        if (!t || (*t != DType::FP32 && *t != DType::BF16 && *t != DType::FP16))
            r.fail("state_dtype", "expected fp32, bf16 or fp16, got '" + text + "'");
        m.stateFormat = *t;
    }
}

void writeCheckpointFields(const ModelShape &m, json &j)
{
    if (m.mtpLayers != 0)
        j["mtp_layers"] = m.mtpLayers;
    if (m.mtpStoresCopies)
        j["mtp_stores_copies"] = true;
    if (m.mtpSharesEmbedding)
        j["mtp_shares_embedding"] = true;
    if (m.mtpDenseFfn)
        j["mtp_dense_ffn"] = true;
    if (m.checkpointWeights)
        j["checkpoint_weights"] = toString(*m.checkpointWeights);
    if (m.checkpointExpertWeights)
        j["checkpoint_expert_weights"] = toString(*m.checkpointExpertWeights);
    if (m.checkpointUnquantizedEmbeddings)
        j["checkpoint_unquantized_embeddings"] = true;
    if (m.checkpointZeroPoints)
        j["checkpoint_zero_points"] = true;
    if (m.stateFormat)
        j["state_dtype"] = toString(*m.stateFormat);
}

/// Heterogeneous layers (ModelShape::layerBlocks), the "layer_blocks" array of a preset shape or a scenario file's
/// inline model: one object a layer, {"mixer": "attention" | "none" | "linear", "ffn": "dense" | "none" | "linear",
/// "ffn_width": the dense FFN's width, "kv_heads": an attention layer's own KV heads (absent: the shape's)}. validate()
/// checks what the blocks may be.
void readLayerBlocks(JsonReader &r, ModelShape &m)
{
    if (!r.has("layer_blocks"))
        return;
    const json &blocks = r.array("layer_blocks");
    if (blocks.empty())
        r.fail("layer_blocks", "must list one block for each layer, got none");
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        JsonReader b = r.element(blocks[i], i, "layer_blocks");
        LayerBlock block;
        const std::string mixer = b.string("mixer"), ffn = b.string("ffn");
        const auto k = layerMixerFromString(mixer);
        if (!k)
            b.fail("mixer", "must be attention, none or linear, got \"" + mixer + "\"");
        const auto f = layerFfnFromString(ffn);
        if (!f)
            b.fail("ffn", "must be dense, none or linear, got \"" + ffn + "\"");
        block.mixer = *k;
        block.ffn = *f;
        block.ffnWidth = b.integer("ffn_width", 0);
        block.kvHeads = b.integer("kv_heads", 0);
        b.rejectUnknown();
        m.layerBlocks.push_back(block);
    }
}

void layerBlocksToJson(const ModelShape &m, json &j)
{
    if (m.layerBlocks.empty())
        return;
    json blocks = json::array();
    for (const LayerBlock &b : m.layerBlocks) {
        json o{{"mixer", toString(b.mixer)}, {"ffn", toString(b.ffn)}};
        if (b.ffnWidth != 0)
            o["ffn_width"] = b.ffnWidth;
        if (b.kvHeads != 0)
            o["kv_heads"] = b.kvHeads;
        blocks.push_back(std::move(o));
    }
    j["layer_blocks"] = std::move(blocks);
}

/// A multimodal wrapper's vision tower (ModelShape::vision), the "vision" object of a preset shape or a scenario
/// file's inline model; its keys are VisionShape's fields.
void readVision(JsonReader &r, ModelShape &m)
{
    if (!r.has("vision"))
        return;
    JsonReader v = r.object("vision");
    VisionShape &t = m.vision;
    t.layers = v.positiveInteger("layers");
    t.hidden = v.positiveInteger("hidden");
    t.heads = v.positiveInteger("heads");
    t.ffn = v.positiveInteger("ffn");
    const std::string act = v.string("activation", "gelu");
    const auto a = activationFromString(act);
    if (!a)
        v.fail("activation", "must be gelu, silu, relu or relu2, got \"" + act + "\"");
    t.activation = *a;
    t.patchInputs = v.positiveInteger("patch_inputs");
    t.patchBias = v.boolean("patch_bias", true);
    t.patches = v.positiveInteger("patches");
    t.classToken = v.boolean("class_token", false);
    t.positionRows = v.integer("position_rows", 0);
    t.preNorm = v.boolean("pre_norm", false);
    t.postNorm = v.boolean("post_norm", false);
    t.merge = v.integer("merge", 1);
    t.mergePool = v.boolean("merge_pool", false);
    const std::string norm = v.string("projector_norm", "none");
    if (norm == "none")
        t.projectorNorm = ProjectorNorm::None;
    else if (norm == "layernorm_before_merge")
        t.projectorNorm = ProjectorNorm::LayerNormBeforeMerge;
    else if (norm == "rmsnorm_after_merge")
        t.projectorNorm = ProjectorNorm::RmsNormAfterMerge;
    else
        v.fail("projector_norm", "must be none, layernorm_before_merge or rmsnorm_after_merge, got \"" + norm + "\"");
    const json &widths = v.array("projector");
    if (widths.empty() || widths.size() > t.projector.size())
        v.fail("projector", "must list 1 to 3 layer widths, got " + std::to_string(widths.size()));
    for (std::size_t i = 0; i < widths.size(); ++i) {
        if (!widths[i].is_number_integer())
            v.fail("projector", "expected layer widths, got " + brief(widths[i]));
        t.projector[i] = widths[i].get<int64_t>();
    }
    t.projectorLayers = static_cast<int64_t>(widths.size());
    t.projectorBias = v.boolean("projector_bias", false);
    t.deepstack = v.integer("deepstack", 0);
    t.imageSize = v.integer("image_size", 0);
    t.rotary = v.boolean("rotary", false);
    v.rejectUnknown();
}

void visionToJson(const ModelShape &m, json &j)
{
    const VisionShape &t = m.vision;
    if (!t.present())
        return;
    json widths = json::array();
    for (int64_t i = 0; i < t.projectorLayers; ++i)
        widths.push_back(t.projector[static_cast<std::size_t>(i)]);
    const char *norm = t.projectorNorm == ProjectorNorm::LayerNormBeforeMerge ? "layernorm_before_merge"
                       : t.projectorNorm == ProjectorNorm::RmsNormAfterMerge  ? "rmsnorm_after_merge"
                                                                              : "none";
    j["vision"] = json{{"layers", t.layers},
                       {"hidden", t.hidden},
                       {"heads", t.heads},
                       {"ffn", t.ffn},
                       {"activation", toString(t.activation)},
                       {"patch_inputs", t.patchInputs},
                       {"patch_bias", t.patchBias},
                       {"patches", t.patches},
                       {"class_token", t.classToken},
                       {"position_rows", t.positionRows},
                       {"pre_norm", t.preNorm},
                       {"post_norm", t.postNorm},
                       {"merge", t.merge},
                       {"merge_pool", t.mergePool},
                       {"projector_norm", norm},
                       {"projector", widths},
                       {"projector_bias", t.projectorBias},
                       {"deepstack", t.deepstack},
                       {"image_size", t.imageSize}};
    if (t.rotary)
        j["vision"]["rotary"] = true;
}

} // namespace

namespace {
/// The global layers' own widths (GlobalAttentionShape): Gemma 4's head size, KV heads and keys that are values;
/// Step-3.5's query heads and rotated share, its global layer first in each group, and its gate per head.
void readGlobalLayerKeys(JsonReader &r, ModelShape &m)
{
    m.global.headDim = r.integer("global_head_dim", 0);
    m.global.kvHeads = r.integer("global_kv_heads", 0);
    m.global.keyIsValue = r.boolean("global_k_eq_v", false);
    m.global.heads = r.integer("global_heads", 0);
    m.global.rotaryFraction = r.number("global_rotary_fraction", 0);
    m.globalFirst = r.boolean("global_first", false);
    m.headWiseGate = r.boolean("head_wise_gate", false);
}

/// Gemma 3n's keys: AltUp's streams, LAuReL, the sparse-gate layers, KV-sharing layers that keep their weights.
void readGemma3nKeys(JsonReader &r, ModelShape &m)
{
    m.altupInputs = r.integer("altup_inputs", 0);
    m.altupCorrectScale = r.boolean("altup_correct_scale", true);
    m.laurelRank = r.integer("laurel_rank", 0);
    m.sparseFfnLayers = r.integer("sparse_ffn_layers", 0);
    m.sharedKvKeepsWeights = r.boolean("shared_kv_weights", false);
}
} // namespace

ModelShape modelShapeFromJson(const json &j, const std::string &file)
{
    JsonReader r(j, file);
    ModelShape m;
    m.id = r.string("id", "");
    m.name = r.string("name", m.id);
    m.family = r.string("family", "");
    auto pick = [&r](std::string_view key, auto parse, auto fallback, std::string_view options) {
        const std::string s = r.string(key, toString(fallback));
        auto v = parse(s);
        if (!v)
            r.fail(key, "must be " + std::string(options) + ", got \"" + s + "\"");
        return *v;
    };
    m.arch = pick("arch", architectureFromString, Architecture::Decoder, "decoder or encoder");
    m.layers = r.positiveInteger("layers");
    m.hidden = r.positiveInteger("hidden");
    m.heads = r.positiveInteger("heads");
    m.kvHeads = r.integer("kv_heads", m.heads);
    m.headDim = r.integer("head_dim", m.hidden / m.heads);
    m.ffn = r.integer("ffn"); // 0: no FFN (a state-space model), see validate()
    m.gatedFfn = r.boolean("gated_ffn", false);
    m.activation = pick("activation", activationFromString, Activation::Gelu, "gelu, silu, relu or relu2");
    // A model of image patches has no vocabulary (validate() wants vocab 0 there); every other model needs one.
    m.patchInputs = r.integer("patch_inputs", 0);
    m.vocab = m.patchInputs != 0 ? r.integer("vocab", 0) : r.positiveInteger("vocab");
    m.maxPositions = r.integer("max_positions", 0);
    m.positions =
        pick("positions", positionEncodingFromString, PositionEncoding::Rotary, "learned, rotary, alibi or none");
    m.positionOffset = r.integer("position_offset", 0);
    m.tokenTypes = r.integer("token_types", 0);
    m.tiedEmbeddings = r.boolean("tied_embeddings", false);
    m.headBias = r.boolean("head_bias", false);
    m.norm = pick("norm", normKindFromString, NormKind::RmsNorm, "layernorm or rmsnorm");
    m.embeddingNorm = r.boolean("embedding_norm", false);
    m.qkvBias = r.boolean("qkv_bias", false);
    m.outBias = r.boolean("out_bias", false);
    m.ffnBias = r.boolean("ffn_bias", false);
    m.parallelAttention = r.boolean("parallel_attention", false);
    m.sharedLayerNorm = r.boolean("shared_layernorm", false);
    m.postNorms = r.boolean("post_norms", false);
    m.pooler = r.boolean("pooler", false);
    m.finalNorm = r.boolean("final_norm", false);
    m.experts = r.integer("experts", 1);
    m.activeExperts = r.integer("active_experts", 1);
    m.sharedFfn = r.integer("shared_ffn", 0);
    m.sharedExpertGate = r.boolean("shared_expert_gate", false);
    m.slidingWindow = r.integer("sliding_window", 0);
    m.chunkedAttention = r.boolean("chunked_attention", false);
    m.globalEvery = r.integer("global_every", 0);
    m.mixer = pick("mixer", mixerKindFromString, MixerKind::Attention, "attention or mla");
    if (m.mixer == MixerKind::Mla) {
        m.mla.qLoraRank = r.integer("q_lora_rank", 0);
        m.mla.kvLoraRank = r.positiveInteger("kv_lora_rank");
        m.mla.qkNopeHeadDim = r.positiveInteger("qk_nope_head_dim");
        m.mla.qkRopeHeadDim = r.positiveInteger("qk_rope_head_dim");
        m.mla.vHeadDim = r.positiveInteger("v_head_dim");
        // DeepSeek Sparse Attention's lightning indexer (IndexerShape): index_heads 0 or absent for dense MLA.
        m.indexer.heads = r.integer("index_heads", 0);
        if (m.indexer.heads != 0) {
            m.indexer.headDim = r.positiveInteger("index_head_dim");
            m.indexer.topk = r.positiveInteger("index_topk");
        }
    }
    m.attentionOutputGate = r.boolean("attention_output_gate", false);
    m.rotaryFraction = r.number("rotary_fraction", 1);
    m.globalNoPositions = r.boolean("global_nope", false);
    m.qkNorm = r.boolean("qk_norm", false);
    m.qkNormFullWidth = r.boolean("qk_norm_full_width", false);
    m.valueNorm = r.boolean("value_norm", false);
    readGlobalLayerKeys(r, m);
    m.moeBesideDense = r.boolean("moe_beside_dense", false);
    // Gemma 4 E2B/E4B: KV sharing, its double-wide MLP, and per-layer embeddings.
    m.kvSharedLayers = r.integer("kv_shared_layers", 0);
    m.doubleWideSharedFfn = r.boolean("double_wide_shared_ffn", false);
    m.perLayerInput = r.integer("per_layer_input", 0);
    m.perLayerVocab = r.integer("per_layer_vocab", 0);
    readGemma3nKeys(r, m);
    m.attentionSinks = r.boolean("attention_sinks", false);
    m.attentionSoftcap = r.number("attention_softcap", 0);
    m.finalSoftcap = r.number("final_softcap", 0);
    m.firstDenseLayers = r.integer("first_dense_layers", 0);
    m.moeEvery = r.integer("moe_every", 1);
    m.moeOffset = r.integer("moe_offset", 0);
    m.denseFfn = r.integer("dense_ffn", 0);
    m.routerBias = r.boolean("router_bias", false);
    m.normBias = r.boolean("norm_bias", true);
    readCheckpointFields(r, m);
    m.ssm.kind = pick("ssm", ssmKindFromString, SsmKind::None, "none, mamba1 or mamba2");
    if (m.ssm.kind != SsmKind::None) {
        m.ssm.stateSize = r.positiveInteger("ssm_state_size");
        m.ssm.innerSize = r.positiveInteger("ssm_inner_size");
        m.ssm.convKernel = r.integer("ssm_conv_kernel", 4);
        m.ssm.convBias = r.boolean("ssm_conv_bias", true);
        m.ssm.projBias = r.boolean("ssm_proj_bias", false);
        if (m.ssm.kind == SsmKind::Mamba2) {
            m.ssm.heads = r.positiveInteger("ssm_heads");
            m.ssm.groups = r.integer("ssm_groups", 1);
            m.ssm.chunkSize = r.integer("ssm_chunk", 256);
        } else {
            m.ssm.dtRank = r.positiveInteger("ssm_dt_rank");
            m.ssm.innerNorms = r.boolean("ssm_inner_norms", false);
        }
        m.attentionEvery = r.integer("attention_every", 0);
        m.attentionOffset = r.integer("attention_offset", 0);
    }
    readLinearAttention(r, m);
    readVision(r, m);
    readLayerBlocks(r, m);
    m.layerPattern = r.string("layer_pattern", "");
    r.rejectUnknown();
    if (auto e = validate(m); !e.empty())
        throw InputError::rule(file, e.fields, e.message);
    return m;
}

namespace {
/// Gemma 4's keys: its global layers' own widths, the MoE block beside the dense MLP, KV sharing and per-layer
/// embeddings; Step-3.5's global layers and gate per head (written only when set).
void writeGemma4Keys(json &j, const ModelShape &m)
{
    if (m.global.headDim != 0)
        j["global_head_dim"] = m.global.headDim;
    if (m.global.kvHeads != 0)
        j["global_kv_heads"] = m.global.kvHeads;
    if (m.global.keyIsValue)
        j["global_k_eq_v"] = true;
    if (m.global.heads != 0)
        j["global_heads"] = m.global.heads;
    if (m.global.rotaryFraction != 0)
        j["global_rotary_fraction"] = m.global.rotaryFraction;
    if (m.globalFirst)
        j["global_first"] = true;
    if (m.headWiseGate)
        j["head_wise_gate"] = true;
    if (m.moeBesideDense)
        j["moe_beside_dense"] = true;
    if (m.kvSharedLayers != 0)
        j["kv_shared_layers"] = m.kvSharedLayers;
    if (m.doubleWideSharedFfn)
        j["double_wide_shared_ffn"] = true;
    if (m.perLayerInput != 0) {
        j["per_layer_input"] = m.perLayerInput;
        j["per_layer_vocab"] = m.perLayerVocab;
    }
    // Gemma 3n's.
    if (m.sharedKvKeepsWeights)
        j["shared_kv_weights"] = true;
    if (m.altupInputs != 0)
        j["altup_inputs"] = m.altupInputs;
    if (!m.altupCorrectScale)
        j["altup_correct_scale"] = false;
    if (m.laurelRank != 0)
        j["laurel_rank"] = m.laurelRank;
    if (m.sparseFfnLayers != 0)
        j["sparse_ffn_layers"] = m.sparseFfnLayers;
}
} // namespace

json toJson(const ModelShape &m)
{
    json j{{"id", m.id},
           {"name", m.name},
           {"family", m.family},
           {"arch", toString(m.arch)},
           {"layers", m.layers},
           {"hidden", m.hidden},
           {"heads", m.heads},
           {"kv_heads", m.kvHeads},
           {"head_dim", m.headDim},
           {"ffn", m.ffn},
           {"gated_ffn", m.gatedFfn},
           {"activation", toString(m.activation)},
           {"vocab", m.vocab},
           {"max_positions", m.maxPositions},
           {"positions", toString(m.positions)},
           {"position_offset", m.positionOffset},
           {"token_types", m.tokenTypes},
           {"tied_embeddings", m.tiedEmbeddings},
           {"norm", toString(m.norm)},
           {"embedding_norm", m.embeddingNorm},
           {"qkv_bias", m.qkvBias},
           {"out_bias", m.outBias},
           {"ffn_bias", m.ffnBias},
           {"parallel_attention", m.parallelAttention},
           {"shared_layernorm", m.sharedLayerNorm},
           {"post_norms", m.postNorms},
           {"pooler", m.pooler},
           {"experts", m.experts},
           {"active_experts", m.activeExperts},
           {"shared_ffn", m.sharedFfn},
           {"shared_expert_gate", m.sharedExpertGate},
           {"sliding_window", m.slidingWindow}};
    // Patch embeddings, an encoder's final norm, the layer pattern and the newer attention kinds, written only where
    // they differ from the defaults so that the files of plain models keep their keys.
    if (m.patchInputs != 0)
        j["patch_inputs"] = m.patchInputs;
    if (m.finalNorm)
        j["final_norm"] = true;
    if (m.chunkedAttention)
        j["chunked_attention"] = true;
    if (m.globalEvery != 0)
        j["global_every"] = m.globalEvery;
    if (m.mixer != MixerKind::Attention) {
        j["mixer"] = toString(m.mixer);
        j["q_lora_rank"] = m.mla.qLoraRank;
        j["kv_lora_rank"] = m.mla.kvLoraRank;
        j["qk_nope_head_dim"] = m.mla.qkNopeHeadDim;
        j["qk_rope_head_dim"] = m.mla.qkRopeHeadDim;
        j["v_head_dim"] = m.mla.vHeadDim;
        if (m.hasIndexer()) {
            j["index_heads"] = m.indexer.heads;
            j["index_head_dim"] = m.indexer.headDim;
            j["index_topk"] = m.indexer.topk;
        }
    }
    if (m.qkNorm)
        j["qk_norm"] = true;
    if (m.qkNormFullWidth)
        j["qk_norm_full_width"] = true;
    if (m.valueNorm)
        j["value_norm"] = true;
    writeGemma4Keys(j, m);
    if (m.attentionSinks)
        j["attention_sinks"] = true;
    if (m.firstDenseLayers != 0)
        j["first_dense_layers"] = m.firstDenseLayers;
    if (m.moeEvery != 1)
        j["moe_every"] = m.moeEvery;
    if (m.moeOffset != 0)
        j["moe_offset"] = m.moeOffset;
    if (m.denseFfn != 0)
        j["dense_ffn"] = m.denseFfn;
    if (m.routerBias)
        j["router_bias"] = true;
    if (m.headBias)
        j["head_bias"] = true;
    if (m.attentionSoftcap != 0)
        j["attention_softcap"] = m.attentionSoftcap;
    if (m.finalSoftcap != 0)
        j["final_softcap"] = m.finalSoftcap;
    if (!m.normBias)
        j["norm_bias"] = false;
    writeCheckpointFields(m, j);
    if (m.ssm.kind != SsmKind::None) {
        const SsmShape &x = m.ssm;
        j["ssm"] = toString(x.kind);
        j["ssm_state_size"] = x.stateSize;
        j["ssm_inner_size"] = x.innerSize;
        j["ssm_conv_kernel"] = x.convKernel;
        j["ssm_conv_bias"] = x.convBias;
        j["ssm_proj_bias"] = x.projBias;
        if (x.kind == SsmKind::Mamba2) {
            j["ssm_heads"] = x.heads;
            j["ssm_groups"] = x.groups;
            j["ssm_chunk"] = x.chunkSize;
        } else {
            j["ssm_dt_rank"] = x.dtRank;
            j["ssm_inner_norms"] = x.innerNorms;
        }
        j["attention_every"] = m.attentionEvery;
        j["attention_offset"] = m.attentionOffset;
    }
    if (!m.layerPattern.empty())
        j["layer_pattern"] = m.layerPattern;
    linearAttentionToJson(m, j);
    visionToJson(m, j);
    layerBlocksToJson(m, j);
    return j;
}

ModelPreset modelPresetFromJson(const json &j, const std::string &file)
{
    JsonReader r(j, file);
    checkKind(r, "model");
    ModelPreset p;
    const std::string id = requireId(r);
    const std::string name = r.string("name");
    const bool hasConfig = r.has("config"), hasShape = r.has("shape");
    if (hasConfig == hasShape)
        r.fail(hasConfig ? "shape" : "config", "a model preset needs exactly one of \"config\" or \"shape\"");
    if (hasConfig) {
        r.object("config"); // type check
        p.shape = importHfConfig(r.raw("config"), file + ": config");
    } else {
        r.object("shape");
        p.shape = modelShapeFromJson(r.raw("shape"), file + ": shape");
    }
    p.shape.id = id;
    p.shape.name = name;
    p.paramsOfficial = optionalSourced(r, "params_official", kParams);
    p.activeParamsOfficial = optionalSourced(r, "active_params_official", kParams);
    p.source = r.string("source");
    p.year = static_cast<int>(r.integer("year", 0));
    p.notes = r.string("notes", "");
    p.sourceFile = file;
    r.rejectUnknown();
    return p;
}

/// While it lives, the library's add() only appends; the devices are sorted once when it ends.
class PresetBatch
{
public:
    explicit PresetBatch(PresetLibrary &lib) : m_lib(lib) { m_lib.m_batch = true; }
    ~PresetBatch()
    {
        m_lib.m_batch = false;
        m_lib.sortHardware();
    }
    PresetBatch(const PresetBatch &) = delete;
    PresetBatch &operator=(const PresetBatch &) = delete;

private:
    PresetLibrary &m_lib;
};

void PresetLibrary::loadBuiltin()
{
    const PresetBatch batch(*this);
    m_loadingBuiltin = true;
    for (const EmbeddedFile &f : builtinPresetFiles()) {
        const std::string_view path(f.path);
        if (path.starts_with("hardware/") || path.starts_with("models/"))
            loadText(f.text, std::string("presets/") + f.path);
    }
    m_loadingBuiltin = false;
}

void PresetLibrary::noteUserFile(const std::string &kind, const std::string &id, const std::string &file)
{
    if (m_loadingBuiltin)
        return;
    auto [it, inserted] = m_userFiles.try_emplace(kind + ":" + id, file);
    if (!inserted && it->second != file) {
        m_issues.push_back(
            {file,
             file + ": id: " + kind + " \"" + id + "\" is also defined in " + it->second + "; " + file + " is used",
             false});
        it->second = file;
    }
}

bool PresetLibrary::loadText(std::string_view text, const std::string &origin)
{
    try {
        const json j = parseJson(text, origin);
        if (!j.is_object())
            throw InputError(origin, "", "top level: expected an object");
        const auto kind = j.find("kind");
        if (kind == j.end() || !kind->is_string())
            throw InputError(origin, "kind", "missing (\"hardware\" or \"model\")");
        if (*kind == "hardware")
            add(hardwareFromJson(j, origin));
        else if (*kind == "model")
            add(modelPresetFromJson(j, origin));
        else
            throw InputError(origin, "kind", "must be \"hardware\" or \"model\", got " + brief(*kind));
        return true;
    } catch (const InputError &e) {
        m_issues.push_back({origin, e.what()});
    } catch (const std::exception &e) {
        m_issues.push_back({origin, origin + ": " + e.what()});
    }
    return false;
}

void PresetLibrary::loadDirectory(const std::string &dir, bool mustExist)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        if (mustExist)
            m_issues.push_back({dir, dir + ": not a folder"});
        return;
    }
    const PresetBatch batch(*this);
    // A folder that cannot be listed is named with the system's reason, not skipped in silence (issue #42).
    const auto unreadable = [this](const fs::path &folder) {
        std::error_code why;
        fs::directory_iterator probe(folder, why);
        if (why)
            m_issues.push_back({folder.string(), folder.string() + ": cannot read the folder: " + why.message()});
        return bool(why);
    };
    if (unreadable(dir))
        return;
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it.depth() > 3) {
            it.disable_recursion_pending();
            continue;
        }
        if (std::error_code typeEc; it->is_directory(typeEc) && unreadable(it->path()))
            continue;
        if (it->is_regular_file(ec) && it->path().extension() == ".json" &&
            it->path().parent_path().filename() != "trends")
            files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto &f : files) {
        try {
            const json j = readJsonFile(f.string());
            loadText(j.dump(), f.string());
        } catch (const InputError &e) {
            m_issues.push_back({f.string(), e.what()});
        }
    }
}

void PresetLibrary::add(HardwareSpec hw)
{
    noteUserFile("hardware", hw.id, hw.sourceFile);
    if (const auto it = m_hardwareAt.find(hw.id); it != m_hardwareAt.end()) {
        m_hardware[it->second] = std::move(hw);
    } else {
        m_hardwareAt.emplace(hw.id, m_hardware.size());
        m_hardware.push_back(std::move(hw));
    }
    if (!m_batch)
        sortHardware();
}

void PresetLibrary::sortHardware()
{
    // Display order, so every list of devices reads the same: by vendor, then year, then name.
    std::stable_sort(m_hardware.begin(), m_hardware.end(), [](const HardwareSpec &a, const HardwareSpec &b) {
        return std::tie(a.vendor, a.year.value, a.name) < std::tie(b.vendor, b.year.value, b.name);
    });
    m_hardwareAt.clear();
    for (std::size_t i = 0; i < m_hardware.size(); ++i)
        m_hardwareAt.emplace(m_hardware[i].id, i);
}

void PresetLibrary::add(ModelPreset model)
{
    noteUserFile("model", model.shape.id, model.sourceFile);
    if (const auto it = m_modelAt.find(model.shape.id); it != m_modelAt.end()) {
        m_models[it->second] = std::move(model);
    } else {
        m_modelAt.emplace(model.shape.id, m_models.size());
        m_models.push_back(std::move(model));
    }
}

const HardwareSpec *PresetLibrary::findHardware(std::string_view id) const
{
    // While a folder loads, the index covers the devices added so far (they are sorted when it ends).
    const auto it = m_hardwareAt.find(std::string(id));
    return it == m_hardwareAt.end() ? nullptr : &m_hardware[it->second];
}

const ModelPreset *PresetLibrary::findModel(std::string_view id) const
{
    const auto it = m_modelAt.find(std::string(id));
    return it == m_modelAt.end() ? nullptr : &m_models[it->second];
}

const ModelShape *PresetLibrary::draftModel(const Scenario &s) const
{
    if (s.draftModel == "mtp")
        return nullptr;
    if (const ModelPreset *p = findModel(s.draftModel))
        return &p->shape;
    std::string closest;
    for (const auto &c : closestModels(s.draftModel))
        closest += (closest.empty() ? " (closest: " : ", ") + c;
    throw AnalysisError("draft_model: unknown model '" + s.draftModel + "'" + (closest.empty() ? "" : closest + ")"));
}

std::size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

namespace {
std::vector<std::string> closest(std::vector<std::string> ids, std::string_view id, std::size_t n)
{
    auto score = [&](const std::string &c) {
        const bool sub = !id.empty() && (c.find(id) != std::string::npos || id.find(c) != std::string::npos);
        return (sub ? 0 : 1000) + editDistance(c, id);
    };
    std::stable_sort(ids.begin(), ids.end(), [&](const auto &x, const auto &y) { return score(x) < score(y); });
    if (ids.size() > n)
        ids.resize(n);
    return ids;
}
} // namespace

std::vector<std::string> PresetLibrary::closestHardware(std::string_view id, std::size_t n) const
{
    std::vector<std::string> ids;
    for (const auto &h : m_hardware)
        ids.push_back(h.id);
    return closest(std::move(ids), id, n);
}

std::vector<std::string> PresetLibrary::closestModels(std::string_view id, std::size_t n) const
{
    std::vector<std::string> ids;
    for (const auto &m : m_models)
        ids.push_back(m.shape.id);
    return closest(std::move(ids), id, n);
}

} // namespace memwall::core
