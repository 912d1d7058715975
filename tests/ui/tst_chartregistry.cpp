// The chart registry is the one list of charts: every id makes a chart of its own class with a title, the window's
// tabs, the presentation window, lessons and `memwall export --chart` offer exactly its ids, and the short titles
// are translated when asked (a language installed after start-up shows), not frozen at first use.
#include "../runmemwall.h"
#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/charts/charttabs.h"
#include "ui/charts/chartview.h"
#include "ui/document/scenariodocument.h"
#include "ui/export/chartexporter.h"
#include "ui/lessons/lesson.h"
#include "ui/lessons/presentationwindow.h"
#include "uitest.h"

#include "core/io/jsonreader.h"

#include <QDir>
#include <QFileInfo>
#include <QHelpEvent>
#include <QScopeGuard>
#include <QTabBar>
#include <QTemporaryDir>
#include <QToolTip>
#include <QTranslator>
#include <QtTest>

using namespace memwall;
using testprocess::runMemwall;
using uitest::library;

namespace {

/// A language that wraps every text in ‹ ›: what is translated when asked shows it, what was frozen does not.
class BracketTranslator : public QTranslator
{
public:
    bool isEmpty() const override { return false; }
    QString translate(const char *, const char *sourceText, const char *, int) const override
    {
        return QStringLiteral("‹%1›").arg(QString::fromUtf8(sourceText));
    }
};

/// The ids of the registry's charts the presentation window shows.
QStringList presentedIds()
{
    QStringList ids;
    for (const ui::ChartInfo &info : ui::chartRegistry())
        if (info.presentation)
            ids << info.id;
    return ids;
}

/// One test row per id, named after it, in the column "id".
void addIdRows(const QStringList &ids)
{
    QTest::addColumn<QString>("id");
    for (const QString &id : ids)
        QTest::newRow(qPrintable(id)) << id;
}

/// A one-step lesson showing `chart`.
nlohmann::json lessonShowing(const QString &chart)
{
    return nlohmann::json::parse(R"({"kind": "lesson", "id": "x", "title": "X",
        "scenario": {"hardware": "h100-sxm", "model": "llama-2-7b"},
        "steps": [{"title": "s", "chart": ")" +
                                 chart.toStdString() + R"(", "text": "t"}]})");
}

} // namespace

class TestChartRegistry : public QObject
{
    Q_OBJECT
private slots:
    void everyIdMakesItsChart_data() { addIdRows(ui::chartIds()); }
    void everyIdMakesItsChart()
    {
        QFETCH(QString, id);
        // The class each id must make, written here apart from the registry so that a wrong factory is caught.
        static const QMap<QString, QByteArray> expected{
            {"roofline", "memwall::ui::RooflineChart"},     {"memory", "memwall::ui::MemoryChart"},
            {"sweep", "memwall::ui::SweepChart"},           {"breakdown", "memwall::ui::BreakdownChart"},
            {"trends", "memwall::ui::TrendsChart"},         {"scaling", "memwall::ui::ScalingChart"},
            {"search", "memwall::ui::SearchChart"},         {"timeline", "memwall::ui::TimelineChart"},
            {"validation", "memwall::ui::ValidationChart"}, {"ridge", "memwall::ui::RidgeChart"}};
        QVERIFY2(expected.contains(id), "a new chart: add its class to this test's table");

        const ui::ChartInfo *info = ui::findChart(id);
        QVERIFY(info);
        QCOMPARE(info->id, id);
        ui::ScenarioDocument doc(library());
        const std::unique_ptr<ui::ChartBase> chart = ui::createChart(id, &doc);
        QVERIFY(chart);
        QCOMPARE(QByteArray(chart->metaObject()->className()), expected.value(id));
        QCOMPARE(chart->metaObject(), info->type);
        QCOMPARE(chart->id(), id);
        QCOMPARE(ui::chartInfoOf(*chart), info);
        QCOMPARE(QString::fromStdString(chart->data().at("chart").get<std::string>()), id);
        QVERIFY(!info->title().trimmed().isEmpty());
        QVERIFY(!chart->title().trimmed().isEmpty());
    }

