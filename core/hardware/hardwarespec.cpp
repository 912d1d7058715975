#include "core/hardware/hardwarespec.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memwall::core {

namespace {
/// A measured sweep read between its points: linear in log(size) between the two points around `v`, which lies
/// strictly inside the sweep (callers decide what holds at its ends). `size` and `value` read a point.
template <typename P, typename Size, typename Value>
double interpolateInLogSize(const std::vector<P> &points, double v, Size size, Value value)
{
    const auto hi =
        std::upper_bound(points.begin(), points.end(), v, [&](double a, const P &p) { return a < size(p); });
    const auto lo = hi - 1;
    const double x = std::log(v / size(*lo)) / std::log(size(*hi) / size(*lo));
    return value(*lo) + x * (value(*hi) - value(*lo));
}
double first(const std::pair<double, double> &p) { return p.first; }
double second(const std::pair<double, double> &p) { return p.second; }
} // namespace

std::string_view toString(MemoryKind k)
{
    switch (k) {
    case MemoryKind::Sram: return "sram";
    case MemoryKind::Cache: return "cache";
    case MemoryKind::Dram: return "dram";
    case MemoryKind::Host: return "host";
    case MemoryKind::Storage: return "storage";
    }
    return "?";
}

std::optional<MemoryKind> memoryKindFromString(std::string_view s)
{
    for (MemoryKind k : {MemoryKind::Sram, MemoryKind::Cache, MemoryKind::Dram, MemoryKind::Host, MemoryKind::Storage})
        if (s == toString(k))
            return k;
    return std::nullopt;
}

bool AchievableModel::empty() const
{
    const bool noGemm = std::all_of(gemm.begin(), gemm.end(), [](const auto &v) { return v.empty(); });
    const bool noWeightOnly = std::none_of(weightOnlyMemoryFraction.begin(), weightOnlyMemoryFraction.end(),
                                           [](const auto &f) { return f.has_value(); });
    return !computeFraction && !memoryFraction && noGemm && !attentionFraction && !kernelGraphsS && !kernelEagerS &&
           noWeightOnly && !hasAllReduce() && !customAllReduceSweep && !quantizeStatic && !quantizeDynamic &&
           std::all_of(moe.begin(), moe.end(), [](const auto &f) { return f.empty(); }) && !allToAll &&
           std::all_of(mlaDecode.begin(), mlaDecode.end(), [](const auto &f) { return f.empty(); });
}

std::string_view toString(MoeFormat f)
{
    switch (f) {
    case MoeFormat::Bf16: return "bfloat16";
    case MoeFormat::Fp8: return "fp8";
    case MoeFormat::Fp8Block: return "fp8_block";
    case MoeFormat::Nvfp4: return "nvfp4";
    case MoeFormat::W4a16Mxfp4: return "w4a16_mxfp4";
    case MoeFormat::W4a8Mxfp4: return "w4a8_mxfp4_mxfp8";
    case MoeFormat::Count: break;
    }
    return "?";
}

std::optional<MoeFormat> moeFormatFromString(std::string_view s)
{
    for (std::size_t i = 0; i < kMoeFormatCount; ++i)
        if (s == toString(static_cast<MoeFormat>(i)))
            return static_cast<MoeFormat>(i);
    return std::nullopt;
}

const MoeSweep *AchievableModel::moeSweepFor(MoeFormat f, int split) const
{
    const std::vector<MoeSweep> &sweeps = moe[static_cast<std::size_t>(f)];
    const MoeSweep *best = nullptr;
    double distance = 0;
    for (const MoeSweep &w : sweeps) {
        const double d = std::abs(std::log(static_cast<double>(w.moeEp) / std::max(1, split)));
        if (!best || d < distance) {
            best = &w;
            distance = d;
        }
    }
    return best;
}

