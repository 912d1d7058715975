#include "ui/widgets/headlinebar.h"

#include "core/analysis/serving.h"

#include "core/analysis/explain.h"
#include "core/util/format.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"
#include "ui/widgets/formulapopup.h"
#include "ui/widgets/steadylabel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QEvent>
#include <QGridLayout>
#include <QMenu>
#include <QResizeEvent>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

namespace memwall::ui {

using namespace memwall::core;

HeadlineBar::HeadlineBar(ScenarioDocument *doc, QWidget *parent)
    : QFrame(parent), m_doc(doc), m_explanation(new SteadyLabel(this))
{
    setFrameShape(QFrame::StyledPanel);
    auto *figures = new QGridLayout;
    m_figures = figures;
    figures->setHorizontalSpacing(28);
    figures->setVerticalSpacing(0);
    m_time = addFigure(figures, 0, "headlineTime", timeTip());
    m_throughput =
        addFigure(figures, 1, "headlineThroughput",
                  tr("Tokens per second over all replicas: generated for decode/generate, processed otherwise."));
    m_memory = addFigure(
        figures, 2, "headlineMemory",
        tr("Memory one device holds (weights, KV cache, activations, training state) against its main memory."));
    m_bound = addFigure(figures, 3, "headlineBound",
                        tr("What limits the step: compute, memory bandwidth or communication between devices."));
    figures->setColumnStretch(4, 1);

    m_explanation->setObjectName("headlineExplanation");
    m_explanation->setWordWrap(true);
    m_explanation->setMinimumLines(2);
    m_explanation->setToolTip(tr("Why the run is as fast as it is, in one sentence computed from the analysis. "
                                 "Right-click to copy the headline."));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 6, 12, 6);
    layout->setSpacing(4);
    layout->addLayout(figures);
    layout->addWidget(m_explanation);

    auto *copy = new QAction(tr("&Copy Headline"), this);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    copy->setToolTip(tr("Copy the figures and the explanation as text"));
    connect(copy, &QAction::triggered, this, &HeadlineBar::copyToClipboard);
    addAction(copy);
    auto *formula = new QAction(tr("Show the &Formula"), this);
    formula->setShortcut(QKeySequence::HelpContents);
    formula->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    formula->setToolTip(tr("How the focused figure was computed, with this scenario's numbers"));
    formula->setStatusTip(formula->toolTip());
    connect(formula, &QAction::triggered, this, [this] {
        const int f = focusedFigure();
        showFormula(f >= 0 ? f : TimeFigure);
    });
    addAction(formula);
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        QMenu *menu = createContextMenu(pos);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(mapToGlobal(pos));
    });

    applyFonts();
    connect(doc, &ScenarioDocument::analysisChanged, this, &HeadlineBar::refresh);
    refresh();
}

QString HeadlineBar::timeTip()
{
    return tr("Time for the phase on one device's critical path, communication included.");
}

HeadlineBar::Figure HeadlineBar::addFigure(QGridLayout *grid, int column, const char *name, const QString &tip)
{
    Figure f;
    f.value = new SteadyLabel(this);
    f.value->setObjectName(QString::fromLatin1(name));
    f.caption = new SteadyLabel(this);
    f.caption->setObjectName(QString::fromLatin1(name) + QStringLiteral("Caption"));
    const QString formulaTip = tip + QLatin1Char(' ') + tr("F1 or right-click: show the formula.");
    for (SteadyLabel *l : {f.value, f.caption}) {
        l->setToolTip(formulaTip);
        l->setStatusTip(tr("F1 or right-click shows how this figure was computed."));
        l->installEventFilter(this);
    }
    // Focusable (click or Tab), so that F1 knows which figure is meant; the focused figure's caption is underlined.
    f.value->setFocusPolicy(Qt::StrongFocus);
    f.caption->setFocusProxy(f.value);
    grid->addWidget(f.value, 0, column);
    grid->addWidget(f.caption, 1, column);
    return f;
}

QString HeadlineBar::Figure::text() const { return value->text() + QLatin1Char(' ') + caption->text(); }

