// Tests for the per-layer block model (core/model/modelshape.h: layerBlock, layerGroups, cachedElements) and the
// families it brings in: multi-head latent attention (DeepSeek-V3, Kimi K2), dense layers before the experts, Qwen3's
// per-head q/k norms, Qwen3-MoE, and Gemma 2 and 3's local/global layer pattern.
//
// Every parameter count below is counted by hand in the comments, from the config.json fields, and compared with the
// published figure it rounds to. The configs are copies in tests/data/configs (see the README there for sources).

#include "core/analysis/analysis.h"
#include "core/analysis/explain.h"
#include "core/analysis/serving.h"
#include "core/io/hfconfig.h"
#include "core/io/presets.h"
#include "core/model/modelshape.h"

#include "../analysishelpers.h"
#include "../builtinpresets.h"
#include "../hfconfighelpers.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <random>
#include <string>

namespace memwall::core {

namespace {

using testhf::configPath;

using testanalysis::checkOperator;
using testanalysis::decodeAt;
using testanalysis::findOp;

ModelShape config(const char *file) { return importHfConfigFile(configPath(file)); }

} // namespace

class TestLayerBlocks : public QObject
{
    Q_OBJECT

private slots:
    void familyParamCounts_data();
    void familyParamCounts();
    void groupsMatchLayerByLayer();
    void groupsOfPublishedPatterns();
    void groupsBeyondInlineCapacity();
    void kvBytesOfPatterns_data();
    void kvBytesOfPatterns();
    void mlaCacheIsNotSplitByTensorParallelism();
    void mlaDecodeByHand();
    void mlaUnabsorbedLiftsTheLatent();
    void sparseLatentEqualsMlaWithinTopk();
    void sparseLatentDecodeByHand();
    void localAndGlobalLayersHaveTheirOwnOperators();
    void denseLayersOfAMoeModel();
    void unsupportedParts_data();
    void unsupportedParts();
    void presetRoundTrip();
    void expertWeightsOfGptOss();
    void chunkedAttentionByHand();
    void stateSpaceParamCounts_data();
    void stateSpaceParamCounts();
    void stateSpaceStateByHand();
    void stateSpaceDecodeReadsItsState();
    void qwen35HandCounts();
    void qwen35StateAndKvBytes();
    void stateFormatOfTheConfig();
    void linearAttentionOperators();
    void linearAttentionRefusals();
    void hybridPattern();
    void cohere2GlobalLayersWithoutPositions();
    void disaggregationSendsTheState();
    void fullWidthQkNormOfOlmo2();
    void stateOfJamba();
    void llama4TextModel();
    void llama4LayerLists_data();
    void llama4LayerLists();
    void nemotronHLayersOfOnePart();
    void nemotronHRefusals_data();
    void nemotronHRefusals();
    void logitSoftcapping();
    void headBiasOfPhiMoe();
    void patchEmbeddingByHand();
    void patchModelPresetKeys();
    void patchModelRules_data();
    void patchModelRules();
    void gemma4Operators();
    void gemma4SharedKvOperators();
};

// Long because it is a table: one row per model family, each with its parameter count written out by hand.
void TestLayerBlocks::familyParamCounts_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("active");

    // DeepSeek-V3 (h 7168, 61 layers, 128 heads; MLA: q_lora 1536, kv_lora 512, nope 128, rope 64, v 128; 3 dense
    // layers of 18432; 58 MoE layers of 256 routed experts of 2048, 8 per token, 1 shared; router bias; vocab 129280):
    //   MLA    q_a 7168 x 1536 = 11,010,048 + norm 1,536 + q_b 1536 x 128 x 192 = 37,748,736
    //          + kv_a 7168 x 576 = 4,128,768 + norm 512 + kv_b 512 x 128 x 256 = 16,777,216
    //          + o 128 x 128 x 7168 = 117,440,512                                         = 187,107,328
    //   dense layer  187,107,328 + 3 x 7168 x 18432 (396,361,728) + 2 norms 14,336     = 583,483,392
    //   MoE layer    187,107,328 + 257 experts x 44,040,192 + router 7168 x 256 + 256 + 14,336 = 11,507,286,272
    //   total  3 x 583,483,392 + 58 x 11,507,286,272 + 2 x 129280 x 7168 + 7168        = 671,026,419,200 (paper: 671B)
    //   active 3 x 583,483,392 + 58 x (187,107,328 + 9 x 44,040,192 + 1,835,264 + 14,336) + 1,853,365,248
    //                                                                                   = 37,552,297,472 (paper: 37B)
    QTest::newRow("DeepSeek-V3 = 671.0B, 37.6B active")
        << "DeepSeek-V3.json" << qint64(671026419200) << qint64(37552297472);
    // Kimi K2 (the DeepSeek-V3 layout with 64 heads, 384 experts, 1 dense layer, vocab 163840):
    //   MLA    11,010,048 + 1,536 + 1536 x 64 x 192 (18,874,368) + 4,128,768 + 512 + 512 x 64 x 256 (8,388,608)
    //          + 64 x 128 x 7168 (58,720,256)                                               = 101,124,096
    //   dense layer  101,124,096 + 396,361,728 + 14,336                                  = 497,500,160
    //   MoE layer    101,124,096 + 385 x 44,040,192 + 7168 x 384 + 384 + 14,336          = 17,059,365,248
    //   total  497,500,160 + 60 x 17,059,365,248 + 2 x 163840 x 7168 + 7168               = 1,026,408,232,448 (card:
    //   1T) active 497,500,160 + 60 x (101,124,096 + 9 x 44,040,192 + 2,752,896 + 14,336) + 2,348,817,408
    //                                                                                   = 32,861,500,928 (card: 32B)
    // DeepSeek-V2-Lite (h 2048, 27 layers, 16 heads; MLA without the queries' low rank: q_proj 2048 x 16 x 192; one
    // dense layer of 10944; 26 MoE layers of 64 routed experts of 1408, 6 per token, 2 shared (2816 wide); no router
    // bias ("greedy"); vocab 102400):
    //   MLA    6,291,456 + kv_a 2048 x 576 = 1,179,648 + 512 + kv_b 512 x 16 x 256 = 2,097,152 + o 4,194,304
    //                                                                                   = 13,763,072
    //   dense layer  13,763,072 + 3 x 2048 x 10944 + 4096                               = 81,007,104
    //   MoE layer    13,763,072 + 64 x 8,650,752 + 3 x 2048 x 2816 + 2048 x 64 + 4096   = 584,847,872
    //   total  81,007,104 + 26 x 584,847,872 + 2 x 102400 x 2048 + 2048                  = 15,706,484,224 (card: 15.7B)
    //   active 81,007,104 + 26 x (13,763,072 + 6 x 8,650,752 + 17,301,504 + 131,072 + 4096) + 419,432,448
    //          = 2,661,150,208; the card's 2.4B leaves out the input embedding (209,715,200): 2,451,435,008.
    QTest::newRow("DeepSeek-V2-Lite = 15.7B, 2.66B active")
        << "DeepSeek-V2-Lite.json" << qint64(15706484224) << qint64(2661150208);
    QTest::newRow("Kimi K2 = 1.03T, 32.9B active")
        << "Kimi-K2-Instruct.json" << qint64(1026408232448) << qint64(32861500928);
    // Qwen3-8B (h 4096, 36 layers, 32 heads and 8 KV heads of 128, q/k norms of 128, FFN 12288, vocab 151936):
    //   layer 4096 x (4096 + 2048) + 4096 x 4096 + 2 x 128 + 3 x 4096 x 12288 + 2 x 4096 = 192,946,432
    //   total 36 x 192,946,432 + 2 x 151936 x 4096 + 4096 = 8,190,735,360 (card: 8.2B, 6.95B without embeddings)
    QTest::newRow("Qwen3-8B = 8.19B") << "Qwen3-8B.json" << qint64(8190735360) << qint64(8190735360);
    // Qwen3-30B-A3B (h 2048, 48 layers, 32 heads and 4 KV heads of 128, q/k norms, 128 experts of 768, 8 per token):
    //   layer 2048 x (4096 + 1024) + 4096 x 2048 + 256 + 128 x 3 x 2048 x 768 + 2048 x 128 + 2 x 2048 = 623,120,640
    //   total 48 x 623,120,640 + 2 x 151936 x 2048 + 2048 = 30,532,122,624 (card: 30.5B)
    //   active 48 x (18,874,368 + 256 + 8 x 4,718,592 + 262,144 + 4,096) + 622,331,904 = 48 x 56,889,600 + 622,331,904
    //          = 3,353,032,704 (card: 3.3B)
    QTest::newRow("Qwen3-30B-A3B = 30.5B, 3.35B active")
        << "Qwen3-30B-A3B.json" << qint64(30532122624) << qint64(3353032704);
    // Gemma 3 1B (h 1152, 26 layers, 4 heads and 1 KV head of 256, q/k norms, 4 norms a layer, FFN 6912, vocab
    // 262144, tied): layer 1152 x 1536 + 1024 x 1152 + 512 + 3 x 1152 x 6912 + 4 x 1152 = 26,842,112;
    //   total 26 x 26,842,112 + 262144 x 1152 + 1152 = 999,885,952 (keras-hub gemma3_1b 'params': 999,885,952)
    // Command R (c4ai-command-r-v01: h 8192, 40 layers, 64 heads and 64 KV heads of 128, FFN 22528, one LayerNorm
    // without a bias per layer read by attention and the FFN in parallel, tied, vocab 256000):
    //   layer 4 x 8192 x 8192 + 3 x 8192 x 22528 + 8192 = 268,435,456 + 553,648,128 + 8,192 = 822,091,776
    //   total 40 x 822,091,776 + 256000 x 8192 + 8192 = 34,980,831,232 (the card: 35 billion)
    QTest::newRow("Command R = 34,980,831,232")
        << "c4ai-command-r-v01.json" << qint64(34980831232) << qint64(34980831232);
    QTest::newRow("Gemma 3 1B = 999,885,952") << "gemma-3-1b-it.json" << qint64(999885952) << qint64(999885952);
    // gpt-oss-20b (h 2880, 24 layers, 64 heads and 8 KV heads of 64, q/k/v/o biases, a sink per head; 32 experts of
    // 2880 with biases, 4 per token, router with bias; vocab 201088, untied):
    //   attention 2880 x (4096 + 1024) + 4096 x 2880 + (4096 + 1024) + 2880 + 64         = 26,550,144
    //   expert    3 x 2880 x 2880 + 2 x 2880 + 2880                                        = 24,891,840
    //   layer     26,550,144 + 32 x 24,891,840 + 2880 x 32 + 32 + 2 x 2880                = 823,186,976
    //   total     24 x 823,186,976 + 2 x 201088 x 2880 + 2880 = 20,914,757,184 (model card: 20.91B)
    //   active    24 x (26,550,144 + 4 x 24,891,840 + 92,192 + 5,760) + 1,158,269,760 = 4,187,440,704; the card's
    //             3.61B active leaves out the input embedding (579,133,440): 3,608,307,264.
    QTest::newRow("gpt-oss-20b = 20.91B, 4.19B active")
        << "gpt-oss-20b.json" << qint64(20914757184) << qint64(4187440704);
    // OLMo 2 13B (h 5120, 40 layers, 40 heads and 40 KV heads of 128, q_norm and k_norm over the whole q and k, 5120
    // weights each, two norms a layer (after attention and the MLP), FFN 13824, vocab 100352, untied):
    //   layer 4 x 5120 x 5120 + 2 x 5120 + 3 x 5120 x 13824 + 2 x 5120
    //         = 104,857,600 + 10,240 + 212,336,640 + 10,240                                   = 317,214,720
    //   total 40 x 317,214,720 + 2 x 100352 x 5120 + 5120 = 12,688,588,800 + 1,027,604,480 + 5,120
    //         = 13,716,198,400, exactly the checkpoint's: model.safetensors.index.json total_size 54,864,793,600 B
    //         in FP32 / 4 B (per-head norms, 2 x 128 weights a layer, would give 13,715,799,040)
    QTest::newRow("OLMo 2 13B = 13,716,198,400")
        << "OLMo-2-1124-13B.json" << qint64(13716198400) << qint64(13716198400);
    // Jamba 1.5 Mini (h 4096, 32 layers; attention in layers 4, 12, 20, 28: 32 heads and 8 KV heads of 128, no
    // biases; Mamba-1 elsewhere: d_inner 8192, d_state 16, d_conv 4 with bias, dt_rank 256, no projection biases,
    // RMSNorms over dt, B and C; experts in the odd layers: 16 of 14336, 2 per token; a dense FFN of 14336 in the even
    // layers; vocab 65536, untied):
    //   attention  4096 x (4096 + 2048) + 4096 x 4096                                          = 41,943,040
    //   Mamba      in_proj 4096 x 16384 = 67,108,864; conv 8192 x 4 + 8192 = 40,960; x_proj 8192 x (256 + 32)
    //              = 2,359,296; dt_proj 256 x 8192 + 8192 = 2,105,344; A_log 8192 x 16 = 131,072; D 8192;
    //              out_proj 8192 x 4096 = 33,554,432; dt/B/C norms 256 + 16 + 16 = 288         = 105,308,448
    //   FFN        3 x 4096 x 14336 = 176,160,768; experts 16 x that + router 4096 x 16        = 2,818,637,824
    //   layers     4 attention + dense  4 x (41,943,040 + 176,160,768 + 8,192)                 = 872,448,000
    //              12 Mamba + dense    12 x (105,308,448 + 176,160,768 + 8,192)                = 3,377,728,896
    //              16 Mamba + experts  16 x (105,308,448 + 2,818,637,824 + 8,192)              = 46,783,271,424
    //   total  51,033,448,320 + 2 x 65536 x 4096 + 4096 = 51,570,323,328 (the card: 52B total)
    //   active 872,448,000 + 3,377,728,896 + 16 x (105,308,448 + 2 x 176,160,768 + 65,536 + 8,192) + 536,875,008
    //          = 12,110,311,296 (the card: 12B active)
    QTest::newRow("Jamba 1.5 Mini = 51.57B, 12.11B active")
        << "AI21-Jamba-1.5-Mini.json" << qint64(51570323328) << qint64(12110311296);
    // Llama 4 Scout, its language model (h 5120, 48 layers, 40 heads and 8 KV heads of 128, no biases; every layer
    // 16 experts of 8192, 1 per token, a router without bias, and a shared expert of 8192; vocab 202048, untied):
    //   attention  5120 x (5120 + 2048) + 5120 x 5120                                          = 62,914,560
    //   expert     3 x 5120 x 8192                                                             = 125,829,120
    //   layer      62,914,560 + 17 x 125,829,120 + 5120 x 16 + 2 x 5120                        = 2,202,101,760
    //   total  48 x 2,202,101,760 + 2 x 202048 x 5120 + 5120 = 107,769,861,120
    //   active 48 x (62,914,560 + 2 x 125,829,120 + 81,920 + 10,240) + 2,068,976,640 = 17,172,894,720
    // The card: 17B active of ~109B in all, the vision encoder and projector (not modelled) making up the rest.
    QTest::newRow("Llama 4 Scout = 107.77B, 17.17B active (language model)")
        << "Llama-4-Scout-17B-16E-Instruct.trimmed.json" << qint64(107769861120) << qint64(17172894720);
    // Llama 4 Maverick, its language model (Scout's layers with 128 experts, in the odd layers only
    // (interleave_moe_layer_step 2); the 24 even layers have a dense FFN of intermediate_size_mlp 16384):
    //   MoE layer    62,914,560 + 129 x 125,829,120 + 5120 x 128 + 10,240                     = 16,295,536,640
    //   dense layer  62,914,560 + 3 x 5120 x 16384 + 10,240                                   = 314,583,040
    //   total  24 x 16,295,536,640 + 24 x 314,583,040 + 2,068,976,640 = 400,711,848,960
    //   active 24 x (62,914,560 + 2 x 125,829,120 + 655,360 + 10,240) + 24 x 314,583,040 + 2,068,976,640
    //          = 17,184,691,200
    // The card: 17B active of ~400B (the transformers docs: "109B, and 402B parameters" with the vision encoder).
    QTest::newRow("Llama 4 Maverick = 400.71B, 17.18B active (language model)")
        << "Llama-4-Maverick-17B-128E-Instruct.trimmed.json" << qint64(400711848960) << qint64(17184691200);
    // Nemotron-H 56B (h 8192, 118 layers of one part each by hybrid_override_pattern: 54 Mamba-2, 54 MLP, 10
    // attention, each with one RMSNorm of 8192; vocab 131072, untied; no biases but the convolution's):
    //   Mamba-2  d_inner 256 heads x 64 = 16384, 8 groups of d_state 256; in_proj 8192 x (2 x 16384 + 2 x 8 x 256
    //            + 256) = 8192 x 37120 = 304,087,040; conv (16384 + 4096) x 4 + 20480 = 102,400; dt_bias, A_log and
    //            D 3 x 256 = 768; gated norm 16384; out_proj 16384 x 8192 = 134,217,728; + norm 8192  = 438,432,512
    //   attention 64 heads and 8 KV heads of 128: 8192 x (8192 + 2 x 1024) + 8192 x 8192 + norm 8192
    //            = 150,994,944 + 8,192                                                          = 151,003,136
    //   MLP      up and down (relu2, no gate) 2 x 8192 x 32768 + norm 8192                      = 536,879,104
    //   total  54 x 438,432,512 + 10 x 151,003,136 + 54 x 536,879,104 + 2 x 131072 x 8192 + 8192
    //          = 23,675,355,648 + 1,510,031,360 + 28,991,471,616 + 2,147,483,648 + 8,192 = 56,324,350,464
    // The model card (huggingface.co/nvidia/Nemotron-H-56B-Base-8K): "This model has 56B model parameters".
    QTest::newRow("Nemotron-H 56B = 56,324,350,464 (the card: 56B)")
        << "Nemotron-H-56B-Base-8K.json" << qint64(56324350464) << qint64(56324350464);
    // Nemotron-3 Nano 30B-A3B (h 2688, 52 layers of one part each by hybrid_override_pattern: 23 Mamba-2 (M), 23 MoE
    // (E), 6 attention (*), each with one RMSNorm of 2688; vocab 131072, untied; no biases but the convolution's):
    //   Mamba-2  d_inner 64 heads x 64 = 4096, 8 groups of d_state 128; in_proj 2688 x (2 x 4096 + 2 x 8 x 128 + 64)
    //            = 27,697,152; conv (4096 + 2048) x 4 + 6144 = 30,720; dt_bias, A_log, D 3 x 64 = 192; gated norm
    //            4096; out_proj 4096 x 2688 = 11,010,048; + norm 2688                           = 38,744,896
    //   attention 32 heads and 2 KV heads of 128 (head_dim): 2688 x (4096 + 2 x 256) + 4096 x 2688 + norm 2688
    //                                                                                          = 23,399,040
    //   MoE      128 experts of up and down 2 x 2688 x 1856 (9,977,856 each) = 1,277,165,568; the shared expert
    //            2 x 2688 x 3712 = 19,955,712; router 2688 x 128 + 128 (bias) = 344,192; norm 2688 = 1,297,468,160
    //   total  23 x 38,744,896 + 6 x 23,399,040 + 23 x 1,297,468,160 + 2 x 131072 x 2688 + 2688
    //          = 891,132,608 + 140,394,240 + 29,841,767,680 + 704,643,072 + 2,688 = 31,577,940,288, the checkpoint's
    //          (llama.cpp's n_params for the model's GGUF, every tensor; the card: 31.6B total)
    //   active 23 x (6 x 9,977,856 + 19,955,712 + 344,192 + 2688) + 891,132,608 + 140,394,240 + 704,645,760
    //          = 3,580,076,352 (the name's A3B)
    QTest::newRow("Nemotron-3 Nano = 31,577,940,288, 3.58B active")
        << "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json" << qint64(31577940288) << qint64(3580076352);
    // Phi-3.5-MoE (h 4096, 32 layers, 32 heads and 8 KV heads of 128 with biases on q, k, v and o; 16 experts of
    // 6400, 2 per token, a router without bias; two LayerNorms a layer with weight and bias; vocab 32064, untied, an
    // LM head with a bias):
    //   attention  4096 x (4096 + 2 x 1024) + 4096 x 4096 + (4096 + 2 x 1024) + 4096           = 41,953,280
    //   expert     3 x 4096 x 6400                                                             = 78,643,200
    //   layer      41,953,280 + 16 x 78,643,200 + 4096 x 16 + 2 x 2 x 4096                      = 1,300,326,400
    //   head       final LayerNorm 2 x 4096 + 32064 x 4096 + 32064 (bias)                      = 131,374,400
    //   total  32 x 1,300,326,400 + 32064 x 4096 + 131,374,400 = 41,873,153,344 (the card: 41.9B)
    //   active 32 x (41,953,280 + 2 x 78,643,200 + 65,536 + 16,384) + 131,334,144 + 131,374,400
    //          = 6,640,999,744 (the card: 6.6B active)
    QTest::newRow("Phi-3.5-MoE = 41.87B, 6.64B active")
        << "Phi-3.5-MoE-instruct.transcribed.json" << qint64(41873153344) << qint64(6640999744);
    // GLM-4.5-Air's main model (its MTP layer counted apart: tst_hffamilies): attention 109,066,240 a layer; layer 0
    // dense (243,554,304), 45 MoE layers of 2,341,492,864 (129 experts of 17,301,504, router 524,416, 2 norms 8192);
    //   total 243,554,304 + 45 x 2,341,492,864 + 2 x 151552 x 4096 + 4096 = 106,852,251,264 (card: 106B)
    //   active 243,554,304 + 45 x 265,312,384 + 1,241,518,080 = 13,424,129,664 (card: 12B)
    QTest::newRow("GLM-4.5-Air = 106.85B, 13.42B active")
        << "GLM-4.5-Air.transcribed.json" << qint64(106852251264) << qint64(13424129664);
    // Mistral Small 3 (h 5120, 40 layers, 32 heads and 8 KV heads of 128, no biases, FFN 32768, vocab 131072,
    // untied):
    //   layer  5120 x (4096 + 2 x 1024) + 4096 x 5120 + 3 x 5120 x 32768 + 2 x 5120             = 555,755,520
    //   total  40 x 555,755,520 + 2 x 131072 x 5120 + 5120 = 23,572,403,200, exactly the checkpoint's:
    //          model.safetensors.index.json total_size 47,144,806,400 B in BF16 / 2 B (the card: 24B)
    QTest::newRow("Mistral Small 3 = 23,572,403,200")
        << "Mistral-Small-24B-Instruct-2501.transcribed.json" << qint64(23572403200) << qint64(23572403200);
    // ViT-L/32 (google/vit-large-patch32-224-in21k, ViTModel with its pooler: h 1024, 24 layers, 16 heads, a plain
    // GELU FFN of 4096, pre-norm LayerNorms with biases, q/k/v biases (qkv_bias) and biases on every dense layer; 224
    // pixel images in patches of 32, 3 channels; no vocabulary):
    //   patch projection  a Conv2d, kernel = stride = 32: 3 x 32 x 32 x 1024 + 1024             = 3,146,752
    //   class token       1024                                                                  = 1,024
    //   positions         (224 / 32)^2 + 1 = 49 + 1 = 50 rows x 1024                            = 51,200
    //   layer  q, k, v    3 x (1024 x 1024 + 1024)                                              = 3,148,800
    //          output     1024 x 1024 + 1024                                                    = 1,049,600
    //          FFN        1024 x 4096 + 4096 + 4096 x 1024 + 1024                               = 8,393,728
    //          2 LayerNorms with bias  4 x 1024                                                 = 4,096
    //                                                                                           = 12,596,224
    //   24 layers         24 x 12,596,224                                                       = 302,309,376
    //   final LayerNorm   pre-norm: one after the last layer (BERT, post-norm, has none)        = 2,048
    //   pooler            1024 x 1024 + 1024 (then tanh)                                        = 1,049,600
    //   total  3,146,752 + 1,024 + 51,200 + 302,309,376 + 2,048 + 1,049,600                     = 306,560,000
    // The ViT paper (Dosovitskiy et al. 2021, Table 1): ViT-Large, 307M.
    QTest::newRow("ViT-L/32 = 306,560,000 (ViTModel with pooler; the paper: 307M)")
        << "vit-large-patch32-224-in21k.json" << qint64(306560000) << qint64(306560000);
}

