// ui/util/text.h: the window's numbers are the core's (core/util/format.h) with only the decimal point and the digit
// grouping of the user's locale. Every expected text is written out by hand.
#include "ui/util/text.h"

#include <QLocale>
#include <QtTest>

#include <limits>

using namespace memwall;

class TestText : public QObject
{
    Q_OBJECT

private slots:
    void init() { QLocale::setDefault(QLocale::c()); }
    void cleanupTestCase() { QLocale::setDefault(QLocale::c()); }

    void englishNumbersAreTheCoresText()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        QCOMPARE(ui::formatSi(8.04e-9, "s"), QString("8.04 ns"));
        QCOMPARE(ui::formatSi(989.4e12, "FLOP/s"), QString("989 TFLOP/s"));
        QCOMPARE(ui::formatSi(3.35e12, "B/s"), QString("3.35 TB/s"));
        QCOMPARE(ui::formatSiNumber(6738415616.0), QString("6.74 G"));
        QCOMPARE(ui::formatSiNumber(0.01), QString("0.01"));
        QCOMPARE(ui::formatBytes(52428800.0), QString("52.4 MB"));
        QCOMPARE(ui::formatSeconds(150.0), QString("2.5 min"));
        QCOMPARE(ui::formatGrouped(6738415616), QString("6,738,415,616"));
        QCOMPARE(ui::formatNumber(1979.4), QString("1,979"));
        QCOMPARE(ui::formatRatio(1.03), QString("1.0"));
        QCOMPARE(ui::formatPercent(0.004), QString("0.4 %"));
    }

    void germanSwapsPointAndGrouping()
    {
        // German writes 8,04 and groups thousands with a dot: only the number changes, never the unit.
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        QCOMPARE(ui::formatSi(8.04e-9, "s"), QString("8,04 ns"));
        QCOMPARE(ui::formatSi(3.35e12, "B/s"), QString("3,35 TB/s"));
        QCOMPARE(ui::formatSiNumber(0.0123), QString("0,0123"));
        QCOMPARE(ui::formatBytes(52428800.0), QString("52,4 MB"));
        QCOMPARE(ui::formatSeconds(5400.0), QString("1,5 h"));
        QCOMPARE(ui::formatGrouped(6738415616), QString("6.738.415.616"));
        QCOMPARE(ui::formatNumber(-1234.4), QString("-1.234"));
        QCOMPARE(ui::formatNumber(29.54), QString("29,5"));
        QCOMPARE(ui::formatRatio(8.0), QString("8,0"));
        QCOMPARE(ui::formatPercent(0.004), QString("0,4 %"));
        // The one percentage writer (issue #39), its bounds included: ">99,9 %", "+12 %".
        QCOMPARE(ui::formatPercent(0.0017), QString("0,17 %"));
        QCOMPARE(ui::formatPercent(0.9996), QString(">99,9 %"));
        QCOMPARE(ui::formatPercentNumber(0.053), QString("5,3"));
        QCOMPARE(ui::formatPercentChange(-0.084), QString("-8,4 %"));
        QCOMPARE(ui::formatFixed(1234.56, 1), QString("1.234,6"));
        QCOMPARE(ui::formatFixed(-1234.0, 0), QString("-1.234"));
        QCOMPARE(ui::formatFixed(39.304, 2), QString("39,30"));
        QCOMPARE(ui::formatExact(37580963840.0), QString("37.580.963.840"));
        QCOMPARE(ui::formatExact(0.0412417), QString("0,0412417"));
        // Numbers a program reads back keep the C locale, whatever the user's.
        QCOMPARE(ui::csvNumber(1234.5), QString("1234.5"));
        QCOMPARE(ui::csvNumber(0.1), QString("0.10000000000000001"));
        QCOMPARE(ui::formatSi(std::numeric_limits<double>::infinity(), "B"), QString("∞ B"));
        // Text after the number keeps its dots and commas.
        QCOMPARE(ui::localized("1,234.5 x.y,z"), QString("1.234,5 x.y,z"));
    }

    void csvQuotesLikeTheCore()
    {
        QCOMPARE(ui::csvField("HBM3, 5 stacks"), QString("\"HBM3, 5 stacks\""));
        QCOMPARE(ui::csvField("plain"), QString("plain"));
        QCOMPARE(ui::csvField("µ\"s\"\n"), QString("\"µ\"\"s\"\"\n\""));
        QCOMPARE(ui::csvRow({"model", "Llama 2, 7B", "0.5"}), QString("model,\"Llama 2, 7B\",0.5\n"));
    }
};

QTEST_GUILESS_MAIN(TestText)
#include "tst_text.moc"