void HeadlineBar::Figure::set(const QString &v, const QString &c) const
{
    value->setText(v);
    caption->setText(c);
}

const HeadlineBar::Figure &HeadlineBar::figure(int id) const
{
    switch (id) {
    case ThroughputFigure: return m_throughput;
    case MemoryFigure: return m_memory;
    case BoundFigure: return m_bound;
    default: return m_time;
    }
}

QStringList HeadlineBar::formulaFields(FigureId figure, core::Phase phase)
{
    switch (figure) {
    case TimeFigure:
        if (phase == core::Phase::Generate) // the figure reads "TTFT + TPOT/token"
            return {QStringLiteral("phases.ttft_s"), QStringLiteral("phases.tpot_s"), QStringLiteral("totals.time_s")};
        return {QStringLiteral("totals.time_s")};
    case ThroughputFigure: return {QStringLiteral("totals.tokens_per_s")};
    case MemoryFigure:
        return {QStringLiteral("memory.total_bytes_per_device"), QStringLiteral("kv_cache.total_bytes"),
                QStringLiteral("model.weight_bytes")};
    case BoundFigure:
        return {QStringLiteral("totals.bound"), QStringLiteral("totals.arithmetic_intensity"),
                QStringLiteral("hardware.ridge_flops_per_byte")};
    case FigureCount: break;
    }
    return {};
}

int HeadlineBar::focusedFigure() const
{
    for (int i = 0; i < FigureCount; ++i)
        if (figure(i).value->hasFocus())
            return i;
    return -1;
}

int HeadlineBar::figureAt(const QPoint &pos) const
{
    const QWidget *w = childAt(pos);
    for (int i = 0; i < FigureCount && w; ++i)
        if (w == figure(i).value || w == figure(i).caption)
            return i;
    return -1;
}

QMenu *HeadlineBar::createContextMenu(const QPoint &pos)
{
    auto *menu = new QMenu(this);
    const int at = figureAt(pos);
    const int which = at >= 0 ? at : TimeFigure;
    QAction *formula = menu->addAction(tr("Show the &Formula"), this, [this, which] { showFormula(which); });
    formula->setObjectName("showFormula");
    formula->setShortcut(QKeySequence::HelpContents);
    formula->setStatusTip(tr("How this figure was computed, with this scenario's numbers"));
    menu->addSeparator();
    menu->addActions(actions().mid(0, 1)); // Copy Headline
    return menu;
}

void HeadlineBar::showFormula(int which)
{
    if (which < 0 || which >= FigureCount)
        return;
    if (!m_formula)
        m_formula = new FormulaPopup(m_doc, this);
    m_formula->showFields(formulaFields(static_cast<FigureId>(which), m_doc->scenario().phase));
}

bool HeadlineBar::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::FocusIn || event->type() == QEvent::FocusOut)
        applyFonts();
    return QFrame::eventFilter(watched, event);
}

QString HeadlineBar::timeText() const { return m_time.text(); }
QString HeadlineBar::timeToolTip() const { return m_time.value->toolTip(); }
QString HeadlineBar::throughputText() const { return m_throughput.text(); }
QString HeadlineBar::memoryText() const { return m_memory.text(); }
QString HeadlineBar::boundText() const { return m_bound.text(); }
QString HeadlineBar::explanationText() const { return m_explanation->text(); }

QString HeadlineBar::text() const
{
    return QStringList{timeText(), throughputText(), memoryText(), boundText(), explanationText()}.join(
        QLatin1Char('\n'));
}

void HeadlineBar::copyToClipboard() const { QApplication::clipboard()->setText(text()); }

void HeadlineBar::setWarningColor(const QColor &c)
{
    m_warning = c;
    const bool warned = m_memoryWarned;
    m_memoryWarned = !warned; // force the palette to be re-applied
    setWarned(warned);
    applyFonts();
    refresh();
}

void HeadlineBar::changeEvent(QEvent *event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        applyFonts();
}