void TestLayerBlocks::familyParamCounts()
{
    QFETCH(QString, file);
    QFETCH(qint64, total);
    QFETCH(qint64, active);
    const ModelShape m = config(file.toUtf8().constData());
    const ParamCounts p = paramCount(m);
    QCOMPARE(static_cast<qint64>(p.total), total);
    QCOMPARE(static_cast<qint64>(p.active), active);
    QCOMPARE(p.embedding + p.layers + p.head, p.total);
}

void TestLayerBlocks::groupsMatchLayerByLayer()
{
    // layerGroups() counts in closed form; layerBlock() layer by layer must give the same groups, for any pattern.
    std::mt19937 rng(20261206);
    auto pick = [&rng](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    for (int trial = 0; trial < 2000; ++trial) {
        ModelShape m;
        m.layers = pick(1, 130);
        m.slidingWindow = pick(0, 1) ? pick(1, 4096) : 0;
        m.globalEvery = m.slidingWindow > 0 ? pick(0, std::min<int64_t>(m.layers, 8)) : 0;
        m.experts = pick(0, 1) ? pick(2, 64) : 1;
        if (m.isMoe()) {
            m.firstDenseLayers = pick(0, m.layers);
            m.moeEvery = pick(1, std::min<int64_t>(m.layers, 4));
            m.moeOffset = pick(0, m.moeEvery - 1);
        }
        std::map<std::pair<int64_t, bool>, int64_t> byLayer;
        std::vector<std::pair<int64_t, bool>> order;
        for (int64_t i = 0; i < m.layers; ++i) {
            const LayerBlock b = layerBlock(m, i);
            if (byLayer[{b.window, b.ffn == LayerFfn::Moe}]++ == 0)
                order.push_back({b.window, b.ffn == LayerFfn::Moe});
        }
        const LayerGroups groups = layerGroups(m);
        QCOMPARE(groups.size(), order.size());
        for (std::size_t k = 0; k < groups.size(); ++k) {
            const LayerGroup &g = groups[k];
            const bool moe = g.block.ffn == LayerFfn::Moe;
            QCOMPARE(std::make_pair(g.block.window, moe), order[k]); // in the order of first appearance
            QCOMPARE(g.count, (byLayer[{g.block.window, moe}]));
        }
    }
}

void TestLayerBlocks::groupsBeyondInlineCapacity()
{
    // LayerGroups holds kInline groups inline and moves them all to the heap when one more comes: none lost, in order.
    LayerGroups g;
    const std::size_t n = LayerGroups::kInline + 5;
    for (std::size_t i = 0; i < n; ++i)
        g.push({LayerBlock{LayerMixer::Sliding, LayerFfn::Dense, static_cast<int64_t>(i + 1)}, static_cast<int64_t>(i),
                static_cast<int64_t>(i)});
    QCOMPARE(g.size(), n);
    int64_t sum = 0;
    for (const LayerGroup &x : g)
        sum += x.block.window;
    QCOMPARE(sum, static_cast<int64_t>(n * (n + 1) / 2));
    QCOMPARE(g[0].block.window, int64_t(1));
    QCOMPARE(g[n - 1].count, static_cast<int64_t>(n - 1));
    QCOMPARE(std::size_t(g.end() - g.begin()), n);
}

void TestLayerBlocks::groupsOfPublishedPatterns()
{
    // Gemma 3 1B: sliding_window_pattern 6 over 26 layers: layers 5, 11, 17 and 23 global, 22 local of 512 tokens.
    const LayerGroups gemma = layerGroups(config("gemma-3-1b-it.json"));
    QCOMPARE(gemma.size(), std::size_t(2));
    QCOMPARE(gemma[0].block.window, int64_t(512));
    QCOMPARE(gemma[0].count, int64_t(22));
    QCOMPARE(gemma[1].block.window, int64_t(0));
    QCOMPARE(gemma[1].count, int64_t(4));
    // DeepSeek-V3: first_k_dense_replace 3 dense layers, then 58 with experts.
    const LayerGroups ds = layerGroups(config("DeepSeek-V3.json"));
    QCOMPARE(ds.size(), std::size_t(2));
    QVERIFY(ds[0].block.ffn == LayerFfn::Dense);
    QCOMPARE(ds[0].count, int64_t(3));
    QVERIFY(ds[1].block.ffn == LayerFfn::Moe);
    QCOMPARE(ds[1].count, int64_t(58));
    // gpt-oss-20b's layer_types alternate sliding (128 tokens) and full, starting sliding: every second layer global.
    const ModelShape oss = config("gpt-oss-20b.json");
    QCOMPARE(oss.slidingWindow, int64_t(128));
    QCOMPARE(oss.globalEvery, int64_t(2));
    // Gemma 2 9B: 42 layers alternating 4096-token local and global, starting local.
    const ModelShape g2 = testpresets::model("gemma-2-9b");
    QCOMPARE(g2.slidingWindow, int64_t(4096));
    QCOMPARE(g2.globalEvery, int64_t(2));
    const LayerGroups g2g = layerGroups(g2);
    QCOMPARE(g2g.size(), std::size_t(2));
    QCOMPARE(g2g[0].count, int64_t(21));
    QCOMPARE(g2g[1].count, int64_t(21));
    // Jamba 1.5 Mini: layer 0 Mamba with a dense FFN, layer 1 Mamba with experts, layer 4 attention (dense): 12, 16
    // and 4 layers.
    const LayerGroups jamba = layerGroups(config("AI21-Jamba-1.5-Mini.json"));
    QCOMPARE(jamba.size(), std::size_t(3));
    QCOMPARE(jamba[0].block, (LayerBlock{LayerMixer::Ssm, LayerFfn::Dense, 0}));
    QCOMPARE(jamba[0].count, int64_t(12));
    QCOMPARE(jamba[1].block, (LayerBlock{LayerMixer::Ssm, LayerFfn::Moe, 0}));
    QCOMPARE(jamba[1].count, int64_t(16));
    QCOMPARE(jamba[2].block, (LayerBlock{LayerMixer::Attention, LayerFfn::Dense, 0}));
    QCOMPARE(jamba[2].count, int64_t(4));
    // Llama 4 Scout: 36 layers in chunks of 8192 and 12 global (3, 7, ..., 47), all with experts.
    const LayerGroups scout = layerGroups(config("Llama-4-Scout-17B-16E-Instruct.trimmed.json"));
    QCOMPARE(scout.size(), std::size_t(2));
    QCOMPARE(scout[0].block, (LayerBlock{LayerMixer::Chunked, LayerFfn::Moe, 8192}));
    QCOMPARE(scout[0].count, int64_t(36));
    QCOMPARE(scout[1].block, (LayerBlock{LayerMixer::Attention, LayerFfn::Moe, 0}));
    QCOMPARE(scout[1].count, int64_t(12));
    // Llama 4 Maverick: the even layers dense and chunked (24), the odd ones with experts, chunked (12) or global
    // (12: every global layer is odd).
    const LayerGroups maverick = layerGroups(config("Llama-4-Maverick-17B-128E-Instruct.trimmed.json"));
    QCOMPARE(maverick.size(), std::size_t(3));
    QCOMPARE(maverick[0].block, (LayerBlock{LayerMixer::Chunked, LayerFfn::Dense, 8192}));
    QCOMPARE(maverick[0].count, int64_t(24));
    QCOMPARE(maverick[1].block, (LayerBlock{LayerMixer::Chunked, LayerFfn::Moe, 8192}));
    QCOMPARE(maverick[1].count, int64_t(12));
    QCOMPARE(maverick[2].block, (LayerBlock{LayerMixer::Attention, LayerFfn::Moe, 0}));
    QCOMPARE(maverick[2].count, int64_t(12));
}

void TestLayerBlocks::kvBytesOfPatterns_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("context");
    QTest::addColumn<double>("perToken");
    QTest::addColumn<double>("total");
    // DeepSeek-V3: (512 + 64) x 61 layers x 2 B = 70,272 B per token, whatever the 128 heads; at 4096 tokens
    // 287,834,112 B.
    QTest::newRow("DeepSeek-V3 = 70,272 B/token") << "DeepSeek-V3.json" << qint64(4096) << 70272.0 << 287834112.0;
    // DeepSeek-V3.2: DeepSeek-V3's latent, (512 + 64) x 61 x 2 B = 70,272 B, and the indexer's key in every layer,
    // 128 FP8 values and one FP32 scale = 132 B x 61 = 8,052 B: 78,324 B per token; at 4096 tokens 320,815,104 B.
    QTest::newRow("DeepSeek-V3.2 = 78,324 B/token") << "DeepSeek-V3.2.json" << qint64(4096) << 78324.0 << 320815104.0;
    // GLM-5: (512 + 64) x 78 x 2 B = 89,856 B and 132 x 78 = 10,296 B of indexer keys: 100,152 B per token; at
    // 131,072 tokens 13,127,122,944 B.
    QTest::newRow("GLM-5 at 128k = 13,127,122,944 B") << "GLM-5.json" << qint64(131072) << 100152.0 << 13127122944.0;
    // Qwen3-8B: 2 x 36 x 8 x 128 x 2 B = 147,456 B per token; at 32,768 tokens 4,831,838,208 B.
    QTest::newRow("Qwen3-8B = 147,456 B/token") << "Qwen3-8B.json" << qint64(32768) << 147456.0 << 4831838208.0;
    // Gemma 3 1B: 2 x 1 x 256 x 2 B = 1,024 B per token and layer. At 32,768 tokens the 4 global layers keep them
    // all (134,217,728 B) and the 22 local layers their last 512 (11,534,336 B): 145,752,064 B, where full attention
    // everywhere would be 872,415,232 B (6x).
    QTest::newRow("Gemma 3 1B at 32k = 145,752,064 B")
        << "gemma-3-1b-it.json" << qint64(32768) << 26624.0 << 145752064.0;
    // Under the window the pattern changes nothing: 26 x 1,024 B x 500 tokens.
    QTest::newRow("Gemma 3 1B at 500 = 13,312,000 B") << "gemma-3-1b-it.json" << qint64(500) << 26624.0 << 13312000.0;
    // OLMo 2 13B (multi-head: 40 KV heads): 2 x 40 layers x 40 x 128 x 2 B = 819,200 B per token, OPT-13B's; at its
    // trained 4,096 tokens 3,355,443,200 B.
    QTest::newRow("OLMo 2 13B = 819,200 B/token") << "OLMo-2-1124-13B.json" << qint64(4096) << 819200.0 << 3355443200.0;
    // Jamba 1.5 Mini: only the 4 attention layers cache, 2 x 8 x 128 x 2 B = 4,096 B per token each: 16,384 B per
    // token; at its 262,144 tokens 4,294,967,296 B (the 28 Mamba layers keep a state instead: stateOfJamba).
    QTest::newRow("Jamba 1.5 Mini at 256k = 4,294,967,296 B")
        << "AI21-Jamba-1.5-Mini.json" << qint64(262144) << 16384.0 << 4294967296.0;
    // Llama 4 Scout: 2 x 8 x 128 x 2 B = 4,096 B per token and layer, 196,608 B over 48 layers. At 131,072 tokens
    // the 12 global layers keep them all (6,442,450,944 B) and the 36 chunked layers at most one chunk of 8,192
    // (1,207,959,552 B): 7,650,410,496 B, where full attention everywhere would keep 25,769,803,776 B.
    QTest::newRow("Llama 4 Scout at 128k = 7,650,410,496 B")
        << "Llama-4-Scout-17B-16E-Instruct.trimmed.json" << qint64(131072) << 196608.0 << 7650410496.0;
    // Llama 4 Maverick at its 1,048,576 tokens: 12 x 4,096 x 1,048,576 + 36 x 4,096 x 8,192 = 52,747,567,104 B.
    QTest::newRow("Llama 4 Maverick at 1M = 52,747,567,104 B")
        << "Llama-4-Maverick-17B-128E-Instruct.trimmed.json" << qint64(1048576) << 196608.0 << 52747567104.0;
    // Nemotron-H 56B: only its 10 attention layers cache, 2 x 8 x 128 x 2 B = 4,096 B per token each: 40,960 B per
    // token; at its trained 8,192 tokens 335,544,320 B (the 54 Mamba-2 layers keep a state, the 54 MLPs nothing).
    QTest::newRow("Nemotron-H 56B at 8k = 335,544,320 B")
        << "Nemotron-H-56B-Base-8K.json" << qint64(8192) << 40960.0 << 335544320.0;
    // Nemotron-3 Nano: only its 6 attention layers cache, 2 x 2 x 128 x 2 B = 1,024 B per token each: 6,144 B per
    // token; at its 262,144 tokens 1,610,612,736 B (23 Mamba-2 layers keep a state, 23 MoE layers nothing).
    QTest::newRow("Nemotron-3 Nano at 256k = 1,610,612,736 B")
        << "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json" << qint64(262144) << 6144.0 << 1610612736.0;
    // Phi-3.5-MoE: 2 x 32 layers x 8 x 128 x 2 B = 131,072 B per token; at 4,096 tokens 536,870,912 B (its
    // sliding_window of 131,072 is its whole context: it never cuts).
    QTest::newRow("Phi-3.5-MoE at 4k = 536,870,912 B")
        << "Phi-3.5-MoE-instruct.transcribed.json" << qint64(4096) << 131072.0 << 536870912.0;
    // GLM-4.5-Air: 2 x 46 layers x 8 x 128 x 2 B = 188,416 B per token (partial RoPE changes no byte); at its
    // 131,072 tokens 24,696,061,952 B.
    QTest::newRow("GLM-4.5-Air at 128k = 24,696,061,952 B")
        << "GLM-4.5-Air.transcribed.json" << qint64(131072) << 188416.0 << 24696061952.0;
    // Mistral Small 3: 2 x 40 x 8 x 128 x 2 B = 163,840 B per token; at its 32,768 tokens 5,368,709,120 B.
    QTest::newRow("Mistral Small 3 at 32k = 5,368,709,120 B")
        << "Mistral-Small-24B-Instruct-2501.transcribed.json" << qint64(32768) << 163840.0 << 5368709120.0;
}

