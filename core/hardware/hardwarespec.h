#pragma once

#include "core/model/dtype.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memwall::core {

/// A published number and where it was published (datasheet, paper, page).
struct Sourced
{
    double value = 0.0;
    std::string source;
};

/// Where a memory level sits in the hierarchy.
enum class MemoryKind {
    Sram,   ///< registers, L1, shared memory, on-chip/on-wafer SRAM
    Cache,  ///< L2 / last-level cache / Infinity Cache
    Dram,   ///< HBM, GDDR, DDR attached to the device: where weights live
    Host,   ///< host memory reached over the host link (PCIe, ...)
    Storage ///< NVMe storage beside the device: the last tier a KV cache can be offloaded to
};
std::string_view toString(MemoryKind k);
std::optional<MemoryKind> memoryKindFromString(std::string_view s);

/// One level of the memory hierarchy. Capacity in bytes, bandwidth in bytes/s (aggregate, device-wide).
struct MemoryLevel
{
    std::string name;
    MemoryKind kind = MemoryKind::Dram;
    Sourced capacityBytes;
    Sourced bandwidthBytesPerS;
};

/// A device-to-device link. Bandwidth is per direction, per device (bytes/s); latency per message (s).
struct Interconnect
{
    std::string name;
    Sourced bandwidthBytesPerS; ///< per direction
    Sourced latencyS;   ///< per collective: the published small-message all-reduce / send latency over this link
    int maxDevices = 0; ///< devices in one scale-up domain; 0 = unknown
};

/// One point of a published GEMM size sweep: a square m = n = k = `size` problem reached `fraction` of the dense peak.
struct GemmPoint
{
    double size = 0;
    Sourced fraction;
};

/// A published all-reduce size sweep over the scale-up link (nccl-tests / rccl-tests `all_reduce_perf`): the bus
/// bandwidth each message size reached on `devices` devices. nccl-tests defines bus bandwidth as
/// size x 2(n-1)/n / time, so each point gives the measured time of its size.
struct AllReduceSweep
{
    int devices = 0;
    std::vector<std::pair<double, double>> points; ///< (message bytes, bus bandwidth B/s), sizes increasing
    std::string source;
};

/// A published timing of the kernels that quantize a linear layer's input to FP8, by the input's size: (elements,
/// seconds) pairs, sizes increasing. Between points the time is interpolated in log(elements); below the first it is
/// the first (the kernels' floor), and above the last it grows in proportion to the elements.
struct QuantizeSweep
{
    std::vector<std::pair<double, double>> points; ///< (input elements m x k, seconds)
    std::string source;
    double timeAt(double elements) const;
};

/// The expert formats a fused MoE kernel runs, as aiconfigurator's MoE tables name them (moe_dtype): the routed
/// experts' weight format and the activations it multiplies them with.
enum class MoeFormat {
    Bf16,       ///< bfloat16 weights and activations ("bfloat16")
    Fp8,        ///< FP8 weights with one scale per tensor or channel, FP8 activations ("fp8")
    Fp8Block,   ///< FP8 weights with a scale per 128 x 128 block (DeepSeek-V3, Qwen3-FP8), FP8 activations
    Nvfp4,      ///< FP4 weights, one E4M3 scale per 16, FP4 activations ("nvfp4")
    W4a16Mxfp4, ///< MXFP4 weights (one E8M0 scale per 32), bf16 activations ("w4a16_mxfp4", gpt-oss on Hopper)
    W4a8Mxfp4,  ///< MXFP4 weights, MXFP8 activations ("w4a8_mxfp4_mxfp8", gpt-oss on Blackwell)
    Count
};
inline constexpr std::size_t kMoeFormatCount = static_cast<std::size_t>(MoeFormat::Count);
/// The table's name of a format ("fp8_block"), and the format of a name.
std::string_view toString(MoeFormat f);
std::optional<MoeFormat> moeFormatFromString(std::string_view s);

/// A fused MoE kernel measured by load: the fraction of the routed experts' roofline (their up, gate and down
/// GEMMs, the activation, the token permute and unpermute, each at the dense peak and the HBM bandwidth) that the
/// measured kernel reached, by token-expert pairs per expert on a device. (tokens per expert, fraction) pairs, sizes
/// increasing; between points interpolated in log(tokens), held at the ends.
struct MoeSweep
{
    std::vector<std::pair<double, double>> points; ///< (tokens per expert, fraction), tokens per expert not falling
    std::vector<double> touched; ///< per point: the experts the busiest rank runs (rising where tokens per expert tie)
    std::string source;
    int hidden = 0, inter = 0, topk = 0, experts = 0, moeEp = 0; ///< the measured reference shape
    std::vector<std::pair<double, double>> measured; ///< per point: the table's (tokens, latency s) it came from
    /// The fraction at `tokensPerExpert` on a rank running `expertsTouched` experts: read in log(tokens per expert)
    /// between points, and in log(experts touched) between points of the same tokens per expert (the smallest
    /// batches under expert parallelism, where each routed copy has an expert of its own and the kernel's fixed costs
    /// are shared by more experts as the batch grows); the end points hold beyond the table.
    double fractionAt(double tokensPerExpert, double expertsTouched) const;
};

