// memwall-bench [--json]: the performance goals (README, "Performance"), measured on this machine and printed.
//   slider_update_ms {median, p99}  slider tick -> every visible chart updated and repainted, 1600x1000, offscreen
//   analysis_us {median}            full analysis of Llama-3.1-405B at one setting
//   sweep_s                         4,096 batch x 256 context sweep, one core
//   startup_ms                      process start to first painted window (median of 5 launches)
//   rss_mb                          resident memory of the application after start
//   export_svg_ms                   roofline chart to SVG
//   baseline_chart_ms               a bare QChartView of the roofline's size, two log axes and as many scatter points,
//                                   updated with replace() and repainted: what Qt Charts alone costs for a tick
//   slider_to_baseline_ratio        the tick's median over the baseline's, in the median of seven rounds that each
//                                   time 150 ticks of both (goal <= 1.5); slider_to_baseline_ratio_rounds: all seven.
//                                   The bench exits 1 if a timed tick left the shown chart unpainted.
//   --tick-only                     only the three above (and the tick's parts): a minute instead of ten
//   --sweep-only                    only analysis_us, sweep_s and sweep_points: seconds
//   painted_markers_off             ticks after which a marker was not painted where its value maps (must be 0;
//                                   checked every 10th tick, outside the timed part)
//   search_configs_per_s            design-space search, one core: Llama 3 70B over every GPU preset with up to 64
//                                   devices, configurations enumerated per second (pruned and derived replicas
//                                   included; search_analyses_per_s counts the analyses run); goal >= 2,000,000
//   search_default_s                the same search on every core, candidates and the front under TPOT <= 50 ms
//                                   (goal <= 1); both checked: equal candidates on one core and on all, a front,
//                                   and every front point's figures equal to a fresh analyze() of its scenario
//   search_target_tick_ms {median}  the search tab shown, its TPOT target stepped: the front re-selected and repainted
//                                   (goal <= 16); every 10th tick the painted front is checked
//   large_sweep_rss_mb              peak resident memory of `memwall sweep --vary batch=1:1048576:1 --vary
//                                   tp=1,2,4,8 --json` (4,194,304 rows, the largest sweep of issue #21); the rows
//                                   are counted and the JSON's end checked (goal <= 200)
#include "core/analysis/analysis.h"
#include "core/analysis/serving.h"
#include "core/analysis/sweep.h"
#include "core/io/presets.h"
#include "core/search/search.h"
#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/charts/searchchart.h"
#include "ui/document/scenariodocument.h"
#include "ui/export/chartexporter.h"
#include "ui/mainwindow.h"
#include "ui/widgets/searchtargetspanel.h"

#include "../ui/painted.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLogValueAxis>
#include <QProcess>
#include <QScatterSeries>
#include <QTabWidget>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace memwall;
using Clock = std::chrono::steady_clock;

namespace {
double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

/// Counts the paint events of the widget it filters.
class PaintCounter : public QObject
{
public:
    int count = 0;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint)
            ++count;
        return QObject::eventFilter(watched, event);
    }
};

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

/// The slider tick and the bare chart's tick, timed in kTickRounds rounds (see measureTicks()).
constexpr int kTickRounds = 7;
constexpr int kTicksPerRound = 150;

struct TickRun
{
    std::vector<double> tickMs, updateMs, paintMs, baselineMs, roundRatios;
    int markersOff = 0;      ///< checked ticks after which a marker was not painted where its value maps
    std::string firstOff;    ///< the first such problem
    double paintedShare = 0; ///< paints of the shown chart per timed tick
};

