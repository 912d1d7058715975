#pragma once

#include <QChartView>
#include <QPointer>

class QAction;
class QLabel;
class QMenu;

namespace memwall::ui {

class ChartBase;

/// Shows one ChartBase and makes it explorable:
/// - mouse wheel zooms around the cursor (in log space on QLogValueAxis), Shift+wheel zooms only x, Ctrl+wheel only y;
/// - left-drag pans (a press on a data point is left to the series: it selects the point);
/// - right-drag (or Shift+left-drag) draws a rubber band and zooms into it;
/// - a left click without dragging is passed on to the chart (the sweep chart's click sets the batch);
/// - double-click, key R / Home, or "Reset view" in the context menu return to the chart's automatic range;
/// - the context menu starts with the chart's own ChartBase::optionActions();
/// - keys +/- zoom around the centre, arrow keys pan;
/// - the side panel of the chart's registry entry (ChartInfo::createSidePanel), if any, sits at the right, beside
///   the plot (not over it).
///
/// While the user has zoomed or panned, the chart's ChartBase::isUserView() is true; charts that honour it keep their
/// axis ranges on refresh() (RooflineChart, MemoryChart). Reset clears it and calls ChartBase::refresh(), which
/// recomputes the automatic ranges.
/// Makes the side panel of a chart's view, or nullptr (see ChartView::setSidePanel()).
using SidePanelFactory = QWidget *(*)(ChartBase &chart, QWidget *parent);

class ChartView : public QChartView
{
    Q_OBJECT
public:
    explicit ChartView(ChartBase *chart, QWidget *parent = nullptr);
    /// Hands the chart back to its ChartBase (which owns it), whichever of the two is destroyed first.
    ~ChartView() override;

    /// Makes the panel a child shown in a strip beside the viewport (the search chart's targets; see
    /// ui/widgets/sidepanels.h, which makes them: a chart never includes a panel). nullptr: none.
    void setSidePanel(QWidget *panel);

    ChartBase *chartBase() const;
    /// True while the user's zoom/pan is shown instead of the automatic range.
    bool isUserView() const;
    QAction *resetAction() const { return m_resetAction; }
    /// The context menu for a right click at `viewPos` (viewport coordinates): the chart's option actions, then
    /// "Reset view", "Zoom in" and "Zoom out". The caller owns the menu.
    QMenu *createContextMenu(const QPoint &viewPos);

    /// Zooms by `factor` (< 1 zooms in) around `center` (chart/view coordinates in the plot area).
    void zoomAt(const QPointF &center, qreal factorX, qreal factorY);
    /// Moves the view by a pixel delta (positive dx shows data further left, as when dragging the plot to the right).
    void panBy(qreal dx, qreal dy);
    /// The visible callouts (hover boxes) of the chart, in global screen coordinates.
    QList<QRect> calloutScreenRects() const;

    /// Covers the whole view with `text` on the chart's background (a lesson's question is open: the chart would
    /// give the answer away); an empty text uncovers it. The cover swallows the mouse, so nothing under it can be
    /// hovered for its figures.
    void setCover(const QString &text);
    /// The cover's widget while covered, else nullptr.
    QWidget *cover() const;

    /// The zoom/pan help tooltip shows once per session (process), on the first hover of any chart view, and never
    /// again: on every hover it hid what the user hovered for. True once it has shown.
    static bool zoomHintShown();
    /// Lets the next hover show the help again (tests).
    static void resetZoomHint();

public slots:
    void resetView();

signals:
    /// The visible range changed by the user (zoom, pan) or by a reset.
    void viewChanged();

protected:
    /// Shows the view's help tooltip (zoom and pan keys) clear of a visible callout, once per session (see
    /// zoomHintShown()): the help must not hide the point's figures the user is hovering for.
    bool event(QEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void markUserView();
    /// Places the side panel beside the viewport, and the chart in the viewport only.
    void layoutSidePanel();
    /// Gives the scene the chart's rectangle (see resizeEvent()).
    void fixSceneRect();
    /// Moves a shown help tooltip off every visible callout (below it, else above it).
    void keepToolTipOffCallouts();
    void zoomToRect(const QRectF &rect);

    QPointer<ChartBase> m_base;
    QWidget *m_panel = nullptr; ///< the chart's side panel (a child), or none
    QAction *m_resetAction;
    bool m_panning = false;
    bool m_rubber = false;
    bool m_moved = false;
    QPoint m_pressPos;
    QPointF m_lastPos;
    QPoint m_rubberOrigin;
    class QRubberBand *m_band = nullptr;
};

} // namespace memwall::ui
