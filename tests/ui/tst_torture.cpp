// The interaction torture test: a whole MainWindow driven by thousands of random but reproducible user actions
// (slider drags, typed spin-box values in and out of range, pickers, precisions, parallelism including invalid
// splits, toggles, what-if, tabs, wheel zoom / drag pan / double-click on the charts, point and row clicks, table
// sort and filter, undo/redo, export, broken and hostile files, compare devices, themes, resizes). After every action
// the window must be consistent: the document's selection in range, the controls showing the document, the operator
// table as long as the analysis, the undo index within the stack, every number behind every chart finite, every
// series point and axis range finite, no modal dialog left blocking.
//
// MEMWALL_TORTURE_STEPS (default 3000) sets the number of actions, MEMWALL_TORTURE_SEED replays a run (default seed
// 20261202, so CI is reproducible; MEMWALL_TORTURE_SEED=random draws a new one; the seed is
// printed at the start and in every failure, with the step number and the action), MEMWALL_TORTURE_VERBOSE=1 prints
// every action as it runs. A crash prints the last action too (signal handler, and the sanitizers' death callback),
// and so does a hang: an action running longer than MEMWALL_TORTURE_HANG_SECONDS (default 30) aborts the run.
#include "ui/charts/chartbase.h"
#include "ui/controls/controlspanel.h"
#include "ui/controls/logslider.h"
#include "ui/controls/presetpicker.h"
#include "ui/controls/whatifgroup.h"
#include "ui/document/scenariodocument.h"
#include "ui/export/chartexporter.h"
#include "ui/mainwindow.h"
#include "ui/mainwindowactions.h"
#include "ui/widgets/operatortable.h"
#include "ui/widgets/operatortablemodel.h"

#include "core/analysis/options.h"
#include "core/io/scenariofile.h"
#include "painted.h"

#include <QAbstractBarSeries>
#include <QAction>
#include <QAreaSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSettings>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>
#include <QValueAxis>
#include <QXYSeries>
#include <QtTest>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define MEMWALL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#define MEMWALL_SANITIZED 1
#endif
#endif

using namespace memwall;
using memwall::ui::MainWindow;
using memwall::ui::ScenarioDocument;

namespace {

// ---- crash reporting: the step being run, written where a signal handler can reach it ----
char g_lastAction[1024] = "tst_torture: no action yet\n";
std::size_t g_lastActionLen = std::strlen(g_lastAction);
struct sigaction g_previous[32];

void writeLastAction() { [[maybe_unused]] const auto n = ::write(2, g_lastAction, g_lastActionLen); }

extern "C" void onFatalSignal(int sig)
{
    writeLastAction();
    // Hand over to whoever handled it before (QtTest's crash handler, the sanitizer); a fault re-faults into it.
    sigaction(sig, &g_previous[sig], nullptr);
    if (sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL)
        raise(sig);
}

void installCrashReport()
{
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
        struct sigaction sa = {};
        sa.sa_handler = onFatalSignal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(sig, &sa, &g_previous[sig]);
    }
#ifdef MEMWALL_SANITIZED
    __sanitizer_set_death_callback(writeLastAction);
#endif
}

/// Aborts with the last action when one step runs for longer than `seconds` (a hang inside the application): the
/// step counter is the heartbeat. Stops with the object.
class HangGuard
{
public:
    explicit HangGuard(int seconds)
        : m_thread([this, seconds] {
              int last = -1;
              auto since = std::chrono::steady_clock::now();
              while (!m_stop.load()) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(200));
                  const int now = m_beat.load();
                  if (now != last) {
                      last = now;
                      since = std::chrono::steady_clock::now();
                  } else if (std::chrono::steady_clock::now() - since > std::chrono::seconds(seconds)) {
                      static const char hung[] = "tst_torture: HANG: one action has been running for too long:\n";
                      [[maybe_unused]] const auto n = ::write(2, hung, sizeof hung - 1);
                      std::abort(); // the SIGABRT handler prints the action
                  }
              }
          })
    {
    }
    ~HangGuard()
    {
        m_stop = true;
        m_thread.join();
    }
    void beat() { ++m_beat; }

private:
    std::atomic<int> m_beat{0};
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

bool isFiniteNumber(double v) { return std::isfinite(v); }

/// The first non-finite number in a JSON document, as a path ("series/2/points/7/1"), or empty.
QString firstNonFinite(const nlohmann::json &j, const QString &path = QString())
{
    if (j.is_number_float())
        return isFiniteNumber(j.get<double>()) ? QString() : (path.isEmpty() ? QStringLiteral("/") : path);
    if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) {
            const QString bad = firstNonFinite(j[i], path + '/' + QString::number(i));
            if (!bad.isEmpty())
                return bad;
        }
    } else if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            const QString bad = firstNonFinite(it.value(), path + '/' + QString::fromStdString(it.key()));
            if (!bad.isEmpty())
                return bad;
        }
    }
    return {};
}

QString badPoints(const QXYSeries *s)
{
    const QList<QPointF> pts = s->points();
    for (int i = 0; i < pts.size(); ++i)
        if (!isFiniteNumber(pts[i].x()) || !isFiniteNumber(pts[i].y()))
            return QStringLiteral("series '%1' point %2 = (%3, %4)")
                .arg(s->name())
                .arg(i)
                .arg(pts[i].x())
                .arg(pts[i].y());
    return {};
}

std::string stateOf(const ScenarioDocument &doc) { return core::toJson(doc.file()).dump(); }

} // namespace

class TstTorture : public QObject
{
    Q_OBJECT

private:
    std::shared_ptr<core::PresetLibrary> m_lib;
    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_dir;
    QRandomGenerator m_rng;
    quint32 m_seed = 0;
    int m_step = 0;
    QString m_action;
    QStringList m_history;         ///< the last few actions, for failure messages
    QStringList m_blocked;         ///< actions during which a modal dialog or popup had to be closed by the watchdog
    QMap<QString, int> m_warnings; ///< Qt warnings seen (text -> count)
    QMap<QString, int> m_counts;   ///< how often each kind of action ran
    std::vector<QString> m_brokenScenarios, m_brokenConfigs, m_hostileScenarios, m_goodConfigs;
    QString m_savedPath;
    std::string m_savedState;
    int m_lastClicked = -2;

    // ---- small helpers ----
    int pick(int n) { return n <= 0 ? 0 : static_cast<int>(m_rng.bounded(static_cast<quint32>(n))); }
    bool chance(double p) { return m_rng.generateDouble() < p; }
    template <typename T>
    const T &pickFrom(const std::vector<T> &v)
    {
        return v[static_cast<std::size_t>(pick(static_cast<int>(v.size())))];
    }

    void begin(const QString &what)
    {
        m_action = what;
        const QByteArray line = QStringLiteral("tst_torture: seed %1, step %2: %3 (replay: MEMWALL_TORTURE_SEED=%1 "
                                               "MEMWALL_TORTURE_STEPS=%4)\n")
                                    .arg(m_seed)
                                    .arg(m_step)
                                    .arg(what)
                                    .arg(m_step + 1)
                                    .toUtf8();
        g_lastActionLen = std::min<std::size_t>(static_cast<std::size_t>(line.size()), sizeof(g_lastAction) - 1);
        std::memcpy(g_lastAction, line.constData(), g_lastActionLen);
        if (qEnvironmentVariableIntValue("MEMWALL_TORTURE_VERBOSE"))
            qInfo("step %d: %s", m_step, qPrintable(what));
    }