// One tick is what the event loop does after the batch slider moves: the document re-analyses and every view
// updates its data (update), then the posted layout and paint events run, repainting what changed (repaint).
// Paints of the visible chart are counted so a tick cannot be cheap by not painting it.
// The baseline: a bare QChartView of the same size with two log axes and as many scatter points as the roofline
// draws, each tick replace()d and repainted. It says what Qt Charts itself costs for such a tick.
// kTickRounds rounds, each kTicksPerRound of the window's ticks and as many of the bare chart's, after a round that
// is not timed (a drag is many ticks: what counts is a tick once caches and glyphs are warm, for both). The ratio is
// taken per round and the median round's is reported: this machine's speed drifts by a third from minute to minute
// (another process, the clock), and a ratio of two runs made minutes apart measured the drift as much as the tick.
// Odd rounds time the bare chart first, so a drift within a round favours neither. The bare chart is shown only for
// its own ticks: a second window in front leaves the main window inactive, which a user dragging its slider never
// sees, and made its ticks a third slower.
TickRun measureTicks(ui::MainWindow &window, ui::ScenarioDocument &doc)
{
    TickRun run;
    QWidget *chartViewport = window.chartTabs()->currentWidget();
    if (auto *view = qobject_cast<QAbstractScrollArea *>(chartViewport))
        chartViewport = view->viewport();
    PaintCounter paints;
    chartViewport->installEventFilter(&paints);
    const QSize chartSize = chartViewport->size();
    const int pointCount = static_cast<int>(doc.analysis().operators.size()) + 4;
    QChartView bare;
    auto *bareChart = new QChart;
    bareChart->setAnimationOptions(QChart::NoAnimation);
    auto *bareX = new QLogValueAxis, *bareY = new QLogValueAxis;
    bareX->setRange(0.01, 1e4);
    bareY->setRange(0.1, 1e4);
    bareChart->addAxis(bareX, Qt::AlignBottom);
    bareChart->addAxis(bareY, Qt::AlignLeft);
    auto *scatter = new QScatterSeries;
    bareChart->addSeries(scatter);
    scatter->attachAxis(bareX);
    scatter->attachAxis(bareY);
    bare.setChart(bareChart);
    bare.resize(chartSize);
    const auto windowTicks = [&](int r, std::vector<double> &roundTicks) {
        for (int k = 0; k < kTicksPerRound; ++k) {
            const int i = (r + 1) * kTicksPerRound + k;
            core::Scenario next = doc.scenario();
            next.batch = 1 + (i * 37) % 4096;
            const auto t0 = Clock::now();
            doc.setScenario(next, QStringLiteral("Batch"), ui::ScenarioDocument::BatchKey);
            const double update = msSince(t0);
            const auto t1 = Clock::now();
            QApplication::processEvents();
            const double paint = msSince(t1);
            roundTicks.push_back(msSince(t0));
            if (r < 0)
                continue;
            run.updateMs.push_back(update);
            run.paintMs.push_back(paint);
            // The work timed must be right: what the tick painted is where the values map (not timed).
            if (i % 10 == 0)
                if (const QString problem = uitest::markerProblems(*window.charts().front()); !problem.isEmpty()) {
                    if (run.markersOff++ == 0)
                        run.firstOff = problem.toStdString();
                }
        }
    };
    const auto bareTicks = [&](int r, std::vector<double> &roundBaseline) {
        bare.show();
        for (int k = 0; k < 5; ++k)
            QApplication::processEvents();
        for (int k = 0; k < kTicksPerRound; ++k) {
            const int i = (r + 1) * kTicksPerRound + k;
            QList<QPointF> pts;
            for (int j = 0; j < pointCount; ++j) {
                const double xv = 0.1 * std::pow(1.4, (j + i) % 30);
                pts.append({xv, std::min(1000.0, xv * 3.35)});
            }
            const auto t0 = Clock::now();
            scatter->replace(pts);
            QApplication::processEvents();
            roundBaseline.push_back(msSince(t0));
        }
        bare.hide();
        window.activateWindow();
        for (int k = 0; k < 5; ++k)
            QApplication::processEvents();
    };
    int windowPaints = 0; // of the shown chart, during the timed rounds' window ticks only
    for (int r = -1; r < kTickRounds; ++r) {
        std::vector<double> roundTicks, roundBaseline;
        if (r % 2 != 0) // the untimed round (-1) and the odd ones: the bare chart first
            bareTicks(r, roundBaseline);
        const int before = paints.count;
        windowTicks(r, roundTicks);
        if (r >= 0)
            windowPaints += paints.count - before;
        if (r % 2 == 0)
            bareTicks(r, roundBaseline);
        if (r < 0)
            continue;
        run.roundRatios.push_back(percentile(roundTicks, 0.5) / percentile(roundBaseline, 0.5));
        run.tickMs.insert(run.tickMs.end(), roundTicks.begin(), roundTicks.end());
        run.baselineMs.insert(run.baselineMs.end(), roundBaseline.begin(), roundBaseline.end());
    }
    run.paintedShare = static_cast<double>(windowPaints) / (kTickRounds * kTicksPerRound);
    chartViewport->removeEventFilter(&paints);
    return run;
}

