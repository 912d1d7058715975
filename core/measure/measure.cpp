#include "core/measure/measure.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <memory>
#include <new>
#include <thread>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

// Kernels are written as plain loops with compile-time trip counts so that GCC vectorises them at -O2 (whose
// "very cheap" cost model only vectorises loops whose trip count is a multiple of the vector width). On x86-64
// with GCC or Clang the matrix-matrix kernel is additionally compiled for AVX2+FMA and picked at run time.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MEMWALL_X86_DISPATCH 1
#define MEMWALL_TARGET_AVX2 __attribute__((target("avx2,fma")))
#include <emmintrin.h> // SSE2 (x86-64 baseline): non-temporal stores in the triad
#else
#define MEMWALL_X86_DISPATCH 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MEMWALL_INLINE inline __attribute__((always_inline))
#define MEMWALL_RESTRICT __restrict
#else
#define MEMWALL_INLINE inline
#define MEMWALL_RESTRICT
#endif

namespace memwall::core {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kDefaultBandwidthBytes = 512 * kMiB;
constexpr std::size_t kMinBandwidthBytes = 8 * kMiB;
constexpr std::size_t kMatvecCols = 4096; ///< x is 16 KiB: it stays in L1/L2, A streams from memory
constexpr int kMaxReps = 64;
/// The progress callback is called at most this often (s); cancelling takes at most this plus one repetition.
constexpr double kProgressInterval = 0.02;

double secondsBetween(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

/// Smallest duration a timer reading is allowed to report (s): one tick of steady_clock, at least 1 ns.
constexpr double kMinSeconds = std::max(1e-9, static_cast<double>(Clock::period::num) / Clock::period::den);

/// [begin, end) of part `t` of `n` items split over `parts`, in multiples of `granule` (the last part takes the rest).
std::pair<std::size_t, std::size_t> slice(std::size_t n, int parts, int t, std::size_t granule = 1)
{
    const std::size_t units = n / granule;
    const std::size_t per = units / static_cast<std::size_t>(parts);
    const std::size_t extra = units % static_cast<std::size_t>(parts);
    const auto ut = static_cast<std::size_t>(t);
    const std::size_t b = ut * per + std::min(ut, extra);
    const std::size_t e = b + per + (ut < extra ? 1 : 0);
    return {b * granule, t == parts - 1 ? n : e * granule};
}

/// Run state shared by the stages: clock, budget, progress reporting and cancellation.
class Session
{
public:
    Session(double budgetS, const MeasureProgress &progress)
        : m_start(Clock::now()), m_budgetS(budgetS), m_progress(progress)
    {
    }

    double elapsed() const { return secondsBetween(m_start, Clock::now()); }
    Clock::time_point deadline(double fractionOfBudget) const
    {
        return m_start +
               std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m_budgetS * fractionOfBudget));
    }
    bool cancelled() const { return m_cancelled; }

    /// Reports progress (throttled unless `force`); returns false once the callback asked to cancel.
    bool report(std::string_view stage, bool force = false)
    {
        if (m_cancelled)
            return false;
        if (!m_progress)
            return true;
        const double now = elapsed();
        if (!force && now - m_lastReport < kProgressInterval)
            return true;
        m_lastReport = now;
        const double p = std::clamp(now / m_budgetS, 0.0, 0.99);
        m_progressValue = std::max(m_progressValue, p);
        if (!m_progress(m_progressValue, stage))
            m_cancelled = true;
        return !m_cancelled;
    }
    void finish()
    {
        if (!m_cancelled && m_progress)
            m_progress(1.0, "done");
    }

private:
    Clock::time_point m_start;
    double m_budgetS;
    const MeasureProgress &m_progress;
    double m_lastReport = -1.0;
    double m_progressValue = 0.0;
    bool m_cancelled = false;
};

