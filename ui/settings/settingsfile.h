#pragma once

#include <QString>

class QSettings;

namespace memwall::ui {

/// Makes every default-constructed QSettings of the window use MemWall's own settings format, whose writes are
/// checked: call once after the application and organisation names are set, before the first QSettings.
///
/// Qt 6.4 writes its INI and native formats through a QSaveFile whose commit() does not report a failed flush: on a
/// full disk (or under a file-size cap) QSettings::sync() reports NoError and leaves the settings file cut, so the
/// recent files, window layout and export choices are lost at the next start. This format writes the same keys and
/// values (a QDataStream of the map, with a magic number and version), flushes the file itself and fails the write
/// when the flush fails; QSettings then keeps the old file and reports AccessError.
///
/// Settings kept by an earlier version in Qt's native format are carried over the first time.
///
/// A settings file that cannot be read (not MemWall's, cut, larger than 4 MiB, or holding a value nested deeper
/// than 16 levels, which Qt's own reader would follow until the stack overflows) is set aside, renamed to
/// "FILE.unreadable-DATE-TIME", with one line on standard error; the window then starts from the defaults.
void useCheckedSettings();

/// The one-line message of the last settings file set aside as unreadable; empty if none was.
QString settingsReadError();

/// Writes `settings` to disk now: an empty string on success, else one line naming the file and the system's reason
/// ("~/.config/MemWall/MemWall.mwsettings: cannot save the settings: File too large").
QString syncSettings(QSettings &settings);

} // namespace memwall::ui