const MlaModuleTable *AchievableModel::mlaTableFor(std::size_t format, double heads) const
{
    const MlaModuleTable *best = nullptr;
    double distance = 0;
    for (const MlaModuleTable &t : mlaDecode[format]) {
        const double d = std::abs(std::log(t.heads / std::max(1.0, heads)));
        if (!best || d < distance) {
            best = &t;
            distance = d;
        }
    }
    return best;
}

namespace {
/// A row of an MLA table at `context`, held at its ends.
double rowAt(const MlaModuleTable::Row &r, double context)
{
    if (context <= r.points.front().first)
        return r.points.front().second;
    if (context >= r.points.back().first)
        return r.points.back().second;
    return interpolateInLogSize(r.points, context, first, second);
}
} // namespace

double MlaModuleTable::fractionAt(double batch, double context) const
{
    if (rows.empty())
        return 1.0;
    if (batch <= rows.front().batch)
        return rowAt(rows.front(), context);
    if (batch >= rows.back().batch)
        return rowAt(rows.back(), context);
    return interpolateInLogSize(
        rows, batch, [](const Row &r) { return r.batch; }, [context](const Row &r) { return rowAt(r, context); });
}

double MoeSweep::fractionAt(double tokensPerExpert, double expertsTouched) const
{
    if (points.empty())
        return 1.0;
    const double x = std::clamp(tokensPerExpert, points.front().first, points.back().first);
    const auto [lo, hi] = std::equal_range(points.begin(), points.end(), std::pair{x, 0.0},
                                           [](const auto &a, const auto &b) { return a.first < b.first; });
    if (lo == hi) // strictly between two tokens per expert: the later point of a tie is the one beside the next
        return interpolateInLogSize(points, x, first, second);
    // A tokens per expert of the table, points [i, j): read them by experts touched.
    const auto i = static_cast<std::size_t>(lo - points.begin()), j = static_cast<std::size_t>(hi - points.begin());
    if (expertsTouched <= touched[i])
        return points[i].second;
    if (expertsTouched >= touched[j - 1])
        return points[j - 1].second;
    std::size_t k = i + 1;
    while (touched[k] < expertsTouched)
        ++k;
    const double t = std::log(expertsTouched / touched[k - 1]) / std::log(touched[k] / touched[k - 1]);
    return points[k - 1].second + t * (points[k].second - points[k - 1].second);
}

const AllReduceSweep *AchievableModel::allReduceSweepFor(bool custom) const
{
    if (usesCustomAllReduce(custom))
        return &*customAllReduceSweep;
    return allReduceSweep ? &*allReduceSweep : nullptr;
}

double AchievableModel::allReduceBusBandwidth(bool custom) const
{
    if (const AllReduceSweep *w = allReduceSweepFor(custom))
        return w->points.back().second;
    return allReduceBusBandwidthBytesPerS ? allReduceBusBandwidthBytesPerS->value : 0.0;
}

double AchievableModel::allReduceLatencyAt(double bytes, bool custom) const
{
    const AllReduceSweep *sweep = allReduceSweepFor(custom);
    if (!sweep)
        return allReduceLatencyS ? allReduceLatencyS->value : 0.0;
    const AllReduceSweep &w = *sweep;
    const double n = w.devices, bus = w.points.back().second;
    // Point i took size x 2(n-1)/n / busbw_i; what is left after the bytes at the largest size's rate is fixed cost.
    auto fixed = [&](const std::pair<double, double> &p) {
        return std::max(0.0, p.first * 2 * (n - 1) / n * (1 / p.second - 1 / bus));
    };
    if (bytes <= w.points.front().first)
        return fixed(w.points.front());
    if (bytes >= w.points.back().first)
        return fixed(w.points.back());
    return interpolateInLogSize(w.points, bytes, first, fixed);
}

double QuantizeSweep::timeAt(double elements) const
{
    if (points.empty())
        return 0.0;
    if (elements <= points.front().first)
        return points.front().second;
    if (elements >= points.back().first)
        return points.back().second * elements / points.back().first;
    return interpolateInLogSize(points, elements, first, second);
}

