#pragma once
// Shared by the suites that run the built `memwall` as a process, as a user would (QtCore only).

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <sys/resource.h>

namespace testprocess {

struct Run
{
    int exitCode = -1; ///< -1: did not finish in two minutes, -2: crashed
    QByteArray out, err;
};

/// Runs the `memwall` under test (MEMWALL_MEMWALL_EXE, set by ctest) with `args`. `headless`: as on a build server,
/// no display and no platform chosen, so the command must cope on its own. `fileSizeCap` > 0: as `ulimit -f`, no
/// file of the process may grow past it.
inline Run runMemwall(const QStringList &args, bool headless = true, qint64 fileSizeCap = 0)
{
    QProcess p;
    if (fileSizeCap > 0)
        p.setChildProcessModifier([fileSizeCap] {
            const rlimit cap{static_cast<rlim_t>(fileSizeCap), static_cast<rlim_t>(fileSizeCap)};
            setrlimit(RLIMIT_FSIZE, &cap);
        });
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (headless) {
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.remove("QT_QPA_PLATFORM");
    }
    p.setProcessEnvironment(env);
    p.start(qEnvironmentVariable("MEMWALL_MEMWALL_EXE"), args);
    Run r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace testprocess
