#include "ui/charts/timelinechart.h"

#include "ui/charts/labelplacer.h"
#include "ui/charts/plotlabels.h"

#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QAreaSeries>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

using namespace memwall::core;

namespace {

/// Curves a scenario can ask for, plus B's plain request: the line series made up front.
constexpr int kMaxCurves = 6;

/// Palette slot of each curve, so that a curve keeps its colour whichever others are shown.
int colorOf(const std::string &id)
{
    static const std::pair<const char *, int> kSlots[] = {
        {"plain", 0}, {"speculative", 2}, {"chunked_prefill", 3}, {"disaggregated", 5}, {"offload", 6}, {"b_plain", 0}};
    for (const auto &[name, slot] : kSlots)
        if (id == name)
            return slot;
    return 1;
}

} // namespace

TimelineChart::TimelineChart(ScenarioDocument *doc, QObject *parent) : ChartBase(doc, parent)
{
    m_x = new QValueAxis;
    m_tokens = new QValueAxis;
    m_tokens->setTitleText(tr("Tokens generated per sequence"));
    m_stepAxis = new QValueAxis;
    m_stepAxis->setTitleText(tr("Time per token, ms"));
    m_stepAxis->setGridLineVisible(false);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_tokens, Qt::AlignLeft);
    m_chart->addAxis(m_stepAxis, Qt::AlignRight);

    const auto band = [this](const QString &name) {
        auto *area = new QAreaSeries(new QLineSeries(this), new QLineSeries(this));
        area->setName(name);
        m_chart->addSeries(area);
        area->attachAxis(m_x);
        area->attachAxis(m_tokens);
        return area;
    };
    m_prefill = band(tr("Prefill"));
    m_transfer = band(tr("KV cache transfer"));
    for (int i = 0; i < kMaxCurves; ++i) {
        auto *line = new QLineSeries;
        m_chart->addSeries(line);
        line->attachAxis(m_x);
        line->attachAxis(m_tokens);
        connect(line, &QXYSeries::hovered, this, [this, i](const QPointF &p, bool st) { showCallout(i, p, st); });
        m_lines.append(line);
    }
    m_steps = new QLineSeries;
    m_steps->setName(tr("Step time (right axis)"));
    m_chart->addSeries(m_steps);
    m_steps->attachAxis(m_x);
    m_steps->attachAxis(m_stepAxis);
    m_firstTokens = new QScatterSeries;
    m_firstTokens->setName(tr("First token"));
    m_firstTokens->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_chart->addSeries(m_firstTokens);
    m_firstTokens->attachAxis(m_x);
    m_firstTokens->attachAxis(m_tokens);

    m_cost = addLabel();
    m_messageLabel = addLabel();
    m_callout = new Callout(m_chart);
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { layoutOverlay(); });
    enableLegendToggle();
    setTheme(theme());
    refresh();
}

TimelineChart::~TimelineChart() = default;

QString TimelineChart::title() const
{
    const ScenarioDocument *doc = document();
    const Scenario &s = doc->scenario();
    const int64_t devices = int64_t{s.tp} * s.pp * s.dp * s.ep;
    // Images (a model with a vision tower) are part of the prompt: their tokens are prefilled after its text.
    const QString images = s.images == 0   ? QString()
                           : s.images == 1 ? tr(" and 1 image")
                                           : tr(" and %1 images").arg(formatGrouped(s.images));
    return tr("Request timeline: %1 on %2%3, %4-token prompt%7, %5 tokens out, batch %6")
        .arg(qs(doc->model().name), devices > 1 ? QStringLiteral("%1 × ").arg(devices) : QString(),
             qs(doc->hardware().name), formatGrouped(s.seq), formatGrouped(s.output), formatGrouped(s.batch), images);
}

QString TimelineChart::shortCurveName(const QString &full)
{
    // "Offload, 100 % of weights: TTFT …, TPOT … (memory still overflows)" -> "Offload, 100 % of weights (memory still
    // overflows)": the figures go, a warning in parentheses stays.
    QString name = full.section(QLatin1Char(':'), 0, 0);
    if (full.endsWith(QLatin1Char(')')) && !name.endsWith(QLatin1Char(')')))
        name += QLatin1Char(' ') + full.mid(full.lastIndexOf(QLatin1Char('(')));
    return name;
}

