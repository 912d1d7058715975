#include "ui/widgets/headlinebar.h"

#include "analysis/explain.h"
#include "ui/document/scenariodocument.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace memwall::ui {

using namespace memwall::core;

namespace {

QString q(const std::string &s) { return QString::fromStdString(s); }
QString si(double v, const char *unit) { return q(formatSi(v, unit)); }

/// A big figure over a small caption.
QString figure(const QString &value, const QString &caption, const QColor &color = QColor())
{
    const QString style = color.isValid() ? QStringLiteral(" style=\"color:%1\"").arg(color.name()) : QString();
    return QStringLiteral("<span style=\"font-size:x-large; font-weight:600\"%1>%2</span><br><small%1>%3</small>")
        .arg(style, value.toHtmlEscaped(), caption.toHtmlEscaped());
}

QLabel *figureLabel(QWidget *parent, const char *name, const QString &tip)
{
    auto *label = new QLabel(parent);
    label->setObjectName(name);
    label->setTextFormat(Qt::RichText);
    label->setToolTip(tip);
    label->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    return label;
}

} // namespace

HeadlineBar::HeadlineBar(ScenarioDocument *doc, QWidget *parent)
    : QFrame(parent), m_doc(doc),
      m_time(figureLabel(this, "headlineTime", tr("Time for the phase on one device's critical path, communication included."))),
      m_throughput(figureLabel(this, "headlineThroughput", tr("Tokens per second over all replicas: generated for decode/generate, processed otherwise."))),
      m_memory(figureLabel(this, "headlineMemory", tr("Memory one device holds (weights, KV cache, activations, training state) against its main memory."))),
      m_bound(figureLabel(this, "headlineBound", tr("What limits the step: compute, memory bandwidth or communication between devices."))),
      m_explanation(new QLabel(this))
{
    setFrameShape(QFrame::StyledPanel);
    m_explanation->setObjectName("headlineExplanation");
    m_explanation->setWordWrap(true);
    m_explanation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_explanation->setToolTip(tr("Why the run is as fast as it is, in one sentence computed from the analysis."));

    auto *figures = new QHBoxLayout;
    figures->setSpacing(28);
    for (QLabel *l : {m_time, m_throughput, m_memory, m_bound})
        figures->addWidget(l);
    figures->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 6, 12, 6);
    layout->setSpacing(4);
    layout->addLayout(figures);
    layout->addWidget(m_explanation);

    connect(doc, &ScenarioDocument::analysisChanged, this, &HeadlineBar::refresh);
    refresh();
}

void HeadlineBar::setWarningColor(const QColor &c)
{
    m_warning = c;
    refresh();
}

void HeadlineBar::refresh()
{
    const Analysis &a = m_doc->analysis();
    const Scenario &s = m_doc->scenario();
    switch (s.phase) {
    case Phase::Decode: m_time->setText(figure(si(a.totals.timeS, "s"), tr("per token (per decode step)"))); break;
    case Phase::Prefill: m_time->setText(figure(si(a.totals.timeS, "s"), tr("time to first token (prefill)"))); break;
    case Phase::Generate:
        m_time->setText(figure(tr("%1 + %2/token").arg(si(a.phases.ttftS, "s"), si(a.phases.tpotS, "s")),
                               tr("first token, then each token · %1 in all").arg(si(a.phases.e2eS, "s"))));
        break;
    case Phase::Encode: m_time->setText(figure(si(a.totals.timeS, "s"), tr("per batch (encode)"))); break;
    case Phase::Train: m_time->setText(figure(si(a.totals.timeS, "s"), tr("per training step"))); break;
    }
    m_throughput->setText(figure(si(a.totals.tokensPerS, ""), tr("tokens/s")));
    const QString used = tr("%1 of %2").arg(si(a.memory.total(), "B"), si(a.memory.capacity, "B"));
    m_memory->setText(a.memory.fits ? figure(used, tr("memory per device (%1 %)").arg(a.memory.capacity > 0
                                                                                      ? qRound(100 * a.memory.total() / a.memory.capacity)
                                                                                      : 0))
                                    : figure(used, tr("does not fit in one device"), m_warning));
    m_bound->setText(figure(QString::fromUtf8(toString(a.totals.bound).data()) + tr("-bound"),
                            tr("%1 FLOP/byte, ridge %2").arg(q(formatRatio(a.totals.intensity)), q(formatRatio(a.ridge)))));

    if (!m_doc->analysisError().isEmpty()) {
        m_explanation->setText(tr("Cannot analyse this combination: %1. The figures show the last valid one.")
                                   .arg(m_doc->analysisError()));
        m_explanation->setStyleSheet(QStringLiteral("color:%1; font-weight:600").arg(m_warning.name()));
    } else {
        m_explanation->setText(q(explain(m_doc->hardware(), m_doc->model(), s, a)));
        m_explanation->setStyleSheet(QString());
    }
}

} // namespace memwall::ui
