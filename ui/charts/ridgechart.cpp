#include "ui/charts/ridgechart.h"

#include "ui/charts/callout.h"
#include "ui/charts/chartfit.h"
#include "ui/charts/rooflinemath.h"
#include "ui/charts/trendschart.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsLineItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <numeric>

namespace memwall::ui {

using namespace memwall::core;

// ---------------------------------------------------------------------------------------------------------------
namespace {

/// "H100 SXM5 80GB" from "NVIDIA H100 SXM5 80GB", "B200" from "NVIDIA B200 (HGX B200, 1000 W)", "V100 SXM2 32GB"
/// from "NVIDIA Tesla V100 SXM2 32GB": the vendor, what is in parentheses and a product line's brand go, so that a
/// name beside a marker is the part number people say.
QString shortName(const HardwareSpec &hw)
{
    QString name = deviceNameWithoutVendor(hw);
    const qsizetype paren = name.indexOf(QLatin1String(" ("));
    if (paren > 0)
        name.truncate(paren);
    for (const char *brand : {"Tesla ", "Instinct ", "GeForce "})
        if (name.startsWith(QLatin1String(brand)) && name.size() > static_cast<qsizetype>(std::strlen(brand)))
            name = name.mid(static_cast<qsizetype>(std::strlen(brand)));
    return name.trimmed();
}

QString formatName(DType t) { return QString::fromLatin1(toString(t)).toUpper(); }

/// "295" FLOP/byte: whole numbers from 10 up, two significant digits below.
QString ridgeText(double r) { return r >= 10 ? formatFixed(r, 0) : formatSiNumber(r, 2); }

QString factorText(double f) { return formatFixed(f, 1); }

constexpr int kColours[] = {0, 2, 3, 1}; // FP16, BF16, other format, SRAM (5 is the accent: this device)
constexpr qreal kDotSize = 10;
constexpr qreal kStarSize = 22;

} // namespace

RidgeChart::RidgeChart(ScenarioDocument *doc, QObject *parent) : ChartBase(doc, parent)
{
    m_trends = loadBuiltinTrends();
    m_growth = paperRidgeGrowth(m_trends);

    m_x = new QValueAxis;
    m_x->setTitleText(tr("Release year"));
    m_x->setLabelFormat(QStringLiteral("%d"));
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(2000);
    m_x->setTickInterval(2);
    m_y = new QLogValueAxis;
    m_y->setBase(10);
    m_y->setLabelFormat(QStringLiteral("%g"));
    m_y->setMinorTickCount(-1);
    m_y->setTitleText(tr("Ridge point (FLOP/byte)"));
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);

    m_line = new QLineSeries;
    m_chart->addSeries(m_line);
    m_line->attachAxis(m_x);
    m_line->attachAxis(m_y);

    static const std::array<QScatterSeries::MarkerShape, GroupCount> shapes = {
        QScatterSeries::MarkerShapeCircle, QScatterSeries::MarkerShapeRotatedRectangle,
        QScatterSeries::MarkerShapeTriangle, QScatterSeries::MarkerShapeRectangle};
    for (int g = 0; g < GroupCount; ++g) {
        auto *s = new QScatterSeries;
        s->setMarkerShape(shapes[static_cast<std::size_t>(g)]);
        m_chart->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
        m_groups[static_cast<std::size_t>(g)] = s;
        connect(s, &QScatterSeries::hovered, this, [this, g, s](const QPointF &p, bool state) {
            const auto &idx = m_groupDevices[static_cast<std::size_t>(g)];
            int best = -1;
            double bestD = std::numeric_limits<double>::max();
            for (int i = 0; i < s->count() && i < static_cast<int>(idx.size()); ++i) {
                const QPointF q = s->at(i);
                const double d = std::abs(q.x() - p.x()) + std::abs(std::log10(q.y() / p.y()));
                if (d < bestD) {
                    bestD = d;
                    best = i;
                }
            }
            if (best >= 0)
                showCallout(idx[static_cast<std::size_t>(best)], s->at(best), s, state);
            else
                showCallout(-1, p, s, false);
        });
    }
    m_groups[Fp16]->setName(tr("FP16 peak ÷ DRAM"));
    m_groups[Bf16]->setName(tr("BF16 (no FP16) ÷ DRAM"));