QString TimelineChart::curveName(const TimelineCurve &c) const
{
    const Scenario &s = document()->scenario();
    const ServingReport &r = *m_report;
    if (c.id == "plain")
        return tr("Plain: TTFT %1, TPOT %2").arg(formatSeconds(r.request.ttftS), formatSeconds(r.request.tpotS));
    if (c.id == "speculative") {
        const SpeculativeReport &sp = *r.speculative;
        return tr("Speculative, K %1 at A %2: %3× %4")
            .arg(sp.k)
            .arg(formatNumber(sp.acceptance))
            .arg(formatRatio(sp.speedup >= 1 ? sp.speedup : 1 / sp.speedup))
            .arg(sp.speedup >= 1 ? tr("faster") : tr("slower"));
    }
    if (c.id == "chunked_prefill")
        return tr("Chunked prefill, %1 tokens: TTFT %2, decode ×%3")
            .arg(formatGrouped(r.chunkedPrefill->chunk), formatSeconds(r.chunkedPrefill->ttftS),
                 formatRatio(r.chunkedPrefill->slowdown));
    if (c.id == "disaggregated")
        return tr("Disaggregated %1:%2: KV transfer %4, TTFT %3")
            .arg(s.prefillDevices)
            .arg(s.decodeDevices)
            .arg(formatSeconds(r.disaggregation->ttftS), formatSeconds(r.disaggregation->kvTransferS));
    if (c.id == "offload") {
        QStringList parts;
        if (r.offload->offloadedBytes > 0)
            parts << tr("%1 of KV").arg(formatPercent(r.offload->fraction));
        if (r.offload->offloadedWeightBytes > 0)
            parts << tr("%1 of weights").arg(formatPercent(r.offload->weightFraction));
        QString name = tr("Offload, %1: step ×%2")
                           .arg(parts.isEmpty() ? tr("nothing") : parts.join(tr(", ")),
                                formatRatio(r.offload->stepS / r.offload->stepInMemoryS));
        if (!r.offload->fitsMainMemory)
            return tr("%1 (memory still overflows)").arg(name);
        if (!r.offload->fitsTier)
            return tr("%1 (the tier overflows)").arg(name);
        return name;
    }
    if (c.id == "b_plain")
        return tr("B (%1): plain decode").arg(document()->compareSummary());
    return qs(c.id);
}

QString TimelineChart::costText() const
{
    if (!m_report)
        return {};
    QStringList parts;
    if (m_report->energy)
        parts << tr("%1 J/token at %2 of TDP")
                     .arg(formatNumber(m_report->energy->joulesPerToken), formatPercent(m_report->energy->utilization));
    if (m_report->cost)
        parts << tr("$%1 per million tokens at $%2/device-hour")
                     .arg(formatNumber(m_report->cost->usdPerMillionTokens),
                          formatNumber(m_report->cost->usdPerDeviceHour));
    // Offloaded, energy and cost are those of the offloaded request (core::serve()).
    if (m_report->offload && !parts.isEmpty())
        return tr("Offloaded: %1").arg(parts.join(QStringLiteral(" · ")));
    return parts.join(QStringLiteral(" · "));
}

