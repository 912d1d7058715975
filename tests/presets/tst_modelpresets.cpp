// Tests for the built-in model presets (presets/models/*.json, compiled into the binary).
//
// Conventions pinned here:
// - Every built-in preset loads without an issue.
// - Wherever a preset states params_official (and active_params_official for MoE), MemWall's own count of the shape
//   (paramCount(), Hugging Face counting) is within 0.5 % of it: the shape really is the model it names.
// - The library holds the models the lessons and the documentation refer to, under these ids.

#include "core/io/presets.h"
#include "core/model/modelshape.h"

#include <QtTest>

#include <cmath>
#include <set>
#include <string>

namespace memwall::core {

namespace {

constexpr double kTolerance = 0.005; // 0.5 %

// clang-format off
const char *const kRequiredIds[] = {
    "bert-base-uncased", "bert-large-uncased", "gpt2",         "gpt2-medium",     "gpt2-large",
    "gpt2-xl",           "gpt-3-175b",         "opt-13b",      "llama-7b",        "llama-13b",
    "llama-65b",         "llama-2-7b",         "llama-2-13b",  "llama-2-70b",     "llama-3-8b",
    "llama-3-70b",       "llama-3-1-405b",     "mistral-7b",   "mixtral-8x7b",    "mixtral-8x22b",
    "qwen2-7b",          "gemma-7b",           "phi-3-mini",   "falcon-40b",      "falcon-7b",
    "gpt-neox-20b",      "qwen2-57b-a14b",     "gpt-oss-120b", "qwen3-235b-a22b", "qwen3-235b-a22b-fp8",
    "minimax-m2.5",      "deepseek-r1",        "kimi-k2.5",    "mimo-7b",         "glm-4.5-air",
    "nemotron-3-nano-30b", "command-r7b", "deepseek-v3.2", "glm-5",
    "llama-3.3-nemotron-super-49b",
};
// clang-format on

QString relativeError(double computed, double official)
{
    return QString::number(100.0 * (computed - official) / official, 'f', 3) + " %";
}

} // namespace

class TestModelPresets : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void loadsWithoutIssues();
    void enoughModels();
    void requiredIdsExist_data();
    void requiredIdsExist();
    void officialCounts_data();
    void officialCounts();
    void everyPresetIsSourced();
    void knownShapes();
    void checkpointFormatsAndMtp();

private:
    PresetLibrary m_lib;
};

void TestModelPresets::initTestCase() { m_lib.loadBuiltin(); }

void TestModelPresets::loadsWithoutIssues()
{
    QString all;
    for (const auto &issue : m_lib.issues())
        all += QString::fromStdString(issue.message) + "\n";
    QVERIFY2(m_lib.issues().empty(), qPrintable(all));
}

void TestModelPresets::enoughModels()
{
    QVERIFY2(m_lib.models().size() >= 25, qPrintable(QString::number(m_lib.models().size()) + " models"));
    std::set<std::string> ids;
    for (const auto &m : m_lib.models())
        QVERIFY2(ids.insert(m.shape.id).second, m.shape.id.c_str());
}

void TestModelPresets::requiredIdsExist_data()
{
    QTest::addColumn<QString>("id");
    for (const char *id : kRequiredIds)
        QTest::newRow(id) << QString(id);
}

void TestModelPresets::requiredIdsExist()
{
    QFETCH(QString, id);
    const ModelPreset *p = m_lib.findModel(id.toStdString());
    QVERIFY2(p, qPrintable("no model preset with id " + id));
    QVERIFY(!p->shape.name.empty());
    QVERIFY(p->year >= 2017);
}

void TestModelPresets::officialCounts_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("active");
    // Built from the library itself so that every preset with a published count is covered.
    PresetLibrary lib;
    lib.loadBuiltin();
    for (const auto &m : lib.models()) {
        if (m.paramsOfficial)
            QTest::newRow(qPrintable(QString::fromStdString(m.shape.id) + " total"))
                << QString::fromStdString(m.shape.id) << false;
        if (m.activeParamsOfficial)
            QTest::newRow(qPrintable(QString::fromStdString(m.shape.id) + " active"))
                << QString::fromStdString(m.shape.id) << true;
    }
}

void TestModelPresets::officialCounts()
{
    QFETCH(QString, id);
    QFETCH(bool, active);
    const ModelPreset *p = m_lib.findModel(id.toStdString());
    QVERIFY(p);
    const ParamCounts counts = paramCount(p->shape);
    const double computed = static_cast<double>(active ? counts.active : counts.total);
    const double official = active ? p->activeParamsOfficial->value : p->paramsOfficial->value;
    QVERIFY2(std::fabs(computed - official) <= kTolerance * official,
             qPrintable(QString("computed %1, official %2 (%3)")
                            .arg(static_cast<qint64>(computed))
                            .arg(static_cast<qint64>(official))
                            .arg(relativeError(computed, official))));
}

void TestModelPresets::everyPresetIsSourced()
{
    for (const auto &m : m_lib.models()) {
        QVERIFY2(!m.source.empty(), m.shape.id.c_str());
        if (m.paramsOfficial)
            QVERIFY2(!m.paramsOfficial->source.empty(), m.shape.id.c_str());
        // A MoE preset states its active count too; a dense one must not.
        if (m.shape.isMoe())
            QVERIFY2(m.activeParamsOfficial.has_value() || !m.paramsOfficial.has_value(), m.shape.id.c_str());
        else
            QVERIFY2(!m.activeParamsOfficial.has_value(), m.shape.id.c_str());
    }
}