    m_current = new QScatterSeries;
    m_current->setMarkerShape(QScatterSeries::MarkerShapeStar);
    m_chart->addSeries(m_current);
    m_current->attachAxis(m_x);
    m_current->attachAxis(m_y);
    connect(m_current, &QScatterSeries::hovered, this,
            [this](const QPointF &p, bool state) { showCallout(-2, p, m_current, state); });

    m_currentLabel = addLabel();
    m_currentLeader = new QGraphicsLineItem(m_chart);
    m_currentLeader->setZValue(19);
    m_currentLeader->setVisible(false);
    m_anchorLeader = new QGraphicsLineItem(m_chart);
    m_anchorLeader->setZValue(19);
    m_anchorLeader->setVisible(false);
    m_lineLabel = addLabel();
    m_callout = new Callout(m_chart);
    m_chart->legend()->setShowToolTips(true);
    m_chart->legend()->setAlignment(Qt::AlignLeft); // one entry per line
    m_chart->legend()->detachFromChart();
    m_chart->legend()->setBackgroundVisible(true);
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { layoutOverlay(); });

    drawInBackground(m_line); // it moves only with the presets, never on a slider tick
    setTheme(theme());
    refresh();
}

RidgeChart::~RidgeChart() = default;

RidgeChart::Group RidgeChart::groupOf(const DeviceRidge &d)
{
    if (d.memory != MemoryKind::Dram)
        return Sram;
    if (d.format == DType::FP16)
        return Fp16;
    if (d.format == DType::BF16)
        return Bf16;
    return OtherFormat;
}

QString RidgeChart::title() const
{
    const QString n = formatGrouped(static_cast<int64_t>(m_devices.size()));
    if (!m_growth)
        return tr("Ridge point (peak FLOP/s ÷ memory bandwidth) of %1 devices").arg(n);
    return tr("The memory wall rising: ridge point of %1 devices, ×%2 every 2 years")
        .arg(n, factorText(m_growth->per2Years()));
}

QStringList RidgeChart::titles() const
{
    QStringList t{title()};
    if (m_growth)
        t << tr("The memory wall rising: ridge point ×%1 every 2 years").arg(factorText(m_growth->per2Years()))
          << tr("Ridge point: ×%1 every 2 years").arg(factorText(m_growth->per2Years()));
    t << tr("Ridge point by year") << tr("Ridge points");
    return t;
}

QPointF RidgeChart::currentMarker() const { return m_current->count() > 0 ? m_current->at(0) : QPointF(); }

QList<QPointF> RidgeChart::growthLine() const { return m_line->points(); }

QString RidgeChart::growthLabel() const { return m_lineLabel->isVisible() ? m_lineLabel->text() : QString(); }

QList<QPair<QString, QRectF>> RidgeChart::visibleLabels() const
{
    std::vector<QGraphicsSimpleTextItem *> all = m_labels;
    all.push_back(m_currentLabel);
    return plotlabels::shownLabels(all);
}

