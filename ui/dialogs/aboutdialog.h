#pragma once

#include "core/io/presets.h"

#include <QDialog>
#include <QString>

class QTextBrowser;

namespace memwall::ui {

/// Help › About: version, what MemWall is, and where every number comes from — the papers behind the model and the
/// charts, the vendor datasheets of each device preset (its first source), the model cards, and how many presets
/// are loaded. Selectable text with clickable links.
class AboutDialog : public QDialog
{
    Q_OBJECT
public:
    explicit AboutDialog(const core::PresetLibrary &presets, QWidget *parent = nullptr);

    /// The dialog's text (HTML), built from the library; pure, for tests.
    static QString html(const core::PresetLibrary &presets);
    QTextBrowser *browser() const { return m_browser; }

private:
    QTextBrowser *m_browser;
};

} // namespace memwall::ui