/// Runs `threads` workers (the calling thread is worker 0). Each worker calls setup(t) once (first touch of its
/// data), then kernel(t) once per repetition; barriers separate repetitions so that worker 0 times all threads
/// together. After each repetition worker 0 calls more(repetitionIndex, seconds); false ends the run.
/// Returns the best repetition time (s), at least kMinSeconds, or +inf when nothing ran.
template <class Setup, class Kernel, class More>
double runRepeated(int threads, Setup &&setup, Kernel &&kernel, More &&more)
{
    std::barrier sync(threads);
    std::atomic<bool> stop{false};
    double best = std::numeric_limits<double>::infinity();
    auto body = [&](int t) {
        setup(t);
        for (int rep = 0;; ++rep) {
            sync.arrive_and_wait();
            const auto t0 = Clock::now();
            kernel(t);
            sync.arrive_and_wait();
            if (t == 0) {
                const double s = std::max(kMinSeconds, secondsBetween(t0, Clock::now()));
                best = std::min(best, s);
                stop.store(!more(rep, s), std::memory_order_relaxed);
            }
            sync.arrive_and_wait();
            if (stop.load(std::memory_order_relaxed))
                break;
        }
    };
    {
        std::vector<std::jthread> workers;
        workers.reserve(static_cast<std::size_t>(threads - 1));
        for (int t = 1; t < threads; ++t)
            workers.emplace_back(body, t);
        body(0);
    } // joins
    return best;
}

/// The repetition policy of every point: report progress; stop on cancel, or at `deadline` once `minReps`
/// repetitions ran (a best-of-few is less exposed to other load on the machine), or after kMaxReps.
auto repeatPolicy(Session &session, std::string_view stage, Clock::time_point deadline, int minReps = 3)
{
    return [&session, stage, deadline, minReps](int rep, double) {
        if (!session.report(stage))
            return false;
        const int done = rep + 1;
        return done < kMaxReps && (done < minReps || Clock::now() < deadline);
    };
}

// ---------------------------------------------------------------------------------------------------------------
// Triad

constexpr std::size_t kTriadBlock = 64; ///< elements per inner block (a multiple of every vector width)

/// a = b + s c over n doubles (n a multiple of kTriadBlock, a 16-byte aligned). On x86-64 the stores are
/// non-temporal: they bypass the caches, so no write-allocate read of `a` happens and the counted 3 x 8 B per
/// element is the real traffic (and a cache larger than the arrays cannot absorb the writes).
void triadSlice(double *MEMWALL_RESTRICT a, const double *MEMWALL_RESTRICT b, const double *MEMWALL_RESTRICT c,
                double s, std::size_t n)
{
#if MEMWALL_X86_DISPATCH
    const __m128d vs = _mm_set1_pd(s);
    for (std::size_t i = 0; i < n; i += kTriadBlock)
        for (std::size_t k = 0; k < kTriadBlock; k += 2)
            _mm_stream_pd(a + i + k, _mm_add_pd(_mm_load_pd(b + i + k), _mm_mul_pd(vs, _mm_load_pd(c + i + k))));
    _mm_sfence();
#else
    for (std::size_t i = 0; i < n; i += kTriadBlock)
        for (std::size_t k = 0; k < kTriadBlock; ++k)
            a[i + k] = b[i + k] + s * c[i + k];
#endif
}

// ---------------------------------------------------------------------------------------------------------------
// Matrix-vector (FP32, row-major, n a multiple of 16)

float dot(const float *MEMWALL_RESTRICT row, const float *MEMWALL_RESTRICT x, std::size_t n)
{
    constexpr std::size_t lanes = 16;
    float acc[lanes] = {};
    for (std::size_t j = 0; j < n; j += lanes)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
        for (std::size_t k = 0; k < lanes; ++k)
            acc[k] += row[j + k] * x[j + k];
    float sum = 0.0f;
    for (float v : acc)
        sum += v;
    return sum;
}

void matvecRows(const float *a, const float *x, float *y, std::size_t r0, std::size_t r1, std::size_t n)
{
    for (std::size_t r = r0; r < r1; ++r)
        y[r] = dot(a + r * n, x, n);
}

