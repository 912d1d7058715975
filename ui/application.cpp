#include "ui/application.h"

#include "ui/document/scenariodocument.h"
#include "ui/mainwindow.h"
#include "ui/settings/settingsfile.h"
#include "ui/util/presetlibrary.h"
#include "ui/util/savefile.h"

#include "core/util/oneline.h"

#include <memwall_version.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QEvent>
#include <QStatusBar>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include <iostream>

namespace memwall::ui {

namespace {
/// MEMWALL_PROBE_FIRST_PAINT=1 (used by memwall-bench): on the window's first paint, print
/// "first-paint <steady-clock ns> rss-kb <resident KiB>" and quit, so start-up and memory can be measured.
class FirstPaintProbe : public QObject
{
public:
    using QObject::QObject;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && !m_done) {
            m_done = true;
            const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now().time_since_epoch())
                                .count();
            long rssKb = 0;
            std::ifstream status("/proc/self/status");
            for (std::string line; std::getline(status, line);)
                if (line.rfind("VmRSS:", 0) == 0)
                    rssKb = std::stol(line.substr(6));
            std::printf("first-paint %lld rss-kb %ld\n", static_cast<long long>(ns), rssKb);
            std::fflush(stdout);
            QMetaObject::invokeMethod(qApp, &QCoreApplication::quit, Qt::QueuedConnection);
        }
        return QObject::eventFilter(watched, event);
    }

private:
    bool m_done = false;
};
} // namespace

int runApplication(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName("MemWall");
    QApplication::setOrganizationName("MemWall");
    QApplication::setApplicationVersion(MEMWALL_VERSION);
    QApplication::setDesktopFileName("org.memwall.MemWall");
    useCheckedSettings();

    QCommandLineParser parser;
    parser.setApplicationDescription("See the AI memory wall");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption scenarioOpt("scenario", "Open a saved scenario (.memwall.json).", "FILE");
    QCommandLineOption presetsOpt("presets", "An extra preset folder.", "DIR");
    parser.addOption(scenarioOpt);
    parser.addOption(presetsOpt);
    parser.process(app);

    const auto lib = loadPresetLibrary(parser.isSet(presetsOpt) ? parser.value(presetsOpt) : QString());

    ScenarioDocument doc(lib);
    MainWindow window(&doc);
    if (qEnvironmentVariableIsSet("MEMWALL_PROBE_FIRST_PAINT"))
        window.installEventFilter(new FirstPaintProbe(&window));
    window.show();
    if (parser.isSet(scenarioOpt))
        window.openScenario(parser.value(scenarioOpt));
    else
        window.restoreLastScenario();
    window.reportPresetIssues();
    if (const QString unreadable = settingsReadError(); !unreadable.isEmpty()) // set aside; started from defaults
        window.statusBar()->showMessage(unreadable, 15000);
    if (const QStringList strays = removeInterruptedWrites(); !strays.isEmpty()) {
        for (const QString &stray : strays)
            std::cerr << "memwall: removed " << core::oneLine(stray.toStdString())
                      << ", left by an interrupted write\n";
        window.statusBar()->showMessage(
            QObject::tr("Removed %n temporary file(s) left by an interrupted save", nullptr, int(strays.size())), 8000);
    }
    return app.exec();
}

} // namespace memwall::ui
