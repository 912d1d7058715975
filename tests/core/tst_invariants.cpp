// Invariants of core::analyze() over a grid: every hardware preset x 25 models, one or more of every family (kModels)
// x every phase x batch {1, 8,
// 256} x precision {fp16, int8, int4/g128 weights, fp8 KV} x tp {1, 2, 8} x pp {1, 4}, at ideal efficiency (the pure
// roofline).
//
// What holds for every combination that can be analysed (the rest must throw AnalysisError, nothing else):
// - no NaN or infinity anywhere: operators, totals, memory, KV cache, communication;
// - every operator takes positive time; FLOPs and bytes are never negative; the totals' bytes and time are positive;
// - the operators add up to the totals (relative 1e-9): FLOPs, bytes, and time + communication time;
// - the ideal roofline never beats the device: an operator's FLOP/s (flops / time) is at most the device's peak for
//   the format it computes in, and its bytes / time at most the main-memory bandwidth (so FLOP/s <= intensity x
//   bandwidth);
// - more devices never need more memory per device: footprint(tp = 8) <= footprint(tp = 2) <= footprint(tp = 1);
// - decode never gets faster when the context grows (128 -> 1024 -> 8192 -> 32768 cached tokens);
// - analyzeTotals() gives the same figures as analyze(), without the operator list.

#include "core/analysis/analysis.h"
#include "core/io/analysisjson.h"
#include "core/io/presets.h"

#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