// ---------------------------------------------------------------------------------------------------------------
// Matrix-matrix (FP32, square, row-major): C = A B, B packed in KC x NR panels, MR x NR register-blocked kernel.

constexpr std::size_t kKc = 256; ///< depth of one packed slab of B

template <bool Fma>
MEMWALL_INLINE float madd(float a, float b, float c)
{
    if constexpr (Fma)
        return __builtin_fmaf(a, b, c);
    else
        return c + a * b;
}

/// acc(MR x NR) = A(MR x kc, row stride lda) * Bpanel(kc x NR, contiguous); C += acc.
template <std::size_t MR, std::size_t NR, bool Fma>
MEMWALL_INLINE void microKernel(std::size_t kc, const float *MEMWALL_RESTRICT a, std::size_t lda,
                                const float *MEMWALL_RESTRICT bp, float *MEMWALL_RESTRICT c, std::size_t ldc)
{
    float acc[MR][NR] = {};
    for (std::size_t k = 0; k < kc; ++k) {
        const float *b = bp + k * NR;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
        for (std::size_t i = 0; i < MR; ++i) {
            const float av = a[i * lda + k];
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 32
#endif
            for (std::size_t j = 0; j < NR; ++j)
                acc[i][j] = madd<Fma>(av, b[j], acc[i][j]);
        }
    }
    for (std::size_t i = 0; i < MR; ++i)
        for (std::size_t j = 0; j < NR; ++j)
            c[i * ldc + j] += acc[i][j];
}

/// Rows [r0, r1) of C = A B (n x n); `pack` holds kKc x n floats. n must be a multiple of NR and of kKc or
/// smaller than kKc; r1 - r0 a multiple of MR.
template <std::size_t MR, std::size_t NR, bool Fma>
MEMWALL_INLINE void gemmRowsImpl(const float *a, const float *b, float *c, float *pack, std::size_t n, std::size_t r0,
                                 std::size_t r1)
{
    for (std::size_t r = r0; r < r1; ++r)
        std::fill(c + r * n, c + (r + 1) * n, 0.0f);
    for (std::size_t p0 = 0; p0 < n; p0 += kKc) {
        const std::size_t kc = std::min(kKc, n - p0);
        // Pack B[p0 .. p0+kc) x [0 .. n) as n/NR panels of kc x NR.
        for (std::size_t j0 = 0; j0 < n; j0 += NR) {
            float *dst = pack + j0 * kc;
            for (std::size_t k = 0; k < kc; ++k)
                for (std::size_t j = 0; j < NR; ++j)
                    dst[k * NR + j] = b[(p0 + k) * n + j0 + j];
        }
        for (std::size_t j0 = 0; j0 < n; j0 += NR)
            for (std::size_t i = r0; i < r1; i += MR)
                microKernel<MR, NR, Fma>(kc, a + i * n + p0, n, pack + j0 * kc, c + i * n + j0, n);
    }
}

/// Micro-kernel shapes: the accumulators must fit the 16 vector registers of SSE2 / AVX2.
constexpr std::size_t kMr = 4;
constexpr std::size_t kNrSse = 8;
constexpr std::size_t kNrAvx = 16;

void gemmRowsGeneric(const float *a, const float *b, float *c, float *pack, std::size_t n, std::size_t r0,
                     std::size_t r1)
{
    gemmRowsImpl<kMr, kNrSse, false>(a, b, c, pack, n, r0, r1);
}

#if MEMWALL_X86_DISPATCH
MEMWALL_TARGET_AVX2 void gemmRowsAvx2(const float *a, const float *b, float *c, float *pack, std::size_t n,
                                      std::size_t r0, std::size_t r1)
{
    gemmRowsImpl<kMr, kNrAvx, true>(a, b, c, pack, n, r0, r1);
}

bool haveAvx2Fma()
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

using GemmRowsFn = void (*)(const float *, const float *, float *, float *, std::size_t, std::size_t, std::size_t);

