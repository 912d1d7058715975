#pragma once

#include "ui/settings/theme.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPen>
#include <QPointer>
#include <QSet>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

class QAbstractSeries;
class QXYSeries;
class QAction;
class QChart;
class QGraphicsSimpleTextItem;
class QGraphicsWidget;
class QLegendMarker;

namespace memwall::ui {

class GridItem;
class MeasuredPoints;
class ScenarioDocument;

/// One chart of MemWall: owns its QChart (built once), follows the document's analysisChanged() by replacing
/// series data in place, and can describe the data behind it (for CSV/JSON export). Shown by a ChartView in the
/// window and rendered offscreen by the exporter; the same painting serves both.
class ChartBase : public QObject
{
    Q_OBJECT
public:
    explicit ChartBase(ScenarioDocument *doc, QObject *parent = nullptr);
    ~ChartBase() override;

    /// Stable id used on the command line and in file names: the chart's entry in the registry (chartregistry.h),
    /// found by its class. Only a chart that is not registered (a test's own) overrides it.
    virtual QString id() const;
    /// Human title ("Roofline: H100 SXM5, Llama 2 70B decode").
    virtual QString title() const = 0;
    /// The data behind the chart, e.g. {"series": [{"name", "points": [[x, y], ...]}], ...}.
    virtual nlohmann::json data() const = 0;
    /// The same data as CSV (a header line, then one row per point).
    virtual QString csv() const = 0;

    QChart *chart() const { return m_chart; }
    /// The plot background: the grid of the chart's value and log axes and the static series (see GridItem).
    GridItem *grid();
    /// The chart as a plain graphics widget (for painting it without Qt Charts types, e.g. the exporter).
    QGraphicsWidget *graphicsWidget() const;
    /// The "Measure this computer" result, for charts that draw it (the roofline); others ignore it.
    virtual void setMeasuredPoints(MeasuredPoints *points) { Q_UNUSED(points); }
    ScenarioDocument *document() const { return m_doc; }
    const Theme &theme() const { return m_theme; }
    /// Applies colours, fonts and line widths; subclasses restyle their own series in restyle(). The first call
    /// (at the end of a subclass's constructor, once its axes exist) also hands the axes' grid to a GridItem.
    void setTheme(const Theme &theme);
    /// The chart's own view options (base year, serial fraction, which slopes to draw ...), shown by ChartView's
    /// context menu above "Reset view". Checkable actions reflect the current state; an action with a menu() is a
    /// submenu. The actions belong to the chart and change view state only (not the document, so not undoable).
    /// Default: none.
    virtual QList<QAction *> optionActions() { return {}; }

    /// A suspended chart (its view is hidden, e.g. in a tab behind another) does not follow the document: a change
    /// only marks it stale, and it refreshes once when resumed. A slider tick so costs only the charts on screen.
    /// Charts start resumed; ChartView suspends its chart while hidden.
    void setSuspended(bool suspended);
    bool isSuspended() const { return m_suspended; }
    /// True while suspended with a document change not yet drawn.
    bool isStale() const { return m_stale; }
    /// Refreshes a stale chart now (before painting or describing it while suspended, as the exporter does).
    void ensureCurrent();
    /// ensureCurrent(), then waits for the work a chart does off the GUI thread (the search chart's search) and draws
    /// its result: what the exporter calls before painting or describing a chart. Most charts have no such work.
    void settle();

    /// True while the user's zoom or pan is shown (set by ChartView): a chart that honours it keeps its axis ranges
    /// on refresh() instead of computing them (RooflineChart, MemoryChart). Reset view clears it.
    bool isUserView() const { return m_userView; }
    void setUserView(bool userView) { m_userView = userView; }
    /// True while the user has hidden `series` by clicking its legend entry (or the entry `series` follows, see
    /// enableLegendToggle()).
    bool isUserHidden(const QAbstractSeries *series) const;

    /// Build-up reveals: a lesson step shows a chart piece by piece, as on a blackboard (the axes, then a roof,
    /// then one class of points ...). `shown` lists the pieces drawn (ids of the registry's ChartInfo::revealPieces);
    /// nullopt draws the whole chart, as always outside a lesson. The chart refreshes (or, suspended, catches up
    /// when shown). A chart without pieces ignores it.
    void setReveal(const std::optional<QStringList> &shown);
    const std::optional<QStringList> &reveal() const { return m_reveal; }
    /// The subtitle shown in the chart's top margin: the first of scenarioSubtitles() that fits the chart's width
    /// (model, device, parallelism, batch and formats; issue #41 item 12). Exports and deck pages paint it too.
    QString subtitle() const;
    /// The item that shows subtitle() (a text item outside the chart's layout: a new batch changes its text without
    /// laying out the chart again).
    QGraphicsSimpleTextItem *subtitleItem() const { return m_subtitle; }

