#include "ui/charts/searchchart.h"

#include "ui/charts/labelplacer.h"
#include "ui/charts/plotlabels.h"

#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include "core/io/outputs.h"
#include "core/io/presets.h"

#include <QChart>
#include <QFontMetricsF>
#include <QFutureWatcher>
#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainterPath>
#include <QScatterSeries>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>

namespace memwall::ui {

using namespace memwall::core;

namespace {

/// The scenario with everything the search sets itself put back to one value.
constexpr QScatterSeries::MarkerShape kShapes[] = {
    QScatterSeries::MarkerShapeCircle, QScatterSeries::MarkerShapeRectangle,
    QScatterSeries::MarkerShapeRotatedRectangle, QScatterSeries::MarkerShapeTriangle};

/// "fp8", "int4/g128:fp16 weights"
QString precisionText(const Scenario &s) { return qs(core::toString(SearchPrecision{s.weights, s.activations})); }

QString parallelText(const SearchPoint &p)
{
    const Scenario &s = p.scenario;
    return QStringLiteral("tp %1 · pp %2 · ep %3 · dp %4").arg(s.tp).arg(s.pp).arg(s.ep).arg(s.dp);
}

} // namespace

/// What decides a search: equal keys, same candidates.
struct SearchChart::Key
{
    std::string model;       ///< the model's JSON
    std::string addedDevice; ///< the document's device (JSON) when it is not a searched preset as published
    const void *library = nullptr;
    QStringList ids;
    int budget = 0;
    Scenario base; ///< the document's scenario with what the search varies reset
    bool operator==(const Key &) const = default;
};

struct SearchChart::Job
{
    Key key;
    ModelShape model;
    SearchSpace space;
    bool deviceAdded = false; ///< the last of space.devices is the document's own device
};

struct SearchChart::Outcome
{
    std::optional<SearchCandidates> candidates;
    SearchFront fullFront;
    QString error;
};

SearchChart::SearchChart(ScenarioDocument *doc, QObject *parent) : ChartBase(doc, parent)
{
    m_targets.maxTpotS = kDefaultMaxTpotS;
    m_x = chartfit::addLogAxis(m_chart, Qt::AlignBottom, tr("Tokens/s per user (interactivity = 1 / TPOT)"));
    m_y = chartfit::addLogAxis(m_chart, Qt::AlignLeft, tr("Tokens/s per device (throughput)"));
    const auto attach = [this](QXYSeries *s) { chartfit::addSeries(m_chart, s, m_x, m_y); };
    m_frontLine = new QLineSeries;
    m_frontLine->setName(tr("Pareto front"));
    attach(m_frontLine);
    m_userLine = new QLineSeries;
    m_userLine->setName(tr("Min tokens/s per user"));
    attach(m_userLine);
    m_tpotLine = new QLineSeries;
    m_tpotLine->setName(tr("Max TPOT"));
    attach(m_tpotLine);
    m_nearest = new QScatterSeries;
    m_nearest->setName(tr("Nearest (misses the targets)"));
    m_nearest->setObjectName(QStringLiteral("nearest"));
    attach(m_nearest);
    for (QAbstractSeries *s : {static_cast<QAbstractSeries *>(m_frontLine), static_cast<QAbstractSeries *>(m_userLine),
                               static_cast<QAbstractSeries *>(m_tpotLine)})
        setLegendVisible(s, false);
    connect(m_nearest, &QScatterSeries::hovered, this,
            [this](const QPointF &p, bool st) { showCallout(m_nearest, p, st); });
    connect(m_nearest, &QScatterSeries::clicked, this, [this](const QPointF &p) { pointClicked(m_nearest, p); });

    m_userLabel = addLabel();
    m_tpotLabel = addLabel();
    m_messageBox = new QGraphicsRectItem(m_chart);
    m_messageBox->setZValue(20);
    m_messageBox->setAcceptedMouseButtons(Qt::NoButton);
    m_message = addLabel();
    m_message->setZValue(21);
    m_bands = new QGraphicsPathItem(m_chart);
    m_bands->setZValue(4); // above the plot, below the markers
    m_bands->setAcceptedMouseButtons(Qt::NoButton);
    m_callout = new Callout(m_chart);
    m_callout->setZValue(30);
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { layoutOverlay(); });