GemmRowsFn selectGemm()
{
#if MEMWALL_X86_DISPATCH
    if (haveAvx2Fma())
        return &gemmRowsAvx2;
#endif
    return &gemmRowsGeneric;
}

// ---------------------------------------------------------------------------------------------------------------
// Stages

/// Stage shares of the budget (cumulative ends).
constexpr double kBandwidthEnd = 0.30;
constexpr double kMatvecEnd = 0.55;
constexpr double kGemmEnd = 1.0;

/// One large buffer shared by the triad and the matrix-vector stage, allocated and first-touched once (page
/// faults are expensive; touching it twice would eat the budget). Worker t owns the contiguous chunk t: its triad
/// slices of a, b and c and its block of matrix rows all lie in that chunk, first-touched by worker t.
class MemoryArena
{
public:
    static constexpr std::size_t kAlign = 4096;

    MemoryArena(std::size_t totalBytes, int threads)
        : m_threads(threads),
          m_chunkBytes(std::max(kAlign, totalBytes / static_cast<std::size_t>(threads) / kAlign * kAlign)),
          m_data(static_cast<std::byte *>(
              ::operator new (m_chunkBytes *static_cast<std::size_t>(threads), std::align_val_t{kAlign})))
    {
    }
    ~MemoryArena() { ::operator delete (m_data, std::align_val_t{kAlign}); }
    MemoryArena(const MemoryArena &) = delete;
    MemoryArena &operator=(const MemoryArena &) = delete;

    std::size_t chunkBytes() const { return m_chunkBytes; }
    std::size_t totalBytes() const { return m_chunkBytes * static_cast<std::size_t>(m_threads); }
    std::byte *chunk(int t) const { return m_data + m_chunkBytes * static_cast<std::size_t>(t); }
    /// The chunk of worker t viewed as `count` objects of T (implicit-lifetime types only).
    template <class T>
    T *as(int t) const
    {
        return reinterpret_cast<T *>(chunk(t));
    }

private:
    int m_threads;
    std::size_t m_chunkBytes;
    std::byte *m_data;
};

void measureBandwidth(Session &session, int threads, MemoryArena &arena, MeasureResult &result)
{
    if (!session.report("bandwidth", true))
        return;
    // Per worker: a, b, c of n doubles each, back to back in its chunk (each a multiple of kTriadBlock long).
    const std::size_t n = arena.chunkBytes() / (3 * sizeof(double)) / kTriadBlock * kTriadBlock;
    const double scalar = 3.0;
    auto setup = [&](int t) {
        // First touch of the chunk by its owner (the matrix-vector stage reuses it).
        double *a = arena.as<double>(t);
        std::fill(a, a + n, 0.0);
        std::fill(a + n, a + 2 * n, 1.0);
        std::fill(a + 2 * n, a + 3 * n, 2.0);
    };
    auto kernel = [&](int t) {
        double *a = arena.as<double>(t);
        triadSlice(a, a + n, a + 2 * n, scalar, n);
    };
    const double best =
        runRepeated(threads, setup, kernel, repeatPolicy(session, "bandwidth", session.deadline(kBandwidthEnd), 5));
    if (std::isfinite(best))
        result.memoryBandwidthBytesPerS =
            3.0 * sizeof(double) * static_cast<double>(n) * static_cast<double>(threads) / best;
}