void TestLayerBlocks::kvBytesOfPatterns()
{
    QFETCH(QString, file);
    QFETCH(qint64, context);
    QFETCH(double, perToken);
    QFETCH(double, total);
    const ModelShape m = config(file.toUtf8().constData());
    Scenario s = decodeAt(context - 1); // the decode step's own token makes `context`
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, s);
    QCOMPARE(a.kvCache.bytesPerToken, perToken);
    QCOMPARE(a.kvCache.totalBytes, total);
    QCOMPARE(a.memory.kv, total);
    QCOMPARE(cachedElements(m, layerGroups(m), static_cast<double>(context), 1) * 2 +
                 indexerKeyBytes(m, layerGroups(m), static_cast<double>(context)),
             total);
}

void TestLayerBlocks::mlaCacheIsNotSplitByTensorParallelism()
{
    // Every tensor-parallel rank attends with its share of the heads, all of which read the one latent: the cache is
    // replicated, not split. A GQA model's KV heads are split.
    const ModelShape ds = config("DeepSeek-V3.json");
    Scenario s = decodeAt(4095);
    const double one = analyze(testpresets::hw("h100-sxm"), ds, s).memory.kv;
    s.tp = 8;
    QCOMPARE(analyze(testpresets::hw("h100-sxm"), ds, s).memory.kv, one);
    const ModelShape q = config("Qwen3-8B.json");
    Scenario g = decodeAt(4095);
    const double gOne = analyze(testpresets::hw("h100-sxm"), q, g).memory.kv;
    g.tp = 8;
    QCOMPARE(analyze(testpresets::hw("h100-sxm"), q, g).memory.kv, gOne / 8);
}

void TestLayerBlocks::mlaDecodeByHand()
{
    // DeepSeek-V3, one decode step at batch 1 after 4,095 tokens (4,096 keys), absorbed, 16-bit, tp 1, 61 layers:
    //   score:   2 FLOPs x 128 heads x 4096 keys x (512 + 64) per layer       = 603,979,776 x 61
    //            reads the latent once for all heads: 4096 x 576 x 2 B        = 4,718,592 B x 61
    //   context: 2 x 128 x 4096 x 512                                          = 536,870,912 x 61
    //   q_absorb: 2 x 128 x 128 x 512 FLOPs, weights 128 x 128 x 512 x 2 B    = 16,777,216 FLOPs, 16,777,216 B
    //   v_absorb: 2 x 128 x 512 x 128 FLOPs, weights the same                  = 16,777,216 FLOPs, 16,777,216 B
    const Analysis a = analyze(testpresets::hw("h100-sxm"), config("DeepSeek-V3.json"), decodeAt(4095));
    const Operator *score = findOp(a, "attn.score");
    const Operator *context = findOp(a, "attn.context");
    const Operator *qa = findOp(a, "attn.q_absorb");
    const Operator *va = findOp(a, "attn.v_absorb");
    QVERIFY(score && context && qa && va);
    QCOMPARE(score->count, 61.0);
    QCOMPARE(score->flops, 61.0 * 603979776);
    QCOMPARE(score->kvBytes, 61.0 * 4718592);
    QCOMPARE(context->flops, 61.0 * 536870912);
    QCOMPARE(qa->flops, 61.0 * 16777216);
    QCOMPARE(qa->weightBytes, 61.0 * 16777216);
    QCOMPARE(va->flops, 61.0 * 16777216);
    QVERIFY(!findOp(a, "attn.kv_b_proj")); // absorbed decode never lifts the latent
    QVERIFY(findOp(a, "attn.q_a_proj") && findOp(a, "attn.kv_a_proj") && findOp(a, "attn.q_b_proj"));
    QVERIFY(!findOp(a, "attn.qkv_proj"));
}

void TestLayerBlocks::mlaUnabsorbedLiftsTheLatent()
{
    // Unabsorbed decode lifts all 4,096 cached latents to keys and values every step:
    //   kv_b_proj: 2 x 4096 x 512 x 128 x (128 + 128) FLOPs = 137,438,953,472 per layer; it reads the cached latent
    //   (4096 x 512 x 2 B = 4,194,304 B) and its weights 512 x 128 x 256 x 2 B = 33,554,432 B.
    // Scores then run per head over nope + rope = 192: 2 x 128 x 4096 x 192 = 201,326,592 per layer.
    Scenario s = decodeAt(4095);
    s.mlaAbsorb = false;
    const Analysis a = analyze(testpresets::hw("h100-sxm"), config("DeepSeek-V3.json"), s);
    const Operator *kvb = findOp(a, "attn.kv_b_proj");
    QVERIFY(kvb);
    QCOMPARE(kvb->flops, 61.0 * 137438953472.0);
    QCOMPARE(kvb->kvBytes, 61.0 * 4194304);
    QCOMPARE(kvb->weightBytes, 61.0 * 33554432);
    QCOMPARE(findOp(a, "attn.score")->flops, 61.0 * 201326592);
    // The absorbed step does far fewer FLOPs over the same cached bytes: that is why engines absorb in decode.
    const Analysis absorbed = analyze(testpresets::hw("h100-sxm"), config("DeepSeek-V3.json"), decodeAt(4095));
    QVERIFY(absorbed.totals.flops * 10 < a.totals.flops);
}

void TestLayerBlocks::sparseLatentEqualsMlaWithinTopk()
{
    // DeepSeek-V3.2 is DeepSeek-V3 with a lightning indexer. While the context holds at most index_topk (2,048)
    // tokens every query attends them all, so its attention core is DeepSeek-V3's, operator by operator and to the
    // second; only the indexer's operators come on top.
    const HardwareSpec &hw = testpresets::hw("h200-sxm");
    Scenario prefill;
    prefill.phase = Phase::Prefill;
    prefill.batch = 1;
    prefill.seq = 2048;
    for (const Scenario &s : {decodeAt(2047), prefill}) {
        const Analysis v32 = analyze(hw, config("DeepSeek-V3.2.json"), s);
        const Analysis v3 = analyze(hw, config("DeepSeek-V3.json"), s);
        for (const char *name : {"attn.kv_write", "attn.q_absorb", "attn.kv_b_proj", "attn.score", "attn.softmax",
                                 "attn.context", "attn.v_absorb"}) {
            const Operator *a = findOp(v32, name), *b = findOp(v3, name);
            QCOMPARE(a == nullptr, b == nullptr);
            if (!a)
                continue;
            QCOMPARE(a->flops, b->flops);
            QCOMPARE(a->kvBytes, b->kvBytes);
            QCOMPARE(a->activationBytes, b->activationBytes);
            QCOMPARE(a->timeS, b->timeS);
        }
        QVERIFY(findOp(v32, "attn.indexer_score") && !findOp(v3, "attn.indexer_score"));
    }
}

