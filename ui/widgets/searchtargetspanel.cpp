#include "ui/widgets/searchtargetspanel.h"

#include "ui/charts/searchchart.h"
#include "ui/util/text.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

namespace memwall::ui {

namespace {

/// A device budget steps by doubling and halving: a configuration's device count is a product of powers of two.
class DoublingSpinBox : public QSpinBox
{
public:
    using QSpinBox::QSpinBox;
    void stepBy(int steps) override
    {
        int v = value();
        for (; steps > 0; --steps)
            v = std::min(maximum(), v * 2);
        for (; steps < 0; ++steps)
            v = std::max(minimum(), v / 2);
        setValue(v);
    }
};

QDoubleSpinBox *targetBox(double max, double step, const QString &suffix, const QString &tip)
{
    auto *box = new QDoubleSpinBox;
    box->setRange(0, max);
    box->setDecimals(1);
    box->setSingleStep(step);
    box->setSuffix(suffix);
    box->setSpecialValueText(SearchTargetsPanel::tr("off"));
    box->setToolTip(tip);
    box->setAccelerated(true);
    return box;
}

} // namespace

SearchTargetsPanel::SearchTargetsPanel(SearchChart *chart, QWidget *parent)
    : QWidget(parent), m_chart(chart),
      m_ttft(targetBox(1e6, 50, tr(" ms"),
                       tr("Longest time to first token a configuration may take (the prefill of the prompt); "
                          "off: no limit. Moves the front at once, without searching again."))),
      m_tpot(targetBox(1e5, 5, tr(" ms"),
                       tr("Longest time per output token; drawn as the vertical line at 1 / TPOT tokens/s per user. "
                          "Off: no limit."))),
      m_perUser(targetBox(1e6, 5, QString(),
                          tr("Fewest tokens per second each user must see (interactivity); drawn as a vertical line. "
                             "Off: no limit."))),
      m_budget(new DoublingSpinBox), m_status(new QLabel)
{
    setObjectName(QStringLiteral("searchTargetsPanel"));
    setAutoFillBackground(true);
    m_ttft->setObjectName(QStringLiteral("maxTtftMs"));
    m_tpot->setObjectName(QStringLiteral("maxTpotMs"));
    m_perUser->setObjectName(QStringLiteral("minTokensPerSPerUser"));
    m_budget->setObjectName(QStringLiteral("deviceBudget"));
    m_budget->setRange(1, core::kMaxDeploymentDevices);
    m_budget->setToolTip(tr("The most devices one configuration may use (tp × pp × ep × dp); the arrows double and "
                            "halve it. Searches again."));
    m_budget->setKeyboardTracking(false); // a search per typed digit would be wasted
    m_status->setWordWrap(true);
    m_status->setObjectName(QStringLiteral("searchStatus"));

    auto *form = new QFormLayout;
    form->setRowWrapPolicy(QFormLayout::WrapAllRows);
    form->addRow(tr("Max TTFT"), m_ttft);
    form->addRow(tr("Max TPOT"), m_tpot);
    form->addRow(tr("Min tokens/s per user"), m_perUser);
    form->addRow(tr("Device budget"), m_budget);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    auto *heading = new QLabel(tr("<b>Targets</b>"));
    layout->addWidget(heading);
    layout->addLayout(form);
    layout->addWidget(m_status);
    layout->addStretch(1);

    sync();
    showStatus();
    for (QDoubleSpinBox *box : {m_ttft, m_tpot, m_perUser})
        connect(box, &QDoubleSpinBox::valueChanged, this, &SearchTargetsPanel::writeBack);
    connect(m_budget, &QSpinBox::valueChanged, m_chart, &SearchChart::setDeviceBudget);
    connect(m_chart, &SearchChart::targetsChanged, this, &SearchTargetsPanel::sync);
    connect(m_chart, &SearchChart::searchSettingsChanged, this, &SearchTargetsPanel::sync);
    connect(m_chart, &SearchChart::frontChanged, this, &SearchTargetsPanel::showStatus);
    connect(m_chart, &SearchChart::searchSettingsChanged, this, &SearchTargetsPanel::showStatus);
}

void SearchTargetsPanel::sync()
{
    const QSignalBlocker a(m_ttft), b(m_tpot), c(m_perUser), d(m_budget);
    const core::SearchTargets &t = m_chart->targets();
    m_ttft->setValue(t.maxTtftS * 1e3);
    m_tpot->setValue(t.maxTpotS * 1e3);
    m_perUser->setValue(t.minTokensPerSPerUser);
    m_budget->setValue(m_chart->deviceBudget());
}

void SearchTargetsPanel::writeBack()
{
    core::SearchTargets t;
    t.maxTtftS = m_ttft->value() / 1e3;
    t.maxTpotS = m_tpot->value() / 1e3;
    t.minTokensPerSPerUser = m_perUser->value();
    m_chart->setTargets(t);
}

void SearchTargetsPanel::showStatus()
{
    const auto &c = m_chart->candidates();
    if (!c) {
        m_status->setText(m_chart->error().isEmpty() ? tr("Searching…") : m_chart->error());
        return;
    }
    m_status->setText(tr("%1 devices, %2 configurations in %3; %4 fit, %5 meet the targets.")
                          .arg(m_chart->searchedDevices().size())
                          .arg(formatGrouped(static_cast<int64_t>(c->evaluated)), formatSeconds(c->seconds),
                               formatGrouped(static_cast<int64_t>(c->points.size())),
                               formatGrouped(static_cast<int64_t>(m_chart->front().meeting))));
}

} // namespace memwall::ui