void TestModelPresets::checkpointFormatsAndMtp()
{
    // The presets of issue #38 carry what their config.json says (tests/core/tst_hffamilies.cpp counts them by hand).
    const auto fmt = [](const std::optional<WeightFormat> &f) { return f ? toString(*f) : std::string("none"); };
    QCOMPARE(fmt(m_lib.findModel("qwen3-235b-a22b")->shape.checkpointWeights), std::string("none"));
    QCOMPARE(fmt(m_lib.findModel("qwen3-235b-a22b-fp8")->shape.checkpointWeights), std::string("fp8/g16384/fp32"));
    QCOMPARE(fmt(m_lib.findModel("gpt-oss-120b")->shape.checkpointExpertWeights), std::string("fp4/g32/fp8"));
    QCOMPARE(fmt(m_lib.findModel("kimi-k2.5")->shape.checkpointExpertWeights), std::string("int4/g32/bf16"));
    // Qwen3-235B-A22B: 235,093,634,560 parameters, 22,190,763,520 active (the Qwen3 report: 235B, 22B activated).
    const ParamCounts q = paramCount(m_lib.findModel("qwen3-235b-a22b")->shape);
    QCOMPARE(q.total, int64_t(235093634560));
    QCOMPARE(q.active, int64_t(22190763520));
    // DeepSeek-R1: DeepSeek-V3's counts, and its MTP module with the copies its checkpoint stores.
    const ParamCounts r1 = paramCount(m_lib.findModel("deepseek-r1")->shape);
    QCOMPARE(r1.total, int64_t(671026419200));
    QCOMPARE(r1.checkpoint, int64_t(684489845504));
}

void TestModelPresets::knownShapes()
{
    // The traps named in the design notes.
    const ModelPreset *l405 = m_lib.findModel("llama-3-1-405b");
    QVERIFY(l405);
    QCOMPARE(l405->shape.kvHeads, int64_t(8));
    QCOMPARE(l405->shape.layers, int64_t(126));

    const ModelPreset *opt = m_lib.findModel("opt-13b");
    QVERIFY(opt);
    QCOMPARE(opt->shape.positionOffset, int64_t(2));
    QCOMPARE(2 * opt->shape.layers * opt->shape.kvHeads * opt->shape.headDim * 2, int64_t(819200));

    const ModelPreset *f40 = m_lib.findModel("falcon-40b");
    QVERIFY(f40);
    QCOMPARE(f40->shape.kvHeads, int64_t(8));

    const ModelPreset *gpt2 = m_lib.findModel("gpt2");
    QVERIFY(gpt2);
    QCOMPARE(static_cast<qint64>(paramCount(gpt2->shape).total), qint64(124439808));

    const ModelPreset *mixtral = m_lib.findModel("mixtral-8x7b");
    QVERIFY(mixtral);
    QCOMPARE(static_cast<qint64>(paramCount(mixtral->shape).active), qint64(12879925248));

    // Qwen2 57B-A14B: 64 routed experts and one shared expert, counted by hand (h 3584, 28 query heads and 4 KV
    // heads of 128, q/k/v biases, routed experts 2560 wide, the shared expert 20480 wide, vocab 151936, untied):
    //   attention   3584 x (3584 + 2 x 512) + 3584 x 3584 + (3584 + 2 x 512) biases  =    29,364,736
    //   routed      64 x 3 x 3584 x 2560                                               = 1,761,607,680
    //   shared      3 x 3584 x 20480 + 3584 (sigmoid gate)                             =   220,204,544
    //   router      3584 x 64                                                          =       229,376
    //   norms       2 x 3584                                                           =         7,168
    //   one layer                                                                      = 2,011,413,504
    //   28 layers 56,319,578,112 + embeddings 544,538,624 + final norm and LM head 544,542,208 = 57,408,658,944:
    //   the announcement's 57.41B, and 56,319,581,696 (56.32B) without the embedding and LM head matrices.
    //   Active: attention + 8 routed + shared + router + norms = 470,006,784 a layer; x 28 + 1,089,080,832
    //   = 14,249,270,784 ("A14B").
    const ModelPreset *qmoe = m_lib.findModel("qwen2-57b-a14b");
    QVERIFY(qmoe);
    const ParamCounts qc = paramCount(qmoe->shape);
    QCOMPARE(static_cast<qint64>(qc.perLayer), qint64(2011413504));
    QCOMPARE(static_cast<qint64>(qc.total), qint64(57408658944));
    QCOMPARE(static_cast<qint64>(qc.total - 2 * 151936 * 3584), qint64(56319581696));
    QCOMPARE(static_cast<qint64>(qc.active), qint64(14249270784));
    QCOMPARE(static_cast<qint64>(qc.perLayerRouted), qint64(1761607680));

    const ModelPreset *gpt3 = m_lib.findModel("gpt-3-175b");
    QVERIFY(gpt3);
    QCOMPARE(gpt3->shape.layers, int64_t(96));
    QCOMPARE(gpt3->shape.hidden, int64_t(12288));
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestModelPresets)
#include "tst_modelpresets.moc"
