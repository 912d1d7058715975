// `memwall export`, run as a process: the picture has the asked size, bad options are one line and exit 2,
// `--chart all` writes one file per chart. Needs no display (the command picks the offscreen platform itself).
#include "../runmemwall.h"
#include "../testfiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <sys/stat.h>

namespace {

using testprocess::Run;

/// Width and height from a PNG's IHDR chunk (this suite links QtCore only, so no QImage); {-1, -1} if not a PNG.
QSize pngSize(const QByteArray &png)
{
    if (png.size() < 24 || !png.startsWith("\x89PNG\r\n\x1a\n") || png.mid(12, 4) != "IHDR")
        return {-1, -1};
    auto be32 = [&](int at) {
        return (uchar(png[at]) << 24) | (uchar(png[at + 1]) << 16) | (uchar(png[at + 2]) << 8) | uchar(png[at + 3]);
    };
    return {int(be32(16)), int(be32(20))};
}

} // namespace

class TestCliExport : public QObject
{
    Q_OBJECT

    QString m_exe;

    Run memwall(const QStringList &args, bool headless = true, qint64 fileSizeCap = 0)
    {
        return testprocess::runMemwall(QStringList{"export"} + args, headless, fileSizeCap);
    }

    /// The chart ids the binary offers, from its own error message for an unknown chart.
    QStringList chartIds()
    {
        const Run r = memwall({"--chart", "nonsense", "--out", "x.png"});
        const QByteArray marker = "use one of ";
        const int at = r.err.indexOf(marker);
        if (at < 0)
            return {};
        QStringList ids = QString::fromUtf8(r.err.mid(at + marker.size()).trimmed()).split(", ");
        ids.removeAll("all");
        return ids;
    }

private slots:
    void initTestCase()
    {
        m_exe = qEnvironmentVariable("MEMWALL_MEMWALL_EXE");
        QVERIFY2(!m_exe.isEmpty(), "MEMWALL_MEMWALL_EXE is not set (run through ctest)");
        QVERIFY2(QFileInfo(m_exe).isExecutable(), qPrintable(m_exe));
    }