    setTheme(theme());
    refresh();
}

SearchChart::~SearchChart()
{
    // The search owns copies of its inputs, but the result must not arrive at a chart that is gone.
    if (m_watcher)
        static_cast<QFutureWatcher<Outcome> *>(m_watcher)->waitForFinished();
}

// ---- inputs and the background search ----

std::shared_ptr<const SearchChart::Job> SearchChart::currentJob() const
{
    const ScenarioDocument *doc = document();
    const PresetLibrary &lib = doc->presets();
    const auto wanted = [this](const HardwareSpec &hw) {
        return m_deviceIds.isEmpty() ? hw.category == "gpu" : m_deviceIds.contains(qs(hw.id));
    };
    const HardwareSpec &current = doc->hardware();
    Key key;
    key.model = core::toJson(doc->model()).dump();
    key.library = &lib;
    key.ids = m_deviceIds;
    key.budget = m_budget;
    key.base = searchBase(doc->scenario());
    const HardwareSpec *preset = lib.findHardware(current.id);
    const bool isPreset = preset && wanted(*preset) && core::toJson(*preset) == core::toJson(current);
    if (!isPreset)
        key.addedDevice = core::toJson(current).dump();
    if (m_wanted && m_wanted->key == key)
        return m_wanted;

    auto job = std::make_shared<Job>();
    job->key = key;
    job->model = doc->model();
    job->space.base = key.base;
    job->space.maxDevices = m_budget;
    for (const HardwareSpec &hw : lib.hardware())
        if (wanted(hw))
            job->space.devices.push_back(hw);
    if (!isPreset) {
        job->space.devices.push_back(current);
        job->deviceAdded = true;
    }
    return job;
}

SearchChart::Outcome SearchChart::runSearch(const std::shared_ptr<const Job> &job)
{
    Outcome out;
    try {
        out.candidates = searchCandidates(job->model, job->space);
        out.fullFront = selectFront(*out.candidates, {}, job->model, job->space);
    } catch (const std::exception &e) {
        out.candidates.reset();
        out.error = QString::fromUtf8(e.what());
    }
    return out;
}

bool SearchChart::isSearching() const { return !m_shown || !m_wanted || m_shown->key != m_wanted->key; }

void SearchChart::startSearch()
{
    if (m_running || m_launchQueued || !isSearching())
        return;
    // Launched from the event loop: a chart made for a hidden tab (or changed several times in one go) searches once,
    // when it is shown.
    m_launchQueued = true;
    QTimer::singleShot(0, this, [this] {
        m_launchQueued = false;
        if (m_running || !isSearching() || deferWhileSuspended())
            return;
        m_running = m_wanted;
        const int id = ++m_runId;
        auto *watcher = new QFutureWatcher<Outcome>(this);
        m_watcher = watcher;
        connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id] {
            watcher->deleteLater();
            if (m_watcher == watcher)
                m_watcher = nullptr;
            if (id != m_runId || !m_running)
                return; // taken already by finishBackgroundWork()
            take(m_running, watcher->result());
        });
        watcher->setFuture(QtConcurrent::run([job = m_running] { return runSearch(job); }));
    });
}

void SearchChart::finishBackgroundWork()
{
    if (m_running && m_watcher) {
        auto *watcher = static_cast<QFutureWatcher<Outcome> *>(m_watcher);
        watcher->waitForFinished();
        take(m_running, watcher->result());
    }
    if (isSearching() && m_wanted) {
        ++m_runId; // a launch still queued finds nothing to do
        take(m_wanted, runSearch(m_wanted));
    }
}

