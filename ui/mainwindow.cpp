#include "ui/mainwindow.h"
#include "ui/util/windowshortcuts.h"

#include "ui/controls/presetpicker.h"
#include "ui/dialogs/aboutdialog.h"
#include "ui/dialogs/hardwareeditordialog.h"
#include "ui/dialogs/modeleditordialog.h"
#include "ui/export/exportactions.h"
#include "ui/lessons/lessonactions.h"
#include "ui/lessons/presentationwindow.h"
#include "ui/widgets/comparedock.h"
#include "ui/widgets/sidepanels.h"

#include "core/io/scenariolink.h"
#include "ui/charts/chartbase.h"
#include "ui/controls/controlspanel.h"
#include "ui/document/scenariodocument.h"
#include "ui/mainwindowactions.h"
#include "ui/settings/settingsfile.h"
#include "ui/util/windowfit.h"
#include "ui/widgets/headlinebar.h"
#include "ui/widgets/operatortable.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <iostream>

namespace memwall::ui {

namespace {
/// The window's size on a screen with room for it (1600×1000 on 1920×1080).
constexpr QSize kPreferredWindowSize(1600, 1000);
/// A window manager's frame before the window is shown and its real frame known: a title bar and thin borders.
constexpr QMargins kWindowFrameGuess(4, 32, 4, 4);
} // namespace

MainWindow::MainWindow(ScenarioDocument *doc, QWidget *parent)
    : QMainWindow(parent), m_doc(doc), m_files(new ScenarioFiles(doc, this)), m_controls(new ControlsPanel(doc)),
      m_table(new OperatorTable(doc)), m_headline(new HeadlineBar(doc)), m_tabs(new ChartTabs(doc, &createSidePanel)),
      m_controlsDock(new QDockWidget(tr("Controls"), this)), m_tableDock(new QDockWidget(tr("Operators"), this)),
      m_theme(Theme::light())
{
    setObjectName("MainWindow");
    setAcceptDrops(true);
    // The first window fits the screen it opens on (a 1280×720 projector, a 1024×768 laptop).
    setGeometry(centredOnScreen(kPreferredWindowSize, screen()->availableGeometry(), kWindowFrameGuess));

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    // The headline's words change with every step of a lesson ("63.3 k", "compute-bound"): they wrap or are cut at
    // the window's width, never widen the window past a 1024-pixel screen.
    m_headline->setSizePolicy(QSizePolicy::Ignored, m_headline->sizePolicy().verticalPolicy());
    layout->addWidget(m_headline);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    auto *scroll = new QScrollArea(m_controlsDock);
    scroll->setWidget(m_controls);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(
        std::max(360, m_controls->sizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 4));
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea); // the controls run the full height
    m_controlsDock->setObjectName("ControlsDock");
    m_controlsDock->setWidget(scroll);
    addDockWidget(Qt::LeftDockWidgetArea, m_controlsDock);
    m_tableDock->setObjectName("OperatorsDock");
    m_tableDock->setWidget(m_table);
    addDockWidget(Qt::BottomDockWidgetArea, m_tableDock);
    resizeDocks({m_tableDock}, {260}, Qt::Vertical);

    m_actions = new MainWindowActions(this, doc);
    m_actions->addViewActions({m_controlsDock->toggleViewAction(), m_tableDock->toggleViewAction()},
                              m_tabs->tabNames());
    connect(m_controls, &ControlsPanel::openConfigRequested, m_actions, &MainWindowActions::openConfigDialog);
    connect(m_controls, &ControlsPanel::statusMessage, this,
            [this](const QString &m) { statusBar()->showMessage(m, 8000); });
    buildFeatures();

    connect(doc, &ScenarioDocument::modifiedChanged, this, &QWidget::setWindowModified);
    connect(doc, &ScenarioDocument::filePathChanged, this, [this](const QString &path) {
        updateTitle();
        if (path.isEmpty())
            return;
        if (const QString error = m_actions->addRecentFile(path); !error.isEmpty())
            statusBar()->showMessage(error, 8000);
    });
    updateTitle();

    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    keepOnScreen(); // a geometry saved on a larger or another screen
    applyTheme(settings.value("view/theme", "light").toString());
}

