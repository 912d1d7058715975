#pragma once

#include <QStringList>

namespace memwall::core {
struct HardwareSpec;
struct ModelShape;
struct Scenario;
} // namespace memwall::core

namespace memwall::ui {

class ScenarioDocument;

/// The one subtitle of every chart, export and deck page (issue #41 item 12): model, device, parallelism, batch and
/// formats, e.g. "Llama 3.1 70B · H100 SXM5 · TP 2 · batch 64 · weights FP16, KV FP16, activations FP16". Longest
/// first, then shorter forms of the same fields (never fewer fields): a narrow chart takes the first that fits.
QStringList scenarioSubtitles(const core::ModelShape &model, const core::HardwareSpec &hw, const core::Scenario &s);
/// scenarioSubtitles() of the document's scenario A.
QStringList scenarioSubtitles(const ScenarioDocument &doc);
/// The parallelism as the subtitle says it: "TP 2 · PP 4", or "1 device" without any.
QString parallelismText(const core::Scenario &s);

} // namespace memwall::ui
