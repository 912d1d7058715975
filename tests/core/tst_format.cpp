// core/util/format: the one way MemWall writes numbers and units. Every expected text below is counted by hand from
// the value in its row (digits, rounding and the decimal prefix), not computed, so a change of style fails here.
#include "core/util/format.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

using namespace memwall::core;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
QString q(const std::string &s) { return QString::fromStdString(s); }
} // namespace

class TstFormat : public QObject
{
    Q_OBJECT

private slots:
    void si_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<int>("significant");
        QTest::addColumn<QString>("expected");
        auto row = [](const char *name, double v, const char *unit, const char *expected, int significant = 3) {
            QTest::newRow(name) << v << QString(unit) << significant << QString::fromUtf8(expected);
        };
        row("8.04e-9 s = 8.04 ns (a prefix below one, not 8.04e-09)", 8.04e-9, "s", "8.04 ns");
        row("0.04123 s = 41.23 ms -> 41.2 ms", 0.04123, "s", "41.2 ms");
        row("3.14e-6 s = 3.14 µs", 3.14e-6, "s", "3.14 µs");
        row("negative: -0.0025 s = -2.5 ms", -2.5e-3, "s", "-2.5 ms");
        row("1.5e-12 s = 1.5 ps, the smallest prefix", 1.5e-12, "s", "1.5 ps");
        row("Llama 2 70B fp16 weights 137.96e9 B = 138 GB", 137.96e9, "B", "138 GB");
        row("H100 SXM fp16 989.4e12 FLOP/s = 989 TFLOP/s", 989.4e12, "FLOP/s", "989 TFLOP/s");
        row("999.97e9 B rounds to 1000 GB, which is 1 TB", 999.97e9, "B", "1 TB");
        row("80e9 B = 80.0 GB, trailing zeros dropped", 80e9, "B", "80 GB");
        row("50 MiB = 52,428,800 B = 52.4 MB", 52428800.0, "B", "52.4 MB");
        row("zero", 0.0, "B", "0 B");
        row("no unit: 1.5e12 = 1.5 T", 1.5e12, "", "1.5 T");
        row("no unit, no prefix: 42, no trailing space", 42.0, "", "42");
        row("no unit: 0.5 = 500 m", 0.5, "", "500 m");
        row("2 significant digits: 1234 B = 1.2 kB", 1234.0, "B", "1.2 kB", 2);
        row("beyond E: 1e21 B = 1000 EB", 1e21, "B", "1000 EB");
        row("infinity", kInf, "B", "∞ B");
        row("minus infinity", -kInf, "s", "-∞ s");
        row("NaN", kNaN, "s", "? s");
    }
    void si()
    {
        QFETCH(double, value);
        QFETCH(QString, unit);
        QFETCH(int, significant);
        QFETCH(QString, expected);
        QCOMPARE(q(formatSi(value, unit.toStdString(), significant)), expected);
    }

    void oneValue_data()
    {
        // formatSiNumber, formatBytes, formatSeconds and formatNumber: one value in, one text out.
        QTest::addColumn<QString>("function");
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("expected");
        auto row = [](const char *function, const char *name, double v, const char *expected) {
            QTest::newRow(qPrintable(QString("%1: %2").arg(function, name)))
                << QString(function) << v << QString::fromUtf8(expected);
        };
        row("formatSiNumber", "1980 = 1.98 k", 1980.0, "1.98 k");
        row("formatSiNumber", "H100 ridge 295.3 = 295, no prefix", 295.3, "295");
        row("formatSiNumber", "0.0123 stays a decimal (formatSi: 12.3 m)", 0.0123, "0.0123");
        row("formatSiNumber", "0.1 intensity tick", 0.1, "0.1");
        row("formatSiNumber", "10", 10.0, "10");
        row("formatSiNumber", "1e12 = 1 T", 1e12, "1 T");
        row("formatSiNumber", "999.7 rounds to 1000 = 1 k", 999.7, "1 k");
        row("formatSiNumber", "Llama 2 7B 6,738,415,616 parameters = 6.74 G", 6738415616.0, "6.74 G");
        row("formatSiNumber", "zero", 0.0, "0");

        row("formatBytes", "H100 80e9 B = 80 GB (decimal, not 74.5 GiB)", 80e9, "80 GB");
        row("formatBytes", "OPT-13B KV 819,200 B/token = 819 kB (decimal, not 800 KiB)", 819200.0, "819 kB");
        row("formatBytes", "512 B", 512.0, "512 B");
        row("formatBytes", "1.5e15 B = 1.5 PB", 1.5e15, "1.5 PB");

        row("formatSeconds", "8.04e-9 s = 8.04 ns", 8.04e-9, "8.04 ns");
        row("formatSeconds", "0.0412 s = 41.2 ms", 0.0412, "41.2 ms");
        row("formatSeconds", "12.34 s = 12.3 s", 12.34, "12.3 s");
        row("formatSeconds", "59.9 s, under a minute", 59.9, "59.9 s");
        row("formatSeconds", "60 s = 1 min", 60.0, "1 min");
        row("formatSeconds", "150 s = 2.5 min", 150.0, "2.5 min");
        row("formatSeconds", "5400 s = 90 min = 1.5 h", 5400.0, "1.5 h");
        row("formatSeconds", "276,480 s = 3.2 days", 276480.0, "3.2 d");
        row("formatSeconds", "zero", 0.0, "0 s");
        row("formatSeconds", "infinity", kInf, "∞ s");

        row("formatNumber", "H100 ridge 295.3 -> whole number", 295.3, "295");
        row("formatNumber", "thousands get separators", 1979.4, "1,979");
        row("formatNumber", "three significant digits", 29.54, "29.5");
        row("formatNumber", "small values", 0.41234, "0.412");
        row("formatNumber", "trailing zeros dropped", 80.0, "80");
        row("formatNumber", "99.96 rounds to 100", 99.96, "100");
        row("formatNumber", "zero", 0.0, "0");
        row("formatNumber", "negative", -12.345, "-12.3");
        row("formatNumber", "negative thousands", -1234.4, "-1,234");
        row("formatNumber", "infinity", kInf, "∞");
        row("formatNumber", "NaN", kNaN, "?");
    }
    void oneValue()
    {
        QFETCH(QString, function);
        QFETCH(double, value);
        QFETCH(QString, expected);
        const std::map<QString, std::string (*)(double)> functions{
            {"formatSiNumber", [](double v) { return formatSiNumber(v); }},
            {"formatBytes", formatBytes},
            {"formatSeconds", formatSeconds},
            {"formatNumber", formatNumber}};
        QCOMPARE(q(functions.at(function)(value)), expected);
    }

    void grouped()
    {
        QCOMPARE(q(formatGrouped(6738415616)), QString("6,738,415,616"));
        QCOMPARE(q(formatGrouped(-4096)), QString("-4,096"));
        QCOMPARE(q(formatGrouped(999)), QString("999"));
        QCOMPARE(q(formatGrouped(1000)), QString("1,000"));
        QCOMPARE(q(formatGrouped(0)), QString("0"));
        QCOMPARE(q(formatGrouped(std::numeric_limits<int64_t>::min())), QString("-9,223,372,036,854,775,808"));
    }

    void ratio()
    {
        QCOMPARE(q(formatRatio(1.03)), QString("1.0"));
        QCOMPARE(q(formatRatio(8.0)), QString("8.0"));
        QCOMPARE(q(formatRatio(295.4)), QString("295"));
        QCOMPARE(q(formatRatio(1800.2)), QString("1800"));
    }

    void percent()
    {
        QCOMPARE(q(formatPercent(0.855)), QString("86 %"));
        QCOMPARE(q(formatPercent(0.61)), QString("61 %"));
        QCOMPARE(q(formatPercent(0.004)), QString("0.4 %"));
        // One decimal from 1 % to 10 %, trailing zeros dropped
        QCOMPARE(q(formatPercent(0.053)), QString("5.3 %"));
        QCOMPARE(q(formatPercent(0.05)), QString("5 %"));
        QCOMPARE(q(formatPercent(0.0996)), QString("10 %")); // 9.96 rounds to 10.0, written "10"
        // Two significant digits below 1 %
        QCOMPARE(q(formatPercent(0.0017)), QString("0.17 %"));
        QCOMPARE(q(formatPercent(0.00029)), QString("0.029 %"));
        QCOMPARE(q(formatPercent(0.0000123)), QString("0.0012 %"));
        QCOMPARE(q(formatPercent(0.000001)), QString("<0.001 %"));
        // Almost all never reads as all
        QCOMPARE(q(formatPercent(0.998)), QString("99.8 %"));
        QCOMPARE(q(formatPercent(0.9996)), QString(">99.9 %"));
        QCOMPARE(q(formatPercent(0.994)), QString("99 %"));
        QCOMPARE(q(formatPercent(1.0)), QString("100 %"));
        QCOMPARE(q(formatPercent(1.25)), QString("125 %"));
        QCOMPARE(q(formatPercent(0.0)), QString("0 %"));
        QCOMPARE(q(formatPercent(-0.08)), QString("-8 %"));
        QCOMPARE(q(formatPercent(std::nan(""))), QString("? %"));
        QCOMPARE(q(formatPercent(std::numeric_limits<double>::infinity())), QString("∞ %"));
        QCOMPARE(q(formatPercentNumber(0.61)), QString("61"));
        QCOMPARE(q(formatPercentChange(0.12)), QString("+12 %"));
        QCOMPARE(q(formatPercentChange(-0.084)), QString("-8.4 %"));
        QCOMPARE(q(formatPercentChange(0.0)), QString("+0 %"));
    }

    void fixed()
    {
        QCOMPARE(q(formatFixed(2.345, 1)), QString("2.3"));
        QCOMPARE(q(formatFixed(989.44, 2)), QString("989.44"));
        QCOMPARE(q(formatFixed(2.7, 0)), QString("3"));
        QCOMPARE(q(formatFixed(12.0, 3)), QString("12.000"));
    }
};

QTEST_GUILESS_MAIN(TstFormat)
#include "tst_format.moc"
