#include "ui/controls/controlspanel.h"

#include "ui/controls/logslider.h"
#include "ui/controls/optioncontrol.h"
#include "ui/controls/presetpicker.h"
#include "ui/controls/whatifgroup.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/cachedgroupbox.h"
#include "ui/util/combobox.h"
#include "ui/util/precisionchoices.h"
#include "ui/util/text.h"
#include "ui/util/wheelguard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <array>
#include <map>
#include <set>

namespace memwall::ui {

using namespace memwall::core;

namespace {

using precision::kActivationTypes;
using precision::kKvTypes;
using precision::kWeightChoices;
constexpr std::array<Phase, 5> kPhases{Phase::Prefill, Phase::Decode, Phase::Generate, Phase::Encode, Phase::Train};

QString hardwareTip(const HardwareSpec &hw)
{
    const auto &mem = hw.mainMemory();
    return QObject::tr("%1 (%2)\npeak %3 fp16 · %4 %5\n%6 · ridge %7 FLOP/byte")
        .arg(qs(hw.name))
        .arg(hw.year.value)
        .arg(formatSi(hw.peak(hw.computeType(DType::FP16)), "FLOP/s"), formatSi(mem.bandwidthBytesPerS.value, "B/s"),
             qs(mem.name), formatBytes(mem.capacityBytes.value), formatRatio(hw.ridge(DType::FP16)));
}

QString modelTip(const ModelShape &m)
{
    const ParamCounts p = paramCount(m);
    return QObject::tr("%1: %2 parameters%3\n%4 layers · hidden %5 · %6 heads (%7 key/value) · FFN %8")
        .arg(qs(m.name), formatSiNumber(static_cast<double>(p.total)),
             m.isMoe() ? QObject::tr(" (%1 active)").arg(formatSiNumber(static_cast<double>(p.active))) : QString())
        .arg(m.layers)
        .arg(m.hidden)
        .arg(m.heads)
        .arg(m.kvHeads)
        .arg(m.ffn);
}

CachedGroupBox *group(const QString &title, const QString &tip, QWidget *parent)
{
    auto *box = new CachedGroupBox(title, parent);
    box->setToolTip(tip);
    return box;
}

} // namespace

ControlsPanel::ControlsPanel(ScenarioDocument *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    auto *layout = new QVBoxLayout(this);
    m_error = new QLabel(this);
    m_error->setObjectName("analysisError");
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; font-weight: bold; }"));
    m_error->setToolTip(tr("Why the current combination cannot be analysed; the charts keep the last valid result."));
    m_error->hide();
    layout->addWidget(m_error);
    layout->addWidget(buildModelGroup());
    layout->addWidget(buildWorkloadGroup());
    layout->addWidget(buildPrecisionGroup());
    layout->addWidget(buildParallelGroup());
    layout->addWidget(buildOptionsGroup());
    addTableOptions(layout);
    m_whatIf = new WhatIfGroup(doc, this);
    layout->addWidget(m_whatIf);
    layout->addStretch(1);

    // The panel scrolls: a wheel turned over an unfocused combo, spin box or slider scrolls it, never changes a value.
    WheelGuard::guardChildren(this);
    connect(doc, &ScenarioDocument::analysisChanged, this, &ControlsPanel::syncFromDocument);
    syncFromDocument();
}

void ControlsPanel::addTableOptions(QVBoxLayout *layout)
{
    // Options with a hand-made control above (sliders, precision lists) or in the what-if group are skipped; every
    // other row of the option table gets a generic control in its group, so a new option needs no GUI code.
    static const std::set<std::string_view> handMade = {"phase",   "batch",           "seq",      "context",   "output",
                                                        "weights", "activations",     "kv",       "tp",        "pp",
                                                        "dp",      "fused_attention", "kv_cache", "efficiency"};
    std::map<std::string_view, QFormLayout *> forms;
    for (const ScenarioOption &o : scenarioOptions()) {
        if (o.section != OptionSection::Scenario || handMade.count(o.key))
            continue;
        QFormLayout *&form = forms[o.group];
        if (!form) {
            auto *box = m_groups.value(qs(o.group));
            if (!box) {
                box = group(qs(o.group), QString(), this);
                layout->addWidget(box);
                m_groups.insert(qs(o.group), box);
            }
            form = qobject_cast<QFormLayout *>(box->layout());
            if (!form)
                form = new QFormLayout(box);
        }
        auto *control = new OptionControl(o, m_doc, this);
        m_optionControls.insert(qs(o.key), control);
        form->addRow(qs(o.label), control);
    }
}

