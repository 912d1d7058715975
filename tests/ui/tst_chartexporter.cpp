// Exports of every chart in every format and theme: the file exists, parses and has the requested size; bad paths
// give one exact line and write nothing.
#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/document/scenariodocument.h"
#include "ui/export/chartexporter.h"

#include "../testfiles.h"

#include <QChart>
#include <QDir>
#include <QFile>
#include <QGraphicsScene>
#include <QImage>
#include <QJsonDocument>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <memory>

using namespace memwall::ui;

namespace {

std::shared_ptr<memwall::core::PresetLibrary> builtinPresets()
{
    auto lib = std::make_shared<memwall::core::PresetLibrary>();
    lib->loadBuiltin();
    return lib;
}

/// A small chart of fixed data (log axes, two series, legend) so the exporter is exercised even before the real
/// charts exist; every real chart id from chartIds() is tested as well.
class ProbeChart : public ChartBase
{
public:
    explicit ProbeChart(ScenarioDocument *doc) : ChartBase(doc)
    {
        m_chart->setTitle("Probe: attainable FLOP/s against arithmetic intensity");
        auto *x = new QLogValueAxis;
        auto *y = new QLogValueAxis;
        x->setTitleText("FLOP per byte");
        y->setTitleText("FLOP/s");
        m_chart->addAxis(x, Qt::AlignBottom);
        m_chart->addAxis(y, Qt::AlignLeft);
        for (int s = 0; s < 2; ++s) {
            auto *series = new QLineSeries;
            series->setName(s == 0 ? "HBM" : "L2");
            m_chart->addSeries(series);
            series->attachAxis(x);
            series->attachAxis(y);
            m_series << series;
        }
        refresh();
    }
    QString id() const override { return "probe"; }
    QString title() const override { return m_chart->title(); }
    nlohmann::json data() const override
    {
        nlohmann::json series = nlohmann::json::array();
        for (QLineSeries *s : m_series) {
            nlohmann::json points = nlohmann::json::array();
            for (const QPointF &p : s->points())
                points.push_back({p.x(), p.y()});
            series.push_back({{"name", s->name().toStdString()}, {"points", points}});
        }
        return {{"series", series}};
    }
    QString csv() const override
    {
        QString out = "series,intensity_flop_per_byte,flops_per_s\n";
        for (QLineSeries *s : m_series)
            for (const QPointF &p : s->points())
                out += QString("%1,%2,%3\n").arg(s->name()).arg(p.x()).arg(p.y());
        return out;
    }
    void refresh() override
    {
        for (int s = 0; s < m_series.size(); ++s) {
            const double bw = s == 0 ? 3.35e12 : 12e12, peak = 989e12;
            QList<QPointF> pts;
            for (double i = 0.1; i <= 10000; i *= 1.5)
                pts << QPointF(i, std::min(peak, i * bw));
            m_series[s]->replace(pts);
        }
        m_chart->axes(Qt::Horizontal).first()->setRange(0.1, 10000);
        m_chart->axes(Qt::Vertical).first()->setRange(1e11, 2e15);
    }

protected:
    void restyle() override
    {
        for (int s = 0; s < m_series.size(); ++s) {
            QPen pen(theme().color(s));
            pen.setWidthF(theme().lineWidth);
            m_series[s]->setPen(pen);
        }
    }

private:
    QList<QLineSeries *> m_series;
};

QStringList testedChartIds() { return chartIds() << "probe"; }

std::unique_ptr<ChartBase> makeChart(const QString &id, ScenarioDocument *doc)
{
    if (id == "probe")
        return std::make_unique<ProbeChart>(doc);
    return createChart(id, doc);
}

/// The viewBox attribute of the root <svg> element, or an empty string.
QString svgViewBox(const QByteArray &svg, QString *xmlError)
{
    QXmlStreamReader xml(svg);
    QString viewBox;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg") && viewBox.isEmpty())
            viewBox = xml.attributes().value("viewBox").toString();
    }
    if (xml.hasError())
        *xmlError = xml.errorString();
    return viewBox;
}

} // namespace

