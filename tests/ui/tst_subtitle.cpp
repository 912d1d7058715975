// Every chart and export says what it shows (issue #41 item 12): model, device, parallelism, batch and formats, in
// one subtitle built by one function (scenarioSubtitles()).
#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/document/scenariodocument.h"
#include "ui/document/scenariosubtitle.h"
#include "ui/export/chartexporter.h"

#include "uitest.h"

#include "core/model/dtype.h"

#include <QFile>
#include <QGraphicsTextItem>
#include <QTemporaryDir>
#include <QtTest>

using namespace memwall;

namespace {

/// A scenario away from every default, so that each field is seen to come from the document.
void setUp(ui::ScenarioDocument &doc)
{
    doc.setHardwareById(QStringLiteral("h100-sxm"));
    core::Scenario s = doc.scenario();
    s.tp = 2;
    s.batch = 48;
    s.weights = *core::weightFormatFromString("int8");
    s.kv = core::DType::FP8;
    doc.setScenario(s, QStringLiteral("setup"));
}

QStringList fields(const ui::ScenarioDocument &doc)
{
    return {QString::fromStdString(doc.model().name),
            QString::fromStdString(doc.hardware().name),
            QStringLiteral("TP 2"),
            QStringLiteral("48"),
            QStringLiteral("INT8"),
            QStringLiteral("FP8")};
}

} // namespace

class TestSubtitle : public QObject
{
    Q_OBJECT
private slots:
    void oneFunctionSaysEverything()
    {
        ui::ScenarioDocument doc(uitest::library());
        setUp(doc);
        const QStringList forms = ui::scenarioSubtitles(doc);
        QVERIFY(forms.size() >= 2);
        for (const QString &form : forms)
            for (const QString &f : fields(doc))
                QVERIFY2(form.contains(f), qPrintable(form + " lacks " + f));
        QCOMPARE(forms.front(),
                 QStringLiteral("%1 · %2 · TP 2 · batch 48 · weights INT8, KV FP8, activations FP16")
                     .arg(QString::fromStdString(doc.model().name), QString::fromStdString(doc.hardware().name)));
        core::Scenario s = doc.scenario();
        s.tp = 1;
        QVERIFY(ui::scenarioSubtitles(doc.model(), doc.hardware(), s).front().contains("1 device"));
    }

    void everyChartShowsIt_data()
    {
        QTest::addColumn<QString>("id");
        for (const QString &id : ui::chartIds())
            QTest::newRow(qPrintable(id)) << id;
    }
    void everyChartShowsIt()
    {
        QFETCH(QString, id);
        ui::ScenarioDocument doc(uitest::library());
        setUp(doc);
        const auto chart = ui::createChart(id, &doc);
        QVERIFY(chart);
        chart->chart()->resize(1600, 1000);
        chart->settle();
        QCoreApplication::processEvents();
        const QString shown = chart->subtitleItem()->text();
        QCOMPARE(chart->subtitle(), shown);
        for (const QString &f : fields(doc))
            QVERIFY2(shown.contains(f), qPrintable(shown + " lacks " + f));
        // It follows the document: a new batch is in it at once.
        core::Scenario s = doc.scenario();
        s.batch = 96;
        doc.setScenario(s, QStringLiteral("batch"));
        chart->settle();
        QVERIFY2(chart->subtitle().contains("96"), qPrintable(chart->subtitle()));
        // Inside the chart, above its plot.
        const QRectF box = chart->subtitleItem()->mapRectToParent(chart->subtitleItem()->boundingRect());
        QVERIFY(QRectF(QPointF(0, 0), chart->chart()->size()).contains(box));
        QVERIFY(box.bottom() <= chart->chart()->plotArea().top());
    }

    // An exported picture carries it: the SVG's text, and the PDF's (read back by pdftotext where it is installed).
    void exportsCarryIt()
    {
        ui::ScenarioDocument doc(uitest::library());
        setUp(doc);
        const auto chart = ui::createChart(QStringLiteral("memory"), &doc);
        QTemporaryDir dir;
        QString error;
        ui::ExportOptions o;
        QVERIFY2(ui::exportChart(*chart, dir.filePath("m.svg"), o, &error), qPrintable(error));
        QFile svg(dir.filePath("m.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(svg.readAll());
        for (const QString &f : fields(doc))
            QVERIFY2(text.contains(f.toHtmlEscaped()), qPrintable("the SVG lacks " + f));
        QVERIFY2(ui::exportChart(*chart, dir.filePath("m.pdf"), o, &error), qPrintable(error));
        const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
        if (pdftotext.isEmpty())
            QSKIP("pdftotext is not installed: the PDF's text was not read back");
        QProcess p;
        p.start(pdftotext, {dir.filePath("m.pdf"), QStringLiteral("-")});
        QVERIFY(p.waitForFinished(30000));
        const QString pdfText = QString::fromUtf8(p.readAllStandardOutput()).simplified();
        for (const QString &f : fields(doc))
            QVERIFY2(pdfText.contains(f), qPrintable("the PDF lacks " + f + ": " + pdfText.left(300)));
    }
};

QTEST_MAIN(TestSubtitle)
#include "tst_subtitle.moc"
