#include "ui/settings/settingsfile.h"

#include <QCoreApplication>
#include <QDataStream>
#include <QFileDevice>
#include <QFileInfo>
#include <QSettings>

#include <cerrno>
#include <cstring>

namespace memwall::ui {

namespace {

constexpr quint32 kMagic = 0x4d575354; ///< "MWST"
constexpr quint32 kVersion = 1;

/// The system's reason for the last failed settings write (the GUI thread writes the settings).
QString &lastWriteError()
{
    static QString error;
    return error;
}

bool readSettings(QIODevice &device, QSettings::SettingsMap &map)
{
    QDataStream in(&device);
    in.setVersion(QDataStream::Qt_6_4);
    quint32 magic = 0, version = 0;
    in >> magic >> version;
    if (magic != kMagic || version != kVersion)
        return false; // not ours, or from a later version: start from defaults, as with a garbled file
    QSettings::SettingsMap read;
    in >> read;
    if (in.status() != QDataStream::Ok)
        return false;
    map = read;
    return true;
}

/// The system's reason for a failed write: errno if it says one (Qt reads "Unknown error" after a failed flush),
/// else the device's own.
QString reason(const QIODevice &device, int err)
{
    return err != 0 ? QString::fromLocal8Bit(std::strerror(err)) : device.errorString();
}

bool writeSettings(QIODevice &device, const QSettings::SettingsMap &map)
{
    errno = 0;
    QDataStream out(&device);
    out.setVersion(QDataStream::Qt_6_4);
    out << kMagic << kVersion << map;
    if (out.status() != QDataStream::Ok) {
        lastWriteError() = reason(device, errno);
        return false;
    }
    // The bytes are still in the file's buffer: a failed flush here is the only report of a full disk (see the
    // header). Failing the write makes QSettings drop the new file and keep the old one.
    if (auto *file = qobject_cast<QFileDevice *>(&device); file && !file->flush()) {
        lastWriteError() = reason(device, errno);
        return false;
    }
    return true;
}

} // namespace

void useCheckedSettings()
{
    static const QSettings::Format format =
        QSettings::registerFormat(QStringLiteral("mwsettings"), readSettings, writeSettings);
    QSettings::setDefaultFormat(format);
    QSettings current;
    if (QFileInfo::exists(current.fileName()))
        return;
    const QSettings earlier(QSettings::NativeFormat, QSettings::UserScope, QCoreApplication::organizationName(),
                            QCoreApplication::applicationName());
    const QStringList keys = earlier.allKeys();
    if (keys.isEmpty())
        return;
    for (const QString &key : keys)
        current.setValue(key, earlier.value(key));
    syncSettings(current); // a failure leaves the earlier file in place, to be carried over next time
}

QString syncSettings(QSettings &settings)
{
    lastWriteError().clear();
    settings.sync();
    if (settings.status() != QSettings::AccessError)
        return {};
    const QString reason =
        lastWriteError().isEmpty()
            ? QCoreApplication::translate("memwall", "the file, its lock file or its folder cannot be written")
            : lastWriteError();
    return QCoreApplication::translate("memwall", "%1: cannot save the settings: %2").arg(settings.fileName(), reason);
}

} // namespace memwall::ui
