#include "ui/application.h"

#include "ui/document/scenariodocument.h"
#include "ui/mainwindow.h"
#include "ui/settings/settingsfile.h"
#include "ui/util/presetlibrary.h"
#include "ui/util/savefile.h"

#include "core/io/scenariolink.h"
#include "core/util/oneline.h"

#include <memwall_version.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QEvent>
#include <QStatusBar>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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

/// The platform Qt is asked for: `-platform NAME` on the command line, else QT_QPA_PLATFORM; empty for Qt's default.
QByteArray requestedPlatform(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "-platform") == 0 || std::strcmp(argv[i], "--platform") == 0)
            return argv[i + 1];
    return qgetenv("QT_QPA_PLATFORM");
}

/// Why no window can be shown, before Qt tries: "" when a display may be there (or the platform needs none).
std::string missingDisplay(const QByteArray &platform)
{
    const QByteArray name = platform.split(':').front(); // "offscreen:fontengine=freetype" and the like
    for (const char *headless : {"offscreen", "minimal", "minimalegl", "vnc", "eglfs", "linuxfb", "vkkhrdisplay"})
        if (name == headless)
            return {};
    const bool x11 = !qEnvironmentVariableIsEmpty("DISPLAY");
    if (name == "xcb" && !x11)
        return "QT_QPA_PLATFORM is xcb but DISPLAY is not set";
    if (name.isEmpty() && !x11 && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        return "neither DISPLAY nor WAYLAND_DISPLAY is set";
    return {};
}

void reportNoDisplay(const std::string &why)
{
    std::fprintf(stderr, "memwall: the window needs a display: %s (the commands need none: memwall --help)\n",
                 why.c_str());
}

/// While QApplication starts: Qt's messages are held back, and its fatal "no platform plugin could be initialized"
/// (a stale DISPLAY, an X server that refuses the connection) becomes the one line of reportNoDisplay() and exit 2
/// instead of an abort with several lines of Qt text. A display that turns up finds Qt's messages passed on.
class StartupMessages
{
public:
    StartupMessages() { s_previous = qInstallMessageHandler(&StartupMessages::handle); }
    ~StartupMessages()
    {
        qInstallMessageHandler(s_previous);
        const QMessageLogContext none;
        for (const auto &[type, text] : s_held)
            if (s_previous)
                s_previous(type, none, text);
        s_held.clear();
    }
    StartupMessages(const StartupMessages &) = delete;
    StartupMessages &operator=(const StartupMessages &) = delete;

private:
    static void handle(QtMsgType type, const QMessageLogContext &, const QString &text)
    {
        if (type != QtFatalMsg) {
            s_held.emplace_back(type, text);
            return;
        }
        const QByteArray display = qgetenv("DISPLAY");
        reportNoDisplay(display.isEmpty() ? std::string("Qt could not open one")
                                          : "cannot connect to the X display " + display.toStdString());
        std::fflush(stderr);
        std::_Exit(2);
    }
    static inline QtMessageHandler s_previous = nullptr;
    static inline std::vector<std::pair<QtMsgType, QString>> s_held;
};
} // namespace

int runApplication(int argc, char **argv)
{
    if (const std::string why = missingDisplay(requestedPlatform(argc, argv)); !why.empty()) {
        reportNoDisplay(why);
        return 2;
    }
    auto startup = std::make_unique<StartupMessages>();
    QApplication app(argc, argv);
    startup.reset();
    QApplication::setApplicationName("MemWall");
    QApplication::setOrganizationName("MemWall");
    QApplication::setApplicationVersion(MEMWALL_VERSION);
    QApplication::setDesktopFileName("org.memwall.MemWall");
    useCheckedSettings();

    QCommandLineParser parser;
    parser.setApplicationDescription("See the AI memory wall");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption scenarioOpt("scenario", "Open a saved scenario (.memwall.json) or a memwall: link.", "FILE");
    QCommandLineOption presetsOpt("presets", "An extra preset folder.", "DIR");
    parser.addOption(scenarioOpt);
    parser.addOption(presetsOpt);
    // `memwall 'memwall:?…'`: what the desktop entry runs for a link (Exec=memwall %u).
    parser.addPositionalArgument("link", "A memwall: link to a scenario (Edit › Copy link).", "[link]");
    parser.process(app);

    const auto lib = loadPresetLibrary(parser.isSet(presetsOpt) ? parser.value(presetsOpt) : QString());

    ScenarioDocument doc(lib);
    MainWindow window(&doc);
    if (qEnvironmentVariableIsSet("MEMWALL_PROBE_FIRST_PAINT"))
        window.installEventFilter(new FirstPaintProbe(&window));
    window.show();
    const QStringList links = parser.positionalArguments();
    const QString scenario = parser.isSet(scenarioOpt) ? parser.value(scenarioOpt) : links.value(0);
    if (scenario.isEmpty()) {
        window.restoreLastScenario();
    } else if (core::isScenarioLink(scenario.toStdString())) {
        // Untitled, on the first launch's scenario (never the last file, which Save would then overwrite); a bad
        // link leaves the window as a fresh one would be.
        doc.startFirstLaunch();
        window.openLink(scenario);
    } else {
        window.openScenario(scenario);
    }
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
