#include "ui/controls/whatifgroup.h"

#include "ui/controls/logslider.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include "core/analysis/options.h"

#include <QFormLayout>
#include <QPushButton>

#include <tuple>

namespace memwall::ui {

namespace {
/// A slider over the option's typical span that also takes its whole accepted range when typed.
LogSlider *factorSlider(std::string_view key, QWidget *parent)
{
    const core::ScenarioOption &o = *core::findOption(key, core::OptionSection::WhatIf);
    auto *slider = new LogSlider(o.typicalMin, o.typicalMax, 2, parent);
    slider->setAcceptedRange(o.min, o.max);
    slider->setPrefix(QStringLiteral("×"));
    slider->setToolTipText(qs(o.help));
    return slider;
}
} // namespace

WhatIfGroup::WhatIfGroup(ScenarioDocument *doc, QWidget *parent)
    : CachedGroupBox(tr("Hardware what-if"), parent), m_doc(doc), m_compute(factorSlider("compute", this)),
      m_bandwidth(factorSlider("bandwidth", this)), m_capacity(factorSlider("capacity", this)),
      m_reset(new QPushButton(tr("Reset to the device as published"), this))
{
    setToolTip(
        tr("Scale the selected device to see which change would help: faster compute, faster memory or more of it."));
    auto *form = new QFormLayout(this);
    for (auto [slider, key, name] : {std::tuple{m_compute, "compute", "whatIfCompute"},
                                     {m_bandwidth, "bandwidth", "whatIfBandwidth"},
                                     {m_capacity, "capacity", "whatIfCapacity"}}) {
        const core::ScenarioOption &o = *core::findOption(key, core::OptionSection::WhatIf);
        slider->setObjectName(QString::fromLatin1(name));
        form->addRow(qs(o.label), slider);
    }
    m_reset->setToolTip(tr("Sets all three factors back to ×1."));
    form->addRow(m_reset);

    auto write = [this](int key) {
        core::WhatIf w;
        w.compute = m_compute->value();
        w.bandwidth = m_bandwidth->value();
        w.capacity = m_capacity->value();
        m_doc->setWhatIf(w, key);
    };
    connect(m_compute, &LogSlider::valueChanged, this, [write] { write(ScenarioDocument::WhatIfComputeKey); });
    connect(m_bandwidth, &LogSlider::valueChanged, this, [write] { write(ScenarioDocument::WhatIfBandwidthKey); });
    connect(m_capacity, &LogSlider::valueChanged, this, [write] { write(ScenarioDocument::WhatIfCapacityKey); });
    connect(m_reset, &QPushButton::clicked, this, [this] { m_doc->setWhatIf(core::WhatIf{}); });
    connect(doc, &ScenarioDocument::analysisChanged, this, &WhatIfGroup::syncFromDocument);
    syncFromDocument();
}

void WhatIfGroup::syncFromDocument()
{
    const core::WhatIf &w = m_doc->file().whatIf;
    m_compute->setValue(w.compute);
    m_bandwidth->setValue(w.bandwidth);
    m_capacity->setValue(w.capacity);
    m_reset->setEnabled(!w.isIdentity());
}

} // namespace memwall::ui