void RidgeChart::refresh()
{
    const ScenarioDocument *doc = document();
    const auto &library = doc->presets().hardware();
    m_devices.clear();
    m_names.clear();
    for (const HardwareSpec &hw : library)
        if (auto d = deviceRidge(hw)) {
            m_devices.push_back(std::move(*d));
            m_names << shortName(hw);
        }
    const DeviceRidge *anchor = ridgeAnchor(m_devices);
    m_anchor = anchor ? static_cast<int>(anchor - m_devices.data()) : -1;

    // Labels: one item per device, made as the library grows.
    while (m_labels.size() < m_devices.size()) {
        QGraphicsSimpleTextItem *l = addLabel();
        l->setFont(theme().tickFont());
        l->setBrush(theme().foreground);
        m_labels.push_back(l);
    }

    std::array<QList<QPointF>, GroupCount> pts;
    for (auto &idx : m_groupDevices)
        idx.clear();
    double xmin = std::numeric_limits<double>::max(), xmax = std::numeric_limits<double>::lowest();
    double ymin = std::numeric_limits<double>::max(), ymax = 0;
    auto include = [&](const QPointF &p) {
        xmin = std::min(xmin, p.x());
        xmax = std::max(xmax, p.x());
        ymin = std::min(ymin, p.y());
        ymax = std::max(ymax, p.y());
    };
    for (std::size_t i = 0; i < m_devices.size(); ++i) {
        const DeviceRidge &d = m_devices[i];
        const Group g = groupOf(d);
        const QPointF p(markerYear(d.year), d.ridge);
        pts[g].append(p);
        m_groupDevices[g].push_back(static_cast<int>(i));
        include(p);
    }
    // The fallback format's and the SRAM devices' entries name the formats they hold ("FP32 peak (no 16-bit)").
    auto formats = [this](Group g) {
        QStringList names;
        for (int i : m_groupDevices[g])
            if (!names.contains(formatName(m_devices[static_cast<std::size_t>(i)].format)))
                names << formatName(m_devices[static_cast<std::size_t>(i)].format);
        return names.isEmpty() ? tr("Other") : names.join(QLatin1Char('/'));
    };
    m_groups[OtherFormat]->setName(tr("%1 (no 16-bit) ÷ DRAM").arg(formats(OtherFormat)));
    m_groups[Sram]->setName(tr("%1 ÷ on-chip SRAM").arg(formats(Sram)));
    for (int g = 0; g < GroupCount; ++g) {
        m_groups[static_cast<std::size_t>(g)]->replace(pts[static_cast<std::size_t>(g)]);
        showSeries(m_groups[static_cast<std::size_t>(g)], !pts[static_cast<std::size_t>(g)].isEmpty());
        setLegendVisible(m_groups[static_cast<std::size_t>(g)], !pts[static_cast<std::size_t>(g)].isEmpty());
    }

    // The document's device, what-if factors included.
    m_currentRidge = deviceRidge(doc->hardware());
    m_currentName = shortName(doc->hardware());
    if (m_currentRidge) {
        const QPointF p(markerYear(m_currentRidge->year), m_currentRidge->ridge);
        m_current->replace(QList<QPointF>{p});
        m_current->setName(tr("This device"));
        include(p);
    } else {
        m_current->clear();
        m_current->setName(QString());
    }
    setLegendVisible(m_current, false); // its bold name beside it says whose it is; the legend stays short

    const auto [x0, x1] = trendsmath::yearRange(xmin, xmax);
    if (!(xmin <= xmax)) {
        m_x->setRange(x0, x1);
        m_line->clear();
        setLegendVisible(m_line, false);
        layoutOverlay();
        return;
    }
    // The paper's line, from its anchor to the right edge.
    if (m_growth && anchor) {
        const double ax = markerYear(anchor->year);
        QList<QPointF> line;
        for (int k = 0; k <= 8; ++k) {
            const double year = ax + (x1 - ax) * k / 8;
            line.append({year, m_growth->at(ax, anchor->ridge, year)});
        }
        m_line->replace(line);
        include(line.last());
        m_line->setName(tr("FLOPS ×%1 ÷ DRAM ×%2 / 2 yrs")
                            .arg(factorText(m_growth->computePer2Years), factorText(m_growth->memoryPer2Years)));
    } else {
        m_line->clear();
    }
    setLegendVisible(m_line, m_line->count() > 0);
    m_x->setRange(x0, x1);
    // Half a decade more below the lowest device: room for the legend, which sits in a lower corner.
    const auto yr = rooflinemath::decadeRange(ymin, ymax, 0.1);
    chartfit::setLogRange(m_y, yr.min / std::sqrt(10.0), yr.max);
    layoutOverlay();
}