void TestLayerBlocks::sparseLatentDecodeByHand()
{
    // DeepSeek-V3.2, one decode step at batch 1 after 131,071 tokens (131,072 keys), absorbed, 16-bit KV, 61 layers:
    //   attention reads only the 2,048 chosen latents: 2,048 x 576 x 2 B = 2,359,296 B a layer (DeepSeek-V3 reads
    //   131,072 x 576 x 2 B = 150,994,944 B, 64x more), and scores 2 x 128 heads x 2,048 x 576 = 301,989,888 FLOPs;
    //   the indexer reads every cached key, 131,072 x 132 B = 17,301,504 B a layer, and scores them with its 64 heads
    //   of 128: 2 x 64 x 131,072 x 128 = 2,147,483,648 FLOPs, plus ReLU and the head weights 3 x 64 x 131,072 =
    //   25,165,824; it writes 131,072 FP32 logits (524,288 B) that the top-k reads (log2 2048 = 11 compares a
    //   score: 1,441,792) before writing 2,048 int32 indices (8,192 B).
    const HardwareSpec &hw = testpresets::hw("h200-sxm");
    const Analysis a = analyze(hw, config("DeepSeek-V3.2.json"), decodeAt(131071));
    const Operator *score = findOp(a, "attn.score"), *idx = findOp(a, "attn.indexer_score");
    const Operator *topk = findOp(a, "attn.indexer_topk");
    QVERIFY(score && idx && topk);
    QCOMPARE(score->kvBytes, 61.0 * 2359296);
    QCOMPARE(score->flops, 61.0 * 301989888);
    QCOMPARE(idx->kvBytes, 61.0 * 17301504);
    QCOMPARE(idx->flops, 61.0 * (2147483648.0 + 25165824));
    QCOMPARE(topk->flops, 61.0 * 1441792);
    QCOMPARE(topk->activationBytes, 61.0 * (524288 + 8192));
    const Analysis dense = analyze(hw, config("DeepSeek-V3.json"), decodeAt(131071));
    QCOMPARE(findOp(dense, "attn.score")->kvBytes, 61.0 * 150994944);
    // The indexer's projections are their own operators: wq_b 1536 x 64 x 128, wk 7168 x 128, weights_proj 7168 x 64.
    QCOMPARE(findOp(a, "attn.indexer_q_proj")->weightBytes, 61.0 * 1536 * 8192 * 1.0 * a.bytesPerWeight);
    QVERIFY(findOp(a, "attn.indexer_k_proj") && findOp(a, "attn.indexer_weights_proj") &&
            findOp(a, "attn.indexer_k_norm") && findOp(a, "attn.indexer_kv_write"));
    // Attention's bytes stop at the top-k: from 32k to 128k the score reads the same, the indexer 4x more.
    const Analysis at32k = analyze(hw, config("DeepSeek-V3.2.json"), decodeAt(32767));
    QCOMPARE(findOp(at32k, "attn.score")->kvBytes, score->kvBytes);
    QCOMPARE(findOp(at32k, "attn.indexer_score")->kvBytes * 4, idx->kvBytes);
    // The indexer scores in FP8 whatever the activations (the reference's act_quant and fp8_index): over an 8,192-token
    // prompt, 2 x 64 x 128 x 33,558,528 causal pairs a layer, far right of the ridge, it runs at the H200's FP8 peak,
    // not its BF16 one.
    Scenario prefill;
    prefill.phase = Phase::Prefill;
    prefill.batch = 1;
    prefill.seq = 8192;
    const Analysis p = analyze(hw, config("DeepSeek-V3.2.json"), prefill);
    const Operator *pidx = findOp(p, "attn.indexer_score");
    QVERIFY(pidx && pidx->bound == Bound::Compute && pidx->computeType == DType::FP8);
    QCOMPARE(pidx->flops, 61.0 * (2.0 * 64 * 128 * 33558528 + 3.0 * 64 * 33558528));
    QCOMPARE(pidx->timeS, pidx->flops / hw.peak(DType::FP8));
    // Its KV cache holds every token: latent and indexer key, 78,324 B a token.
    QCOMPARE(a.kvCache.totalBytes, 78324.0 * 131072);
    // The preset keys say the same shape (index_* written only for a model with an indexer).
    const ModelShape m = config("DeepSeek-V3.2.json");
    const nlohmann::json j = toJson(m);
    QCOMPARE(j.at("index_heads").get<int64_t>(), int64_t(64));
    QVERIFY(!toJson(config("DeepSeek-V3.json")).contains("index_heads"));
    const ModelShape back = modelShapeFromJson(j, "roundtrip.json");
    QCOMPARE(back.indexer.topk, int64_t(2048));
    QCOMPARE(paramCount(back).total, paramCount(m).total);
}

void TestLayerBlocks::localAndGlobalLayersHaveTheirOwnOperators()
{
    // Gemma 3 1B decode after 8,191 tokens: 4 global layers attend 8,192 keys, 22 local layers 512.
    // Score FLOPs per layer: 2 x 4 heads x keys x 256.
    const Analysis a = analyze(testpresets::hw("h100-sxm"), config("gemma-3-1b-it.json"), decodeAt(8191));
    const Operator *global = findOp(a, "attn.score");
    const Operator *local = findOp(a, "attn.local_score");
    QVERIFY(global && local);
    QCOMPARE(global->count, 4.0);
    QCOMPARE(local->count, 22.0);
    QCOMPARE(global->flops, 4.0 * 2 * 4 * 8192 * 256);
    QCOMPARE(local->flops, 22.0 * 2 * 4 * 512 * 256);
    // K and V read: 1 KV head x 256 x 2 B x keys, per layer.
    QCOMPARE(global->kvBytes, 4.0 * 8192 * 256 * 2);
    QCOMPARE(local->kvBytes, 22.0 * 512 * 256 * 2);
    QCOMPARE(findOp(a, "attn.qkv_proj")->count, 26.0);
    QCOMPARE(findOp(a, "attn.qk_norm")->count, 26.0);
    // A uniform model keeps the plain names only.
    const Analysis q = analyze(testpresets::hw("h100-sxm"), config("Qwen3-8B.json"), decodeAt(8191));
    QVERIFY(findOp(q, "attn.score") && !findOp(q, "attn.local_score"));
}

void TestLayerBlocks::denseLayersOfAMoeModel()
{
    // DeepSeek-V3 decode at batch 1: 3 dense layers run an FFN 18,432 wide, 58 layers their experts.
    //   ffn.dense_up: 2 x 7168 x 18432 = 264,241,152 FLOPs per layer, x 3.
    //   ffn.up: 8 experts of 2048 per token: 2 x 8 x 7168 x 2048 = 234,881,024 per layer, x 58, reading 8 experts'
    //   up weights: 8 x 7168 x 2048 x 2 B = 234,881,024 B per layer.
    const Analysis a = analyze(testpresets::hw("h100-sxm"), config("DeepSeek-V3.json"), decodeAt(4095));
    const Operator *dense = findOp(a, "ffn.dense_up");
    const Operator *routed = findOp(a, "ffn.up");
    QVERIFY(dense && routed);
    QCOMPARE(dense->count, 3.0);
    QCOMPARE(dense->flops, 3.0 * 264241152);
    QCOMPARE(routed->count, 58.0);
    QCOMPARE(routed->flops, 58.0 * 234881024);
    QCOMPARE(routed->weightBytes, 58.0 * 234881024);
    QCOMPARE(findOp(a, "ffn.router")->count, 58.0);
    QCOMPARE(findOp(a, "ffn.shared_up")->count, 58.0);
    // Expert parallelism splits only the routed experts: 256 x 3 x 7168 x 2048 x 58 layers of the 671.0B.
    Scenario s = decodeAt(4095);
    s.ep = 8;
    s.tp = 1;
    const Analysis ep = analyze(testpresets::hw("h100-sxm"), config("DeepSeek-V3.json"), s);
    const double routedParams = 58.0 * 256 * 3 * 7168 * 2048;
    QCOMPARE(static_cast<double>(ep.params.routed), routedParams);
    QCOMPARE(ep.memory.weights, ((671026419200.0 - routedParams) + routedParams / 8) * 2);
}

void TestLayerBlocks::unsupportedParts_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value"); // JSON
    QTest::addColumn<QString>("error");
    QTest::newRow("shared experts whose width overflows")
        << "DeepSeek-V3.json"
        << "n_shared_experts"
        << "4611686018427387904"
        << "cfg.json: n_shared_experts: must be between 0 and 1048576, got 4611686018427387904";
    QTest::newRow("a layer pattern that is not every n-th layer")
        << "gpt-oss-20b.json"
        << "layer_types"
        << R"(["full_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention",
               "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
               "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
               "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
               "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
               "sliding_attention", "sliding_attention", "sliding_attention"])"
        << "cfg.json: layer_types: the full-attention layers are not every n-th layer; such a pattern is not supported";
    QTest::newRow("dense layers after the experts")
        << "Qwen3-30B-A3B.json"
        << "mlp_only_layers"
        << "[0, 5]"
        << "cfg.json: mlp_only_layers: only the first layers may be dense (0, 1, 2, ...), got layer 5";
    QTest::newRow("Jamba attention offset beyond its period")
        << "AI21-Jamba-1.5-Mini.json"
        << "attn_layer_offset"
        << "8"
        << "cfg.json: attn_layer_offset: must be between 0 and attn_layer_period - 1 (7), got 8";
    QTest::newRow("Jamba expert period of 0")
        << "AI21-Jamba-1.5-Mini.json"
        << "expert_layer_period"
        << "0"
        << "cfg.json: expert_layer_period: must be between 1 and the layers (at most 1024), got 0";
    QTest::newRow("llama4 without its text_config") << "Llama-4-Scout-17B-16E-Instruct.trimmed.json"
                                                    << "text_config"
                                                    << "null"
                                                    << "cfg.json: text_config: missing";
    // A gemma3 file is the language model and its vision tower: its text model is in text_config (tst_multimodal).
    QTest::newRow("gemma3 without its text_config") << "gemma-3-1b-it.json"
                                                    << "model_type"
                                                    << "\"gemma3\""
                                                    << "cfg.json: text_config: missing";
}

void TestLayerBlocks::unsupportedParts()
{
    QFETCH(QString, file);
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, error);
    nlohmann::json c = readJsonFile(configPath(file.toUtf8().constData()));
    c[key.toStdString()] = nlohmann::json::parse(value.toStdString());
    try {
        importHfConfig(c, "cfg.json");
        QFAIL("no error");
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.what()), error);
    }
}

void TestLayerBlocks::presetRoundTrip()
{
    // The preset schema keeps every block-model field: a shape written and read back is the same model.
    for (const char *file :
         {"DeepSeek-V3.json", "gemma-3-1b-it.json", "Qwen3-30B-A3B.json", "Kimi-K2-Instruct.json",
          "OLMo-2-1124-13B.json", "AI21-Jamba-1.5-Mini.json", "Llama-4-Maverick-17B-128E-Instruct.trimmed.json",
          "Nemotron-H-56B-Base-8K.json", "Phi-3.5-MoE-instruct.transcribed.json"}) {
        const ModelShape m = config(file);
        const ModelShape back = modelShapeFromJson(toJson(m), "roundtrip.json");
        QCOMPARE(toJson(back).dump(), toJson(m).dump());
        QCOMPARE(paramCount(back).total, paramCount(m).total);
    }
}

void TestLayerBlocks::expertWeightsOfGptOss()
{
    // gpt-oss-20b as released: routed experts in MXFP4 (4 bits + one 8-bit scale per 32: 4.25 bits, 0.53125 B), the
    // rest in BF16. Routed parameters 24 x 32 x 24,891,840 = 19,116,933,120; the other 1,797,824,064 at 2 B:
    //   1,797,824,064 x 2 + 19,116,933,120 x 0.53125 = 3,595,648,128 + 10,155,870,720 = 13,751,518,848 B,
    // the "fits in 16 GB" of the release (the checkpoint's files hold about 13.8 GB).
    const ModelShape m = config("gpt-oss-20b.json");
    Scenario s = decodeAt(4095);
    s.expertWeights = weightFormatFromString("mxfp4");
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, s);
    QCOMPARE(static_cast<qint64>(a.params.routed), qint64(19116933120));
    QCOMPARE(a.weightBytes, 13751518848.0);
    QCOMPARE(a.memory.weights, 13751518848.0);
    // An expert's up projection reads 4 experts' weights per layer at batch 1: 4 x (2880 x 2880 x 0.53125 B and its
    // 2880 biases at 2 B).
    QCOMPARE(findOp(a, "ffn.up")->weightBytes, 24.0 * 4 * (2880 * 2880 * 0.53125 + 2880 * 2));
    // Attention stays 16-bit.
    QCOMPARE(findOp(a, "attn.out_proj")->weightBytes, 24.0 * (4096.0 * 2880 * 2 + 2880 * 2));
    // Unset, the experts take the weights' format.
    s.expertWeights.reset();
    QCOMPARE(analyze(testpresets::hw("h100-sxm"), m, s).weightBytes, 20914757184.0 * 2);
}

void TestLayerBlocks::chunkedAttentionByHand()
{
    // Llama 4's pattern on Qwen3-8B's shape: chunks of 8192 tokens in three layers of four, every fourth layer global
    // (36 layers: 27 chunked, 9 global; 32 query heads and 8 KV heads of 128).
    ModelShape m = config("Qwen3-8B.json");
    m.slidingWindow = 8192;
    m.chunkedAttention = true;
    m.globalEvery = 4;
    // Decode at position 10,001: a chunked layer attends the (10,000 mod 8192) + 1 = 1,809 tokens of its chunk, a
    // global layer all 10,001. Score FLOPs per layer: 2 x 32 x keys x 128.
    const Analysis d = analyze(testpresets::hw("h100-sxm"), m, decodeAt(10000));
    QCOMPARE(findOp(d, "attn.local_score")->count, 27.0);
    QCOMPARE(findOp(d, "attn.local_score")->flops, 27.0 * 2 * 32 * 1809 * 128);
    QCOMPARE(findOp(d, "attn.score")->flops, 9.0 * 2 * 32 * 10001 * 128);
    // Causal prefill of 10,000 tokens: in chunks, 8192 x 8193 / 2 + 1808 x 1809 / 2 = 33,558,528 + 1,635,336
    // = 35,193,864 pairs per head; a sliding window of 8192 would keep 33,558,528 + 1808 x 8192 = 48,369,664.
    Scenario p;
    p.phase = Phase::Prefill;
    p.batch = 1;
    p.seq = 10000;
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, p);
    QCOMPARE(findOp(a, "attn.local_score")->flops, 27.0 * 2 * 32 * 35193864.0 * 128);
    m.chunkedAttention = false;
    const Analysis w = analyze(testpresets::hw("h100-sxm"), m, p);
    QCOMPARE(findOp(w, "attn.local_score")->flops, 27.0 * 2 * 32 * 48369664.0 * 128);
}

void TestLayerBlocks::stateSpaceParamCounts_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("total");
    // Mamba-2 2.7B (mamba_ssm format: d_model 2560, 64 layers, Mamba2 defaults d_state 128, d_conv 4, expand 2,
    // headdim 64 (80 heads), 1 group; vocab 50277 padded to a multiple of 16: 50288; tied):
    //   in_proj 2560 x (2 x 5120 + 2 x 128 + 80) = 27,074,560; conv1d (5120 + 256) x 4 + 5376 = 26,880;
    //   dt_bias, A_log, D 3 x 80 = 240; gated norm 5120; out_proj 5120 x 2560 = 13,107,200; norm 2560
    //   layer 40,216,560; total 64 x 40,216,560 + 50288 x 2560 + 2560 = 2,702,599,680 (the name: 2.7B)
    QTest::newRow("Mamba-2 2.7B = 2,702,599,680") << "mamba2-2.7b.json" << qint64(2702599680);
    // Mamba 2.8B (Hugging Face format, Mamba-1: hidden 2560, 64 layers, d_inner 5120, d_state 16, dt_rank 160,
    // vocab 50280, tied):
    //   in_proj 2560 x 10240 = 26,214,400; conv1d 5120 x 4 + 5120 = 25,600; x_proj 5120 x (160 + 32) = 983,040;
    //   dt_proj 160 x 5120 + 5120 = 824,320; A_log 5120 x 16 = 81,920; D 5120; out_proj 13,107,200; norm 2560
    //   layer 41,244,160; total 64 x 41,244,160 + 50280 x 2560 + 2560 = 2,768,345,600 (the README's 2.8B)
    QTest::newRow("Mamba 2.8B = 2,768,345,600") << "mamba-2.8b-hf.json" << qint64(2768345600);
    // Mamba 130M (hidden 768, 24 layers, d_inner 1536, d_state 16, dt_rank 48, vocab 50280, tied):
    //   2,359,296 + 7,680 + 1536 x 80 + (48 x 1536 + 1536) + 1536 x 16 + 1536 + 1,179,648 + 768 = 3,771,648 a layer;
    //   24 x 3,771,648 + 50280 x 768 + 768 = 129,135,360 (the README's 130M)
    QTest::newRow("Mamba 130M = 129,135,360") << "mamba-130m-hf.json" << qint64(129135360);
    // Mamba-2 130M in the Hugging Face format (mamba2: hidden 768, 24 layers, 24 heads of 64, d_state 128, 1 group,
    // vocab 50288, tied; its time_step_limit holds Python's bare Infinity, read as null):
    //   in_proj 768 x (3072 + 256 + 24) = 2,574,336; conv1d 1792 x 4 + 1792 = 8,960; 3 x 24 = 72; norm 1536;
    //   out_proj 1,179,648; norm 768: 3,765,320 a layer; 24 x 3,765,320 + 50288 x 768 + 768 = 128,989,632
    QTest::newRow("Mamba-2 130M (HF) = 128,989,632") << "mamba2-130m-hf.json" << qint64(128989632);
}