    void unknownIdsMakeNothing()
    {
        ui::ScenarioDocument doc(library());
        for (const QString &id :
             {QStringLiteral("pie"), QStringLiteral("Roofline"), QStringLiteral("all"), QString()}) {
            QVERIFY2(!ui::findChart(id), qPrintable(id));
            QVERIFY2(!ui::createChart(id, &doc), qPrintable(id));
        }
        const QStringList ids = ui::chartIds();
        QCOMPARE(QSet<QString>(ids.begin(), ids.end()).size(), ids.size());
    }

    void tabsListTheRegistryInOrder()
    {
        ui::ScenarioDocument doc(library());
        ui::ChartTabs tabs(&doc);
        const auto registry = ui::chartRegistry();
        QCOMPARE(tabs.count(), static_cast<int>(registry.size()));
        QCOMPARE(tabs.charts().size(), registry.size());
        for (int i = 0; i < tabs.count(); ++i) {
            const ui::ChartInfo &info = registry[static_cast<std::size_t>(i)];
            const ui::ChartBase *chart = tabs.charts()[static_cast<std::size_t>(i)].get();
            QCOMPARE(chart->id(), info.id);
            QCOMPARE(chart->metaObject(), info.type);
            QCOMPARE(tabs.widget(i)->objectName(), info.id + "View");
            const auto *view = qobject_cast<const ui::ChartView *>(tabs.widget(i));
            QVERIFY(view);
            QCOMPARE(view->chartBase(), chart);
            QCOMPARE(tabs.tabText(i), info.title());
            QCOMPARE(tabs.tabToolTip(i), chart->title());
        }
        QCOMPARE(tabs.tabNames().size(), tabs.count());
    }

    // The tabs' tooltips are the charts' titles, which name the model and phase: built when a tooltip is asked for
    // (a slider tick does not build every hidden chart's title), and then the document's current ones.
    void tabToolTipsFollowTheDocumentWhenAsked()
    {
        ui::ScenarioDocument doc(library());
        ui::ChartTabs tabs(&doc);
        tabs.resize(1200, 800);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        doc.setModelById(QStringLiteral("llama-3-70b"));
        core::Scenario s = doc.scenario();
        s.phase = core::Phase::Prefill;
        doc.setScenario(s, QStringLiteral("phase"));
        const int last = tabs.count() - 1;
        const QPoint at = tabs.tabBar()->tabRect(last).center();
        QHelpEvent help(QEvent::ToolTip, at, tabs.tabBar()->mapToGlobal(at));
        QCoreApplication::sendEvent(tabs.tabBar(), &help);
        for (int i = 0; i < tabs.count(); ++i) {
            const ui::ChartBase *chart = tabs.charts()[static_cast<std::size_t>(i)].get();
            QCOMPARE(tabs.tabToolTip(i), chart->title());
        }
        QVERIFY2(tabs.tabToolTip(0).contains(QString::fromStdString(doc.model().name)), qPrintable(tabs.tabToolTip(0)));
        QToolTip::hideText();
    }

    // A language installed after the first tabs were built shows in the next ones: the titles are not kept from
    // their first use.
    void titlesAreTranslatedWhenAsked()
    {
        ui::ScenarioDocument doc(library());
        const auto registry = ui::chartRegistry();
        {
            const ui::ChartTabs english(&doc);
            for (int i = 0; i < english.count(); ++i)
                QCOMPARE(english.tabText(i), QString::fromUtf8(registry[static_cast<std::size_t>(i)].name));
        }
        BracketTranslator brackets;
        QCoreApplication::installTranslator(&brackets);
        const auto restore = qScopeGuard([&brackets] { QCoreApplication::removeTranslator(&brackets); });
        const ui::ChartTabs translated(&doc);
        QStringList expected;
        for (const ui::ChartInfo &info : registry) {
            expected << QStringLiteral("‹%1›").arg(QString::fromUtf8(info.name));
            QCOMPARE(info.title(), expected.back());
        }
        QStringList shown;
        for (int i = 0; i < translated.count(); ++i)
            shown << translated.tabText(i);
        QCOMPARE(shown, expected);
        QCOMPARE(translated.tabNames(), expected);
    }

