#include "ui/util/userpresets.h"
#include "ui/util/folder.h"
#include "ui/util/savefile.h"

#include "core/io/jsonreader.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace memwall::ui {

QString userPresetDir() { return userDataDir() + QStringLiteral("/presets"); }

QString saveUserPreset(const QString &subfolder, const QString &id, const nlohmann::json &preset, QString *error)
{
    const QString dir = userPresetDir() + QLatin1Char('/') + subfolder;
    if (const QString why = createFolder(dir); !why.isEmpty()) {
        if (error)
            *error = QObject::tr("%1: cannot create the folder: %2").arg(dir, why);
        return {};
    }
    QString path = dir + QLatin1Char('/') + id + QStringLiteral(".json");
    std::string text;
    try {
        text = core::jsonFileText(preset, path.toStdString()); // never write a preset the library would skip
    } catch (const core::InputError &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return {};
    }
    if (const QString why = saveAtomically(path, QByteArray::fromStdString(text)); !why.isEmpty()) {
        if (error)
            *error = QObject::tr("%1: cannot write: %2").arg(path, why);
        return {};
    }
    return path;
}

QString saveUserPresetAsking(const QString &subfolder, const QString &id, const QString &builtinName,
                             const nlohmann::json &preset, const QString &savedPath,
                             const std::function<bool(const QString &question)> &confirm, QString *error)
{
    const QString path =
        userPresetDir() + QLatin1Char('/') + subfolder + QLatin1Char('/') + id + QStringLiteral(".json");
    QString question;
    if (!builtinName.isEmpty())
        question =
            QObject::tr("“%1” is the id of the built-in preset “%2”. Saving under this id replaces it everywhere "
                        "(in the application and on the command line) until you delete %3.\n\nReplace the "
                        "built-in preset?")
                .arg(id, builtinName, path);
    else if (QFileInfo::exists(path) && path != savedPath)
        question = QObject::tr("A user preset “%1” already exists (%2). Replace it?").arg(id, path);
    if (!question.isEmpty() && !confirm(question)) {
        if (error)
            error->clear();
        return {};
    }
    return saveUserPreset(subfolder, id, preset, error);
}

bool isBuiltinPreset(const std::string &sourceFile) { return sourceFile.rfind("presets/", 0) == 0; }

} // namespace memwall::ui