void TestLayerBlocks::stateSpaceParamCounts()
{
    QFETCH(QString, file);
    QFETCH(qint64, total);
    const ModelShape m = config(file.toUtf8().constData());
    QCOMPARE(QString::fromStdString(validate(m).message), QString());
    QCOMPARE(static_cast<qint64>(paramCount(m).total), total);
    const ModelShape back = modelShapeFromJson(toJson(m), "roundtrip.json");
    QCOMPARE(paramCount(back).total, paramCount(m).total);
}

void TestLayerBlocks::stateSpaceStateByHand()
{
    // Mamba-2 2.7B keeps, per sequence and layer, d_inner x d_state = 5120 x 128 = 655,360 scan elements and
    // (d_conv - 1) x (5120 + 2 x 128) = 16,128 convolution inputs: 671,488 x 2 B = 1,342,976 B; over 64 layers
    // 85,950,464 B, at 100 tokens as at 100,000: no KV cache at all.
    const ModelShape m = config("mamba2-2.7b.json");
    QCOMPARE(stateElements(m, 1), 671488.0);
    for (int64_t context : {99, 99999}) {
        const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(context));
        QCOMPARE(a.kvCache.totalBytes, 0.0);
        QCOMPARE(a.kvCache.bytesPerToken, 0.0);
        QCOMPARE(a.kvCache.stateBytesPerSequence, 85950464.0);
        QCOMPARE(a.memory.state, 85950464.0);
        QCOMPARE(a.memory.kv, 0.0);
    }
    // Batch 8 over tp 2: each rank keeps half the channels of every sequence: 8 x 64 x (2560 x 128 + 3 x (2560 +
    // 256)) x 2 B (the one group is kept whole on both ranks).
    Scenario s = decodeAt(999);
    s.batch = 8;
    s.tp = 2;
    QCOMPARE(analyze(testpresets::hw("h100-sxm"), m, s).memory.state, 8.0 * 64 * (2560 * 128 + 3 * (2560 + 256)) * 2);
}

void TestLayerBlocks::stateSpaceDecodeReadsItsState()
{
    // One decode step of Mamba-2 2.7B at batch 1 reads and writes each layer's scan state once:
    //   bytes 64 x 2 x 655,360 x 2 B = 167,772,160; FLOPs 64 x 5120 x (5 x 128 + 2) = 210,370,560.
    // The in_proj reads its 27,074,560 weights: 64 x 54,149,120 B. There is no attention and no FFN.
    const Analysis a = analyze(testpresets::hw("h100-sxm"), config("mamba2-2.7b.json"), decodeAt(4095));
    const Operator *scan = findOp(a, "ssm.scan");
    QVERIFY(scan);
    QCOMPARE(scan->count, 64.0);
    QCOMPARE(scan->kvBytes, 167772160.0);
    QCOMPARE(scan->flops, 210370560.0);
    QCOMPARE(findOp(a, "ssm.in_proj")->weightBytes, 64.0 * 54149120);
    QVERIFY(!findOp(a, "attn.score") && !findOp(a, "ffn.up") && !findOp(a, "ffn.norm"));
    // A prompt of 1,000 tokens runs the chunked scan in chunks of 256: 3 x 256 x 257 / 2 + 232 x 233 / 2 = 125,716
    // causal pairs within chunks, each 2 x 128 x 1 + 2 x 5120 + 80 FLOPs, plus 1000 x 5120 x (4 x 128 + 2) for the
    // chunk states and outputs.
    Scenario p;
    p.phase = Phase::Prefill;
    p.batch = 1;
    p.seq = 1000;
    const Analysis pre = analyze(testpresets::hw("h100-sxm"), config("mamba2-2.7b.json"), p);
    QCOMPARE(findOp(pre, "ssm.scan")->flops, 64.0 * (125716.0 * (256 + 10240 + 80) + 1000.0 * 5120 * (4 * 128 + 2)));
    // The headline names what a step reads: the state, not a KV cache.
    Scenario big = decodeAt(32767);
    big.batch = 256;
    const Analysis b = analyze(testpresets::hw("h100-sxm"), config("mamba2-2.7b.json"), big);
    const std::string text = explain(testpresets::hw("h100-sxm"), config("mamba2-2.7b.json"), big, b);
    QVERIFY2(text.find("of recurrent state") != std::string::npos && text.find("KV cache") == std::string::npos,
             text.c_str());
    // Mamba-1 (2.8B) has x_proj and dt_proj instead of the gated norm.
    const Analysis m1 = analyze(testpresets::hw("h100-sxm"), config("mamba-2.8b-hf.json"), decodeAt(4095));
    QVERIFY(findOp(m1, "ssm.x_proj") && findOp(m1, "ssm.dt_proj") && findOp(m1, "ssm.gate"));
    QCOMPARE(findOp(m1, "ssm.scan")->kvBytes, 64.0 * 2 * 5120 * 16 * 2);
}

void TestLayerBlocks::qwen35HandCounts()
{
    // Qwen3.5-397B-A17B's language model (text_config; Qwen3_5MoeForConditionalGeneration's vision tower and the MTP
    // layer are not modelled, and the name says so). h 4096, 60 layers: layer_types put full attention on layers 3,
    // 7, ..., 59 (15) and Gated DeltaNet on the other 45. No published exact total was found (the model card says
    // "397B"), so it is counted here term by term from transformers' modules:
    // Gated DeltaNet (Qwen3_5GatedDeltaNet): in_proj_qkv 4096 x (2 x 16 x 128 + 64 x 128) = 4096 x 12,288, in_proj_z
    //   4096 x 8192, in_proj_b and in_proj_a 4096 x 64 each: 4096 x 20,608 = 84,410,368; conv1d 12,288 x 4 = 49,152
    //   (no bias); dt_bias 64 + A_log 64; norm 128; out_proj 8192 x 4096 = 33,554,432: 118,014,208.
    // Gated attention (Qwen3_5MoeAttention): q_proj 4096 x (32 x 256 x 2) = 67,108,864, k_proj and v_proj 4096 x 512
    //   each = 4,194,304, o_proj 8192 x 4096 = 33,554,432, q_norm and k_norm 256 each: 104,858,112.
    // MoE (Qwen3_5MoeSparseMoeBlock): 512 experts x 3 x 4096 x 1024 = 6,442,450,944; shared expert 3 x 4096 x 1024 =
    //   12,582,912 and its gate 4096; router 4096 x 512 = 2,097,152: 6,457,135,104 (active: 10 experts, 125,829,120,
    //   + 12,582,912 + 4096 + 2,097,152 = 140,513,280).
    // Two RMSNorms a layer, 8192. Embeddings 248,320 x 4096 = 1,017,118,720; untied lm_head the same; final norm 4096.
    // Total: 2 x 1,017,118,720 + 4096 + 45 x (118,014,208 + 6,457,135,104 + 8192)
    //        + 15 x (104,858,112 + 6,457,135,104 + 8192) = 396,346,350,336 ("397B").
    // Active: 2 x 1,017,118,720 + 4096 + 45 x (118,014,208 + 140,513,280 + 8192)
    //        + 15 x (104,858,112 + 140,513,280 + 8192) = 17,349,040,896 ("A17B").
    const ModelShape m = config("Qwen3.5-397B-A17B.json");
    QVERIFY2(m.name.find("vision tower is not modelled") != std::string::npos, m.name.c_str());
    QCOMPARE(m.attentionEvery, int64_t(4));
    QCOMPARE(m.attentionOffset, int64_t(3));
    QCOMPARE(m.rotaryFraction, 0.25);
    const LayerGroups g = layerGroups(m);
    QCOMPARE(g.size(), std::size_t(2));
    QCOMPARE(g[0].block, (LayerBlock{LayerMixer::LinearRecurrent, LayerFfn::Moe, 0}));
    QCOMPARE(g[0].count, int64_t(45));
    QCOMPARE(g[1].block, (LayerBlock{LayerMixer::Attention, LayerFfn::Moe, 0}));
    QCOMPARE(g[1].count, int64_t(15));
    const ParamCounts p = paramCount(m);
    QCOMPARE(static_cast<qint64>(p.total), qint64(396346350336));
    QCOMPARE(static_cast<qint64>(p.active), qint64(17349040896));
    // The preset keys say the same shape (written only when they differ from the default).
    const nlohmann::json j = toJson(m);
    QCOMPARE(j.at("linear_value_heads").get<int64_t>(), int64_t(64));
    QCOMPARE(j.at("rotary_fraction").get<double>(), 0.25);
    QVERIFY(!toJson(testpresets::model("llama-3-8b")).contains("linear_key_heads"));
    const ModelShape back = modelShapeFromJson(j, "roundtrip.json");
    QCOMPARE(static_cast<qint64>(paramCount(back).total), qint64(396346350336));
    QVERIFY(back.attentionOutputGate);
    QCOMPARE(back.attentionEvery, int64_t(4));
    // Qwen3.5-27B (dense, qwen3_5): h 5120, 64 layers (48 Gated DeltaNet, 16 full), 24 query and 4 KV heads of 256,
    // linear 16 key and 48 value heads of 128, FFN 17,408.
    // Gated DeltaNet: 5120 x (4096 + 2 x 6144 + 96) = 5120 x 16,480 = 84,377,600; conv 10,240 x 4 = 40,960; 96; 128;
    //   out_proj 6144 x 5120 = 31,457,280: 115,876,064.
    // Attention: q_proj 5120 x 12,288 = 62,914,560; k, v 2 x 5120 x 1024 = 10,485,760; o_proj 6144 x 5120 =
    //   31,457,280; norms 512: 104,858,112. FFN 3 x 5120 x 17,408 = 267,386,880; norms 10,240.
    // Embeddings and untied head 2 x 248,320 x 5120 = 2,542,796,800; final norm 5120.
    // Total: 2,542,796,800 + 5120 + 48 x (115,876,064 + 267,386,880 + 10,240) + 16 x (104,858,112 + 267,386,880
    //        + 10,240) = 26,895,998,464 ("27B"; the vision tower is not counted).
    const ParamCounts d = paramCount(config("Qwen3.5-27B.json"));
    QCOMPARE(static_cast<qint64>(d.total), qint64(26895998464));
    QCOMPARE(d.active, d.total);
}

void TestLayerBlocks::qwen35StateAndKvBytes()
{
    // Qwen3.5-397B-A17B, 16-bit cache: the 15 attention layers cache 2 x 2 KV heads x 256 = 1024 elements a token
    // each: 15,360 elements, 30,720 B a token. Each of the 45 Gated DeltaNet layers keeps 64 value heads x 128 x 128
    // = 1,048,576 state elements, in float32 as its config's mamba_ssm_dtype says, and 3 x 12,288 = 36,864 of the
    // convolution in the cache's 16 bits: 45 x (1,048,576 x 4 + 36,864 x 2) B = 192,061,440 B a sequence, whatever
    // the context (97,689,600 B were the whole state in 16 bits).
    const ModelShape m = config("Qwen3.5-397B-A17B.json");
    for (int64_t context : {int64_t(1024), int64_t(131072)}) {
        Scenario s = decodeAt(context);
        s.tp = 8;
        const Analysis a = analyze(testpresets::hw("h100-sxm"), m, s);
        QCOMPARE(a.kvCache.bytesPerToken, 30720.0);
        QCOMPARE(a.kvCache.stateBytesPerSequence, 192061440.0);
        QCOMPARE(a.kvCache.totalBytes, 30720.0 * static_cast<double>(context + 1));
        // Per device (tp 8): 8 value heads and 1536 convolved channels of each layer's state.
        QCOMPARE(a.memory.state, 45.0 * (8 * 128 * 128 * 4 + 3 * 1536 * 2));
    }
}

void TestLayerBlocks::stateFormatOfTheConfig()
{
    // Qwen3.5 declares mamba_ssm_dtype float32 and Nemotron-3 mamba_ssm_cache_dtype float32: the recurrent state is
    // kept in 4 bytes an element whatever the KV cache's format; the convolution's inputs follow the KV cache.
    const ModelShape qwen = config("Qwen3.5-397B-A17B.json");
    QCOMPARE(qwen.stateFormat, std::optional<DType>(DType::FP32));
    // Without the key, the whole state takes the KV cache's format: 45 x 1,085,440 x 2 B = 97,689,600 B.
    nlohmann::json c = readJsonFile(configPath("Qwen3.5-397B-A17B.json"), /*pythonFloats=*/true);
    c["text_config"].erase("mamba_ssm_dtype");
    const ModelShape plain = importHfConfig(c, "cfg.json");
    QVERIFY(!plain.stateFormat);
    const HardwareSpec &hw = testpresets::hw("h100-sxm");
    QCOMPARE(analyze(hw, plain, decodeAt(4095)).kvCache.stateBytesPerSequence, 97689600.0);
    // An FP8 KV cache halves the convolution's share only: 45 x (1,048,576 x 4 + 36,864 x 1) = 190,402,560 B.
    Scenario fp8 = decodeAt(4095);
    fp8.kv = DType::FP8;
    QCOMPARE(analyze(hw, qwen, fp8).kvCache.stateBytesPerSequence, 190402560.0);
    // Nemotron-3 Nano: 23 Mamba-2 layers of d_inner 4096 x d_state 128 = 524,288 elements (float32) and a convolution
    // of 3 x (4096 + 2 x 8 x 128) = 18,432 elements (16 bits): 23 x (2,097,152 + 36,864) = 49,082,368 B a sequence.
    const ModelShape nano = config("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json");
    QCOMPARE(nano.stateFormat, std::optional<DType>(DType::FP32));
    const Analysis a = analyze(hw, nano, decodeAt(4095));
    QCOMPARE(a.kvCache.stateBytesPerSequence, 49082368.0);
    QCOMPARE(a.memory.state, 49082368.0);
    // Its decode step reads and writes the scan's state in float32: 23 x 2 x 524,288 x 4 B.
    QCOMPARE(findOp(a, "ssm.scan")->kvBytes, 23.0 * 2 * 524288 * 4);
    // The preset form keeps it (state_dtype), and refuses a format a state is not kept in.
    QCOMPARE(modelShapeFromJson(toJson(nano), "p.json").stateFormat, std::optional<DType>(DType::FP32));
    nlohmann::json j = toJson(nano);
    j["state_dtype"] = "int4";
    try {
        modelShapeFromJson(j, "p.json");
        QFAIL("no error");
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.what()),
                 QString("p.json: state_dtype: expected fp32, bf16 or fp16, got 'int4'"));
    }
    c["text_config"]["mamba_ssm_dtype"] = "int8";
    try {
        importHfConfig(c, "cfg.json");
        QFAIL("no error");
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.what()),
                 QString("cfg.json: text_config.mamba_ssm_dtype: expected float32, bfloat16 or float16, got 'int8'"));
    }
}

