#include "ui/util/folder.h"

#include <QFile>
#include <QObject>

#include <filesystem>
#include <system_error>

namespace memwall::ui {

QString createFolder(const QString &path)
{
    namespace fs = std::filesystem;
    const fs::path p(QFile::encodeName(path).toStdString()); // the bytes the system sees, whatever the locale
    std::error_code ec;
    fs::create_directories(p, ec);
    if (!ec && !fs::is_directory(p, ec))
        return QObject::tr("not a folder"); // a file of that name is in the way
    return ec ? QString::fromLocal8Bit(ec.message().c_str()) : QString();
}

} // namespace memwall::ui