nlohmann::json tickJson(const TickRun &t)
{
    return {{"slider_update_ms", {{"median", percentile(t.tickMs, 0.5)}, {"p99", percentile(t.tickMs, 0.99)}}},
            {"slider_update_parts_ms",
             {{"document_and_views_median", percentile(t.updateMs, 0.5)},
              {"layout_and_repaint_median", percentile(t.paintMs, 0.5)},
              {"visible_chart_paints_per_tick", t.paintedShare}}},
            {"baseline_chart_ms", percentile(t.baselineMs, 0.5)},
            {"slider_to_baseline_ratio", percentile(t.roundRatios, 0.5)},
            {"slider_to_baseline_ratio_rounds", t.roundRatios},
            {"painted_markers_off", t.markersOff}};
}

void printTicks(const TickRun &t)
{
    std::printf("slider tick -> repaint   median %.2f ms, p99 %.2f ms   (goal <= 4, <= 12)\n",
                percentile(t.tickMs, 0.5), percentile(t.tickMs, 0.99));
    std::printf("  of which update %.2f ms, layout and repaint %.2f ms (medians); chart painted %.2f times a tick\n",
                percentile(t.updateMs, 0.5), percentile(t.paintMs, 0.5), t.paintedShare);
    std::printf("bare QChartView tick     median %.2f ms; the slider tick is %.2f x that (goal <= 1.5; rounds",
                percentile(t.baselineMs, 0.5), percentile(t.roundRatios, 0.5));
    for (const double r : t.roundRatios)
        std::printf(" %.2f", r);
    std::printf(")\n");
    std::printf("markers off their values %d of %d checked ticks (must be 0)\n", t.markersOff,
                kTickRounds * kTicksPerRound / 10);
}

/// 0, or 1 with the reason on stderr: a marker painted off its value, or a tick that did not paint the chart.
int tickProblems(const TickRun &t)
{
    if (t.markersOff > 0) {
        std::cerr << "memwall-bench: a tick painted a marker off its value: " << t.firstOff << "\n";
        return 1;
    }
    if (t.paintedShare < 1.0) {
        std::cerr << "memwall-bench: the shown chart was painted " << t.paintedShare
                  << " times a tick: a tick that does not paint its change is not a tick\n";
        return 1;
    }
    return 0;
}

/// The analysis goal: one full analysis of Llama-3.1-405B (tp 8, batch 16, context 4,096), in 50 rounds of 2,000.
std::vector<double> measureAnalysis(const core::HardwareSpec &hw, const core::ModelShape &m, const core::Scenario &s,
                                    double &sink)
{
    std::vector<double> analysisUs;
    for (int rep = 0; rep < 50; ++rep) {
        const auto t0 = Clock::now();
        constexpr int n = 2000;
        for (int i = 0; i < n; ++i)
            sink += core::analyze(hw, m, s).totals.timeS;
        analysisUs.push_back(msSince(t0) * 1000.0 / n);
    }
    return analysisUs;
}

struct SweepRun
{
    double seconds = 0;
    std::size_t points = 0;
};