class TestChartExporter : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // MEMWALL_TEST_KEEP_EXPORTS=DIR keeps the exported files there, to look at them.
        m_out = qEnvironmentVariable("MEMWALL_TEST_KEEP_EXPORTS", m_dir.path());
        QVERIFY(QDir().mkpath(m_out));
        m_doc = std::make_unique<ScenarioDocument>(builtinPresets());
    }

    void formatForPath_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("format"); // -1: none
        QTest::newRow("png") << "a/b.png" << int(ExportFormat::Png);
        QTest::newRow("upper-case SVG") << "slide.SVG" << int(ExportFormat::Svg);
        QTest::newRow("pdf") << "deck.v2.pdf" << int(ExportFormat::Pdf);
        QTest::newRow("jpeg is not offered") << "x.jpg" << -1;
        QTest::newRow("no extension") << "roofline" << -1;
        QTest::newRow("csv is data, not a picture") << "x.csv" << -1;
    }
    void formatForPath()
    {
        QFETCH(QString, path);
        QFETCH(int, format);
        const auto f = memwall::ui::formatForPath(path);
        QCOMPARE(f ? int(*f) : -1, format);
    }

    void exportEveryChart_data()
    {
        QTest::addColumn<QString>("chartId");
        QTest::addColumn<QString>("ext");
        QTest::addColumn<QString>("themeId");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("scale");
        for (const QString &id : testedChartIds())
            for (const QString ext : {"png", "svg", "pdf"})
                for (const QString &theme : Theme::ids()) {
                    // Vary size and scale across rows so no single size is special-cased.
                    const bool slide = theme == QLatin1String("presentation");
                    const QSize size =
                        slide ? QSize(1920, 1080) : (theme == "dark" ? QSize(1280, 720) : QSize(1600, 1000));
                    const int scale = (ext == "png" && theme == "dark") ? 2 : 1;
                    QTest::addRow("%s %s %s", qPrintable(id), qPrintable(ext), qPrintable(theme))
                        << id << QString(ext) << theme << size << scale;
                }
    }
    void exportEveryChart()
    {
        QFETCH(QString, chartId);
        QFETCH(QString, ext);
        QFETCH(QString, themeId);
        QFETCH(QSize, size);
        QFETCH(int, scale);

        std::unique_ptr<ChartBase> chart = makeChart(chartId, m_doc.get());
        QVERIFY(chart);
        QCOMPARE(chart->id(), chartId);
        const QString titleBefore = chart->title();

        ExportOptions options;
        options.size = size;
        options.scale = scale;
        options.theme = Theme::byId(themeId);
        options.caption = "MemWall test export";
        const QString path = QDir(m_out).filePath(QString("%1-%2.%3").arg(chartId, themeId, ext));
        QString error;
        QVERIFY2(exportChart(*chart, path, options, &error), qPrintable(error));
        QVERIFY(error.isEmpty());
        QVERIFY(QFileInfo::exists(path));
        const QByteArray bytes = testfiles::readAll(path);

        if (ext == "png") {
            QImage image;
            QVERIFY(image.loadFromData(bytes, "PNG"));
            QCOMPARE(image.size(), size * scale);
        } else if (ext == "svg") {
            QString xmlError;
            const QString viewBox = svgViewBox(bytes, &xmlError);
            QVERIFY2(xmlError.isEmpty(), qPrintable(xmlError));
            QCOMPARE(viewBox, QString("0 0 %1 %2").arg(size.width()).arg(size.height()));
            QSvgRenderer renderer(bytes);
            QVERIFY(renderer.isValid());
            QCOMPARE(renderer.viewBox(), QRect(QPoint(0, 0), size));
        } else {
            QVERIFY(bytes.startsWith("%PDF"));
            QVERIFY2(bytes.size() > 2000, qPrintable(QString::number(bytes.size())));
            QVERIFY(bytes.contains("%%EOF"));
            QCOMPARE(bytes.count("/Type /Page\n") + bytes.count("/Type /Page\r") + bytes.count("/Type /Page "), 1);
        }
        // The chart is handed back as it was: own theme and title.
        QCOMPARE(chart->theme().id, QString("light"));
        QCOMPARE(chart->title(), titleBefore);
    }

    void renderImageHasTheAskedPixels_data()
    {
        QTest::addColumn<QString>("chartId");
        for (const QString &id : testedChartIds())
            QTest::newRow(qPrintable(id)) << id;
    }
    void renderImageHasTheAskedPixels()
    {
        QFETCH(QString, chartId);
        std::unique_ptr<ChartBase> chart = makeChart(chartId, m_doc.get());
        ExportOptions options;
        options.size = QSize(640, 400);
        options.scale = 3;
        options.theme = Theme::dark();
        const QImage image = renderImage(*chart, options);
        QCOMPARE(image.size(), QSize(1920, 1200));
        QCOMPARE(image.devicePixelRatio(), 3.0);
        // The background is the theme's, not transparent: the top-left pixel is the dark theme's background.
        QCOMPARE(QColor(image.pixel(0, 0)).name(), Theme::dark().background.name());
    }

    void titleOverrideIsTemporary()
    {
        std::unique_ptr<ChartBase> chart = makeChart(testedChartIds().first(), m_doc.get());
        const QString before = chart->title();
        ExportOptions options;
        options.title = "For the lecture hall";
        const QString path = QDir(m_out).filePath("override.svg");
        QString error;
        QVERIFY2(exportChart(*chart, path, options, &error), qPrintable(error));
        QVERIFY(testfiles::readAll(path).contains("For the lecture hall"));
        QCOMPARE(chart->title(), before);
    }

    void chartInAViewIsHandedBack()
    {
        // A chart shown in a view lives in the view's scene; the export borrows it and puts it back as it was.
        std::unique_ptr<ChartBase> chart = makeChart("probe", m_doc.get());
        QGraphicsScene scene;
        scene.addItem(chart->chart());
        chart->chart()->setGeometry(QRectF(10, 20, 300, 200));
        ExportOptions options;
        options.size = QSize(1000, 700);
        options.theme = Theme::presentation();
        const QImage image = renderImage(*chart, options);
        QCOMPARE(image.size(), QSize(1000, 700));
        QCOMPARE(chart->chart()->scene(), &scene);
        QCOMPARE(chart->chart()->geometry(), QRectF(10, 20, 300, 200));
        QCOMPARE(chart->theme().id, QString("light"));
        scene.removeItem(chart->chart());
    }

    void badPathsWriteNothing_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected"); // %1 = the full path, %2 = its folder
        QTest::newRow("unknown extension") << "chart.jpg"
                                           << "%1: unknown picture type '.jpg'; use .png, .svg or .pdf";
        QTest::newRow("no extension") << "chart"
                                      << "%1: no file extension; use .png, .svg or .pdf";
        QTest::newRow("missing folder") << "no/such/folder/chart.png"
                                        << "%1: cannot write: folder '%2' does not exist";
        QTest::newRow("missing folder, pdf") << "nowhere/chart.pdf"
                                             << "%1: cannot write: folder '%2' does not exist";
    }
    void badPathsWriteNothing()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        std::unique_ptr<ChartBase> chart = makeChart(testedChartIds().first(), m_doc.get());
        QString error;
        QVERIFY(!exportChart(*chart, path, ExportOptions(), &error));
        QCOMPARE(error, QString(expected).replace("%1", path).replace("%2", QFileInfo(path).absolutePath()));
        QVERIFY(!error.contains('\n'));
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
    }

    void exportDataWritesCsvAndJson_data()
    {
        QTest::addColumn<QString>("chartId");
        for (const QString &id : testedChartIds())
            QTest::newRow(qPrintable(id)) << id;
    }
    void exportDataWritesCsvAndJson()
    {
        QFETCH(QString, chartId);
        std::unique_ptr<ChartBase> chart = makeChart(chartId, m_doc.get());
        QString error;
        const QString csvPath = QDir(m_out).filePath(chartId + ".csv");
        QVERIFY2(exportData(*chart, csvPath, &error), qPrintable(error));
        const QList<QByteArray> lines = testfiles::readAll(csvPath).split('\n');
        QVERIFY(lines.size() >= 2);
        const QByteArray header = lines.first();
        QVERIFY2(!header.isEmpty() && header.contains(','), header.constData());
        // A header names columns; it does not start with a number.
        QVERIFY2(!QChar::fromLatin1(header.at(0)).isDigit(), header.constData());

        const QString jsonPath = QDir(m_out).filePath(chartId + ".json");
        QVERIFY2(exportData(*chart, jsonPath, &error), qPrintable(error));
        QJsonParseError parseError;
        const QJsonDocument json = QJsonDocument::fromJson(testfiles::readAll(jsonPath), &parseError);
        QCOMPARE(parseError.error, QJsonParseError::NoError);
        QVERIFY(json.isObject() || json.isArray());
    }

    void exportDataRejectsPictureExtensions()
    {
        std::unique_ptr<ChartBase> chart = makeChart(testedChartIds().first(), m_doc.get());
        QTemporaryDir dir;
        const QString path = dir.filePath("data.png");
        QString error;
        QVERIFY(!exportData(*chart, path, &error));
        QCOMPARE(error, QString("%1: unknown data file type '.png'; use .csv or .json").arg(path));
        QVERIFY(!QFileInfo::exists(path));
    }

    void exportAllWritesOneFilePerChart_data()
    {
        QTest::addColumn<QString>("format");
        for (const QString &f : exportFormats())
            QTest::newRow(qPrintable(f)) << f;
    }
    void exportAllWritesOneFilePerChart()
    {
        QFETCH(QString, format);
        std::vector<std::unique_ptr<ChartBase>> owned;
        QList<ChartBase *> charts;
        for (const QString &id : testedChartIds()) {
            owned.push_back(makeChart(id, m_doc.get()));
            charts << owned.back().get();
        }
        QTemporaryDir dir;
        const QString folder = dir.filePath("deck"); // created on demand
        ExportOptions options;
        options.size = QSize(800, 500);
        QStringList written;
        QString error;
        QVERIFY2(exportAll(charts, folder, format, options, &written, &error), qPrintable(error));
        QStringList expected;
        for (const QString &id : testedChartIds())
            expected << QDir(folder).filePath(id + '.' + format);
        QCOMPARE(written, expected);
        for (const QString &path : written)
            QVERIFY2(QFileInfo(path).size() > 0, qPrintable(path));
    }

    void exportAllRejectsUnknownFormat()
    {
        QTemporaryDir dir;
        QStringList written;
        QString error;
        QVERIFY(!exportAll({}, dir.path(), "gif", ExportOptions(), &written, &error));
        QCOMPARE(error, QString("unknown export format 'gif'; use png, svg, pdf, csv, json"));
        QVERIFY(written.isEmpty());
    }

private:
    QTemporaryDir m_dir;
    QString m_out;
    std::unique_ptr<ScenarioDocument> m_doc;
};

QTEST_MAIN(TestChartExporter)
#include "tst_chartexporter.moc"
