#include "ui/export/chartexporter.h"
#include "ui/util/folder.h"
#include "ui/util/savefile.h"

#include "ui/charts/chartbase.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsWidget>
#include <QPageLayout>
#include <QPageSize>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <QPainterPathStroker>
#include <QPdfWriter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QTextItem>

// The only Qt Charts header outside ui/charts/: ChartBase::chart() returns a QChart, and exporting needs it as the
// QGraphicsWidget it is (to lay it out in a scene of its own). Nothing else of Qt Charts is used here.
#include <QChart>

#include <cmath>
#include <string_view>

namespace memwall::ui {

namespace {

constexpr ExportFormatInfo kExportFormats[] = {
    {"png", false, QT_TRANSLATE_NOOP("ExportDialog", "PNG image"),
     QT_TRANSLATE_NOOP("ExportDialog", "A picture of exactly width × height × scale pixels, for slides and web pages")},
    {"svg", false, QT_TRANSLATE_NOOP("ExportDialog", "SVG drawing"),
     QT_TRANSLATE_NOOP("ExportDialog", "Vector drawing that stays sharp at any size (Inkscape, browsers, LaTeX)")},
    {"pdf", false, QT_TRANSLATE_NOOP("ExportDialog", "PDF page"),
     QT_TRANSLATE_NOOP("ExportDialog", "One vector page exactly the chart's size, for papers and handouts")},
    {"csv", true, QT_TRANSLATE_NOOP("ExportDialog", "Data as CSV"),
     QT_TRANSLATE_NOOP("ExportDialog", "The numbers behind the chart, one row per point, for a spreadsheet")},
    {"json", true, QT_TRANSLATE_NOOP("ExportDialog", "Data as JSON"),
     QT_TRANSLATE_NOOP("ExportDialog", "The numbers behind the chart as JSON, for scripts")},
};
static_assert(std::string_view(kExportFormats[int(ExportFormat::Png)].id) == "png" &&
                  std::string_view(kExportFormats[int(ExportFormat::Svg)].id) == "svg" &&
                  std::string_view(kExportFormats[int(ExportFormat::Pdf)].id) == "pdf",
              "ExportFormat's values index the picture formats of kExportFormats");

QGraphicsWidget *graphicsWidget(ChartBase &chart) { return chart.chart(); }

} // namespace

int layoutDpi()
{
    static const int dpi = [] {
        const int d = QImage(1, 1, QImage::Format_ARGB32_Premultiplied).logicalDpiY();
        return d > 0 ? d : 96;
    }();
    return dpi;
}

namespace {

QString chartTitle(ChartBase &chart, const ExportOptions &options)
{
    return options.title.isEmpty() ? chart.chart()->title() : options.title;
}

/// Height of the strip under the chart that holds the caption (0 without a caption).
qreal captionHeight(const ExportOptions &options)
{
    if (options.caption.isEmpty())
        return 0;
    return std::ceil(QFontMetricsF(options.theme.labelFont()).height() * 1.8);
}

/// Restores what paintChart() borrows, even if painting throws.
struct ChartBorrow
{
    ChartBase &chart;
    QGraphicsWidget *widget;
    QGraphicsScene *origin;
    QGraphicsScene scratch;
    QRectF geometry;
    QString title;
    Theme theme;