void SearchChart::take(std::shared_ptr<const Job> job, Outcome outcome)
{
    m_running.reset();
    if (!m_wanted || job->key != m_wanted->key) {
        startSearch(); // stale: the newest inputs are searched next
        return;
    }
    m_shown = std::move(job);
    m_candidates = std::move(outcome.candidates);
    m_fullFront = std::move(outcome.fullFront);
    m_error = outcome.error;
    // Colours go first to the devices on the front without targets, in its order, so that the devices a user sees
    // differ in colour before they need to differ in shape; they hold still while the targets move.
    const std::size_t n = m_shown->space.devices.size();
    m_colourSlot.assign(n, -1);
    int next = 0;
    for (const SearchPoint &p : m_fullFront.pareto)
        if (m_colourSlot[p.device] < 0)
            m_colourSlot[p.device] = next++;
    for (int &slot : m_colourSlot)
        if (slot < 0)
            slot = next++;
    styleDeviceSeries();
    reselect();
    emit searchFinished();
}

// ---- state ----

void SearchChart::setTargets(const SearchTargets &targets)
{
    if (targets == m_targets)
        return;
    m_targets = targets;
    reselect();
    emit targetsChanged();
}

void SearchChart::setDeviceBudget(int devices)
{
    devices = std::clamp(devices, 1, core::kMaxDeploymentDevices);
    if (devices == m_budget)
        return;
    m_budget = devices;
    emit searchSettingsChanged();
    refresh();
}

void SearchChart::setDeviceIds(const QStringList &ids)
{
    if (ids == m_deviceIds)
        return;
    m_deviceIds = ids;
    emit searchSettingsChanged();
    refresh();
}

const std::vector<HardwareSpec> &SearchChart::searchedDevices() const
{
    static const std::vector<HardwareSpec> none;
    return m_shown ? m_shown->space.devices : none;
}

QString SearchChart::deviceLabel(std::size_t device) const
{
    const auto &devices = searchedDevices();
    if (device >= devices.size())
        return {};
    // Legends stay short: "GB200 NVL72 (per GPU, NVLink 5)" is "GB200 NVL72" (the callout names it in full).
    QString name = deviceNameWithoutVendor(devices[device]);
    if (const qsizetype paren = name.indexOf(QStringLiteral(" (")); paren > 0)
        name.truncate(paren);
    return m_shown->deviceAdded && device + 1 == devices.size() ? tr("%1 (current)").arg(name) : name;
}

void SearchChart::refresh()
{
    std::shared_ptr<const Job> job = currentJob();
    const bool same = job == m_wanted;
    m_wanted = std::move(job);
    startSearch(); // also a search that waited for a hidden tab to be shown
    if (!same)
        redraw(); // else nothing the chart shows changed (a batch or precision tick): the tick cost one key
}

void SearchChart::reselect()
{
    m_front = {};
    if (m_candidates && m_shown) {
        try {
            m_front = selectFront(*m_candidates, m_targets, m_shown->model, m_shown->space);
        } catch (const std::exception &e) {
            m_error = QString::fromUtf8(e.what());
        }
    }
    redraw();
    emit frontChanged();
}

// ---- drawing ----

QScatterSeries *SearchChart::deviceSeries(std::size_t device)
{
    while (m_devices.size() <= device) {
        auto *s = new QScatterSeries;
        s->setObjectName(QStringLiteral("device %1").arg(m_devices.size()));
        m_chart->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
        s->setVisible(false);
        setLegendVisible(s, false);
        connect(s, &QScatterSeries::hovered, this, [this, s](const QPointF &p, bool st) { showCallout(s, p, st); });
        connect(s, &QScatterSeries::clicked, this, [this, s](const QPointF &p) { pointClicked(s, p); });
        m_devices.push_back(s);
        styleDeviceSeries();
        m_chart->legend()->setFont(theme().labelFont());
        m_chart->legend()->setLabelColor(theme().foreground);
    }
    return m_devices[device];
}