    QString write(const QString &name, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

    QList<QMessageBox *> messageBoxes() const { return m_window->findChildren<QMessageBox *>(); }

    /// Closes the message boxes the window opened; returns their texts.
    QString takeMessages()
    {
        QString text;
        for (QMessageBox *box : messageBoxes()) {
            text += box->text() + ' ';
            box->close();
            delete box;
        }
        return text;
    }

    QChartView *currentView() const { return qobject_cast<QChartView *>(m_window->chartTabs()->currentWidget()); }
    ui::ChartBase *currentChart() const
    {
        const int i = m_window->chartTabs()->currentIndex();
        const auto &charts = m_window->charts();
        return i >= 0 && i < static_cast<int>(charts.size()) ? charts[static_cast<std::size_t>(i)].get() : nullptr;
    }
    ui::ControlsPanel *controls() const { return m_window->controls(); }

    /// What a user's pick in a combo box does: the keyboard (arrows, which emit activated()) or a click on an item.
    void chooseInCombo(QComboBox *box, int row)
    {
        if (!box->isEnabled())
            return;
        if (chance(0.3)) {
            box->setFocus();
            QTest::keyClick(box, chance(0.5) ? Qt::Key_Down : Qt::Key_Up);
            return;
        }
        box->setCurrentIndex(row);
        emit box->activated(row);
    }

    void typeInto(QAbstractSpinBox *spin, const QString &text, bool returnKey)
    {
        spin->setFocus();
        spin->selectAll();
        QTest::keyClicks(spin, text);
        if (returnKey)
            QTest::keyClick(spin, Qt::Key_Return);
        else
            m_window->chartTabs()->setFocus(); // focus out also finishes the edit
        spin->clearFocus();
    }

    /// A mouse drag of the slider's handle through a few random positions (one undo step), or the same through the
    /// slider's API (keyboard-less drag as the accessibility layer does it).
    void dragSlider(QSlider *slider)
    {
        const int moves = 1 + pick(6);
        if (chance(0.5) && slider->isVisible() && slider->isEnabled()) {
            const int len = slider->style()->pixelMetric(QStyle::PM_SliderLength, nullptr, slider);
            const int span = std::max(1, slider->width() - len);
            const int hx =
                QStyle::sliderPositionFromValue(slider->minimum(), slider->maximum(), slider->value(), span) + len / 2;
            const int y = slider->height() / 2;
            QTest::mousePress(slider, Qt::LeftButton, {}, QPoint(hx, y));
            for (int i = 0; i < moves; ++i)
                QTest::mouseMove(slider, QPoint(pick(slider->width() + 40) - 20, y));
            QTest::mouseRelease(slider, Qt::LeftButton, {}, QPoint(pick(slider->width()), y));
        } else {
            slider->setSliderDown(true);
            for (int i = 0; i < moves; ++i)
                slider->setValue(pick(ui::LogSlider::kSteps + 1));
            slider->setSliderDown(false);
        }
    }

    QString spinText(double lo, double hi, bool integer)
    {
        switch (pick(8)) {
        case 0: return QStringLiteral("0");
        case 1: return QStringLiteral("-%1").arg(1 + pick(100));
        case 2: return QString::number(hi * (2 + pick(1000)), 'f', integer ? 0 : 2); // far above
        case 3: return QStringLiteral("99999999999");
        case 4: return QStringLiteral("abc");
        case 5: return QString();
        case 6: return QString::number(lo / 10, 'f', integer ? 0 : 3);
        default: {
            const double v = lo * std::pow(hi / lo, m_rng.generateDouble());
            return QString::number(v, 'f', integer ? 0 : 2);
        }
        }
    }

    // ---- actions ----
    QString actLogSlider()
    {
        ui::WhatIfGroup *w = controls()->whatIfGroup();
        const std::array<std::pair<ui::LogSlider *, const char *>, 7> sliders{
            {{controls()->batchSlider(), "batch"},
             {controls()->promptSlider(), "prompt"},
             {controls()->contextSlider(), "context"},
             {controls()->outputSlider(), "output"},
             {w->computeSlider(), "what-if compute"},
             {w->bandwidthSlider(), "what-if bandwidth"},
             {w->capacitySlider(), "what-if capacity"}}};
        const auto [slider, name] = sliders[static_cast<std::size_t>(pick(static_cast<int>(sliders.size())))];
        const bool integer = slider->spinBox()->decimals() == 0;
        const int indexBefore = m_doc->undoStack()->index();
        switch (pick(3)) {
        case 0: {
            begin(QStringLiteral("drag the %1 slider").arg(name));
            dragSlider(slider->slider());
            const int index = m_doc->undoStack()->index();
            if (index > indexBefore + 1)
                return QStringLiteral("a drag made %1 undo steps").arg(index - indexBefore);
            break;
        }
        case 1: {
            const QString text = spinText(slider->spinBox()->minimum(), slider->spinBox()->maximum(), integer);
            const bool ret = chance(0.8);
            begin(
                QStringLiteral("type '%1' into the %2 spin box and press %3").arg(text, name, ret ? "Return" : "Tab"));
            typeInto(slider->spinBox(), text, ret);
            break;
        }
        default: {
            const double lo = slider->spinBox()->minimum(), hi = slider->spinBox()->maximum();
            const double v = chance(0.2) ? (chance(0.5) ? lo : hi) : lo * std::pow(hi / lo, m_rng.generateDouble());
            begin(QStringLiteral("set the %1 spin box to %2").arg(name).arg(v));
            slider->spinBox()->setValue(v);
            break;
        }
        }
        const double lo = slider->spinBox()->minimum(), hi = slider->spinBox()->maximum();
        if (!(slider->value() >= lo && slider->value() <= hi))
            return QStringLiteral("the %1 control holds %2 outside [%3, %4]")
                .arg(name)
                .arg(slider->value())
                .arg(lo)
                .arg(hi);
        return {};
    }

    QString actParallel()
    {
        const std::array<std::pair<QSpinBox *, const char *>, 3> spins{
            {{controls()->tpSpin(), "tp"}, {controls()->ppSpin(), "pp"}, {controls()->dpSpin(), "dp"}}};
        const auto [spin, name] = spins[static_cast<std::size_t>(pick(3))];
        static const std::vector<int> values{1, 1, 2, 2, 4, 8, 3, 5, 6, 7, 16, 64, 80, 100, 1024};
        if (chance(0.6)) {
            const int v = pickFrom(values);
            begin(QStringLiteral("set %1 to %2").arg(name).arg(v));
            spin->setValue(v);
        } else if (chance(0.5)) {
            const QString text = chance(0.5) ? QString::number(pickFrom(values)) : spinText(1, 1024, true);
            begin(QStringLiteral("type '%1' into %2 and press Return").arg(text, name));
            typeInto(spin, text, true);
        } else {
            const bool up = chance(0.5);
            begin(QStringLiteral("press %1 in %2").arg(up ? "Up" : "Down", name));
            spin->setFocus();
            QTest::keyClick(spin, up ? Qt::Key_Up : Qt::Key_Down);
            spin->clearFocus();
        }
        return {};
    }

    QString actPicker()
    {
        const bool device = chance(0.5);
        ui::PresetPicker *p = device ? controls()->devicePicker() : controls()->modelPicker();
        const char *name = device ? "device" : "model";
        if (chance(0.8)) {
            const int row = pick(p->count());
            begin(QStringLiteral("pick %1 '%2'").arg(name, p->itemData(row).toString()));
            p->setCurrentIndex(row);
            emit p->activated(row);
            return {};
        }
        // A half-typed search, abandoned: the picker must show the current preset again.
        static const std::vector<QString> fragments{"h1", "zzz", "llama", "a", "70", "sxm", " "};
        const QString text = pickFrom(fragments);
        begin(QStringLiteral("type '%1' into the %2 picker and leave it").arg(text, name));
        p->setFocus();
        p->lineEdit()->selectAll();
        QTest::keyClicks(p->lineEdit(), text);
        if (QWidget *popup = QApplication::activePopupWidget())
            popup->close();
        m_window->chartTabs()->setFocus();
        QFocusEvent out(QEvent::FocusOut, Qt::TabFocusReason);
        QApplication::sendEvent(p, &out);
        return {};
    }

    QString actCombo()
    {
        ui::ControlsPanel *c = controls();
        const std::array<std::pair<QComboBox *, const char *>, 5> combos{{{c->phaseCombo(), "phase"},
                                                                          {c->weightsCombo(), "weights"},
                                                                          {c->activationsCombo(), "activations"},
                                                                          {c->kvCombo(), "kv"},
                                                                          {c->efficiencyCombo(), "efficiency"}}};
        // Phases and weights (with int4 g128) are the most interesting: weight them up.
        const int which = chance(0.5) ? pick(2) : pick(5);
        const auto [box, name] = combos[static_cast<std::size_t>(which)];
        const int row = pick(box->count());
        begin(QStringLiteral("choose %1 '%2'").arg(name, box->itemText(row)));
        chooseInCombo(box, row);
        return {};
    }

    QString actToggle()
    {
        const bool fused = chance(0.5);
        QCheckBox *box = fused ? controls()->fusedAttentionCheck() : controls()->kvCacheCheck();
        begin(QStringLiteral("click %1").arg(fused ? "fused attention" : "KV cache"));
        const bool was = box->isChecked();
        if (chance(0.5))
            QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(8, box->height() / 2));
        else
            box->click();
        if (box->isChecked() == was)
            return QStringLiteral("the check box did not toggle");
        if ((fused ? m_doc->scenario().fusedAttention : m_doc->scenario().kvCache) != box->isChecked())
            return QStringLiteral("the document did not follow the check box");
        return {};
    }