void TestLayerBlocks::cohere2GlobalLayersWithoutPositions()
{
    // Command R7B (Cohere2ForCausalLM): the shapes its module printout shows (Svngoku/c4ai-command-r7b-12-2024-4bit's
    // model card: embed_tokens 256000 x 4096, 32 layers, q_proj and o_proj 4096 x 4096, k_proj and v_proj 4096 x
    // 1024, gate/up 4096 x 14336, no biases) with Cohere2Config's window (sliding_window 4096, every fourth layer
    // global: sliding_window_pattern 4). No verbatim copy of its config.json was found, so none is in tests/data.
    const nlohmann::json c = {{"model_type", "cohere2"},     {"hidden_size", 4096},
                              {"num_hidden_layers", 32},     {"num_attention_heads", 32},
                              {"num_key_value_heads", 8},    {"intermediate_size", 14336},
                              {"vocab_size", 256000},        {"sliding_window", 4096},
                              {"sliding_window_pattern", 4}, {"max_position_embeddings", 131072}};
    const ModelShape m = importHfConfig(c, "cfg.json");
    //   layer 2 x 4096 x 4096 + 2 x 4096 x 1024 + 3 x 4096 x 14336 + one LayerNorm without a bias 4096 = 218,107,904
    //   total 32 x 218,107,904 + 256000 x 4096 (tied) + 4096 = 8,028,033,024 (the card: 7B; the same shapes in
    //   Aya Expanse 8B, a cohere model, total 8,028,033,024)
    QCOMPARE(paramCount(m).total, int64_t(8028033024));
    const LayerGroups g = layerGroups(m);
    QCOMPARE(g.size(), std::size_t(2));
    QVERIFY(g[0].block.mixer == LayerMixer::Sliding);
    QCOMPARE(g[0].count, int64_t(24));
    QVERIFY(g[1].block.mixer == LayerMixer::Attention);
    QCOMPARE(g[1].firstLayer, int64_t(3));
    // KV cache at 131,072 tokens: 2 x 8 x 128 x 2 B = 4,096 B a token and layer; the 8 global layers keep all
    // (4,294,967,296 B), the 24 sliding ones their last 4,096 (402,653,184 B): 4,697,620,480 B.
    QCOMPARE(cachedElements(m, g, 131072, 1) * 2, 4697620480.0);
    // Rotary positions only in the 24 sliding layers: 3 FLOPs x (4096 + 1024) q and k elements a token.
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(4095));
    QCOMPARE(findOp(a, "attn.rope")->count, 24.0);
    QCOMPARE(findOp(a, "attn.rope")->flops, 24.0 * 3 * (4096 + 1024));
    QCOMPARE(findOp(a, "attn.qkv_proj")->count, 32.0);
    QCOMPARE(modelShapeFromJson(toJson(m), "p.json").globalNoPositions, true);
}

void TestLayerBlocks::linearAttentionOperators()
{
    // One decode step of Qwen3.5-397B-A17B at batch 1, tp 1: each of the 45 Gated DeltaNet layers runs the recurrent
    // delta rule, 64 value heads x (7 x 128 x 128 + 2 x 128) = 7,356,416 FLOPs, and reads and writes its float32
    // state (mamba_ssm_dtype), 2 x 64 x 128 x 128 x 4 B = 8,388,608 B (an operator's figures are over its 45
    // executions).
    const ModelShape m = config("Qwen3.5-397B-A17B.json");
    const HardwareSpec &hw = testpresets::hw("h100-sxm");
    const Analysis a = analyze(hw, m, decodeAt(4095));
    const Operator *scan = findOp(a, "linear.scan");
    QVERIFY(scan);
    QCOMPARE(scan->count, 45.0);
    QCOMPARE(scan->flops, 45.0 * 7356416);
    QCOMPARE(scan->kvBytes, 45.0 * 8388608);
    // in_proj reads its 84,410,368 weights; the convolution's state is 3 x 12,288 elements, read and written.
    QCOMPARE(findOp(a, "linear.in_proj")->weightBytes, 45.0 * 84410368 * 2);
    QCOMPARE(findOp(a, "linear.conv")->kvBytes, 45.0 * 2 * 3 * 12288 * 2);
    // The full-attention layers: q_proj doubled for the gate (8192 + 8192 + 2 x 512 outputs), the gate applied, and
    // rotary positions on a quarter of q and k: 3 x (8192 + 512) / 4 FLOPs a token.
    QCOMPARE(findOp(a, "attn.qkv_proj")->weightBytes, 15.0 * 4096 * 17408 * 2);
    QCOMPARE(findOp(a, "attn.qkv_proj")->count, 15.0);
    QVERIFY(findOp(a, "attn.output_gate"));
    QCOMPARE(findOp(a, "attn.rope")->flops, 15.0 * 3 * (8192 + 512) / 4);
    // A prompt of 1000 tokens runs the chunked rule in chunks of 64, padded to 1024 tokens:
    // 1024 x 64 heads x 2 x (64 x (3 x 128 + 2 x 128) + 64^2 / 3 + 3 x 128 x 128) FLOPs.
    Scenario p;
    p.phase = Phase::Prefill;
    p.batch = 1;
    p.seq = 1000;
    const Analysis pre = analyze(hw, m, p);
    QCOMPARE(findOp(pre, "linear.scan")->flops, 45.0 * 1024 * 64 * 2 * (64.0 * 640 + 4096.0 / 3 + 3.0 * 16384));
    QCOMPARE(findOp(pre, "linear.scan")->kvBytes, 45.0 * 64 * 128 * 128 * 4); // written once, in float32
    // Every phase runs; the decode step's state traffic does not grow with the context, the attention layers' does.
    for (Phase ph : {Phase::Prefill, Phase::Decode, Phase::Generate, Phase::Train}) {
        Scenario s = decodeAt(2048);
        s.phase = ph;
        s.seq = 2048;
        s.output = 16;
        s.tp = 8;
        const Analysis x = analyze(hw, m, s);
        QVERIFY(x.totals.timeS > 0 && std::isfinite(x.totals.timeS));
    }
    const Analysis far = analyze(hw, m, decodeAt(131071));
    QCOMPARE(findOp(far, "linear.scan")->kvBytes, scan->kvBytes);
    QVERIFY(findOp(far, "attn.score")->kvBytes > 30 * findOp(a, "attn.score")->kvBytes);
}

void TestLayerBlocks::linearAttentionRefusals()
{
    // A bad config is refused in one line naming the file, the field and the value.
    nlohmann::json c = nlohmann::json::parse(R"({"model_type": "qwen3_next", "hidden_size": 2048,
        "num_hidden_layers": 48, "num_attention_heads": 16, "vocab_size": 151936,
        "linear_num_key_heads": 16, "linear_num_value_heads": 24})");
    try {
        importHfConfig(c, "next.json");
        QFAIL("a value head count that is no multiple of the key heads was accepted");
    } catch (const InputError &e) {
        QCOMPARE(std::string(e.what()),
                 std::string("next.json: linear_num_value_heads: 24 is not a multiple of linear_num_key_heads (16)"));
    }
    c["linear_num_value_heads"] = 32;
    c["layer_types"] = nlohmann::json::array();
    for (int i = 0; i < 48; ++i)
        c["layer_types"].push_back(i == 5 ? "full_attention" : "linear_attention");
    try {
        importHfConfig(c, "next.json");
        QFAIL("an irregular layer_types was accepted");
    } catch (const InputError &e) {
        QCOMPARE(std::string(e.what()), std::string("next.json: layer_types: the full-attention layers are not every "
                                                    "n-th layer; such a pattern is not supported"));
    }
    // Qwen3-Next's defaults (Qwen3NextConfig: the 80B-A3B shape) fill the rest: every fourth layer attends.
    c.erase("layer_types");
    const ModelShape m = importHfConfig(c, "next.json");
    QCOMPARE(m.attentionEvery, int64_t(4));
    QCOMPARE(m.experts, int64_t(512));
    QCOMPARE(linearLayers(layerGroups(m)), int64_t(36));
}

void TestLayerBlocks::hybridPattern()
{
    // A Jamba-like hybrid on Mamba-1 2.8B's shape: attention in one layer of 8 (offset 4) with 32 heads and 8 KV heads
    // of 80, an FFN of 10240 in every layer. 8 attention layers keep a KV cache, 56 state-space layers a state.
    ModelShape m = config("mamba-2.8b-hf.json");
    m.attentionEvery = 8;
    m.attentionOffset = 4;
    m.heads = 32;
    m.kvHeads = 8;
    m.headDim = 80;
    m.ffn = 10240;
    m.gatedFfn = true;
    QCOMPARE(QString::fromStdString(validate(m).message), QString());
    const LayerGroups g = layerGroups(m);
    QCOMPARE(ssmLayers(g), int64_t(56));
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(4095));
    // KV: 8 layers x 2 x 8 x 80 x 2 B x 4096 tokens = 83,886,080 B; state: 56 x (5120 x 16 + 3 x 5120) x 2 B.
    QCOMPARE(a.memory.kv, 83886080.0);
    QCOMPARE(a.memory.state, 56.0 * (5120 * 16 + 3 * 5120) * 2);
    QCOMPARE(findOp(a, "attn.score")->count, 8.0);
    QCOMPARE(findOp(a, "ssm.scan")->count, 56.0);
    QCOMPARE(findOp(a, "ffn.up")->count, 64.0);
    // Parameters: the state-space layers' mixers, the attention layers' (2560 x (2560 + 1280) + 2560 x 2560), and
    // an FFN and two norms in every layer.
    const ParamCounts p = paramCount(m);
    const int64_t ssm = 41244160 - 2560, attention = 2560 * (2560 + 1280) + 2560 * 2560;
    QCOMPARE(p.layers, 56 * ssm + 8 * attention + int64_t(64) * (3 * 2560 * 10240 + 2 * 2560));
}

void TestLayerBlocks::disaggregationSendsTheState()
{
    // Prefill/decode pools hand each request over: a transformer its KV cache (bytes per token x prompt), a
    // state-space model its fixed state. Mamba-2 2.7B with a 2,048-token prompt sends 85,950,464 B, not 0; DeepSeek-V3
    // sends its latent cache, 70,272 B x 2048 = 143,917,056 B.
    Scenario s;
    s.phase = Phase::Generate;
    s.batch = 16;
    s.seq = 2048;
    s.output = 256;
    s.prefillDevices = 1;
    s.decodeDevices = 1;
    const ServingReport mamba = serve(testpresets::hw("h100-sxm"), config("mamba2-2.7b.json"), s);
    QVERIFY(mamba.disaggregation);
    QCOMPARE(mamba.disaggregation->kvBytesPerRequest, 85950464.0);
    s.tp = 8;
    s.prefillDevices = 8;
    s.decodeDevices = 8;
    const ServingReport ds = serve(testpresets::hw("h200-sxm"), config("DeepSeek-V3.json"), s);
    QVERIFY(ds.disaggregation);
    QCOMPARE(ds.disaggregation->kvBytesPerRequest, 143917056.0);
}

void TestLayerBlocks::fullWidthQkNormOfOlmo2()
{
    // OLMo 2's q_norm and k_norm weigh every element of q (40 x 128) and k (40 x 128): one decode step reads
    // 40 layers x (5120 + 5120) x 2 B = 819,200 B of them and normalises 2 x 5120 elements a layer (4 FLOPs each).
    const ModelShape m = config("OLMo-2-1124-13B.json");
    QVERIFY(m.qkNorm && m.qkNormFullWidth && !m.postNorms);
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(4095));
    const Operator *qk = findOp(a, "attn.qk_norm");
    QVERIFY(qk);
    QCOMPARE(qk->count, 40.0);
    QCOMPARE(qk->weightBytes, 40.0 * (5120 + 5120) * 2);
    // The preset key keeps it; without it the norms are per head (2 x 128 weights a layer: 399,360 fewer in all).
    QCOMPARE(toJson(m).value("qk_norm_full_width", false), true);
    ModelShape perHead = m;
    perHead.qkNormFullWidth = false;
    QCOMPARE(paramCount(m).total - paramCount(perHead).total, int64_t(40) * (10240 - 256));
    ModelShape bad = m;
    bad.qkNorm = false;
    QCOMPARE(QString::fromStdString(validate(bad).message), QString("qk_norm_full_width needs qk_norm"));
}

void TestLayerBlocks::stateOfJamba()
{
    // Jamba 1.5 Mini's 28 Mamba layers each keep d_inner x d_state = 8192 x 16 = 131,072 scan elements and
    // (d_conv - 1) x 8192 = 24,576 convolution inputs per sequence: 155,648 x 2 B x 28 = 8,716,288 B, at 1,000
    // tokens as at 262,144, beside the 4 attention layers' KV cache (16,384 B per token).
    const ModelShape m = config("AI21-Jamba-1.5-Mini.json");
    QCOMPARE(stateElements(m, 1), 155648.0);
    for (int64_t context : {1000, 262144}) {
        const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(context - 1));
        QCOMPARE(a.kvCache.stateBytesPerSequence, 8716288.0);
        QCOMPARE(a.memory.state, 8716288.0);
        QCOMPARE(a.memory.kv, 16384.0 * static_cast<double>(context));
    }
    // A decode step: 4 attention cores, 28 scans with Jamba's dt/B/C norms, 16 routed FFNs and 16 dense ones.
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(4095));
    QCOMPARE(findOp(a, "attn.score")->count, 4.0);
    QCOMPARE(findOp(a, "ssm.scan")->count, 28.0);
    QCOMPARE(findOp(a, "ssm.inner_norms")->count, 28.0);
    QCOMPARE(findOp(a, "ffn.router")->count, 16.0);
    QCOMPARE(findOp(a, "ffn.dense_up")->count, 16.0);
    QVERIFY(!findOp(a, "attn.rope")); // Jamba's attention has no positions
}