/// A measured all-to-all of expert parallelism (DeepEP low-latency on one node): the time of dispatch and of
/// combine by the bytes each rank sends, (bytes, seconds) pairs read as QuantizeSweep::timeAt (the floor below the
/// first size, in proportion above the last).
struct AllToAllSweep
{
    QuantizeSweep dispatch, combine;
    std::string source;
};

/// The formats a measured MLA decode module ran in, as tools/mla_tables.py names them: "gemm/kv", the projections'
/// weight format (aiconfigurator's gemm_type: bfloat16, fp8_block, nvfp4) and the KV cache's (bfloat16, fp8).
inline constexpr std::array<std::string_view, 6> kMlaFormats{
    "bfloat16/bfloat16", "bfloat16/fp8", "fp8_block/bfloat16", "fp8_block/fp8", "nvfp4/bfloat16", "nvfp4/fp8"};

/// A multi-head latent attention layer in one decode step, measured whole (TensorRT-LLM's DeepSeek-V3 attention
/// module: latent projections, norms, rotary, cache write, absorbed products, attention kernel and o_proj, in a CUDA
/// graph) for one format and number of heads per rank: the fraction of the ideal rooflines of the operators MemWall
/// emits for that layer (summed) that the measured latency reached, by batch per rank and cached context
/// (tools/mla_tables.py).
struct MlaModuleTable
{
    /// One measured batch: (cached context, fraction) pairs, contexts rising; a row stops early where the longest
    /// contexts were not measured.
    struct Row
    {
        double batch = 0;
        std::vector<std::pair<double, double>> points;
    };
    int heads = 0;
    std::vector<Row> rows; ///< batches rising
    /// Read in log(context) within a row and in log(batch) between rows; the ends hold beyond the table, and a row
    /// that stops early holds its last fraction.
    double fractionAt(double batch, double context) const;
};

/// What a device reaches in published microbenchmarks: the inputs of the achievable time model. Each operator takes
/// max(F / (P x eta_gemm), B / (BW x eta_mem)) + t_kernel per launch; collectives take latency + size / bus bandwidth.
/// Every figure comes from a microbenchmark (GEMM sweeps, copy kernels, nccl-tests), never from an end-to-end run.
struct AchievableModel
{
    std::optional<Sourced> computeFraction; ///< the largest GEMMs (MAMF): the roof drawn, and the GEMM fallback
    std::optional<Sourced> memoryFraction;  ///< a copy/triad kernel's share of the peak bandwidth
    /// GEMM size sweeps per format, sorted by size: the fraction of the dense peak a square GEMM of that size reaches.
    std::array<std::vector<GemmPoint>, kDTypeCount> gemm{};
    std::optional<Sourced> attentionFraction; ///< fused attention (FlashAttention) forward: fraction of the peak
    std::optional<Sourced> kernelGraphsS;     ///< cost of one kernel inside a captured graph (s)
    std::optional<Sourced> kernelEagerS;      ///< cost of one kernel launched on its own (s)
    /// Weight-only quantized matmuls (int8, int4 weights dequantized in the kernel): their share of the copy
    /// kernel's bandwidth, per weight format.
    std::array<std::optional<Sourced>, kDTypeCount> weightOnlyMemoryFraction{};
    /// The all-reduce as two numbers: a latency and the largest all-reduce's bus bandwidth (or give the sweep).
    std::optional<Sourced> allReduceLatencyS;
    std::optional<Sourced> allReduceBusBandwidthBytesPerS;
    std::optional<AllReduceSweep> allReduceSweep; ///< the whole published size sweep, in place of the two numbers
    /// The serving engines' own all-reduce kernel (custom, one-shot or two-shot over NVLink), measured by size: only
    /// beside the library's figures above, which it replaces when a scenario asks for the custom all-reduce.
    std::optional<AllReduceSweep> customAllReduceSweep;
    /// The kernels that quantize a linear layer's activations to FP8: with a calibrated scale (static), and with the
    /// scale found at run time as well (dynamic). Charged per linear layer when a scenario asks for them.
    std::optional<QuantizeSweep> quantizeStatic, quantizeDynamic;
    /// Fused MoE kernels by expert format (aiconfigurator's MoE tables): what the routed experts' operators reach,
    /// one sweep per expert split (moe_ep of the table, increasing).
    std::array<std::vector<MoeSweep>, kMoeFormatCount> moe{};
    /// Expert parallelism's dispatch and combine, measured by size.
    std::optional<AllToAllSweep> allToAll;
    /// The MLA decode module per format (kMlaFormats' order), one table per number of heads per rank, falling.
    std::array<std::vector<MlaModuleTable>, kMlaFormats.size()> mlaDecode{};
    std::string mlaDecodeSource;

