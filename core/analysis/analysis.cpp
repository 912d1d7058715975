#include "core/analysis/analysis.h"
#include "core/analysis/footprint.h"
#include "core/analysis/options.h"
#include "core/analysis/passcontext.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace memwall::core {

std::string_view toString(OpClass c)
{
    switch (c) {
    case OpClass::Matmul: return "matmul";
    case OpClass::Attention: return "attention";
    case OpClass::Normalization: return "normalization";
    case OpClass::Elementwise: return "elementwise";
    case OpClass::Communication: return "communication";
    }
    return "?";
}

std::string_view toString(Bound b)
{
    switch (b) {
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Communication: return "communication";
    }
    return "?";
}

std::string_view toString(FlopName n)
{
    switch (n) {
    case FlopName::None: return "";
    case FlopName::AttendedTokens: return "attended tokens";
    case FlopName::BiasAddsAndSharedExpertAdd: return "bias adds + the shared expert's gated add (2 × tokens × hidden)";
    case FlopName::BiasAddsPatchesHidden: return "bias adds (patches × hidden)";
    case FlopName::BiasAddsSequencesHidden: return "bias adds (sequences × hidden)";
    case FlopName::BiasAddsTokensFfnWidth: return "bias adds (tokens × ffn width)";
    case FlopName::BiasAddsTokensHidden: return "bias adds (tokens × hidden)";
    case FlopName::BiasAddsLogits: return "bias adds (tokens with logits × vocabulary share)";
    case FlopName::BiasAddsTokensOutputs: return "bias adds (tokens × outputs)";
    case FlopName::CausalPairsWithinChunks: return "causal pairs within chunks";
    case FlopName::ChunkStates: return "chunk states (tokens × d_inner × (4 × d_state + 2))";
    case FlopName::ConvolvedChannels: return "convolved channels";
    case FlopName::DInner: return "d_inner";
    case FlopName::DecayAndBetaGates:
        return "decay and beta gates (11 × tokens × value heads: softplus 4, bias 1, exp and product 2, sigmoid 4)";
    case FlopName::ChannelDecayAndBetaGates:
        return "decay per channel and beta gates (7 × tokens × value width: softplus 4, bias 1, exp and product 2; "
               "+ 4 × tokens × value heads: sigmoid)";
    case FlopName::DtBiasAndSoftplus: return "bias and softplus (5 × tokens × d_inner)";
    case FlopName::DtRank: return "dt_rank";
    case FlopName::DtRankAnd2DState: return "dt_rank + 2 × d_state";
    case FlopName::EmbeddingAdds: return "adds per element (learned positions, token types)";
    case FlopName::FfnWidth: return "ffn width";
    case FlopName::HeadDim: return "head_dim";
    case FlopName::Heads: return "heads";
    case FlopName::HeadsAndSharedKey: return "heads + the shared key";
    case FlopName::HeadsTimesNopeAndV: return "heads × (qk_nope + v head dims)";
    case FlopName::Hidden: return "hidden";
    case FlopName::IndexHeadDim: return "index_head_dim";
    case FlopName::IndexHeads: return "indexer heads";
    case FlopName::IndexHeadsAndKey: return "indexer heads + the indexer key";
    case FlopName::Inputs: return "inputs";
    case FlopName::KvLoraRank: return "kv_lora_rank";
    case FlopName::LatentAndRope: return "latent + rope width";
    case FlopName::Outputs: return "outputs";
    case FlopName::ParametersOnThisDevice: return "parameters on this device";
    case FlopName::PatchInputs: return "values per patch (channels × patch²)";
    case FlopName::Patches: return "patches (tokens less each image's class token)";
    case FlopName::PerChannelConv: return "FLOPs per channel (2 × d_conv + bias + SiLU 4)";
    case FlopName::PerChannelConvNoBias: return "FLOPs per channel (2 × d_conv + SiLU 4)";
    case FlopName::PerHeadChunkedScan:
        return "FLOPs per value head and token (chunk C: 2 × (C × (3 d_k + 2 d_v) + C²/3 + 3 d_k d_v))";
    case FlopName::PerHeadRecurrentUpdate: return "FLOPs per value head and token (7 × d_k × d_v + 2 × d_v)";
    case FlopName::PerIndexerScore: return "FLOPs per head and pair (ReLU 1, head weight multiply-add 2)";
    case FlopName::PerIndexerTopk: return "compares per score (log2 index_topk: a heap of top_k)";
    case FlopName::PerChannelScan: return "FLOPs per channel (5 × d_state + 2)";
    case FlopName::PerChunkPair: return "FLOPs per pair (2 × d_state × groups + 2 × d_inner + heads)";
    case FlopName::PerElementActivation: return "FLOPs per element (activation)";
    case FlopName::PerElementAdd: return "FLOPs per element (add)";
    case FlopName::PerElementGate: return "FLOPs per element (SiLU 4 + product)";
    case FlopName::PerElementGatedActivation: return "FLOPs per element (activation + gate product)";
    case FlopName::PerElementGatedNorm: return "FLOPs per element (gate 5 + RMSNorm 4)";
    case FlopName::PerElementL2Norm: return "FLOPs per element (L2 norm: square and sum 2, scale 1)";
    case FlopName::PerElementSigmoidGate: return "FLOPs per element (sigmoid 4 + product)";
    case FlopName::PerElementLayerNorm: return "FLOPs per element (LayerNorm)";
    case FlopName::PerElementRmsNorm: return "FLOPs per element (RMSNorm)";
    case FlopName::PerMultiplyAccumulate: return "FLOPs per multiply-accumulate";
    case FlopName::PerParameterAdam: return "FLOPs per parameter (Adam)";
    case FlopName::PerParameterSgd: return "FLOPs per parameter (SGD)";
    case FlopName::PerRotatedElement: return "FLOPs per rotated element";
    case FlopName::PerScoreSoftmax: return "FLOPs per score (softmax)";
    case FlopName::PerScoreSoftcap: return "FLOPs per score (soft-cap: divide, tanh, multiply)";
    case FlopName::PerRouterScore:
        return "operations per router score (softmax 5, or sigmoid 3 + bias 1; log2 top-k compares)";
    case FlopName::RoutedCopies: return "routed token copies (tokens × top-k)";
    case FlopName::PerElementWeightedAdd: return "FLOPs per element (router weight multiply + add)";
    case FlopName::PerLogitSoftcap: return "FLOPs per logit (soft-cap: divide, tanh, multiply)";
    case FlopName::QAndKWidths: return "q and k widths";
    case FlopName::QWidth: return "q width (heads × head_dim)";
    case FlopName::KvWidth: return "k (or v) width (KV heads × head_dim)";
    case FlopName::RotatedQAndKWidths: return "rotated share of the q and k widths (partial_rotary_factor)";
    case FlopName::QLoraRank: return "q_lora_rank";
    case FlopName::QkHeadDim: return "qk head dim (nope + rope)";
    case FlopName::QkNopeHeadDim: return "qk_nope_head_dim";
    case FlopName::QkRopeHeadDim: return "qk_rope_head_dim";
    case FlopName::QueryKeyPairsPerHead: return "query-key pairs per head";
    case FlopName::RouterColumns: return "experts (+ the shared expert's gate)";
    case FlopName::Sequences: return "sequences";
    case FlopName::Tokens: return "tokens";
    case FlopName::TokensPaddedToChunks: return "tokens (padded to whole chunks)";
    case FlopName::TokensWithLogits: return "tokens with logits";
    case FlopName::ValueHeads: return "value heads";
    case FlopName::ValueWidth: return "value width (value heads × value head dim)";
    case FlopName::VHeadDim: return "v_head_dim";
    case FlopName::VocabularyShare: return "vocabulary (this device's share)";
    case FlopName::Images: return "images (sequences × images per request)";
    case FlopName::VisionHidden: return "the vision tower's hidden";
    case FlopName::VisionFfnWidth: return "the vision tower's MLP width";
    case FlopName::MergedWidth: return "merged patches' width";
    case FlopName::PerElementScale: return "FLOPs per element (a scale)";
    case FlopName::PerElementScaledSum: return "FLOPs per element (two scales and an add)";
    case FlopName::PerLayerInputWidth: return "per-layer input width";
    case FlopName::AllPerLayerInputs: return "layers x per-layer input width";
    case FlopName::AltupStreams: return "AltUp streams (altup_num_inputs)";
    case FlopName::ExtraAltupStreams: return "AltUp streams less the first";
    case FlopName::LaurelRank: return "laurel_rank";
    case FlopName::PerElementScaledRmsNorm: return "FLOPs per element (RMSNorm 4 + a scale)";
    case FlopName::PerTokenAltupCoefs:
        return "FLOPs per token (2 tanh of n router outputs, prediction coefs 2n^3, correction coefs 2n^2 + n)";
    case FlopName::PerElementAltupPredict:
        return "FLOPs per element (2n multiply-adds over the streams + the input add)";
    case FlopName::PerElementAltupCorrect:
        return "FLOPs per stream element (coefficient multiply-add 2) + per hidden element (innovation 1, output scale "
               "1)";
    case FlopName::PerElementAltupExpand:
        return "FLOPs per element (the first stream's square and sum 2, the others' 3 with the rescale)";
    case FlopName::PerElementAltupCollapse:
        return "FLOPs per element (magnitudes and rescale as in the expand, then the mean over the streams)";
    case FlopName::PerElementTwoAddsScale: return "FLOPs per element (two adds and a scale)";
    case FlopName::PerElementGaussianTopk: return "FLOPs per element (mean 1, std 3, cut and ReLU 2)";
    case FlopName::SigmoidOfHeadGates: return "sigmoid of each head's gate (4 × tokens × heads)";
    }
    return "";
}