    /// True when `piece` is drawn: no reveal is set, or it lists the piece.
    bool isRevealed(const QString &piece) const { return !m_reveal || m_reveal->contains(piece); }

public slots:
    /// Re-reads the document and updates the series in place (follows analysisChanged() unless suspended).
    virtual void refresh() = 0;

signals:
    /// A point representing operator `index` was clicked (-1: background).
    void operatorClicked(int index);

protected:
    /// The document changed (and the chart is not suspended): refresh(). A chart that draws only part of the
    /// document may skip the refresh while that part is unchanged (the trends chart: the device).
    virtual void documentChanged() { refresh(); }
    /// Called after the base applied the theme to the chart, axes and legend.
    virtual void restyle() {}
    /// For settle(): finishes the chart's background work now and draws its result. Default: nothing to do.
    virtual void finishBackgroundWork() {}
    /// Shows or hides the legend entry of `series`. Touches the legend only on a change: every marker visibility
    /// change re-lays out the legend and with it the axes, which would cost a slider tick milliseconds.
    void setLegendVisible(QAbstractSeries *series, bool visible);
    /// For a subclass's own slots that follow the document (besides refresh()): true, and the chart marked stale,
    /// while suspended; the slot then returns, as the refresh on resume covers it.
    bool deferWhileSuspended();
    /// Lets a click on a legend entry hide its series, and a second click show it again (the entry stays, dimmed
    /// while hidden). Connects the legend entries the chart has now: call once, after its last series is added.
    /// `followers` maps an entry's series to series without an entry of their own that hide and show with it (a
    /// curve's dashed part past the memory limit, scenario B's stripe of a component); their legend entries are
    /// kept hidden. legendToggled() is called after each click.
    void enableLegendToggle(const QHash<QAbstractSeries *, QList<QAbstractSeries *>> &followers = {});
    /// For refresh(): shows `series` when `on` (it has something to draw), unless the user hid it; hides it when not
    /// `on`. A follower shown again by its legend entry is shown only if it was last asked to be `on`.
    void showSeries(QAbstractSeries *series, bool on);
    /// After a legend click hid or showed a series (and its followers): for what follows their visibility.
    virtual void legendToggled() {}
    /// Has the plot background draw `series` (a line a slider tick does not move) from a cached picture instead of
    /// Qt Charts stroking it on every repaint; see GridItem::addStaticSeries().
    void drawInBackground(QXYSeries *series);
    /// The outline pen of a Qt Charts scatter marker: `width` at most 2 px (wider outlines shift the marker).
    static QPen markerPen(const QColor &color, qreal width);
    /// A new text label over the plot (above the series, transparent to the mouse), owned by the chart.
    QGraphicsSimpleTextItem *addLabel();
    QChart *m_chart;

private:
    void followDocument();
    /// Sets the subtitle's text for the document and the chart's width, and centres it in the top margin.
    void placeSubtitle();
    /// Has every XY series of the chart map its points again when it is shown (see the definition for why).
    void watchVisibility();
    void toggleFromLegend(QLegendMarker *marker);

    QGraphicsSimpleTextItem *m_subtitle = nullptr; ///< child of m_chart
    qreal m_baseTopMargin = 0;                     ///< the chart's top margin without the subtitle's line
    QPointer<QObject> m_chartGuard;                ///< null once a view's scene has deleted the chart
    GridItem *m_grid = nullptr;                    ///< child of m_chart
    QSet<const QAbstractSeries *> m_legendWatched; ///< series whose visibility changes reset setLegendVisible()
    qsizetype m_visibilityWatched = 0;             ///< how many of the chart's series watchVisibility() has seen
    QSet<const QAbstractSeries *> m_userHidden;    ///< legend entries the user switched off
    QHash<QAbstractSeries *, QList<QAbstractSeries *>> m_followers; ///< legend entry -> series that follow it
    QHash<const QAbstractSeries *, bool> m_wanted; ///< what showSeries() was last asked (true if never)
    ScenarioDocument *m_doc;
    Theme m_theme;
    bool m_suspended = false;
    bool m_stale = false;
    bool m_userView = false;
    std::optional<QStringList> m_reveal;
};

} // namespace memwall::ui
