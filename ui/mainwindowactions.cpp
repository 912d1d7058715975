#include "ui/mainwindowactions.h"

#include "core/io/scenariolink.h"
#include "ui/dialogs/helpdialog.h"
#include "ui/document/scenariodocument.h"
#include "ui/mainwindow.h"
#include "ui/settings/settingsfile.h"
#include "ui/settings/theme.h"
#include "ui/widgets/operatortable.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QKeyEvent>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>

#include <algorithm>

namespace memwall::ui {

namespace {
constexpr int kMaxRecent = 8;
const char *const kRecentKey = "files/recent";

/// F1 is Help in the window, and "show the formula" on a headline figure or a cell of the operator table (their own
/// F1 actions). Two actions on one key cancel each other in Qt's shortcut map ("ambiguous"), so where the focus has
/// its own F1 this filter runs that one and the window's waits.
class LocalHelpKeyFirst : public QObject
{
public:
    explicit LocalHelpKeyFirst(QWidget *window) : QObject(window), m_window(window) {}

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        const QEvent::Type type = event->type();
        if (type != QEvent::ShortcutOverride && type != QEvent::KeyPress)
            return false;
        auto *key = static_cast<QKeyEvent *>(event);
        auto *widget = qobject_cast<QWidget *>(watched);
        if (!key->matches(QKeySequence::HelpContents) || !widget || widget->window() != m_window)
            return false;
        QAction *own = ownHelpAction(widget);
        if (!own)
            return false;
        if (type == QEvent::ShortcutOverride)
            event->accept(); // a key press for the focused widget, not a shortcut
        else
            own->trigger();
        return true;
    }

private:
    static QAction *ownHelpAction(QWidget *focus)
    {
        for (QWidget *w = focus; w && !w->isWindow(); w = w->parentWidget())
            for (QAction *a : w->actions())
                if (a->isEnabled() && a->shortcuts().contains(QKeySequence(QKeySequence::HelpContents)) &&
                    (a->shortcutContext() == Qt::WidgetWithChildrenShortcut ||
                     (a->shortcutContext() == Qt::WidgetShortcut && w == focus)))
                    return a;
        return nullptr;
    }

    QWidget *m_window;
};
} // namespace