void SearchChart::styleDeviceSeries()
{
    const Theme &th = theme();
    const int colours = std::max<int>(1, static_cast<int>(th.series.size()));
    for (std::size_t d = 0; d < m_devices.size(); ++d) {
        const int slot = d < m_colourSlot.size() ? m_colourSlot[d] : static_cast<int>(d);
        const QColor c = th.color(slot);
        QScatterSeries *s = m_devices[d];
        s->setMarkerShape(kShapes[static_cast<std::size_t>(slot / colours) % std::size(kShapes)]);
        s->setMarkerSize(11 * th.markerScale);
        s->setColor(c);
        s->setPen(markerPen(c.darker(140), 1));
    }
}

void SearchChart::redraw()
{
    const auto &devices = searchedDevices();
    std::vector<QList<QPointF>> points(devices.size());
    for (const SearchPoint &p : m_front.pareto)
        points[p.device].append(valueOf(p));
    for (std::size_t d = 0; d < std::max(devices.size(), m_devices.size()); ++d) {
        const bool on = d < devices.size() && !points[d].isEmpty();
        if (!on && d >= m_devices.size())
            continue;
        QScatterSeries *s = deviceSeries(d);
        s->replace(on ? points[d] : QList<QPointF>());
        if (d < devices.size())
            s->setName(deviceLabel(d));
        showSeries(s, on);
        setLegendVisible(s, on);
    }
    QList<QPointF> line;
    for (const SearchPoint &p : m_front.pareto)
        line.append(valueOf(p));
    m_frontLine->replace(line);
    showSeries(m_frontLine, line.size() > 1);
    setLegendVisible(m_frontLine, false); // showing a series shows its legend entry again
    m_nearest->replace(m_front.nearest ? QList<QPointF>{valueOf(*m_front.nearest)} : QList<QPointF>());
    showSeries(m_nearest, m_front.nearest.has_value());
    setLegendVisible(m_nearest, m_front.nearest.has_value());

    // Axes from the front without targets (they hold still while targets move), the nearest point and the targets.
    constexpr double inf = std::numeric_limits<double>::infinity();
    double xlo = inf, xhi = 0, ylo = inf, yhi = 0;
    const auto include = [&](double x, double y) {
        if (x > 0 && std::isfinite(x)) {
            xlo = std::min(xlo, x);
            xhi = std::max(xhi, x);
        }
        if (y > 0 && std::isfinite(y)) {
            ylo = std::min(ylo, y);
            yhi = std::max(yhi, y);
        }
    };
    for (const SearchPoint &p : m_fullFront.pareto) {
        include(p.tokensPerSPerUser, p.tokensPerSPerDevice);
        if (const QLineF band = bandOf(p); !band.isNull()) {
            include(band.x1(), band.y1());
            include(band.x2(), band.y2());
        }
    }
    if (m_front.nearest)
        include(m_front.nearest->tokensPerSPerUser, m_front.nearest->tokensPerSPerDevice);
    const QList<double> targetXs = targetLineXs();
    for (double x : targetXs)
        include(x, 0);
    if (!(xhi > 0)) {
        xlo = 1;
        xhi = 1000;
    }
    if (!(yhi > 0)) {
        ylo = 1;
        yhi = 10000;
    }
    chartfit::setLogRange(m_x, xlo / 1.6, xhi * 1.6);
    chartfit::setLogRange(m_y, ylo / 5, yhi * 1.8); // room below the front for the message (bottom left)

    const auto vertical = [&](QLineSeries *s, double x) {
        if (x > 0)
            s->replace({QPointF(x, m_y->min()), QPointF(x, m_y->max())});
        else
            s->clear();
        showSeries(s, x > 0);
        setLegendVisible(s, false); // labelled on the plot
    };
    vertical(m_userLine, m_targets.minTokensPerSPerUser);
    vertical(m_tpotLine, m_targets.maxTpotS > 0 ? 1 / m_targets.maxTpotS : 0);
    // While a new search runs, the front drawn is the previous inputs' (under the new title): greyed, with
    // "Searching…" first in the message, until take() redraws the new one.
    const qreal opacity = isSearching() ? kStaleOpacity : 1.0;
    for (QScatterSeries *s : m_devices)
        s->setOpacity(opacity);
    m_frontLine->setOpacity(opacity);
    m_nearest->setOpacity(opacity);
    m_bands->setOpacity(opacity);
    if (m_callout->isVisible())
        m_callout->hide(); // its point may be gone
    layoutOverlay();
}