void measureMatvec(Session &session, int threads, MemoryArena &arena, MeasureResult &result)
{
    // Three matrices of 1/2, 3/4 and all of the arena, all with kMatvecCols columns; worker t's block of rows is
    // the start of its own chunk. The intensity rises slightly with the row count (x and y are counted once).
    const std::size_t n = kMatvecCols;
    const double fractions[] = {0.5, 0.75, 1.0};
    const auto stageDeadline = session.deadline(kMatvecEnd);
    std::vector<float> x(n);
    for (std::size_t j = 0; j < n; ++j)
        x[j] = 1.0f + static_cast<float>(j % 7) * 0.125f;
    const std::size_t maxRows = arena.chunkBytes() / (n * sizeof(float));
    std::vector<std::vector<float>> ys(static_cast<std::size_t>(threads),
                                       std::vector<float>(std::max<std::size_t>(maxRows, 1)));
    bool filled = false;
    for (std::size_t s = 0; s < std::size(fractions); ++s) {
        if (!session.report("matrix-vector", true))
            return;
        const auto rows =
            std::max<std::size_t>(1, static_cast<std::size_t>(fractions[s] * static_cast<double>(maxRows)));
        if (rows > maxRows)
            break;
        auto setup = [&](int t) {
            if (filled)
                return;
            float *a = arena.as<float>(t);
            for (std::size_t r = 0; r < maxRows; ++r)
                std::fill(a + r * n, a + (r + 1) * n, 0.5f + static_cast<float>(r % 3) * 0.25f);
        };
        auto kernel = [&](int t) {
            matvecRows(arena.as<float>(t), x.data(), ys[static_cast<std::size_t>(t)].data(), 0, rows, n);
        };
        // Share the remaining stage time equally among the remaining sizes.
        const auto now = Clock::now();
        const auto left = std::max(Clock::duration::zero(), stageDeadline - now);
        const auto deadline = now + left / static_cast<long>(std::size(fractions) - s);
        const double best = runRepeated(threads, setup, kernel, repeatPolicy(session, "matrix-vector", deadline));
        filled = true;
        if (!std::isfinite(best) || !(ys[0][0] > 0.0f))
            continue; // reading y also keeps the computation observable
        const std::size_t m = rows * static_cast<std::size_t>(threads);
        MeasuredKernel k;
        k.name = "matvec-" + std::to_string(m) + "x" + std::to_string(n);
        k.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n);
        k.bytes = sizeof(float) * (static_cast<double>(m) * static_cast<double>(n) + static_cast<double>(m + n));
        k.seconds = best;
        result.points.push_back(std::move(k));
    }
}

void measureGemm(Session &session, int threads, MeasureResult &result)
{
    const GemmRowsFn gemmRows = selectGemm();
    const std::size_t sizes[] = {128, 256, 512, 1024};
    const auto stageDeadline = session.deadline(kGemmEnd);
    for (std::size_t s = 0; s < std::size(sizes); ++s) {
        if (!session.report("matrix-matrix", true))
            return;
        const std::size_t n = sizes[s];
        const std::size_t nn = n * n;
        std::unique_ptr<float[]> a(new float[nn]);
        std::unique_ptr<float[]> b(new float[nn]);
        std::unique_ptr<float[]> c(new float[nn]);
        std::vector<std::unique_ptr<float[]>> packs(static_cast<std::size_t>(threads));
        auto setup = [&](int t) {
            const auto [r0, r1] = slice(n, threads, t, kMr);
            for (std::size_t i = r0 * n; i < r1 * n; ++i) {
                a[i] = 0.5f + static_cast<float>(i % 5) * 0.125f;
                b[i] = 0.25f + static_cast<float>(i % 3) * 0.125f;
                c[i] = 0.0f;
            }
            auto &pack = packs[static_cast<std::size_t>(t)];
            pack.reset(new float[kKc * n]);
            std::fill(pack.get(), pack.get() + kKc * n, 0.0f);
        };
        auto kernel = [&](int t) {
            const auto [r0, r1] = slice(n, threads, t, kMr);
            gemmRows(a.get(), b.get(), c.get(), packs[static_cast<std::size_t>(t)].get(), n, r0, r1);
        };
        const auto now = Clock::now();
        const auto left = std::max(Clock::duration::zero(), stageDeadline - now);
        // Larger sizes get a larger share: weights 1, 1, 2, 3 of what is left.
        const double weights[] = {1.0, 1.0, 2.0, 3.0};
        double rest = 0.0;
        for (std::size_t r = s; r < std::size(sizes); ++r)
            rest += weights[r];
        const auto deadline = now + std::chrono::duration_cast<Clock::duration>(left * (weights[s] / rest));
        const double best = runRepeated(threads, setup, kernel, repeatPolicy(session, "matrix-matrix", deadline));
        if (!std::isfinite(best) || !(c[0] > 0.0f))
            continue;
        MeasuredKernel k;
        k.name = "gemm-" + std::to_string(n);
        k.flops = 2.0 * static_cast<double>(n) * static_cast<double>(nn);
        k.bytes = 3.0 * sizeof(float) * static_cast<double>(nn);
        k.seconds = best;
        result.peakFlops = std::max(result.peakFlops, k.flopsPerS());
        result.points.push_back(std::move(k));
    }
}

