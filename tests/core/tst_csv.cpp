// core/util/csv: the one CSV writer. Each expected text is written out by hand from RFC 4180: a field holding a
// comma, a quote, CR or LF goes between quotes with its quotes doubled; any other field is left as it is.
#include "core/util/csv.h"

#include <QtTest>

using namespace memwall::core;

class TstCsv : public QObject
{
    Q_OBJECT

private slots:
    void field_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain text stays") << "attn.qkv_proj"
                                          << "attn.qkv_proj";
        QTest::newRow("a number stays") << "1.5e-09"
                                        << "1.5e-09";
        QTest::newRow("empty stays empty") << ""
                                           << "";
        QTest::newRow("comma: quoted") << "HBM3, 5 stacks"
                                       << "\"HBM3, 5 stacks\"";
        QTest::newRow("quote: quoted and doubled") << "the \"fast\" one"
                                                   << "\"the \"\"fast\"\" one\"";
        QTest::newRow("only a quote") << "\""
                                      << "\"\"\"\"";
        QTest::newRow("line feed: quoted, kept") << "two\nlines"
                                                 << "\"two\nlines\"";
        QTest::newRow("carriage return: quoted") << "a\rb"
                                                 << "\"a\rb\"";
        QTest::newRow("all three") << "a,\"b\"\nc"
                                   << "\"a,\"\"b\"\"\nc\"";
        QTest::newRow("spaces and semicolons need no quotes") << " a; b "
                                                              << " a; b ";
        // Spreadsheet formula injection: a cell that would run is made text; numbers with a sign stay numbers.
        QTest::newRow("formula: apostrophe") << "=HYPERLINK(\"http://x\")"
                                             << "\"'=HYPERLINK(\"\"http://x\"\")\"";
        QTest::newRow("at sign: apostrophe") << "@SUM(A1)"
                                             << "'@SUM(A1)";
        QTest::newRow("plus formula: apostrophe") << "+cmd|' /C calc'!A0"
                                                  << "'+cmd|' /C calc'!A0";
        QTest::newRow("minus text: apostrophe") << "-2+3"
                                                << "'-2+3";
        QTest::newRow("negative number stays") << "-3.5"
                                               << "-3.5";
        QTest::newRow("signed exponent stays") << "+1e-09"
                                               << "+1e-09";
    }
    void field()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(csvField(text.toStdString())), expected);
    }

    void row()
    {
        QCOMPARE(QString::fromStdString(csvRow({"model", "Llama 2, 7B", "0.5"})),
                 QString("model,\"Llama 2, 7B\",0.5\n"));
        QCOMPARE(QString::fromStdString(csvRow({"", "x", ""})), QString(",x,\n"));
        QCOMPARE(QString::fromStdString(csvRow({"say \"hi\"\n"})), QString("\"say \"\"hi\"\"\n\"\n"));
        QCOMPARE(QString::fromStdString(csvRow({})), QString("\n"));
    }
};

QTEST_GUILESS_MAIN(TstCsv)
#include "tst_csv.moc"