    QString actWhatIfReset()
    {
        begin(QStringLiteral("reset the what-if factors"));
        QTest::mouseClick(controls()->whatIfGroup()->resetButton(), Qt::LeftButton);
        if (!m_doc->file().whatIf.isIdentity())
            return QStringLiteral("what-if not reset");
        return {};
    }

    QString actTab()
    {
        QTabWidget *tabs = m_window->chartTabs();
        const int i = pick(tabs->count());
        switch (pick(3)) {
        case 0:
            begin(QStringLiteral("switch to tab %1").arg(i));
            tabs->setCurrentIndex(i);
            break;
        case 1:
            begin(QStringLiteral("trigger chart action %1").arg(i));
            m_window->actions()->chartActions().at(i)->trigger();
            break;
        default:
            begin(QStringLiteral("Ctrl+PgDown on the tabs"));
            QTest::keyClick(tabs, Qt::Key_PageDown, Qt::ControlModifier);
            return {};
        }
        return tabs->currentIndex() == i ? QString() : QStringLiteral("tab %1 not shown").arg(i);
    }

    QPoint randomPlotPoint(QChartView *view)
    {
        const QRectF area = view->chart()->plotArea();
        const QPointF p(area.left() + m_rng.generateDouble() * area.width(),
                        area.top() + m_rng.generateDouble() * area.height());
        return view->mapFromScene(view->chart()->mapToScene(p));
    }

    QString actChartMouse()
    {
        QChartView *view = currentView();
        if (!view)
            return QStringLiteral("the current tab is not a chart view");
        QWidget *vp = view->viewport();
        const QPoint at = randomPlotPoint(view);
        switch (pick(6)) {
        case 0:
        case 1: {
            const int notches = (chance(0.5) ? 1 : -1) * (1 + pick(chance(0.1) ? 25 : 3));
            const Qt::KeyboardModifiers mods = chance(0.2)   ? Qt::ShiftModifier
                                               : chance(0.2) ? Qt::ControlModifier
                                                             : Qt::NoModifier;
            const char *modName = mods == Qt::ShiftModifier ? "Shift+" : mods == Qt::ControlModifier ? "Ctrl+" : "";
            begin(QStringLiteral("%1wheel %2 notches at (%3, %4)")
                      .arg(QLatin1String(modName))
                      .arg(notches)
                      .arg(at.x())
                      .arg(at.y()));
            for (int i = 0, n = std::abs(notches); i < n; ++i) {
                QWheelEvent wheel(at, vp->mapToGlobal(at), QPoint(), QPoint(0, notches > 0 ? 120 : -120), Qt::NoButton,
                                  mods, Qt::NoScrollPhase, false);
                QApplication::sendEvent(vp, &wheel);
            }
            break;
        }
        case 2: {
            const bool rubber = chance(0.3);
            begin(QStringLiteral("%1 from (%2, %3)")
                      .arg(rubber ? "Shift+drag a rubber band" : "drag to pan")
                      .arg(at.x())
                      .arg(at.y()));
            const Qt::KeyboardModifiers mods = rubber ? Qt::ShiftModifier : Qt::NoModifier;
            QTest::mousePress(vp, Qt::LeftButton, mods, at);
            QPoint p = at;
            for (int i = 0, n = 1 + pick(5); i < n; ++i) {
                p += QPoint(pick(301) - 150, pick(201) - 100);
                QTest::mouseMove(vp, p);
            }
            QTest::mouseRelease(vp, Qt::LeftButton, mods, p);
            break;
        }
        case 3:
            begin(QStringLiteral("double-click the plot at (%1, %2)").arg(at.x()).arg(at.y()));
            QTest::mouseDClick(vp, Qt::LeftButton, {}, at);
            break;
        case 4: {
            static const std::array<Qt::Key, 8> keys{Qt::Key_Plus, Qt::Key_Minus, Qt::Key_Left, Qt::Key_Right,
                                                     Qt::Key_Up,   Qt::Key_Down,  Qt::Key_R,    Qt::Key_Home};
            const Qt::Key key = keys[static_cast<std::size_t>(pick(static_cast<int>(keys.size())))];
            begin(QStringLiteral("key %1 on the chart").arg(QKeySequence(key).toString()));
            view->setFocus();
            QTest::keyClick(view, key);
            break;
        }
        default: return actChartPoint();
        }
        return {};
    }