/// The sweep goal: 4,096 batches x 256 contexts of the same scenario, streamed, on one core.
SweepRun measureSweep(const core::HardwareSpec &hw, const core::ModelShape &m, const core::Scenario &s, double &sink)
{
    std::vector<core::SweepAxis> axes{core::parseSweepAxis("batch=1:4096:1"),
                                      core::parseSweepAxis("context=16:4096:16")};
    SweepRun run;
    const auto ts = Clock::now();
    core::sweepEach(hw, m, s, axes, [&](const core::SweepRow &r) {
        ++run.points;
        sink += r.totals.timeS;
    });
    run.seconds = msSince(ts) / 1000.0;
    return run;
}

struct SearchRun
{
    core::SearchSpace space;
    core::SearchCandidates oneCore;
    double oneCoreS = 1e300; ///< the fastest of five searches on one core
    std::vector<double> everyCoreS;
    core::SearchFront front;
    std::string wrong; ///< what went wrong, or ""
};

/// The search goals: Llama 3 70B over every GPU preset, five times on one core and five on every core (with the
/// front under TPOT <= 50 ms), and checks that both found the same and that each front point is its own analysis.
SearchRun measureSearch(const core::PresetLibrary &lib)
{
    SearchRun run;
    for (const core::HardwareSpec &hw : lib.hardware())
        if (hw.category == "gpu")
            run.space.devices.push_back(hw);
    const core::ModelShape &llama70 = lib.findModel("llama-3-70b")->shape;
    run.space.threads = 1;
    for (int rep = 0; rep < 5; ++rep) {
        run.oneCore = core::searchCandidates(llama70, run.space);
        run.oneCoreS = std::min(run.oneCoreS, run.oneCore.seconds);
    }
    run.space.threads = 0;
    core::SearchCandidates allCores;
    for (int rep = 0; rep < 5; ++rep) {
        const auto t0 = Clock::now();
        allCores = core::searchCandidates(llama70, run.space);
        run.front = core::selectFront(allCores, {0, 0.050, 0}, llama70, run.space);
        run.everyCoreS.push_back(msSince(t0) / 1000.0);
    }
    if (allCores.points.size() != run.oneCore.points.size() || allCores.evaluated != run.oneCore.evaluated)
        run.wrong = "one core and every core found different candidates";
    else if (run.front.pareto.empty())
        run.wrong = "the front is empty";
    for (const core::SearchPoint &p : run.front.pareto) {
        // What `memwall analyze` reports for the point's scenario, its serving options included.
        const core::HardwareSpec &hw = run.space.devices[p.device];
        const core::ServedRequest q = core::servedRequest(p.scenario, core::serve(hw, llama70, p.scenario));
        if (q.tpotS != p.tpotS || q.ttftS != p.ttftS ||
            std::abs(q.tokensPerSPerDevice - p.tokensPerSPerDevice) > 1e-9 * p.tokensPerSPerDevice ||
            !core::analyze(hw, llama70, p.scenario).memory.fits || p.tpotS > 0.050)
            run.wrong = "a front point's figures differ from its own analysis";
    }
    return run;
}

/// The same tick as measureTicks() with each chart tab shown in turn (the goal is stated for the default window, the
/// roofline; this says what the other tabs cost). The batch goes up and down the same path: each tab's median.
std::vector<std::pair<std::string, double>> measureTabs(ui::MainWindow &window, ui::ScenarioDocument &doc)
{
    std::vector<std::pair<std::string, double>> byTab;
    for (int tab = 0; tab < window.chartTabs()->count(); ++tab) {
        window.chartTabs()->setCurrentIndex(tab);
        for (int i = 0; i < 3; ++i)
            QApplication::processEvents();
        std::vector<double> ms;
        for (int i = 0; i < 150; ++i) {
            core::Scenario next = doc.scenario();
            next.batch = 1 + (i * 37) % 4096;
            const auto t0 = Clock::now();
            doc.setScenario(next, QStringLiteral("Batch"), ui::ScenarioDocument::BatchKey);
            QApplication::processEvents();
            ms.push_back(msSince(t0));
        }
        byTab.emplace_back(window.charts()[static_cast<std::size_t>(tab)]->id().toStdString(), percentile(ms, 0.5));
    }
    return byTab;
}