    explicit ChartBorrow(ChartBase &c)
        : chart(c), widget(graphicsWidget(c)), origin(widget->scene()), geometry(widget->geometry()),
          title(c.chart()->title()), theme(c.theme())
    {
        chart.settle(); // a chart in a hidden tab is suspended and may be behind the document
        // Painted alone: callouts, hover tooltips or a rubber band that a view put into its scene stay out.
        if (origin)
            origin->removeItem(widget);
        scratch.addItem(widget);
    }
    ~ChartBorrow()
    {
        scratch.removeItem(widget);
        chart.chart()->setTitle(title);
        chart.setTheme(theme);
        widget->setGeometry(geometry);
        if (origin)
            origin->addItem(widget);
        if (widget->layout())
            widget->layout()->activate();
    }
    ChartBorrow(const ChartBorrow &) = delete;
    ChartBorrow &operator=(const ChartBorrow &) = delete;
};

QString unknownPictureType(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix();
    if (suffix.isEmpty())
        return QObject::tr("%1: no file extension; use %2").arg(path, extensionChoices(false));
    return QObject::tr("%1: unknown picture type '.%2'; use %3").arg(path, suffix, extensionChoices(false));
}

/// One line naming the path if the folder it goes into is missing; empty when it exists.
QString missingFolder(const QString &path)
{
    const QDir dir = QFileInfo(path).absoluteDir();
    if (dir.exists())
        return {};
    return QObject::tr("%1: cannot write: folder '%2' does not exist").arg(path, QDir::toNativeSeparators(dir.path()));
}

} // namespace

bool writeAtomically(const QString &path, const QByteArray &bytes, QString *error)
{
    auto fail = [&](const QString &why) {
        if (error)
            *error = QObject::tr("%1: cannot write: %2").arg(path, why);
        return false;
    };
    if (const QString missing = missingFolder(path); !missing.isEmpty()) {
        if (error)
            *error = missing;
        return false;
    }
    if (QFileInfo(path).isDir())
        return fail(QObject::tr("it is a folder"));
    if (const QString why = saveAtomically(path, bytes); !why.isEmpty())
        return fail(why);
    return true;
}

namespace {

bool setError(QString *error, const QString &text)
{
    if (error)
        *error = text;
    return false;
}

/// QSvgGenerator (Qt 6.4) ignores clipping, so a ceiling that a chart clips to its plot area would run across the
/// whole SVG. This device sits in front of the generator and clips geometrically: drawing that lies inside the clip
/// passes through unchanged (text stays text), drawing that lies outside is dropped, and what crosses the clip edge
/// is cut to it (strokes become filled outlines, cut exactly). Text and images crossing the edge are kept whole.
class ClippingEngine : public QPaintEngine
{
public:
    explicit ClippingEngine(QPaintDevice *target) : QPaintEngine(QPaintEngine::AllFeatures), m_target(target) {}

    bool begin(QPaintDevice *) override
    {
        m_haveTransform = false;
        return m_inner.begin(m_target);
    }
    bool end() override { return m_inner.end(); }
    void updateState(const QPaintEngineState &) override {}
    Type type() const override { return QPaintEngine::User; }

    void drawPath(const QPainterPath &path) override
    {
        const QPen pen = painter()->pen();
        const QBrush brush = painter()->brush();
        sync();
        switch (classify(path.controlPointRect(), pen)) {
        case Outside: return;
        case Inside:
            m_inner.setPen(pen);
            m_inner.setBrush(brush);
            m_inner.drawPath(path);
            return;
        case Crossing: break;
        }
        const QPainterPath clip = painter()->clipPath();
        if (brush.style() != Qt::NoBrush)
            m_inner.fillPath(path.intersected(clip), brush);
        if (pen.style() == Qt::NoPen)
            return;
        // Stroke in device space (cosmetic pens have device widths), cut, and fill the outline.
        const QTransform t = painter()->combinedTransform();
        QPainterPathStroker stroker;
        const qreal scale = std::sqrt(std::abs(t.determinant()));
        const qreal width = pen.widthF() > 0 ? pen.widthF() : 1.0;
        stroker.setWidth(pen.isCosmetic() ? width : width * scale);
        stroker.setCapStyle(pen.capStyle());
        stroker.setJoinStyle(pen.joinStyle());
        stroker.setMiterLimit(pen.miterLimit());
        if (pen.style() == Qt::CustomDashLine)
            stroker.setDashPattern(pen.dashPattern());
        else
            stroker.setDashPattern(pen.style());
        stroker.setDashOffset(pen.dashOffset());
        const QPainterPath outline = stroker.createStroke(t.map(path)).intersected(t.map(clip));
        m_inner.setTransform(QTransform());
        m_inner.fillPath(outline, pen.brush());
        m_inner.setTransform(t);
    }

    void drawPolygon(const QPointF *points, int count, PolygonDrawMode mode) override
    {
        if (count < 2)
            return;
        QPainterPath path;
        path.moveTo(points[0]);
        for (int i = 1; i < count; ++i)
            path.lineTo(points[i]);
        if (mode == PolylineMode) {
            const QBrush brush = painter()->brush();
            painter()->setBrush(Qt::NoBrush);
            drawPath(path);
            painter()->setBrush(brush);
            return;
        }
        path.closeSubpath();
        path.setFillRule(mode == WindingMode ? Qt::WindingFill : Qt::OddEvenFill);
        drawPath(path);
    }

    void drawTextItem(const QPointF &p, const QTextItem &item) override
    {
        if (item.text().isEmpty()) {
            QPaintEngine::drawTextItem(p, item); // glyphs only: as outlines, through drawPath()
            return;
        }
        sync();
        const QRectF box(p.x(), p.y() - item.ascent(), item.width(), item.ascent() + item.descent());
        if (classify(box, QPen(Qt::NoPen)) == Outside)
            return;
        m_inner.setPen(painter()->pen());
        // The item's font (the painter's may be the default while a text layout draws), with every property marked
        // as set: a layout's font leaves the size "inherited", which setFont() would otherwise fill from the default.
        QFont font = item.font();
        font.setResolveMask(QFont::AllPropertiesResolved);
        m_inner.setFont(font);
        m_inner.drawText(p, item.text());
    }

