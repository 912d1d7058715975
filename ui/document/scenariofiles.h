#pragma once

#include <QObject>
#include <QString>

class QMainWindow;

namespace memwall::ui {

class ScenarioDocument;

/// What the window does with files and links for its ScenarioDocument: open a scenario or a Hugging Face
/// config.json, save, copy and open memwall: links, reopen the last scenario. A failure shows a window-modal message
/// (and, for links, its one-line error in the status bar) and changes nothing; a success says so in the status bar.
class ScenarioFiles : public QObject
{
    Q_OBJECT
public:
    /// `window` parents the dialogs and messages and owns the status bar they report in.
    ScenarioFiles(ScenarioDocument *doc, QMainWindow *window);

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
    /// Saves to the current file, or asks for one. False if cancelled or failed (with a message).
    bool save();
    bool saveAs();

private:
    /// A window-modal message that does not block the caller.
    void showError(const QString &title, const QString &text);
    void showStatus(const QString &message, int ms);

    ScenarioDocument *m_doc;
    QMainWindow *m_window;
};

} // namespace memwall::ui