    /// Clicks a data point of the current chart (a marker selects its operator; elsewhere it starts a pan).
    QString actChartPoint()
    {
        QChartView *view = currentView();
        std::vector<QXYSeries *> withPoints;
        for (QAbstractSeries *s : view->chart()->series())
            if (auto *xy = qobject_cast<QXYSeries *>(s); xy && xy->isVisible() && xy->count() > 0)
                withPoints.push_back(xy);
        if (withPoints.empty()) {
            begin(QStringLiteral("click a point of %1 (none)").arg(currentChart()->id()));
            return {};
        }
        QXYSeries *series = pickFrom(withPoints);
        const int i = pick(series->count());
        const QPointF inChart = view->chart()->mapToPosition(series->at(i), series);
        const QPoint at = view->mapFromScene(view->chart()->mapToScene(inChart));
        begin(QStringLiteral("click point %1 of series '%2' of %3 at (%4, %5)")
                  .arg(i)
                  .arg(series->name(), currentChart()->id())
                  .arg(at.x())
                  .arg(at.y()));
        if (!view->viewport()->rect().contains(at))
            return {};
        m_lastClicked = -2;
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
        const int n = static_cast<int>(m_doc->analysis().operators.size());
        if (m_lastClicked >= 0 && m_lastClicked < n && m_doc->selectedOperator() != m_lastClicked)
            return QStringLiteral("the chart reported operator %1 but the document selected %2")
                .arg(m_lastClicked)
                .arg(m_doc->selectedOperator());
        return {};
    }

