#include "ui/widgets/measuredialog.h"

#include "ui/document/measuredpoints.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QBoxLayout>
#include <QDialogButtonBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include <algorithm>

namespace memwall::ui {

namespace {
constexpr double kMaxBudgetS = 10.0;
constexpr double kDefaultBudgetS = 6.0;

QString stageName(const QString &stage)
{
    if (stage == "bandwidth")
        return QObject::tr("Measuring memory bandwidth (triad a = b + s·c over all threads)…");
    if (stage == "matrix-vector")
        return QObject::tr("Matrix–vector products (what decoding one token does)…");
    if (stage == "matrix-matrix")
        return QObject::tr("Matrix–matrix products (what prefill and large batches do)…");
    if (stage == "done")
        return QObject::tr("Done.");
    return stage;
}
} // namespace

MeasureDialog::MeasureDialog(ScenarioDocument *doc, MeasuredPoints *points, QWidget *parent)
    : QDialog(parent), m_doc(doc), m_points(points), m_intro(new QLabel(this)), m_stage(new QLabel(this)),
      m_progress(new QProgressBar(this)), m_summary(new QLabel(this)), m_start(new QPushButton(tr("&Measure"), this)),
      m_cancel(new QPushButton(tr("&Cancel"), this)), m_show(new QPushButton(tr("&Show on the roofline"), this)),
      m_close(new QPushButton(tr("Close"), this))
{
    setWindowTitle(tr("Measure this computer"));
    m_options.budgetSeconds = kDefaultBudgetS;
    m_intro->setWordWrap(true);
    updateIntro();
    m_stage->setWordWrap(true);
    m_stage->setText(tr("Press Measure to start."));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat("%p %");
    m_progress->setToolTip(tr("Progress of the measurement"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->hide();

    m_start->setToolTip(tr("Run the measurement (bandwidth, matrix–vector, matrix–matrix)"));
    m_cancel->setToolTip(tr("Stop after the current repetition; what was measured so far is kept"));
    m_show->setToolTip(tr("Make \"This computer (measured)\" the device and plot the measured kernels on the "
                          "roofline (undoable)"));
    m_close->setToolTip(tr("Close without changing the device"));
    m_cancel->setEnabled(false);
    m_show->setEnabled(false);
    m_start->setDefault(true);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_cancel);
    buttons->addStretch();
    buttons->addWidget(m_show);
    buttons->addWidget(m_close);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_intro);
    layout->addSpacing(6);
    layout->addWidget(m_stage);
    layout->addWidget(m_progress);
    layout->addWidget(m_summary, 1);
    layout->addLayout(buttons);

    connect(m_start, &QPushButton::clicked, this, &MeasureDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &MeasureDialog::cancel);
    connect(m_show, &QPushButton::clicked, this, &MeasureDialog::showOnRoofline);
    connect(m_close, &QPushButton::clicked, this, &MeasureDialog::reject);
    setMinimumWidth(560);
}

MeasureDialog::~MeasureDialog()
{
    m_cancelRequested = true;
    join();
}

void MeasureDialog::join()
{
    if (m_thread.joinable())
        m_thread.join();
}

void MeasureDialog::setOptions(const core::MeasureOptions &options)
{
    m_options = options;
    if (!(m_options.budgetSeconds > 0) || m_options.budgetSeconds > kMaxBudgetS)
        m_options.budgetSeconds = std::clamp(m_options.budgetSeconds, 0.1, kMaxBudgetS);
    updateIntro();
}

void MeasureDialog::updateIntro()
{
    m_intro->setText(
        tr("MemWall measures this computer's own roofline: its memory bandwidth, and the speed of "
           "matrix–vector products (about 0.5 FLOP per byte, like decoding one token) against "
           "matrix–matrix products (many FLOPs per byte, like prefill). It takes about %1 and uses "
           "%2.")
            .arg(formatSeconds(m_options.budgetSeconds),
                 m_options.threads > 0 ? tr("%n thread(s)", nullptr, m_options.threads) : tr("every core")));
}

void MeasureDialog::start()
{
    if (isRunning())
        return;
    m_cancelRequested = false;
    m_result.reset();
    m_progress->setValue(0);
    m_summary->hide();
    m_start->setEnabled(false);
    m_show->setEnabled(false);
    m_cancel->setEnabled(true);
    m_stage->setText(tr("Allocating and touching the buffers…"));
    const core::MeasureOptions options = m_options;
    m_thread = std::thread([this, options] {
        const core::MeasureResult r = core::measureMachine(options, [this](double p, std::string_view stage) {
            const QString s = qs(stage);
            QMetaObject::invokeMethod(
                this, [this, p, s] { onProgress(p, s); }, Qt::QueuedConnection);
            return !m_cancelRequested.load();
        });
        QMetaObject::invokeMethod(
            this, [this, r] { onFinished(r); }, Qt::QueuedConnection);
    });
}

void MeasureDialog::cancel()
{
    if (!isRunning())
        return;
    m_cancelRequested = true;
    m_cancel->setEnabled(false);
    m_stage->setText(tr("Stopping after the current repetition…"));
}

void MeasureDialog::onProgress(double progress01, const QString &stage)
{
    if (!isRunning())
        return;
    m_progress->setValue(static_cast<int>(std::clamp(progress01, 0.0, 1.0) * 1000));
    if (!m_cancelRequested)
        m_stage->setText(stageName(stage));
}

void MeasureDialog::onFinished(const core::MeasureResult &r)
{
    join();
    m_result = r;
    m_cancel->setEnabled(false);
    m_start->setEnabled(true);
    m_start->setText(tr("Measure &again"));
    const bool usable = r.memoryBandwidthBytesPerS > 0 && r.peakFlops > 0;
    m_show->setEnabled(usable);
    m_progress->setValue(r.cancelled ? m_progress->value() : 1000);
    m_stage->setText(r.cancelled ? (usable ? tr("Cancelled — the roofs measured so far are shown below.")
                                           : tr("Cancelled before both roofs were measured."))
                                 : tr("Done in %1 with %2 threads.").arg(formatSeconds(r.elapsedS)).arg(r.threads));
    m_summary->setText(summaryText());
    m_summary->setVisible(true);
    emit measured(r.cancelled);
}

QString MeasureDialog::summaryText() const
{
    if (!m_result)
        return {};
    const core::MeasureResult &r = *m_result;
    QString html = "<table cellspacing='0' cellpadding='3'>";
    html += tr("<tr><td>Memory bandwidth (triad)</td><td align='right'><b>%1</b></td></tr>")
                .arg(r.memoryBandwidthBytesPerS > 0 ? formatSi(r.memoryBandwidthBytesPerS, "B/s") : tr("not measured"));
    html += tr("<tr><td>Compute roof (FP32, best matrix–matrix)</td><td align='right'><b>%1</b></td></tr>")
                .arg(r.peakFlops > 0 ? formatSi(r.peakFlops, "FLOP/s") : tr("not measured"));
    if (r.memoryBandwidthBytesPerS > 0 && r.peakFlops > 0)
        html += tr("<tr><td>Ridge point</td><td align='right'><b>%1 FLOP/byte</b></td></tr>")
                    .arg(formatRatio(r.peakFlops / r.memoryBandwidthBytesPerS));
    html += "</table>";
    if (!r.points.empty()) {
        html += tr("<p>Kernels (each a point on this computer's roofline):</p>");
        html += "<table cellspacing='0' cellpadding='3'><tr><th align='left'>" + tr("kernel") +
                "</th><th align='right'>" + tr("FLOP/byte") + "</th><th align='right'>" + tr("attained") + "</th></tr>";
        for (const core::MeasuredKernel &k : r.points)
            html += QString("<tr><td>%1</td><td align='right'>&nbsp;&nbsp;%2</td><td "
                            "align='right'>&nbsp;&nbsp;&nbsp;%3</td></tr>")
                        .arg(QString::fromStdString(k.name).toHtmlEscaped(), formatRatio(k.arithmeticIntensity()),
                             formatSi(k.flopsPerS(), "FLOP/s"));
        html += "</table>";
    }
    return html;
}

void MeasureDialog::showOnRoofline()
{
    if (!m_result || isRunning())
        return;
    if (m_points)
        m_points->setResult(*m_result);
    if (m_doc)
        m_doc->setHardware(core::measuredDevice(*m_result), true);
    accept();
}

void MeasureDialog::reject()
{
    if (isRunning()) {
        cancel();
        join();
    }
    QDialog::reject();
}

} // namespace memwall::ui
