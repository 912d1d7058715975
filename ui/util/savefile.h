#pragma once

#include <QByteArray>
#include <QString>

namespace memwall::ui {

/// Writes `bytes` to `path` all or nothing, and says why not: an empty string on success, else the reason the
/// system gave ("No space left on device", "File too large"). An existing target that is not a regular file (a
/// device, a FIFO) is refused, never replaced.
///
/// The bytes go to a QSaveFile, so the old file stays in place until the new one is whole. Every write is checked
/// and so is the flush before commit(): a file smaller than QSaveFile's buffer reaches the disk only there, and Qt
/// 6.4's commit() does not report a failed flush, so a full disk would leave an empty file behind a success.
QString saveAtomically(const QString &path, const QByteArray &bytes);

} // namespace memwall::ui
