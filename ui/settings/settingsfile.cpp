#include "ui/settings/settingsfile.h"

#include <QCoreApplication>
#include <QDataStream>
#include <QDateTime>
#include <QFile>
#include <QFileDevice>
#include <QFileInfo>
#include <QSettings>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <type_traits>

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

/// Largest settings file read back: the window keeps a few kilobytes (geometry, recent files, export choices).
constexpr qint64 kMaxSettingsBytes = qint64{4} * 1024 * 1024;
/// Deepest nesting of lists and maps in a value read back. MemWall stores none (strings, sizes, byte arrays, string
/// lists); QVariant's own reader recurses once per level, and a file nested 200,000 deep overflowed the stack at
/// every start.
constexpr int kMaxSettingsDepth = 16;

/// The last settings file that could not be read and was set aside, with why (see settingsReadError()).
QString &lastReadError()
{
    static QString error;
    return error;
}

/// Reads one element count of a container as QDataStream writes it (a quint32, or 0xfffffffe and a qint64); false
/// for a null or a count the rest of the file cannot hold (each element takes at least five bytes).
bool readCount(QDataStream &in, qint64 *count)
{
    quint32 small = 0;
    in >> small;
    qint64 n = small;
    if (small == 0xffffffffu)
        return false;
    if (small == 0xfffffffeu)
        in >> n;
    const QIODevice *device = in.device();
    *count = n;
    return in.status() == QDataStream::Ok && n >= 0 && n <= (device->size() - device->pos()) / 5;
}

bool readValue(QDataStream &in, QVariant *value, int depth);

/// The elements of a list, or the key and value pairs of a map or hash, each read by readValue().
template <typename Container>
bool readContainer(QDataStream &in, Container *out, int depth)
{
    qint64 n = 0;
    if (!readCount(in, &n))
        return false;
    for (qint64 i = 0; i < n; ++i) {
        QVariant v;
        if constexpr (std::is_same_v<Container, QVariantList>) {
            if (!readValue(in, &v, depth + 1))
                return false;
            out->append(v);
        } else {
            QString key;
            in >> key;
            if (in.status() != QDataStream::Ok || !readValue(in, &v, depth + 1))
                return false;
            out->insert(key, v);
        }
    }
    return true;
}

/// Whether a value of this type is read back: the plain types settings hold. Anything else (a type of a plug-in, a
/// JSON or CBOR value with its own parser) makes the file unreadable.
bool plainType(int id)
{
    static constexpr int kPlain[] = {
        QMetaType::Bool,       QMetaType::Int,    QMetaType::UInt,   QMetaType::LongLong,  QMetaType::ULongLong,
        QMetaType::Double,     QMetaType::Float,  QMetaType::QChar,  QMetaType::QString,   QMetaType::QStringList,
        QMetaType::QByteArray, QMetaType::QDate,  QMetaType::QTime,  QMetaType::QDateTime, QMetaType::QUrl,
        QMetaType::QSize,      QMetaType::QSizeF, QMetaType::QPoint, QMetaType::QPointF,   QMetaType::QRect,
        QMetaType::QRectF,     QMetaType::QColor};
    return std::find(std::begin(kPlain), std::end(kPlain), id) != std::end(kPlain);
}

/// One QVariant as QVariant::save() writes it (type id, null flag, data), read with the nesting bounded: lists and
/// maps are read here, one level at a time, and only plain types are handed to Qt's own reader.
bool readValue(QDataStream &in, QVariant *value, int depth)
{
    if (depth > kMaxSettingsDepth)
        return false;
    quint32 type = 0;
    qint8 isNull = 0;
    in >> type >> isNull;
    if (in.status() != QDataStream::Ok)
        return false;
    if (type == QMetaType::UnknownType) { // an invalid QVariant: nothing follows
        *value = QVariant();
        return true;
    }
    if (type == QMetaType::QVariantList || type == QMetaType::QVariantMap || type == QMetaType::QVariantHash) {
        bool ok = false;
        if (type == QMetaType::QVariantList) {
            QVariantList list;
            ok = readContainer(in, &list, depth);
            *value = list;
        } else if (type == QMetaType::QVariantMap) {
            QVariantMap map;
            ok = readContainer(in, &map, depth);
            *value = map;
        } else {
            QVariantHash hash;
            ok = readContainer(in, &hash, depth);
            *value = hash;
        }
        return ok;
    }
    if (!plainType(static_cast<int>(type)))
        return false;
    const QMetaType meta(static_cast<int>(type));
    QVariant v(meta);
    if (!meta.load(in, v.data()) || in.status() != QDataStream::Ok)
        return false;
    *value = v;
    return true;
}

/// Renames an unreadable settings file to "FILE.unreadable-YYYYMMDD-HHMMSS" beside it (never deletes it: the user
/// may want it back), so that the window starts from the defaults, and says so on standard error in one line.
void setAside(const QIODevice &device, const QString &why)
{
    const auto *file = qobject_cast<const QFileDevice *>(&device);
    if (!file || file->fileName().isEmpty())
        return;
    const QString path = file->fileName();
    const QString aside = path + QStringLiteral(".unreadable-") +
                          QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    const bool moved = ::rename(QFile::encodeName(path).constData(), QFile::encodeName(aside).constData()) == 0;
    lastReadError() =
        moved ? QCoreApplication::translate("memwall", "%1: cannot read the settings (%2); set aside as %3, starting "
                                                       "from the defaults")
                    .arg(path, why, QFileInfo(aside).fileName())
              : QCoreApplication::translate("memwall", "%1: cannot read the settings (%2); starting from the defaults")
                    .arg(path, why);
    std::fprintf(stderr, "memwall: %s\n", qPrintable(lastReadError()));
}

bool readSettings(QIODevice &device, QSettings::SettingsMap &map)
{
    if (device.size() == 0)
        return true; // a new, empty file: nothing to read
    if (device.size() > kMaxSettingsBytes) {
        setAside(device, QCoreApplication::translate("memwall", "larger than %1 bytes").arg(kMaxSettingsBytes));
        return false;
    }
    QDataStream in(&device);
    in.setVersion(QDataStream::Qt_6_4);
    quint32 magic = 0, version = 0;
    in >> magic >> version;
    QVariantMap read;
    // Not ours, from a later version, cut, or nested too deep: set aside, and start from defaults.
    if (magic != kMagic || version != kVersion) {
        setAside(device, QCoreApplication::translate("memwall", "not a MemWall settings file of this version"));
        return false;
    }
    if (!readContainer(in, &read, 0) || !in.atEnd()) {
        setAside(device, QCoreApplication::translate("memwall", "cut, or a value nested deeper than %1 levels or of a "
                                                                "type MemWall does not read back")
                             .arg(kMaxSettingsDepth));
        return false;
    }
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

QString settingsReadError() { return lastReadError(); }

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
