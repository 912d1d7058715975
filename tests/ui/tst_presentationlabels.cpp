// Presentation mode on a projector's screen (issue #41 item 5): on every chart at 1280x720 and 1024x768, every label
// is inside the view, at least LabelPlacer::minimumPointSize() points, clear of every other label and of every
// curve, and no text is cut ("Time per tok…"). Geometry is read back from the scene (sceneBoundingRect), so the test
// compares rectangles, not pixels, and passes with any font.
#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/charts/chartview.h"
#include "ui/charts/labelplacer.h"
#include "ui/document/scenariodocument.h"
#include "ui/lessons/presentationwindow.h"

#include "uitest.h"

#include <QAbstractAxis>
#include <QAreaSeries>
#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QPainterPath>
#include <QPainterPathStroker>
#include <QXYSeries>
#include <QtTest>

using namespace memwall;

namespace {

struct Shown
{
    QString text;
    QRectF rect; ///< scene coordinates
    QPolygonF outline;
    qreal points = 0;
};

/// The chart's own labels (QGraphicsSimpleTextItem) that are shown, as the scene has them.
std::vector<Shown> chartLabels(const QGraphicsScene *scene)
{
    std::vector<Shown> out;
    for (QGraphicsItem *item : scene->items()) {
        auto *t = dynamic_cast<QGraphicsSimpleTextItem *>(item);
        if (!t || !t->isVisible() || t->text().trimmed().isEmpty() || t->opacity() == 0)
            continue;
        out.push_back({t->text(), t->sceneBoundingRect(), t->mapToScene(t->boundingRect()), t->font().pointSizeF()});
    }
    return out;
}

/// The drawn lines of the chart (line and spline series, not markers or bars), each as a thin stroke in scene
/// coordinates: QPainterPath::intersects() on an open path would test its filled area, a stroke tests the line.
std::vector<std::pair<QString, QPainterPath>> curves(QChart *chart)
{
    std::vector<std::pair<QString, QPainterPath>> out;
    QPainterPathStroker stroker;
    stroker.setWidth(1);
    for (QAbstractSeries *s : chart->series()) {
        auto *xy = qobject_cast<QXYSeries *>(s);
        if (!xy || !xy->isVisible() || xy->type() == QAbstractSeries::SeriesTypeScatter || xy->count() < 2)
            continue;
        QPainterPath path(chart->mapToScene(chart->mapToPosition(xy->at(0), xy)));
        for (int i = 1; i < xy->count(); ++i)
            path.lineTo(chart->mapToScene(chart->mapToPosition(xy->at(i), xy)));
        out.emplace_back(xy->objectName().isEmpty() ? xy->name() : xy->objectName(), stroker.createStroke(path));
    }
    return out;
}

} // namespace

class TestPresentationLabels : public QObject
{
    Q_OBJECT
private slots:
    void everyLabelReadable_data()
    {
        QTest::addColumn<QString>("chartId");
        QTest::addColumn<QSize>("size");
        for (const QSize &size : {QSize(1280, 720), QSize(1024, 768)})
            for (const QString &id : ui::chartIds())
                QTest::addRow("%s %dx%d", qPrintable(id), size.width(), size.height()) << id << size;
    }

    void everyLabelReadable()
    {
        QFETCH(QString, chartId);
        QFETCH(QSize, size);
        ui::ScenarioDocument doc(uitest::library());
        ui::PresentationWindow w(&doc, nullptr);
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.showChartId(chartId);
        ui::ChartBase *chart = w.currentChart();
        QVERIFY(chart);
        chart->settle();
        QCoreApplication::processEvents();
        ui::ChartView *view = w.currentView();
        const qreal minPoints = ui::LabelPlacer::minimumPointSize(chart->theme());
        QCOMPARE(minPoints, 14.0);
        const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect().adjusted(-1, -1, 1, 1);
        const std::vector<Shown> labels = chartLabels(view->scene());
        const auto lines = curves(chart->chart());
        for (std::size_t i = 0; i < labels.size(); ++i) {
            const Shown &l = labels[i];
            QVERIFY2(l.points >= minPoints, qPrintable(QStringLiteral("'%1' is %2 pt").arg(l.text).arg(l.points)));
            QVERIFY2(!l.text.contains(QChar(0x2026)), qPrintable(QStringLiteral("'%1' is cut").arg(l.text)));
            QVERIFY2(visible.contains(l.rect), qPrintable(QStringLiteral("'%1' is cut by the view").arg(l.text)));
            for (std::size_t j = 0; j < i; ++j)
                QVERIFY2(!labels[j].outline.intersects(l.outline),
                         qPrintable(QStringLiteral("'%1' overlaps '%2'").arg(l.text, labels[j].text)));
            QPainterPath box;
            box.addPolygon(l.outline);
            for (const auto &[name, stroke] : lines)
                QVERIFY2(!stroke.intersects(box),
                         qPrintable(QStringLiteral("the curve '%1' runs through '%2'").arg(name, l.text)));
        }
        // Qt Charts' own texts (title, axis titles, tick labels, legend): readable, inside the view, never cut.
        for (QGraphicsItem *item : view->scene()->items()) {
            auto *t = dynamic_cast<QGraphicsTextItem *>(item);
            if (!t || !t->isVisible() || t->toPlainText().isEmpty())
                continue;
            const QString text = t->toPlainText();
            QVERIFY2(!text.endsWith(QChar(0x2026)) && !text.endsWith(QLatin1String("...")),
                     qPrintable(QStringLiteral("'%1' is cut").arg(text)));
            QVERIFY2(t->font().pointSizeF() >= minPoints,
                     qPrintable(QStringLiteral("'%1' is %2 pt").arg(text).arg(t->font().pointSizeF())));
            QVERIFY2(visible.contains(t->sceneBoundingRect()),
                     qPrintable(QStringLiteral("'%1' is cut by the view").arg(text)));
        }
    }
};

QTEST_MAIN(TestPresentationLabels)
#include "tst_presentationlabels.moc"
