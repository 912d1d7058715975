#pragma once
// Drives the main window as a person does (pickers, option combos, typed numbers) and grabs what the screen shows.
// Shared by tst_mainwindow and the screenshot tool (tests/tools/screenshots.cpp).

#include "ui/charts/chartbase.h"
#include "ui/charts/charttabs.h"
#include "ui/controls/controlspanel.h"
#include "ui/controls/optioncontrol.h"
#include "ui/controls/presetpicker.h"
#include "ui/mainwindow.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QScreen>
#include <QTest>

namespace windowdriver {

/// Picks `id` in the picker named `picker` ("modelPicker", "devicePicker") as a person does: its row, then the
/// activation a click or Return sends. False when the picker or the row is missing.
inline bool pick(memwall::ui::MainWindow *window, const char *picker, const QString &id)
{
    auto *p = window->findChild<memwall::ui::PresetPicker *>(picker);
    const int row = p ? p->findData(id) : -1;
    if (row < 0)
        return false;
    p->setCurrentIndex(row);
    emit p->activated(row);
    return true;
}

/// Picks `text` in the combo of the scenario option `key` (the Options group), as a person does.
inline bool choose(memwall::ui::MainWindow *window, const char *key, const QString &text)
{
    memwall::ui::OptionControl *control = window->findChild<memwall::ui::ControlsPanel *>()->optionControl(key);
    auto *combo = control ? qobject_cast<QComboBox *>(control->editor()) : nullptr;
    const int row = combo ? combo->findText(text) : -1;
    if (row < 0)
        return false;
    combo->setCurrentIndex(row);
    emit combo->activated(row);
    return true;
}

/// Types `text` into `box` and presses Return, as a person does.
inline void type(QAbstractSpinBox *box, const QString &text)
{
    box->setFocus();
    box->selectAll();
    QTest::keyClicks(box, text);
    QTest::keyClick(box, Qt::Key_Return);
}

/// The window as the screen shows it, saved beside `out` with `suffix` before ".png".
inline bool grabAs(memwall::ui::MainWindow *window, const QString &out, const char *suffix)
{
    QString path = out;
    path.replace(".png", QLatin1String(suffix) + QLatin1String(".png"));
    return window->screen()->grabWindow(window->winId()).save(path);
}

/// Shows the tab of chart `id` (tabs follow the chart registry); its chart, or null.
inline memwall::ui::ChartBase *showTab(memwall::ui::MainWindow *window, const char *id)
{
    for (int i = 0; i < window->chartTabs()->count(); ++i)
        if (window->charts()[std::size_t(i)]->id() == QLatin1String(id)) {
            window->chartTabs()->setCurrentIndex(i);
            return window->charts()[std::size_t(i)].get();
        }
    return nullptr;
}

} // namespace windowdriver
