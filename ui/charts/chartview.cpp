#include "ui/charts/chartview.h"
#include "ui/charts/callout.h"
#include "ui/charts/markerlayer.h"

#include "ui/charts/chartbase.h"
#include "ui/charts/chartfit.h"
#include "ui/util/coverlabel.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QContextMenuEvent>
#include <QGraphicsItemGroup>
#include <QGraphicsScene>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QLogValueAxis>
#include <QMenu>
#include <QResizeEvent>
#include <QRubberBand>
#include <QScreen>
#include <QToolTip>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

namespace {

constexpr qreal kWheelStep = 0.8; ///< one wheel notch shows 80 % of the range

/// Axis range as (lo, hi) in the space the axis is linear in (log10 for log axes); false for axes we do not move.
bool axisSpan(QAbstractAxis *axis, double *lo, double *hi)
{
    if (auto *v = qobject_cast<QValueAxis *>(axis)) {
        *lo = v->min();
        *hi = v->max();
        return true;
    }
    if (auto *l = qobject_cast<QLogValueAxis *>(axis)) {
        if (!(l->min() > 0) || !(l->max() > 0))
            return false;
        *lo = std::log10(l->min());
        *hi = std::log10(l->max());
        return true;
    }
    return false;
}

/// Widest span a user may zoom out to: 24 decades on a log axis (10^-12 ... 10^12 of anything MemWall plots fits),
/// 1e15 on a linear one. Beyond that Qt Charts lays out astronomically many ticks (or pow() overflows), which hangs.
constexpr double kMaxLogDecades = 24;
const double kMaxLogExponent = std::log10(chartfit::kLogAxisCeiling); // the data's own limit (chartfit.h)
constexpr double kMaxLinearSpan = 1e15;

void setAxisSpan(QAbstractAxis *axis, double lo, double hi)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return;
    if (auto *v = qobject_cast<QValueAxis *>(axis)) {
        if (hi - lo <= kMaxLinearSpan && std::fabs(lo) <= kMaxLinearSpan && std::fabs(hi) <= kMaxLinearSpan)
            v->setRange(lo, hi);
    } else if (auto *l = qobject_cast<QLogValueAxis *>(axis)) {
        // lo and hi are log10 values here.
        if (hi - lo > kMaxLogDecades || lo < -kMaxLogExponent || hi > kMaxLogExponent)
            return;
        const double a = std::pow(10.0, lo), b = std::pow(10.0, hi);
        if (a > 0 && std::isfinite(b) && b > a) {
            l->setRange(a, b);
            chartfit::fitLogLabelFormat(l); // panned to 1e+07: every label in one format
        }
    }
}

/// Fraction of the plot area along the axis at chart position `p` (0 = left/bottom, 1 = right/top).
double fraction(const QRectF &area, const QPointF &p, Qt::Orientation o)
{
    if (o == Qt::Horizontal)
        return area.width() > 0 ? (p.x() - area.left()) / area.width() : 0.5;
    return area.height() > 0 ? (area.bottom() - p.y()) / area.height() : 0.5;
}

} // namespace

ChartBase *ChartView::chartBase() const { return m_base; }

ChartView::ChartView(ChartBase *chart, QWidget *parent)
    : QChartView(chart->chart(), parent), m_base(chart), m_resetAction(new QAction(tr("&Reset view"), this))
{
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::NoRubberBand); // our own: Shift+drag, so a plain drag can pan
    setDragMode(QGraphicsView::NoDrag);
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setToolTip(tr("Wheel: zoom around the cursor (Shift: x only, Ctrl: y only) · drag: pan · Shift+drag: zoom to "
                  "a rectangle · double-click or R: reset view"));
    m_resetAction->setShortcuts({QKeySequence(Qt::Key_R), QKeySequence(Qt::Key_Home)});
    m_resetAction->setShortcutContext(Qt::WidgetShortcut);
    m_resetAction->setToolTip(tr("Show the chart's automatic range again (R, Home, double-click)"));
    addAction(m_resetAction);
    connect(m_resetAction, &QAction::triggered, this, &ChartView::resetView);
}

void ChartView::setSidePanel(QWidget *panel)
{
    m_panel = panel;
    if (!m_panel) {
        setViewportMargins(0, 0, 0, 0);
        return;
    }
    m_panel->setParent(this);
    setViewportMargins(0, 0, m_panel->sizeHint().width(), 0); // the panel takes a strip beside the viewport
    m_panel->show();
    layoutSidePanel();
}

void ChartView::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    fixSceneRect();
    layoutSidePanel();
}