struct TargetRun
{
    std::vector<double> ms;
    std::string wrong; ///< what went wrong, or ""
};

/// The search chart: its TPOT target dragged, the tab shown. A tick is the target's spin box stepping (as a drag or
/// the arrow keys do), the front re-selected and repainted. Every 10th tick checks the painted front against
/// selectFront() of the same candidates (not timed).
TargetRun measureSearchTarget(ui::MainWindow &window, ui::ScenarioDocument &doc)
{
    TargetRun run;
    for (int tab = 0; tab < window.chartTabs()->count(); ++tab) {
        auto *search = qobject_cast<ui::SearchChart *>(window.charts()[static_cast<std::size_t>(tab)].get());
        auto *panel = window.findChild<ui::SearchTargetsPanel *>();
        if (!search || !panel)
            continue;
        window.chartTabs()->setCurrentIndex(tab);
        QApplication::processEvents();
        search->settle();
        for (int i = 0; i < 3; ++i)
            QApplication::processEvents();
        for (int i = 0; i < 150; ++i) {
            const auto t0 = Clock::now();
            panel->maxTpot()->setValue(10.0 + (i * 7) % 90); // milliseconds
            QApplication::processEvents();
            run.ms.push_back(msSince(t0));
            if (i % 10 != 0)
                continue;
            if (!search->candidates()) {
                run.wrong = "the search found no candidates";
                break;
            }
            core::SearchSpace searched;
            searched.devices = search->searchedDevices();
            const core::SearchFront expected =
                core::selectFront(*search->candidates(), search->targets(), doc.file().model, searched);
            if (search->targets().maxTpotS != (10.0 + (i * 7) % 90) / 1e3 ||
                expected.pareto.size() != search->front().pareto.size())
                run.wrong = "the front drawn is not the one of the target set";
            else if (const QString problem = uitest::markerProblems(*search); !problem.isEmpty())
                run.wrong = problem.toStdString();
        }
    }
    window.chartTabs()->setCurrentIndex(0);
    return run;
}

/// SVG export of the roofline, ten times.
std::vector<double> measureSvgExport(ui::ScenarioDocument &doc)
{
    std::vector<double> svgMs;
    QTemporaryDir dir;
    auto chart = ui::createChart("roofline", &doc);
    for (int i = 0; chart && i < 10; ++i) {
        ui::ExportOptions opts;
        QString error;
        const auto t0 = Clock::now();
        if (!ui::exportChart(*chart, dir.filePath("roofline.svg"), opts, &error)) {
            std::cerr << "memwall-bench: " << error.toStdString() << "\n";
            break;
        }
        svgMs.push_back(msSince(t0));
    }
    return svgMs;
}

struct StartupRun
{
    std::vector<double> startupMs, rssMb;
};

/// Start-up and resident memory of the real application, five launches.
StartupRun measureStartup()
{
    StartupRun run;
    for (int i = 0; i < 5; ++i) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("MEMWALL_PROBE_FIRST_PAINT", "1");
        env.insert("QT_QPA_PLATFORM", "offscreen");
        p.setProcessEnvironment(env);
        const auto t0 = Clock::now();
        p.start(MEMWALL_EXE, {});
        if (!p.waitForFinished(30000)) {
            p.kill();
            break;
        }
        // The application prints "first-paint <steady-clock ns> rss-kb <n>" and exits.
        const QStringList parts = QString::fromUtf8(p.readAllStandardOutput()).split(' ', Qt::SkipEmptyParts);
        if (parts.size() >= 4 && parts[0] == "first-paint") {
            const double paintNs = parts[1].toDouble();
            const double startNs = static_cast<double>(
                std::chrono::duration_cast<std::chrono::nanoseconds>(t0.time_since_epoch()).count());
            run.startupMs.push_back((paintNs - startNs) / 1e6);
            run.rssMb.push_back(parts[3].toDouble() / 1024.0);
        }
    }
    return run;
}

