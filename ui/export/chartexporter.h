#pragma once

#include "ui/settings/theme.h"

#include <QImage>
#include <QList>
#include <QSize>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <optional>
#include <span>

class QPainter;

namespace memwall::ui {

class ChartBase;

/// Longest title or caption an export takes, in characters: a slide's title is a line, and Qt's text layout of one
/// line grows with the square of its length (a 120,000-character title took 13.5 GB; issue #42).
inline constexpr int kMaxExportTextLength = 1000;

/// How a chart is exported. The chart is laid out at `size` logical pixels (the same layout a window of that size
/// shows); PNG multiplies the pixels by `scale`, SVG and PDF are vector and keep the layout.
struct ExportOptions
{
    QSize size{1600, 1000};
    qreal scale = 1; ///< PNG device-pixel multiplier (1, 2, 3; at most 4)
    Theme theme = Theme::light();
    QString title;   ///< replaces the chart's own title if not empty
    QString caption; ///< optional line under the chart (source, scenario, lecture name)
};

/// The picture formats; their values index exportFormatList().
enum class ExportFormat { Png, Svg, Pdf };

/// One export format: its id, which is also its file extension; whether it is the data behind the chart (CSV, JSON)
/// rather than a picture; and its name and tooltip in the export dialog (English, marked for translation in the
/// context "ExportDialog").
struct ExportFormatInfo
{
    const char *id;
    bool data;
    const char *label;
    const char *tip;
};

/// The one list of export formats, pictures first (png, svg, pdf, in ExportFormat's order), then data (csv, json).
/// The export dialog, exportAll(), the registry's charts and the messages that name formats all read it.
std::span<const ExportFormatInfo> exportFormatList();
/// The entry with that id (case-insensitive); nullptr for an unknown one.
const ExportFormatInfo *findExportFormat(const QString &id);
/// True for a data format (csv, json); false for a picture or an unknown id.
bool isDataFormat(const QString &format);
/// The extensions of the picture formats, or of the data formats, for a message: ".png, .svg or .pdf".
QString extensionChoices(bool data);

/// The picture format a file name asks for (by its extension, case-insensitive); nullopt for anything else.
std::optional<ExportFormat> formatForPath(const QString &path);
/// "png", "svg", "pdf".
QString extensionFor(ExportFormat format);

/// The size the chart is laid out at now (its view's size when shown); empty if it was never laid out.
QSize currentChartSize(ChartBase &chart);

/// The resolution text is laid out at (QFontMetrics without a device): the screen's logical DPI, 96 offscreen.
/// Vector devices are given the same resolution so that text is painted at the size it was laid out for.
int layoutDpi();
/// Writes `bytes` to `path` atomically (a failed write leaves no cut file and the old file as it was). False with one
/// line naming the path and the reason (folder missing, it is a folder, the disk refused the write or the flush).
bool writeAtomically(const QString &path, const QByteArray &bytes, QString *error);
/// The PDF page for a chart of `size` pixels, in points: the pixels at the resolution text is laid out at (96 dpi
/// offscreen), so fonts keep their point size (1600×1000 px → 1200×750 pt).
QSizeF pdfPageSize(const QSize &size);

/// The one painting path shared by the window, the clipboard and `memwall export`: lays the chart out at
/// `options.size` with `options.theme`, paints it (and the caption) into the rectangle (0, 0, size) of `painter`,
/// then restores the chart's size, title and theme. A chart shown in a view is borrowed and handed back unchanged.
void paintChart(ChartBase &chart, QPainter *painter, const ExportOptions &options);

/// The chart as an image of size × scale pixels with device-pixel ratio `scale` (for the clipboard and PNG).
/// A null image if that many pixels cannot be allocated.
QImage renderImage(ChartBase &chart, const ExportOptions &options);

/// Writes the chart as PNG, SVG or PDF (by the extension of `path`), atomically: nothing is written on failure.
/// False with a one-line `error` naming the path on failure (unknown extension, folder missing, cannot write).
bool exportChart(ChartBase &chart, const QString &path, const ExportOptions &options, QString *error);

/// Writes the data behind the chart as CSV (`chart.csv()`) or JSON (`chart.data()`), by the extension of `path`.
bool exportData(ChartBase &chart, const QString &path, QString *error);

/// "Export all charts…": one file per chart in `folder` (created if missing), named `<chart id>.<format>`;
/// `format` is png, svg, pdf, csv or json. Stops at the first failure; `written` lists the files written so far.
bool exportAll(const QList<ChartBase *> &charts, const QString &folder, const QString &format,
               const ExportOptions &options, QStringList *written, QString *error);

/// The ids of exportFormatList(), the formats exportAll() accepts: png, svg, pdf, csv, json.
QStringList exportFormats();

} // namespace memwall::ui