double AchievableModel::gemmFraction(DType t, double size) const
{
    // FP16 and BF16 run at one rate on every device: a sweep of either serves both.
    const DType twin = t == DType::FP16 ? DType::BF16 : t == DType::BF16 ? DType::FP16 : t;
    const std::vector<GemmPoint> &sweep = gemm[index(t)].empty() ? gemm[index(twin)] : gemm[index(t)];
    if (sweep.empty())
        return computeFraction ? computeFraction->value : 1.0;
    if (size <= sweep.front().size)
        return sweep.front().fraction.value;
    if (size >= sweep.back().size)
        return sweep.back().fraction.value;
    return interpolateInLogSize(
        sweep, size, [](const GemmPoint &p) { return p.size; }, [](const GemmPoint &p) { return p.fraction.value; });
}

DType HardwareSpec::computeType(DType t) const
{
    if (supports(t))
        return t;
    // Wider formats to try, in order of preference.
    auto pick = [this](std::initializer_list<DType> order) -> std::optional<DType> {
        for (DType d : order)
            if (supports(d))
                return d;
        return std::nullopt;
    };
    std::optional<DType> r;
    switch (t) {
    case DType::INT4: r = pick({DType::INT8, DType::FP8, DType::FP16, DType::BF16, DType::FP32}); break;
    case DType::INT8: r = pick({DType::FP8, DType::FP16, DType::BF16, DType::FP32}); break;
    case DType::FP4: r = pick({DType::FP6, DType::FP8, DType::FP16, DType::BF16, DType::FP32}); break;
    case DType::FP6: r = pick({DType::FP8, DType::FP16, DType::BF16, DType::FP32}); break;
    case DType::FP8: r = pick({DType::FP16, DType::BF16, DType::FP32}); break;
    case DType::FP16: r = pick({DType::BF16, DType::FP32}); break;
    case DType::BF16: r = pick({DType::FP16, DType::FP32}); break;
    case DType::TF32: r = pick({DType::FP32, DType::BF16, DType::FP16}); break;
    case DType::FP32: r = pick({DType::TF32, DType::FP64, DType::BF16, DType::FP16}); break;
    case DType::FP64: r = pick({DType::FP32}); break;
    case DType::Count: break;
    }
    if (r)
        return *r;
    DType best = DType::FP32;
    for (DType d : kAllDTypes)
        if (peak(d) > peak(best))
            best = d;
    return best;
}

std::size_t HardwareSpec::mainMemoryIndex() const
{
    if (memory.empty())
        throw std::logic_error("hardware '" + id + "' has no memory levels");
    for (std::size_t i = 0; i < memory.size(); ++i)
        if (memory[i].kind == MemoryKind::Dram)
            return i;
    std::size_t best = 0;
    for (std::size_t i = 0; i < memory.size(); ++i)
        if (memory[i].kind != MemoryKind::Host && memory[i].kind != MemoryKind::Storage &&
            memory[i].capacityBytes.value >= memory[best].capacityBytes.value)
            best = i;
    return best;
}

double HardwareSpec::ridge(DType t) const
{
    const double bw = mainMemory().bandwidthBytesPerS.value;
    return bw > 0 ? peak(computeType(t)) / bw : 0.0;
}

HardwareSpec scaled(const HardwareSpec &hw, double computeFactor, double bandwidthFactor, double capacityFactor)
{
    if (!(computeFactor > 0) || !(bandwidthFactor > 0) || !(capacityFactor > 0))
        throw std::invalid_argument("what-if factors must be positive");
    HardwareSpec s = hw;
    for (auto &p : s.peakFlops)
        if (p)
            p->value *= computeFactor;
    for (auto &m : s.memory) {
        m.bandwidthBytesPerS.value *= bandwidthFactor;
        m.capacityBytes.value *= capacityFactor;
    }
    return s;
}

} // namespace memwall::core
