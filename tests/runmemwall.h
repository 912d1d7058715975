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

struct RunOptions
{
    /// As on a build server: no display and no platform chosen, so the command must cope on its own.
    bool headless = true;
    /// > 0: as `ulimit -f`, no file of the process may grow past it.
    qint64 fileSizeCap = 0;
    /// The per-user data folder points nowhere: no user presets, as on a fresh account.
    bool noUserData = false;
};

/// Runs the `memwall` under test (MEMWALL_MEMWALL_EXE, set by ctest) with `args`. Every suite that runs the command
/// line goes through here, so a crash is never read as an exit status: it gives exitCode -2 and a warning naming
/// the arguments, and no expected status matches it.
inline Run runMemwall(const QStringList &args, const RunOptions &o)
{
    QProcess p;
    if (o.fileSizeCap > 0)
        p.setChildProcessModifier([cap = o.fileSizeCap] {
            const rlimit limit{static_cast<rlim_t>(cap), static_cast<rlim_t>(cap)};
            setrlimit(RLIMIT_FSIZE, &limit);
        });
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (o.headless) {
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.remove("QT_QPA_PLATFORM");
    }
    if (o.noUserData)
        env.insert("XDG_DATA_HOME", "/nonexistent-memwall-test");
    p.setProcessEnvironment(env);
    p.start(qEnvironmentVariable("MEMWALL_MEMWALL_EXE"), args);
    Run r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        qWarning("memwall %s: did not finish in two minutes", qPrintable(args.join(' ').left(200)));
        return r;
    }
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    if (p.exitStatus() != QProcess::NormalExit) {
        r.exitCode = -2;
        qWarning("memwall %s: crashed; stderr: %s", qPrintable(args.join(' ').left(200)), r.err.left(400).constData());
        return r;
    }
    r.exitCode = p.exitCode();
    return r;
}

inline Run runMemwall(const QStringList &args, bool headless = true, qint64 fileSizeCap = 0)
{
    return runMemwall(args, RunOptions{headless, fileSizeCap, false});
}

} // namespace testprocess