double rooflineTime(double flops, double bytes, double peakFlops, double bandwidth)
{
    const double tc = peakFlops > 0 ? flops / peakFlops : 0.0;
    const double tm = bandwidth > 0 ? bytes / bandwidth : 0.0;
    return std::max(tc, tm);
}

double attainable(double intensity, double peakFlops, double bandwidth)
{
    return std::min(peakFlops, intensity * bandwidth);
}

namespace detail {

void refuse(const std::string &msg) { throw AnalysisError(msg); }

void emitOptimizer(Ctx &c, double localParams)
{
    const Scenario &s = c.s;
    const double shard = s.zeroStage >= 1 ? s.dp : 1;
    const double p = localParams / shard;
    const bool adam = s.optimizer == Optimizer::Adam;
    // Adam (mixed precision): read master, m, v, grad; write master, m, v, weight. SGD: master, grad -> master, weight.
    const double rw = adam ? (4 + 4 + 4 + 2) + (4 + 4 + 4 + 2) : (4 + 2) + (4 + 2);
    emitOp(c, "optimizer.step", OpClass::Elementwise, Phase::Train, 1,
           perElement(adam ? kAdamFlopsPerParam : kSgdFlopsPerParam,
                      adam ? FlopName::PerParameterAdam : FlopName::PerParameterSgd, p,
                      FlopName::ParametersOnThisDevice),
           0, rw * p, 0, 1);
}

namespace {

/// One pass of the model: the embeddings (first stage), every layer's mixer (attention, or a state-space layer) and
/// FFN, `p.layerCount` times, and the head (last stage).
void emitPass(Ctx &c, const Pass &p)
{
    const double lc = p.layerCount, L = static_cast<double>(c.m.layers);
    emitEmbeddings(c, p);
    if (c.m.altupInputs > 0 || c.m.laurelRank > 0) // Gemma 3n: AltUp's prediction, and LAuReL beside attention
        emitAltUpPredict(c, p, lc);
    if (c.attnLayers > 0)
        emitAttentionMixer(c, p, lc * c.attnLayers / L);
    if (c.ssmLayers > 0)
        emitSsmMixer(c, p, lc * c.ssmLayers / L);
    if (c.linearLayers > 0)
        emitLinearAttentionMixer(c, p, lc * c.linearLayers / L);
    if (c.ffnLayers > 0) // a state-space model without FFNs (Mamba) has none
        emitFfnBlock(c, p);
    if (c.linearMixerLayers + c.linearFfnLayers > 0)
        emitReplacedParts(c, p);
    if (c.m.altupInputs > 0) // Gemma 3n: AltUp's correction after the FFN, before the per-layer input
        emitAltUpCorrect(c, p, lc);
    if (c.m.perLayerInput > 0) // Gemma 4 E2B/E4B: each layer's per-layer input, after its FFN
        emitPerLayerInput(c, p, lc);
    emitHead(c, p);
}

/// The experts' split (ep, attention_dp, moe_tp, moe_ep) against the model: only a mixture of experts has one, and
/// moe_ep must divide its experts and moe_tp their width.
void checkMoeSplit(const ModelShape &m, const Scenario &s)
{
    if (const std::string e = moeSplitIssue(s); !e.empty())
        refuse(e);
    const bool split = s.ep > 1 || s.attentionDp > 1 || s.moeTp > 0 || s.moeEp > 0;
    if (split && !m.isMoe())
        refuse(std::string(s.ep > 1            ? "ep " + std::to_string(s.ep)
                           : s.attentionDp > 1 ? "attention_dp"
                                               : "moe_tp/moe_ep") +
               " needs a mixture-of-experts model; " + m.id + " is dense" +
               (s.attentionDp > 1 ? " (dp gives replicas that each take a share of the batch)" : ""));
    if (!m.isMoe())
        return;
    if (s.ep > 1 && m.experts % s.ep != 0)
        refuse("ep " + std::to_string(s.ep) + " does not divide the " + std::to_string(m.experts) + " experts of " +
               m.id);
    if (m.experts % moeEp(s) != 0)
        refuse("moe_ep " + std::to_string(moeEp(s)) + " does not divide the " + std::to_string(m.experts) +
               " experts of " + m.id);
    if (m.ffn % moeTp(s) != 0)
        refuse("moe_tp " + std::to_string(moeTp(s)) + " does not divide the experts' width " + std::to_string(m.ffn) +
               " of " + m.id);
}

/// The refusal of a model that fails validate(), or "".
std::string modelIssue(const ModelShape &m)
{
    if (auto e = validate(m); !e.empty())
        return "model " + m.id + ": " + e.message;
    return {};
}

/// Refuses a combination the analysis cannot run, with a one-line message naming the field and value. `prepared`
/// (or nullptr) holds what was checked once for a sweep's points: only what varies is checked again.
void checkCombination(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const PreparedAnalyses *prepared)
{
    const bool othersPass = prepared && prepared->othersPass;
    if (auto e = othersPass ? validateVaried(s, prepared->varied) : validate(s); !e.empty())
        refuse(e);
    if (auto e = prepared ? prepared->modelIssue : modelIssue(m); !e.empty())
        refuse(e);
    if (hw.memory.empty())
        refuse("hardware " + hw.id + " has no memory levels");
    const bool decodeLike = s.phase == Phase::Decode || s.phase == Phase::Generate;
    if (m.arch == Architecture::Encoder && decodeLike)
        refuse(m.id + " is an encoder: it has no " + std::string(toString(s.phase)) + " phase (use --phase encode)");
    if (const std::string e = tensorParallelIssue(m, s.tp); !e.empty())
        refuse(e);
    if (m.layers % s.pp != 0)
        refuse("pp " + std::to_string(s.pp) + " does not divide the " + std::to_string(m.layers) + " layers of " +
               m.id);
    checkMoeSplit(m, s);
}

/// The per-device shapes and byte sizes of `m` under `s`, and the roofs its operators are timed with.
void deriveShapes(Ctx &c)
{
    const ModelShape &m = c.m;
    const Scenario &s = c.s;
    c.h = static_cast<double>(m.hidden);
    c.hq = static_cast<double>(m.heads / s.tp);
    c.attnWidths = AttentionWidths{m.heads, m.kvHeads, m.headDim, true, m.rotaryFraction};
    c.globalWidths = attentionWidths(m, LayerBlock{}); // a global layer's (the same but for Gemma 4's, Step-3.5's)
    useAttentionWidths(c, c.attnWidths);
    // A mixture of experts' `ffn` is its routed experts' width, split by moe_tp; a dense model's by tp.
    c.ffn = static_cast<double>(m.ffn / (m.isMoe() ? moeTp(s) : s.tp));
    c.sharedFfn = static_cast<double>(m.sharedFfn / s.tp);
    c.denseFfn = static_cast<double>(m.denseFfn / s.tp);
    c.kvdWidest = c.kvd;
    for (const LayerGroup &g : c.groups) {
        const double n = static_cast<double>(g.count);
        if (g.block.attends()) { // a layer with its own KV heads (DeciLM) has its own K and V width
            const double kvd = g.block.kvHeads > 0 ? kvHeadsOnDevice(g.block.kvHeads, s.tp) * c.d : c.kvd;
            c.kvdMean += kvd * n;
            c.kvdWidest = std::max(c.kvdWidest, kvd);
        }
        c.ssmLayers += g.block.mixer == LayerMixer::Ssm ? n : 0;
        c.linearLayers += g.block.mixer == LayerMixer::LinearRecurrent ? n : 0;
        c.attnLayers += g.block.attends() ? n : 0;
        c.ffnLayers += g.block.ffn != LayerFfn::None && g.block.ffn != LayerFfn::Linear ? n : 0;
        c.linearMixerLayers += g.block.mixer == LayerMixer::Linear ? n : 0;
        c.linearFfnLayers += g.block.ffn == LayerFfn::Linear ? n : 0;
        c.sparseLayers += g.block.routed() ? n : 0;
        c.besideLayers += g.block.ffn == LayerFfn::DenseAndMoe ? n : 0;
        c.globalLayers += m.global.present() && g.block.mixer == LayerMixer::Attention ? n : 0;
        c.windowedLayers += g.block.attends() && g.block.window > 0 ? n : 0;
        c.sharedFull += g.block.sharesKv && g.block.window == 0 ? n : 0;
        c.sharedWindowed += g.block.sharesKv && g.block.window > 0 ? n : 0;
        c.wideFfnLayers +=
            m.layerBlocks.empty() && g.block.dense() && denseFfnWidth(m, g.block) != (m.isMoe() ? m.denseFfn : m.ffn)
                ? n
                : 0;
    }
    c.kvdMean = c.attnLayers > 0 ? c.kvdMean / c.attnLayers : c.kvd;
    c.act = bytesOf(s.activations);
    c.kvb = bytesOf(s.kv);
    c.stateb = m.stateFormat ? bytesOf(*m.stateFormat) : c.kvb;
    const WeightBytes w = bytesPerWeight(m, s);
    c.wpw = w.weights;
    c.expertWpw = w.experts;
    c.embedWpw = w.embeddings;
    c.flopFactor = 1.0 - s.structuredSparsity;
    c.normW = m.norm == NormKind::LayerNorm && m.normBias ? 2 * c.h : c.h;
    c.layersPerStage = static_cast<double>(m.layers / s.pp);
    c.localExperts = static_cast<double>(m.experts / moeEp(s));
    c.roofs = operatorRoofs(c.hw, s);
    if (!(c.roofs.peakMatmul > 0) || !(c.roofs.bandwidth > 0))
        refuse("hardware " + c.hw.id + " has no usable compute peak or bandwidth");
}

/// Replica and micro-batch sizes, pipeline slots on the critical path, and the request's lengths.
Step stepOf(const Ctx &c, double stepTokens)
{
    const Scenario &s = c.s;
    Step st;
    st.B = static_cast<double>(s.batch / s.dp);
    st.mb = static_cast<double>(s.microBatches);
    // With attention data parallelism each rank runs its own share of the micro-batch (attention, norms, dense and
    // shared FFNs, head); the routed experts see the tokens of all of them (emitMoe()).
    st.Bm = st.B / st.mb / s.attentionDp;
    st.pipelineSlots = st.mb + s.pp - 1; // micro-batches + pipeline fill
    st.layerCount = c.layersPerStage * st.pipelineSlots;
    st.headCount = st.pipelineSlots / s.pp;
    st.seq = static_cast<double>(s.seq);
    st.ctx = static_cast<double>(s.context);
    // Prefix caching: prefill computes only the prompt tokens not already cached (at least the last one, whose logits
    // start generation) and reads the cached prefix's keys and values instead.
    st.prefillNew = std::max(1.0, st.seq * (1.0 - s.promptCacheHitRate));
    st.stepTokens = stepTokens;
    return st;
}

/// The prompt's prefill pass. Causal masking: a fused kernel (FlashAttention) skips the score blocks above the
/// diagonal, so QK^T, softmax and PV run over the unmasked pairs only: T(T + 1)/2 of T^2 for a whole prompt, about
/// half. The bytes stay: Q, K and V are still read once, and the scores never reach memory anyway. Unfused attention
/// multiplies the full score matrix and masks it afterwards, so it keeps the full count. Decode's one query row attends
/// every cached key, and encoders are bidirectional. A training step still counts every pair (the option covers
/// prefill only).
Pass prefillPass(const Ctx &c, const Step &st)
{
    const Scenario &s = c.s;
    Pass p{Phase::Prefill, st.Bm, st.prefillNew, st.seq,      s.kvCache ? st.seq - st.prefillNew : 0.0,
           s.kvCache,      1,     st.layerCount, st.headCount};
    if (s.causal && s.fusedAttention && c.m.arch == Architecture::Decoder)
        p.causalPrefix = st.seq - st.prefillNew;
    return p;
}

/// `count` decode steps at context `context`: each step's new tokens attend the cache and one another (counted in
/// full, T x C pairs) and all get logits. Without a cache every step re-runs the whole context through every layer to
/// rebuild K and V.
Pass decodePass(const Ctx &c, const Step &st, double context, double count)
{
    Pass p{Phase::Decode, st.Bm,         st.stepTokens,         context + st.stepTokens, context + st.stepTokens,
           true,          st.stepTokens, st.layerCount * count, st.headCount * count};
    p.decodeStep = true;
    if (!c.s.kvCache) {
        p.T = context + st.stepTokens;
        p.cachedToks = 0;
        p.kvWrite = false;
        p.decodeStep = false;
    }
    return p;
}

/// Training's multipliers of FLOPs and bytes: forward + backward (2x forward), one more forward with full
/// recomputation; selective recomputation runs the attention core once more.
Pass trainPass(const Step &st, Recompute recompute)
{
    double train = 3, trainAttn = 1;
    if (recompute == Recompute::Full)
        train = 4;
    else if (recompute == Recompute::Selective)
        trainAttn = 4.0 / 3.0;
    return {Phase::Train, st.Bm, st.seq, st.seq, 0, false, st.seq, st.layerCount, st.headCount, train, trainAttn};
}

/// The step's passes of the model, by phase (a request's prefill and its mean decode step for generate), and a
/// training step's optimizer update.
void emitPasses(Ctx &c, const Step &st, Analysis &a)
{
    const Scenario &s = c.s;
    // The images' encoding by the vision tower leads the prompt's prefill (their tokens are in st.seq already).
    if (s.images > 0 && (s.phase == Phase::Prefill || s.phase == Phase::Generate))
        emitVisionTower(c, st);
    switch (s.phase) {
    case Phase::Prefill: emitPass(c, prefillPass(c, st)); break;
    case Phase::Encode:
        emitPass(c, {Phase::Encode, st.Bm, st.seq, st.seq, 0, false, c.m.arch == Architecture::Decoder ? 1.0 : 0.0,
                     st.layerCount, st.headCount});
        break;
    case Phase::Train: emitPass(c, trainPass(st, s.recompute)); break;
    case Phase::Decode: emitPass(c, decodePass(c, st, st.ctx, 1)); break;
    case Phase::Generate:
        emitPass(c, prefillPass(c, st));
        a.phases.ttftS = a.totals.timeS;
        if (s.output > 1)
            emitPass(c, decodePass(c, st, st.seq + (s.output - 1) / 2.0, static_cast<double>(s.output - 1)));
        break;
    }
    if (s.phase == Phase::Train)
        emitOptimizer(c, localParams(a.params, s));
}

/// `stepTokens`: new tokens per sequence of a decode step (1, or K + 1 for a speculative verification step).
/// `prepared`: what prepareAnalyses() checked and counted once for `m` (nullptr: all of it here).
Analysis analyzeImpl(const HardwareSpec &hw, const ModelShape &m, const Scenario &given, bool withOperators,
                     double stepTokens, std::vector<OperatorRecord> *records = nullptr,
                     const PreparedAnalyses *prepared = nullptr)
{
    if (prepared && prepared->model != &m)
        prepared = nullptr; // made for another model
    // Images become prompt tokens (withImageTokens()); a scenario without any is analysed as given, uncopied.
    Scenario withImages;
    if (given.images != 0) {
        std::string issue;
        withImages = withImageTokens(given, m, &issue);
        if (!issue.empty())
            refuse(issue);
    }
    const Scenario &s = given.images != 0 ? withImages : given;
    checkCombination(hw, m, s, prepared);
    Analysis a;
    LayerGroups groups; // layerGroups() needs a model that passed validate(): checkCombination() above
    if (!prepared)
        groups = layerGroups(m);
    Ctx c{hw, m, s, prepared ? prepared->groups : groups};
    deriveShapes(c);
    a.params = prepared ? prepared->params : paramCount(m, c.groups);
    a.computeEfficiency = c.roofs.computeEfficiency;
    a.memoryEfficiency = c.roofs.memoryEfficiency;
    a.matmulType = c.roofs.matmulType;
    a.peakFlops = c.roofs.peakMatmul;
    a.bandwidth = c.roofs.bandwidth;
    a.ridge = c.roofs.peakMatmul / c.roofs.bandwidth;
    if (withOperators) {
        a.operators.reserve(s.phase == Phase::Generate ? 48 : 24);
        c.ops = &a.operators;
        c.records = records;
    }
    c.totals = &a.totals;
    const Step st = stepOf(c, stepTokens);
    emitPasses(c, st, a);
    addCommunication(c, st, a);
    addTotals(c, st, a);
    const double cachedTokens = addKvCache(c, st, a);
    addFootprint(c, st, cachedTokens, a);
    return a;
}

} // namespace

} // namespace detail
std::optional<TimeBand> achievableBand(const HardwareSpec &hw, const Scenario &s)
{
    if (s.efficiency != EfficiencyMode::Achievable || hw.achievable.empty())
        return std::nullopt;
    return kAchievableBand;
}