QWidget *ControlsPanel::buildModelGroup()
{
    auto *box = group(tr("Device and model"), tr("What runs on what."), this);
    auto *form = new QFormLayout(box);
    m_device = new PresetPicker(box);
    m_device->setObjectName("devicePicker");
    m_model = new PresetPicker(box);
    m_model->setObjectName("modelPicker");
    fillPresets();
    m_openConfig = new QPushButton(tr("Open config.json…"), box);
    m_openConfig->setToolTip(
        tr("Import a Hugging Face config.json as the model (you can also drop it on the window)."));
    form->addRow(tr("&Device"), m_device);
    form->addRow(tr("&Model"), m_model);
    form->addRow(QString(), m_openConfig);
    connect(m_device, &PresetPicker::idActivated, m_doc, &ScenarioDocument::setHardwareById);
    connect(m_model, &PresetPicker::idActivated, m_doc, &ScenarioDocument::setModelById);
    connect(m_openConfig, &QPushButton::clicked, this, &ControlsPanel::openConfigRequested);
    connect(m_device, &PresetPicker::notFound, this, &ControlsPanel::statusMessage);
    connect(m_model, &PresetPicker::notFound, this, &ControlsPanel::statusMessage);
    return box;
}

void ControlsPanel::fillPresets()
{
    for (const HardwareSpec &hw : m_doc->presets().hardware())
        m_device->addPreset(qs(hw.id), qs(hw.name), hardwareTip(hw));
    for (const ModelPreset &m : m_doc->presets().models())
        m_model->addPreset(qs(m.shape.id), qs(m.shape.name), modelTip(m.shape));
}

LogSlider *ControlsPanel::lengthSlider(std::string_view key, const char *name)
{
    const ScenarioOption &o = *findOption(key);
    auto *slider = new LogSlider(1, o.typicalMax, 0, this);
    slider->setAcceptedRange(o.min, o.max);
    slider->setToolTipText(qs(o.help));
    slider->setObjectName(name);
    return slider;
}

