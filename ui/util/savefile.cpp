#include "ui/util/savefile.h"

#include <QFileInfo>
#include <QObject>
#include <QSaveFile>

#include <cerrno>
#include <cstring>

namespace memwall::ui {

QString saveAtomically(const QString &path, const QByteArray &bytes)
{
    // A device or FIFO would be replaced by a regular file (as root, /dev/null itself).
    if (const QFileInfo target(path); target.exists() && !target.isFile())
        return QObject::tr("not a regular file (devices, FIFOs and folders are never replaced)");
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

} // namespace memwall::ui