void RidgeChart::layoutOverlay()
{
    chartfit::applyTitle(m_chart, titles(), theme().titleFont());
    const QRectF area = m_chart->plotArea();
    if (area.isEmpty())
        return;
    // Year ticks every 2 years, or every year on a wide plot, every 5 on a narrow one.
    const double span = m_x->max() - m_x->min();
    const double labelW = QFontMetricsF(theme().tickFont()).horizontalAdvance(QStringLiteral("2000")) * 1.6;
    const double interval = area.width() / span >= labelW ? 1 : area.width() / (span / 2) >= labelW ? 2 : 5;
    if (m_x->tickInterval() != interval)
        m_x->setTickInterval(interval);
    QStringList entries;
    if (m_line->count() > 0)
        entries << m_line->name();
    for (const QScatterSeries *s : m_groups)
        if (s->count() > 0)
            entries << s->name();
    // The corner that hides the fewest markers; of equals, bottom left (the ridge rises to the right).
    std::vector<QPointF> markers;
    for (const QScatterSeries *s : m_groups)
        for (const QPointF &p : s->points())
            markers.push_back(m_chart->mapToPosition(p, m_groups[Fp16]));
    const qreal margin = kDotSize * theme().markerScale;
    Qt::Corner corner = Qt::BottomLeftCorner;
    std::size_t fewest = std::numeric_limits<std::size_t>::max();
    for (const Qt::Corner c : {Qt::BottomLeftCorner, Qt::BottomRightCorner, Qt::TopLeftCorner, Qt::TopRightCorner}) {
        const QRectF r =
            plotlabels::legendRectInside(m_chart, entries, area, c).adjusted(-margin, -margin, margin, margin);
        const auto n = static_cast<std::size_t>(
            std::count_if(markers.begin(), markers.end(), [&](const QPointF &p) { return r.contains(p); }));
        if (n < fewest) {
            fewest = n;
            corner = c;
        }
    }
    const QRectF legend = plotlabels::placeLegendInside(m_chart, entries, area, corner);
    placeNames(area, legend);
    m_callout->updateGeometry();
}

/// The line's label, along the line where it crosses no marker or name (`obstacles`, which gain its place): above it,
/// else below; shorter if the whole sentence finds no room.
void RidgeChart::placeLineLabel(const QRectF &area, std::vector<QRectF> &obstacles)
{
    m_lineLabel->setVisible(false);
    if (m_line->count() > 1 && m_growth) {
        const QString factor = factorText(m_growth->per2Years());
        const QPointF a = m_chart->mapToPosition(m_line->at(0), m_line);
        const QPointF b = m_chart->mapToPosition(m_line->at(m_line->count() - 1), m_line);
        m_lineLabel->setRotation(std::atan2(b.y() - a.y(), b.x() - a.x()) * 180 / std::numbers::pi);
        const QPointF along = (b - a) / std::max(1.0, std::hypot(b.x() - a.x(), b.y() - a.y()));
        const QPointF normal(along.y(), -along.x()); // points up-left of a rising line
        // Along the line from a third of the way, out to both ends; beside it, then a little further off.
        std::vector<std::pair<double, double>> places; // (t, offset from the line in px; negative: below)
        for (const double gap : {4.0, 12.0})
            for (int k = 0; k <= 16; ++k) {
                const double t = 0.3 + (k % 2 ? -1 : 1) * 0.05 * ((k + 1) / 2);
                if (t > 0.02 && t < 0.9)
                    for (const double side : {1.0, -1.0})
                        places.emplace_back(t, side * gap);
            }
        for (const QString &text :
             {tr("×%1 / 2 years: the wall rising").arg(factor), tr("×%1 / 2 years").arg(factor)}) {
            m_lineLabel->setText(text);
            const QRectF box0 = m_lineLabel->boundingRect();
            const QPolygonF textBox(box0);
            for (const auto &[t, offset] : places) {
                // The text's centre sits half its height plus the offset from the line; "up" on the text is
                // `normal` (the item turns about its top-left corner).
                const QPointF centre = a + (b - a) * t + normal * (offset + (offset > 0 ? 1 : -1) * box0.height() / 2);
                const QPointF origin = centre - along * (box0.width() / 2) + normal * (box0.height() / 2);
                m_lineLabel->setPos(origin);
                const QPolygonF box = m_lineLabel->mapToParent(textBox);
                if (!area.contains(box.boundingRect()) ||
                    std::any_of(obstacles.begin(), obstacles.end(),
                                [&](const QRectF &o) { return box.intersects(QPolygonF(o)); }))
                    continue;
                m_lineLabel->setVisible(true);
                // The tilted text as obstacles: its middle line, as thick as the text.
                const QPointF mid = centre - along * (box0.width() / 2);
                const auto strip = plotlabels::alongLine({mid, mid + along * box0.width()}, box0.height(), 4);
                obstacles.insert(obstacles.end(), strip.begin(), strip.end());
                break;
            }
            if (m_lineLabel->isVisible())
                break;
        }
    }
}