    void presentationShowsTheRegistrysCharts()
    {
        ui::ScenarioDocument doc(library());
        const ui::PresentationWindow window(&doc, nullptr);
        QCOMPARE(window.chartIds(), presentedIds());
    }

    void lessonsTakeEveryPresentedChart_data() { addIdRows(presentedIds()); }
    void lessonsTakeEveryPresentedChart()
    {
        QFETCH(QString, id);
        const ui::Lesson lesson = ui::lessonFromJson(lessonShowing(id), "x.json", *library());
        QCOMPARE(lesson.steps.front().chart, id);
    }

    void lessonNamesTheChartsItTakes()
    {
        try {
            (void)ui::lessonFromJson(lessonShowing("pie"), "x.json", *library());
            QFAIL("a lesson showing the chart \"pie\" loaded");
        } catch (const core::InputError &e) {
            const QString expected =
                "x.json: steps[0].chart: unknown chart \"pie\" (" + presentedIds().join(", ") + ")";
            QCOMPARE(QString::fromStdString(e.what()), expected);
        }
    }

    // `memwall export --chart NAME`, run as a process.
    void exportCommandTakesEveryId_data() { addIdRows(ui::chartIds()); }
    void exportCommandTakesEveryId()
    {
        QFETCH(QString, id);
        QTemporaryDir dir;
        const QString path = dir.filePath(id + ".csv");
        const testprocess::Run r = runMemwall({"export", "--chart", id, "--out", path});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out, (QDir::toNativeSeparators(path) + "\n").toUtf8());
        QVERIFY(QFileInfo(path).size() > 0);
    }

    void exportCommandRefusesOtherNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("unknown") << "pie";
        QTest::newRow("title, not id") << "Roofline";
        QTest::newRow("trailing space") << "memory ";
        QTest::newRow("two ids") << "roofline,memory";
    }
    void exportCommandRefusesOtherNames()
    {
        QFETCH(QString, name);
        const testprocess::Run r = runMemwall({"export", "--chart", name, "--out", "x.png"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        // One line that names what was asked and ends with every valid id, in the registry's order, and "all".
        QCOMPARE(r.err.count('\n'), 1);
        const QString line = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(line.contains("'" + name + "'"), qPrintable(line));
        QVERIFY2(line.endsWith(" " + ui::chartIds().join(", ") + ", all"), qPrintable(line));
    }

    void exportHelpListsEveryId()
    {
        const testprocess::Run r = runMemwall({"export", "--help"});
        QCOMPARE(r.exitCode, 0);
        // The option's help, with the lines it wraps onto (indented, not starting another option).
        QString chartLine;
        bool inChart = false;
        for (const QString &line : QString::fromUtf8(r.out).split('\n')) {
            const QString t = line.trimmed();
            if (t.startsWith("--chart NAME"))
                chartLine = t;
            else if (inChart && line.startsWith(' ') && !t.isEmpty() && !t.startsWith('-'))
                chartLine += ' ' + t;
            inChart = t.startsWith("--chart NAME") || (inChart && line.startsWith(' ') && !t.startsWith('-'));
        }
        QVERIFY2(!chartLine.isEmpty(), r.out.constData());
        // "--chart NAME   roofline, memory, ...; or all (one file per chart)"
        const QString names = chartLine.mid(QStringLiteral("--chart NAME").size()).section(';', 0, 0).trimmed();
        QCOMPARE(names, ui::chartIds().join(", "));
    }
};

QTEST_MAIN(TestChartRegistry)
#include "tst_chartregistry.moc"