    bool empty() const;
    /// The sweep of format `f` measured on the expert split nearest (in log) to `split` devices sharing the experts
    /// (moe_tp x moe_ep: each holds 1/split of their weights), or nullptr when the format has none.
    const MoeSweep *moeSweepFor(MoeFormat f, int split) const;
    /// The MLA decode table of format `format` (an index of kMlaFormats) for the heads nearest (in log) to `heads`,
    /// or nullptr when the format has none.
    const MlaModuleTable *mlaTableFor(std::size_t format, double heads) const;
    bool hasAllReduce() const { return allReduceSweep || allReduceBusBandwidthBytesPerS; }
    /// `custom`: the custom sweep where the device has one, else the library's. The other functions take it too.
    bool usesCustomAllReduce(bool custom) const { return custom && customAllReduceSweep.has_value(); }
    /// Bus bandwidth of the largest measured all-reduce: the rate of each collective's bytes. 0 without a figure.
    double allReduceBusBandwidth(bool custom = false) const;
    /// The fixed part of a collective of `bytes`: the measured time less the bytes over allReduceBusBandwidth(). A
    /// sweep gives it per size, interpolated in log(bytes) between its points and held at its ends; the two-number
    /// form gives one latency for every size.
    double allReduceLatencyAt(double bytes, bool custom = false) const;
    /// The measured sweep those two read (the custom one where asked for and present), or nullptr for the two-number
    /// form or none.
    const AllReduceSweep *allReduceSweepFor(bool custom) const;
    /// Fraction of the peak a GEMM of `m n k = size^3` reaches in format `t`: interpolated in log(size) between the
    /// sweep's points and held at its ends; the flat compute fraction when the format has no sweep, else 1.
    double gemmFraction(DType t, double size) const;
};

/// A device: dense peak throughput per number format (FLOP/s, or OP/s for integers), an ordered memory
/// hierarchy (fastest/smallest first), interconnects, and the fractions of peak that published measurements reach.
struct HardwareSpec
{
    std::string id; ///< lower-case with dashes: "h100-sxm"
    std::string name;
    std::string vendor;
    std::string category; ///< gpu | cpu | asic | wafer-scale
    Sourced year;
    std::optional<Sourced> tdpW; ///< thermal design power; nullopt where the vendor publishes none (Google's TPUs)
    std::optional<Sourced> priceUsd;
    /// On-demand rental of one device, US dollars per hour (a public cloud list price, with its date in the source).
    std::optional<Sourced> usdPerHour;
    /// Dense peak per dtype (never a sparsity figure); nullopt where the device has no native support.
    std::array<std::optional<Sourced>, kDTypeCount> peakFlops{};
    std::vector<MemoryLevel> memory;
    std::vector<Interconnect> interconnects;
    AchievableModel achievable; ///< what published microbenchmarks reach ("--efficiency achievable")
    std::string notes;
    std::string sourceFile; ///< file it was read from, for messages ("" when built in code)

    /// Peak for a dtype, or 0 when unsupported.
    double peak(DType t) const { return peakFlops[index(t)] ? peakFlops[index(t)]->value : 0.0; }
    bool supports(DType t) const { return peak(t) > 0.0; }
    /// The dtype a matmul in format `t` actually runs in: `t` when supported, else the nearest wider
    /// supported format (fp4 -> fp6 -> fp8 -> fp16/bf16 -> fp32; int4 -> int8 -> fp16 ...). Falls back to the fastest
    /// dtype.
    DType computeType(DType t) const;
    /// Index of the level that holds weights and KV cache: the first Dram level, else the largest non-host level.
    std::size_t mainMemoryIndex() const;
    const MemoryLevel &mainMemory() const { return memory.at(mainMemoryIndex()); }
    /// Ridge point (FLOP/byte) of dtype `t` against main memory.
    double ridge(DType t) const;
    /// The link used for collectives: the first interconnect, else nullptr (callers then use the host link).
    const Interconnect *scaleUpLink() const { return interconnects.empty() ? nullptr : &interconnects.front(); }
};

/// Multiplies compute, bandwidth and capacity of every level (the GUI's "what-if" group). Factors must be > 0.
HardwareSpec scaled(const HardwareSpec &hw, double computeFactor, double bandwidthFactor, double capacityFactor);

} // namespace memwall::core
