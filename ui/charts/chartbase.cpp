#include "ui/charts/chartbase.h"

#include "ui/charts/chartfit.h"
#include "ui/charts/chartregistry.h"
#include "ui/charts/griditem.h"
#include "ui/document/scenariodocument.h"
#include "ui/document/scenariosubtitle.h"

#include <QAbstractAxis>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QXYSeries>

namespace memwall::ui {

ChartBase::ChartBase(ScenarioDocument *doc, QObject *parent)
    : QObject(parent), m_chart(new QChart), m_chartGuard(m_chart), m_doc(doc), m_theme(Theme::light())
{
    m_chart->setAnimationOptions(QChart::NoAnimation); // a slider tick must repaint at once
    // Square corners: a rounded background is an antialiased path the raster engine fills on every repaint of the
    // plot (an eighth of the roofline's paint on a slider tick); a square one is a plain rectangle fill.
    m_chart->setBackgroundRoundness(0);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    connect(doc, &ScenarioDocument::analysisChanged, this, &ChartBase::followDocument);
    // Qt lays out a hidden chart too (new fonts, or the pending resize when its tab is shown, before the tab resumes
    // it): a stale chart catches up first, so a subclass's layout code (connected after this) never meets old
    // points against a newer analysis.
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { ensureCurrent(); });
    m_subtitle = new QGraphicsSimpleTextItem(m_chart);
    m_subtitle->setAcceptedMouseButtons(Qt::NoButton);
    m_subtitle->setZValue(20);
    m_baseTopMargin = m_chart->margins().top();
    connect(m_chart, &QChart::plotAreaChanged, this, &ChartBase::placeSubtitle);
}

QString ChartBase::subtitle() const { return m_subtitle->text(); }

namespace {
/// `text` on two lines, broken at the " · " nearest its middle (the subtitle when even its shortest form is too wide).
QString onTwoLines(const QString &text)
{
    static const QString sep = QStringLiteral(" · ");
    qsizetype best = -1;
    for (qsizetype i = text.indexOf(sep); i >= 0; i = text.indexOf(sep, i + 1))
        if (best < 0 || std::abs(i - text.size() / 2) < std::abs(best - text.size() / 2))
            best = i;
    return best < 0 ? text : text.left(best) + QLatin1Char('\n') + text.mid(best + sep.size());
}
} // namespace

// The subtitle is a QGraphicsSimpleTextItem: one line of text, with no QTextDocument to lay out on every tick.
void ChartBase::placeSubtitle()
{
    const QFont font = m_theme.tickFont();
    const qreal width = m_chart->size().width() - 16;
    const qreal room = width - 8;
    // As the title (chartfit::applyTitle): a chart shorter than twelve title lines (a window's small chart tab) gives
    // the line to the plot; the headline above it names the scenario.
    const qreal height = m_chart->size().height();
    const bool tooShort = height > 0 && height < 12 * QFontMetricsF(m_theme.titleFont()).height();
    QString text = tooShort ? QString() : chartfit::fittingTitle(scenarioSubtitles(*m_doc), font, room);
    // Even the shortest form too wide (a narrow chart in the presentation font): on two lines, never cut; the top
    // margin grows to hold them.
    // (Its width was measured, and kept, when fittingTitle() chose it: a slider tick does not shape it again.)
    if (chartfit::textAdvance(font, text) > room)
        text = onTwoLines(text);
    if (m_subtitle->font() != font)
        m_subtitle->setFont(font);
    if (m_subtitle->text() != text)
        m_subtitle->setText(text);
    m_subtitle->setVisible(!text.isEmpty());
    const qreal line = text.isEmpty() ? 0 : m_subtitle->boundingRect().height() + 8;
    if (const int top = qRound(m_baseTopMargin + line); m_chart->margins().top() != top) {
        QMargins margins = m_chart->margins();
        margins.setTop(top);
        m_chart->setMargins(margins);
    }
    const QRectF box = m_subtitle->boundingRect();
    const QPointF pos(std::max(0.0, (m_chart->size().width() - box.width()) / 2), m_baseTopMargin / 2 + 4);
    if (m_subtitle->pos() != pos)
        m_subtitle->setPos(pos);
}

