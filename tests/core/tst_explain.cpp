// The one-sentence explanation: each case (memory-bound decode, compute-bound prefill, does not fit,
// communication-bound) names the right limit and quotes numbers that come from the analysis (their formatting is
// pinned in tst_format).
#include "core/analysis/explain.h"
#include "core/io/presets.h"

#include <QtTest>

#include <string>

using namespace memwall::core;

class TstExplain : public QObject
{
    Q_OBJECT

private:
    PresetLibrary m_lib;

    std::string sentence(const char *hwId, const char *modelId, const Scenario &s, Analysis *out = nullptr)
    {
        const HardwareSpec *hw = m_lib.findHardware(hwId);
        const ModelPreset *m = m_lib.findModel(modelId);
        if (!hw || !m)
            qFatal("preset %s / %s missing", hwId, modelId);
        const Analysis a = analyze(*hw, m->shape, s);
        if (out)
            *out = a;
        return explain(*hw, m->shape, s, a);
    }

private slots:
    void initTestCase() { m_lib.loadBuiltin(); }

    void memoryBoundDecode()
    {
        // Llama 2 70B at fp16 fits on an H200 (141 GB): batch-1 decode is ~1 FLOP/byte against a ridge of 206.
        Scenario s; // decode, batch 1
        Analysis a;
        const QString text = QString::fromStdString(sentence("h200-sxm", "llama-2-70b", s, &a));
        QVERIFY2(a.memory.fits, qPrintable(text));
        QVERIFY2(text.startsWith("At batch 1, decode reaches 1.0 FLOP/byte, far left of"), qPrintable(text));
        QVERIFY2(text.contains("ridge at 206"), qPrintable(text));
        QVERIFY2(text.contains("each token reads all 138 GB of weights"), qPrintable(text));
        QVERIFY2(text.endsWith("so memory bandwidth sets the speed."), qPrintable(text));
    }

    void batchedDecodeNamesTheBatch()
    {
        Scenario s;
        s.batch = 16;
        const QString text = QString::fromStdString(sentence("h100-sxm", "llama-2-7b", s));
        QVERIFY2(text.startsWith("At batch 16, decode"), qPrintable(text));
        QVERIFY2(text.contains("to produce only 16 tokens"), qPrintable(text));
        QVERIFY2(text.contains("memory bandwidth"), qPrintable(text));
    }

    void computeBoundPrefill()
    {
        // Llama 2 7B, 2048-token prompt on an H100: 27,644,673,409,024 FLOPs (causal; counted by hand in
        // tst_analysis.cpp, prefill2048OnH100IsComputeBound) over 38,548,371,968 bytes = 717 FLOP/byte against a
        // ridge of 295, compute-bound. (Counting all 2048^2 query-key pairs it was 746.)
        Scenario s;
        s.phase = Phase::Prefill;
        Analysis a;
        const QString text = QString::fromStdString(sentence("h100-sxm", "llama-2-7b", s, &a));
        QVERIFY(a.totals.bound == Bound::Compute);
        QVERIFY2(text.startsWith("At batch 1, prefill of 2,048 tokens reaches 717 FLOP/byte, right of"),
                 qPrintable(text));
        QVERIFY2(text.contains("ridge at 295"), qPrintable(text));
        QVERIFY2(text.contains("reused by 2,048 tokens"), qPrintable(text));
        QVERIFY2(text.contains("compute (989 TFLOP/s fp16) sets the speed."), qPrintable(text));
    }

    void sentenceFollowsTheLabel()
    {
        // Llama 3 8B decoding 256 sequences at 512 tokens on an A100: the step averages 111 FLOP/byte, left of the
        // ridge at 153, yet its weight matmuls (compute-bound at 256 tokens) take most of the time and label it
        // compute-bound. The sentence must not say "left of the ridge ... so memory sets the speed" beside that label.
        Scenario s;
        s.batch = 256;
        s.context = 512;
        Analysis a;
        const QString text = QString::fromStdString(sentence("a100-80gb-sxm", "llama-3-8b", s, &a));
        QVERIFY(a.totals.bound == Bound::Compute);
        QVERIFY(a.totals.intensity < a.ridge);
        QVERIFY2(text.contains("left of the NVIDIA A100") && text.contains("'s ridge at 153, yet its compute-bound "
                                                                           "operators take most of its time: "),
                 qPrintable(text));
        QVERIFY2(text.endsWith("sets the speed.") && text.contains("so compute ("), qPrintable(text));
        // With achievable efficiency the ridge named is the achievable one.
        s.efficiency = EfficiencyMode::Achievable;
        const QString achievable = QString::fromStdString(sentence("a100-80gb-sxm", "llama-3-8b", s, &a));
        QVERIFY2(achievable.contains("'s achievable ridge at "), qPrintable(achievable));
    }

    void doesNotFit()
    {
        // The product's start state: 138 GB of fp16 weights on an 80 GB H100.
        Scenario s;
        Analysis a;
        const QString text = QString::fromStdString(sentence("h100-sxm", "llama-2-70b", s, &a));
        QVERIFY(!a.memory.fits);
        QVERIFY2(text.startsWith("Llama 2 70B needs 139 GB per device (138 GB of it weights)"), qPrintable(text));
        QVERIFY2(text.contains("holds 80 GB: it does not fit"), qPrintable(text));
        QVERIFY2(text.contains("quantize the weights"), qPrintable(text));
    }