void TestLayerBlocks::llama4TextModel()
{
    // A llama4 config is Llama4ForConditionalGeneration: its text_config is imported alone, and the name says so. The
    // same text_config as a config of its own (llama4_text) is the same model under its plain name.
    const ModelShape scout = config("Llama-4-Scout-17B-16E-Instruct.trimmed.json");
    QCOMPARE(QString::fromStdString(scout.name), QString("Llama-4-Scout-17B-16E-Instruct.trimmed (language model)"));
    QCOMPARE(QString::fromStdString(scout.family), QString("llama4"));
    QVERIFY(scout.chunkedAttention);
    QCOMPARE(scout.slidingWindow, int64_t(8192));
    QCOMPARE(scout.globalEvery, int64_t(4));
    QCOMPARE(scout.sharedFfn, int64_t(8192));
    QVERIFY(!scout.tiedEmbeddings);
    nlohmann::json c = readJsonFile(configPath("Llama-4-Scout-17B-16E-Instruct.trimmed.json"));
    const ModelShape text = importHfConfig(c["text_config"], "text.json");
    QCOMPARE(QString::fromStdString(text.name), QString("text"));
    ModelShape renamed = text;
    renamed.id = scout.id;
    renamed.name = scout.name;
    QCOMPARE(toJson(renamed).dump(), toJson(scout).dump());
    // The vision encoder, which the published config.json holds, is counted beside the language model and changes
    // nothing in it (tst_multimodal counts the encoder).
    const ParamCounts full =
        paramCount(importHfConfigFile(configPath("Llama-4-Scout-17B-16E-Instruct.vision.transcribed.json")));
    QCOMPARE(full.total - full.vision, paramCount(scout).total);
    // A decode step at 10,001 tokens: 36 chunked layers attend the 1,809 tokens of their chunk, 12 global ones all.
    const Analysis a = analyze(testpresets::hw("h100-sxm"), scout, decodeAt(10000));
    QCOMPARE(findOp(a, "attn.local_score")->count, 36.0);
    QCOMPARE(findOp(a, "attn.local_score")->flops, 36.0 * 2 * 40 * 1809 * 128);
    QCOMPARE(findOp(a, "attn.score")->flops, 12.0 * 2 * 40 * 10001 * 128);
    QCOMPARE(findOp(a, "ffn.shared_up")->count, 48.0);
}

void TestLayerBlocks::llama4LayerLists_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value"); // JSON, in Maverick's text_config
    QTest::addColumn<QString>("error"); // empty: accepted, the same model
    QString odd = "[", pattern = "[";
    for (int i = 0; i < 48; ++i) {
        if (i % 2 == 1)
            odd += QString(odd.size() > 1 ? ", " : "") + QString::number(i);
        pattern += QString(i > 0 ? ", " : "") + (i % 4 == 3 ? "0" : "1");
    }
    odd += "]";
    pattern += "]";
    QTest::newRow("moe_layers as its default") << "moe_layers" << odd << QString();
    QTest::newRow("no_rope_layers as its default") << "no_rope_layers" << pattern << QString();
    QTest::newRow("no_rope_layers empty") << "no_rope_layers"
                                          << "[]" << QString();
    QTest::newRow("moe_layers elsewhere")
        << "moe_layers"
        << "[0, 1, 3]"
        << "cfg.json: text_config.moe_layers: only every interleave_moe_layer_step-th layer (1, 3, ...) may be a MoE "
           "layer";
    QTest::newRow("no_rope_layers elsewhere")
        << "no_rope_layers"
        << "[0, 1, 1, 1]"
        << "cfg.json: text_config.no_rope_layers: only every no_rope_layer_interval-th layer (3, 7, ...) may be a "
           "NoPE layer";
    QTest::newRow("a single expert") << "num_local_experts"
                                     << "1"
                                     << "cfg.json: text_config.num_local_experts: a Llama 4 MoE layer of one routed "
                                        "expert is not supported, got 1";
}

void TestLayerBlocks::llama4LayerLists()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, error);
    nlohmann::json c = readJsonFile(configPath("Llama-4-Maverick-17B-128E-Instruct.trimmed.json"));
    c["text_config"][key.toStdString()] = nlohmann::json::parse(value.toStdString());
    try {
        const ModelShape m = importHfConfig(c, "cfg.json");
        QCOMPARE(QString("accepted"), error.isEmpty() ? QString("accepted") : error);
        QCOMPARE(static_cast<qint64>(paramCount(m).total), qint64(400711848960));
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.what()), error);
    }
}

void TestLayerBlocks::nemotronHLayersOfOnePart()
{
    // The published config.json carries Python's bare Infinity ("time_step_limit": [0.0, Infinity]), which is not
    // JSON: the importer reads the file as it is (the value reads as null, and nothing uses it).
    QVERIFY_THROWS_EXCEPTION(InputError, readJsonFile(configPath("Nemotron-H-56B-Base-8K.json")));
    const ModelShape m = config("Nemotron-H-56B-Base-8K.json");
    QCOMPARE(QString::fromStdString(m.family), QString("nemotron_h"));
    QCOMPARE(m.layerPattern.size(), std::size_t(118));
    QVERIFY(m.activation == Activation::Relu2);
    QVERIFY(!m.gatedFfn);
    QCOMPARE(m.ssm.innerSize, int64_t(16384));
    // Layer 0 is Mamba-2, layer 1 an MLP, layer 7 attention: 54, 54 and 10 layers (the ADLR blog: "54 Mamba-2, 54
    // MLP, and 10 Self-Attention layers").
    const LayerGroups g = layerGroups(m);
    QCOMPARE(g.size(), std::size_t(3));
    QCOMPARE(g[0].block, (LayerBlock{LayerMixer::Ssm, LayerFfn::None, 0}));
    QCOMPARE(g[0].count, int64_t(54));
    QCOMPARE(g[1].block, (LayerBlock{LayerMixer::None, LayerFfn::Dense, 0}));
    QCOMPARE(g[1].count, int64_t(54));
    QCOMPARE(g[2].block, (LayerBlock{LayerMixer::Attention, LayerFfn::None, 0}));
    QCOMPARE(g[2].count, int64_t(10));
    QCOMPARE(attentionLayers(g), int64_t(10));
    QCOMPARE(ssmLayers(g), int64_t(54));

    // State per sequence: each Mamba-2 layer keeps d_inner x d_state = 16384 x 256 = 4,194,304 scan elements and
    // (d_conv - 1) x (16384 + 2 x 8 x 256) = 3 x 20480 = 61,440 convolution inputs: 4,255,744 x 2 B x 54 layers
    // = 459,620,352 B, whatever the context, beside the 10 attention layers' 40,960 B per token.
    QCOMPARE(stateElements(m, 1), 4255744.0);
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(8191));
    QCOMPARE(a.kvCache.bytesPerToken, 40960.0);
    QCOMPARE(a.memory.kv, 335544320.0);
    QCOMPARE(a.kvCache.stateBytesPerSequence, 459620352.0);
    QCOMPARE(a.memory.state, 459620352.0);
    // A decode step: one norm per layer under its part's name, each part in its own layers only.
    QCOMPARE(findOp(a, "ssm.in_norm")->count, 54.0);
    QCOMPARE(findOp(a, "ssm.scan")->count, 54.0);
    QCOMPARE(findOp(a, "attn.norm")->count, 10.0);
    QCOMPARE(findOp(a, "attn.score")->count, 10.0);
    QCOMPARE(findOp(a, "ffn.norm")->count, 54.0);
    QCOMPARE(findOp(a, "ffn.residual")->count, 54.0);
    QVERIFY(!findOp(a, "attn.rope")); // no positions
    QVERIFY(!findOp(a, "ffn.gate"));  // two matrices
    // Squared ReLU: 2 FLOPs per element (the max, then the square): 54 x 2 x 32768 = 3,538,944 at one token. The up
    // projection reads 54 x 8192 x 32768 x 2 B of weights.
    QCOMPARE(findOp(a, "ffn.act")->flops, 3538944.0);
    QCOMPARE(findOp(a, "ffn.up")->weightBytes, 54.0 * 8192 * 32768 * 2);
    // Every weight is read once a step: the operators' weight bytes and the parameters at 2 B agree but for the
    // embedding (only the looked-up row is read).
    double weights = 0;
    for (const Operator &op : a.operators)
        weights += op.weightBytes;
    QCOMPARE(weights, (56324350464.0 - 131072.0 * 8192 + 8192) * 2);
    // Tensor parallelism: one all-reduce per layer (each has one part), not two.
    Scenario tp2 = decodeAt(8191);
    tp2.tp = 2;
    const Analysis b = analyze(testpresets::hw("h100-sxm"), m, tp2);
    QCOMPARE(b.comm.tpBytes, 118.0 * 2 * (2 - 1) / 2 * 8192 * 2);
}

void TestLayerBlocks::nemotronHRefusals_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value"); // JSON
    QTest::addColumn<QString>("error");
    QTest::newRow("a pattern shorter than the layers")
        << "hybrid_override_pattern"
        << R"("M-ME")"
        << "cfg.json: hybrid_override_pattern: has 4 layers for num_hidden_layers 118";
    std::string pattern(118, '-');
    pattern[3] = 'X';
    QTest::newRow("another letter in a pattern of 118")
        << "hybrid_override_pattern" << QString::fromStdString("\"" + pattern + "\"")
        << "cfg.json: hybrid_override_pattern: layer 3 is 'X'; only M (Mamba-2), * (attention), - (MLP) and E (MoE) "
           "are supported";
    pattern[3] = 'E';
    QTest::newRow("an expert layer without n_routed_experts")
        << "hybrid_override_pattern" << QString::fromStdString("\"" + pattern + "\"")
        << "cfg.json: moe_intermediate_size: missing";
    QTest::newRow("a window")
        << "sliding_window"
        << "4096"
        << "cfg.json: sliding_window: a window in Nemotron-H's attention layers is not supported, "
           "got 4096";
    QTest::newRow("another activation")
        << "mlp_hidden_act"
        << R"("tanh")"
        << "cfg.json: mlp_hidden_act: unsupported activation 'tanh' (supported: gelu and "
           "its variants, silu, swish, relu)";
}

void TestLayerBlocks::nemotronHRefusals()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, error);
    nlohmann::json c = readJsonFile(configPath("Nemotron-H-56B-Base-8K.json"), /*pythonFloats=*/true);
    c[key.toStdString()] = nlohmann::json::parse(value.toStdString());
    try {
        importHfConfig(c, "cfg.json");
        QFAIL("no error");
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.what()), error);
    }
    // The block model says the same of a shape: a layer pattern of other letters, or M without state-space layers.
    ModelShape m = config("Nemotron-H-56B-Base-8K.json");
    m.layerPattern[3] = 'X';
    QCOMPARE(QString::fromStdString(validate(m).message),
             QString("layer_pattern may hold only M (state space), * (attention), - (FFN) and E (experts), got 'X'"));
    m.layerPattern[3] = 'E'; // experts need a mixture of experts, and a mixture of experts needs its E layers
    QCOMPARE(QString::fromStdString(validate(m).message),
             QString("layer_pattern's E layers need routed experts (experts > 1)"));
    m = config("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json");
    m.layerPattern = std::string(m.layers, 'M');
    QCOMPARE(QString::fromStdString(validate(m).message),
             QString("a mixture of experts with a layer_pattern needs E layers for its experts"));
    m = config("Nemotron-H-56B-Base-8K.json");
    m.ssm.kind = SsmKind::None;
    QCOMPARE(QString::fromStdString(validate(m).message),
             QString("layer_pattern's M layers need state-space layers (ssm)"));
}

void TestLayerBlocks::logitSoftcapping()
{
    // Gemma 2 caps every attention score at 50 and every output logit at 30 (cap x tanh(x / cap), 3 FLOPs each:
    // divide, tanh, multiply); its config.json says so (attn_logit_softcapping 50.0, final_logit_softcapping 30.0 in
    // the gemma-2-9b preset's config; no verbatim copy of the published file was found for tests/data). Gemma 3's
    // are null: none.
    const ModelShape g2 = testpresets::model("gemma-2-9b");
    QCOMPARE(g2.attentionSoftcap, 50.0);
    QCOMPARE(g2.finalSoftcap, 30.0);
    const ModelShape g3 = config("gemma-3-1b-it.json");
    QCOMPARE(g3.attentionSoftcap, 0.0);
    QCOMPARE(g3.finalSoftcap, 0.0);
    // A decode step at 8,192 keys (16 heads, batch 1): the 21 global layers cap 16 x 8,192 scores each, the 21 local
    // ones 16 x 4,096 (their window):
    //   attn.softcap        21 x 3 x 16 x 8,192 = 8,257,536 FLOPs
    //   attn.local_softcap  21 x 3 x 16 x 4,096 = 4,128,768 FLOPs
    //   lm_head.softcap     3 x 256,000 logits  = 768,000 FLOPs, reading and writing them: 2 x 256,000 x 2 B
    // Fused attention keeps the scores on chip: the score caps move no bytes.
    const Analysis a = analyze(testpresets::hw("h100-sxm"), g2, decodeAt(8191));
    QCOMPARE(findOp(a, "attn.softcap")->flops, 8257536.0);
    QCOMPARE(findOp(a, "attn.softcap")->bytes(), 0.0);
    QCOMPARE(findOp(a, "attn.local_softcap")->flops, 4128768.0);
    QCOMPARE(findOp(a, "lm_head.softcap")->flops, 768000.0);
    QCOMPARE(findOp(a, "lm_head.softcap")->bytes(), 1024000.0);
    ModelShape uncapped = g2;
    uncapped.attentionSoftcap = uncapped.finalSoftcap = 0;
    const Analysis b = analyze(testpresets::hw("h100-sxm"), uncapped, decodeAt(8191));
    QVERIFY(!findOp(b, "attn.softcap") && !findOp(b, "lm_head.softcap"));
    QCOMPARE(a.totals.flops - b.totals.flops, 8257536.0 + 4128768.0 + 768000.0);
    // Unfused, the cap reads and writes the global layers' score matrix: 21 x 2 x 16 x 8,192 x 2 B.
    Scenario unfused = decodeAt(8191);
    unfused.fusedAttention = false;
    QCOMPARE(findOp(analyze(testpresets::hw("h100-sxm"), g2, unfused), "attn.softcap")->bytes(), 11010048.0);
    // The preset keys keep them, and a negative cap is refused.
    QCOMPARE(toJson(g2).value("attention_softcap", 0.0), 50.0);
    QCOMPARE(toJson(g2).value("final_softcap", 0.0), 30.0);
    QVERIFY(!toJson(g3).contains("attention_softcap"));
    QCOMPARE(modelShapeFromJson(toJson(g2), "rt.json").finalSoftcap, 30.0);
    ModelShape bad = g2;
    bad.attentionSoftcap = -1;
    QCOMPARE(QString::fromStdString(validate(bad).message),
             QString("attention_softcap must be 0 (none) or a positive cap up to 1e6, got -1.000000"));
}

void TestLayerBlocks::headBiasOfPhiMoe()
{
    // Phi-3.5-MoE's LM head has a bias (lm_head_bias): one decode step (batch 1, BF16) adds it to each of the 32,064
    // logits and reads it with the weights:
    //   FLOPs  2 x 4096 x 32064 + 32064                       = 262,700,352
    //   weights 4096 x 32064 x 2 B + 32064 x 2 B              = 262,732,416 B
    //   activations 4096 x 2 B in + 32064 x 2 B out           = 72,320 B
    const ModelShape m = config("Phi-3.5-MoE-instruct.transcribed.json");
    QVERIFY(m.headBias && m.qkvBias && m.outBias && !m.ffnBias);
    QVERIFY(m.norm == NormKind::LayerNorm);
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(4095));
    const auto *head = findOp(a, "lm_head");
    QVERIFY(head);
    QCOMPARE(head->flops, 262700352.0);
    QCOMPARE(head->bytes(), 262732416.0 + 72320.0);
    ModelShape unbiased = m;
    unbiased.headBias = false;
    const Analysis b = analyze(testpresets::hw("h100-sxm"), unbiased, decodeAt(4095));
    QCOMPARE(head->flops - findOp(b, "lm_head")->flops, 32064.0);
    QCOMPARE(paramCount(m).total - paramCount(unbiased).total, int64_t(32064));
    // The preset keeps the key only where it is set, and an encoder (no LM head) refuses it.
    QVERIFY(toJson(m).value("head_bias", false));
    QVERIFY(!toJson(unbiased).contains("head_bias"));
    ModelShape encoder = testpresets::model("bert-base-uncased");
    encoder.headBias = true;
    QCOMPARE(QString::fromStdString(validate(encoder).message),
             QString("head_bias needs a decoder (an encoder has no LM head)"));
}