void ChartView::setCover(const QString &text)
{
    CoverLabel *cover = CoverLabel::cover(this, text);
    if (!cover)
        return;
    cover->setObjectName(QStringLiteral("chartCover"));
    cover->setContentsMargins(24, 24, 24, 24);
    const Theme &t = m_base ? m_base->theme() : Theme::light();
    QPalette pal = cover->palette();
    pal.setColor(QPalette::Window, t.background);
    pal.setColor(QPalette::WindowText, t.foreground);
    cover->setPalette(pal);
    QFont f = cover->font();
    f.setPointSizeF(t.titlePointSize * 1.2);
    cover->setFont(f);
}

QWidget *ChartView::cover() const { return CoverLabel::shownOver(this); }

void ChartView::layoutSidePanel()
{
    if (!m_panel)
        return;
    const QRect inside = contentsRect();
    const int w = m_panel->sizeHint().width();
    m_panel->setGeometry(inside.right() + 1 - w, inside.top(), w, inside.height());
    // QChartView sizes the chart to the whole view; with a panel beside it the chart gets the viewport only.
    if (chart() && m_base && chart() == m_base->chart()) {
        chart()->resize(viewport()->size());
        setSceneRect(chart()->geometry());
        fixSceneRect();
    }
}

void ChartView::fixSceneRect()
{
    // A scene without a rectangle of its own grows one from all its items' bounding rectangles after every change
    // of an item's geometry, which on a slider tick costs as much as painting the chart's labels.
    if (scene() && chart())
        scene()->setSceneRect(chart()->geometry());
}

ChartView::~ChartView()
{
    // The QGraphicsScene would delete the chart with the view; the ChartBase still uses (and deletes) it.
    if (m_base && chart() == m_base->chart() && scene())
        scene()->removeItem(chart());
}

QList<QRect> ChartView::calloutScreenRects() const
{
    QList<QRect> out;
    if (!scene())
        return out;
    for (QGraphicsItem *item : scene()->items())
        if (dynamic_cast<Callout *>(item) && item->isVisible()) {
            const QRect r = mapFromScene(item->sceneBoundingRect()).boundingRect();
            out << QRect(viewport()->mapToGlobal(r.topLeft()), r.size());
        }
    return out;
}

namespace {
bool g_zoomHintShown = false; // one help tooltip per session, whichever chart view shows it (GUI thread only)
} // namespace

bool ChartView::zoomHintShown() { return g_zoomHintShown; }
void ChartView::resetZoomHint() { g_zoomHintShown = false; }

bool ChartView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && !toolTip().isEmpty()) {
        if (g_zoomHintShown)
            return true; // shown once already: the right-click menu and Help list the same keys
        g_zoomHintShown = true;
        QToolTip::showText(static_cast<QHelpEvent *>(event)->globalPos(), toolTip(), this);
        keepToolTipOffCallouts();
        return true;
    }
    return QChartView::event(event);
}

void ChartView::keepToolTipOffCallouts()
{
    if (!QToolTip::isVisible())
        return;
    QWidget *tip = nullptr;
    for (QWidget *w : QApplication::topLevelWidgets())
        if (w->inherits("QTipLabel") && w->isVisible())
            tip = w;
    const QList<QRect> callouts = calloutScreenRects();
    if (!tip || callouts.isEmpty())
        return;
    QRect r = tip->geometry();
    const QRect screen = tip->screen() ? tip->screen()->availableGeometry() : QRect();
    auto free = [&](const QRect &g) {
        return std::none_of(callouts.begin(), callouts.end(), [&g](const QRect &c) { return c.intersects(g); }) &&
               (screen.isNull() || screen.contains(g));
    };
    if (free(r))
        return;
    // Below the lowest callout, else above the highest, else beside them: whichever is free first.
    int bottom = callouts.front().bottom(), top = callouts.front().top(), right = callouts.front().right(),
        left = callouts.front().left();
    for (const QRect &c : callouts) {
        bottom = std::max(bottom, c.bottom());
        top = std::min(top, c.top());
        right = std::max(right, c.right());
        left = std::min(left, c.left());
    }
    for (const QPoint &p : {QPoint(r.left(), bottom + 6), QPoint(r.left(), top - 6 - r.height()),
                            QPoint(right + 6, r.top()), QPoint(left - 6 - r.width(), r.top())}) {
        QRect g = r;
        g.moveTopLeft(p);
        if (!screen.isNull() && (g.left() < screen.left() || g.right() > screen.right()))
            g.moveLeft(std::clamp(g.left(), screen.left(), std::max(screen.left(), screen.right() - g.width())));
        if (free(g)) {
            tip->move(g.topLeft());
            return;
        }
    }
    QToolTip::hideText(); // nowhere free: the callout wins
}

