#include "ui/document/scenariodocument.h"

#include "core/analysis/assemble.h"
#include "ui/util/savefile.h"

#include "core/io/jsonreader.h"
#include "core/io/scenariolink.h"
#include "ui/util/precisionchoices.h"

#include <QFile>
#include <QStringList>
#include <QUndoCommand>

namespace memwall::ui {

using namespace memwall::core;

namespace {

bool sameState(const ScenarioFile &a, const ScenarioFile &b)
{
    return a.scenario == b.scenario && a.whatIf == b.whatIf && a.hardware.id == b.hardware.id &&
           a.model.id == b.model.id && a.hardwareInline == b.hardwareInline && a.modelInline == b.modelInline &&
           // Presets with the same id are the same preset; only inline (custom/imported) ones need a deep compare.
           (!a.modelInline || toJson(a.model) == toJson(b.model)) &&
           (!a.hardwareInline || toJson(a.hardware) == toJson(b.hardware));
}

/// Swaps the whole document state; repeated edits with the same merge key merge into one step (a slider drag), and
/// a step whose end state equals its start becomes obsolete (dragged back to where it began).
class SetStateCommand : public QUndoCommand
{
public:
    SetStateCommand(ScenarioDocument *doc, ScenarioFile before, ScenarioFile after, const QString &text, int mergeKey)
        : QUndoCommand(text), m_doc(doc), m_before(std::move(before)), m_after(std::move(after)), m_key(mergeKey)
    {
    }
    int id() const override { return m_key; }
    void undo() override { m_doc->applyState(m_before); }
    void redo() override { m_doc->applyState(m_after); }
    bool mergeWith(const QUndoCommand *other) override
    {
        if (other->id() != m_key || m_key < 0)
            return false;
        m_after = static_cast<const SetStateCommand *>(other)->m_after;
        setText(other->text()); // "Undo Batch size 512", not the drag's first value
        setObsolete(sameState(m_before, m_after));
        return true;
    }

private:
    ScenarioDocument *m_doc;
    ScenarioFile m_before, m_after;
    int m_key;
};

} // namespace

QString deviceNameWithoutVendor(const HardwareSpec &hw)
{
    QString name = QString::fromStdString(hw.name.empty() ? hw.id : hw.name);
    const QString vendor = QString::fromStdString(hw.vendor).section(QLatin1Char(' '), 0, 0);
    if (!vendor.isEmpty() && name.startsWith(vendor + QLatin1Char(' ')) && name.size() > vendor.size() + 1)
        name = name.mid(vendor.size() + 1);
    return name;
}

ScenarioDocument::ScenarioDocument(std::shared_ptr<const PresetLibrary> presets, QObject *parent)
    : QObject(parent), m_presets(std::move(presets))
{
    // The default the product opens with: Llama-2-70B decoding on an H100.
    if (const auto *hw = m_presets->findHardware(core::kDefaultHardware))
        m_file.hardware = *hw;
    else if (!m_presets->hardware().empty())
        m_file.hardware = m_presets->hardware().front();
    if (const auto *m = m_presets->findModel(core::kDefaultModel))
        m_file.model = m->shape;
    else if (!m_presets->models().empty())
        m_file.model = m_presets->models().front().shape;
    recompute();
    connect(&m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

void ScenarioDocument::push(const ScenarioFile &after, const QString &text, int mergeKey)
{
    if (sameState(m_file, after))
        return;
    m_undo.push(new SetStateCommand(this, m_file, after, text, mergeKey));
}

void ScenarioDocument::applyState(const ScenarioFile &f)
{
    m_file = f;
    recompute();
}

void ScenarioDocument::startFirstLaunch()
{
    // The start scenario's rule (the fewest devices that hold the model) is core's, shared with `memwall export`.
    setFile(core::startScenario(m_file), tr("Start"), true);
}

const core::FitLimits &ScenarioDocument::fitLimits() const
{
    if (!m_limits)
        m_limits = m_error.isEmpty() ? core::fitLimits(m_effective, m_file.model, m_file.scenario) : core::FitLimits{};
    return *m_limits;
}

const ScenarioDocument::Computed<core::ServingReport> &ScenarioDocument::serving() const
{
    if (m_serving)
        return *m_serving;
    m_serving.emplace();
    if (!m_error.isEmpty()) {
        m_serving->error = m_error;
        return *m_serving;
    }
    try {
        m_serving->report =
            core::serve(m_effective, m_file.model, m_file.scenario, m_presets->draftModel(m_file.scenario));
    } catch (const std::exception &e) {
        m_serving->error = QString::fromStdString(e.what());
    }
    return *m_serving;
}

const ScenarioDocument::Computed<core::OffloadReport> &ScenarioDocument::offloadReport() const
{
    if (m_offload)
        return *m_offload;
    m_offload.emplace();
    if (!core::offloads(m_file.scenario) || !m_error.isEmpty())
        return *m_offload;
    try {
        m_offload->report = core::offload(m_effective, m_file.model, m_file.scenario);
    } catch (const std::exception &e) {
        m_offload->error = QString::fromStdString(e.what());
    }
    return *m_offload;
}

void ScenarioDocument::recompute()
{
    m_limits.reset();
    m_serving.reset();
    m_offload.reset();
    try {
        m_effective = effectiveHardware(m_file);
        if (!m_file.hardware.memory.empty() && m_file.model.layers > 0) {
            m_analysis = analyze(m_effective, m_file.model, m_file.scenario);
            m_error.clear();
        } else {
            m_error = tr("No device or model loaded: check the presets.");
        }
    } catch (const std::exception &e) {
        m_error = QString::fromStdString(e.what());
    }
    recomputeCompare();
    if (m_selected >= static_cast<int>(m_analysis.operators.size()))
        m_selected = -1;
    emit analysisChanged();
}

void ScenarioDocument::recomputeCompare()
{
    m_compareAnalysis.reset();
    m_compareError.clear();
    m_compareScenario = m_file.scenario;
    if (!m_compare)
        return;
    if (m_compare->weights)
        m_compareScenario.weights = *m_compare->weights;
    if (m_compare->kv)
        m_compareScenario.kv = *m_compare->kv;
    if (m_compare->activations)
        m_compareScenario.activations = *m_compare->activations;
    const HardwareSpec &hw = compareDevice();
    if (hw.memory.empty() || m_file.model.layers <= 0) {
        m_compareError = tr("No device or model loaded: check the presets.");
        return;
    }
    try {
        m_compareAnalysis = analyze(hw, m_file.model, m_compareScenario);
    } catch (const std::exception &e) { // core::AnalysisError: one line naming the field and value
        m_compareError = QString::fromStdString(e.what());
    }
}

const std::optional<HardwareSpec> &ScenarioDocument::compareHardware() const
{
    static const std::optional<HardwareSpec> none;
    return m_compare ? m_compare->hardware : none;
}

QString ScenarioDocument::compareSummary() const
{
    if (!m_compare)
        return {};
    QStringList parts;
    if (m_compare->hardware)
        parts << deviceNameWithoutVendor(*m_compare->hardware); // legends stay short
    if (m_compare->weights)
        parts << tr("%1 weights").arg(precision::weightLabel(*m_compare->weights));
    if (m_compare->kv)
        parts << tr("%1 KV cache").arg(precision::dtypeLabel(*m_compare->kv));
    if (m_compare->activations)
        parts << tr("%1 activations").arg(precision::dtypeLabel(*m_compare->activations));
    return parts.isEmpty() ? tr("same as A") : parts.join(QStringLiteral(", "));
}

QString ScenarioDocument::compareLabel() const { return m_compare ? tr("B: %1").arg(compareSummary()) : QString(); }

void ScenarioDocument::setScenario(const Scenario &s, const QString &text, int mergeKey)
{
    ScenarioFile f = m_file;
    f.scenario = s;
    push(f, text, mergeKey);
}

void ScenarioDocument::setHardware(const HardwareSpec &hw, bool inlineSpec)
{
    ScenarioFile f = m_file;
    f.hardware = hw;
    f.hardwareInline = inlineSpec;
    push(f, tr("Device: %1").arg(QString::fromStdString(hw.name)), -1);
}

void ScenarioDocument::setHardwareById(const QString &id)
{
    if (const auto *hw = m_presets->findHardware(id.toStdString()))
        setHardware(*hw);
}

void ScenarioDocument::setModel(const ModelShape &m, bool inlineShape)
{
    ScenarioFile f = m_file;
    f.model = m;
    f.modelInline = inlineShape;
    // An encoder's forward pass instead of decode, an image's patches as its sequence: in the same undo step.
    adaptToModel(f.scenario, m);
    // Images are a vision tower's input: a text-only model picked in the window drops them (the Images control is
    // greyed for it), where the command line refuses `--images` for such a model.
    if (!m.vision.present())
        f.scenario.images = 0;
    push(f, tr("Model: %1").arg(QString::fromStdString(m.name)), -1);
}

void ScenarioDocument::setModelById(const QString &id)
{
    if (const auto *m = m_presets->findModel(id.toStdString()))
        setModel(m->shape);
}

void ScenarioDocument::setWhatIf(const WhatIf &w, int mergeKey)
{
    ScenarioFile f = m_file;
    f.whatIf = w;
    push(f, tr("What-if: compute ×%1, bandwidth ×%2, capacity ×%3").arg(w.compute).arg(w.bandwidth).arg(w.capacity),
         mergeKey);
}

void ScenarioDocument::setFile(const ScenarioFile &f, const QString &text, bool resetHistory)
{
    if (resetHistory) {
        m_undo.clear();
        applyState(f);
        m_undo.setClean();
        return;
    }
    push(f, text, -1);
}

void ScenarioDocument::setCompare(const std::optional<CompareSpec> &spec)
{
    m_compare = spec;
    // Only B changed: A's analysis stands, but every view follows the one signal.
    recomputeCompare();
    emit analysisChanged();
}

void ScenarioDocument::setCompareHardware(const std::optional<HardwareSpec> &hw)
{
    if (!hw) {
        setCompare(std::nullopt);
        return;
    }
    CompareSpec spec = m_compare.value_or(CompareSpec{});
    spec.hardware = hw;
    setCompare(spec);
}

void ScenarioDocument::setSelectedOperator(int index)
{
    if (index < -1 || index >= static_cast<int>(m_analysis.operators.size()))
        index = -1;
    if (index == m_selected)
        return;
    m_selected = index;
    emit selectionChanged(index);
}

bool ScenarioDocument::save(const QString &path, QString *error)
{
    // open() (and the command line) refuse a scenario that does not analyse: never write a file that cannot be read.
    if (!m_error.isEmpty()) {
        if (error)
            *error = tr("%1: not saved: %2").arg(path, m_error);
        return false;
    }
    std::string text;
    try {
        text = core::jsonFileText(toJson(m_file), path.toStdString()); // never write what open() refuses
    } catch (const core::InputError &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    if (const QString why = saveAtomically(path, QByteArray::fromStdString(text)); !why.isEmpty()) {
        if (error)
            *error = tr("%1: cannot write: %2").arg(path, why);
        return false;
    }
    m_path = path;
    m_undo.setClean();
    emit filePathChanged(m_path);
    return true;
}

bool ScenarioDocument::open(const QString &path, QString *error)
{
    try {
        const ScenarioFile f = readScenarioFile(path.toStdString(), *m_presets);
        // Check that it analyses before replacing anything.
        analyze(effectiveHardware(f), f.model, f.scenario);
        setFile(f, QString(), true);
        m_path = path;
        emit filePathChanged(m_path);
        return true;
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
}

QString ScenarioDocument::link(QString *error) const
{
    try {
        return QString::fromStdString(core::scenarioLink(m_file, *m_presets));
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return {};
    }
}

bool ScenarioDocument::openLink(const QString &link, QString *error)
{
    try {
        const ScenarioFile f = core::scenarioFromLink(link.toStdString(), *m_presets);
        analyze(effectiveHardware(f), f.model, f.scenario); // check that it analyses before replacing anything
        setFile(f, tr("Open link"));
        // The link's scenario is not the file's: Save must ask for a name, not overwrite the file opened before.
        if (!m_path.isEmpty()) {
            m_path.clear();
            emit filePathChanged(m_path);
        }
        return true;
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
}

bool ScenarioDocument::isScenarioFile(const QString &path)
{
    if (path.endsWith(QStringLiteral(".memwall.json"), Qt::CaseInsensitive))
        return true;
    // Through core's guarded reader: regular files only (a dropped FIFO blocked the window forever), size-capped.
    try {
        const nlohmann::json j = core::readJsonFile(path.toStdString());
        return j.is_object() && j.contains("kind") && j["kind"] == "scenario";
    } catch (const std::exception &) {
        return false; // opened as a model config, whose reader says what is wrong
    }
}

} // namespace memwall::ui