void TimelineChart::refresh()
{
    const ScenarioDocument *doc = document();
    m_report.reset();
    m_curves.clear();
    m_message.clear();
    try {
        const auto &served = doc->serving(); // computed once per change, shared with the headline
        if (!served.report)
            throw AnalysisError(served.error.toStdString());
        m_report = served.report;
        m_curves = timelineCurves(*m_report);
    } catch (const std::exception &e) {
        m_report.reset();
        m_message = tr("No request timeline: %1").arg(qs(e.what()));
    }
    // B's plain request, dashed, when compare mode puts the model on another device or formats.
    if (m_report && doc->isComparing()) {
        try {
            const std::vector<TimelineCurve> b =
                timelineCurves(serve(doc->compareDevice(), doc->model(), doc->compareScenario()));
            m_curves.push_back(b.front());
            m_curves.back().id = "b_plain";
        } catch (const std::exception &) { // B's own error is shown by the compare panel
        }
    }

    double end = 0;
    for (const TimelineCurve &c : m_curves)
        end = std::max(end, c.timeS.back());
    m_unitS = end < 10 ? 1e-3 : 1.0;
    const double k = 1 / m_unitS;
    m_x->setTitleText(m_unitS < 1 ? tr("Time since the request arrived, ms") : tr("Time since the request arrived, s"));

    const double top = m_report ? std::max<double>(2, static_cast<double>(doc->scenario().output)) * 1.06 : 1;
    QList<QPointF> firsts;
    for (int i = 0; i < m_lines.size(); ++i) {
        QLineSeries *line = m_lines[i];
        if (i >= static_cast<int>(m_curves.size())) {
            line->clear();
            // Qt Charts 6.4 sizes the legend by hidden entries' names too: an unused line keeps none, or a curve
            // shown before (B's, after compare off) would widen the legend and narrow the plot.
            line->setName(QString());
            showSeries(line, false);
            continue;
        }
        const TimelineCurve &c = m_curves[i];
        QList<QPointF> pts;
        pts.reserve(static_cast<qsizetype>(c.tokens.size()));
        for (size_t j = 0; j < c.tokens.size(); ++j)
            pts.append({c.timeS[j] * k, c.tokens[j]});
        line->replace(pts);
        line->setName(m_shortLegend ? shortCurveName(curveName(c)) : curveName(c));
        showSeries(line, true);
        if (!isUserHidden(line))
            firsts.append({c.firstTokenS * k, 1});
        QPen pen(theme().color(colorOf(c.id)), theme().lineWidth * (c.id == "plain" ? 1.3 : 1.0));
        if (c.id == "b_plain") {
            pen.setColor(pen.color().darker(140));
            pen.setStyle(Qt::DashLine);
        }
        line->setPen(pen);
    }
    m_firstTokens->replace(firsts);
    showSeries(m_firstTokens, !firsts.isEmpty());

    const auto setBand = [&](QAreaSeries *area, double from, double to) {
        const bool on = to > from;
        area->upperSeries()->replace(on ? QList<QPointF>{{from * k, top}, {to * k, top}} : QList<QPointF>{});
        area->lowerSeries()->replace(on ? QList<QPointF>{{from * k, 0}, {to * k, 0}} : QList<QPointF>{});
        showSeries(area, on);
    };
    setBand(m_prefill, 0, m_report ? m_report->request.ttftS : 0);
    setBand(m_transfer, m_report && m_report->disaggregation ? m_report->disaggregation->prefillS : 0,
            m_report && m_report->disaggregation ? m_report->disaggregation->ttftS : 0);

    QList<QPointF> steps;
    double stepMax = 0;
    if (m_report && !m_curves.empty()) {
        const RequestTimeline &q = m_report->request;
        const TimelineCurve &plain = m_curves.front();
        // Step j of the report generates token stepToken[j]: it ends where the plain curve reaches that token.
        size_t p = 0;
        for (size_t j = 0; j < q.stepToken.size(); ++j) {
            while (p < plain.tokens.size() && plain.tokens[p] < static_cast<double>(q.stepToken[j]))
                ++p;
            if (p == plain.tokens.size())
                break;
            // Steps are milliseconds even when the request takes minutes.
            steps.append({plain.timeS[p] * k, q.stepS[j] * 1e3});
            stepMax = std::max(stepMax, q.stepS[j] * 1e3);
        }
    }
    m_steps->replace(steps);
    showSeries(m_steps, !steps.isEmpty());

    chartfit::setZeroBasedRange(m_x, end * k * 1.04);
    chartfit::setZeroBasedRange(m_tokens, top);
    chartfit::setZeroBasedRange(m_stepAxis, stepMax * 1.25);
    m_cost->setText(costText());
    m_messageLabel->setText(m_message);
    layoutOverlay();
}