    void unknownChartListsTheValidIds()
    {
        const Run r = memwall({"--chart", "nonsense", "--out", "x.png"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.startsWith("memwall export: --chart: 'nonsense' is not a chart; use one of "),
                 r.err.constData());
        QVERIFY2(r.err.trimmed().endsWith("all"), r.err.constData());
    }

    void rooflinePngHasTheAskedSize()
    {
        QVERIFY(chartIds().contains("roofline"));
        QTemporaryDir dir;
        const QString path = dir.filePath("roofline.png");
        const Run r = memwall({"--chart", "roofline", "--out", path, "--size", "800x600"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out, (QDir::toNativeSeparators(path) + "\n").toUtf8());
        QCOMPARE(pngSize(testfiles::readAll(path)), QSize(800, 600));
    }

    void scaleMultipliesThePixels()
    {
        const QStringList ids = chartIds();
        QVERIFY(!ids.isEmpty());
        QTemporaryDir dir;
        const QString path = dir.filePath("chart.png");
        const Run r = memwall({"--chart", ids.first(), "--out", path, "--size", "640x360", "--scale", "3", "--theme",
                               "presentation", "--title", "Slide 3", "--caption", "Source: MemWall"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(pngSize(testfiles::readAll(path)), QSize(1920, 1080));
    }

    void svgHasTheAskedViewBox()
    {
        const QStringList ids = chartIds();
        QVERIFY(!ids.isEmpty());
        QTemporaryDir dir;
        const QString path = dir.filePath("chart.svg");
        const Run r = memwall({"--chart", ids.last(), "--out", path, "--size", "1920x1080", "--theme", "dark"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QXmlStreamReader xml(testfiles::readAll(path));
        QString viewBox;
        while (!xml.atEnd())
            if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg"))
                viewBox = xml.attributes().value("viewBox").toString();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(viewBox, QString("0 0 1920 1080"));
    }

    // A lesson as a deck and as a question handout: a PDF with one page per step (the lesson's steps, counted from
    // its own file), written atomically; bad combinations are one line and exit 2.
    void lessonDeckAndHandout_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::newRow("deck") << QStringList{};
        QTest::newRow("handout") << QStringList{"--questions-only"};
        QTest::newRow("handout on letter") << QStringList{"--questions-only", "--paper", "letter"};
        QTest::newRow("answer key") << QStringList{"--answer-key"};
    }
    void lessonDeckAndHandout()
    {
        QFETCH(QStringList, flags);
        QFile lesson(QStringLiteral(MEMWALL_SOURCE_DIR) + "/resources/lessons/02-decode-and-batch.json");
        QVERIFY(lesson.open(QIODevice::ReadOnly));
        const QByteArray json = lesson.readAll();
        const int steps = static_cast<int>(json.count("\"chart\":"));
        QVERIFY(steps >= 3);
        // the handout and its key: up to three questions a page (the key nine), fewer when a question and its
        // writing room do not fit (tst_lessonhandout checks the geometry), on portrait paper
        const int questions = static_cast<int>(json.count("\"question\":"));
        const bool key = flags.contains("--answer-key");
        const int fewest = flags.isEmpty() ? steps : (questions + (key ? 8 : 2)) / (key ? 9 : 3);
        const int most = flags.isEmpty() ? steps : key ? (questions + 2) / 3 : questions;
        QTemporaryDir dir;
        const QString path = dir.filePath("lesson.pdf");
        const Run r = memwall(QStringList{"--lesson", "decode-and-batch", "--out", path} + flags);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out, (QDir::toNativeSeparators(path) + "\n").toUtf8());
        const QByteArray pdf = testfiles::readAll(path);
        QVERIFY(pdf.startsWith("%PDF-"));
        static const QRegularExpression page(R"(/Type\s*/Page[^s])");
        const int pages = static_cast<int>(QString::fromLatin1(pdf).count(page));
        QVERIFY2(pages >= fewest && pages <= most, qPrintable(QString::number(pages)));
        // A4 portrait is 595 x 842 points, Letter 612 x 792; the deck's slides are wider than high
        static const QRegularExpression box(R"(/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\])");
        const QRegularExpressionMatch m = box.match(QString::fromLatin1(pdf));
        QVERIFY(m.hasMatch());
        const double w = m.captured(1).toDouble(), h = m.captured(2).toDouble();
        if (flags.isEmpty())
            QVERIFY(w > h);
        else if (flags.contains("letter"))
            QVERIFY(qAbs(w - 612) < 1 && qAbs(h - 792) < 1);
        else
            QVERIFY2(qAbs(w - 595) < 1 && qAbs(h - 842) < 1, qPrintable(m.captured(0)));
    }

    void lessonOptionsAreChecked_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown lesson") << QStringList{"--lesson", "nope", "--out", "%1/x.pdf"}
                                        << "memwall export: --lesson: no lesson 'nope'; the lessons are roofline, ";
        QTest::newRow("not pdf") << QStringList{"--lesson", "roofline", "--out", "%1/x.png"}
                                 << "memwall export: %1/x.png: a lesson is written as PDF; use a .pdf file name";
        QTest::newRow("bad paper") << QStringList{"--lesson", "roofline", "--questions-only", "--paper",
                                                  "a3",       "--out",    "%1/x.pdf"}
                                   << "memwall export: --paper: 'a3' is not one of a4, letter";
        QTest::newRow("scenario") << QStringList{"--lesson", "roofline", "--model", "gpt2", "--out", "%1/x.pdf"}
                                  << "memwall export: --lesson: a lesson sets its own scenarios";
        QTest::newRow("chart too") << QStringList{"--lesson", "roofline", "--chart", "memory", "--out", "%1/x.pdf"}
                                   << "memwall export: --chart does not apply to --lesson";
        QTest::newRow("questions without lesson")
            << QStringList{"--chart", "memory", "--questions-only", "--out", "%1/x.png"}
            << "memwall export: --questions-only applies to --lesson";
    }
    void lessonOptionsAreChecked()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        for (QString &a : args)
            a.replace("%1", dir.path());
        const Run r = memwall(args);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(QString::fromUtf8(r.err).startsWith(message.arg(dir.path())), r.err.constData());
        QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
    }

    void badOptionsAreOneLineAndExit2_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("size without x") << QStringList{"--chart", "CHART", "--out", "a.png", "--size", "1920"}
                                        << "memwall export: --size: expected WxH like 1920x1080, got '1920'";
        QTest::newRow("size with letters") << QStringList{"--chart", "CHART", "--out", "a.png", "--size", "wide"}
                                           << "memwall export: --size: expected WxH like 1920x1080, got 'wide'";
        QTest::newRow("size too small") << QStringList{"--chart", "CHART", "--out", "a.png", "--size", "63x600"}
                                        << "memwall export: --size: width and height must be between 64 and 16384, "
                                           "got '63x600'";
        QTest::newRow("size too large") << QStringList{"--chart", "CHART", "--out", "a.png", "--size", "800x16385"}
                                        << "memwall export: --size: width and height must be between 64 and 16384, "
                                           "got '800x16385'";
        QTest::newRow("scale 5") << QStringList{"--chart", "CHART", "--out", "a.png", "--scale", "5"}
                                 << "memwall export: --scale: must be between 1 and 4, got 5";
        QTest::newRow("scale not a number") << QStringList{"--chart", "CHART", "--out", "a.png", "--scale", "2x"}
                                            << "memwall export: --scale: '2x' is not a whole number";
        QTest::newRow("theme") << QStringList{"--chart", "CHART", "--out", "a.png", "--theme", "neon"}
                               << "memwall export: --theme: 'neon' is not one of light, dark, presentation";
        QTest::newRow("extension") << QStringList{"--chart", "CHART", "--out", "a.gif"}
                                   << "memwall export: a.gif: unknown file type '.gif'; use .png, .svg, .pdf, .csv "
                                      "or .json";
        QTest::newRow("no extension")
            << QStringList{"--chart", "CHART", "--out", "slide"}
            << "memwall export: slide: no file extension; use .png, .svg, .pdf, .csv or .json";
        QTest::newRow("no --out") << QStringList{"--chart", "CHART"}
                                  << "memwall export: --out FILE is required (.png, .svg, .pdf, .csv or .json)";
        QTest::newRow("format for one chart") << QStringList{"--chart", "CHART", "--out", "a.png", "--format", "svg"}
                                              << "memwall export: --format applies to --chart all; a single chart "
                                                 "takes its format from --out";
        QTest::newRow("format unknown") << QStringList{"--chart", "all", "--out", "deck", "--format", "gif"}
                                        << "memwall export: --format: 'gif' is not one of png, svg, pdf, csv, json";
        QTest::newRow("unknown option") << QStringList{"--chart", "CHART", "--out", "a.png", "--dpi", "300"}
                                        << "memwall export: unknown option '--dpi' (try --help)";
    }
    void badOptionsAreOneLineAndExit2()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const QStringList ids = chartIds();
        QVERIFY(!ids.isEmpty());
        args.replaceInStrings(QRegularExpression("^CHART$"), ids.first());
        QTemporaryDir dir; // run inside an empty folder: nothing may appear there
        const QString cwd = QDir::currentPath();
        QDir::setCurrent(dir.path());
        const Run r = memwall(args);
        QDir::setCurrent(cwd);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(QString::fromUtf8(r.err), expected + "\n");
        QVERIFY(r.out.isEmpty());
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
    }

