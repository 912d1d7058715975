#include "ui/util/savefile.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace memwall::ui {

namespace {

/// A note in writeJournalDir() for one write in progress: "<pid>-<n>", holding the target's absolute path and the
/// time the write began (ms since the epoch). Removed when the write ends, however it ends.
class JournalNote
{
public:
    explicit JournalNote(const QString &target)
    {
        static std::atomic<int> counter{0};
        const QString dir = writeJournalDir();
        if (!QDir().mkpath(dir))
            return; // no journal: the write itself still goes ahead
        m_path = dir + QStringLiteral("/%1-%2").arg(::getpid()).arg(counter++);
        QFile note(m_path);
        const QByteArray text = QFileInfo(target).absoluteFilePath().toUtf8() + '\n' +
                                QByteArray::number(QDateTime::currentMSecsSinceEpoch()) + '\n';
        if (!note.open(QIODevice::WriteOnly) || note.write(text) != text.size() || !note.flush()) {
            note.close(); // QFile::remove() on the open file would refuse after the failed flush
            QFile::remove(m_path);
            m_path.clear();
        }
    }
    ~JournalNote()
    {
        if (!m_path.isEmpty())
            QFile::remove(m_path);
    }
    JournalNote(const JournalNote &) = delete;
    JournalNote &operator=(const JournalNote &) = delete;

private:
    QString m_path;
};

bool processRunning(qint64 pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

} // namespace

QString saveAtomically(const QString &path, const QByteArray &bytes)
{
    // A device or FIFO would be replaced by a regular file (as root, /dev/null itself).
    if (const QFileInfo target(path); target.exists() && !target.isFile())
        return QObject::tr("not a regular file (devices, FIFOs and folders are never replaced)");
    const JournalNote note(path);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return file.errorString();
    // Qt does not always pass the system's reason on (a failed flush reads "Unknown error"): take it from errno.
    const auto reason = [&file](int err) {
        return err != 0 ? QString::fromLocal8Bit(std::strerror(err)) : file.errorString();
    };
    errno = 0;
    if (file.write(bytes) != bytes.size() || !file.flush()) {
        QString why = reason(errno);
        file.cancelWriting();
        return why;
    }
    errno = 0;
    if (!file.commit())
        return reason(errno);
    return {};
}

QString userDataDir()
{
    QString app = QCoreApplication::applicationName();
    if (app.isEmpty() || app == QLatin1String("memwall"))
        app = QStringLiteral("MemWall");
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QLatin1Char('/') + app;
}

QString writeJournalDir() { return userDataDir() + QStringLiteral("/pending-writes"); }

QStringList removeInterruptedWrites()
{
    QStringList removed;
    const QDir journal(writeJournalDir());
    static const QRegularExpression noteName(QStringLiteral("^(\\d+)-\\d+$"));
    for (const QFileInfo &info : journal.entryInfoList(QDir::Files | QDir::Hidden)) {
        const auto m = noteName.match(info.fileName());
        if (!m.hasMatch() || processRunning(m.captured(1).toLongLong()) || info.size() > qint64(64) * 1024)
            continue;
        QFile note(info.filePath());
        if (!note.open(QIODevice::ReadOnly))
            continue;
        const QList<QByteArray> lines = note.readAll().split('\n');
        note.close();
        bool timeOk = false;
        const qint64 began = lines.size() >= 2 ? lines[1].toLongLong(&timeOk) : 0;
        const QFileInfo target(QString::fromUtf8(lines.value(0)));
        if (timeOk && target.isAbsolute()) {
            const QRegularExpression temp(
                QStringLiteral("^%1\\.[A-Za-z0-9]{6}$").arg(QRegularExpression::escape(target.fileName())));
            // A second of slack: some file systems keep modification times in whole seconds.
            const QDateTime since = QDateTime::fromMSecsSinceEpoch(began - 1000);
            for (const QFileInfo &f :
                 target.dir().entryInfoList({target.fileName() + QStringLiteral(".*")}, QDir::Files | QDir::Hidden)) {
                if (temp.match(f.fileName()).hasMatch() && f.lastModified() >= since && QFile::remove(f.filePath()))
                    removed << f.filePath();
            }
        }
        QFile::remove(info.filePath());
    }
    return removed;
}

} // namespace memwall::ui
