#include "ui/document/scenariofiles.h"

#include "core/io/hfconfig.h"
#include "ui/document/scenariodocument.h"

#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMainWindow>
#include <QMessageBox>
#include <QScopeGuard>
#include <QSettings>
#include <QStatusBar>

namespace memwall::ui {

ScenarioFiles::ScenarioFiles(ScenarioDocument *doc, QMainWindow *window) : QObject(window), m_doc(doc), m_window(window)
{
}

void ScenarioFiles::showStatus(const QString &message, int ms) { m_window->statusBar()->showMessage(message, ms); }

void ScenarioFiles::showError(const QString &title, const QString &text)
{
    auto *box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, m_window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();
}

bool ScenarioFiles::openScenario(const QString &path)
{
    QString error;
    if (!m_doc->open(path, &error)) {
        showError(tr("Cannot open scenario"), error);
        return false;
    }
    showStatus(tr("Opened %1").arg(QFileInfo(path).fileName()), 5000);
    return true;
}

bool ScenarioFiles::openModelConfig(const QString &path)
{
    std::vector<std::string> report;
    try {
        // The largest config read (8 MB, two million NaN) takes a quarter of a second: a busy cursor says so.
        QGuiApplication::setOverrideCursor(Qt::WaitCursor);
        const auto restoreCursor = qScopeGuard([] { QGuiApplication::restoreOverrideCursor(); });
        const core::HfImport in = core::importHfConfigFileReport(path.toStdString());
        m_doc->setModel(in.shape, true);
        report = in.report;
    } catch (const std::exception &e) {
        showError(tr("Cannot import model"), QString::fromStdString(e.what()));
        return false;
    }
    // The import report (quantization read, MTP modules, keys given their defaults) follows, one clause each.
    QString message =
        tr("Imported %1 from %2").arg(QString::fromStdString(m_doc->model().name), QFileInfo(path).fileName());
    for (const std::string &line : report)
        message += QStringLiteral("; ") + QString::fromStdString(line);
    showStatus(message, report.empty() ? 5000 : 15000);
    return true;
}

void ScenarioFiles::copyLink()
{
    QString error;
    const QString link = m_doc->link(&error);
    if (link.isEmpty()) {
        showStatus(error, 8000);
        showError(tr("Cannot copy link"), error);
        return;
    }
    QGuiApplication::clipboard()->setText(link);
    showStatus(tr("Copied a link to this scenario (%n characters)", nullptr, int(link.size())), 5000);
}

bool ScenarioFiles::openLink(const QString &link)
{
    QString error;
    if (!m_doc->openLink(link, &error)) {
        showStatus(error, 10000);
        showError(tr("Cannot open link"), error);
        return false;
    }
    showStatus(tr("Opened the scenario of a link (Ctrl+Z goes back)"), 5000);
    return true;
}

bool ScenarioFiles::openDroppedFile(const QString &path)
{
    return ScenarioDocument::isScenarioFile(path) ? openScenario(path) : openModelConfig(path);
}

void ScenarioFiles::restoreLastScenario()
{
    QSettings settings;
    const QString last = settings.value("files/lastScenario").toString();
    if (last.isEmpty() || !QFileInfo::exists(last)) {
        m_doc->startFirstLaunch();
        return;
    }
    QString error;
    if (!m_doc->open(last, &error))
        showStatus(tr("Could not reopen %1: %2").arg(QFileInfo(last).fileName(), error), 8000);
}

bool ScenarioFiles::save()
{
    if (m_doc->filePath().isEmpty())
        return saveAs();
    QString error;
    if (!m_doc->save(m_doc->filePath(), &error)) {
        showError(tr("Cannot save"), error);
        return false;
    }
    showStatus(tr("Saved %1").arg(QFileInfo(m_doc->filePath()).fileName()), 5000);
    return true;
}

bool ScenarioFiles::saveAs()
{
    QString path = QFileDialog::getSaveFileName(m_window, tr("Save scenario"), m_doc->filePath(),
                                                tr("MemWall scenarios (*.memwall.json);;JSON (*.json)"));
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive))
        path += QStringLiteral(".memwall.json");
    QString error;
    if (!m_doc->save(path, &error)) {
        showError(tr("Cannot save"), error);
        return false;
    }
    return true;
}

} // namespace memwall::ui