void TimelineChart::layoutOverlay()
{
    const QString model = qs(document()->model().name);
    chartfit::applyTitle(m_chart,
                         {title(), tr("Request timeline: %1 on %2").arg(model, qs(document()->hardware().name)),
                          tr("Request timeline: %1").arg(model), tr("Request timeline")},
                         theme().titleFont());
    // The curves' names with their figures where they fit in one row under the plot, else the bare names ("Plain"):
    // a legend at the side cuts long names ("Plain: TTFT 309 ms, TPOT …"); the figures are in the tooltips.
    QStringList full, entries; // the curves' full names; every entry of the legend with them
    for (const core::TimelineCurve &c : m_curves)
        full << curveName(c);
    for (QLegendMarker *marker : m_chart->legend()->markers())
        if (marker->isVisible()) {
            const auto i = m_lines.indexOf(qobject_cast<QLineSeries *>(marker->series()));
            entries << (i >= 0 && i < full.size() ? full[i] : marker->label());
        }
    const qreal chartWidth = m_chart->size().width() - m_chart->margins().left() - m_chart->margins().right();
    if (const bool shortLegend =
            chartWidth > 0 && !chartfit::legendFitsInRow(entries, theme().labelFont(), chartWidth * 0.95);
        shortLegend != m_shortLegend) {
        m_shortLegend = shortLegend;
        for (std::size_t i = 0; i < m_curves.size() && i < static_cast<std::size_t>(m_lines.size()); ++i)
            m_lines[static_cast<qsizetype>(i)]->setName(m_shortLegend ? shortCurveName(full[static_cast<qsizetype>(i)])
                                                                      : full[static_cast<qsizetype>(i)]);
    }
    chartfit::placeLegend(m_chart);
    const QRectF area = m_chart->plotArea();
    const QFont font = theme().labelFont();
    // Energy and cost: bottom right inside the plot, where the curves (rising from the bottom left after the
    // prefill block) leave room until their last tokens.
    // Whole (on more lines in a narrow plot, never cut) and where no curve runs through it: bottom right first, then
    // the other corners; hidden when every corner is crossed (the same figures are in the tooltips).
    LabelPlacer placer(area);
    plotlabels::addCurves(placer, m_chart);
    const qreal width = std::max<qreal>(40, area.width() * 0.55);
    m_cost->setFont(font);
    m_cost->setText(plotlabels::wrapLines(costText(), font, width));
    const auto costAt =
        plotlabels::placeInCorner(placer, m_cost->boundingRect().size(), area,
                                  {Qt::BottomRightCorner, Qt::TopLeftCorner, Qt::TopRightCorner, Qt::BottomLeftCorner});
    if (costAt)
        m_cost->setPos(costAt->topLeft());
    m_cost->setVisible(costAt && !m_cost->text().isEmpty());
    m_messageLabel->setFont(font);
    m_messageLabel->setText(plotlabels::wrapLines(m_message, font, std::max<qreal>(40, area.width() - 16)));
    m_messageLabel->setPos(area.left() + 8, area.center().y() - m_messageLabel->boundingRect().height() / 2);
    m_messageLabel->setVisible(!m_message.isEmpty());
    m_callout->updateGeometry();
}

void TimelineChart::showCallout(int curve, const QPointF &point, bool state)
{
    if (!state || curve >= static_cast<int>(m_curves.size())) {
        m_callout->hide();
        return;
    }
    const TimelineCurve &c = m_curves[curve];
    // The nearest drawn point of the curve.
    size_t best = 0;
    double bestD = INFINITY;
    for (size_t j = 0; j < c.tokens.size(); ++j) {
        const double d = std::abs(c.tokens[j] - point.y());
        if (d < bestD) {
            bestD = d;
            best = j;
        }
    }
    const double t = c.timeS[best];
    QString text = curveName(c) + QLatin1Char('\n') +
                   tr("token %1 at %2").arg(formatGrouped(static_cast<int64_t>(c.tokens[best])), formatSeconds(t));
    if (best > 0)
        text += QLatin1Char('\n') + tr("%1 tokens/s per user so far")
                                        .arg(formatNumber((c.tokens[best] - 1) / std::max(1e-30, t - c.firstTokenS)));
    if (c.id == "offload")
        text += QLatin1Char('\n') + tr("step limited by %1").arg(qs(m_report->offload->wall));
    m_callout->setText(text);
    m_callout->setAnchor(QPointF(t / m_unitS, c.tokens[best]), m_lines[curve]);
    m_callout->show();
}