const std::vector<std::unique_ptr<ChartBase>> &MainWindow::charts() const { return m_tabs->charts(); }

MainWindow::~MainWindow()
{
    // The document outlives the window. Stop following it, then let a focused spin box commit its typed text now,
    // while everything it updates is alive (a commit on destruction would reach the charts' tab tooltips after the
    // charts are gone).
    disconnect(m_doc, nullptr, this, nullptr);
    if (QWidget *focus = QApplication::focusWidget(); focus && isAncestorOf(focus))
        focus->clearFocus();
}

void MainWindow::buildFeatures()
{
    // Export (File menu, before Quit).
    auto *exports = new ExportActions(
        this, [this] { return m_tabs->currentChart(); }, [this] { return m_tabs->chartList(); }, this);
    QMenu *file = menuBar()->actions().first()->menu();
    QAction *quit = file->actions().last();
    file->insertActions(quit, exports->actions());
    file->insertSeparator(quit);
    connect(exports, &ExportActions::statusMessage, this,
            [this](const QString &m) { statusBar()->showMessage(m, 5000); });
    connect(m_tabs, &QTabWidget::currentChanged, exports, &ExportActions::updateActions);
    exports->updateActions();
    // Ctrl+E exports from anywhere in the window, a focused line edit included (it binds Ctrl+E itself).
    qApp->installEventFilter(new WindowShortcuts(this, {exports->exportChartAction()}));

    // Compare with a scenario B: another device and/or formats (a dock with the delta table; the charts overlay B).
    auto *compareDock = new CompareDock(m_doc, this);
    addDockWidget(Qt::RightDockWidgetArea, compareDock);
    compareDock->hide();
    // A dock shown can widen the window past its screen: fit it again once the dock is laid out.
    connect(compareDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible)
            QTimer::singleShot(0, this, &MainWindow::keepOnScreen);
    });

    // Custom presets.
    QAction *help = menuBar()->actions().last(); // feature menus go before Help
    auto *presets = new QMenu(tr("&Presets"), this);
    menuBar()->insertMenu(help, presets);
    presets->setToolTipsVisible(true);
    presets
        ->addAction(tr("New &device…"), this,
                    [this] { HardwareEditorDialog::editInto(m_doc, m_doc->baseHardware(), this, true); })
        ->setToolTip(tr("Describe your own device, starting from a copy of the current one."));
    presets
        ->addAction(tr("New &model…"), this, [this] { ModelEditorDialog::editInto(m_doc, m_doc->model(), this, true); })
        ->setToolTip(tr("Describe your own model, starting from a copy of the current one."));
    presets->addAction(tr("&Edit current device…"), this,
                       [this] { HardwareEditorDialog::editInto(m_doc, m_doc->baseHardware(), this); });
    presets->addAction(tr("Edit current m&odel…"), this,
                       [this] { ModelEditorDialog::editInto(m_doc, m_doc->model(), this); });
    presets->addSeparator();
    presets->addAction(compareDock->toggleAction());

    // Lessons, presentation mode and "Measure this computer" (before Help).
    m_lessons = new LessonActions(m_doc, this, m_tabs);
    menuBar()->insertMenu(help, m_lessons->menu());
    for (ChartBase *c : m_tabs->chartList())
        c->setMeasuredPoints(m_lessons->measuredPoints());
    if (!m_lessons->loadErrors().isEmpty())
        statusBar()->showMessage(m_lessons->loadErrors().join(QStringLiteral("; ")), 10000);
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    keepChartsTall();
}

