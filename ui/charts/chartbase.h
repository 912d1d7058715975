#pragma once

#include "ui/settings/theme.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <nlohmann/json.hpp>

class QAction;
class QChart;
class QGraphicsWidget;

namespace memwall::ui {

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

    /// Stable id used on the command line and in file names: "roofline", "memory", "trends", "sweep", "breakdown",
    /// "scaling".
    virtual QString id() const = 0;
    /// Human title ("Roofline: H100 SXM5, Llama 2 70B decode").
    virtual QString title() const = 0;
    /// The data behind the chart, e.g. {"series": [{"name", "points": [[x, y], ...]}], ...}.
    virtual nlohmann::json data() const = 0;
    /// The same data as CSV (a header line, then one row per point).
    virtual QString csv() const = 0;

    QChart *chart() const { return m_chart; }
    /// The chart as a plain graphics widget (for painting it without Qt Charts types, e.g. the exporter).
    QGraphicsWidget *graphicsWidget() const;
    /// The "Measure this computer" result, for charts that draw it (the roofline); others ignore it.
    virtual void setMeasuredPoints(MeasuredPoints *points) { Q_UNUSED(points); }
    ScenarioDocument *document() const { return m_doc; }
    const Theme &theme() const { return m_theme; }
    /// Applies colours, fonts and line widths; subclasses restyle their own series in restyle().
    void setTheme(const Theme &theme);
    /// The chart's own view options (base year, serial fraction, which slopes to draw ...), shown by ChartView's
    /// context menu above "Reset view". Checkable actions reflect the current state; an action with a menu() is a
    /// submenu. The actions belong to the chart and change view state only (not the document, so not undoable).
    /// Default: none.
    virtual QList<QAction *> optionActions() { return {}; }

public slots:
    /// Re-reads the document and updates the series in place (connected to analysisChanged()).
    virtual void refresh() = 0;

signals:
    /// A point representing operator `index` was clicked (-1: background).
    void operatorClicked(int index);

protected:
    /// Called after the base applied the theme to the chart, axes and legend.
    virtual void restyle() {}
    QChart *m_chart;

private:
    QPointer<QObject> m_chartGuard; ///< null once a view's scene has deleted the chart
    ScenarioDocument *m_doc;
    Theme m_theme;
};

} // namespace memwall::ui
