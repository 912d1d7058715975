#include "ui/util/savefile.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QStandardPaths>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
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

QString systemReason(int err) { return QString::fromLocal8Bit(std::strerror(err)); }

/// The marker every temporary of saveAtomically() carries: "TARGET.memwall-tmp.PID.XXXXXX". No user names a file
/// so, and the pid ties it to the write whose journal note names that pid (removeInterruptedWrites()).
const QLatin1String kTempMarker(".memwall-tmp.");

/// The file a write to `path` replaces, or an empty string and the reason it is refused. A symbolic link is never
/// followed out of its folder: written through, a link planted in a folder someone else owns ("out/roofline.png" ->
/// /etc/shadow) would have a root export replace the file it points to. A link to a name in the same folder (no
/// '/' in it) is the one kind followed, one step, as an editor would; the file it names is then replaced.
QString resolveTarget(const QString &path, QString *refusal)
{
    const QByteArray native = QFile::encodeName(path);
    struct stat st = {};
    if (::lstat(native.constData(), &st) != 0 || !S_ISLNK(st.st_mode))
        return path;
    std::string link(4096, '\0');
    const ssize_t n = ::readlink(native.constData(), link.data(), link.size());
    if (n > 0 && static_cast<std::size_t>(n) < link.size()) {
        link.resize(static_cast<std::size_t>(n));
        if (link.find('/') == std::string::npos && link != "." && link != "..") {
            QString inFolder = QFileInfo(path).dir().filePath(QFile::decodeName(QByteArray::fromStdString(link)));
            struct stat next = {};
            if (::lstat(QFile::encodeName(inFolder).constData(), &next) != 0 || !S_ISLNK(next.st_mode))
                return inFolder;
        }
    }
    *refusal = QObject::tr("a symbolic link to a file elsewhere (MemWall writes only through links within the "
                           "folder)");
    return {};
}

/// Creates the temporary for `target` beside it, never through a link (O_EXCL, O_NOFOLLOW). Returns its descriptor,
/// or -1 with errno set.
int createTemporary(const QString &target, QString *tempPath)
{
    static const char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    for (int attempt = 0; attempt < 100; ++attempt) {
        QString suffix;
        for (int i = 0; i < 6; ++i)
            suffix += QLatin1Char(kLetters[QRandomGenerator::global()->bounded(int(sizeof kLetters) - 1)]);
        *tempPath = target + kTempMarker + QString::number(::getpid()) + QLatin1Char('.') + suffix;
        const int fd = ::open(QFile::encodeName(*tempPath).constData(),
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/// Gives the temporary `fd` the owner, group and permissions of the file it replaces, as editors do. The owner
/// stays only where the system lets it (as root, or one's own file). When the group cannot be kept (a file of group
/// "users" replaced by someone outside it), the group permissions take those of others, as Vim does: no one gains
/// access the old file did not give. The write stays atomic either way (no write in place, which could leave a cut
/// file). The set-user-ID, set-group-ID and sticky bits are not carried over to a regenerated file.
void keepOwnership(int fd, const struct stat &old)
{
    mode_t mode = old.st_mode & 0777;
    if (::fchown(fd, old.st_uid, old.st_gid) != 0 && ::fchown(fd, static_cast<uid_t>(-1), old.st_gid) != 0) {
        struct stat now = {};
        if (::fstat(fd, &now) == 0 && now.st_gid != old.st_gid)
            mode = (mode & 0707) | ((mode & 07) << 3);
    }
    (void)::fchmod(fd, mode); // a file system without permissions (vfat) refuses; the bytes still go out whole
}

bool writeAll(int fd, const QByteArray &bytes)
{
    const char *p = bytes.constData();
    qsizetype left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, static_cast<std::size_t>(left));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        p += n;
        left -= n;
    }
    return true;
}

} // namespace

QString saveAtomically(const QString &path, const QByteArray &bytes)
{
    QString refusal;
    const QString target = resolveTarget(path, &refusal);
    if (target.isEmpty())
        return refusal;
    struct stat old = {};
    const bool replacing = ::lstat(QFile::encodeName(target).constData(), &old) == 0;
    // A device or FIFO would be replaced by a regular file (as root, /dev/null itself).
    if (replacing && !S_ISREG(old.st_mode))
        return QObject::tr("not a regular file (devices, FIFOs and folders are never replaced)");
    // A file its owner made read-only is not replaced behind their back, though its folder would allow it.
    if (replacing && ::access(QFile::encodeName(target).constData(), W_OK) != 0)
        return systemReason(errno);
    const JournalNote note(target);
    QString temp;
    const int fd = createTemporary(target, &temp);
    if (fd < 0)
        return systemReason(errno);
    if (replacing)
        keepOwnership(fd, old);
    const bool written = writeAll(fd, bytes);
    const int writeErr = errno;
    const bool closed = ::close(fd) == 0; // a network file system may report a failed write only here
    const int closeErr = errno;
    // rename() replaces the name in the folder: a link planted there since the check is replaced, not followed.
    if (!written || !closed ||
        ::rename(QFile::encodeName(temp).constData(), QFile::encodeName(target).constData()) != 0) {
        const int err = !written ? writeErr : !closed ? closeErr : errno;
        ::unlink(QFile::encodeName(temp).constData());
        return systemReason(err);
    }
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
            // Only this program's temporaries of that very write: the marker and the pid of the note's process.
            const QString prefix = target.fileName() + kTempMarker + m.captured(1) + QLatin1Char('.');
            const QRegularExpression temp(QStringLiteral("^%1[A-Za-z0-9]{6}$").arg(QRegularExpression::escape(prefix)));
            // A second of slack: some file systems keep modification times in whole seconds.
            const QDateTime since = QDateTime::fromMSecsSinceEpoch(began - 1000);
            for (const QFileInfo &f :
                 target.dir().entryInfoList({prefix + QStringLiteral("*")}, QDir::Files | QDir::Hidden)) {
                if (temp.match(f.fileName()).hasMatch() && !f.isSymLink() && f.lastModified() >= since &&
                    QFile::remove(f.filePath()))
                    removed << f.filePath();
            }
        }
        QFile::remove(info.filePath());
    }
    return removed;
}

} // namespace memwall::ui