void MainWindow::keepOnScreen()
{
    if (isMaximized() || isFullScreen())
        return;
    const QRect inner = geometry();
    QScreen *on = QGuiApplication::screenAt(inner.center());
    if (!on) // off every screen (a screen since unplugged): back on the window's own
        on = screen();
    const QRect outer = frameGeometry();
    const QMargins frame = outer == inner ? kWindowFrameGuess
                                          : QMargins(inner.left() - outer.left(), inner.top() - outer.top(),
                                                     outer.right() - inner.right(), outer.bottom() - inner.bottom());
    if (const QRect fitted = fitToScreen(inner, on->availableGeometry(), frame); fitted != inner)
        setGeometry(fitted);
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    // The docks get their sizes (and a restored state) only once the window is laid out for the first time.
    QTimer::singleShot(0, this, &MainWindow::keepChartsTall);
}

void MainWindow::keepChartsTall()
{
    if (!m_tableDock->isVisible() || m_tableDock->isFloating())
        return;
    // Three fifths of a short window (a 720-line projector) for the charts, at least half of any other.
    const int chart = m_tabs->height();
    const int excess = (height() < 900 ? height() * 3 / 5 : height() / 2) - chart;
    if (excess > 0 && m_tableDock->height() > 120)
        resizeDocks({m_tableDock}, {std::max(120, m_tableDock->height() - excess)}, Qt::Vertical);
}

void MainWindow::updateTitle()
{
    const QString name = m_doc->filePath().isEmpty() ? tr("Untitled") : QFileInfo(m_doc->filePath()).fileName();
    setWindowTitle(tr("%1[*] — MemWall").arg(name));
    setWindowModified(m_doc->isModified());
}

void MainWindow::reportPresetIssues()
{
    const auto &issues = m_doc->presets().issues();
    if (issues.empty())
        return;
    QStringList lines;
    for (const auto &issue : issues)
        lines << QString::fromStdString(issue.message);
    auto *label = new QLabel(tr("%n preset file(s) skipped or duplicated: %1", nullptr, static_cast<int>(issues.size()))
                                 .arg(QString::fromStdString(issues.front().message)));
    label->setToolTip(lines.join('\n'));
    label->setObjectName("presetIssues");
    statusBar()->addWidget(label, 1);
}

void MainWindow::applyTheme(const QString &id)
{
    m_theme = Theme::byId(id);
    m_tabs->setTheme(m_theme);
    QApplication::setPalette(m_theme.windowPalette());
    m_headline->setWarningColor(m_theme.warning);
    m_actions->setThemeChecked(m_theme.id);
    QSettings settings;
    settings.setValue("view/theme", m_theme.id);
    if (const QString error = syncSettings(settings); !error.isEmpty())
        statusBar()->showMessage(error, 8000);
}

void MainWindow::toggleFullScreen()
{
    if (isFullScreen())
        showNormal();
    else
        showFullScreen();
}

void MainWindow::showAbout() { AboutDialog(m_doc->presets(), this).exec(); }

void MainWindow::saveSettings()
{
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    settings.setValue("files/lastScenario", m_doc->filePath());
    // The window is closing: there is no status bar left to read.
    if (const QString error = syncSettings(settings); !error.isEmpty())
        std::cerr << "memwall: " << error.toStdString() << '\n';
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_doc->isModified()) {
        const auto answer = QMessageBox::question(
            this, tr("Unsaved changes"), tr("The scenario has unsaved changes. Save them before closing?"),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        if (answer == QMessageBox::Cancel || (answer == QMessageBox::Save && !save())) {
            event->ignore();
            return;
        }
    }
    saveSettings();
    event->accept();
}

namespace {
/// A memwall: link dropped as text (from a browser or a chat), or empty.
QString droppedLink(const QMimeData *data)
{
    if (data->hasText() && core::isScenarioLink(data->text().toStdString()))
        return data->text();
    return {};
}
} // namespace

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!droppedLink(event->mimeData()).isEmpty()) {
        event->acceptProposedAction();
        return;
    }
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile() &&
        urls.front().toLocalFile().endsWith(".json", Qt::CaseInsensitive))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    if (const QString link = droppedLink(event->mimeData()); !link.isEmpty()) {
        event->acceptProposedAction();
        openLink(link);
        return;
    }
    const auto urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile())
        return;
    event->acceptProposedAction();
    openDroppedFile(urls.front().toLocalFile());
}

} // namespace memwall::ui
