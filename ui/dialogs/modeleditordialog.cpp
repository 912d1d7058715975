#include "ui/dialogs/modeleditordialog.h"

#include "core/io/jsonreader.h"
#include "ui/controls/presetpicker.h"
#include "ui/dialogs/presetfiles.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <climits>
#include <cmath>

namespace memwall::ui {

using nlohmann::json;

namespace {

const QString kModelOrigin = QStringLiteral("model editor");

} // namespace

ModelEditorDialog::ModelEditorDialog(const core::PresetLibrary &presets, const core::ModelShape &start, QWidget *parent,
                                     core::DType kv)
    : PresetEditorDialog(presets, QStringLiteral("models"), tr("Cannot save the model"), parent), m_kv(kv)
{
    setWindowTitle(tr("Model Editor"));
    buildUi();
    const core::ModelPreset *preset = m_presets.findModel(start.id);
    if (preset && isBuiltinPreset(preset->sourceFile) && core::toJson(preset->shape) == core::toJson(start))
        copyFrom(*preset);
    else
        setShape(start, preset ? QString::fromStdString(preset->source) : QString(), preset ? preset->year : 0);
}

void ModelEditorDialog::buildUi()
{
    auto *top = new QVBoxLayout(this);

    addCopyFromRow(top, tr("Fill every field from a model preset (type to search). A built-in preset is copied "
                           "under a new id, so it is never replaced by accident."));
    for (const auto &m : m_presets.models())
        m_copyFrom->addPreset(QString::fromStdString(m.shape.id), QString::fromStdString(m.shape.name),
                              QString::fromStdString(m.source));
    connect(m_copyFrom, &PresetPicker::idActivated, this, [this](const QString &id) {
        if (const auto *m = m_presets.findModel(id.toStdString()))
            copyFrom(*m);
    });

    auto *columns = new QHBoxLayout;
    top->addLayout(columns, 1);

    columns->addWidget(buildIdentityBox(), 3);
    columns->addWidget(buildShapeBox(), 2);
    columns->addWidget(buildStructureBox(), 2);
    top->addWidget(buildComputedBox());

    m_generalError = m_errorLabels.value("general");
    addButtons(top);
    resize(1040, 600);
}

void ModelEditorDialog::errorRow(QFormLayout *form, const QString &key)
{
    QLabel *l = makeErrorLabel(this);
    l->setObjectName(key + "Error");
    form->addRow(QString(), l);
    m_errorLabels.insert(key, l);
}

QLineEdit *ModelEditorDialog::addLineEdit(QFormLayout *form, const QString &key, const QString &label,
                                          const QString &tip)
{
    auto *e = new QLineEdit(this);
    e->setObjectName(key + "Edit");
    e->setToolTip(tip);
    connect(e, &QLineEdit::textChanged, this, &ModelEditorDialog::revalidate);
    m_fieldWidgets.insert(key, e);
    form->addRow(label, e);
    return e;
}

QSpinBox *ModelEditorDialog::addSpin(QFormLayout *form, const QString &key, const QString &label, const QString &tip)
{
    auto *s = new QSpinBox(this);
    s->setObjectName(key + "Spin");
    s->setRange(0, INT_MAX);
    s->setGroupSeparatorShown(true);
    s->setToolTip(tip);
    s->setAccelerated(true);
    connect(s, &QSpinBox::valueChanged, this, &ModelEditorDialog::revalidate);
    m_ints.insert(key, s);
    m_fieldWidgets.insert(key, s);
    form->addRow(label, s);
    return s;
}

void ModelEditorDialog::addCombo(QFormLayout *form, const QString &key, const QString &label, const QStringList &items,
                                 const QString &tip)
{
    auto *c = new QComboBox(this);
    c->setObjectName(key + "Combo");
    c->addItems(items);
    c->setToolTip(tip);
    connect(c, &QComboBox::currentTextChanged, this, &ModelEditorDialog::revalidate);
    m_combos.insert(key, c);
    m_fieldWidgets.insert(key, c);
    form->addRow(label, c);
}

void ModelEditorDialog::addCheck(QFormLayout *form, const QString &key, const QString &label, const QString &tip)
{
    auto *c = new QCheckBox(label, this);
    c->setObjectName(key + "Check");
    c->setToolTip(tip);
    connect(c, &QCheckBox::toggled, this, &ModelEditorDialog::revalidate);
    m_bools.insert(key, c);
    form->addRow(QString(), c);
}

QGroupBox *ModelEditorDialog::buildIdentityBox()
{
    auto *identity = new QGroupBox(tr("Model"), this);
    auto *iform = new QFormLayout(identity);
    m_id = addLineEdit(iform, "id", tr("&Id:"),
                       tr("Preset id: lower-case letters, digits and dashes. Use it on the command "
                          "line: memwall analyze --model ID"));
    errorRow(iform, "id");
    m_name = addLineEdit(iform, "name", tr("&Name:"), tr("Display name, e.g. \"Llama 2 7B\""));
    errorRow(iform, "name");
    m_family = addLineEdit(iform, "family", tr("&Family:"), tr("Model family: llama, gpt2, bert, opt, falcon, …"));
    errorRow(iform, "family");
    m_source =
        addLineEdit(iform, "source", tr("&Source:"),
                    tr("Where the shape comes from: the config.json URL on Hugging Face, or the paper and table"));
    m_source->setPlaceholderText(tr("config.json URL or paper"));
    errorRow(iform, "source");
    m_year = new QSpinBox(this);
    m_year->setObjectName("yearSpin");
    m_year->setRange(0, 2100);
    m_year->setSpecialValueText(tr("unknown"));
    m_year->setToolTip(tr("Year of release (0 = unknown)"));
    connect(m_year, &QSpinBox::valueChanged, this, &ModelEditorDialog::revalidate);
    iform->addRow(tr("&Year:"), m_year);
    addCombo(iform, "arch", tr("&Architecture:"), {"decoder", "encoder"},
             tr("decoder: GPT-style, generates with a KV cache; encoder: BERT-style, bidirectional, no cache"));
    errorRow(iform, "arch");
    addCombo(iform, "activation", tr("Acti&vation:"), {"gelu", "silu", "relu", "relu2"}, tr("FFN activation function"));
    addCombo(iform, "positions", tr("&Positions:"), {"learned", "rotary", "alibi", "none"},
             tr("Position encoding: learned embeddings add max_positions × hidden parameters"));
    errorRow(iform, "positions");
    addCombo(iform, "norm", tr("N&orm:"), {"layernorm", "rmsnorm"},
             tr("LayerNorm has a weight and a bias per channel, RMSNorm only a weight"));
    return identity;
}

QGroupBox *ModelEditorDialog::buildShapeBox()
{
    // ---- sizes ----
    auto *sizes = new QGroupBox(tr("Shape"), this);
    auto *sform = new QFormLayout(sizes);
    const std::vector<std::tuple<QString, QString, QString>> ints{
        {"layers", tr("&Layers:"), tr("Transformer blocks")},
        {"hidden", tr("&Hidden size:"), tr("d_model: width of the residual stream")},
        {"heads", tr("&Heads:"), tr("Query heads")},
        {"kv_heads", tr("&KV heads:"),
         tr("Key/value heads: equal to heads for multi-head attention, 1 for multi-query, in between for "
            "grouped-query; "
            "heads must be a multiple of it. Sets the KV-cache size.")},
        {"head_dim", tr("Head &dim:"), tr("Width of one head (usually hidden / heads; Gemma differs)")},
        {"ffn", tr("&FFN size:"), tr("Inner width of the feed-forward block (per expert for mixture-of-experts)")},
        {"vocab", tr("&Vocabulary:"),
         tr("Tokens in the vocabulary: the embedding and LM head have vocab × hidden weights (0 for a model of "
            "image patches, such as ViT, whose embedding projects each patch)")},
        {"max_positions", tr("&Max positions:"), tr("Context length the model was trained for (0 = unknown)")},
        {"experts", tr("&Experts:"), tr("Mixture-of-experts: experts per layer (1 = dense)")},
        {"active_experts", tr("&Active experts:"), tr("Experts each token is routed to")},
        {"shared_ffn", tr("Shared e&xpert FFN:"),
         tr("Mixture-of-experts: inner width of the always-active shared expert (0 = none). Every token uses it, "
            "and expert parallelism keeps a copy on every device")},
        {"sliding_window", tr("Sliding &window:"), tr("Attention window in tokens (0 = full attention)")}};
    for (const auto &[key, label, tip] : ints) {
        addSpin(sform, key, label, tip);
        errorRow(sform, key);
    }
    return sizes;
}

QGroupBox *ModelEditorDialog::buildStructureBox()
{
    // ---- structure ----
    auto *structure = new QGroupBox(tr("Structure"), this);
    auto *bform = new QFormLayout(structure);
    addCheck(bform, "gated_ffn", tr("&Gated FFN (SwiGLU / GeGLU)"),
             tr("Gated FFN: separate up and gate projections (three FFN matrices instead of two)"));
    addCheck(bform, "tied_embeddings", tr("&Tied embeddings"), tr("The LM head shares the embedding matrix"));
    addCheck(bform, "qkv_bias", tr("&QKV bias"), tr("Biases on the query, key and value projections"));
    addCheck(bform, "out_bias", tr("Attention o&utput bias"), tr("Bias on the attention output projection"));
    addCheck(bform, "ffn_bias", tr("FFN &biases"), tr("Biases on the FFN projections"));
    addCheck(bform, "shared_expert_gate", tr("Shared expert gate (sigmoid)"),
             tr("A sigmoid gate (hidden × 1) scales the shared expert's output (Qwen2-MoE)"));
    addCheck(bform, "parallel_attention", tr("Pa&rallel attention and FFN"),
             tr("Attention and FFN read the same normed input (GPT-J, Falcon)"));
    addCheck(bform, "post_norms", tr("Norms after attention and FFN"),
             tr("A norm on the attention's and the FFN's output before each residual add: four per layer (Gemma 2)"));
    errorRow(bform, "general");
    return structure;
}

QGroupBox *ModelEditorDialog::buildComputedBox()
{
    // ---- live numbers ----
    auto *live = new QGroupBox(tr("Computed"), this);
    auto *lform = new QFormLayout(live);
    m_paramsLabel = new QLabel(this);
    m_paramsLabel->setObjectName("paramsLabel");
    m_paramsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_paramsLabel->setToolTip(
        tr("Parameters counted the Hugging Face way (sum of p.numel()): embeddings, every layer's "
           "attention and FFN weights and biases, norms, MoE router, final norm, untied LM head"));
    lform->addRow(tr("Parameters:"), m_paramsLabel);
    m_kvLabel = new QLabel(this);
    m_kvLabel->setObjectName("kvLabel");
    m_kvLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_kvLabel->setToolTip(tr("KV cache per token = 2 × layers × kv_heads × head_dim × bytes per element "
                             "(OPT-13B at FP16: 819 kB, the vLLM paper's \"800 KB\"); with latent attention (MLA), "
                             "layers × (kv_lora_rank + qk_rope_head_dim) × bytes. Sliding-window layers stop "
                             "growing at their window."));
    lform->addRow(tr("KV cache:"), m_kvLabel);
    return live;
}

void ModelEditorDialog::setShape(const core::ModelShape &shape, const QString &source, int year)
{
    m_base = shape;
    m_filling = true;
    m_id->setText(QString::fromStdString(shape.id));
    m_name->setText(QString::fromStdString(shape.name));
    m_family->setText(QString::fromStdString(shape.family));
    m_source->setText(source);
    m_source->setCursorPosition(0);
    m_year->setValue(year);
    const json j = core::toJson(shape);
    for (auto it = m_ints.begin(); it != m_ints.end(); ++it)
        it.value()->setValue(
            static_cast<int>(std::clamp<int64_t>(j.at(it.key().toStdString()).get<int64_t>(), 0, INT_MAX)));
    for (auto it = m_bools.begin(); it != m_bools.end(); ++it)
        it.value()->setChecked(j.at(it.key().toStdString()).get<bool>());
    for (auto it = m_combos.begin(); it != m_combos.end(); ++it)
        it.value()->setCurrentText(QString::fromStdString(j.at(it.key().toStdString()).get<std::string>()));
    m_copyFrom->setCurrentId(QString::fromStdString(shape.id), tr("(custom model)"));
    m_filling = false;
    revalidate();
}

void ModelEditorDialog::copyFrom(const core::ModelPreset &preset, bool newId)
{
    core::ModelShape copy = preset.shape;
    if (newId || isBuiltinPreset(preset.sourceFile)) {
        copy.id = preset.shape.id + "-custom";
        copy.name = preset.shape.name + " (custom)";
    }
    setShape(copy, QString::fromStdString(preset.source), preset.year);
    m_copyFrom->setCurrentId(QString::fromStdString(preset.shape.id));
}

json ModelEditorDialog::collect() const
{
    json shape = core::toJson(m_base); // keeps the fields not shown (position offset, token types, pooler, …)
    shape.erase("id");
    shape.erase("name");
    shape["family"] = m_family->text().trimmed().toStdString();
    for (auto it = m_ints.begin(); it != m_ints.end(); ++it)
        shape[it.key().toStdString()] = it.value()->value();
    for (auto it = m_bools.begin(); it != m_bools.end(); ++it)
        shape[it.key().toStdString()] = it.value()->isChecked();
    for (auto it = m_combos.begin(); it != m_combos.end(); ++it)
        shape[it.key().toStdString()] = it.value()->currentText().toStdString();
    json j{{"kind", "model"},
           {"schema", 1},
           {"id", m_id->text().trimmed().toStdString()},
           {"name", m_name->text().trimmed().toStdString()},
           {"source", m_source->text().trimmed().toStdString()},
           {"shape", shape}};
    if (m_year->value() > 0)
        j["year"] = m_year->value();
    return j;
}

double ModelEditorDialog::kvBytesPerToken() const
{
    return core::cachedElements(m_shape, core::layerGroups(m_shape), 1, 1) * core::bytesOf(m_kv);
}

void ModelEditorDialog::showError(const core::InputError &e)
{
    // A rule between fields (core::validate(): "heads (32) must be a multiple of kv_heads (5)") is about all of
    // them: mark each, and show the message under the first.
    QStringList fields;
    for (const std::string &f : e.fields())
        if (m_fieldWidgets.contains(qs(f)))
            fields << qs(f);
    for (const QString &f : std::as_const(fields))
        setInvalid(m_fieldWidgets.value(f), true);
    QLabel *label = fields.isEmpty() ? nullptr : m_errorLabels.value(fields.front());
    if (!label)
        label = m_generalError;
    label->setText(qs(e.detail()));
    label->show();
}

void ModelEditorDialog::check(const json &file)
{
    if (m_source->text().trimmed().isEmpty())
        throw core::InputError(kModelOrigin.toStdString(), "source",
                               "must not be empty (say where the shape comes from: a config.json URL or a paper)");
    const core::ModelPreset p = core::modelPresetFromJson(file, kModelOrigin.toStdString());
    m_shape = p.shape;
    m_params = core::paramCount(m_shape);
}

QString ModelEditorDialog::presetId() const { return QString::fromStdString(m_shape.id); }

QString ModelEditorDialog::builtinNameFor(const QString &id) const
{
    const auto *existing = m_presets.findModel(id.toStdString());
    return existing && isBuiltinPreset(existing->sourceFile) ? QString::fromStdString(existing->shape.name) : QString();
}

void ModelEditorDialog::showSummary(bool valid)
{
    if (!valid) {
        m_paramsLabel->setText(tr("— (fix the field marked in red)"));
        m_kvLabel->setText(tr("—"));
        return;
    }
    QString params =
        tr("%1 (%2)").arg(formatSiNumber(static_cast<double>(m_params.total)), formatGrouped(m_params.total));
    if (m_shape.isMoe())
        params += tr(" · %1 active per token (%2)")
                      .arg(formatSiNumber(static_cast<double>(m_params.active)), formatGrouped(m_params.active));
    m_paramsLabel->setText(params);
    const double kv = kvBytesPerToken();
    QString kvText = tr("%1 per token (%2 bytes) at %3")
                         .arg(formatBytes(kv), formatGrouped(std::llround(kv)), qs(core::toString(m_kv)).toUpper());
    if (m_shape.maxPositions > 0)
        kvText +=
            tr(" · %1 for one sequence of %2 tokens")
                .arg(formatBytes(kv * static_cast<double>(m_shape.maxPositions)), formatGrouped(m_shape.maxPositions));
    m_kvLabel->setText(kvText);
}

std::optional<core::ModelShape> ModelEditorDialog::editInto(ScenarioDocument *doc, const core::ModelShape &start,
                                                            QWidget *parent, bool newPreset)
{
    ModelEditorDialog dialog(doc->presets(), start, parent, doc->scenario().kv);
    if (newPreset) {
        core::ModelPreset p;
        p.shape = start;
        if (const auto *known = doc->presets().findModel(start.id)) {
            p.source = known->source;
            p.year = known->year;
        }
        dialog.copyFrom(p, true);
    }
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    doc->setModel(dialog.shape(), true);
    return dialog.shape();
}

} // namespace memwall::ui
