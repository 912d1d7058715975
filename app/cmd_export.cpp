#include "cli.h"
#include "commands.h"

#include "core/analysis/analysis.h"
#include "core/analysis/assemble.h"
#include "core/util/oneline.h"
#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/document/scenariodocument.h"
#include "ui/export/chartexporter.h"
#include "ui/lessons/lessonhandout.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>

#include <iostream>
#include <memory>
#include <regex>

namespace memwall::app {

using namespace memwall::core;

namespace {

constexpr int kMinSide = 64;
constexpr int kMaxSide = 16384;

QSize parseSize(const std::string &text)
{
    static const std::regex pattern(R"(^\s*(\d{1,9})\s*[xX]\s*(\d{1,9})\s*$)");
    std::smatch m;
    if (!std::regex_match(text, m, pattern))
        throw UsageError("--size: expected WxH like 1920x1080, got '" + text + "'");
    const long w = std::stol(m[1]), h = std::stol(m[2]);
    if (w < kMinSide || w > kMaxSide || h < kMinSide || h > kMaxSide)
        throw UsageError("--size: width and height must be between " + std::to_string(kMinSide) + " and " +
                         std::to_string(kMaxSide) + ", got '" + text + "'");
    return {int(w), int(h)};
}

std::string joined(const QStringList &list) { return list.join(", ").toStdString(); }

/// A --title or --caption: at most kMaxExportTextLength characters.
QString exportText(const std::string &opt, const std::string &text)
{
    QString t = QString::fromStdString(text);
    if (t.size() > ui::kMaxExportTextLength)
        throw UsageError(opt + ": " + std::to_string(t.size()) + " characters; the limit is " +
                         std::to_string(ui::kMaxExportTextLength));
    return t;
}

/// The Qt platform of a headless command: always offscreen. It draws the same pixels whatever the environment says,
/// and a stale DISPLAY or QT_QPA_PLATFORM=xcb without a display would make Qt abort (issue #42).
void useOffscreen() { qputenv("QT_QPA_PLATFORM", "offscreen"); }

/// Keeps stderr to the one line the command promises: the offscreen platform warns about a missing
/// XDG_RUNTIME_DIR on every start, which says nothing about the export. Everything else passes through.
QtMessageHandler g_previousHandler = nullptr;
void quietHandler(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (type == QtWarningMsg && message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR")))
        return;
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}

/// Every export format's extension for a message: ".png, .svg, .pdf, .csv or .json".
std::string allExtensions()
{
    QStringList exts;
    for (const ui::ExportFormatInfo &f : ui::exportFormatList())
        exts << QStringLiteral(".") + QString::fromLatin1(f.id);
    const QString last = exts.takeLast();
    return (exts.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last).toStdString();
}

/// Starts the headless application an export paints in.
std::unique_ptr<QApplication> headlessApp()
{
    useOffscreen();
    g_previousHandler = qInstallMessageHandler(quietHandler);
    static int argc = 1;
    static char name[] = "memwall";
    static char *argv[] = {name, nullptr};
    return std::make_unique<QApplication>(argc, argv);
}

/// memwall export --lesson ID --out FILE.pdf [--questions-only | --answer-key] [--paper P] [--theme T]
int exportLesson(const CommandLine &cl, const std::string &id)
{
    for (const char *other : {"--chart", "--size", "--scale", "--title", "--caption", "--format"})
        if (cl.value(other))
            throw UsageError(std::string(other) + " does not apply to --lesson (a lesson's pages are 16:9 slides)");
    if (cl.hardware || cl.model || cl.modelConfig || cl.scenarioFile || !cl.overrides.empty())
        throw UsageError("--lesson: a lesson sets its own scenarios; leave out the scenario options");
    const auto outOpt = cl.value("--out");
    if (!outOpt || outOpt->empty())
        throw UsageError("--out FILE.pdf is required");
    const QString out = outputPath(*outOpt);
    if (QFileInfo(out).suffix().compare(QLatin1String("pdf"), Qt::CaseInsensitive) != 0)
        throw UsageError(*outOpt + ": a lesson is written as PDF; use a .pdf file name");
    ui::HandoutOptions options;
    options.answerKey = cl.extraFlags.count("--answer-key") > 0;
    options.questionsOnly = options.answerKey || cl.extraFlags.count("--questions-only") > 0;
    if (auto paper = cl.value("--paper")) {
        const QString p = QString::fromStdString(*paper).toLower();
        if (p != QLatin1String("a4") && p != QLatin1String("letter"))
            throw UsageError("--paper: '" + echoValue(*paper) + "' is not one of a4, letter");
        if (!options.questionsOnly)
            throw UsageError("--paper applies to --questions-only and --answer-key (a deck's pages are 16:9 slides)");
        options.paper = p == QLatin1String("a4") ? QPageSize::A4 : QPageSize::Letter;
    }
    if (auto theme = cl.value("--theme")) {
        const QString t = QString::fromStdString(*theme);
        if (!ui::Theme::ids().contains(t))
            throw UsageError("--theme: '" + echoValue(*theme) + "' is not one of " + joined(ui::Theme::ids()));
        options.theme = ui::Theme::byId(t);
    }
    const auto presets = loadPresets(cl);
    const auto app = headlessApp();
    const ui::LessonLoadResult loaded = ui::loadLessons(*presets);
    const ui::Lesson *lesson = ui::findLesson(loaded.lessons, QString::fromStdString(id));
    if (!lesson) {
        QStringList ids;
        for (const ui::Lesson &l : loaded.lessons)
            ids << l.id;
        std::string why = "--lesson: no lesson '" + echoValue(id) + "'; the lessons are " + joined(ids);
        if (!loaded.errors.isEmpty())
            why += " (skipped: " + loaded.errors.join("; ").toStdString() + ")";
        throw UsageError(why);
    }
    QString error;
    int pages = 0;
    if (!ui::writeLessonPdf(*lesson, presets, out, options, &error, &pages))
        throw InputError(error.toStdString());
    std::cout << oneLine(QDir::toNativeSeparators(out).toStdString()) << "\n";
    return 0;
}

} // namespace

int cmdExport(const CommandLine &cl)
{
    if (auto lesson = cl.value("--lesson"))
        return exportLesson(cl, *lesson);
    for (const char *flag : {"--questions-only", "--answer-key"})
        if (cl.extraFlags.count(flag) > 0)
            throw UsageError(std::string(flag) + " applies to --lesson");
    if (cl.value("--paper"))
        throw UsageError("--paper applies to --lesson");
    // Everything about the command line is checked before any work is done.
    const QStringList ids = ui::chartIds();
    const auto chartOpt = cl.value("--chart");
    if (!chartOpt)
        throw UsageError("--chart is required: " + joined(ids) + (ids.isEmpty() ? "all" : ", all"));
    const QString chartId = QString::fromStdString(*chartOpt);
    const bool all = chartId == QLatin1String("all");
    if (!all && !ids.contains(chartId))
        throw UsageError("--chart: '" + *chartOpt + "' is not a chart; use one of " + joined(ids) +
                         (ids.isEmpty() ? "all" : ", all"));
    const auto outOpt = cl.value("--out");
    if (!outOpt || outOpt->empty())
        throw UsageError(all ? "--out DIR is required" : "--out FILE is required (" + allExtensions() + ")");
    const QString out = outputPath(*outOpt);

    ui::ExportOptions options;
    if (auto size = cl.value("--size"))
        options.size = parseSize(*size);
    if (auto scale = cl.value("--scale"))
        options.scale = static_cast<qreal>(parseCount("--scale", *scale, 1, 4));
    if (auto theme = cl.value("--theme")) {
        const QString id = QString::fromStdString(*theme);
        if (!ui::Theme::ids().contains(id))
            throw UsageError("--theme: '" + echoValue(*theme) + "' is not one of " + joined(ui::Theme::ids()));
        options.theme = ui::Theme::byId(id);
    }
    if (auto title = cl.value("--title"))
        options.title = exportText("--title", *title);
    if (auto caption = cl.value("--caption"))
        options.caption = exportText("--caption", *caption);

    QString format = "png";
    if (auto f = cl.value("--format")) {
        if (!all)
            throw UsageError("--format applies to --chart all; a single chart takes its format from --out");
        format = QString::fromStdString(*f).toLower();
        if (!ui::exportFormats().contains(format))
            throw UsageError("--format: '" + echoValue(*f) + "' is not one of " + joined(ui::exportFormats()));
    }
    bool dataExport = false;
    if (!all) {
        const QString suffix = QFileInfo(out).suffix().toLower();
        dataExport = ui::isDataFormat(suffix);
        if (!dataExport && !ui::formatForPath(out))
            throw UsageError(suffix.isEmpty()
                                 ? *outOpt + ": no file extension; use " + allExtensions()
                                 : *outOpt + ": unknown file type '." + QFileInfo(out).suffix().toStdString() +
                                       "'; use " + allExtensions());
    }

    const auto presets = loadPresets(cl);
    // Given no scenario at all, the charts are the window's first ones: the start scenario (core::startScenario(),
    // the one rule both use), not tp 1's "does not fit".
    const bool noScenario = !cl.hardware && !cl.model && !cl.modelConfig && !cl.scenarioFile && cl.overrides.empty();
    const ScenarioFile file =
        noScenario ? core::startScenario(resolveScenario(cl, *presets)) : resolveScenario(cl, *presets);
    maybeSaveScenario(cl, file);

    const auto app = headlessApp();

    ui::ScenarioDocument doc(presets);
    doc.setFile(file, QString(), true);
    if (!doc.analysisError().isEmpty())
        throw AnalysisError(doc.analysisError().toStdString());

    std::vector<std::unique_ptr<ui::ChartBase>> charts;
    for (const QString &id : all ? ids : QStringList{chartId}) {
        charts.push_back(ui::createChart(id, &doc));
        if (!charts.back())
            throw UsageError("--chart: '" + id.toStdString() + "' cannot be created");
        charts.back()->refresh();
    }

    QString error;
    if (all) {
        QList<ui::ChartBase *> list;
        for (const auto &c : charts)
            list << c.get();
        QStringList written;
        const bool ok = ui::exportAll(list, out, format, options, &written, &error);
        for (const QString &path : written)
            std::cout << oneLine(QDir::toNativeSeparators(path).toStdString()) << "\n";
        if (!ok)
            throw InputError(error.toStdString());
        return 0;
    }
    const bool ok = dataExport ? ui::exportData(*charts.front(), out, &error)
                               : ui::exportChart(*charts.front(), out, options, &error);
    if (!ok)
        throw InputError(error.toStdString());
    std::cout << oneLine(QDir::toNativeSeparators(out).toStdString()) << "\n";
    return 0;
}

} // namespace memwall::app
