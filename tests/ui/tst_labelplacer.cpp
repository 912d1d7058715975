// LabelPlacer: the one place every chart's labels go through (issue #39). Pure geometry in chart pixels.
#include "ui/charts/labelplacer.h"
#include "ui/settings/theme.h"

#include <QtTest>

using namespace memwall::ui;

class TestLabelPlacer : public QObject
{
    Q_OBJECT
private slots:
    void staysInsideThePlot()
    {
        LabelPlacer p(QRectF(0, 0, 100, 50), 0);
        // the first candidate sticks out on the right (a cut label); the second is inside
        const auto r = p.place(QSizeF(40, 10), {QPointF(70, 5), QPointF(50, 5)});
        QVERIFY(r);
        QCOMPARE(r->topLeft(), QPointF(50, 5));
        QVERIFY(!p.place(QSizeF(120, 10), {QPointF(0, 0)})); // wider than the plot: nowhere
    }

    void noLabelOverAnother()
    {
        LabelPlacer p(QRectF(0, 0, 100, 100));
        QVERIFY(p.place(QSizeF(40, 10), {QPointF(10, 10)}));
        QVERIFY(!p.place(QSizeF(40, 10), {QPointF(30, 15)})); // overlaps the first
        const auto r = p.place(QSizeF(40, 10), {QPointF(30, 15), QPointF(30, 30)});
        QVERIFY(r);
        QCOMPARE(r->top(), 30.0);
    }

    void noCurveThroughALabel()
    {
        LabelPlacer p(QRectF(0, 0, 100, 100));
        p.addCurve(QPolygonF({QPointF(0, 100), QPointF(50, 50), QPointF(100, 0)})); // the diagonal
        QVERIFY(!p.isFree(QRectF(40, 40, 20, 20)));
        QVERIFY(p.isFree(QRectF(5, 5, 20, 20))); // above-left of it
        // a segment ending inside a label crosses it too
        p.addCurve(QLineF(QPointF(80, 90), QPointF(85, 85)));
        QVERIFY(!p.isFree(QRectF(80, 80, 10, 10)));
    }

    void obstaclesAndLeaders()
    {
        LabelPlacer p(QRectF(0, 0, 100, 100));
        p.addObstacle(QRectF(45, 45, 10, 10)); // a marker
        QVERIFY(!p.isFree(QRectF(40, 40, 10, 10)));
        QVERIFY(!p.lineClear(QLineF(QPointF(0, 50), QPointF(100, 50))));
        QVERIFY(p.lineClear(QLineF(QPointF(0, 10), QPointF(100, 10))));
    }

    void turnedLabels()
    {
        // A label turned by -45° about its top-left corner rises to the right: its outline is no longer its box.
        const LabelPlacer::Outline o = LabelPlacer::outlineAt(QSizeF(40, 10), QPointF(20, 60), -45);
        QVERIFY(!o.upright);
        QVERIFY(o.box.top() < 60 - 25);
        LabelPlacer p(QRectF(0, 0, 100, 100));
        QVERIFY(p.take(o));
        QVERIFY(!p.isFree(LabelPlacer::outlineAt(QSizeF(10, 10), QPointF(35, 40))));
        QVERIFY(p.isFree(QRectF(21, 35, 8, 8))); // inside the turned label's box, outside the label
    }

    void minimumSizeForAProjector()
    {
        QCOMPARE(LabelPlacer::minimumPointSize(Theme::presentation()), 14.0);
        QVERIFY(LabelPlacer::minimumPointSize(Theme::light()) >= 7);
        QVERIFY(Theme::presentation().tickPointSize >= LabelPlacer::minimumPointSize(Theme::presentation()));
    }
};

QTEST_GUILESS_MAIN(TestLabelPlacer)
#include "tst_labelplacer.moc"
