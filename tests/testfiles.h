#pragma once
// Shared by the suites that check what lands on disk (QtCore only).

#include <QByteArray>
#include <QFile>
#include <QString>

#include <sys/resource.h>

namespace testfiles {

/// The whole file, or an empty array if it cannot be read.
inline QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Caps the size of any file this process writes while it lives (the soft limit; the hard one is left alone): it
/// stands for a full disk. The suite must ignore SIGXFSZ, so that a write past the cap fails instead of killing it.
class FileSizeCap
{
public:
    explicit FileSizeCap(rlim_t bytes)
    {
        getrlimit(RLIMIT_FSIZE, &m_old);
        rlimit capped = m_old;
        capped.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &capped);
    }
    ~FileSizeCap() { setrlimit(RLIMIT_FSIZE, &m_old); }
    FileSizeCap(const FileSizeCap &) = delete;
    FileSizeCap &operator=(const FileSizeCap &) = delete;

private:
    rlimit m_old{};
};

} // namespace testfiles
