#pragma once

#include "ui/charts/charttabs.h"
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

    /// Opens a scenario file; a broken file shows a message and changes nothing.
    bool openScenario(const QString &path);
    /// Imports a Hugging Face config.json as the model (undoable); a broken file shows a message and changes nothing.
    bool openModelConfig(const QString &path);
    /// A dropped file: a scenario (kind "scenario" or *.memwall.json) or else a model config.json.
    bool openDroppedFile(const QString &path);
    /// Edit › Copy link: the scenario as a memwall: link on the clipboard (core/io/scenariolink.h).
    void copyLink();
    /// Opens a memwall: link as one undo step; a bad link shows its one-line error (status bar and a message) and
    /// changes nothing.
    bool openLink(const QString &link);
    /// Opens the scenario open at the last exit, if it still opens (silently skipped otherwise). Without one (a first
    /// launch), Llama 2 70B on two H100s (tp 2): the product opens on a scenario that fits.
    void restoreLastScenario();
    /// Shows skipped preset files (if any) in the status bar and a dialog-free notification.
    void reportPresetIssues();

    /// Saves to the current file, or asks for one. False if cancelled or failed (with a message).
    bool save();
    bool saveAs();
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
    /// A window-modal message that does not block the caller.
    void showError(const QString &title, const QString &text);
    void saveSettings();

    ScenarioDocument *m_doc;
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