QWidget *ControlsPanel::buildWorkloadGroup()
{
    auto *box = group(tr("Workload"), tr("What the model is asked to do."), this);
    auto *form = new QFormLayout(box);
    m_phase = new QComboBox(box);
    m_phase->setObjectName("phase");
    const QString phaseTips[] = {tr("Prefill: the whole prompt at once, writing the KV cache."),
                                 tr("Decode: one new token per sequence against the cached context."),
                                 tr("Generate: prefill, then the output tokens one by one (TTFT, TPOT, end to end)."),
                                 tr("Encode: a bidirectional encoder pass (BERT-style), no cache."),
                                 tr("Train: forward, backward and optimizer step.")};
    for (std::size_t i = 0; i < kPhases.size(); ++i) {
        m_phase->addItem(qs(toString(kPhases[i])), static_cast<int>(kPhases[i]));
        m_phase->setItemData(static_cast<int>(i), phaseTips[i], Qt::ToolTipRole);
    }
    m_phase->setToolTip(qs(findOption("phase")->help));
    m_batch = lengthSlider("batch", "batch");
    m_seq = lengthSlider("seq", "prompt");
    m_context = lengthSlider("context", "context");
    m_output = lengthSlider("output", "output");
    form->addRow(tr("&Phase"), m_phase);
    form->addRow(tr("&Batch"), m_batch);
    form->addRow(tr("P&rompt"), m_seq);
    form->addRow(tr("Con&text"), m_context);
    form->addRow(tr("O&utput"), m_output);
    m_requestNote = new QLabel(box);
    m_requestNote->setObjectName("requestNote");
    m_requestNote->setWordWrap(true);
    m_requestNote->setToolTip(tr("The request timeline and the deployment search serve one request of the prompt and "
                                 "output lengths in every phase; a decode step's context is the cache it reads."));
    form->addRow(m_requestNote);
    m_groups.insert(QStringLiteral("Workload"), box); // table options of the group (images) join it

    connect(m_phase, &QComboBox::activated, this, [this](int i) {
        Scenario s = m_doc->scenario();
        s.phase = static_cast<Phase>(m_phase->itemData(i).toInt());
        m_doc->setScenario(s, tr("Phase %1").arg(m_phase->itemText(i)));
    });
    connect(m_batch, &LogSlider::valueChanged, this, [this](double v) {
        Scenario s = m_doc->scenario();
        s.batch = static_cast<int64_t>(v);
        m_doc->setScenario(s, tr("Batch size %1").arg(s.batch), ScenarioDocument::BatchKey);
    });
    connect(m_seq, &LogSlider::valueChanged, this, [this](double v) {
        Scenario s = m_doc->scenario();
        s.seq = static_cast<int64_t>(v);
        m_doc->setScenario(s, tr("Prompt length %1").arg(s.seq), ScenarioDocument::SeqKey);
    });
    connect(m_context, &LogSlider::valueChanged, this, [this](double v) {
        Scenario s = m_doc->scenario();
        s.context = static_cast<int64_t>(v);
        m_doc->setScenario(s, tr("Context length %1").arg(s.context), ScenarioDocument::ContextKey);
    });
    connect(m_output, &LogSlider::valueChanged, this, [this](double v) {
        Scenario s = m_doc->scenario();
        s.output = static_cast<int64_t>(v);
        m_doc->setScenario(s, tr("Output length %1").arg(s.output), ScenarioDocument::OutputKey);
    });
    return box;
}

QWidget *ControlsPanel::buildPrecisionGroup()
{
    auto *box = group(tr("Precision"), tr("Number formats: fewer bits move fewer bytes."), this);
    m_groups.insert(QStringLiteral("Precision"), box); // table options of the group (expert weights) join it
    auto *form = new QFormLayout(box);
    m_weights = new QComboBox(box);
    m_weights->setObjectName("weights");
    for (std::size_t i = 0; i < kWeightChoices.size(); ++i)
        m_weights->addItem(qs(kWeightChoices[i].label), static_cast<int>(i));
    m_weights->setToolTip(qs(findOption("weights")->help));
    m_activations = new QComboBox(box);
    m_activations->setObjectName("activations");
    for (DType t : kActivationTypes)
        m_activations->addItem(qs(toString(t)), static_cast<int>(t));
    m_activations->setToolTip(qs(findOption("activations")->help));
    m_kv = new QComboBox(box);
    m_kv->setObjectName("kv");
    for (DType t : kKvTypes)
        m_kv->addItem(qs(toString(t)), static_cast<int>(t));
    m_kv->setToolTip(qs(findOption("kv")->help));
    form->addRow(tr("&Weights"), m_weights);
    form->addRow(tr("&Activations"), m_activations);
    form->addRow(tr("&KV cache"), m_kv);

    connect(m_weights, &QComboBox::activated, this, [this](int i) {
        const int choice = m_weights->itemData(i).toInt();
        if (choice < 0)
            return; // the scenario's own format, already set (see syncFromDocument())
        Scenario s = m_doc->scenario();
        s.weights = kWeightChoices[static_cast<std::size_t>(choice)].format;
        m_doc->setScenario(s, tr("Weights %1").arg(m_weights->itemText(i)));
    });
    connect(m_activations, &QComboBox::activated, this, [this](int i) {
        Scenario s = m_doc->scenario();
        s.activations = static_cast<DType>(m_activations->itemData(i).toInt());
        m_doc->setScenario(s, tr("Activations %1").arg(m_activations->itemText(i)));
    });
    connect(m_kv, &QComboBox::activated, this, [this](int i) {
        Scenario s = m_doc->scenario();
        s.kv = static_cast<DType>(m_kv->itemData(i).toInt());
        m_doc->setScenario(s, tr("KV cache %1").arg(m_kv->itemText(i)));
    });
    return box;
}

