#include "ui/controls/optioncontrol.h"

#include "ui/controls/logslider.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"
#include "ui/util/wheelguard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <climits>

namespace memwall::ui {

using namespace memwall::core;

namespace {
bool usesLogSlider(const ScenarioOption &o) { return o.typicalMax > 0; }
} // namespace

int OptionControl::mergeKey(const ScenarioOption &o)
{
    const auto &all = scenarioOptions();
    return 100 + static_cast<int>(&o - all.data());
}

OptionControl::OptionControl(const ScenarioOption &option, ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent), m_option(option), m_doc(doc)
{
    setObjectName(qs(option.key));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    const QString tip = qs(option.help);
    switch (option.kind) {
    case OptionKind::Integer:
    case OptionKind::Real:
        if (usesLogSlider(option)) {
            const int decimals = option.kind == OptionKind::Integer ? 0 : 2;
            auto *slider = new LogSlider(std::max(option.typicalMin > 0 ? option.typicalMin : option.min, 1e-3),
                                         option.typicalMax, decimals, this);
            slider->setAcceptedRange(option.min, option.max);
            if (option.section == OptionSection::WhatIf)
                slider->setPrefix(QStringLiteral("×"));
            slider->setToolTipText(tip);
            connect(slider, &LogSlider::valueChanged, this, [this](double v) {
                write(m_option.kind == OptionKind::Integer ? OptionValue(static_cast<int64_t>(v)) : OptionValue(v));
            });
            m_editor = slider;
        } else if (option.kind == OptionKind::Integer) {
            auto *spin = new QSpinBox(this);
            spin->setRange(static_cast<int>(option.min), static_cast<int>(std::min<double>(option.max, INT_MAX)));
            spin->setKeyboardTracking(false);
            if (!option.zeroMeans.empty() && option.min == 0)
                spin->setSpecialValueText(
                    QString::fromUtf8(option.zeroMeans.data(), qsizetype(option.zeroMeans.size())));
            connect(spin, &QSpinBox::valueChanged, this, [this](int v) { write(static_cast<int64_t>(v)); });
            m_editor = spin;
        } else {
            auto *spin = new QDoubleSpinBox(this);
            spin->setDecimals(3);
            spin->setSingleStep(0.05);
            // A nullable option shows "auto" at the bottom of its range; an open lower end starts one step above it.
            const double bottom = option.minOpen && !option.nullable ? option.min + 0.001 : option.min;
            spin->setRange(bottom, option.max);
            if (option.nullable)
                spin->setSpecialValueText(tr("auto"));
            spin->setKeyboardTracking(false);
            connect(spin, &QDoubleSpinBox::valueChanged, this, [this, spin](double v) {
                write(m_option.nullable && v == spin->minimum() ? OptionValue() : OptionValue(v));
            });
            m_editor = spin;
        }
        break;
    case OptionKind::Choice: {
        auto *combo = new QComboBox(this);
        for (const std::string &c : option.choices)
            combo->addItem(qs(c));
        connect(combo, &QComboBox::activated, this, [this, combo](int i) { write(combo->itemText(i).toStdString()); });
        m_editor = combo;
        break;
    }
    case OptionKind::Switch: {
        auto *check = new QCheckBox(this);
        connect(check, &QCheckBox::toggled, this, [this](bool on) { write(on); });
        m_editor = check;
        break;
    }
    }
    m_editor->setObjectName(qs(option.key) + QStringLiteral("Editor"));
    m_editor->setToolTip(tip);
    setToolTip(tip);
    layout->addWidget(m_editor);
    WheelGuard::guardChildren(this); // the wheel changes it only when focused, wherever it is placed
    connect(doc, &ScenarioDocument::analysisChanged, this, &OptionControl::syncFromDocument);
    syncFromDocument();
}

OptionValue OptionControl::current() const { return m_option.get(m_doc->scenario(), m_doc->file().whatIf); }

QString OptionControl::write(const OptionValue &v)
{
    Scenario s = m_doc->scenario();
    WhatIf w = m_doc->file().whatIf;
    if (const std::string e = applyOption(m_option, s, w, v); !e.empty()) {
        syncFromDocument(); // the control shows the document's value again
        return QString::fromStdString(std::string(m_option.key) + " " + e);
    }
    const int key = usesLogSlider(m_option) ? mergeKey(m_option) : -1;
    if (m_option.section == OptionSection::WhatIf)
        m_doc->setWhatIf(w, key);
    else
        m_doc->setScenario(s, tr("%1 %2").arg(qs(m_option.label), qs(optionText(v))), key);
    return {};
}

void OptionControl::syncFromDocument()
{
    const OptionValue v = current();
    const QSignalBlocker block(m_editor);
    if (auto *slider = qobject_cast<LogSlider *>(m_editor)) {
        slider->setValue(std::holds_alternative<int64_t>(v) ? static_cast<double>(std::get<int64_t>(v))
                                                            : std::get<double>(v));
    } else if (auto *spin = qobject_cast<QSpinBox *>(m_editor)) {
        if (spin->value() != std::get<int64_t>(v))
            spin->setValue(static_cast<int>(std::get<int64_t>(v)));
    } else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(m_editor)) {
        const double x = std::holds_alternative<double>(v) ? std::get<double>(v) : dspin->minimum();
        if (dspin->value() != x)
            dspin->setValue(x);
    } else if (auto *combo = qobject_cast<QComboBox *>(m_editor)) {
        const QString name = qs(std::get<std::string>(v));
        if (combo->currentText() == name)
            return; // every control re-syncs on every change: the common case is no change
        if (combo->findText(name) < 0)
            combo->addItem(name); // a value from a file that the list does not offer still shows
        combo->setCurrentText(name);
    } else if (auto *check = qobject_cast<QCheckBox *>(m_editor)) {
        check->setChecked(std::get<bool>(v));
    }
}

} // namespace memwall::ui