void HeadlineBar::applyFonts()
{
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * m_figureScale);
    big.setWeight(QFont::DemiBold);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    for (const Figure &f : {m_time, m_throughput, m_memory, m_bound}) {
        if (!f.value)
            continue; // still being built
        f.value->setFont(big);
        QFont caption = small;
        caption.setUnderline(f.value->hasFocus());
        f.caption->setFont(caption);
    }
    // The explanation turns bold and warning-coloured while it reports an analysis error.
    QFont explanation = font();
    QPalette p = palette();
    if (m_errorShown) {
        explanation.setWeight(QFont::DemiBold);
        p.setColor(QPalette::WindowText, m_warning);
    }
    m_explanation->setFont(explanation);
    m_explanation->setPalette(p);
}

void HeadlineBar::resizeEvent(QResizeEvent *event)
{
    QFrame::resizeEvent(event);
    fitFigures();
}

int HeadlineBar::figuresWidth(bool measure) const
{
    int w = 0;
    for (const Figure &f : {m_time, m_throughput, m_memory, m_bound}) {
        const auto width = [measure](const SteadyLabel *l) {
            return measure ? l->sizeHint().width() : l->measuredWidth();
        };
        w += std::max(width(f.value), width(f.caption));
    }
    return w + (FigureCount - 1) * m_figures->horizontalSpacing();
}

int HeadlineBar::figureRoom() const
{
    const QMargins m = layout()->contentsMargins();
    return contentsRect().width() - m.left() - m.right();
}

/// The four figures side by side in the bar: at 1.45 times the window's font when they fit, else a step smaller and
/// closer together, down to the font itself (a 1024-pixel window cut "223 GB of 80 GB" to "223 GB of 80 G").
void HeadlineBar::fitFigures()
{
    if (!m_time.value)
        return; // still being built
    for (const double scale : {1.45, 1.3, 1.15, 1.0}) {
        if (scale != m_figureScale) {
            m_figureScale = scale;
            m_figures->setHorizontalSpacing(scale == 1.45 ? 28 : 16);
            applyFonts();
        }
        if (figuresWidth(true) <= figureRoom())
            return;
    }
}

void HeadlineBar::setWarned(bool warned)
{
    if (warned == m_memoryWarned)
        return;
    m_memoryWarned = warned;
    for (SteadyLabel *l : {m_memory.value, m_memory.caption}) {
        QPalette p = palette();
        if (warned)
            p.setColor(QPalette::WindowText, m_warning);
        l->setPalette(p);
    }
}