void RidgeChart::placeNames(const QRectF &area, const QRectF &legend)
{
    const Theme &th = theme();
    // A marker as painted: its size, plus its outline and antialiasing.
    const qreal dot = kDotSize * th.markerScale + 4, star = kStarSize * th.markerScale + 4;
    std::vector<QRectF> obstacles;
    if (!legend.isEmpty())
        obstacles.push_back(legend.adjusted(-2, -2, 2, 2));
    std::vector<QPointF> at(m_devices.size());
    for (std::size_t i = 0; i < m_devices.size(); ++i) {
        at[i] = m_chart->mapToPosition(QPointF(markerYear(m_devices[i].year), m_devices[i].ridge), m_groups[Fp16]);
        obstacles.emplace_back(at[i] - QPointF(dot / 2, dot / 2), QSizeF(dot, dot));
    }
    QPointF currentAt;
    if (m_current->count() > 0) {
        currentAt = m_chart->mapToPosition(m_current->at(0), m_current);
        obstacles.emplace_back(currentAt - QPointF(star / 2, star / 2), QSizeF(star, star));
    }

    // What is named, in order: the document's device, (the line's label,) the line's anchor, then the newest devices
    // (most asked about in class), higher ridge first.
    std::vector<int> order(m_devices.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
        const DeviceRidge &da = m_devices[static_cast<std::size_t>(a)], &db = m_devices[static_cast<std::size_t>(b)];
        const int ka = a == m_anchor ? 0 : 1, kb = b == m_anchor ? 0 : 1;
        if (ka != kb)
            return ka < kb;
        return da.year != db.year ? da.year > db.year : da.ridge > db.ridge;
    });
    std::vector<plotlabels::Request> requests;
    std::vector<QGraphicsSimpleTextItem *> items;
    if (m_current->count() > 0) {
        m_currentLabel->setText(
            tr("%1: %2 FLOP/B").arg(m_currentName, ridgeText(m_currentRidge ? m_currentRidge->ridge : 0)));
        requests.push_back({currentAt, m_currentLabel->boundingRect().size(), star / 2 + 3, true});
        items.push_back(m_currentLabel);
    } else {
        m_currentLabel->setVisible(false);
    }
    for (QGraphicsSimpleTextItem *l : m_labels)
        l->setVisible(false);
    const std::size_t first = items.size(); // the requests placed before the line's label: this device's
    for (int i : order) {
        const std::size_t k = static_cast<std::size_t>(i);
        // The document's own preset, drawn where the star is, is named by the star's label.
        if (m_current->count() > 0 && m_devices[k].id == document()->hardware().id &&
            QLineF(at[k], currentAt).length() < 1)
            continue;
        m_labels[k]->setText(m_names[i]);
        requests.push_back({at[k], m_labels[k]->boundingRect().size(), dot / 2 + 3, i == m_anchor});
        items.push_back(m_labels[k]);
    }
    // No name across the trend line, this device's neither (it may move away from its star, with a leader).
    std::vector<QRectF> lineStrip;
    if (m_line->count() > 1) {
        QList<QPointF> path;
        for (const QPointF &p : m_line->points())
            path.append(m_chart->mapToPosition(p, m_line));
        lineStrip = plotlabels::alongLine(path, 4, 4);
    }
    std::vector<QRectF> withLine = obstacles;
    withLine.insert(withLine.end(), lineStrip.begin(), lineStrip.end());
    std::vector<std::optional<QRectF>> placed = plotlabels::place(
        std::vector<plotlabels::Request>(requests.begin(), requests.begin() + static_cast<std::ptrdiff_t>(first)), area,
        withLine);
    for (const auto &r : placed)
        if (r)
            obstacles.push_back(*r);

    placeLineLabel(area, obstacles);
    obstacles.insert(obstacles.end(), lineStrip.begin(), lineStrip.end());
    const auto rest = plotlabels::place(
        std::vector<plotlabels::Request>(requests.begin() + static_cast<std::ptrdiff_t>(first), requests.end()), area,
        obstacles);
    placed.insert(placed.end(), rest.begin(), rest.end());

    for (std::size_t i = 0; i < items.size(); ++i) {
        items[i]->setVisible(placed[i].has_value());
        if (placed[i])
            items[i]->setPos(placed[i]->topLeft());
    }
    // A label moved away from its marker (this device's, the anchor's) points back to it.
    auto lead = [&](QGraphicsLineItem *leader, QGraphicsSimpleTextItem *label, const QPointF &marker, qreal size) {
        leader->setVisible(false);
        const auto it = std::find(items.begin(), items.end(), label);
        if (it == items.end() || !placed[static_cast<std::size_t>(it - items.begin())])
            return;
        const QRectF r = *placed[static_cast<std::size_t>(it - items.begin())];
        const QPointF near(std::clamp(marker.x(), r.left(), r.right()), std::clamp(marker.y(), r.top(), r.bottom()));
        QLineF line(near, marker);
        if (line.length() > size) {
            line.setLength(line.length() - size / 2 - 1); // stop at the marker's edge
            leader->setLine(line);
            leader->setVisible(true);
        }
    };
    lead(m_currentLeader, m_currentLabel, currentAt, star);
    if (m_anchor >= 0)
        lead(m_anchorLeader, m_labels[static_cast<std::size_t>(m_anchor)], at[static_cast<std::size_t>(m_anchor)],
             dot * 1.5);
    else
        m_anchorLeader->setVisible(false);
}

