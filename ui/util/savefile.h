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
///
/// While the write runs, a note naming the target sits in writeJournalDir(), so that if the process is killed,
/// the next start can remove the temporary file QSaveFile leaves next to the target (removeInterruptedWrites()).
QString saveAtomically(const QString &path, const QByteArray &bytes);

/// Where MemWall keeps its own files: <generic data location>/MemWall, for the window and the command line alike
/// (the window sets an organisation name, which would otherwise move AppDataLocation one level down).
QString userDataDir();

/// The folder of notes on writes in progress (userDataDir()/pending-writes).
QString writeJournalDir();

/// Removes what writes interrupted by a crash or kill -9 left behind: for each note in writeJournalDir() whose
/// process is gone, the files named like QSaveFile's temporaries ("TARGET.XXXXXX", six letters or digits) next to
/// its target that were made after the write began; then the note. Files older than the write, and notes of
/// processes still running, are left alone. Returns the paths removed.
QStringList removeInterruptedWrites();

} // namespace memwall::ui