void HeadlineBar::refresh()
{
    const Analysis &a = m_doc->analysis();
    const Scenario &s = m_doc->scenario();
    // An achievable time is a prediction: it shows as the band measured runs fell in (achievableBand); the ideal
    // roofline is a bound and shows as one figure, as is an achievable time on a device without microbenchmarks.
    const std::optional<TimeBand> band = achievableBand(m_doc->hardware(), s);
    const auto seconds = [&band](double t) {
        return band ? formatSecondsRange(t * band->low, t * band->high) : formatSeconds(t);
    };
    const QString time = seconds(a.totals.timeS);
    switch (s.phase) {
    case Phase::Decode: m_time.set(time, tr("per token (per decode step)")); break;
    case Phase::Prefill: m_time.set(time, tr("time to first token (prefill)")); break;
    case Phase::Generate: {
        // With a serving option (chunked prefill, speculative decoding, disaggregation, offload) the request as it
        // runs that way: the figures `analyze --json` gives as its request.
        ServedRequest q{a.phases.ttftS, a.phases.tpotS, a.phases.e2eS, 0, 1};
        // Else the plain request; the timeline chart says why the serving option cannot run.
        if (!servesPlainly(s) && m_doc->serving().report)
            q = m_doc->serving().report->served;
        m_time.set(tr("%1 + %2/token").arg(seconds(q.ttftS), seconds(q.tpotS)),
                   tr("first token, then each token · %1 in all").arg(seconds(q.e2eS)));
        break;
    }
    case Phase::Encode: m_time.set(time, tr("per batch (encode)")); break;
    case Phase::Train: m_time.set(time, tr("per training step")); break;
    }
    QString tip = timeTip();
    if (band)
        tip += QLatin1Char(' ') + tr("Achievable efficiency predicts %1; measured runs of the validation set "
                                     "(memwall validate) took %2 to %3 times their prediction in 80 % of cases, "
                                     "which gives the band shown.")
                                      .arg(formatSeconds(a.totals.timeS), localized(core::formatFixed(band->low, 2)),
                                           localized(core::formatFixed(band->high, 2)));
    else if (s.efficiency == EfficiencyMode::Achievable)
        tip += QLatin1Char(' ') + tr("No published microbenchmarks for %1 are in its preset: its achievable time is "
                                     "the ideal roofline's, with no band.")
                                      .arg(qs(m_doc->hardware().name));
    m_time.value->setToolTip(tip);
    m_time.caption->setToolTip(tip);
    m_throughput.set(formatSiNumber(a.totals.tokensPerS), tr("tokens/s"));
    // The share only of a footprint that fits (at most 100 %).
    const double used = a.memory.fits && a.memory.capacity > 0 ? a.memory.total() / a.memory.capacity : 0.0;
    m_memory.set(tr("%1 of %2").arg(formatBytes(a.memory.total()), formatBytes(a.memory.capacity)),
                 a.memory.fits ? tr("memory per device (%1)").arg(formatPercent(used))
                               : tr("does not fit in one device"));
    setWarned(!a.memory.fits);
    m_bound.set(qs(toString(a.totals.bound)) + tr("-bound"),
                tr("%1 FLOP/byte, ridge %2").arg(formatRatio(a.totals.intensity), formatRatio(a.ridge)));

    // Offload: the step streams part of the KV cache or of the weights over the host or storage link, which may now
    // be its wall.
    if (const auto &off = m_doc->offloadReport(); !off.error.isEmpty()) {
        m_bound.set(tr("no offload"), off.error);
    } else if (off.report) {
        const OffloadReport &o = *off.report;
        QStringList parts, where;
        if (o.offloadedBytes > 0)
            parts << tr("%1 of the KV cache").arg(formatPercent(o.fraction));
        if (o.offloadedWeightBytes > 0)
            parts << tr("%1 of the weights").arg(formatPercent(o.weightFraction));
        for (const OffloadTier &t : o.tiers)
            where << qs(t.level);
        const QString moved = parts.isEmpty() ? tr("nothing") : parts.join(tr(" and "));
        const QString tiers = where.join(tr(" and "));
        if (s.phase == Phase::Decode)
            m_time.set(
                formatSeconds(o.stepS),
                tr("per token, %1 streamed from %2 (%3 in memory)").arg(moved, tiers, formatSeconds(o.stepInMemoryS)));
        m_memory.set(tr("%1 of %2 + %3")
                         .arg(formatBytes(o.mainMemoryBytes), formatBytes(a.memory.capacity),
                              formatBytes(o.offloadedBytes + o.offloadedWeightBytes)),
                     o.fitsMainMemory && o.fitsTier ? tr("memory per device, %1 in %2").arg(moved, tiers)
                                                    : tr("does not fit, even with %1 in %2").arg(moved, tiers));
        setWarned(!(o.fitsMainMemory && o.fitsTier));
        m_bound.set(tr("%1-bound").arg(qs(o.wall.rfind("the ", 0) == 0 ? o.wall.substr(4) : o.wall)),
                    tr("offload: the decode step hits %1").arg(qs(o.wall)));
    }

    if (figuresWidth(false) > figureRoom()) // a longer figure than the bar has room for: a smaller size
        fitFigures();

    const bool error = !m_doc->analysisError().isEmpty();
    m_explanation->setText(error ? tr("Cannot analyse this combination: %1. The figures show the last valid one.")
                                       .arg(m_doc->analysisError())
                                 : qs(explain(m_doc->hardware(), m_doc->model(), s, a)));
    if (error != m_errorShown) {
        m_errorShown = error;
        applyFonts();
    }
}

} // namespace memwall::ui