struct LargeSweepRun
{
    double rssMb = -1, seconds = -1;
    long long rows = 0; ///< lines that open an object: the header's and one per row
    bool whole = false; ///< the child exited 0 and its JSON closed
    /// The first counted line opens the header object ({"hardware": ..., "rows": [), every other one row.
    bool ok() const { return whole && rows - 1 == 4194304; }
};

/// The largest sweep, streamed: peak resident memory of the child, rows counted as they arrive.
LargeSweepRun measureLargeSweep()
{
    LargeSweepRun run;
    int fds[2];
    if (::pipe(fds) != 0)
        return run;
    const auto t0 = Clock::now();
    const pid_t child = ::fork();
    if (child == 0) {
        ::dup2(fds[1], 1);
        ::close(fds[0]);
        ::close(fds[1]);
        ::execl(MEMWALL_EXE, MEMWALL_EXE, "sweep", "--vary", "batch=1:1048576:1", "--vary", "tp=1,2,4,8", "--json",
                static_cast<char *>(nullptr));
        ::_exit(127);
    }
    ::close(fds[1]);
    // One row per line: count the lines that open a row, and keep the last bytes to check the JSON closes.
    std::string tail;
    char buf[1 << 16];
    bool lineStart = true;
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) {
        for (ssize_t i = 0; i < n; ++i) {
            if (lineStart && buf[i] == '{')
                ++run.rows;
            lineStart = buf[i] == '\n' || (lineStart && buf[i] == ' ');
        }
        tail.append(buf, static_cast<std::size_t>(n));
        if (tail.size() > 64)
            tail.erase(0, tail.size() - 64);
    }
    ::close(fds[0]);
    int status = 0;
    rusage usage{};
    if (child > 0 && ::wait4(child, &status, 0, &usage) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        run.seconds = msSince(t0) / 1000.0;
        run.rssMb = static_cast<double>(usage.ru_maxrss) / 1024.0; // Linux: kB
        const auto end = tail.find_last_not_of(" \n");
        run.whole = end != std::string::npos && tail.substr(0, end + 1).ends_with("]}");
    }
    return run;
}

/// Everything one full run measured.
struct BenchRun
{
    TickRun tick;
    std::vector<std::pair<std::string, double>> byTab;
    std::vector<double> analysisUs;
    SweepRun sweep;
    SearchRun search;
    TargetRun target;
    std::vector<double> svgMs;
    StartupRun startup;
    LargeSweepRun largeSweep;
    double sink = 0;
};

nlohmann::json analysisJson(const std::vector<double> &analysisUs, const SweepRun &sweep)
{
    return {{"analysis_us", {{"median", percentile(analysisUs, 0.5)}}},
            {"sweep_s", sweep.seconds},
            {"sweep_points", sweep.points}};
}

nlohmann::json benchJson(const BenchRun &r)
{
    const SearchRun &q = r.search;
    nlohmann::json out = tickJson(r.tick);
    out.update(analysisJson(r.analysisUs, r.sweep));
    out.update(nlohmann::json{
        {"slider_update_ms_by_tab", nlohmann::json::object()},
        {"startup_ms", percentile(r.startup.startupMs, 0.5)},
        {"rss_mb", percentile(r.startup.rssMb, 0.5)},
        {"export_svg_ms", percentile(r.svgMs, 0.5)},
        {"search_configs_per_s", static_cast<double>(q.oneCore.evaluated) / q.oneCoreS},
        {"search_analyses_per_s", static_cast<double>(q.oneCore.analysed) / q.oneCoreS},
        {"search_configurations", q.oneCore.evaluated},
        {"search_default_s", percentile(q.everyCoreS, 0.5)},
        {"search_front_points", q.front.pareto.size()},
        {"search_target_tick_ms", {{"median", percentile(r.target.ms, 0.5)}, {"p99", percentile(r.target.ms, 0.99)}}},
        {"large_sweep_rss_mb", r.largeSweep.rssMb},
        {"large_sweep_s", r.largeSweep.seconds},
        {"large_sweep_rows_ok", r.largeSweep.ok()},
        {"goals",
         {{"slider_update_ms", {{"median", 4}, {"p99", 12}}},
          {"analysis_us", 20},
          {"sweep_s", 1.0},
          {"startup_ms", 400},
          {"rss_mb", 150},
          {"export_svg_ms", 100},
          {"slider_to_baseline_ratio", 1.5},
          {"painted_markers_off", 0},
          {"search_configs_per_s", 2000000},
          {"search_default_s", 1.0},
          {"search_target_tick_ms", {{"median", 16}}},
          {"large_sweep_rss_mb", 200}}}});
    for (const auto &[id, median] : r.byTab)
        out["slider_update_ms_by_tab"][id] = median;
    return out;
}