QString ChartBase::id() const
{
    const ChartInfo *info = chartInfoOf(*this);
    return info ? info->id : QString();
}

void ChartBase::followDocument()
{
    if (!deferWhileSuspended()) {
        watchVisibility();
        // The subtitle first: placed after the chart's own items, its change reached the screen in a second repaint
        // of every slider tick (memwall-bench counted two paints a tick); before them it joins their repaint.
        placeSubtitle();
        documentChanged();
    }
}

void ChartBase::watchVisibility()
{
    // Qt Charts 6.4 does not map a hidden XY series' points when the axes or the plot area change, and does not map
    // them again when the series is shown: a series hidden across such a change comes back with its points where the
    // old axes put them. Replacing the points with themselves when the series is shown maps them again.
    // Series are only ever added (a chart's pools grow), so only those past the ones already seen need connecting;
    // on a slider tick this is one size comparison.
    const QList<QAbstractSeries *> series = m_chart->series();
    for (; m_visibilityWatched < series.size(); ++m_visibilityWatched) {
        auto *xy = qobject_cast<QXYSeries *>(series[m_visibilityWatched]);
        if (!xy)
            continue;
        connect(xy, &QAbstractSeries::visibleChanged, this, [xy] {
            if (xy->isVisible() && xy->count() > 0)
                xy->replace(xy->points());
        });
    }
}

bool ChartBase::deferWhileSuspended()
{
    if (m_suspended)
        m_stale = true;
    return m_suspended;
}

void ChartBase::setSuspended(bool suspended)
{
    m_suspended = suspended;
    if (!suspended)
        ensureCurrent();
}

void ChartBase::setReveal(const std::optional<QStringList> &shown)
{
    if (m_reveal == shown)
        return;
    m_reveal = shown;
    if (m_suspended)
        m_stale = true;
    else
        refresh();
}

void ChartBase::ensureCurrent()
{
    if (!m_stale)
        return;
    m_stale = false;
    watchVisibility();
    refresh();
    placeSubtitle();
}

void ChartBase::settle()
{
    ensureCurrent();
    finishBackgroundWork();
}

ChartBase::~ChartBase()
{
    // A chart shown in a view belongs to the view's scene; otherwise it is ours.
    if (m_chartGuard && !m_chart->scene())
        delete m_chart;
}

GridItem *ChartBase::grid()
{
    if (!m_grid)
        m_grid = new GridItem(m_chart);
    return m_grid;
}

QPen ChartBase::markerPen(const QColor &color, qreal width)
{
    // Qt Charts 6.4 places a scatter marker by its bounding rectangle, which includes half the pen on each side, so
    // the marker sits up and left of its value by half its pen width. Two pixels keep that under one pixel.
    return QPen(color, std::min<qreal>(width, 2.0));
}

void ChartBase::drawInBackground(QXYSeries *series) { grid()->addStaticSeries(series); }

QGraphicsSimpleTextItem *ChartBase::addLabel()
{
    auto *label = new QGraphicsSimpleTextItem(m_chart);
    label->setZValue(20);
    label->setAcceptedMouseButtons(Qt::NoButton);
    return label;
}

void ChartBase::setLegendVisible(QAbstractSeries *series, bool visible)
{
    // isVisible() alone cannot tell: it is false while the legend is not laid out yet, which would leave a marker
    // never hidden. The state asked for last is kept on the marker too (a new marker has none, so it is set once).
    static constexpr const char *kAsked = "memwallLegendVisible";
    // Showing a series shows its legend marker again, behind this function's back: forget what was asked then, or
    // the next call would take the stale state for done (a marker not laid out yet reports itself hidden).
    if (!m_legendWatched.contains(series)) {
        m_legendWatched.insert(series);
        connect(series, &QAbstractSeries::visibleChanged, this, [this, series] {
            for (QLegendMarker *marker : m_chart->legend()->markers(series))
                marker->setProperty(kAsked, QVariant());
        });
    }
    for (QLegendMarker *marker : m_chart->legend()->markers(series)) {
        const QVariant asked = marker->property(kAsked);
        if (asked.isValid() && asked.toBool() == visible && marker->isVisible() == visible)
            continue;
        marker->setProperty(kAsked, visible);
        marker->setVisible(visible);
    }
}

