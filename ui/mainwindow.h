#pragma once

#include "ui/charts/charttabs.h"
#include "ui/document/scenariofiles.h"
#include "ui/settings/theme.h"

#include <QMainWindow>

#include <memory>
#include <vector>

class QDockWidget;

namespace memwall::ui {

class ChartBase;
class ControlsPanel;
class HeadlineBar;
class LessonActions;
class MainWindowActions;
class OperatorTable;
class ScenarioDocument;

/// Assembles docks, charts, menus and actions around one ScenarioDocument — nothing else: the controls dock (left),
/// the operator table dock (bottom), the headline bar and one tab per chart in the centre. Accepts dropped
/// Hugging Face config.json and .memwall.json files, and memwall: links as text; remembers geometry, docks, theme and
/// recent files.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(ScenarioDocument *doc, QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Files and links (ScenarioFiles): opening a scenario, a config.json, a dropped file or a memwall: link, copying
    /// the link, reopening the last scenario.
    ScenarioFiles *files() const { return m_files; }
    bool openScenario(const QString &path) { return m_files->openScenario(path); }
    bool openModelConfig(const QString &path) { return m_files->openModelConfig(path); }
    bool openDroppedFile(const QString &path) { return m_files->openDroppedFile(path); }
    void copyLink() { m_files->copyLink(); }
    bool openLink(const QString &link) { return m_files->openLink(link); }
    void restoreLastScenario() { m_files->restoreLastScenario(); }
    /// Shows skipped preset files (if any) in the status bar and a dialog-free notification.
    void reportPresetIssues();

    /// Saves to the current file, or asks for one. False if cancelled or failed (with a message).
    bool save() { return m_files->save(); }
    bool saveAs() { return m_files->saveAs(); }
    void applyTheme(const QString &id);
    const Theme &theme() const { return m_theme; }
    void toggleFullScreen();
    void showAbout();

    ScenarioDocument *document() const { return m_doc; }
    ControlsPanel *controls() const { return m_controls; }
    OperatorTable *operatorTable() const { return m_table; }
    HeadlineBar *headline() const { return m_headline; }
    ChartTabs *chartTabs() const { return m_tabs; }
    /// The Lessons menu, its panel and the presentation window.
    LessonActions *lessonActions() const { return m_lessons; }
    const std::vector<std::unique_ptr<ChartBase>> &charts() const;
    MainWindowActions *actions() const { return m_actions; }
    QDockWidget *controlsDock() const { return m_controlsDock; }
    QDockWidget *tableDock() const { return m_tableDock; }

protected:
    /// On a small screen (a projector at 1280x720) the charts keep three fifths of the window's height, and at
    /// least half on any screen: the operator table gives up height first.
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void keepChartsTall();
    /// Moves and shrinks the window (frame included) into the free area of the screen it is on (or the primary one
    /// when it is on none): fitToScreen(). A maximised or full-screen window is left alone.
    void keepOnScreen();
    /// Export, compare, custom presets, lessons: the feature menus and docks.
    void buildFeatures();
    void updateTitle();
    void saveSettings();

    ScenarioDocument *m_doc;
    ScenarioFiles *m_files;
    ControlsPanel *m_controls;
    OperatorTable *m_table;
    HeadlineBar *m_headline;
    ChartTabs *m_tabs;
    QDockWidget *m_controlsDock;
    QDockWidget *m_tableDock;
    LessonActions *m_lessons = nullptr;
    MainWindowActions *m_actions;
    Theme m_theme;
};

} // namespace memwall::ui
