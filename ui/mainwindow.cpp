#include "ui/mainwindow.h"

#include "ui/document/scenariodocument.h"

#include <QMessageBox>
#include <QStatusBar>

namespace memwall::ui {

MainWindow::MainWindow(ScenarioDocument *doc, QWidget *parent) : QMainWindow(parent), m_doc(doc)
{
    setWindowTitle(tr("MemWall"));
    resize(1600, 1000);
}

bool MainWindow::openScenario(const QString &path)
{
    QString error;
    if (!m_doc->open(path, &error)) {
        QMessageBox::warning(this, tr("Cannot open scenario"), error);
        return false;
    }
    return true;
}

void MainWindow::reportPresetIssues()
{
    const auto &issues = m_doc->presets().issues();
    if (!issues.empty())
        statusBar()->showMessage(tr("%n preset file(s) skipped: %1", nullptr, static_cast<int>(issues.size()))
                                     .arg(QString::fromStdString(issues.front().message)));
}

} // namespace memwall::ui
