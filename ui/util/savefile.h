#pragma once

#include <QByteArray>
#include <QString>

namespace memwall::ui {

/// Writes `bytes` to `path` all or nothing, and says why not: an empty string on success, else the reason the
/// system gave ("No space left on device", "File too large"). An existing target that is not a regular file (a
/// device, a FIFO) is refused, never replaced; so is a read-only one.
///
/// The bytes go to a temporary beside the target ("TARGET.memwall-tmp.PID.XXXXXX", created with O_EXCL and
/// O_NOFOLLOW), every write and the close are checked, and only then is it renamed over the target, so the old file
/// stays in place until the new one is whole. A symbolic link at `path` is never followed out of its folder (it is
/// refused: "a symbolic link to a file elsewhere..."); a link to a name in the same folder is followed one step. A
/// file replaced keeps its owner, group and permissions where the system allows (see keepOwnership() in the .cpp).
///
/// While the write runs, a note naming the target sits in writeJournalDir(), so that if the process is killed,
/// the next start can remove the temporary it left next to the target (removeInterruptedWrites()).
QString saveAtomically(const QString &path, const QByteArray &bytes);

/// Where MemWall keeps its own files: <generic data location>/MemWall, for the window and the command line alike
/// (the window sets an organisation name, which would otherwise move AppDataLocation one level down).
QString userDataDir();

/// The folder of notes on writes in progress (userDataDir()/pending-writes).
QString writeJournalDir();

/// Removes what writes interrupted by a crash or kill -9 left behind: for each note in writeJournalDir() whose
/// process is gone, the temporaries of that write, "TARGET.memwall-tmp.PID.XXXXXX" with the note's pid, next to its
/// target and made after the write began; then the note. Nothing else is touched: a user's "TARGET.backup" looks like
/// no temporary of this program's. Notes of processes still running are left alone. Returns the paths removed.
QStringList removeInterruptedWrites();

} // namespace memwall::ui