QLineF SearchChart::bandOf(const SearchPoint &p)
{
    if (!p.band || !(p.band->low > 0))
        return {};
    const QPointF v = valueOf(p);
    return {v / p.band->high, v / p.band->low};
}

QList<QLineF> SearchChart::paintedBands() const
{
    QList<QLineF> out;
    const QPainterPath &path = m_bands->path();
    for (int i = 0; i + 1 < path.elementCount(); i += 2)
        out << QLineF(m_bands->mapToParent(QPointF(path.elementAt(i))),
                      m_bands->mapToParent(QPointF(path.elementAt(i + 1))));
    return out;
}

QList<double> SearchChart::targetLineXs() const
{
    QList<double> xs;
    if (m_targets.minTokensPerSPerUser > 0)
        xs << m_targets.minTokensPerSPerUser;
    if (m_targets.maxTpotS > 0)
        xs << 1 / m_targets.maxTpotS;
    return xs;
}

QString SearchChart::title() const
{
    const ScenarioDocument *doc = document();
    return tr("Deployment search: %1, %2 + %3 tokens, up to %4 devices")
        .arg(qs(doc->model().name), formatGrouped(doc->scenario().seq), formatGrouped(doc->scenario().output))
        .arg(m_budget);
}

QString SearchChart::message() const
{
    if (!m_error.isEmpty() && !isSearching())
        return tr("No search: %1").arg(m_error);
    if (!m_candidates)
        return isSearching() ? tr("Searching…") : QString();
    QStringList lines;
    if (m_candidates->points.empty()) {
        lines << tr("No configuration fits in memory on up to %1 devices").arg(m_shown->space.maxDevices);
    } else if (m_front.pareto.empty() && m_front.nearest) {
        const SearchPoint &n = *m_front.nearest;
        lines << tr("Nothing meets the targets. Nearest: %1 × %2, %3, batch %4, %5, KV %6, %7")
                     .arg(deviceLabel(n.device))
                     .arg(n.devices)
                     .arg(parallelText(n))
                     .arg(n.scenario.batch)
                     .arg(precisionText(n.scenario), qs(core::toString(n.scenario.kv)),
                          qs(core::servingLabel(n.scenario)));
        lines << tr("It misses by: %1").arg(qs(m_front.nearestMiss));
    } else {
        lines << tr("%1 configurations fit, %2 meet the targets%3; %4 on the front")
                     .arg(formatGrouped(static_cast<int64_t>(m_candidates->points.size())),
                          formatGrouped(static_cast<int64_t>(m_front.meeting)),
                          m_targets.maxTtftS > 0 ? tr(" (TTFT ≤ %1)").arg(formatSeconds(m_targets.maxTtftS))
                                                 : QString())
                     .arg(m_front.pareto.size());
    }
    if (std::any_of(m_front.pareto.begin(), m_front.pareto.end(), [](const SearchPoint &p) { return p.band; }))
        lines << tr("Achievable efficiency: each segment spans where measured runs fell (%1–%2 × the time)")
                     .arg(formatRatio(core::kAchievableBand.low), formatRatio(core::kAchievableBand.high));
    if (isSearching())
        lines.prepend(tr("Searching… (greyed: the previous search's front)"));
    return lines.join(QLatin1Char('\n'));
}