    void drawPixmap(const QRectF &r, const QPixmap &pm, const QRectF &sr) override
    {
        sync();
        QRectF target = r, source = sr;
        if (!cutRect(&target, &source))
            return;
        m_inner.drawPixmap(target, pm, source);
    }

    void drawImage(const QRectF &r, const QImage &image, const QRectF &sr, Qt::ImageConversionFlags flags) override
    {
        sync();
        QRectF target = r, source = sr;
        if (!cutRect(&target, &source))
            return;
        m_inner.drawImage(target, image, source, flags);
    }

private:
    enum Relation { Inside, Outside, Crossing };

    /// Copies the outer painter's transform, opacity and hints to the generator's painter (only when changed, so
    /// the SVG does not get a group per primitive).
    void sync()
    {
        const QTransform t = painter()->combinedTransform();
        if (!m_haveTransform || t != m_transform) {
            m_inner.setTransform(t);
            m_transform = t;
            m_haveTransform = true;
        }
        m_inner.setOpacity(painter()->opacity());
        m_inner.setRenderHints(painter()->renderHints());
    }

    Relation classify(const QRectF &bounds, const QPen &pen) const
    {
        if (!painter()->hasClipping())
            return Inside;
        const QRectF clip = painter()->clipBoundingRect();
        const qreal pad = pen.style() == Qt::NoPen ? 0 : (pen.isCosmetic() ? 1 : pen.widthF());
        const QRectF area = bounds.adjusted(-pad, -pad, pad, pad);
        if (clip.contains(area) && painter()->clipPath().contains(area))
            return Inside;
        if (!clip.intersects(area))
            return Outside;
        return Crossing;
    }

    /// Cuts an image's target rectangle (and its source accordingly) to the clip; false if nothing is left.
    bool cutRect(QRectF *target, QRectF *source) const
    {
        if (!painter()->hasClipping())
            return true;
        const QRectF cut = target->intersected(painter()->clipBoundingRect());
        if (cut.isEmpty())
            return false;
        if (cut != *target && target->width() > 0 && target->height() > 0) {
            const qreal sx = source->width() / target->width(), sy = source->height() / target->height();
            *source = QRectF(source->x() + (cut.x() - target->x()) * sx, source->y() + (cut.y() - target->y()) * sy,
                             cut.width() * sx, cut.height() * sy);
            *target = cut;
        }
        return true;
    }

    QPaintDevice *m_target;
    QPainter m_inner;
    QTransform m_transform;
    bool m_haveTransform = false;
};

/// The paint device in front of a vector device that cannot clip; reports the target's metrics.
class ClippingDevice : public QPaintDevice
{
public:
    explicit ClippingDevice(QPaintDevice *target) : m_target(target), m_engine(target) {}
    QPaintEngine *paintEngine() const override { return &m_engine; }

protected:
    int metric(PaintDeviceMetric m) const override
    {
        switch (m) {
        case PdmWidth: return m_target->width();
        case PdmHeight: return m_target->height();
        case PdmWidthMM: return m_target->widthMM();
        case PdmHeightMM: return m_target->heightMM();
        case PdmNumColors: return m_target->colorCount();
        case PdmDepth: return m_target->depth();
        case PdmDpiX: return m_target->logicalDpiX();
        case PdmDpiY: return m_target->logicalDpiY();
        case PdmPhysicalDpiX: return m_target->physicalDpiX();
        case PdmPhysicalDpiY: return m_target->physicalDpiY();
        case PdmDevicePixelRatio: return m_target->devicePixelRatio();
        case PdmDevicePixelRatioScaled:
            return qRound(m_target->devicePixelRatioF() * QPaintDevice::devicePixelRatioFScale());
        }
        return 0;
    }

private:
    QPaintDevice *m_target;
    mutable ClippingEngine m_engine;
};

QByteArray renderSvg(ChartBase &chart, const ExportOptions &options)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(options.size);
    svg.setViewBox(QRect(QPoint(0, 0), options.size));
    svg.setResolution(layoutDpi());
    // QSvgGenerator writes its title and description into the XML as given: escaped here, a title such as
    // "R&D: latency < 5 ms" would make the file malformed and "<script>" would land as markup.
    svg.setTitle(chartTitle(chart, options).toHtmlEscaped());
    svg.setDescription((options.caption.isEmpty() ? QObject::tr("MemWall chart '%1'").arg(chart.id()) : options.caption)
                           .toHtmlEscaped());
    ClippingDevice clipping(&svg);
    QPainter painter(&clipping);
    paintChart(chart, &painter, options);
    painter.end();
    return buffer.data();
}

QByteArray renderPdf(ChartBase &chart, const ExportOptions &options, QString *error)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter pdf(&buffer);
    const int dpi = layoutDpi();
    pdf.setResolution(dpi);
    pdf.setCreator(QStringLiteral("MemWall"));
    pdf.setTitle(chartTitle(chart, options));
    // One page exactly the chart's size: the pixel size at the layout resolution, in points (1600×1000 px at 96 dpi
    // is 1200×750 pt), so that text keeps the point size the theme gives it.
    const QSizeF points = pdfPageSize(options.size);
    const QPageLayout layout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
                             QPageLayout::Portrait, QMarginsF(0, 0, 0, 0), QPageLayout::Point);
    if (!pdf.setPageLayout(layout)) {
        setError(error,
                 QObject::tr("cannot set up a PDF page of %1×%2 points").arg(points.width()).arg(points.height()));
        return {};
    }
    QPainter painter;
    if (!painter.begin(&pdf)) {
        setError(error, QObject::tr("cannot start a PDF"));
        return {};
    }
    // The page in device units may differ from the pixel size by rounding; map the layout onto it exactly.
    const QRect page = pdf.pageLayout().paintRectPixels(pdf.resolution());
    painter.scale(page.width() / qreal(options.size.width()), page.height() / qreal(options.size.height()));
    paintChart(chart, &painter, options);
    painter.end();
    return buffer.data();
}

} // namespace