MainWindowActions::MainWindowActions(MainWindow *window, ScenarioDocument *doc)
    : QObject(window), m_window(window), m_doc(doc)
{
    auto make = [this](const QString &text, const QKeySequence &key, const QString &tip) {
        auto *a = new QAction(text, m_window);
        if (!key.isEmpty())
            a->setShortcut(key);
        a->setStatusTip(tip);
        a->setToolTip(tip);
        return a;
    };

    // ---- File ----
    QMenu *file = m_window->menuBar()->addMenu(tr("&File"));
    m_open = make(tr("&Open scenario…"), QKeySequence::Open, tr("Open a saved .memwall.json scenario."));
    m_save = make(tr("&Save"), QKeySequence::Save, tr("Save the scenario to its file."));
    m_saveAs =
        make(tr("Save &As…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), tr("Save the scenario to a new file."));
    m_openConfig =
        make(tr("Open &config.json…"), QKeySequence(), tr("Import a Hugging Face config.json as the model."));
    m_quit = make(tr("&Quit"), QKeySequence(Qt::CTRL | Qt::Key_Q), tr("Close MemWall."));
    m_quit->setMenuRole(QAction::QuitRole);
    connect(m_open, &QAction::triggered, this, &MainWindowActions::openScenarioDialog);
    connect(m_save, &QAction::triggered, m_window, &MainWindow::save);
    connect(m_saveAs, &QAction::triggered, m_window, &MainWindow::saveAs);
    connect(m_openConfig, &QAction::triggered, this, &MainWindowActions::openConfigDialog);
    connect(m_quit, &QAction::triggered, m_window, &QWidget::close);
    file->addAction(m_open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setToolTipsVisible(true);
    file->addAction(m_openConfig);
    file->addSeparator();
    file->addAction(m_save);
    file->addAction(m_saveAs);
    file->addSeparator();
    file->addAction(m_quit);
    rebuildRecentMenu();

    // ---- Edit ----
    QMenu *edit = m_window->menuBar()->addMenu(tr("&Edit"));
    m_undo = doc->undoStack()->createUndoAction(m_window, tr("&Undo"));
    m_undo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    m_redo = doc->undoStack()->createRedoAction(m_window, tr("&Redo"));
    m_redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
    // Their texts name the step to undo ("Undo Lesson step"); Help lists them by what they do.
    m_undo->setProperty("helpText", tr("Undo"));
    m_redo->setProperty("helpText", tr("Redo"));
    m_copyTable = make(tr("&Copy table as CSV"), QKeySequence(), tr("Copy the operator table, as shown, as CSV."));
    connect(m_copyTable, &QAction::triggered, m_window, [this] { m_window->operatorTable()->copyCsv(); });
    // Share a scenario as a memwall: link (issue #41). Ctrl+V outside a text field opens a link on the clipboard: a
    // focused line edit or spin box claims Ctrl+V for itself first (ShortcutOverride), so typing is never taken.
    m_copyLink = make(tr("Copy &link"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L),
                      tr("Copy the scenario as a memwall: link, which opens it in another MemWall."));
    m_copyLink->setObjectName("action:copyLink");
    m_openLink = make(tr("Open lin&k…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V),
                      tr("Open a scenario from a memwall: link (one undo step)."));
    m_openLink->setObjectName("action:openLink");
    m_pasteLink = make(tr("&Paste link"), QKeySequence::Paste,
                       tr("Open the memwall: link on the clipboard (outside a text field; one undo step)."));
    m_pasteLink->setObjectName("action:pasteLink");
    connect(m_copyLink, &QAction::triggered, m_window, &MainWindow::copyLink);
    connect(m_openLink, &QAction::triggered, this, &MainWindowActions::openLinkDialog);
    connect(m_pasteLink, &QAction::triggered, this, &MainWindowActions::pasteLink);
    edit->addAction(m_undo);
    edit->addAction(m_redo);
    edit->addSeparator();
    edit->addAction(m_copyTable);
    edit->addSeparator();
    edit->addAction(m_copyLink);
    edit->addAction(m_openLink);
    edit->addAction(m_pasteLink);

    // ---- View (dock toggles and chart actions are added by addViewActions) ----
    m_viewMenu = m_window->menuBar()->addMenu(tr("&View"));
    m_themes = new QActionGroup(this);
    m_themes->setExclusive(true);
    QMenu *themeMenu = m_viewMenu->addMenu(tr("&Theme"));
    for (const QString &id : Theme::ids()) {
        QAction *a = themeMenu->addAction(Theme::byId(id).name);
        a->setCheckable(true);
        a->setData(id);
        a->setStatusTip(tr("Colours and fonts of the window and every chart."));
        m_themes->addAction(a);
    }
    connect(m_themes, &QActionGroup::triggered, m_window,
            [this](QAction *a) { m_window->applyTheme(a->data().toString()); });
    m_fullScreen = make(tr("&Full screen"), QKeySequence(Qt::Key_F11), tr("Fill the screen (for teaching)."));
    m_fullScreen->setCheckable(true);
    connect(m_fullScreen, &QAction::triggered, m_window, &MainWindow::toggleFullScreen);
    m_viewMenu->addAction(m_fullScreen);
    m_window->addAction(m_fullScreen); // F11 also works when the menu bar is hidden

    // ---- Help ----
    QMenu *help = m_window->menuBar()->addMenu(tr("&Help"));
    m_help = make(tr("&Getting started and shortcuts…"), QKeySequence::HelpContents,
                  tr("What the window shows, what to try first, and every keyboard shortcut."));
    m_help->setObjectName("action:help");
    connect(m_help, &QAction::triggered, this, &MainWindowActions::showHelp);
    help->addAction(m_help);
    m_window->addAction(m_help); // F1 also works when the menu bar is hidden
    qApp->installEventFilter(new LocalHelpKeyFirst(m_window));
    m_about = make(tr("&About MemWall"), QKeySequence(), tr("Version and what MemWall shows."));
    m_about->setMenuRole(QAction::AboutRole);
    connect(m_about, &QAction::triggered, m_window, &MainWindow::showAbout);
    help->addAction(m_about);
}

void MainWindowActions::addViewActions(const QList<QAction *> &dockToggles, const QStringList &chartNames)
{
    QAction *first = m_viewMenu->actions().value(0);
    for (QAction *toggle : dockToggles)
        m_viewMenu->insertAction(first, toggle);
    m_viewMenu->insertSeparator(first);
    for (int i = 0; i < chartNames.size(); ++i) {
        auto *a = new QAction(chartNames[i], m_window);
        if (i < 9)
            a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
        a->setStatusTip(tr("Show the %1 chart.").arg(chartNames[i]));
        connect(a, &QAction::triggered, m_window, [this, i] { m_window->chartTabs()->setCurrentIndex(i); });
        m_viewMenu->insertAction(first, a);
        m_window->addAction(a);
        m_chartActions << a;
    }
    m_viewMenu->insertSeparator(first);
}

void MainWindowActions::setThemeChecked(const QString &id)
{
    for (QAction *a : m_themes->actions())
        a->setChecked(a->data().toString() == id);
}

QStringList MainWindowActions::recentFiles() const
{
    // Capped on reading too: a settings file holding 20,000 entries built a 20,000-item menu.
    return QSettings().value(kRecentKey).toStringList().mid(0, kMaxRecent);
}

QString MainWindowActions::addRecentFile(const QString &path)
{
    QStringList files = recentFiles();
    const QString abs = QFileInfo(path).absoluteFilePath();
    files.removeAll(abs);
    files.prepend(abs);
    while (files.size() > kMaxRecent)
        files.removeLast();
    QSettings settings;
    settings.setValue(kRecentKey, files);
    rebuildRecentMenu();
    return syncSettings(settings);
}

void MainWindowActions::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        QAction *a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(files[i]).fileName()));
        a->setToolTip(files[i]);
        a->setEnabled(QFileInfo::exists(files[i]));
        connect(a, &QAction::triggered, m_window, [this, path = files[i]] { m_window->openScenario(path); });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindowActions::openScenarioDialog()
{
    const QString path =
        QFileDialog::getOpenFileName(m_window, tr("Open scenario"), QFileInfo(m_doc->filePath()).path(),
                                     tr("MemWall scenarios (*.memwall.json *.json)"));
    if (!path.isEmpty())
        m_window->openScenario(path);
}

HelpDialog *MainWindowActions::helpDialog() const { return m_helpDialog; }

void MainWindowActions::showHelp()
{
    if (!m_helpDialog) {
        m_helpDialog = new HelpDialog(m_window, m_window);
        m_helpDialog->setAttribute(Qt::WA_DeleteOnClose);
    } else {
        m_helpDialog->browser()->setHtml(HelpDialog::html(m_window)); // the actions as they are now
    }
    m_helpDialog->show();
    m_helpDialog->raise();
    m_helpDialog->activateWindow();
}

void MainWindowActions::openConfigDialog()
{
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Import a Hugging Face config.json"), QString(),
                                                      tr("Model configs (*.json)"));
    if (!path.isEmpty())
        m_window->openModelConfig(path);
}

void MainWindowActions::openLinkDialog()
{
    const QString clip = QGuiApplication::clipboard()->text().trimmed();
    QInputDialog dialog(m_window);
    dialog.setWindowTitle(tr("Open link"));
    dialog.setLabelText(tr("A memwall: link to a scenario:"));
    dialog.setTextValue(core::isScenarioLink(clip.toStdString()) ? clip : QString());
    dialog.resize(std::max(dialog.sizeHint().width(), m_window->width() / 2), dialog.sizeHint().height()); // room
    if (dialog.exec() == QDialog::Accepted && !dialog.textValue().trimmed().isEmpty())
        m_window->openLink(dialog.textValue());
}

void MainWindowActions::pasteLink()
{
    const QString clip = QGuiApplication::clipboard()->text();
    if (!core::isScenarioLink(clip.toStdString())) {
        m_window->statusBar()->showMessage(tr("The clipboard holds no memwall: link"), 5000);
        return;
    }
    m_window->openLink(clip);
}

} // namespace memwall::ui