void TimelineChart::restyle()
{
    const Theme &th = theme();
    QColor prefill = th.color(1);
    prefill.setAlpha(60);
    m_prefill->setBrush(prefill);
    m_prefill->setPen(QPen(th.color(1), 1));
    QColor transfer = th.color(4);
    transfer.setAlpha(80);
    m_transfer->setBrush(transfer);
    m_transfer->setPen(QPen(th.color(4), 1));
    QColor steps = th.foreground;
    steps.setAlpha(150);
    m_steps->setPen(QPen(steps, std::max<qreal>(1.0, th.lineWidth * 0.7), Qt::DotLine));
    m_firstTokens->setMarkerSize(10 * th.markerScale);
    m_firstTokens->setColor(th.plotArea);
    m_firstTokens->setPen(markerPen(th.foreground, 2));
    m_cost->setBrush(th.foreground);
    m_messageLabel->setBrush(th.warning);
    m_callout->setTheme(th);
    refresh();
}

nlohmann::json TimelineChart::data() const
{
    nlohmann::json j;
    j["chart"] = id().toStdString();
    if (!m_report) {
        j["error"] = m_message.toStdString();
        return j;
    }
    const RequestTimeline &q = m_report->request;
    j["request"] = {
        {"ttft_s", q.ttftS}, {"tpot_s", q.tpotS}, {"e2e_s", q.e2eS}, {"tokens_per_s_per_user", q.tokensPerSPerUser}};
    auto &curves = j["curves"] = nlohmann::json::array();
    for (const TimelineCurve &c : m_curves) {
        nlohmann::json pts = nlohmann::json::array();
        for (size_t i = 0; i < c.tokens.size(); ++i)
            pts.push_back({c.timeS[i], c.tokens[i]});
        curves.push_back({{"id", c.id},
                          {"name", curveName(c).toStdString()},
                          {"prefill_s", c.prefillS},
                          {"first_token_s", c.firstTokenS},
                          {"points", std::move(pts)}});
    }
    auto &steps = j["decode_steps"] = nlohmann::json::array();
    for (size_t i = 0; i < q.stepToken.size(); ++i)
        steps.push_back({{"token", q.stepToken[i]}, {"step_s", q.stepS[i]}});
    j["energy_joules_per_token"] =
        m_report->energy ? nlohmann::json(m_report->energy->joulesPerToken) : nlohmann::json(nullptr);
    j["usd_per_million_tokens"] =
        m_report->cost ? nlohmann::json(m_report->cost->usdPerMillionTokens) : nlohmann::json(nullptr);
    return j;
}

QString TimelineChart::csv() const
{
    const auto num = [](double v) { return csvNumber(v, 12); };
    QString out =
        csvRow({QStringLiteral("curve"), QStringLiteral("tokens"), QStringLiteral("time_s"), QStringLiteral("step_s")});
    for (const TimelineCurve &c : m_curves)
        for (size_t i = 0; i < c.tokens.size(); ++i)
            out += csvRow({qs(c.id), num(c.tokens[i]), num(c.timeS[i]), QString()});
    if (m_report) {
        const RequestTimeline &q = m_report->request;
        for (size_t i = 0; i < q.stepToken.size(); ++i)
            out += csvRow({QStringLiteral("decode_step"), csvNumber(q.stepToken[i]), QString(), num(q.stepS[i])});
    }
    return out;
}

} // namespace memwall::ui