std::span<const ExportFormatInfo> exportFormatList() { return kExportFormats; }

const ExportFormatInfo *findExportFormat(const QString &id)
{
    for (const ExportFormatInfo &f : kExportFormats)
        if (id.compare(QLatin1String(f.id), Qt::CaseInsensitive) == 0)
            return &f;
    return nullptr;
}

bool isDataFormat(const QString &format)
{
    const ExportFormatInfo *f = findExportFormat(format);
    return f && f->data;
}

QString extensionChoices(bool data)
{
    QStringList extensions;
    for (const ExportFormatInfo &f : kExportFormats)
        if (f.data == data)
            extensions << QStringLiteral(".%1").arg(QLatin1String(f.id));
    const QString last = extensions.takeLast();
    return extensions.isEmpty() ? last : QObject::tr("%1 or %2").arg(extensions.join(", "), last);
}

std::optional<ExportFormat> formatForPath(const QString &path)
{
    const ExportFormatInfo *f = findExportFormat(QFileInfo(path).suffix());
    if (!f || f->data)
        return std::nullopt;
    return static_cast<ExportFormat>(f - kExportFormats);
}

QSize currentChartSize(ChartBase &chart)
{
    const QSizeF s = graphicsWidget(chart)->size();
    return s.width() >= 1 && s.height() >= 1 ? s.toSize() : QSize();
}

QSizeF pdfPageSize(const QSize &size) { return QSizeF(size) * (72.0 / layoutDpi()); }

QString extensionFor(ExportFormat format) { return QLatin1String(kExportFormats[static_cast<std::size_t>(format)].id); }

QStringList exportFormats()
{
    QStringList ids;
    for (const ExportFormatInfo &f : kExportFormats)
        ids << QLatin1String(f.id);
    return ids;
}

void paintChart(ChartBase &chart, QPainter *painter, const ExportOptions &options)
{
    const QSizeF size(options.size);
    const qreal strip = captionHeight(options);
    const QRectF chartRect(0, 0, size.width(), size.height() - strip);

    ChartBorrow borrow(chart);
    chart.setTheme(options.theme);
    if (!options.title.isEmpty()) // a chart's title is rich text: the user's is shown as typed, never as markup
        chart.chart()->setTitle(options.title.toHtmlEscaped());
    borrow.widget->setGeometry(chartRect);
    // Twice: laying out at the new size can change what the legend holds (short names where the full ones do not
    // fit in a row), which asks for one more pass; the window gets it from its event loop, the export here.
    for (int pass = 0; pass < 2 && borrow.widget->layout(); ++pass) {
        borrow.widget->layout()->activate();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest); // the legend lays itself out so
    }

    painter->save();
    painter->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    painter->fillRect(QRectF(QPointF(0, 0), size), options.theme.background);
    borrow.scratch.render(painter, chartRect, chartRect, Qt::IgnoreAspectRatio);

    if (strip > 0) {
        const QFont font = options.theme.labelFont();
        const QFontMetricsF metrics(font);
        const qreal margin = std::max<qreal>(12, metrics.averageCharWidth() * 2);
        const QRectF box(margin, chartRect.bottom(), size.width() - 2 * margin, strip);
        QColor ink = options.theme.foreground;
        ink.setAlphaF(0.8);
        painter->setFont(font);
        painter->setPen(ink);
        painter->drawText(box, Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(options.caption, Qt::ElideRight, box.width()));
    }
    painter->restore();
}