QWidget *ControlsPanel::buildParallelGroup()
{
    auto *box = group(tr("Parallelism"), tr("How the model is split over devices."), this);
    m_groups.insert(QStringLiteral("Parallelism"), box);
    auto *form = new QFormLayout(box);
    auto spin = [box](const char *name) {
        const ScenarioOption &o = *findOption(name);
        auto *s = new QSpinBox(box);
        s->setObjectName(name);
        s->setRange(static_cast<int>(o.min), static_cast<int>(o.max));
        s->setKeyboardTracking(false);
        s->setToolTip(qs(o.help));
        return s;
    };
    m_tp = spin("tp");
    m_pp = spin("pp");
    m_dp = spin("dp");
    form->addRow(tr("&Tensor (tp)"), m_tp);
    form->addRow(tr("&Pipeline (pp)"), m_pp);
    form->addRow(tr("&Data (dp)"), m_dp);
    struct Bind
    {
        QSpinBox *spin;
        int Scenario::*field;
        const char *label;
    };
    for (const Bind &b :
         {Bind{m_tp, &Scenario::tp, "tp"}, Bind{m_pp, &Scenario::pp, "pp"}, Bind{m_dp, &Scenario::dp, "dp"}}) {
        connect(b.spin, &QSpinBox::valueChanged, this, [this, b](int v) {
            Scenario s = m_doc->scenario();
            s.*(b.field) = v;
            m_doc->setScenario(s, tr("%1 %2").arg(QString::fromLatin1(b.label)).arg(v));
        });
    }
    return box;
}

QWidget *ControlsPanel::buildOptionsGroup()
{
    auto *box = group(tr("Options"), tr("Kernel and cache choices, and how close to peak the run gets."), this);
    m_groups.insert(QStringLiteral("Options"), box);
    auto *form = new QFormLayout(box);
    m_fused = new QCheckBox(tr("&Fused attention"), box);
    m_fused->setObjectName("fusedAttention");
    m_fused->setToolTip(qs(findOption("fused_attention")->help));
    m_kvCache = new QCheckBox(tr("K&V cache"), box);
    m_kvCache->setObjectName("kvCache");
    m_kvCache->setToolTip(qs(findOption("kv_cache")->help));
    m_efficiency = new QComboBox(box);
    m_efficiency->setObjectName("efficiency");
    m_efficiency->addItem(tr("ideal (the roofline)"), static_cast<int>(EfficiencyMode::Ideal));
    m_efficiency->addItem(tr("achievable (microbenchmarks)"), static_cast<int>(EfficiencyMode::Achievable));
    m_efficiency->setToolTip(qs(findOption("efficiency")->help));
    form->addRow(m_fused);
    form->addRow(m_kvCache);
    form->addRow(tr("&Efficiency"), m_efficiency);
    connect(m_fused, &QCheckBox::toggled, this, [this](bool on) {
        Scenario s = m_doc->scenario();
        s.fusedAttention = on;
        m_doc->setScenario(s, on ? tr("Fused attention on") : tr("Fused attention off"));
    });
    connect(m_kvCache, &QCheckBox::toggled, this, [this](bool on) {
        Scenario s = m_doc->scenario();
        s.kvCache = on;
        m_doc->setScenario(s, on ? tr("KV cache on") : tr("KV cache off"));
    });
    connect(m_efficiency, &QComboBox::activated, this, [this](int i) {
        Scenario s = m_doc->scenario();
        s.efficiency = static_cast<EfficiencyMode>(m_efficiency->itemData(i).toInt());
        m_doc->setScenario(s, tr("Efficiency %1").arg(qs(toString(s.efficiency))));
    });
    return box;
}