namespace memwall::core {

namespace {

// Every family: dense GQA/MQA/MHA decoders, MoE, encoders (text and image), learned positions, sliding and chunked
// windows and layer patterns, latent attention (MLA) with dense first layers and MTP, state-space models and
// hybrids (Nemotron-3 with expert layers), Gated DeltaNet, Kimi Delta Attention beside MLA without positions
// (Kimi-Linear), the MoE families of issue #38 (GLM-4.5 with MTP), sparse latent attention (a lightning indexer), the
// multimodal wrappers (a vision tower), Gemma 4 (global layers of their own head size and KV heads, the MoE block
// beside a dense MLP), Gemma 3n (AltUp, LAuReL, the gate's top-k; tp > 1 refused) and heterogeneous layers (DeciLM:
// layers without attention and an FFN width per layer) and Step-3.5 (global layers first, with query heads of their
// own, and a gate per head).
// clang-format off
const char *const kModels[] = {
    "llama-2-70b",    "llama-3-8b",     "mixtral-8x7b", "bert-base-uncased", "gpt2",         "falcon-7b",
    "mistral-7b",     "gemma-2b",       "opt-13b",      "qwen3-5-397b-a17b", "deepseek-v3",  "mamba2-2-7b",
    "jamba-1-5-mini", "nemotron-h-56b", "gemma-3-1b",   "llama-4-scout",     "gpt-oss-120b", "vit-large-patch32-224",
    "minimax-m2.5",   "mimo-7b",        "glm-4.5-air",  "nemotron-3-nano-30b", "command-r7b",
    "deepseek-v3.2",  "glm-5",          "gemma-3-27b",  "qwen3-vl-8b",  "kimi-linear-48b-a3b",
    "gemma-4-26b-a4b", "gemma-4-31b", "gemma-4-e2b", "llama-3.3-nemotron-super-49b", "gemma-3n-e2b",
    "step-3.5-flash"};
// clang-format on
constexpr Phase kPhases[] = {Phase::Prefill, Phase::Decode, Phase::Generate, Phase::Encode, Phase::Train};
constexpr int64_t kBatches[] = {1, 8, 256};
constexpr int kTps[] = {1, 2, 8};
constexpr int kPps[] = {1, 4};

struct Precision
{
    const char *name;
    WeightFormat weights;
    DType kv;
};
const Precision kPrecisions[] = {
    {"fp16", {DType::FP16, 0, DType::FP16}, DType::FP16},
    {"int8", {DType::INT8, 0, DType::FP16}, DType::FP16},
    {"int4/g128", {DType::INT4, 128, DType::FP16}, DType::FP16},
    {"fp16+kv-fp8", {DType::FP16, 0, DType::FP16}, DType::FP8},
};

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

/// Collects failures (capped) so one run reports many at once.
struct Failures
{
    QStringList list;
    int count = 0;
    void add(const std::string &where, const std::string &what)
    {
        if (++count <= 25)
            list << QString::fromStdString(where + ": " + what);
    }
    QByteArray report() const
    {
        return (QString::number(count) + " failures, first ones:\n  " + list.join("\n  ")).toUtf8();
    }
};

std::string describe(const HardwareSpec &hw, const ModelShape &m, const Scenario &s)
{
    return hw.id + " " + m.id + " " + std::string(toString(s.phase)) + " batch " + std::to_string(s.batch) + " " +
           toString(s.weights) + " kv " + std::string(toString(s.kv)) + " tp " + std::to_string(s.tp) + " pp " +
           std::to_string(s.pp);
}

/// Checks one analysis; returns false if it had to be skipped.
void checkAnalysis(const HardwareSpec &hw, const Scenario &s, const Analysis &a, const std::string &where, Failures &f)
{
    auto finite = [&](const char *what, double v) {
        if (!std::isfinite(v))
            f.add(where, std::string(what) + " is " + std::to_string(v));
    };
    double flops = 0, bytes = 0, time = 0;
    const double bw = hw.mainMemory().bandwidthBytesPerS.value;
    for (const Operator &op : a.operators) {
        const std::string name(op.name);
        for (auto [what, v] : {std::pair{"flops", op.flops},
                               {"bytes", op.bytes()},
                               {"time", op.timeS},
                               {"count", op.count},
                               {"weight bytes", op.weightBytes},
                               {"activation bytes", op.activationBytes},
                               {"kv bytes", op.kvBytes}})
            finite((name + " " + what).c_str(), v);
        if (!(op.timeS > 0))
            f.add(where, name + ": time " + std::to_string(op.timeS) + " is not positive");
        if (op.flops < 0 || op.weightBytes < 0 || op.activationBytes < 0 || op.kvBytes < 0)
            f.add(where, name + ": negative flops or bytes");
        if (op.timeS > 0) {
            const double peak = hw.peak(op.computeType);
            if (op.flops / op.timeS > peak * (1 + 1e-12))
                f.add(where, name + ": " + std::to_string(op.flops / op.timeS) + " FLOP/s beats the " +
                                 std::string(toString(op.computeType)) + " peak " + std::to_string(peak));
            if (op.bytes() / op.timeS > bw * (1 + 1e-12))
                f.add(where, name + ": " + std::to_string(op.bytes() / op.timeS) + " B/s beats the bandwidth " +
                                 std::to_string(bw));
        }
        flops += op.flops;
        bytes += op.bytes();
        time += op.timeS;
    }
    const Totals &t = a.totals;
    for (auto [what, v] : {std::pair{"totals.flops", t.flops},
                           {"totals.bytes", t.bytes},
                           {"totals.time", t.timeS},
                           {"totals.intensity", t.intensity},
                           {"totals.tokens/s", t.tokensPerS},
                           {"totals.model flops", t.modelFlops},
                           {"totals.achieved", t.achievedFlopsPerS},
                           {"memory.weights", a.memory.weights},
                           {"memory.kv", a.memory.kv},
                           {"memory.activations", a.memory.activations},
                           {"memory.gradients", a.memory.gradients},
                           {"memory.optimizer", a.memory.optimizer},
                           {"memory.total", a.memory.total()},
                           {"kv.per token", a.kvCache.bytesPerToken},
                           {"kv.total", a.kvCache.totalBytes},
                           {"comm.bytes", a.comm.bytes},
                           {"comm.time", a.comm.timeS},
                           {"phases.ttft", a.phases.ttftS},
                           {"phases.tpot", a.phases.tpotS},
                           {"phases.e2e", a.phases.e2eS},
                           {"weight bytes", a.weightBytes},
                           {"ridge", a.ridge}})
        finite(what, v);
    if (!(t.timeS > 0) || !(t.bytes > 0) || !(t.flops > 0) || !(a.memory.total() > 0))
        f.add(where, "totals or memory not positive");
    if (!close(flops, t.flops))
        f.add(where, "operator FLOPs " + std::to_string(flops) + " != totals " + std::to_string(t.flops));
    if (!close(bytes, t.bytes))
        f.add(where, "operator bytes " + std::to_string(bytes) + " != totals " + std::to_string(t.bytes));
    if (!close(time + a.comm.timeS, t.timeS))
        f.add(where,
              "operator time + comm " + std::to_string(time + a.comm.timeS) + " != totals " + std::to_string(t.timeS));
    if (s.tp == 1 && s.pp == 1 && a.comm.timeS != 0)
        f.add(where, "communication on one device");
}

} // namespace

class TestInvariants : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void grid();
    void decodeSlowsAsContextGrows();

private:
    PresetLibrary m_lib;
    std::vector<const ModelShape *> m_models;
};

