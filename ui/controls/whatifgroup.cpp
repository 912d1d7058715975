#include "ui/controls/whatifgroup.h"

#include "ui/controls/logslider.h"
#include "ui/document/scenariodocument.h"

#include <QFormLayout>
#include <QPushButton>

namespace memwall::ui {

WhatIfGroup::WhatIfGroup(ScenarioDocument *doc, QWidget *parent)
    : QGroupBox(tr("Hardware what-if"), parent), m_doc(doc), m_compute(new LogSlider(0.25, 8, 2, this)),
      m_bandwidth(new LogSlider(0.25, 8, 2, this)), m_capacity(new LogSlider(0.25, 8, 2, this)),
      m_reset(new QPushButton(tr("Reset to the device as published"), this))
{
    setToolTip(tr("Scale the selected device to see which change would help: faster compute, faster memory or more of it."));
    auto *form = new QFormLayout(this);
    struct Row
    {
        LogSlider *slider;
        QString label, tip, name;
    };
    const Row rows[] = {
        {m_compute, tr("Compute"), tr("Multiplies the device's peak FLOP/s in every number format (×0.25…×8)."),
         "whatIfCompute"},
        {m_bandwidth, tr("Bandwidth"), tr("Multiplies the bandwidth of every memory level (×0.25…×8); the ridge point moves by the inverse."),
         "whatIfBandwidth"},
        {m_capacity, tr("Capacity"), tr("Multiplies the capacity of every memory level (×0.25…×8)."), "whatIfCapacity"},
    };
    for (const Row &r : rows) {
        r.slider->setPrefix(QStringLiteral("×"));
        r.slider->setToolTipText(r.tip);
        r.slider->setObjectName(r.name);
        form->addRow(r.label, r.slider);
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