void ControlsPanel::syncFromDocument()
{
    const Scenario &s = m_doc->scenario();
    m_error->setText(m_doc->analysisError());
    m_error->setVisible(!m_doc->analysisError().isEmpty());

    m_device->setCurrentId(qs(m_doc->baseHardware().id), tr("%1 (custom)").arg(qs(m_doc->baseHardware().name)));
    m_model->setCurrentId(m_doc->file().modelInline ? QString() : qs(m_doc->model().id),
                          tr("%1 (imported)").arg(qs(m_doc->model().name)));
    if (m_doc->file().modelInline)
        m_model->setToolTip(modelTip(m_doc->model()));

    selectData(m_phase, static_cast<int>(s.phase));
    m_batch->setValue(static_cast<double>(s.batch));
    m_seq->setValue(static_cast<double>(s.seq));
    m_context->setValue(static_cast<double>(s.context));
    m_output->setValue(static_cast<double>(s.output));
    // Lengths a phase does not use stay visible but greyed out. The request that the timeline and the search serve
    // is the prompt and the output in every phase (core::serve()), so the prompt is never greyed, and in decode,
    // whose step is at the context, a line says which request the prompt and the output make.
    const bool serves = s.phase != Phase::Encode && s.phase != Phase::Train;
    m_context->setEnabled(s.phase == Phase::Decode);
    m_output->setEnabled(serves);
    const bool note = s.phase == Phase::Decode || s.phase == Phase::Prefill; // generate's lengths are the request's
    m_requestNote->setVisible(note);
    if (note) {
        const QString text =
            s.phase == Phase::Decode
                ? tr("The step above is at context %1. Search and timeline serve a request of %2 prompt and %3 "
                     "output tokens.")
                      .arg(formatGrouped(s.context), formatGrouped(s.seq), formatGrouped(s.output))
                : tr("Search and timeline serve a request of %1 prompt and %2 output tokens.")
                      .arg(formatGrouped(s.seq), formatGrouped(s.output));
        if (m_requestNote->text() != text) // a batch tick leaves it as it is: no relayout
            m_requestNote->setText(text);
    }

    // A format the list does not offer (a checkpoint's own, such as FP8 in 128 x 128 blocks with fp32 scales) is
    // shown as itself, as the last item, while the scenario has it.
    const int weights = precision::weightChoiceIndex(s.weights);
    if (const int own = m_weights->findData(-1); weights >= 0 && own >= 0) {
        m_weights->removeItem(own);
    } else if (weights < 0) {
        const QString label = precision::weightLabel(s.weights);
        if (own < 0)
            m_weights->addItem(label, -1);
        else
            m_weights->setItemText(own, label);
    }
    selectData(m_weights, weights);
    selectData(m_activations, static_cast<int>(s.activations));
    selectData(m_kv, static_cast<int>(s.kv));

    for (auto [spin, v] : {std::pair{m_tp, s.tp}, {m_pp, s.pp}, {m_dp, s.dp}}) {
        const QSignalBlocker block(spin);
        if (spin->value() != v) // setValue() repaints even when nothing changes
            spin->setValue(v);
    }
    {
        const QSignalBlocker b1(m_fused);
        const QSignalBlocker b2(m_kvCache);
        m_fused->setChecked(s.fusedAttention);
        m_kvCache->setChecked(s.kvCache);
    }
    selectData(m_efficiency, static_cast<int>(s.efficiency));
    syncImagesControl();
}

void ControlsPanel::syncImagesControl()
{
    // Images become a vision tower's image tokens: a text-only model greys the control and says why. A scenario that
    // asks a text-only model for images anyway (a file, a link) keeps it usable, to set them back to 0; the error
    // line above says what is wrong.
    OptionControl *images = m_optionControls.value(QStringLiteral("images"));
    if (!images)
        return;
    const bool tower = m_doc->model().vision.present();
    const bool enable = tower || m_doc->scenario().images > 0;
    if (images->isEnabled() != enable)
        images->setEnabled(enable);
    const QString tip = tower ? qs(findOption("images")->help)
                              : tr("%1 has no vision tower: it reads text only, so it takes no images. Pick a "
                                   "multimodal model (Gemma 3, Qwen3-VL, ...) to add images to the request.")
                                    .arg(qs(m_doc->model().name));
    if (images->toolTip() == tip) // the common case: a slider tick changes neither
        return;
    images->setToolTip(tip);
    if (auto *slider = qobject_cast<LogSlider *>(images->editor()))
        slider->setToolTipText(tip);
    else
        images->editor()->setToolTip(tip);
}

} // namespace memwall::ui
