#include "ui/document/scenariosubtitle.h"

#include "core/analysis/scenario.h"
#include "core/hardware/hardwarespec.h"
#include "core/model/dtype.h"
#include "core/model/modelshape.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QCoreApplication>

namespace memwall::ui {

namespace {
QString subtitleTr(const char *text) { return QCoreApplication::translate("ScenarioSubtitle", text); }
QString upperName(std::string_view s) { return qs(s).toUpper(); }
} // namespace

QString parallelismText(const core::Scenario &s)
{
    QStringList parts;
    for (const auto &[name, degree] : {std::pair{"TP", s.tp}, std::pair{"PP", s.pp}, std::pair{"EP", s.ep},
                                       std::pair{"attention DP", s.attentionDp}, std::pair{"DP", s.dp}})
        if (degree > 1)
            parts << QStringLiteral("%1 %2").arg(QLatin1String(name)).arg(degree);
    return parts.isEmpty() ? subtitleTr("1 device") : parts.join(QStringLiteral(" · "));
}

QStringList scenarioSubtitles(const core::ModelShape &model, const core::HardwareSpec &hw, const core::Scenario &s)
{
    const QString name = QString::fromStdString(model.name.empty() ? model.id : model.name);
    const QString device = QString::fromStdString(hw.name.empty() ? hw.id : hw.name);
    const QString weights = upperName(core::toString(s.weights));
    const QString kv = upperName(core::toString(s.kv)), act = upperName(core::toString(s.activations));
    QString experts;
    if (s.expertWeights)
        experts = upperName(core::toString(*s.expertWeights));
    const QString head =
        QStringLiteral("%1 · %2 · %3 · %4").arg(name, device, parallelismText(s), subtitleTr("batch %1").arg(s.batch));
    QString full = subtitleTr("weights %1, KV %2, activations %3").arg(weights, kv, act);
    QString brief = QStringLiteral("W %1 · KV %2 · A %3").arg(weights, kv, act);
    if (!experts.isEmpty()) {
        full += subtitleTr(", experts %1").arg(experts);
        brief += QStringLiteral(" · E %1").arg(experts);
    }
    const QString shortHead =
        QStringLiteral("%1 · %2 · %3 · %4").arg(name, device, parallelismText(s), subtitleTr("b %1").arg(s.batch));
    return {head + QStringLiteral(" · ") + full, head + QStringLiteral(" · ") + brief,
            shortHead + QStringLiteral(" · ") + brief};
}

QStringList scenarioSubtitles(const ScenarioDocument &doc)
{
    return scenarioSubtitles(doc.model(), doc.hardware(), doc.scenario());
}

} // namespace memwall::ui