void SearchChart::layoutOverlay()
{
    const QString model = qs(document()->model().name);
    chartfit::applyTitle(m_chart,
                         {title(), tr("Deployment search: %1, up to %2 devices").arg(model).arg(m_budget),
                          tr("Deployment search: %1").arg(model), tr("Deployment search")},
                         theme().titleFont());
    chartfit::placeLegend(m_chart);
    const QRectF area = m_chart->plotArea();
    const QFont font = theme().labelFont();

    // The message: whole (wrapped, never cut), where no line runs through it: bottom left first (below a front that
    // falls from top left to bottom right), then the other corners.
    LabelPlacer placer(area);
    plotlabels::addCurves(placer, m_chart);
    const QString lines = plotlabels::wrapLines(message(), font, std::max<qreal>(40, area.width() * 0.6));
    m_message->setFont(font);
    m_message->setText(lines);
    const auto at = plotlabels::placeInCorner(
        placer, m_message->boundingRect().size() + QSizeF(8, 4), area,
        {Qt::BottomLeftCorner, Qt::BottomRightCorner, Qt::TopRightCorner, Qt::TopLeftCorner}, 4);
    const QPointF messageAt =
        at ? at->topLeft() : QPointF(area.left() + 4, area.bottom() - 4 - m_message->boundingRect().height() - 4);
    m_message->setPos(messageAt + QPointF(4, 2));
    const bool shown = !lines.trimmed().isEmpty();
    m_message->setVisible(shown);
    m_messageBox->setRect(m_message->mapRectToParent(m_message->boundingRect()).adjusted(-4, -2, 4, 2));
    m_messageBox->setVisible(shown);
    if (shown && !at)
        placer.addObstacle(m_messageBox->rect());

    // The target labels: beside their line (left of it at the top first: a point that meets the targets lies right
    // of both lines), from the top down, clear of every line, the message and each other.
    const auto place = [&](QGraphicsSimpleTextItem *label, double x, const QString &text) {
        label->setVisible(x > 0);
        if (!(x > 0))
            return;
        label->setFont(font);
        label->setText(text);
        const qreal lineX = m_chart->mapToPosition(QPointF(x, m_y->max()), m_userLine).x();
        const QSizeF size = label->boundingRect().size();
        std::vector<QPointF> candidates;
        for (qreal y = area.top() + 6; y + size.height() < area.bottom(); y += size.height() / 2)
            for (qreal left : {lineX - 4 - size.width(), lineX + 4})
                candidates.emplace_back(left, y);
        const auto r = placer.place(size, candidates);
        label->setVisible(r.has_value());
        if (r)
            label->setPos(r->topLeft());
    };
    // Uncertainty bands: a segment through each front point that carries one.
    QPainterPath bands;
    for (const SearchPoint &p : m_front.pareto)
        if (const QLineF band = bandOf(p); !band.isNull()) {
            bands.moveTo(m_chart->mapToPosition(band.p1(), m_frontLine));
            bands.lineTo(m_chart->mapToPosition(band.p2(), m_frontLine));
        }
    m_bands->setPath(bands);
    m_bands->setVisible(!bands.isEmpty());

    place(m_userLabel, m_targets.minTokensPerSPerUser,
          tr("≥ %1 tok/s per user").arg(formatNumber(m_targets.minTokensPerSPerUser)));
    place(m_tpotLabel, m_targets.maxTpotS > 0 ? 1 / m_targets.maxTpotS : 0,
          tr("TPOT ≤ %1").arg(formatSeconds(m_targets.maxTpotS)));
    m_callout->updateGeometry();
}

