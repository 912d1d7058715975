#pragma once
// Shared by the suites that check what lands on disk (QtCore only).

#include <QByteArray>
#include <QFile>
#include <QString>

namespace testfiles {

/// The whole file, or an empty array if it cannot be read.
inline QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace testfiles
