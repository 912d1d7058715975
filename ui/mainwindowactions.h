#pragma once

#include <QObject>
#include <QPointer>
#include <QStringList>

class QAction;
class QActionGroup;
class QMenu;

namespace memwall::ui {

class HelpDialog;
class MainWindow;
class ScenarioDocument;

/// The window's menus and actions (File, Edit, View, Help) and the recent-files list, so MainWindow only assembles.
/// Dialogs for choosing files and links live here; the work they start is MainWindow's (openScenario, openModelConfig,
/// save).
class MainWindowActions : public QObject
{
    Q_OBJECT
public:
    MainWindowActions(MainWindow *window, ScenarioDocument *doc);

    QAction *openAction() const { return m_open; }
    QAction *saveAction() const { return m_save; }
    QAction *saveAsAction() const { return m_saveAs; }
    QAction *openConfigAction() const { return m_openConfig; }
    QAction *undoAction() const { return m_undo; }
    QAction *redoAction() const { return m_redo; }
    QAction *copyTableAction() const { return m_copyTable; }
    QAction *copyLinkAction() const { return m_copyLink; }
    QAction *openLinkAction() const { return m_openLink; }
    QAction *pasteLinkAction() const { return m_pasteLink; }
    QAction *fullScreenAction() const { return m_fullScreen; }
    QAction *helpAction() const { return m_help; }
    /// The Getting started page, while it is open; else nullptr.
    HelpDialog *helpDialog() const;
    const QList<QAction *> &chartActions() const { return m_chartActions; }
    QActionGroup *themeGroup() const { return m_themes; }
    QMenu *recentMenu() const { return m_recentMenu; }

    /// Adds one action per chart tab to the View menu (Ctrl+1…Ctrl+9) and the dock toggles.
    void addViewActions(const QList<QAction *> &dockToggles, const QStringList &chartNames);
    /// Checks the theme action of that id.
    void setThemeChecked(const QString &id);

    /// Remembers a file in the recent list (QSettings), newest first, at most 8. Returns why the settings could not
    /// be saved (syncSettings()), or an empty string.
    QString addRecentFile(const QString &path);
    QStringList recentFiles() const;

public slots:
    void openScenarioDialog();
    void openConfigDialog();
    /// Help › Getting started (F1): opens the page, or brings it to the front.
    void showHelp();
    /// Edit › Open link…: asks for a link (the clipboard's, if it holds one, filled in); MainWindow::openLink opens it.
    void openLinkDialog();
    /// Ctrl+V outside a text field: opens the link on the clipboard, or says there is none.
    void pasteLink();

private:
    void rebuildRecentMenu();

    MainWindow *m_window;
    ScenarioDocument *m_doc;
    QAction *m_open, *m_save, *m_saveAs, *m_openConfig, *m_quit;
    QAction *m_undo, *m_redo, *m_copyTable, *m_copyLink, *m_openLink, *m_pasteLink;
    QAction *m_fullScreen, *m_about, *m_help;
    QPointer<HelpDialog> m_helpDialog;
    QMenu *m_viewMenu, *m_recentMenu;
    QActionGroup *m_themes;
    QList<QAction *> m_chartActions;
};

} // namespace memwall::ui