void SearchChart::restyle()
{
    const Theme &th = theme();
    QColor front = th.foreground;
    front.setAlpha(90);
    m_frontLine->setPen(QPen(front, std::max<qreal>(1.0, th.lineWidth * 0.6), Qt::DashLine));
    const QColor target = th.color(5);
    m_userLine->setPen(QPen(target, th.lineWidth, Qt::DashDotLine));
    m_tpotLine->setPen(QPen(target, th.lineWidth, Qt::DashLine));
    m_nearest->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_nearest->setMarkerSize(14 * th.markerScale);
    m_nearest->setColor(th.plotArea);
    m_nearest->setPen(markerPen(th.foreground, 2));
    QColor band = th.foreground;
    band.setAlpha(70);
    m_bands->setPen(QPen(band, std::max<qreal>(1.0, th.lineWidth * 0.8), Qt::SolidLine, Qt::RoundCap));
    for (QGraphicsSimpleTextItem *label : {m_userLabel, m_tpotLabel})
        label->setBrush(target.darker(th.darkWindow ? 70 : 115));
    m_message->setBrush(th.foreground);
    QColor box = th.background;
    box.setAlpha(225);
    m_messageBox->setBrush(box);
    m_messageBox->setPen(QPen(th.grid, 1));
    m_callout->setTheme(th);
    styleDeviceSeries();
    layoutOverlay();
}

// ---- hover and click ----

int SearchChart::frontIndexAt(QScatterSeries *series, const QPointF &value) const
{
    const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b)); };
    const auto it = std::find(m_devices.begin(), m_devices.end(), series);
    if (it == m_devices.end())
        return -1;
    const auto device = static_cast<std::size_t>(it - m_devices.begin());
    for (std::size_t i = 0; i < m_front.pareto.size(); ++i) {
        const SearchPoint &p = m_front.pareto[i];
        if (p.device == device && near(p.tokensPerSPerUser, value.x()) && near(p.tokensPerSPerDevice, value.y()))
            return static_cast<int>(i);
    }
    return -1;
}

QScatterSeries *SearchChart::seriesOfFrontPoint(std::size_t i) const
{
    return i < m_front.pareto.size() && m_front.pareto[i].device < m_devices.size()
               ? m_devices[m_front.pareto[i].device]
               : nullptr;
}

QString SearchChart::describe(const SearchPoint &p) const
{
    QStringList lines;
    lines << tr("%1 × %2").arg(deviceLabel(p.device)).arg(p.devices);
    lines << tr("%1 · batch %2").arg(parallelText(p)).arg(p.scenario.batch);
    lines << tr("%1 · KV %2").arg(precisionText(p.scenario), qs(core::toString(p.scenario.kv)));
    lines << tr("Serving: %1").arg(qs(core::servingLabel(p.scenario)));
    lines << tr("TTFT %1 · TPOT %2").arg(formatSeconds(p.ttftS), formatSeconds(p.tpotS));
    if (p.band)
        lines << tr("Measured runs: TPOT likely %1 to %2")
                     .arg(formatSeconds(p.tpotS * p.band->low), formatSeconds(p.tpotS * p.band->high));
    lines << tr("%1 tok/s per user · %2 tok/s per device")
                 .arg(formatNumber(p.tokensPerSPerUser), formatNumber(p.tokensPerSPerDevice));
    if (p.usdPerMillionTokens)
        lines << tr("$%1 per million tokens").arg(formatNumber(*p.usdPerMillionTokens));
    const bool ideal =
        p.scenario.efficiency == EfficiencyMode::Ideal && !p.scenario.computeEfficiency && !p.scenario.memoryEfficiency;
    if (ideal)
        lines << tr("Ideal efficiency: the roofline bound, a real run is slower");
    else
        lines << tr("Achievable efficiency (a prediction); the roofline floor: TTFT %1, TPOT %2")
                     .arg(formatSeconds(p.ttftFloorS), formatSeconds(p.tpotFloorS));
    lines << tr("Click to load this configuration");
    return lines.join(QLatin1Char('\n'));
}