    void writeThatDoesNotFitFailsAndKeepsTheOldFile_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("file");
        QTest::newRow("memory chart as CSV") << QStringList{"--chart", "memory"} << "r.csv";
        QTest::newRow("roofline as JSON") << QStringList{"--chart", "roofline"} << "r.json";
        QTest::newRow("roofline as SVG") << QStringList{"--chart", "roofline"} << "r.svg";
        QTest::newRow("roofline as PNG") << QStringList{"--chart", "roofline"} << "r.png";
        QTest::newRow("roofline as PDF") << QStringList{"--chart", "roofline"} << "r.pdf";
        QTest::newRow("all charts as CSV") << QStringList{"--chart", "all", "--format", "csv"} << "roofline.csv";
    }
    void writeThatDoesNotFitFailsAndKeepsTheOldFile()
    {
        // A 128-byte file-size cap stands for a full disk: every export is larger, so every write fails.
        // The command must say so (exit 1, one line naming the file and the system's reason) and leave the old
        // file as it was, never a cut or empty one behind a success.
        QFETCH(QStringList, args);
        QFETCH(QString, file);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(file);
        {
            QFile old(path);
            QVERIFY(old.open(QIODevice::WriteOnly));
            old.write("OLD CONTENT\n");
        }
        const bool all = args.contains("all");
        const Run r = memwall(args + QStringList{"--out", all ? dir.path() : path}, true, 128);
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains("File too large"), r.err.constData());
        QVERIFY2(r.err.contains(QFile::encodeName(dir.path())), r.err.constData());
        QCOMPARE(testfiles::readAll(path), QByteArray("OLD CONTENT\n"));
        // No temporary file is left behind either.
        for (const QString &name : QDir(dir.path()).entryList(QDir::Files))
            QVERIFY2(!name.contains(".new") && !name.contains("XXXX") && !name.startsWith("qt_temp"), qPrintable(name));
    }

    // Issue #41 item 13: given no scenario, `export` draws the window's start scenario (core::startScenario()):
    // Llama 2 70B's 138 GB of FP16 weights do not fit one 80 GB H100 (tp 1) and fit two (69 GB each), so tp 2, as
    // the window opens; a scenario given on the command line is taken as given.
    void noScenarioExportsTheWindowsStart()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString saved = dir.filePath("start.memwall.json");
        Run r = memwall({"--chart", "memory", "--out", dir.filePath("m.json"), "--save-scenario", saved});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QJsonObject scenario = QJsonDocument::fromJson(testfiles::readAll(saved)).object();
        QCOMPARE(scenario.value("hardware").toString(), QStringLiteral("h100-sxm"));
        QCOMPARE(scenario.value("model").toString(), QStringLiteral("llama-2-70b"));
        QCOMPARE(scenario.value("scenario").toObject().value("tp").toInt(), 2);
        r = memwall({"--chart", "memory", "--out", dir.filePath("m1.json"), "--tp", "1", "--save-scenario", saved});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        scenario = QJsonDocument::fromJson(testfiles::readAll(saved)).object();
        QCOMPARE(scenario.value("scenario").toObject().value("tp").toInt(1), 1);
    }

    void fifoAsOutputIsRefused()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("pipe.csv");
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        const Run r = memwall({"--chart", "memory", "--out", path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("not a regular file"), r.err.constData());
        QVERIFY(QFileInfo(path).exists() && !QFileInfo(path).isFile()); // still the FIFO
    }

    void unwritableOutputExits1()
    {
        const QStringList ids = chartIds();
        QVERIFY(!ids.isEmpty());
        QTemporaryDir dir;
        const QString path = dir.filePath("missing/folder/chart.pdf");
        const Run r = memwall({"--chart", ids.first(), "--out", path});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(QString::fromUtf8(r.err), QString("memwall: %1: cannot write: folder '%2' does not exist\n")
                                               .arg(path, QDir::toNativeSeparators(QFileInfo(path).absolutePath())));
        QVERIFY(!QFileInfo::exists(path));
    }

    void allChartsWriteOneFileEach_data()
    {
        QTest::addColumn<QString>("format"); // empty: the default, png
        QTest::newRow("default png") << QString();
        QTest::newRow("pdf") << "pdf";
        QTest::newRow("csv") << "csv";
    }
    void allChartsWriteOneFileEach()
    {
        QFETCH(QString, format);
        const QStringList ids = chartIds();
        QVERIFY(!ids.isEmpty());
        QTemporaryDir dir;
        const QString folder = dir.filePath("slides");
        QStringList args{"--chart", "all", "--out", folder, "--size", "1280x720", "--theme", "presentation"};
        if (!format.isEmpty())
            args << "--format" << format;
        const Run r = memwall(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString ext = format.isEmpty() ? "png" : format;
        QStringList expectedFiles, expectedOut;
        for (const QString &id : ids) {
            expectedFiles << id + '.' + ext;
            expectedOut << QDir::toNativeSeparators(QDir(folder).filePath(id + '.' + ext));
        }
        QCOMPARE(QString::fromUtf8(r.out), expectedOut.join('\n') + '\n');
        QStringList files = QDir(folder).entryList(QDir::Files);
        files.sort();
        expectedFiles.sort();
        QCOMPARE(files, expectedFiles);
        for (const QString &f : files) {
            const QByteArray bytes = testfiles::readAll(QDir(folder).filePath(f));
            if (ext == "png")
                QCOMPARE(pngSize(bytes), QSize(1280, 720));
            else if (ext == "pdf")
                QVERIFY(bytes.startsWith("%PDF"));
            else
                QVERIFY(bytes.contains(','));
        }
    }

    void helpExits0()
    {
        const Run r = memwall({"--help"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("--chart all"));
        QVERIFY(r.err.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliExport)
#include "tst_cli_export.moc"
