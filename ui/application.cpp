#include "ui/application.h"

#include "ui/document/scenariodocument.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QStandardPaths>

#include <iostream>

namespace memwall::ui {

int runApplication(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName("MemWall");
    QApplication::setOrganizationName("MemWall");
    QApplication::setApplicationVersion(MEMWALL_VERSION);
    QApplication::setDesktopFileName("org.memwall.MemWall");

    QCommandLineParser parser;
    parser.setApplicationDescription("See the AI memory wall");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption scenarioOpt("scenario", "Open a saved scenario (.memwall.json).", "FILE");
    QCommandLineOption presetsOpt("presets", "An extra preset folder.", "DIR");
    parser.addOption(scenarioOpt);
    parser.addOption(presetsOpt);
    parser.process(app);

    auto lib = std::make_shared<core::PresetLibrary>();
    lib->loadBuiltin();
    const QString user = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    lib->loadDirectory((user + "/presets").toStdString());
    if (parser.isSet(presetsOpt))
        lib->loadDirectory(parser.value(presetsOpt).toStdString(), true);
    for (const auto &issue : lib->issues())
        std::cerr << "memwall: skipped preset: " << issue.message << "\n";

    ScenarioDocument doc(lib);
    MainWindow window(&doc);
    window.show();
    if (parser.isSet(scenarioOpt))
        window.openScenario(parser.value(scenarioOpt));
    window.reportPresetIssues();
    return app.exec();
}

} // namespace memwall::ui
