#pragma once

#include <QString>

namespace memwall::ui {

/// Creates `path` and any missing parents; "" on success (or when it is already a folder), else the system's reason
/// ("Read-only file system", "Permission denied"), which QDir::mkpath() does not give.
QString createFolder(const QString &path);

} // namespace memwall::ui