std::string today()
{
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
#if defined(_WIN32)
    gmtime_s(&tm, &now);
#else
    gmtime_r(&now, &tm);
#endif
    char buf[48];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    return buf;
}

double physicalMemoryBytes()
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGE_SIZE)
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && pageSize > 0)
        return static_cast<double>(pages) * static_cast<double>(pageSize);
#endif
    return 0.0;
}

} // namespace

MeasureResult measureMachine(const MeasureOptions &options, const MeasureProgress &progress)
{
    MeasureResult result;
    int threads = options.threads;
    if (threads <= 0)
        threads = static_cast<int>(std::thread::hardware_concurrency());
    threads = std::clamp(threads, 1, 1024);
    result.threads = threads;

    const double budget = std::isfinite(options.budgetSeconds) && options.budgetSeconds > 0.0
                              ? options.budgetSeconds
                              : MeasureOptions{}.budgetSeconds;
    const std::size_t bandwidthBytes =
        std::max(kMinBandwidthBytes, options.bandwidthBytes == 0 ? kDefaultBandwidthBytes : options.bandwidthBytes);

    Session session(budget, progress);
    {
        MemoryArena arena(bandwidthBytes, threads);
        measureBandwidth(session, threads, arena, result);
        if (!session.cancelled())
            measureMatvec(session, threads, arena, result);
    }
    if (!session.cancelled())
        measureGemm(session, threads, result);

    result.cancelled = session.cancelled();
    result.elapsedS = session.elapsed();
    session.finish();
    return result;
}

nlohmann::json toJson(const MeasureResult &result)
{
    nlohmann::json points = nlohmann::json::array();
    for (const MeasuredKernel &k : result.points)
        points.push_back({{"name", k.name},
                          {"arithmetic_intensity", k.arithmeticIntensity()},
                          {"flops_per_s", k.flopsPerS()},
                          {"flops", k.flops},
                          {"bytes", k.bytes},
                          {"seconds", k.seconds}});
    return {{"memory_bandwidth_bytes_per_s", result.memoryBandwidthBytesPerS},
            {"peak_flops", result.peakFlops},
            {"points", std::move(points)},
            {"threads", result.threads},
            {"elapsed_s", result.elapsedS},
            {"cancelled", result.cancelled}};
}

HardwareSpec measuredDevice(const MeasureResult &result)
{
    const std::string date = today();
    const std::string source = "measured by memwall measure on " + date;
    HardwareSpec hw;
    hw.id = "this-computer";
    hw.name = "This computer (measured)";
    hw.vendor = "";
    hw.category = "cpu";
    hw.year = Sourced{static_cast<double>(std::stoi(date.substr(0, 4))), source};
    hw.peakFlops[index(DType::FP32)] = Sourced{result.peakFlops, source};
    MemoryLevel dram;
    dram.name = "DRAM";
    dram.kind = MemoryKind::Dram;
    dram.capacityBytes = Sourced{physicalMemoryBytes(), source};
    dram.bandwidthBytesPerS = Sourced{result.memoryBandwidthBytesPerS, source};
    hw.memory.push_back(std::move(dram));
    hw.notes = "Measured roofline with " + std::to_string(result.threads) +
               " threads: FP32 peak = best blocked matrix-matrix rate, bandwidth = best STREAM-style triad "
               "(write-allocate traffic not counted).";
    return hw;
}

} // namespace memwall::core
