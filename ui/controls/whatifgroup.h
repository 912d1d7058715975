#pragma once

#include "ui/util/cachedgroupbox.h"

class QPushButton;

namespace memwall::ui {

class LogSlider;
class ScenarioDocument;

/// "Hardware what-if": scales the device's compute, bandwidth and capacity ×0.25…×8 to ask "what if memory were
/// twice as fast?". Each slider drag is one undo step (ScenarioDocument::setWhatIf with a merge key).
class WhatIfGroup : public CachedGroupBox
{
    Q_OBJECT
public:
    explicit WhatIfGroup(ScenarioDocument *doc, QWidget *parent = nullptr);

    LogSlider *computeSlider() const { return m_compute; }
    LogSlider *bandwidthSlider() const { return m_bandwidth; }
    LogSlider *capacitySlider() const { return m_capacity; }
    QPushButton *resetButton() const { return m_reset; }

public slots:
    /// Writes the document's factors into the sliders (without echo).
    void syncFromDocument();

private:
    ScenarioDocument *m_doc;
    LogSlider *m_compute;
    LogSlider *m_bandwidth;
    LogSlider *m_capacity;
    QPushButton *m_reset;
};

} // namespace memwall::ui