void TestLayerBlocks::patchEmbeddingByHand()
{
    // ViT-L/32 encoding a batch of 8 images of 50 tokens each (49 patches of 32 x 32 pixels and the class token), at
    // 16 bits on an H100. The embedding is the patch convolution, a matmul over the 8 x 49 = 392 patches (the class
    // token is a copy of learned weights, not projected):
    //   patch_embed FLOPs  2 x 392 x 3,072 x 1,024 = 2,466,250,752, + bias adds 392 x 1,024 = 401,408
    //                                                                                      = 2,466,652,160
    //   bytes  weights 3,072 x 1,024 x 2 B = 6,291,456 + bias 1,024 x 2 B = 2,048          = 6,293,504
    //          patches read 392 x 3,072 x 2 B = 2,408,448, projections written 392 x 1,024 x 2 B = 802,816
    //                                                                                      = 3,211,264
    //                                                                                      = 9,504,768 B
    const ModelShape &m = testpresets::model("vit-large-patch32-224");
    Scenario s;
    s.phase = Phase::Encode;
    s.batch = 8;
    s.seq = 50;
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, s);
    const Operator *pe = findOp(a, "patch_embed");
    QVERIFY(pe);
    QVERIFY(pe->cls == OpClass::Matmul);
    QCOMPARE(pe->count, 1.0);
    QCOMPARE(pe->flops, 2466652160.0);
    QCOMPARE(pe->weightBytes, 6293504.0);
    QCOMPARE(pe->activationBytes, 3211264.0);
    QCOMPARE(pe->bytes(), 9504768.0);
    // The final LayerNorm runs over all 400 tokens (7 FLOPs an element): 7 x 400 x 1,024 = 2,867,200 FLOPs, reading
    // its 2 x 1,024 weights and reading and writing 400 x 1,024 values. The pooler reads the 8 class tokens.
    const Operator *fn = findOp(a, "final_norm");
    QVERIFY(fn);
    QCOMPARE(fn->flops, 2867200.0);
    QCOMPARE(fn->bytes(), 4096.0 + 2 * 400 * 1024 * 2);
    QCOMPARE(findOp(a, "pooler")->flops, 2.0 * 8 * 1024 * 1024 + 8 * 1024);
    // No vocabulary, no LM head, no KV cache; every weight in memory once.
    QVERIFY(!findOp(a, "lm_head"));
    QCOMPARE(a.kvCache.totalBytes, 0.0);
    QCOMPARE(a.memory.kv, 0.0);
    QCOMPARE(a.params.total, int64_t(306560000));
    QCOMPARE(a.memory.weights, 306560000.0 * 2);
    double flops = 0, bytes = 0;
    for (const Operator &op : a.operators) {
        flops += op.flops;
        bytes += op.bytes();
    }
    QCOMPARE(flops, a.totals.flops);
    QCOMPARE(bytes, a.totals.bytes);
    // An encoder does not generate: decode is refused, as BERT's is.
    try {
        analyze(testpresets::hw("h100-sxm"), m, decodeAt(49));
        QFAIL("no error");
    } catch (const AnalysisError &e) {
        QCOMPARE(QString::fromStdString(e.what()),
                 QString("vit-large-patch32-224 is an encoder: it has no decode phase (use --phase encode)"));
    }
    // A text model keeps its embedding a look-up, and a post-norm encoder (BERT) has no final norm.
    const Analysis bert = analyze(testpresets::hw("h100-sxm"), testpresets::model("bert-base-uncased"), s);
    QVERIFY(!findOp(bert, "patch_embed") && !findOp(bert, "final_norm"));
}

void TestLayerBlocks::patchModelPresetKeys()
{
    // The preset is the config's import, and its two new keys are written only where they differ from the defaults,
    // so that every other preset file keeps its keys; a shape written and read back is the same model.
    const ModelShape m = config("vit-large-patch32-224-in21k.json");
    ModelShape preset = testpresets::model("vit-large-patch32-224");
    preset.id = m.id;
    preset.name = m.name;
    QCOMPARE(toJson(preset).dump(), toJson(m).dump());
    const nlohmann::json j = toJson(m);
    QCOMPARE(j.at("patch_inputs").get<int64_t>(), int64_t(3072));
    QCOMPARE(j.at("final_norm").get<bool>(), true);
    QCOMPARE(j.at("vocab").get<int64_t>(), int64_t(0));
    QCOMPARE(j.at("max_positions").get<int64_t>(), int64_t(50));
    const ModelShape back = modelShapeFromJson(j, "roundtrip.json");
    QCOMPARE(toJson(back).dump(), j.dump());
    QCOMPARE(paramCount(back).total, int64_t(306560000));
    const nlohmann::json bert = toJson(testpresets::model("bert-base-uncased"));
    QVERIFY(!bert.contains("patch_inputs") && !bert.contains("final_norm"));
    // A patch model's preset may leave out its vocabulary; a text model's may not.
    nlohmann::json noVocab = j;
    noVocab.erase("vocab");
    QCOMPARE(modelShapeFromJson(noVocab, "shape.json").vocab, int64_t(0));
    nlohmann::json text = toJson(testpresets::model("bert-base-uncased"));
    text.erase("vocab");
    QVERIFY_THROWS_EXCEPTION(InputError, modelShapeFromJson(text, "shape.json"));
}

void TestLayerBlocks::patchModelRules_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value"); // JSON, set in ViT-L/32's preset shape
    QTest::addColumn<QString>("error");
    QTest::addColumn<QStringList>("fields");
    QTest::newRow("a vocabulary beside the patches")
        << "vocab"
        << "1000"
        << "shape.json: vocab must be 0 for a model of image patches (patch_inputs 3072), got 1000"
        << QStringList{"vocab", "patch_inputs"};
    QTest::newRow("a decoder of patches")
        << "arch"
        << R"("decoder")"
        << "shape.json: patch_inputs needs an encoder: a decoder's head predicts tokens of a vocabulary"
        << QStringList{"patch_inputs", "arch"};
    QTest::newRow("no patches and no vocabulary")
        << "patch_inputs"
        << "0"
        << "shape.json: vocab: must be positive, got 0" << QStringList{"vocab"};
    QTest::newRow("negative patch inputs")
        << "patch_inputs"
        << "-3072"
        << "shape.json: patch_inputs must be 0 (text tokens) or positive, got -3072" << QStringList{"patch_inputs"};
    QTest::newRow("implausibly many patch inputs")
        << "patch_inputs"
        << "4294967296"
        << "shape.json: patch_inputs is implausibly large, got 4294967296" << QStringList{"patch_inputs"};
}

void TestLayerBlocks::patchModelRules()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, error);
    QFETCH(QStringList, fields);
    nlohmann::json j = toJson(testpresets::model("vit-large-patch32-224"));
    j[key.toStdString()] = nlohmann::json::parse(value.toStdString());
    try {
        modelShapeFromJson(j, "shape.json");
        QFAIL("no error");
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.what()), error);
        QStringList named;
        for (const std::string &f : e.fields())
            named << QString::fromStdString(f);
        QCOMPARE(named, fields);
    }
    // The block model says the same of a shape, and names the exception.
    ModelShape text = testpresets::model("bert-base-uncased");
    text.vocab = 0;
    QCOMPARE(QString::fromStdString(validate(text).message),
             QString("vocab must be positive, got 0 (only a model of image patches, patch_inputs > 0, has none)"));
    // final_norm belongs to encoders: a decoder always has its own.
    ModelShape decoder = testpresets::model("gpt2");
    decoder.finalNorm = true;
    QCOMPARE(QString::fromStdString(validate(decoder).message),
             QString("final_norm is an encoder's: a decoder always has its final norm"));
}

void TestLayerBlocks::gemma4Operators()
{
    // One decode step of Gemma 4 26B-A4B at batch 1, tp 1, 4,096 tokens of context (the step's own the 4,096th).
    // The 5 global layers project and attend with their own widths (16 heads of 512, 2 KV heads, no v_proj), the 25
    // sliding ones with theirs (16 heads of 256, 8 KV heads), each under its own operator names:
    //   attn.global_qkv_proj: 2 x 2816 x (16 x 512 + 2 x 512) = 51,904,512 FLOPs a layer
    //   attn.qkv_proj:        2 x 2816 x (16 x 256 + 2 x 8 x 256) = 46,137,344
    //   attn.score (global):  2 x 16 heads x 4,096 keys x 512 = 67,108,864, reading the 4,096 cached keys of
    //                         2 KV heads x 512 x 2 B = 8,388,608 B
    //   attn.local_score:     2 x 16 x 1,024 keys x 256 = 8,388,608
    //   v_norm (no weights):  4 FLOPs x 1,024 (global) or 2,048 (sliding) value elements
    // Every layer runs the dense MLP (ffn.dense_up 2 x 2816 x 2112 = 11,894,784) beside the experts, the router's
    // norm and the branches' sum.
    const ModelShape m = config("gemma-4-26B-A4B.text_config.json");
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(4095));
    checkOperator(a, "attn.global_qkv_proj", 5, 51904512);
    checkOperator(a, "attn.qkv_proj", 25, 46137344);
    checkOperator(a, "attn.score", 5, 67108864);
    checkOperator(a, "attn.local_score", 25, 8388608);
    checkOperator(a, "attn.global_v_norm", 5, 4.0 * 1024);
    checkOperator(a, "attn.v_norm", 25, 4.0 * 2048);
    checkOperator(a, "attn.global_out_proj", 5, 2.0 * 8192 * 2816);
    checkOperator(a, "attn.out_proj", 25, 2.0 * 4096 * 2816);
    QCOMPARE(findOp(a, "attn.score")->kvBytes, 5 * 8388608.0);
    checkOperator(a, "ffn.dense_up", 30, 11894784);
    QCOMPARE(findOp(a, "moe.router_norm")->count, 30.0);
    QCOMPARE(findOp(a, "ffn.branch_add")->count, 30.0);
    QCOMPARE(findOp(a, "ffn.router")->count, 30.0);
    // The KV cache a token adds, as tst_hffamilies counts it: 225,280 B; the weights, 25,233,141,760 parameters.
    QCOMPARE(a.kvCache.bytesPerToken, 225280.0);
    QCOMPARE(a.params.total, int64_t(25233141760));
}

void TestLayerBlocks::gemma4SharedKvOperators()
{
    // One decode step of Gemma 4 E2B at batch 1, tp 1, 4,096 tokens of context. Layers 0-14 (12 sliding, 3 full)
    // project queries, keys and values and write the cache; layers 15-34 (16 sliding, 4 full) share it: queries alone,
    // no cache write, but each still reads the whole shared cache:
    //   attn.global_qkv_proj: 2 x 1536 x (8 x 512 + 2 x 512) = 15,728,640 FLOPs a layer, 3 layers
    //   attn.global_q_proj:   2 x 1536 x 8 x 512 = 12,582,912, 4 layers
    //   attn.qkv_proj:        2 x 1536 x (8 x 256 + 2 x 256) = 7,864,320, 12 layers
    //   attn.q_proj:          2 x 1536 x 8 x 256 = 6,291,456, 16 layers
    //   attn.kv_write 3 and attn.local_kv_write 12 times; attn.score 7 times, each reading 4,096 keys of one KV head
    //   of 512 at 2 B = 4,194,304 B; attn.local_score 28 times
    //   ffn.up 2 x 1536 x 6144 = 18,874,368, 15 layers; ffn.wide_up 2 x 1536 x 12288 = 37,748,736, 20 layers
    //   per-layer inputs: ple.gate and ple.proj 2 x 1536 x 256 = 786,432 in each of the 35 layers; on the embeddings'
    //   side, ple.model_proj 2 x 1536 x 8960 = 27,525,120 and ple.embed reading the token's row, 8,960 x 2 B =
    //   17,920 B (not the 4.7 GB table)
    const ModelShape m = config("gemma-4-E2B-it.text_config.transcribed.json");
    const Analysis a = analyze(testpresets::hw("h100-sxm"), m, decodeAt(4095));
    checkOperator(a, "attn.global_qkv_proj", 3, 15728640);
    checkOperator(a, "attn.global_q_proj", 4, 12582912);
    checkOperator(a, "attn.qkv_proj", 12, 7864320);
    checkOperator(a, "attn.q_proj", 16, 6291456);
    checkOperator(a, "attn.global_q_norm", 4, 4.0 * 4096);
    checkOperator(a, "attn.q_norm", 16, 4.0 * 2048);
    QCOMPARE(findOp(a, "attn.kv_write")->count, 3.0);
    QCOMPARE(findOp(a, "attn.local_kv_write")->count, 12.0);
    QCOMPARE(findOp(a, "attn.score")->count, 7.0);
    QCOMPARE(findOp(a, "attn.score")->kvBytes, 7 * 4194304.0);
    QCOMPARE(findOp(a, "attn.local_score")->count, 28.0);
    checkOperator(a, "ffn.up", 15, 18874368);
    checkOperator(a, "ffn.wide_up", 20, 37748736);
    checkOperator(a, "ple.gate", 35, 786432);
    checkOperator(a, "ple.proj", 35, 786432);
    checkOperator(a, "ple.model_proj", 1, 27525120);
    QCOMPARE(findOp(a, "ple.embed")->weightBytes, 17920.0);
    // The KV cache a token adds, as tst_hffamilies counts it: 18,432 B; the weights, 4,628,569,344 parameters.
    QCOMPARE(a.kvCache.bytesPerToken, 18432.0);
    QCOMPARE(a.params.total, int64_t(4628569344));
    // Tensor parallelism 2 splits the per-layer inputs' columns, as the memory splits their weights: the gate
    // 2 x 1536 x 128 a layer, the token's row 4,480 values.
    Scenario tp2 = decodeAt(4095);
    tp2.tp = 2;
    const Analysis b = analyze(testpresets::hw("h100-sxm"), m, tp2);
    QCOMPARE(findOp(b, "ple.gate")->flops, 35 * 2.0 * 1536 * 128);
    QCOMPARE(findOp(b, "ple.embed")->weightBytes, 8960.0);
    // A shape whose sharing layers would have no earlier layer of their kind to read, or a double-wide MLP without
    // sharing, is refused, naming the keys.
    ModelShape bad = m;
    bad.kvSharedLayers = 31;
    QCOMPARE(QString::fromStdString(validate(bad).message),
             QString("kv_shared_layers 31 leaves 4 layers before the sharing ones, fewer than global_every (5): no "
                     "global layer for the sharing global layers to read"));
    bad.kvSharedLayers = 35;
    QCOMPARE(validate(bad).fields.front(), std::string("kv_shared_layers"));
    bad.kvSharedLayers = 0;
    QCOMPARE(QString::fromStdString(validate(bad).message),
             QString("double_wide_shared_ffn widens the dense MLP of the layers sharing keys and values: it needs "
                     "kv_shared_layers > 0 and no experts"));
    bad.doubleWideSharedFfn = false;
    bad.perLayerVocab = 0;
    QCOMPARE(QString::fromStdString(validate(bad).message),
             QString("per_layer_input must be 0 or positive, with per_layer_vocab positive (at most 2^31), got 256 "
                     "and 0"));
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestLayerBlocks)

#include "tst_layerblocks.moc"