bool ChartView::isUserView() const { return m_base && m_base->isUserView(); }

void ChartView::markUserView()
{
    if (m_base)
        m_base->setUserView(true);
    emit viewChanged();
}

void ChartView::resetView()
{
    if (!m_base)
        return;
    m_base->setUserView(false);
    m_base->refresh();
    emit viewChanged();
}

void ChartView::zoomAt(const QPointF &center, qreal factorX, qreal factorY)
{
    QChart *c = chart();
    const QRectF area = c->plotArea();
    bool changed = false;
    for (QAbstractAxis *axis : c->axes()) {
        const qreal f = axis->orientation() == Qt::Horizontal ? factorX : factorY;
        if (f == 1.0)
            continue;
        double lo, hi;
        if (!axisSpan(axis, &lo, &hi))
            continue;
        double t = fraction(area, center, axis->orientation());
        if (axis->isReverse())
            t = 1 - t;
        const double at = lo + t * (hi - lo);
        setAxisSpan(axis, at - (at - lo) * f, at + (hi - at) * f);
        changed = true;
    }
    if (changed)
        markUserView();
}

void ChartView::panBy(qreal dx, qreal dy)
{
    QChart *c = chart();
    const QRectF area = c->plotArea();
    bool changed = false;
    for (QAbstractAxis *axis : c->axes()) {
        double lo, hi;
        if (!axisSpan(axis, &lo, &hi))
            continue;
        const bool horizontal = axis->orientation() == Qt::Horizontal;
        const qreal pixels = horizontal ? area.width() : area.height();
        if (pixels <= 0)
            continue;
        // Dragging right shows smaller x; dragging down shows larger y.
        double shift = (horizontal ? -dx : dy) / pixels * (hi - lo);
        if (axis->isReverse())
            shift = -shift;
        if (shift == 0)
            continue;
        setAxisSpan(axis, lo + shift, hi + shift);
        changed = true;
    }
    if (changed)
        markUserView();
}

void ChartView::zoomToRect(const QRectF &rect)
{
    QChart *c = chart();
    const QRectF area = c->plotArea();
    const QRectF r = rect.normalized().intersected(area);
    if (r.width() < 4 || r.height() < 4)
        return;
    for (QAbstractAxis *axis : c->axes()) {
        double lo, hi;
        if (!axisSpan(axis, &lo, &hi))
            continue;
        const Qt::Orientation o = axis->orientation();
        double a = fraction(area, o == Qt::Horizontal ? r.topLeft() : r.bottomLeft(), o);
        double b = fraction(area, o == Qt::Horizontal ? r.bottomRight() : r.topLeft(), o);
        if (axis->isReverse()) {
            a = 1 - a;
            b = 1 - b;
            std::swap(a, b);
        }
        setAxisSpan(axis, lo + a * (hi - lo), lo + b * (hi - lo));
    }
    markUserView();
}

void ChartView::wheelEvent(QWheelEvent *event)
{
    const QPointF pos = chart()->mapFromScene(mapToScene(event->position().toPoint()));
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0 || !chart()->plotArea().contains(pos)) {
        QChartView::wheelEvent(event);
        return;
    }
    const qreal f = std::pow(kWheelStep, steps);
    const bool xOnly = event->modifiers() & Qt::ShiftModifier;
    const bool yOnly = event->modifiers() & Qt::ControlModifier;
    zoomAt(pos, yOnly ? 1.0 : f, xOnly ? 1.0 : f);
    event->accept();
}

void ChartView::mousePressEvent(QMouseEvent *event)
{
    const QPointF pos = chart()->mapFromScene(mapToScene(event->position().toPoint()));
    const bool inPlot = chart()->plotArea().contains(pos);
    if (event->button() == Qt::LeftButton && inPlot && (event->modifiers() & Qt::ShiftModifier)) {
        m_rubber = true;
        m_rubberOrigin = event->position().toPoint();
        if (!m_band)
            m_band = new QRubberBand(QRubberBand::Rectangle, viewport());
        m_band->setGeometry(QRect(m_rubberOrigin, QSize()));
        m_band->show();
        event->accept();
        return;
    }
    QChartView::mousePressEvent(event);
    if (event->button() != Qt::LeftButton || !inPlot)
        return;
    // A press on a data marker belongs to its series (click selects); anywhere else in the plot starts a pan.
    const QGraphicsItem *item = itemAt(event->position().toPoint());
    const bool onMarker = item && ((item->parentItem() && item->parentItem()->type() == QGraphicsItemGroup::Type) ||
                                   dynamic_cast<const MarkerLayer *>(item)); // hit-tested on its markers' shapes
    if (!onMarker) {
        m_panning = true;
        m_moved = false;
        m_pressPos = event->position().toPoint();
        m_lastPos = event->position();
        event->accept();
    }
}