void SearchChart::showCallout(QScatterSeries *series, const QPointF &value, bool state)
{
    if (!state) {
        m_callout->hide();
        return;
    }
    const SearchPoint *p = nullptr;
    if (series == m_nearest && m_front.nearest)
        p = &*m_front.nearest;
    else if (const int i = frontIndexAt(series, value); i >= 0)
        p = &m_front.pareto[static_cast<std::size_t>(i)];
    if (!p)
        return;
    QString text = describe(*p);
    if (series == m_nearest)
        text += QStringLiteral("\n") + tr("Misses the targets: %1").arg(qs(m_front.nearestMiss));
    m_callout->setText(text);
    m_callout->setAnchor(valueOf(*p), series);
    m_callout->show();
}

void SearchChart::pointClicked(QScatterSeries *series, const QPointF &value)
{
    if (series == m_nearest && m_front.nearest)
        load(*m_front.nearest);
    else if (const int i = frontIndexAt(series, value); i >= 0)
        loadFrontPoint(static_cast<std::size_t>(i));
}

void SearchChart::loadFrontPoint(std::size_t i)
{
    if (i < m_front.pareto.size())
        load(m_front.pareto[i]);
}

void SearchChart::load(const SearchPoint &point)
{
    if (!m_shown || point.device >= m_shown->space.devices.size())
        return;
    const SearchPoint p = point; // the document's change redraws the front
    ScenarioDocument *doc = document();
    core::ScenarioFile f = doc->file();
    // The document's own device was searched as it runs (what-if factors included): it stays as it is. A preset was
    // searched as published.
    if (!(m_shown->deviceAdded && p.device + 1 == m_shown->space.devices.size())) {
        f.hardware = m_shown->space.devices[p.device];
        f.hardwareInline = false;
        f.whatIf = {};
    }
    f.scenario = p.scenario;
    doc->setFile(f, tr("Load deployment %1 × %2").arg(deviceLabel(p.device)).arg(p.devices));
}

// ---- data ----

nlohmann::json SearchChart::pointJson(const SearchPoint &p) const
{
    nlohmann::json j = core::searchPointToJson(p, m_shown->space, m_candidates->efficiency);
    const HardwareSpec &hw = searchedDevices()[p.device];
    j["device"] = hw.id; // the window's name before "hardware" (the command line's); kept for one release
    j["device_name"] = hw.name;
    return j;
}

nlohmann::json SearchChart::data() const
{
    nlohmann::json j;
    j["chart"] = id().toStdString();
    j["model"] = document()->model().id;
    j["max_devices"] = m_budget;
    j["targets"] = {{"max_ttft_s", m_targets.maxTtftS},
                    {"max_tpot_s", m_targets.maxTpotS},
                    {"min_tokens_per_s_per_user", m_targets.minTokensPerSPerUser}};
    auto &devices = j["devices"] = nlohmann::json::array();
    for (const HardwareSpec &hw : searchedDevices())
        devices.push_back(hw.id);
    if (m_candidates) {
        j["evaluated"] = m_candidates->evaluated;
        j["fitting"] = m_candidates->points.size();
        j["seconds"] = m_candidates->seconds;
    }
    j["meeting"] = m_front.meeting;
    auto &pareto = j["pareto"] = nlohmann::json::array();
    for (const SearchPoint &p : m_front.pareto)
        pareto.push_back(pointJson(p));
    if (m_front.nearest) {
        j["nearest"] = pointJson(*m_front.nearest);
        j["nearest_miss"] = m_front.nearestMiss;
    }
    if (!m_error.isEmpty())
        j["error"] = m_error.toStdString();
    return j;
}

QString SearchChart::csv() const
{
    if (!m_shown || !m_candidates)
        return QString::fromStdString(core::searchToCsv({}, {}, {}));
    return QString::fromStdString(core::searchToCsv(m_shown->space, *m_candidates, m_front));
}

} // namespace memwall::ui
