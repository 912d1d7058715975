#pragma once

#include "ui/export/chartexporter.h"

#include <QList>
#include <QObject>

#include <functional>

class QAction;
class QWidget;

namespace memwall::ui {

class ChartBase;

/// The File-menu actions for exports: "Export Chart…" (Ctrl+E), "Copy Chart to Clipboard" (Ctrl+Shift+C),
/// "Export Chart Data…", "Export All Charts…". Owns the dialogs and error boxes; the painting is chartexporter's.
/// Remembers the last folder, size, scale, theme and format (QSettings group "export").
class ExportActions : public QObject
{
    Q_OBJECT
public:
    using ChartProvider = std::function<ChartBase *()>;
    using ChartListProvider = std::function<QList<ChartBase *>()>;

    /// `window` parents the dialogs; `currentChart` is the chart on screen (nullptr: none); `allCharts` every chart
    /// in display order.
    ExportActions(QWidget *window, ChartProvider currentChart, ChartListProvider allCharts, QObject *parent = nullptr);

    QAction *exportChartAction() const { return m_exportChart; }
    QAction *copyChartAction() const { return m_copyChart; }
    QAction *exportDataAction() const { return m_exportData; }
    QAction *exportAllAction() const { return m_exportAll; }
    /// All four, in menu order.
    QList<QAction *> actions() const;

public slots:
    /// Enables the single-chart actions only when a chart is shown; call when the current chart changes.
    void updateActions();

    void exportChart();
    void copyChart();
    void exportData();
    void exportAllCharts();

signals:
    /// A short note for the status bar ("Exported roofline.png", "Copied the roofline chart").
    void statusMessage(const QString &text);

private:
    /// The export dialog for the current chart: an image (false) or the data behind it (true).
    void exportCurrent(bool data);
    ExportOptions rememberedOptions(const ChartBase *chart) const;
    /// Keeps the choices for the next export; returns why the settings could not be saved, or an empty string.
    QString remember(const QString &format, const QString &folder, const ExportOptions &options) const;
    QString rememberedFolder() const;
    /// The last picture (or data) format used if `offered` has it, else the first such format offered.
    QString rememberedFormat(bool data, const QStringList &offered) const;
    void fail(const QString &title, const QString &error);
    ChartBase *chartOrWarn();

    QWidget *m_window;
    ChartProvider m_currentChart;
    ChartListProvider m_allCharts;
    QAction *m_exportChart;
    QAction *m_copyChart;
    QAction *m_exportData;
    QAction *m_exportAll;
};

} // namespace memwall::ui