void printAnalysis(const std::vector<double> &analysisUs, const SweepRun &sweep)
{
    std::printf("analysis (405B)          median %.2f us               (goal <= 20)\n", percentile(analysisUs, 0.5));
    std::printf("sweep 4096 x 256         %.3f s for %zu points       (goal <= 1.0)\n", sweep.seconds, sweep.points);
}

void printBench(const BenchRun &r)
{
    const SearchRun &q = r.search;
    printTicks(r.tick);
    std::printf("  median with each tab shown:");
    for (const auto &[id, median] : r.byTab)
        std::printf(" %s %.1f ms", id.c_str(), median);
    std::printf("\n");
    printAnalysis(r.analysisUs, r.sweep);
    std::printf("start to first paint     median %.0f ms               (goal <= 400)\n",
                percentile(r.startup.startupMs, 0.5));
    std::printf("resident memory          %.0f MB                      (goal <= 150)\n",
                percentile(r.startup.rssMb, 0.5));
    std::printf("SVG export (roofline)    median %.1f ms               (goal <= 100)\n", percentile(r.svgMs, 0.5));
    std::printf("search, one core         %.2f M configurations/s (%.2f M analyses/s) over %llu   (goal >= 2 M)\n",
                static_cast<double>(q.oneCore.evaluated) / q.oneCoreS / 1e6,
                static_cast<double>(q.oneCore.analysed) / q.oneCoreS / 1e6,
                static_cast<unsigned long long>(q.oneCore.evaluated));
    std::printf("default search           median %.3f s, every core, %zu front points (goal <= 1 s)\n",
                percentile(q.everyCoreS, 0.5), q.front.pareto.size());
    std::printf("search target dragged    median %.2f ms, p99 %.2f ms, search tab shown (goal <= 16)\n",
                percentile(r.target.ms, 0.5), percentile(r.target.ms, 0.99));
    std::printf("sweep of 4,194,304 rows  peak RSS %.0f MB in %.1f s, rows %s   (goal <= 200 MB)\n", r.largeSweep.rssMb,
                r.largeSweep.seconds, r.largeSweep.ok() ? "all there" : "MISSING OR CUT");
}

/// 0, or 1 with the reason on stderr: the Python module's benchmark failed, the large sweep lost rows, the search
/// or its chart went wrong, a tick problem, or the timed work was optimised away.
int benchProblems(const BenchRun &r, bool json)
{
    // The Python module's goals, timed by its own script (tests/bench/python_bench.py), which checks its results too.
    if (!json && MEMWALL_PYTHON_DIR[0] != '\0') {
        const std::string cmd =
            "PYTHONPATH='" MEMWALL_PYTHON_DIR "' /usr/bin/python3 '" MEMWALL_SOURCE_DIR "/tests/bench/python_bench.py'";
        if (std::system(cmd.c_str()) != 0) {
            std::cerr << "memwall-bench: the Python module's benchmark failed\n";
            return 1;
        }
    }
    if (!r.largeSweep.ok()) {
        std::cerr << "memwall-bench: the large sweep did not write its 4,194,304 rows whole (" << r.largeSweep.rows - 1
                  << " counted)\n";
        return 1;
    }
    std::string searchWrong = r.search.wrong;
    if (r.target.ms.empty())
        searchWrong = "the window has no search chart with its targets panel";
    if (!r.target.wrong.empty())
        searchWrong = r.target.wrong;
    if (!searchWrong.empty()) {
        std::cerr << "memwall-bench: the search went wrong: " << searchWrong << "\n";
        return 1;
    }
    if (tickProblems(r.tick) != 0)
        return 1;
    return r.sink > 0 ? 0 : 1;
}