void TestInvariants::initTestCase()
{
    m_lib.loadBuiltin();
    QVERIFY(m_lib.issues().empty());
    QVERIFY(m_lib.hardware().size() >= 18);
    for (const char *id : kModels) {
        const ModelPreset *p = m_lib.findModel(id);
        QVERIFY2(p, id);
        m_models.push_back(&p->shape);
    }
}

void TestInvariants::grid()
{
    Failures f;
    int analysed = 0, refused = 0;
    for (const HardwareSpec &hw : m_lib.hardware()) {
        for (const ModelShape *m : m_models) {
            for (Phase phase : kPhases) {
                for (int64_t batch : kBatches) {
                    for (const Precision &prec : kPrecisions) {
                        for (int pp : kPps) {
                            double previousMemory = -1; // footprint at the previous (smaller) tp
                            for (int tp : kTps) {
                                Scenario s;
                                s.phase = phase;
                                s.batch = batch;
                                s.weights = prec.weights;
                                s.kv = prec.kv;
                                s.tp = tp;
                                s.pp = pp;
                                // A model with a vision tower runs it on one image a request where images apply.
                                if (m->vision.present() && phase != Phase::Train && phase != Phase::Encode)
                                    s.images = 1;
                                const std::string where = describe(hw, *m, s);
                                try {
                                    const Analysis a = analyze(hw, *m, s);
                                    ++analysed;
                                    checkAnalysis(hw, s, a, where, f);
                                    // The totals-only analysis (sweeps, search) is the same one without operators.
                                    const Analysis t = analyzeTotals(hw, *m, s);
                                    if (!t.operators.empty() || t.totals.timeS != a.totals.timeS ||
                                        t.totals.flops != a.totals.flops || t.totals.bytes != a.totals.bytes ||
                                        t.totals.tokensPerS != a.totals.tokensPerS ||
                                        t.totals.linearBound != a.totals.linearBound ||
                                        t.phases.ttftS != a.phases.ttftS || t.phases.tpotS != a.phases.tpotS ||
                                        t.memory.total() != a.memory.total() || t.comm.timeS != a.comm.timeS ||
                                        t.kvCache.totalBytes != a.kvCache.totalBytes)
                                        f.add(where, "analyzeTotals() differs from analyze()");
                                    const double mem = a.memory.total();
                                    if (previousMemory >= 0 && mem > previousMemory * (1 + 1e-12))
                                        f.add(where, "per-device memory " + std::to_string(mem) +
                                                         " exceeds the smaller tp's " + std::to_string(previousMemory));
                                    previousMemory = mem;
                                } catch (const AnalysisError &) {
                                    ++refused;
                                    // Not analysable at this tp: compare the next tp with the last that was.
                                } catch (const std::exception &e) {
                                    f.add(where, std::string("threw a non-AnalysisError: ") + e.what());
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    qInfo("%d combinations analysed, %d refused with AnalysisError", analysed, refused);
    QVERIFY(analysed > 10000);
    QVERIFY2(f.count == 0, f.report().constData());
}

void TestInvariants::decodeSlowsAsContextGrows()
{
    Failures f;
    for (const HardwareSpec &hw : m_lib.hardware()) {
        for (const ModelShape *m : m_models) {
            if (m->arch == Architecture::Encoder)
                continue;
            for (int64_t batch : kBatches) {
                for (const Precision &prec : kPrecisions) {
                    for (int tp : kTps) {
                        for (bool kvCache : {true, false}) {
                            Scenario s;
                            s.phase = Phase::Decode;
                            s.batch = batch;
                            s.weights = prec.weights;
                            s.kv = prec.kv;
                            s.tp = tp;
                            s.kvCache = kvCache;
                            double previous = 0;
                            for (int64_t context : {128, 1024, 8192, 32768}) {
                                s.context = context;
                                try {
                                    const double t = analyze(hw, *m, s).totals.timeS;
                                    if (t < previous)
                                        f.add(describe(hw, *m, s) + " context " + std::to_string(context),
                                              "decode time " + std::to_string(t) + " < " + std::to_string(previous) +
                                                  " at the shorter context");
                                    previous = t;
                                } catch (const AnalysisError &) {
                                    break; // the same for every context (tp not dividing the heads)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    QVERIFY2(f.count == 0, f.report().constData());
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestInvariants)
#include "tst_invariants.moc"