    QString actTable()
    {
        ui::OperatorTable *table = m_window->operatorTable();
        QTableView *view = table->view();
        switch (pick(4)) {
        case 0:
        case 1: {
            const int rows = table->proxy()->rowCount();
            if (rows == 0) {
                begin(QStringLiteral("click a table row (none shown)"));
                return {};
            }
            const int row = pick(rows);
            const QModelIndex index = table->proxy()->index(row, pick(table->proxy()->columnCount()));
            begin(QStringLiteral("click table row %1 (operator %2)")
                      .arg(row)
                      .arg(table->proxy()->mapToSource(index).row()));
            view->scrollTo(index);
            const QRect rect = view->visualRect(index);
            if (!view->viewport()->rect().contains(rect.center()))
                return {}; // the dock is too short to show it: nothing a user could click
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
            const int expected = table->proxy()->mapToSource(index).row();
            if (m_doc->selectedOperator() != expected)
                return QStringLiteral("clicked operator %1, the document selected %2")
                    .arg(expected)
                    .arg(m_doc->selectedOperator());
            return {};
        }
        case 2: {
            QHeaderView *header = view->horizontalHeader();
            const int col = pick(header->count());
            begin(QStringLiteral("click header %1 to sort").arg(col));
            const int x = header->sectionViewportPosition(col) + header->sectionSize(col) / 2;
            if (x < 0 || x >= header->viewport()->width()) {
                view->sortByColumn(col, chance(0.5) ? Qt::AscendingOrder : Qt::DescendingOrder);
                return {};
            }
            QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, header->height() / 2));
            if (header->sortIndicatorSection() != col)
                return QStringLiteral("the header click did not sort by column %1").arg(col);
            return {};
        }
        default: {
            static const std::vector<QString> filters{"",        "",    "attn", "ffn", "matmul", "memory",
                                                      "compute", "xyz", "a",    ".",   "norm"};
            const QString text = pickFrom(filters);
            begin(QStringLiteral("filter the table by '%1'").arg(text));
            if (chance(0.5)) {
                table->filterEdit()->setText(text);
            } else {
                table->filterEdit()->selectAll();
                QTest::keyClick(table->filterEdit(), Qt::Key_Backspace);
                QTest::keyClicks(table->filterEdit(), text);
            }
            return {};
        }
        }
    }

    QString actUndo()
    {
        QUndoStack *u = m_doc->undoStack();
        switch (pick(5)) {
        case 0:
            begin(QStringLiteral("undo (%1 of %2)").arg(u->index()).arg(u->count()));
            m_window->actions()->undoAction()->trigger();
            break;
        case 1:
            begin(QStringLiteral("redo (%1 of %2)").arg(u->index()).arg(u->count()));
            m_window->actions()->redoAction()->trigger();
            break;
        case 2: {
            const int index = pick(u->count() + 1);
            begin(QStringLiteral("undo history to %1 of %2").arg(index).arg(u->count()));
            u->setIndex(index);
            if (u->index() != index)
                return QStringLiteral("undo index %1 after setIndex(%2)").arg(u->index()).arg(index);
            break;
        }
        default: {
            begin(QStringLiteral("undo and redo (%1 of %2)").arg(u->index()).arg(u->count()));
            if (!u->canUndo())
                return {};
            const std::string before = stateOf(*m_doc);
            const QString error = m_doc->analysisError();
            u->undo();
            u->redo();
            if (stateOf(*m_doc) != before)
                return QStringLiteral("undo + redo did not restore the state");
            if (m_doc->analysisError() != error)
                return QStringLiteral("undo + redo changed the error from '%1' to '%2'")
                    .arg(error, m_doc->analysisError());
            break;
        }
        }
        return {};
    }

    QString actExport()
    {
        ui::ChartBase *chart = currentChart();
        const bool svg = chance(0.4);
        const QString path = m_dir.filePath(QStringLiteral("export-%1.%2").arg(m_step).arg(svg ? "svg" : "png"));
        begin(QStringLiteral("export %1 as %2").arg(chart->id(), svg ? "SVG" : "PNG"));
        const QString title = chart->title();
        const QSizeF size = chart->chart()->size();
        const QString theme = chart->theme().id;
        ui::ExportOptions options;
        options.size = QSize(320, 200);
        options.theme = chance(0.5) ? ui::Theme::light() : ui::Theme::byId("dark");
        if (chance(0.3))
            options.caption = QStringLiteral("torture step %1").arg(m_step);
        QString error;
        if (!ui::exportChart(*chart, path, options, &error))
            return QStringLiteral("export failed: %1").arg(error);
        const qint64 bytes = QFileInfo(path).size();
        QFile::remove(path);
        if (bytes <= 0)
            return QStringLiteral("export wrote an empty file");
        if (chart->title() != title || chart->theme().id != theme)
            return QStringLiteral("export did not hand back the title/theme");
        if (chart->chart()->size() != size)
            return QStringLiteral("export left the chart at %1x%2 instead of %3x%4")
                .arg(chart->chart()->size().width())
                .arg(chart->chart()->size().height())
                .arg(size.width())
                .arg(size.height());
        if (currentView() && chart->chart()->scene() != currentView()->scene())
            return QStringLiteral("export did not hand the chart back to its view");
        return {};
    }

    /// Opens a file that must be refused: a message (window-modal, not blocking), and nothing changed.
    QString actBrokenFile()
    {
        const int kind = pick(3);
        QString path;
        std::function<bool()> open;
        if (kind == 0) {
            path = pickFrom(m_brokenScenarios);
            open = [&] { return m_window->openScenario(path); };
        } else if (kind == 1) {
            path = pickFrom(m_brokenConfigs);
            open = [&] { return m_window->openModelConfig(path); };
        } else {
            path = chance(0.5) ? pickFrom(m_brokenScenarios) : pickFrom(m_brokenConfigs);
            open = [&] { return m_window->openDroppedFile(path); };
        }
        begin(QStringLiteral("open broken %1 %2")
                  .arg(kind == 0   ? "scenario"
                       : kind == 1 ? "config"
                                   : "dropped file",
                       QFileInfo(path).fileName()));
        const std::string before = stateOf(*m_doc);
        const int count = m_doc->undoStack()->count(), index = m_doc->undoStack()->index();
        const QString filePath = m_doc->filePath(), error = m_doc->analysisError();
        if (open())
            return QStringLiteral("a broken file was accepted");
        const QList<QMessageBox *> boxes = messageBoxes();
        if (boxes.size() != 1)
            return QStringLiteral("%1 message boxes instead of one").arg(boxes.size());
        QMessageBox *box = boxes.front();
        if (!box->isVisible() || box->windowModality() != Qt::WindowModal || box->text().isEmpty())
            return QStringLiteral("the error is not shown as a visible window-modal message");
        takeMessages();
        if (stateOf(*m_doc) != before || m_doc->undoStack()->count() != count || m_doc->undoStack()->index() != index ||
            m_doc->filePath() != filePath || m_doc->analysisError() != error)
            return QStringLiteral("a refused file changed the document");
        return {};
    }

    /// Files that may be accepted or refused (hostile values, real configs, our own saved scenario): either way the
    /// window stays consistent; refused ones change nothing.
    QString actOtherFile()
    {
        const std::string before = stateOf(*m_doc);
        const int count = m_doc->undoStack()->count();
        bool ok = false;
        switch (pick(4)) {
        case 0: {
            const QString path = pickFrom(m_hostileScenarios);
            begin(QStringLiteral("open hostile scenario %1").arg(QFileInfo(path).fileName()));
            ok = m_window->openScenario(path);
            break;
        }
        case 1: {
            const QString path = pickFrom(m_goodConfigs);
            begin(QStringLiteral("import config %1").arg(QFileInfo(path).fileName()));
            ok = m_window->openModelConfig(path);
            break;
        }
        case 2: {
            begin(QStringLiteral("save the scenario"));
            QString error;
            const bool modified = m_doc->isModified();
            const QString path = m_doc->filePath();
            if (!m_doc->analysisError().isEmpty()) {
                // A state that does not analyse could not be opened again: refused, nothing changes.
                if (m_doc->save(m_savedPath, &error) || error.isEmpty())
                    return QStringLiteral("a state that does not analyse was saved");
                if (m_doc->isModified() != modified || m_doc->filePath() != path)
                    return QStringLiteral("a refused save changed the document");
                return {};
            }
            if (!m_doc->save(m_savedPath, &error))
                return QStringLiteral("save failed: %1").arg(error);
            m_savedState = stateOf(*m_doc);
            if (m_doc->isModified() || m_window->isWindowModified())
                return QStringLiteral("still modified after saving");
            return {};
        }
        default: {
            if (m_savedState.empty()) {
                begin(QStringLiteral("reopen the saved scenario (none yet)"));
                return {};
            }
            begin(QStringLiteral("reopen the saved scenario"));
            ok = m_window->openScenario(m_savedPath);
            if (!ok)
                return QStringLiteral("our own saved scenario was refused: %1").arg(takeMessages());
            if (stateOf(*m_doc) != m_savedState)
                return QStringLiteral("the reopened scenario differs from the one saved");
            if (m_doc->undoStack()->count() != 0 || m_doc->isModified())
                return QStringLiteral("opening did not start a fresh history");
            return {};
        }
        }
        const QString messages = takeMessages();
        if (ok && !messages.isEmpty())
            return QStringLiteral("accepted, yet a message was shown: %1").arg(messages);
        if (!ok && (messages.isEmpty() || stateOf(*m_doc) != before || m_doc->undoStack()->count() != count))
            return QStringLiteral("refused without a message or with changes (%1)").arg(messages);
        return {};
    }

    QString actCompare()
    {
        const auto &hw = m_doc->presets().hardware();
        if (chance(0.25) || hw.empty()) {
            begin(QStringLiteral("compare with nothing"));
            m_doc->setCompareHardware(std::nullopt);
        } else {
            const auto &h = hw[static_cast<std::size_t>(pick(static_cast<int>(hw.size())))];
            begin(QStringLiteral("compare with %1").arg(QString::fromStdString(h.id)));
            m_doc->setCompareHardware(h);
        }
        return {};
    }

    QString actTheme()
    {
        static const std::vector<QString> ids{"light", "dark", "presentation"};
        const QString id = pickFrom(ids);
        begin(QStringLiteral("theme %1").arg(id));
        m_window->applyTheme(id);
        for (const auto &chart : m_window->charts())
            if (chart->theme().id != m_window->theme().id)
                return QStringLiteral("chart %1 kept theme %2").arg(chart->id(), chart->theme().id);
        return {};
    }

    QString actResize()
    {
        const QSize size(200 + pick(1400), 150 + pick(850));
        begin(QStringLiteral("resize the window to %1x%2 and back").arg(size.width()).arg(size.height()));
        m_window->resize(size);
        QCoreApplication::processEvents();
        const QString bad = checkInvariants();
        m_window->resize(1600, 1000);
        return bad.isEmpty() ? QString() : QStringLiteral("at %1x%2: %3").arg(size.width()).arg(size.height()).arg(bad);
    }

    // ---- invariants ----
    QString checkControls()
    {
        ui::ControlsPanel *c = controls();
        const core::Scenario &s = m_doc->scenario();
        auto sameValue = [](const ui::LogSlider *slider, double v) {
            const double lo = slider->spinBox()->minimum(), hi = slider->spinBox()->maximum();
            const double want = std::clamp(v, lo, hi);
            return std::abs(slider->value() - want) <= 1e-9 * std::max(1.0, want) &&
                   std::abs(slider->spinBox()->value() - want) <= 0.006 * std::max(1.0, want);
        };
        const std::array<std::tuple<const ui::LogSlider *, double, const char *>, 7> sliders{
            {{c->batchSlider(), static_cast<double>(s.batch), "batch"},
             {c->promptSlider(), static_cast<double>(s.seq), "prompt"},
             {c->contextSlider(), static_cast<double>(s.context), "context"},
             {c->outputSlider(), static_cast<double>(s.output), "output"},
             {c->whatIfGroup()->computeSlider(), m_doc->file().whatIf.compute, "what-if compute"},
             {c->whatIfGroup()->bandwidthSlider(), m_doc->file().whatIf.bandwidth, "what-if bandwidth"},
             {c->whatIfGroup()->capacitySlider(), m_doc->file().whatIf.capacity, "what-if capacity"}}};
        for (const auto &[slider, v, name] : sliders)
            if (!sameValue(slider, v))
                return QStringLiteral("the %1 control shows %2 (spin %3), the document holds %4")
                    .arg(name)
                    .arg(slider->value())
                    .arg(slider->spinBox()->value())
                    .arg(v);
        // Every field within the option table's range (relations between fields may still be refused by analyze()).
        const core::WhatIf &w = m_doc->file().whatIf;
        for (const core::ScenarioOption &o : core::scenarioOptions())
            if (auto e = core::checkOption(o, o.get(s, w)); !e.empty())
                return QStringLiteral("%1 %2 reached the document")
                    .arg(QString::fromStdString(std::string(o.key)), QString::fromStdString(e));
        if (c->tpSpin()->value() != s.tp || c->ppSpin()->value() != s.pp || c->dpSpin()->value() != s.dp)
            return QStringLiteral("parallelism shows %1/%2/%3, the document holds %4/%5/%6")
                .arg(c->tpSpin()->value())
                .arg(c->ppSpin()->value())
                .arg(c->dpSpin()->value())
                .arg(s.tp)
                .arg(s.pp)
                .arg(s.dp);
        if (c->phaseCombo()->currentData().toInt() != static_cast<int>(s.phase))
            return QStringLiteral("the phase combo shows %1").arg(c->phaseCombo()->currentText());
        if (c->activationsCombo()->currentData().toInt() != static_cast<int>(s.activations) ||
            c->kvCombo()->currentData().toInt() != static_cast<int>(s.kv))
            return QStringLiteral("a precision combo does not show the document");
        if (c->weightsCombo()->currentIndex() < 0)
            return QStringLiteral("the weights combo shows nothing");
        if (c->efficiencyCombo()->currentData().toInt() != static_cast<int>(s.efficiency))
            return QStringLiteral("the efficiency combo does not show the document");
        if (c->fusedAttentionCheck()->isChecked() != s.fusedAttention || c->kvCacheCheck()->isChecked() != s.kvCache)
            return QStringLiteral("a check box does not show the document");
        if (!m_doc->file().hardwareInline &&
            c->devicePicker()->currentId() != QString::fromStdString(m_doc->baseHardware().id))
            return QStringLiteral("the device picker shows '%1', the document holds %2")
                .arg(c->devicePicker()->currentId(), QString::fromStdString(m_doc->baseHardware().id));
        if (!m_doc->file().modelInline && c->modelPicker()->currentId() != QString::fromStdString(m_doc->model().id))
            return QStringLiteral("the model picker shows '%1'").arg(c->modelPicker()->currentId());
        if (c->modelPicker()->currentIndex() >= 0 &&
            c->modelPicker()->currentText() != c->modelPicker()->itemText(c->modelPicker()->currentIndex()) &&
            !c->modelPicker()->hasFocus())
            return QStringLiteral("the model picker's text '%1' is not its item").arg(c->modelPicker()->currentText());
        const QString &error = m_doc->analysisError();
        if (error.isEmpty() != c->errorLabel()->isHidden() || (!error.isEmpty() && c->errorLabel()->text() != error))
            return QStringLiteral("the error label does not show the document's error '%1'").arg(error);
        return {};
    }

    QString checkCharts()
    {
        for (const auto &chart : m_window->charts()) {
            const QString id = chart->id();
            // Charts in hidden tabs are suspended and may be stale: checked as they are (their data must be finite
            // too), so that actions meet stale charts; a tab switch action brings one up to date.
            const QString bad = firstNonFinite(chart->data());
            if (!bad.isEmpty())
                return QStringLiteral("chart %1: data() has a non-finite number at %2").arg(id, bad);
            QChart *qc = chart->chart();
            if (!qc)
                return QStringLiteral("chart %1 lost its QChart").arg(id);
            for (QAbstractSeries *s : qc->series()) {
                if (auto *xy = qobject_cast<QXYSeries *>(s)) {
                    if (const QString b = badPoints(xy); !b.isEmpty())
                        return QStringLiteral("chart %1: %2").arg(id, b);
                } else if (auto *area = qobject_cast<QAreaSeries *>(s)) {
                    for (const QXYSeries *edge : {static_cast<const QXYSeries *>(area->upperSeries()),
                                                  static_cast<const QXYSeries *>(area->lowerSeries())})
                        if (edge)
                            if (const QString b = badPoints(edge); !b.isEmpty())
                                return QStringLiteral("chart %1: area '%2' %3").arg(id, area->name(), b);
                } else if (auto *bars = qobject_cast<QAbstractBarSeries *>(s)) {
                    for (const QBarSet *set : bars->barSets())
                        for (int i = 0; i < set->count(); ++i)
                            if (!isFiniteNumber(set->at(i)))
                                return QStringLiteral("chart %1: bar set '%2' value %3 = %4")
                                    .arg(id, set->label())
                                    .arg(i)
                                    .arg(set->at(i));
                }
            }
            for (QAbstractAxis *axis : qc->axes()) {
                double lo = 0, hi = 0;
                if (auto *v = qobject_cast<QValueAxis *>(axis)) {
                    lo = v->min();
                    hi = v->max();
                } else if (auto *l = qobject_cast<QLogValueAxis *>(axis)) {
                    lo = l->min();
                    hi = l->max();
                    if (!(lo > 0))
                        return QStringLiteral("chart %1: log axis '%2' starts at %3")
                            .arg(id, axis->titleText())
                            .arg(lo);
                } else {
                    continue;
                }
                if (!isFiniteNumber(lo) || !isFiniteNumber(hi) || lo > hi)
                    return QStringLiteral("chart %1: axis '%2' range [%3, %4]")
                        .arg(id, axis->titleText())
                        .arg(lo)
                        .arg(hi);
            }
        }
        // What the chart on screen paints is where its values map (markers read back from the scene).
        if (ui::ChartBase *current = currentChart(); current && !current->isSuspended())
            if (const QString problem = uitest::markerProblems(*current); !problem.isEmpty())
                return QStringLiteral("chart %1 as painted: %2").arg(current->id(), problem);
        // Every chart is still shown by its view (an export borrows and hands back).
        for (int i = 0; i < m_window->chartTabs()->count(); ++i) {
            auto *view = qobject_cast<QChartView *>(m_window->chartTabs()->widget(i));
            if (view && view->chart() != m_window->charts()[static_cast<std::size_t>(i)]->chart())
                return QStringLiteral("tab %1 shows another chart").arg(i);
        }
        return {};
    }

    QString checkInvariants()
    {
        const core::Analysis &a = m_doc->analysis();
        const int n = static_cast<int>(a.operators.size());
        if (n <= 0)
            return QStringLiteral("the analysis has no operators");
        if (!isFiniteNumber(a.totals.timeS) || !(a.totals.timeS > 0) || !isFiniteNumber(a.totals.flops) ||
            !isFiniteNumber(a.totals.intensity))
            return QStringLiteral("the analysis totals are not finite positive (time %1)").arg(a.totals.timeS);
        const int sel = m_doc->selectedOperator();
        if (sel < -1 || sel >= n)
            return QStringLiteral("selected operator %1 of %2").arg(sel).arg(n);

        ui::OperatorTable *table = m_window->operatorTable();
        if (table->model()->rowCount() != n)
            return QStringLiteral("the table has %1 rows for %2 operators").arg(table->model()->rowCount()).arg(n);
        if (table->proxy()->rowCount() > n)
            return QStringLiteral("the table shows more rows than operators");
        // The table's selection follows the document's (when the row is not filtered out).
        const QModelIndex shown =
            sel >= 0 ? table->proxy()->mapFromSource(table->model()->index(sel, 0)) : QModelIndex();
        const QModelIndexList selectedRows = table->view()->selectionModel()->selectedRows();
        if (shown.isValid() && (selectedRows.size() != 1 || selectedRows.front().row() != shown.row()))
            return QStringLiteral("operator %1 is selected in the document but not in the table (%2 rows selected)")
                .arg(sel)
                .arg(selectedRows.size());
        if (sel < 0 && !selectedRows.isEmpty())
            return QStringLiteral("nothing is selected in the document but row %1 is in the table")
                .arg(selectedRows.front().row());

        QUndoStack *u = m_doc->undoStack();
        if (u->index() < 0 || u->index() > u->count())
            return QStringLiteral("undo index %1 of %2").arg(u->index()).arg(u->count());
        if (m_window->isWindowModified() != m_doc->isModified())
            return QStringLiteral("the window's modified mark does not follow the document");
        if (m_window->actions()->undoAction()->isEnabled() != u->canUndo())
            return QStringLiteral("the Undo action's state does not follow the stack");

        if (const QString bad = checkControls(); !bad.isEmpty())
            return bad;
        if (const QString bad = checkCharts(); !bad.isEmpty())
            return bad;
        if (!messageBoxes().isEmpty())
            return QStringLiteral("an unexpected message box: %1").arg(messageBoxes().front()->text());
        if (QApplication::activeModalWidget())
            return QStringLiteral("a modal widget stays open: %1")
                .arg(QApplication::activeModalWidget()->metaObject()->className());
        return {};
    }

    QString runOne()
    {
        // Weights: the control actions most, then charts, table, undo; files and exports less often (they are slower).
        struct Kind
        {
            const char *name;
            int weight;
            QString (TstTorture::*run)();
        };
        static const std::array<Kind, 17> kinds{{{"log slider", 16, &TstTorture::actLogSlider},
                                                 {"parallelism", 8, &TstTorture::actParallel},
                                                 {"picker", 6, &TstTorture::actPicker},
                                                 {"combo", 12, &TstTorture::actCombo},
                                                 {"toggle", 4, &TstTorture::actToggle},
                                                 {"what-if reset", 1, &TstTorture::actWhatIfReset},
                                                 {"tab", 6, &TstTorture::actTab},
                                                 {"chart mouse", 14, &TstTorture::actChartMouse},
                                                 {"chart point", 4, &TstTorture::actChartPoint},
                                                 {"table", 8, &TstTorture::actTable},
                                                 {"undo", 10, &TstTorture::actUndo},
                                                 {"export", 2, &TstTorture::actExport},
                                                 {"broken file", 2, &TstTorture::actBrokenFile},
                                                 {"other file", 2, &TstTorture::actOtherFile},
                                                 {"compare", 3, &TstTorture::actCompare},
                                                 {"theme", 1, &TstTorture::actTheme},
                                                 {"resize", 1, &TstTorture::actResize}}};
        int total = 0;
        for (const Kind &k : kinds)
            total += k.weight;
        int r = pick(total);
        const Kind *chosen = &kinds.front();
        for (const Kind &k : kinds) {
            if (r < k.weight) {
                chosen = &k;
                break;
            }
            r -= k.weight;
        }
        ++m_counts[QString::fromLatin1(chosen->name)];
        const QString bad = (this->*(chosen->run))();
        QCoreApplication::processEvents(); // deferred work and painting run too
        if (!bad.isEmpty())
            return bad;
        return checkInvariants();
    }

    static TstTorture *s_self;
    static QtMessageHandler s_previousHandler;
    static void messageHandler(QtMsgType type, const QMessageLogContext &context, const QString &msg)
    {
        if (s_self && (type == QtWarningMsg || type == QtCriticalMsg)) {
            // QTest's notes on synthetic mouse events are not the application's, nor are the offscreen platform's
            // notes on what it cannot do (grab the keyboard for a popup, ...).
            if (!msg.contains(QLatin1String("not accepted by receiving widget")) &&
                !msg.startsWith(QLatin1String("This plugin does not support")))
                ++s_self
                      ->m_warnings[msg.left(200) +
                                   QStringLiteral(" [first at step %1: %2]").arg(s_self->m_step).arg(s_self->m_action)];
            return;
        }
        s_previousHandler(type, context, msg);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MemWallTest");
        QCoreApplication::setApplicationName("tst_torture");
        QSettings().clear();
        QVERIFY(m_dir.isValid());

        bool seeded = false;
        m_seed = static_cast<quint32>(qEnvironmentVariable("MEMWALL_TORTURE_SEED").toUInt(&seeded));
        if (!seeded) // reproducible by default (CI); MEMWALL_TORTURE_SEED=random explores new seeds
            m_seed = qEnvironmentVariable("MEMWALL_TORTURE_SEED") == QLatin1String("random")
                         ? QRandomGenerator::global()->generate()
                         : 20261202u;
        m_rng.seed(m_seed);
        installCrashReport();

        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
        m_doc = std::make_unique<ScenarioDocument>(m_lib);
        m_window = std::make_unique<MainWindow>(m_doc.get());
        m_window->resize(1600, 1000);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->activateWindow();
        for (const auto &chart : m_window->charts())
            connect(chart.get(), &ui::ChartBase::operatorClicked, this, [this](int i) { m_lastClicked = i; });

        // Files: our own scenario, truncated; hostile values; configs with wrong types; binary junk.
        m_savedPath = m_dir.filePath("saved.memwall.json");
        const QString valid = m_dir.filePath("valid.memwall.json");
        QString error;
        QVERIFY2(m_doc->save(valid, &error), qPrintable(error));
        QFile f(valid);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        m_doc->setFile(m_doc->file(), QString(), true); // forget the path again
        QByteArray binary;
        QRandomGenerator bytes(m_seed + 1u);
        for (int i = 0; i < 4096; ++i)
            binary.append(static_cast<char>(bytes.bounded(256)));
        binary[10] = '\0';
        m_brokenScenarios = {
            write("truncated.memwall.json", text.left(text.size() / 2)),
            write("empty.memwall.json", QByteArray()),
            write("binary.memwall.json", binary),
            write("array.memwall.json", "[1, 2, 3]"),
            write("future.memwall.json",
                  R"({"kind": "scenario", "schema": 99, "hardware": "h100-sxm", "model": "llama-2-7b"})"),
            write("unknown.memwall.json",
                  R"({"kind": "scenario", "schema": 1, "hardware": "h100", "model": "llama-2-7b"})"),
            write("types.memwall.json",
                  R"({"kind": "scenario", "schema": 1, "hardware": "h100-sxm", "model": "llama-2-7b",
                                       "scenario": {"batch": "many", "phase": 3}})"),
            write("negative.memwall.json",
                  R"({"kind": "scenario", "schema": 1, "hardware": "h100-sxm", "model": "llama-2-7b",
                                       "scenario": {"batch": -4}})")};
        QDir().mkpath(m_dir.filePath("cfg"));
        m_brokenConfigs = {
            write("cfg/config.json", R"({"model_type": "llama", "hidden_size": "4096", "num_attention_heads": [32],
                                                        "num_hidden_layers": true, "intermediate_size": null, "vocab_size": {}})"),
            write("cfg/truncated.json", R"({"model_type": "llama", "hidden_size": 40)"),
            write("cfg/binary.json", binary),
            write("cfg/zero.json", R"({"model_type": "llama", "hidden_size": 0, "num_attention_heads": 0,
                                                      "num_hidden_layers": 0, "intermediate_size": 0, "vocab_size": 0})"),
            write("cfg/negative.json", R"({"model_type": "llama", "hidden_size": -4096, "num_attention_heads": 32,
                                                          "num_hidden_layers": 32, "intermediate_size": 11008, "vocab_size": 32000})"),
            write("cfg/notmodel.json", R"({"model_type": "no-such-family"})")};
        // Values a file may carry that no control would set: accepted (and then analysed) or refused, never a crash.
        auto scenario = [](const char *body) {
            return QByteArray(
                       R"({"kind": "scenario", "schema": 1, "hardware": "h100-sxm", "model": "llama-2-7b", "scenario": )") +
                   body + "}";
        };
        m_hostileScenarios = {
            write("huge-batch.memwall.json",
                  scenario(R"({"phase": "decode", "batch": 1000000000000, "context": 131072})")),
            write("huge-context.memwall.json",
                  scenario(R"({"phase": "prefill", "batch": 4096, "seq": 9007199254740993})")),
            write("float-batch.memwall.json", scenario(R"({"batch": 2.5})")),
            write("zero.memwall.json", scenario(R"({"batch": 0, "context": 0, "seq": 0, "output": 0})")),
            write("huge-tp.memwall.json", scenario(R"({"tp": 2147483647, "pp": 2147483647, "dp": 2147483647})")),
            write("train.memwall.json",
                  scenario(R"({"phase": "train", "batch": 4096, "seq": 131072, "weights": "int4"})")),
            write("whatif.memwall.json",
                  QByteArray(R"({"kind": "scenario", "schema": 1, "hardware": "h100-sxm", "model": "llama-2-7b",
                                 "what_if": {"compute": 1e-300, "bandwidth": 1e300, "capacity": 0}})")),
            write("whatif-negative.memwall.json",
                  QByteArray(R"({"kind": "scenario", "schema": 1, "hardware": "h100-sxm", "model": "llama-2-7b",
                                 "what_if": {"compute": -1, "bandwidth": 2, "capacity": 1}})")),
        };
        const QDir configs(QStringLiteral(MEMWALL_SOURCE_DIR "/tests/data/configs"));
        for (const QString &name : configs.entryList({"*.json"}, QDir::Files))
            m_goodConfigs.push_back(configs.filePath(name));
        QVERIFY(!m_goodConfigs.empty());

        s_self = this;
        s_previousHandler = qInstallMessageHandler(messageHandler);
    }

    void torture()
    {
        bool ok = false;
        int steps = qEnvironmentVariableIntValue("MEMWALL_TORTURE_STEPS", &ok);
        if (!ok || steps <= 0)
            steps = 3000;
        qInfo("tst_torture: seed %u, %d steps (replay with MEMWALL_TORTURE_SEED=%u)", m_seed, steps, m_seed);

        // A watchdog for anything that would block: a dialog's exec() or a menu's exec() runs a nested event loop in
        // which this timer fires; it closes the popup or dialog and records the action, which then fails.
        QTimer watchdog;
        watchdog.setInterval(300);
        connect(&watchdog, &QTimer::timeout, this, [this] {
            if (QWidget *popup = QApplication::activePopupWidget()) {
                m_blocked << QStringLiteral("step %1 (%2): popup %3")
                                 .arg(m_step)
                                 .arg(m_action, popup->metaObject()->className());
                popup->close();
            }
            if (QWidget *modal = QApplication::activeModalWidget()) {
                if (modal != m_window.get() && !qobject_cast<QMessageBox *>(modal)) {
                    m_blocked << QStringLiteral("step %1 (%2): modal %3")
                                     .arg(m_step)
                                     .arg(m_action, modal->metaObject()->className());
                    modal->close();
                }
            }
        });
        watchdog.start();

        QVERIFY2(checkInvariants().isEmpty(), qPrintable(checkInvariants()));
        bool hangOk = false;
        int hangSeconds = qEnvironmentVariableIntValue("MEMWALL_TORTURE_HANG_SECONDS", &hangOk);
        HangGuard guard(hangOk && hangSeconds > 0 ? hangSeconds : 30);
        QElapsedTimer clock;
        clock.start();
        for (m_step = 0; m_step < steps; ++m_step) {
            guard.beat();
            const QString bad = runOne();
            m_history << QStringLiteral("%1: %2").arg(m_step).arg(m_action);
            if (m_history.size() > 8)
                m_history.removeFirst();
            if (!bad.isEmpty() || !m_blocked.isEmpty()) {
                const QString message =
                    QStringLiteral("seed %1, step %2, action \"%3\": %4\nlast actions:\n  %5\nreplay: "
                                   "MEMWALL_TORTURE_SEED=%1 MEMWALL_TORTURE_STEPS=%6\nscenario: %7")
                        .arg(m_seed)
                        .arg(m_step)
                        .arg(m_action, bad.isEmpty() ? m_blocked.join("; ") : bad, m_history.join("\n  "))
                        .arg(m_step + 1)
                        .arg(QString::fromStdString(core::toJson(m_doc->file()).dump()));
                QFAIL(qPrintable(message));
            }
        }
        QStringList counts;
        for (auto it = m_counts.cbegin(); it != m_counts.cend(); ++it)
            counts << QStringLiteral("%1 %2").arg(it.key()).arg(it.value());
        qInfo("tst_torture: %d steps in %lld ms (%s); %lld undo steps, %d operators", steps,
              static_cast<long long>(clock.elapsed()), qPrintable(counts.join(", ")),
              static_cast<long long>(m_doc->undoStack()->count()),
              static_cast<int>(m_doc->analysis().operators.size()));
        if (!m_warnings.isEmpty()) {
            QStringList lines;
            for (auto it = m_warnings.cbegin(); it != m_warnings.cend(); ++it)
                lines << QStringLiteral("%1× %2").arg(it.value()).arg(it.key());
            QFAIL(qPrintable(
                QStringLiteral("seed %1: Qt warnings during the run:\n%2").arg(m_seed).arg(lines.join('\n'))));
        }
    }

    void cleanupTestCase()
    {
        qInstallMessageHandler(s_previousHandler);
        s_self = nullptr;
        takeMessages();
        m_window.reset();
        m_doc.reset();
    }
};

TstTorture *TstTorture::s_self = nullptr;
QtMessageHandler TstTorture::s_previousHandler = nullptr;

QTEST_MAIN(TstTorture)
#include "tst_torture.moc"