/// The window at the goals' size, shown and settled.
void showWindow(ui::MainWindow &window)
{
    window.resize(1600, 1000);
    window.show();
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
}

/// --tick-only: the slider tick and its ratio to a bare chart's.
int runTicks(const std::shared_ptr<core::PresetLibrary> &lib, bool json)
{
    ui::ScenarioDocument doc(lib);
    ui::MainWindow window(&doc);
    showWindow(window);
    const TickRun tick = measureTicks(window, doc);
    const nlohmann::json out = tickJson(tick);
    if (json)
        std::cout << out.dump(2) << "\n";
    else
        printTicks(tick);
    return tickProblems(tick);
}

/// The scenario of the analysis and sweep goals: Llama-3.1-405B on H100s, tp 8, batch 16, context 4,096.
core::Scenario analysisScenario()
{
    core::Scenario s;
    s.tp = 8;
    s.batch = 16;
    s.context = 4096;
    return s;
}

/// --sweep-only: the analysis and the sweep (seconds, where the whole run takes minutes).
int runAnalysisAndSweep(const core::PresetLibrary &lib, bool json)
{
    const core::HardwareSpec &h100 = *lib.findHardware("h100-sxm");
    const core::ModelShape &big = lib.findModel("llama-3-1-405b")->shape;
    double sink = 0;
    const std::vector<double> analysisUs = measureAnalysis(h100, big, analysisScenario(), sink);
    const SweepRun sweep = measureSweep(h100, big, analysisScenario(), sink);
    if (json)
        std::cout << analysisJson(analysisUs, sweep).dump(2) << "\n";
    else
        printAnalysis(analysisUs, sweep);
    return sink > 0 ? 0 : 1;
}

/// Every goal, in the order the run has always measured them.
int runAll(const std::shared_ptr<core::PresetLibrary> &lib, bool json)
{
    const core::HardwareSpec &h100 = *lib->findHardware("h100-sxm");
    const core::ModelShape &big = lib->findModel("llama-3-1-405b")->shape;
    BenchRun r;
    r.analysisUs = measureAnalysis(h100, big, analysisScenario(), r.sink);
    r.sweep = measureSweep(h100, big, analysisScenario(), r.sink);
    r.search = measureSearch(*lib);
    ui::ScenarioDocument doc(lib);
    ui::MainWindow window(&doc);
    showWindow(window);
    r.tick = measureTicks(window, doc);
    r.byTab = measureTabs(window, doc);
    r.target = measureSearchTarget(window, doc);
    r.svgMs = measureSvgExport(doc);
    r.startup = measureStartup();
    r.largeSweep = measureLargeSweep();
    if (json)
        std::cout << benchJson(r).dump(2) << "\n";
    else
        printBench(r);
    return benchProblems(r, json);
}
} // namespace

int main(int argc, char **argv)
{
    bool json = false, tickOnly = false, sweepOnly = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--json")
            json = true;
        else if (a == "--tick-only")
            tickOnly = true;
        else if (a == "--sweep-only")
            sweepOnly = true;
        else if (a == "--help") {
            std::cout << "usage: memwall-bench [--json] [--tick-only | --sweep-only]\n"
                         "  --tick-only   only the slider tick and its ratio to a bare chart's (a minute, not ten)\n"
                         "  --sweep-only  only the analysis and the 4096 x 256 sweep (seconds)\n";
            return 0;
        } else {
            std::cerr << "memwall-bench: unknown option '" << a << "'\n";
            return 2;
        }
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setApplicationName("MemWall");

    auto lib = std::make_shared<core::PresetLibrary>();
    lib->loadBuiltin();
    if (tickOnly)
        return runTicks(lib, json);
    if (sweepOnly)
        return runAnalysisAndSweep(*lib, json);
    return runAll(lib, json);
}