Analysis analyze(const HardwareSpec &hw, const ModelShape &m, const Scenario &s)
{
    return detail::analyzeImpl(hw, m, s, true, 1);
}

Analysis analyzeRecorded(const HardwareSpec &hw, const ModelShape &m, const Scenario &s,
                         std::vector<OperatorRecord> *records)
{
    records->clear();
    return detail::analyzeImpl(hw, m, s, true, 1, records);
}

Analysis analyzeTotals(const HardwareSpec &hw, const ModelShape &m, const Scenario &s)
{
    return detail::analyzeImpl(hw, m, s, false, 1);
}

PreparedAnalyses prepareAnalyses(const ModelShape &m, const Scenario &base,
                                 const std::vector<const ScenarioOption *> &varied)
{
    PreparedAnalyses p;
    p.model = &m;
    p.modelIssue = detail::modelIssue(m);
    if (p.modelIssue.empty()) {
        p.groups = layerGroups(m);
        p.params = paramCount(m, p.groups);
    }
    // A scenario's images add their tokens to its prompt or context (withImageTokens()), whose ranges then move with
    // the varied images, or with a varied prompt or context the images join.
    const ScenarioOption *images = findOption("images");
    const bool withImages = base.images != 0 || std::find(varied.begin(), varied.end(), images) != varied.end();
    const WhatIf unused;
    for (const ScenarioOption *o : rangeCheckedOptions()) {
        const bool varies = std::find(varied.begin(), varied.end(), o) != varied.end() ||
                            (withImages && (o->key == "seq" || o->key == "context"));
        if (varies)
            p.varied.push_back(o);
        else if (!checkOption(*o, o->get(base, unused)).empty())
            return p; // othersPass stays false: every analysis checks every option, as analyze() does
    }
    p.othersPass = true;
    return p;
}

Analysis analyzeTotals(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, const PreparedAnalyses &prepared)
{
    return detail::analyzeImpl(hw, m, s, false, 1, nullptr, &prepared);
}

Analysis analyzeDecodeStep(const HardwareSpec &hw, const ModelShape &m, const Scenario &s, int tokens)
{
    if (s.phase != Phase::Decode)
        detail::refuse("a decode step of several tokens needs phase decode, got " + std::string(toString(s.phase)));
    if (tokens < 1 || tokens > 64)
        detail::refuse("tokens per decode step must be between 1 and 64, got " + std::to_string(tokens));
    return detail::analyzeImpl(hw, m, s, true, tokens);
}

} // namespace memwall::core