QString RidgeChart::deviceText(const DeviceRidge &d) const
{
    const QString memory = d.memory == MemoryKind::Dram ? tr("DRAM") : tr("on-chip SRAM (no DRAM)");
    return tr("%1\n%2: %3 %4 dense ÷ %5 %6\nridge %7 FLOP/byte: a kernel needs that many FLOPs per byte to be "
              "compute-bound")
        .arg(QString::fromStdString(d.name))
        .arg(static_cast<int>(d.year))
        .arg(formatSi(d.peakFlops, "FLOP/s"), formatName(d.format), formatSi(d.bandwidth, "B/s"), memory)
        .arg(ridgeText(d.ridge));
}

void RidgeChart::showCallout(int device, const QPointF &at, QAbstractSeries *series, bool state)
{
    if (!state) {
        m_callout->hide();
        return;
    }
    QString text;
    if (device == -2 && m_currentRidge) {
        text = tr("This device: ") + deviceText(*m_currentRidge);
    } else if (device >= 0 && device < static_cast<int>(m_devices.size())) {
        const DeviceRidge &d = m_devices[static_cast<std::size_t>(device)];
        text = deviceText(d);
        if (m_growth && m_anchor >= 0) {
            const DeviceRidge &a = m_devices[static_cast<std::size_t>(m_anchor)];
            const double line = m_growth->at(markerYear(a.year), a.ridge, markerYear(d.year));
            text += tr("\n%1× the paper's line in %2").arg(formatRatio(d.ridge / line)).arg(static_cast<int>(d.year));
        }
    } else {
        return;
    }
    m_callout->setText(text);
    m_callout->setAnchor(at, series);
    m_callout->show();
}

