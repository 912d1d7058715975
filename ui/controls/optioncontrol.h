#pragma once

#include "core/analysis/options.h"

#include <QWidget>

namespace memwall::ui {

class ScenarioDocument;

/// A control built from one row of core's option table and bound to the document: a log slider for lengths and
/// what-if factors, a spin box for other numbers ("auto" at the bottom when the option may be unset), a combo box
/// for choices and a check box for switches. Its range, tooltip and undo text come from the table, so a new option
/// appears in the GUI without code of its own. It writes only through the document and is written back on
/// analysisChanged() without echo.
class OptionControl : public QWidget
{
    Q_OBJECT
public:
    OptionControl(const core::ScenarioOption &option, ScenarioDocument *doc, QWidget *parent = nullptr);

    const core::ScenarioOption &option() const { return m_option; }
    /// The editing widget inside (LogSlider, QSpinBox, QDoubleSpinBox, QComboBox or QCheckBox).
    QWidget *editor() const { return m_editor; }
    /// Sets the option as a user's edit would: checked against the table, one undo step. Returns "" or the reason.
    QString write(const core::OptionValue &v);

    /// Slider drags of one option merge into one undo step under this key (ScenarioDocument::setScenario).
    static int mergeKey(const core::ScenarioOption &o);

public slots:
    void syncFromDocument();

private:
    core::OptionValue current() const;

    const core::ScenarioOption &m_option;
    ScenarioDocument *m_doc;
    QWidget *m_editor = nullptr;
};

} // namespace memwall::ui