void ChartBase::enableLegendToggle(const QHash<QAbstractSeries *, QList<QAbstractSeries *>> &followers)
{
    m_followers = followers;
    for (QLegendMarker *marker : m_chart->legend()->markers())
        connect(marker, &QLegendMarker::clicked, this, [this, marker] { toggleFromLegend(marker); });
}

void ChartBase::toggleFromLegend(QLegendMarker *marker)
{
    QAbstractSeries *s = marker->series();
    const bool visible = !s->isVisible();
    s->setVisible(visible);
    if (visible)
        m_userHidden.remove(s);
    else
        m_userHidden.insert(s);
    for (QAbstractSeries *follower : m_followers.value(s)) {
        follower->setVisible(visible && m_wanted.value(follower, true));
        setLegendVisible(follower, false); // showing a series shows its legend entry too
    }
    marker->setVisible(true); // hiding a series hides its marker too; keep it to switch back on
    QColor c = theme().foreground;
    c.setAlphaF(visible ? 1.0 : 0.35);
    marker->setLabelBrush(c);
    legendToggled();
}

bool ChartBase::isUserHidden(const QAbstractSeries *series) const
{
    if (m_userHidden.contains(series))
        return true;
    for (auto it = m_followers.cbegin(); it != m_followers.cend(); ++it)
        if (it.value().contains(series))
            return m_userHidden.contains(it.key());
    return false;
}

void ChartBase::showSeries(QAbstractSeries *series, bool on)
{
    m_wanted.insert(series, on);
    if (!on)
        series->setVisible(false);
    else if (!series->isVisible() && !isUserHidden(series))
        series->setVisible(true);
}

QGraphicsWidget *ChartBase::graphicsWidget() const { return m_chart; }

void ChartBase::setTheme(const Theme &theme)
{
    ensureCurrent();   // restyle() lays out labels from the chart's points (see the constructor)
    watchVisibility(); // the first call ends a subclass's constructor: its series exist
    m_theme = theme;
    m_chart->setBackgroundBrush(theme.background);
    m_chart->setPlotAreaBackgroundBrush(theme.plotArea);
    m_chart->setPlotAreaBackgroundVisible(false); // the GridItem fills the plot area (see below)
    m_chart->setTitleBrush(theme.foreground);
    m_chart->setTitleFont(theme.titleFont());
    m_chart->legend()->setLabelColor(theme.foreground);
    m_chart->legend()->setFont(theme.labelFont());
    for (QAbstractAxis *axis : m_chart->axes()) {
        axis->setLabelsBrush(theme.foreground);
        axis->setLabelsFont(theme.tickFont());
        axis->setTitleBrush(theme.foreground);
        axis->setTitleFont(theme.labelFont());
        axis->setGridLineColor(theme.grid);
        axis->setMinorGridLineColor(theme.grid.lighter(theme.darkWindow ? 80 : 115));
        axis->setLinePenColor(theme.foreground);
    }
    // Value and log axes draw their grid through one unantialiased item (see GridItem); the axes exist by now.
    grid()->adoptAxes();
    m_grid->setColors(theme.plotArea, theme.grid, theme.grid.lighter(theme.darkWindow ? 80 : 115));
    // The subtitle's line in the top margin (placeSubtitle() sizes the margin).
    m_subtitle->setBrush(theme.foreground);
    m_subtitle->setFont(theme.tickFont());
    restyle();
    placeSubtitle();
}

} // namespace memwall::ui