    void kvCacheDominatedDoesNotFitSuggestsKv()
    {
        Scenario s;
        s.batch = 256;
        s.context = 32768;
        const QString text = QString::fromStdString(sentence("h100-sxm", "llama-2-7b", s));
        QVERIFY2(text.contains("of it KV cache"), qPrintable(text));
        QVERIFY2(text.contains("quantize the KV cache"), qPrintable(text));
    }

    void communicationBound()
    {
        // Llama 2 7B prefill split over 4 RTX 4090s: the all-reduces go over PCIe (no NVLink) and dominate.
        Scenario s;
        s.phase = Phase::Prefill;
        s.tp = 4;
        Analysis a;
        const QString text = QString::fromStdString(sentence("rtx-4090", "llama-2-7b", s, &a));
        QVERIFY(a.totals.bound == Bound::Communication);
        QVERIFY2(text.startsWith("With tp 4, moving " + QString::fromStdString(formatSi(a.comm.bytes, "B")) +
                                 " between devices over PCIe"),
                 qPrintable(text));
        const QString times =
            QString::fromStdString("takes " + formatSi(a.comm.timeS, "s") + " of the " + formatSi(a.totals.timeS, "s") +
                                   " step (" + formatPercent(a.comm.timeS / a.totals.timeS) + ")");
        QVERIFY2(text.contains(times), qPrintable(text + " / " + times));
        QVERIFY2(a.comm.timeS / a.totals.timeS > 0.5, qPrintable(text));
        QVERIFY2(text.endsWith("communication sets the speed."), qPrintable(text));
    }

    // The positions a sequence reaches, against the model's max_positions (GPT-2: 1,024 learned positions; Llama 2
    // 7B: 4,096, rotary; BERT-Base: 512 learned):
    //   decode at context 1,023 reaches 1,023 + 1 = 1,024: within; at context 1,024, 1,025: past;
    //   generate: 4,000 prompt tokens + 97 output reach 4,000 + 96 = 4,096 (the last token is never fed back);
    //   encode and prefill: the prompt itself.
    void positionNoteWhenPastTheModelsPositions_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("phase");
        QTest::addColumn<qlonglong>("tokens"); // context (decode) or prompt
        QTest::addColumn<qlonglong>("output");
        QTest::addColumn<QString>("note");
        const QString gpt2 = "past the 1,024 positions GPT-2 (124M) learned; it has no position embedding beyond them.";
        QTest::newRow("decode within") << "gpt2" << int(Phase::Decode) << 1023LL << 1LL << QString();
        QTest::newRow("decode one past") << "gpt2" << int(Phase::Decode) << 1024LL << 1LL
                                         << "Note: this run reaches position 1,025, " + gpt2;
        QTest::newRow("decode at the default context")
            << "gpt2" << int(Phase::Decode) << 2048LL << 1LL << "Note: this run reaches position 2,049, " + gpt2;
        QTest::newRow("generate within") << "llama-2-7b" << int(Phase::Generate) << 4000LL << 97LL << QString();
        QTest::newRow("generate past, rotary")
            << "llama-2-7b" << int(Phase::Generate) << 4000LL << 98LL
            << "Note: this run reaches position 4,097, past the 4,096 tokens Llama 2 7B was trained on; the figures "
               "hold, but the model's output may not.";
        QTest::newRow("encode within") << "bert-base-uncased" << int(Phase::Encode) << 512LL << 1LL << QString();
        QTest::newRow("encode past")
            << "bert-base-uncased" << int(Phase::Encode) << 513LL << 1LL
            << "Note: this run reaches position 513, past the 512 positions BERT-Base (uncased) learned; it has no "
               "position embedding beyond them.";
        QTest::newRow("prefill past") << "gpt2" << int(Phase::Prefill) << 1025LL << 1LL
                                      << "Note: this run reaches position 1,025, " + gpt2;
    }
    void positionNoteWhenPastTheModelsPositions()
    {
        QFETCH(QString, model);
        QFETCH(int, phase);
        QFETCH(qlonglong, tokens);
        QFETCH(qlonglong, output);
        QFETCH(QString, note);
        Scenario s;
        s.phase = static_cast<Phase>(phase);
        (s.phase == Phase::Decode ? s.context : s.seq) = tokens;
        s.output = output;
        const ModelPreset *m = m_lib.findModel(model.toStdString());
        QVERIFY(m);
        QCOMPARE(QString::fromStdString(positionNote(m->shape, s)), note);
        // The headline's sentence carries it after what limits the run.
        const QString text = QString::fromStdString(sentence("h100-sxm", model.toLatin1().constData(), s));
        QVERIFY2(note.isEmpty() ? !text.contains("Note:") : text.endsWith(" " + note), qPrintable(text));
        // A model whose positions are unknown (0) has no note.
        ModelShape unknown = m->shape;
        unknown.maxPositions = 0;
        QVERIFY(positionNote(unknown, s).empty());
    }
};

QTEST_GUILESS_MAIN(TstExplain)
#include "tst_explain.moc"
