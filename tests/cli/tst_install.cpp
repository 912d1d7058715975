// `cmake --install` lays out what a desktop expects: bin/memwall, the desktop entry, AppStream metadata, icons and
// the presets; the desktop entry and the metadata pass their validators; the installed program runs and finds a
// user preset by id. Runs against the build folder this test was built in (QCoreApplication::applicationDirPath()/..).
#include <memwall_version.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {
struct Run
{
    int exitCode = -1;
    QString out, err;
};

Run run(const QString &program, const QStringList &args,
        const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    Run r;
    if (!p.waitForStarted(10000) || !p.waitForFinished(180000)) {
        r.err = QStringLiteral("%1: %2").arg(program, p.errorString());
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}
} // namespace

class TestInstall : public QObject
{
    Q_OBJECT
private:
    QString m_build;
    QTemporaryDir m_prefix;

    QString installed(const QString &relative) const { return m_prefix.path() + QLatin1Char('/') + relative; }

private slots:
    void initTestCase()
    {
        m_build = QDir(QCoreApplication::applicationDirPath() + QStringLiteral("/..")).canonicalPath();
        if (!QFileInfo::exists(m_build + QStringLiteral("/CMakeCache.txt")))
            QSKIP("not run from a CMake build folder (tests/ inside it)");
        const QString cmake = QStandardPaths::findExecutable(QStringLiteral("cmake"));
        if (cmake.isEmpty())
            QSKIP("cmake is not on PATH");
        QVERIFY(m_prefix.isValid());
        const Run r = run(cmake, {"--install", m_build, "--prefix", m_prefix.path()});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    }

    void layout_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("program") << "bin/memwall";
        QTest::newRow("desktop entry") << "share/applications/org.memwall.MemWall.desktop";
        QTest::newRow("AppStream metadata") << "share/metainfo/org.memwall.MemWall.metainfo.xml";
        QTest::newRow("scalable icon") << "share/icons/hicolor/scalable/apps/org.memwall.MemWall.svg";
        QTest::newRow("hardware preset") << "share/memwall/presets/hardware/h100-sxm.json";
        QTest::newRow("model preset") << "share/memwall/presets/models/llama-2-70b.json";
        QTest::newRow("trend data") << "share/memwall/presets/trends/hardware.json";
        QTest::newRow("preset schema") << "share/memwall/presets/README.md";
    }
    void layout()
    {
        QFETCH(QString, path);
        QVERIFY2(QFileInfo(installed(path)).isFile(), qPrintable(installed(path)));
        if (path.startsWith("bin/"))
            QVERIFY(QFileInfo(installed(path)).isExecutable());
    }

    void pngIconsWhenPackagingIsConfigured()
    {
        if (!QFileInfo::exists(m_build + QStringLiteral("/CPackConfig.cmake")))
            QSKIP("cmake/MemWallPackaging.cmake is not included in this build");
        for (int size : {16, 32, 48, 64, 128, 256}) {
            const QString icon =
                installed(QStringLiteral("share/icons/hicolor/%1x%1/apps/org.memwall.MemWall.png").arg(size));
            QVERIFY2(QFileInfo::exists(icon), qPrintable(icon));
        }
    }

    void everyPresetInstalled()
    {
        for (const QString sub : {"hardware", "models"}) {
            const QStringList source =
                QDir(QStringLiteral(MEMWALL_SOURCE_DIR "/presets/") + sub).entryList({"*.json"}, QDir::Files);
            const QStringList inst = QDir(installed("share/memwall/presets/" + sub)).entryList({"*.json"}, QDir::Files);
            QVERIFY(!source.isEmpty());
            QCOMPARE(inst, source);
        }
    }

    void installedProgramRuns()
    {
        const Run r = run(installed("bin/memwall"), {"--version"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out.trimmed(), QStringLiteral("memwall " MEMWALL_VERSION));
    }

    // The Python module lands in <prefix>/lib/python3.X/dist-packages (where Debian's python3 looks under /usr/local)
    // and imports from there with nothing of the build folder on the path.
    void installedPythonModuleImports()
    {
        const QString python = QStringLiteral("/usr/bin/python3");
        if (!QFileInfo::exists(m_build + QStringLiteral("/python/memwall/__init__.py")))
            QSKIP("the Python module is not built (MEMWALL_PYTHON=OFF)");
        const Run version = run(python, {"-c", "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')"});
        const QString site = installed("lib/python" + version.out.trimmed() + "/dist-packages");
        QVERIFY2(QFileInfo::exists(site + "/memwall/__init__.py"), qPrintable(site));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("PYTHONPATH", site);
        const Run r = run(
            python, {"-c", "import memwall; print(memwall.__file__); print(memwall.analyze()['model']['id'])"}, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out.split('\n').value(0), site + "/memwall/__init__.py");
        QCOMPARE(r.out.split('\n').value(1), QStringLiteral("llama-2-70b"));
    }

    // A preset saved by the device editor (per-user folder) is usable on the command line by id.
    void userPresetByIdOnTheCommandLine()
    {
        QTemporaryDir xdg;
        QVERIFY(xdg.isValid());
        QFile in(installed("share/memwall/presets/hardware/h100-sxm.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject preset = QJsonDocument::fromJson(in.readAll()).object();
        preset["id"] = "my-test-device";
        preset["name"] = "My test device";
        QVERIFY(QDir().mkpath(xdg.path() + "/MemWall/presets/hardware"));
        QFile out(xdg.path() + "/MemWall/presets/hardware/my-test-device.json");
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(preset).toJson());
        out.close();

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_HOME", xdg.path());
        env.insert("QT_QPA_PLATFORM", "offscreen");
        const Run r = run(installed("bin/memwall"), {"analyze", "--hardware", "my-test-device", "--json"}, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject analysis = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(analysis["hardware"].toObject()["id"].toString(), QString("my-test-device"));
    }

    void desktopEntryValidates()
    {
        const QString tool = QStandardPaths::findExecutable("desktop-file-validate");
        if (tool.isEmpty()) {
            // CI installs it (.ci/run), so there a missing validator is a failure, not a skip.
            if (qEnvironmentVariableIsSet("CI"))
                QFAIL("desktop-file-validate not found, though CI installs desktop-file-utils");
            QSKIP("desktop-file-validate not found (Debian/Ubuntu: apt install desktop-file-utils)");
        }
        // Silent means valid with no hints either (one main category, the rest additional ones).
        const Run r = run(tool, {installed("share/applications/org.memwall.MemWall.desktop")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.isEmpty() && r.err.isEmpty(), qPrintable(r.out + r.err));
    }

    /// memwall: links open MemWall (issue #41): the entry registers the scheme and passes the link on (%u).
    void desktopEntryHandlesLinks()
    {
        QFile entry(installed("share/applications/org.memwall.MemWall.desktop"));
        QVERIFY(entry.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(entry.readAll()).split('\n');
        QVERIFY(lines.contains("MimeType=x-scheme-handler/memwall;"));
        QVERIFY(lines.contains("Exec=memwall %u"));
    }

    void metainfoValidates()
    {
        const QString tool = QStandardPaths::findExecutable("appstreamcli");
        if (tool.isEmpty())
            QSKIP("appstreamcli not found (Debian/Ubuntu: apt install appstream)");
        const Run r = run(tool, {"validate", "--no-net", installed("share/metainfo/org.memwall.MemWall.metainfo.xml")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    }
};

QTEST_GUILESS_MAIN(TestInstall)
#include "tst_install.moc"