void ChartView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_rubber && m_band) {
        m_band->setGeometry(QRect(m_rubberOrigin, event->position().toPoint()).normalized());
        event->accept();
        return;
    }
    if (m_panning) {
        if (!m_moved &&
            (event->position().toPoint() - m_pressPos).manhattanLength() < QApplication::startDragDistance()) {
            event->accept();
            return;
        }
        if (!m_moved) {
            m_moved = true;
            viewport()->setCursor(Qt::ClosedHandCursor);
        }
        const QPointF d = event->position() - m_lastPos;
        m_lastPos = event->position();
        panBy(d.x(), d.y());
        event->accept();
        return;
    }
    QChartView::mouseMoveEvent(event);
    // The help shown before the pointer reached a point stays up: keep it off the callout that point just opened.
    if (QToolTip::isVisible())
        keepToolTipOffCallouts();
}

void ChartView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_rubber && event->button() == Qt::LeftButton) {
        m_rubber = false;
        if (m_band) {
            m_band->hide();
            const QRect r = QRect(m_rubberOrigin, event->position().toPoint()).normalized();
            const QRectF chartRect(chart()->mapFromScene(mapToScene(r.topLeft())),
                                   chart()->mapFromScene(mapToScene(r.bottomRight())));
            zoomToRect(chartRect);
        }
        event->accept();
        return;
    }
    if (m_panning && event->button() == Qt::LeftButton) {
        m_panning = false;
        viewport()->unsetCursor();
    }
    QChartView::mouseReleaseEvent(event);
}

void ChartView::mouseDoubleClickEvent(QMouseEvent *event)
{
    const QPointF pos = chart()->mapFromScene(mapToScene(event->position().toPoint()));
    if (event->button() == Qt::LeftButton && chart()->plotArea().contains(pos)) {
        resetView();
        event->accept();
        return;
    }
    QChartView::mouseDoubleClickEvent(event);
}

void ChartView::keyPressEvent(QKeyEvent *event)
{
    const QPointF centre = chart()->plotArea().center();
    const qreal step = 0.1; // of the plot area per arrow key
    const QRectF area = chart()->plotArea();
    switch (event->key()) {
    case Qt::Key_R:
    case Qt::Key_Home: resetView(); break;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomAt(centre, kWheelStep, kWheelStep); break;
    case Qt::Key_Minus: zoomAt(centre, 1 / kWheelStep, 1 / kWheelStep); break;
    case Qt::Key_Left: panBy(area.width() * step, 0); break;
    case Qt::Key_Right: panBy(-area.width() * step, 0); break;
    case Qt::Key_Up: panBy(0, area.height() * step); break;
    case Qt::Key_Down: panBy(0, -area.height() * step); break;
    default: QChartView::keyPressEvent(event); return;
    }
    event->accept();
}

QMenu *ChartView::createContextMenu(const QPoint &viewPos)
{
    auto *menu = new QMenu(this);
    menu->setToolTipsVisible(true);
    if (m_base) {
        const QList<QAction *> options = m_base->optionActions();
        if (!options.isEmpty()) {
            menu->addActions(options);
            menu->addSeparator();
        }
    }
    menu->addAction(m_resetAction);
    menu->addSeparator();
    QAction *zoomIn = menu->addAction(tr("Zoom in"));
    zoomIn->setShortcut(QKeySequence(Qt::Key_Plus));
    zoomIn->setToolTip(tr("Zoom in around the clicked point (+, mouse wheel)"));
    QAction *zoomOut = menu->addAction(tr("Zoom out"));
    zoomOut->setShortcut(QKeySequence(Qt::Key_Minus));
    zoomOut->setToolTip(tr("Zoom out around the clicked point (-, mouse wheel)"));
    const QPointF pos = chart()->mapFromScene(mapToScene(viewPos));
    const QPointF at = chart()->plotArea().contains(pos) ? pos : chart()->plotArea().center();
    connect(zoomIn, &QAction::triggered, this, [this, at] { zoomAt(at, kWheelStep, kWheelStep); });
    connect(zoomOut, &QAction::triggered, this, [this, at] { zoomAt(at, 1 / kWheelStep, 1 / kWheelStep); });
    return menu;
}

void ChartView::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu *menu = createContextMenu(event->pos());
    menu->exec(event->globalPos());
    delete menu; // the chart's option actions stay with the chart
}

} // namespace memwall::ui