QImage renderImage(ChartBase &chart, const ExportOptions &options)
{
    const qreal scale = std::clamp<qreal>(options.scale, 1, 4);
    const QSize pixels(qRound(options.size.width() * scale), qRound(options.size.height() * scale));
    QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return image;
    image.setDevicePixelRatio(scale);
    image.fill(options.theme.background);
    {
        QPainter painter(&image);
        paintChart(chart, &painter, options);
    }
    // Tell viewers that honour PNG's pHYs (office suites) the logical size: ×2 pixels at twice the density.
    const int dpm = qRound(layoutDpi() * scale / 0.0254);
    image.setDotsPerMeterX(dpm);
    image.setDotsPerMeterY(dpm);
    return image;
}

bool exportChart(ChartBase &chart, const QString &path, const ExportOptions &options, QString *error)
{
    const std::optional<ExportFormat> format = formatForPath(path);
    if (!format)
        return setError(error, unknownPictureType(path));
    if (const QString missing = missingFolder(path); !missing.isEmpty())
        return setError(error, missing);
    if (options.size.width() < 1 || options.size.height() < 1)
        return setError(
            error,
            QObject::tr("%1: the size %2×%3 is empty").arg(path).arg(options.size.width()).arg(options.size.height()));

    QByteArray bytes;
    switch (*format) {
    case ExportFormat::Png: {
        const QImage image = renderImage(chart, options);
        if (image.isNull())
            return setError(error, QObject::tr("%1: cannot allocate an image of %2×%3 pixels")
                                       .arg(path)
                                       .arg(qRound(options.size.width() * options.scale))
                                       .arg(qRound(options.size.height() * options.scale)));
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!image.save(&buffer, "PNG"))
            return setError(error, QObject::tr("%1: cannot encode PNG").arg(path));
        break;
    }
    case ExportFormat::Svg: bytes = renderSvg(chart, options); break;
    case ExportFormat::Pdf: {
        QString why;
        bytes = renderPdf(chart, options, &why);
        if (bytes.isEmpty())
            return setError(error, QObject::tr("%1: %2").arg(path, why.isEmpty() ? QObject::tr("empty PDF") : why));
        break;
    }
    }
    return writeAtomically(path, bytes, error);
}

bool exportData(ChartBase &chart, const QString &path, QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    chart.settle();
    QByteArray bytes;
    if (suffix == QLatin1String("csv")) {
        bytes = chart.csv().toUtf8();
    } else if (suffix == QLatin1String("json")) {
        bytes = QByteArray::fromStdString(chart.data().dump(2));
    } else if (suffix.isEmpty()) {
        return setError(error, QObject::tr("%1: no file extension; use %2").arg(path, extensionChoices(true)));
    } else {
        return setError(error, QObject::tr("%1: unknown data file type '.%2'; use %3")
                                   .arg(path, QFileInfo(path).suffix(), extensionChoices(true)));
    }
    if (!bytes.endsWith('\n'))
        bytes.append('\n');
    return writeAtomically(path, bytes, error);
}

bool exportAll(const QList<ChartBase *> &charts, const QString &folder, const QString &format,
               const ExportOptions &options, QStringList *written, QString *error)
{
    const QString ext = format.toLower();
    if (!exportFormats().contains(ext))
        return setError(error,
                        QObject::tr("unknown export format '%1'; use %2").arg(format, exportFormats().join(", ")));
    if (folder.isEmpty())
        return setError(error, QObject::tr("no folder given"));
    const QFileInfo info(folder);
    if (info.exists() && !info.isDir())
        return setError(error, QObject::tr("%1: cannot write: not a folder").arg(folder));
    if (const QString why = createFolder(folder); !why.isEmpty())
        return setError(error, QObject::tr("%1: cannot write: cannot create the folder: %2").arg(folder, why));
    const QDir dir(folder);
    for (ChartBase *chart : charts) {
        if (!chart)
            continue;
        const QString path = dir.filePath(chart->id() + '.' + ext);
        const bool ok = isDataFormat(ext) ? exportData(*chart, path, error) : exportChart(*chart, path, options, error);
        if (!ok)
            return false;
        if (written)
            written->append(path);
    }
    return true;
}

} // namespace memwall::ui