void RidgeChart::restyle()
{
    const Theme &th = theme();
    for (int g = 0; g < GroupCount; ++g) {
        QScatterSeries *s = m_groups[static_cast<std::size_t>(g)];
        const QColor c = th.color(kColours[g]);
        QColor fill = c;
        fill.setAlpha(200);
        s->setColor(fill);
        s->setPen(markerPen(c.darker(th.darkWindow ? 100 : 130), 1.5));
        s->setMarkerSize(kDotSize * th.markerScale);
    }
    QPen line(th.foreground, th.lineWidth, Qt::DashLine);
    m_line->setPen(line);
    m_current->setColor(th.accent);
    m_current->setPen(markerPen(th.foreground, 1.5));
    m_current->setMarkerSize(kStarSize * th.markerScale);
    QFont bold = th.labelFont();
    bold.setBold(true);
    m_currentLabel->setFont(bold);
    m_currentLabel->setBrush(th.foreground);
    m_currentLeader->setPen(QPen(th.foreground, 1.5));
    m_anchorLeader->setPen(QPen(th.foreground, 1));
    QFont lineFont = th.tickFont();
    lineFont.setBold(true);
    m_lineLabel->setFont(lineFont);
    m_lineLabel->setBrush(th.foreground);
    for (QGraphicsSimpleTextItem *l : m_labels) {
        l->setFont(th.tickFont());
        l->setBrush(th.foreground);
    }
    QLegend *legend = m_chart->legend();
    legend->setFont(th.tickFont()); // a smaller legend hides fewer devices
    QColor legendFill = th.plotArea;
    legendFill.setAlpha(225);
    legend->setBrush(legendFill);
    legend->setPen(QPen(th.grid, 1));
    legend->setLabelColor(th.foreground);
    m_callout->setTheme(th);
    layoutOverlay();
}

nlohmann::json RidgeChart::data() const
{
    nlohmann::json j;
    j["chart"] = id().toStdString();
    j["ridge"] = "dense peak FLOP/s in the format given / main-memory bandwidth (B/s), FLOP/byte";
    if (m_growth) {
        nlohmann::json g{{"compute_per_2_years", m_growth->computePer2Years},
                         {"memory_per_2_years", m_growth->memoryPer2Years},
                         {"ridge_per_2_years", m_growth->per2Years()},
                         {"source", "Gholami et al., AI and Memory Wall (2024): presets/trends/hardware.json"}};
        if (m_anchor >= 0) {
            const DeviceRidge &a = m_devices[static_cast<std::size_t>(m_anchor)];
            g["anchor"] = {{"id", a.id}, {"year", markerYear(a.year)}, {"ridge", a.ridge}};
        }
        j["growth"] = std::move(g);
    }
    auto row = [](const DeviceRidge &d) {
        return nlohmann::json{{"id", d.id},
                              {"name", d.name},
                              {"year", d.year},
                              {"format", std::string(toString(d.format))},
                              {"peak_flops", d.peakFlops},
                              {"bandwidth_bytes_per_s", d.bandwidth},
                              {"main_memory", std::string(toString(d.memory))},
                              {"ridge_flop_per_byte", d.ridge}};
    };
    auto &arr = j["devices"] = nlohmann::json::array();
    for (const DeviceRidge &d : m_devices)
        arr.push_back(row(d));
    if (m_currentRidge)
        j["device"] = row(*m_currentRidge);
    return j;
}

QString RidgeChart::csv() const
{
    QString out = QStringLiteral(
        "id,name,year,format,peak_flops,bandwidth_bytes_per_s,main_memory,ridge_flop_per_byte,current\n");
    auto add = [&out](const DeviceRidge &d, bool current) {
        out += csvRow({QString::fromStdString(d.id), QString::fromStdString(d.name), csvNumber(d.year, 10),
                       QString::fromLatin1(toString(d.format)), csvNumber(d.peakFlops, 12), csvNumber(d.bandwidth, 12),
                       QString::fromLatin1(toString(d.memory)), csvNumber(d.ridge, 12),
                       current ? QStringLiteral("true") : QStringLiteral("false")});
    };
    for (const DeviceRidge &d : m_devices)
        add(d, false);
    if (m_currentRidge)
        add(*m_currentRidge, true);
    return out;
}

} // namespace memwall::ui
