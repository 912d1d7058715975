#include "ui/export/exportactions.h"

#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/export/exportdialog.h"
#include "ui/settings/settingsfile.h"

#include <QAction>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QWidget>

namespace memwall::ui {

namespace {

const char *kGroup = "export";

/// A status message, and after it why the choices made for it were not remembered (if they were not).
QString withSettingsError(const QString &message, const QString &settingsError)
{
    return settingsError.isEmpty() ? message : QStringLiteral("%1. %2").arg(message, settingsError);
}

} // namespace

ExportActions::ExportActions(QWidget *window, ChartProvider currentChart, ChartListProvider allCharts, QObject *parent)
    : QObject(parent), m_window(window), m_currentChart(std::move(currentChart)), m_allCharts(std::move(allCharts))
{
    auto make = [this](const QString &text, const QKeySequence &key, const QString &tip,
                       void (ExportActions::*slot)()) {
        auto *a = new QAction(text, this);
        if (!key.isEmpty())
            a->setShortcut(key);
        a->setToolTip(key.isEmpty() ? tip : tr("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
        a->setStatusTip(tip);
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    m_exportChart =
        make(tr("&Export Chart…"), QKeySequence(tr("Ctrl+E")),
             tr("Save the chart on screen as PNG, SVG or PDF, in any size and theme"), &ExportActions::exportChart);
    m_copyChart =
        make(tr("&Copy Chart to Clipboard"), QKeySequence(tr("Ctrl+Shift+C")),
             tr("Copy the chart on screen as an image, to paste into slides or documents"), &ExportActions::copyChart);
    m_exportData = make(tr("Export Chart &Data…"), QKeySequence(),
                        tr("Save the numbers behind the chart on screen as CSV or JSON"), &ExportActions::exportData);
    m_exportAll = make(tr("Export &All Charts…"), QKeySequence(),
                       tr("Save every chart into one folder, one file per chart — a slide deck in one go"),
                       &ExportActions::exportAllCharts);
    updateActions();
}

QList<QAction *> ExportActions::actions() const { return {m_exportChart, m_copyChart, m_exportData, m_exportAll}; }

void ExportActions::updateActions()
{
    const bool have = m_currentChart && m_currentChart();
    m_exportChart->setEnabled(have);
    m_copyChart->setEnabled(have);
    m_exportData->setEnabled(have);
    m_exportAll->setEnabled(m_allCharts && !m_allCharts().isEmpty());
}

ChartBase *ExportActions::chartOrWarn()
{
    ChartBase *chart = m_currentChart ? m_currentChart() : nullptr;
    if (!chart)
        emit statusMessage(tr("No chart is shown to export."));
    return chart;
}

ExportOptions ExportActions::rememberedOptions(const ChartBase *chart) const
{
    QSettings settings;
    settings.beginGroup(kGroup);
    ExportOptions o;
    const QSize size = settings.value("size", o.size).toSize();
    if (size.width() >= 64 && size.height() >= 64 && size.width() <= 16384 && size.height() <= 16384)
        o.size = size;
    o.scale = qBound(1, settings.value("scale", 1).toInt(), 3);
    const QString theme = settings.value("theme", chart ? chart->theme().id : QStringLiteral("light")).toString();
    o.theme = Theme::byId(theme);
    return o;
}

QString ExportActions::rememberedFolder() const
{
    QSettings settings;
    QString folder = settings.value(QStringLiteral("%1/folder").arg(kGroup)).toString();
    if (!folder.isEmpty() && QFileInfo(folder).isDir())
        return folder;
    const QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    return QFileInfo(pictures).isDir() ? pictures : QDir::homePath();
}

QString ExportActions::rememberedFormat(bool data, const QStringList &offered) const
{
    QSettings settings;
    const QString key = QStringLiteral("%1/%2").arg(kGroup, data ? "dataFormat" : "format");
    QString f = settings.value(key).toString();
    if (offered.contains(f) && isDataFormat(f) == data)
        return f;
    for (const QString &o : offered) // the first offered picture (or data) format
        if (isDataFormat(o) == data)
            return o;
    return offered.value(0);
}

QString ExportActions::remember(const QString &format, const QString &folder, const ExportOptions &options) const
{
    QSettings settings;
    settings.beginGroup(kGroup);
    const bool data = isDataFormat(format);
    settings.setValue(data ? "dataFormat" : "format", format);
    settings.setValue("folder", folder);
    if (!data) {
        settings.setValue("size", options.size);
        settings.setValue("scale", qRound(options.scale));
        settings.setValue("theme", options.theme.id);
    }
    return syncSettings(settings);
}

void ExportActions::fail(const QString &title, const QString &error)
{
    QMessageBox::warning(m_window, title, error);
    emit statusMessage(error);
}

void ExportActions::exportChart() { exportCurrent(false); }

void ExportActions::exportData() { exportCurrent(true); }

void ExportActions::exportCurrent(bool data)
{
    ChartBase *chart = chartOrWarn();
    if (!chart)
        return;
    const QStringList formats = exportFormats(); // every chart is written in every format
    ExportDialog dialog(ExportDialog::OneChart, chart->id(), rememberedFolder(), formats, m_window);
    if (data)
        dialog.setWindowTitle(tr("Export Chart Data"));
    dialog.setOptions(rememberedOptions(chart));
    dialog.setFormat(rememberedFormat(data, formats));
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QString path = dialog.path();
    QString error;
    const bool ok = dialog.isDataFormat() ? ui::exportData(*chart, path, &error)
                                          : ui::exportChart(*chart, path, dialog.options(), &error);
    if (!ok)
        return fail(tr("Export Failed"), error);
    const QString unsaved = remember(dialog.format(), QFileInfo(path).absolutePath(), dialog.options());
    emit statusMessage(withSettingsError(tr("Exported %1").arg(QDir::toNativeSeparators(path)), unsaved));
}

void ExportActions::copyChart()
{
    ChartBase *chart = chartOrWarn();
    if (!chart)
        return;
    // What is on screen, as it is on screen: the view's size and the chart's theme, at the screen's pixel density.
    ExportOptions options = rememberedOptions(chart);
    const QSize onScreen = currentChartSize(*chart);
    if (onScreen.width() >= 64 && onScreen.height() >= 64)
        options.size = onScreen;
    options.theme = chart->theme();
    options.scale = m_window ? qBound<qreal>(1, m_window->devicePixelRatioF(), 3) : 1;
    const QImage image = renderImage(*chart, options);
    if (image.isNull())
        return fail(
            tr("Copy Failed"),
            tr("Cannot allocate an image of %1 × %2 pixels").arg(options.size.width()).arg(options.size.height()));
    QGuiApplication::clipboard()->setImage(image);
    emit statusMessage(
        tr("Copied the %1 chart (%2 × %3 pixels)").arg(chart->id()).arg(image.width()).arg(image.height()));
}

void ExportActions::exportAllCharts()
{
    const QList<ChartBase *> charts = m_allCharts ? m_allCharts() : QList<ChartBase *>();
    if (charts.isEmpty()) {
        emit statusMessage(tr("There are no charts to export."));
        return;
    }
    ChartBase *current = m_currentChart ? m_currentChart() : nullptr;
    const QStringList formats = exportFormats();
    ExportDialog dialog(ExportDialog::AllCharts, QString(), rememberedFolder(), formats, m_window);
    dialog.setOptions(rememberedOptions(current ? current : charts.first()));
    dialog.setFormat(rememberedFormat(false, formats));
    if (dialog.exec() != QDialog::Accepted)
        return;
    QStringList written;
    QString error;
    if (!ui::exportAll(charts, dialog.path(), dialog.format(), dialog.options(), &written, &error))
        return fail(tr("Export Failed"),
                    written.isEmpty()
                        ? error
                        : tr("%1\n(%n file(s) were written before.)", nullptr, written.size()).arg(error));
    const QString unsaved = remember(dialog.format(), dialog.path(), dialog.options());
    emit statusMessage(withSettingsError(
        tr("Exported %n chart(s) into %1", nullptr, written.size()).arg(QDir::toNativeSeparators(dialog.path())),
        unsaved));
}

} // namespace memwall::ui
