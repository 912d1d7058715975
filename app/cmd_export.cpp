#include "cli.h"
#include "commands.h"

#include "analysis/analysis.h"
#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/document/scenariodocument.h"
#include "ui/export/chartexporter.h"

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

std::string joined(const QStringList &list)
{
    return list.join(", ").toStdString();
}

/// The Qt platform for a headless command: offscreen unless a display is there or the user chose one.
void preferOffscreen()
{
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
        !qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

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

const char *kExportUsage =
    "usage: memwall export [scenario] --chart NAME --out FILE [--size WxH] [--scale N] [--theme T]\n"
    "                      [--title TEXT] [--caption TEXT]\n"
    "       memwall export [scenario] --chart all --out DIR [--format png|svg|pdf|csv|json] [...]\n"
    "Draws one chart of the scenario, exactly as the window does, into a picture or a data file; needs no display.\n\n"
    "export:\n";
// The options after --chart, whose line (chartHelpLine()) names the registry's charts.
const char *kExportOptions =
    "  --out FILE               .png, .svg or .pdf for the picture; .csv or .json for the data behind the chart;\n"
    "                           with --chart all: a folder (created if missing)\n"
    "  --format F               with --chart all: png (default), svg, pdf, csv or json\n"
    "  --size WxH               layout size in pixels, 64..16384 each (default 1600x1000; slides: 1920x1080)\n"
    "  --scale N                PNG pixel multiplier 1..4 (default 1): --size 1920x1080 --scale 2 is 3840x2160\n"
    "  --theme T                light (default), dark or presentation (large fonts, thick lines)\n"
    "  --title TEXT             replaces the chart's title\n"
    "  --caption TEXT           a line under the chart (source, lecture, date)\n\n";

/// The help line of --chart: the registry's chart ids, or all.
std::string chartHelpLine()
{
    return "  --chart NAME             " + joined(ui::chartIds()) + "; or all (one file per chart)\n";
}

} // namespace

int cmdExport(const std::vector<std::string> &args)
{
    return guarded("export", [&] {
        const CommandLine cl = parseCommandLine("export", args,
                                                {"--chart", "--out", "--size", "--scale", "--theme", "--title",
                                                 "--caption", "--format"});
        if (cl.help) {
            std::cout << kExportUsage << chartHelpLine() << kExportOptions << scenarioHelp();
            return 0;
        }
        if (cl.json || cl.csv)
            throw UsageError("--json/--csv do not apply; the format follows the --out extension");

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
            throw UsageError(all ? "--out DIR is required" : "--out FILE is required (.png, .svg, .pdf, .csv or .json)");
        const QString out = QString::fromStdString(*outOpt);

        ui::ExportOptions options;
        if (auto size = cl.value("--size"))
            options.size = parseSize(*size);
        if (auto scale = cl.value("--scale"))
            options.scale = static_cast<qreal>(parseCount("--scale", *scale, 1, 4));
        if (auto theme = cl.value("--theme")) {
            const QString id = QString::fromStdString(*theme);
            if (!ui::Theme::ids().contains(id))
                throw UsageError("--theme: '" + *theme + "' is not one of " + joined(ui::Theme::ids()));
            options.theme = ui::Theme::byId(id);
        }
        if (auto title = cl.value("--title"))
            options.title = QString::fromStdString(*title);
        if (auto caption = cl.value("--caption"))
            options.caption = QString::fromStdString(*caption);

        QString format = "png";
        if (auto f = cl.value("--format")) {
            if (!all)
                throw UsageError("--format applies to --chart all; a single chart takes its format from --out");
            format = QString::fromStdString(*f).toLower();
            if (!ui::exportFormats().contains(format))
                throw UsageError("--format: '" + *f + "' is not one of " + joined(ui::exportFormats()));
        }
        bool dataExport = false;
        if (!all) {
            const QString suffix = QFileInfo(out).suffix().toLower();
            dataExport = suffix == QLatin1String("csv") || suffix == QLatin1String("json");
            if (!dataExport && !ui::formatForPath(out))
                throw UsageError(suffix.isEmpty()
                                     ? *outOpt + ": no file extension; use .png, .svg, .pdf, .csv or .json"
                                     : *outOpt + ": unknown file type '." + QFileInfo(out).suffix().toStdString() +
                                           "'; use .png, .svg, .pdf, .csv or .json");
        }

        PresetLibrary lib = loadPresets(cl);
        const ScenarioFile file = resolveScenario(cl, lib);
        maybeSaveScenario(cl, file);

        preferOffscreen();
        g_previousHandler = qInstallMessageHandler(quietHandler);
        int argc = 1;
        char name[] = "memwall";
        char *argv[] = {name, nullptr};
        QApplication app(argc, argv);

        ui::ScenarioDocument doc(std::make_shared<const PresetLibrary>(std::move(lib)));
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
                std::cout << QDir::toNativeSeparators(path).toStdString() << "\n";
            if (!ok)
                throw InputError(error.toStdString());
            return 0;
        }
        const bool ok = dataExport ? ui::exportData(*charts.front(), out, &error)
                                   : ui::exportChart(*charts.front(), out, options, &error);
        if (!ok)
            throw InputError(error.toStdString());
        std::cout << QDir::toNativeSeparators(out).toStdString() << "\n";
        return 0;
    });
}

} // namespace memwall::app
