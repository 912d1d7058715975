// Tests for core/io/jsonreader: parseJson/readJsonFile limits and JsonReader's typed, path-naming access.
//
// Conventions pinned here:
// - Every error is one line "FILE: FIELD: what is wrong (value)"; syntax errors name FILE:LINE:COLUMN; control
//   characters quoted from the file are escaped ("\n", "\x01"), and so is every byte that is not well-formed UTF-8
//   ("\xff"): a message is always valid UTF-8 on one line, whatever the file held.
// - parseJson refuses nesting deeper than 256 levels before building anything: nlohmann parses iteratively, but
//   copying, dumping and destroying a value recurse once per level, so 100000 '[' would overflow the stack.
// - Numbers beyond double range (1e999) are a "not valid JSON" error, never an escaping nlohmann exception.
// - readJsonFile refuses files larger than kMaxInputFileBytes (8 MiB) before reading them.

#include "core/io/jsonreader.h"
#include "core/io/presets.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace memwall::core {

namespace {
/// Runs `f`, expecting an InputError, and returns it (an error saying what happened instead if there was none).
template <typename F>
InputError caught(F f)
{
    try {
        f();
    } catch (const InputError &e) {
        return e;
    } catch (const std::exception &e) {
        return InputError(std::string("unexpected exception type: ") + e.what());
    }
    return InputError("<no error>");
}

/// The one line of the InputError `f` throws.
template <typename F>
QString errorOf(F f)
{
    return QString::fromStdString(caught(f).what());
}
} // namespace

class TestJsonReader : public QObject
{
    Q_OBJECT

private slots:
    void parseErrors_data();
    void parseErrors();
    void nestingAtTheLimitParses();
    void bracketsInsideStringsDoNotCount();
    void readerErrors_data();
    void readerErrors();
    void rejectUnknownNamesTheKey();
    void fileTooLarge();
    void writerSharesTheReadersLimit();
    void missingFile();
    void unreadableFileSaysWhy();
    void specialFilesAreRefusedWithoutReading();
    void invalidUtf8FileGivesValidOneLineMessage_data();
    void invalidUtf8FileGivesValidOneLineMessage();
    void oneLineKeepsValidUtf8_data();
    void oneLineKeepsValidUtf8();
    void utf8Validity();
    void readerErrorHasItsParts();
    void messageNumbersAreMembers();
    void topLevelErrorHasNoField();
    void ruleNamesItsFieldsInTheMessage();
    void syntaxErrorHasLineAndColumn();
    void textOnlyErrorHasNoParts();
    void pythonFloatsReadAsNull();
    void partsAreEscapedLikeTheLine();
    void duplicateKeysAreRefused_data();
    void duplicateKeysAreRefused();
    void pythonReadingKeepsTheLastDuplicate();
    void nonFiniteTokensAreReplacedInOrder();
    void longValuesAreCutInMessages();
    void wholeNumbersBeyond64BitsAreNotWrapped();
};

void TestJsonReader::parseErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");

    QTest::newRow("100000 '[' = nesting error, no stack overflow")
        << QByteArray(100000, '[') << QString("f.json: nesting deeper than 256 levels");
    QTest::newRow("257 nested objects = nesting error")
        << QByteArray("{\"a\":").repeated(257) + "1" + QByteArray("}").repeated(257)
        << QString("f.json: nesting deeper than 256 levels");
    QTest::newRow("1e999 = number overflow, one line")
        << QByteArray("{\"v\": 1e999}") << QString("f.json: not valid JSON: number overflow parsing '1e999'");
    QTest::newRow("NaN text is not JSON")
        << QByteArray("{\"v\": NaN}")
        << QString("f.json:1:7: not valid JSON: parse error at line 1, column 7: syntax error while parsing value - "
                   "invalid literal; last read: '\"v\": N'");
    QTest::newRow("truncated file names line and column")
        << QByteArray("{\n  \"a\": [1, 2,\n")
        << QString("f.json:3:1: not valid JSON: parse error at line 3, column 1: syntax error while parsing value - "
                   "unexpected end of input; expected '[', '{', or a literal");
    QTest::newRow("invalid UTF-8 in a string")
        << QByteArray("{\"id\": \"\xff\xfe\"}")
        << QString("f.json:1:9: not valid JSON: parse error at line 1, column 9: syntax error while parsing value - "
                   "invalid string: ill-formed UTF-8 byte; last read: '\"\\xff'");
}

void TestJsonReader::parseErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    const QString got = errorOf([&] { parseJson(std::string_view(text.constData(), text.size()), "f.json"); });
    QCOMPARE(got, error);
    QVERIFY(!got.contains('\n'));
}

void TestJsonReader::pythonFloatsReadAsNull()
{
    // Python's json writes non-finite floats bare, and Hugging Face configs carry them (Mamba-2's time_step_limit).
    // Asked to, the reader takes them as null; inside strings they stay text; later errors keep their columns.
    const std::string text =
        "{\"a\": [0.0, Infinity, -Infinity], \"b\": NaN, \"c\": \"NaN Infinity\", \"Infinity\": 1}";
    const nlohmann::json j = parseJson(text, "f.json", true);
    QVERIFY(j.at("a").at(1).is_null());
    QVERIFY(j.at("a").at(2).is_null());
    QVERIFY(j.at("b").is_null());
    QCOMPARE(j.at("c").get<std::string>(), std::string("NaN Infinity"));
    QCOMPARE(j.at("Infinity").get<int>(), 1);
    QCOMPARE(errorOf([] { parseJson("{\"a\": Infinity,\n \"b\": x}", "f.json", true); }).left(12),
             QString("f.json:2:7: "));
    // Without the flag they stay errors (presets and scenarios are JSON).
    QVERIFY(errorOf([&] { parseJson(text, "f.json"); }).contains("invalid literal"));
}

void TestJsonReader::nestingAtTheLimitParses()
{
    const std::string text = std::string(256, '[') + std::string(256, ']');
    const nlohmann::json j = parseJson(text, "f.json");
    QVERIFY(j.is_array());
    const nlohmann::json copy = j; // copying recurses: fine at 256
    QCOMPARE(copy.dump().size(), text.size());
}

void TestJsonReader::bracketsInsideStringsDoNotCount()
{
    // 300 '[' inside a string (with an escaped quote before them) are text, not nesting.
    const std::string text = "{\"s\": \"\\\"" + std::string(300, '[') + "\"}";
    const nlohmann::json j = parseJson(text, "f.json");
    QCOMPARE(j.at("s").get<std::string>().size(), std::size_t(301));
}

void TestJsonReader::readerErrors_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("error");

    QTest::newRow("missing") << "absent"
                             << "f.json: absent: missing";
    QTest::newRow("string as number") << "str"
                                      << "f.json: str: expected a number, got \"12\"";
    QTest::newRow("negative as positive") << "neg"
                                          << "f.json: neg: must be positive, got -1";
    QTest::newRow("zero as positive") << "zero"
                                      << "f.json: zero: must be positive, got 0";
    QTest::newRow("fraction as whole number") << "frac"
                                              << "f.json: frac: expected a whole number, got 1.5";
    QTest::newRow("number as bool") << "one"
                                    << "f.json: one: expected true or false, got 1";
    QTest::newRow("array as object") << "arr"
                                     << "f.json: arr: expected an object, got [1,2]";
    QTest::newRow("object as string") << "obj"
                                      << "f.json: obj: expected a string, got {\"x\":1}";
}

void TestJsonReader::readerErrors()
{
    QFETCH(QString, field);
    QFETCH(QString, error);
    const nlohmann::json j = parseJson(
        R"({"str": "12", "neg": -1, "zero": 0, "frac": 1.5, "one": 1, "arr": [1, 2], "obj": {"x": 1}})", "f.json");
    const std::string key = field.toStdString();
    JsonReader r(j, "f.json");
    QString got;
    if (field == "str")
        got = errorOf([&] { r.number(key); });
    else if (field == "neg" || field == "zero")
        got = errorOf([&] { r.positive(key); });
    else if (field == "frac")
        got = errorOf([&] { r.integer(key); });
    else if (field == "one")
        got = errorOf([&] { r.boolean(key); });
    else if (field == "arr")
        got = errorOf([&] { r.object(key); });
    else
        got = errorOf([&] { r.string(key); });
    QCOMPARE(got, error);
}

void TestJsonReader::rejectUnknownNamesTheKey()
{
    const nlohmann::json j = parseJson(R"({"a": {"known": 1, "tpyo": 2}})", "f.json");
    JsonReader r(j, "f.json");
    JsonReader a = r.object("a");
    a.number("known");
    QCOMPARE(errorOf([&] { a.rejectUnknown(); }), QString("f.json: a.tpyo: unknown field"));
    QCOMPARE(errorOf([&] { a.rejectUnknown({"tpyo"}); }), QString("<no error>"));

    // Found by a 10-minute fuzz run: a key holding a newline ("sce\nario") made a two-line message. Control
    // characters are escaped, so the message stays one line and still names the key exactly.
    const nlohmann::json k = parseJson("{\"sce\\nario\": 1, \"t\\u0001b\": 2}", "f.json");
    JsonReader rk(k, "f.json");
    const std::string ctrlKey = std::string("t\x01") + "b";
    QCOMPARE(errorOf([&] { rk.rejectUnknown({ctrlKey}); }), QString("f.json: sce\\nario: unknown field"));
    QCOMPARE(errorOf([&] { rk.rejectUnknown({"sce\nario"}); }), QString("f.json: t\\x01b: unknown field"));
}

void TestJsonReader::fileTooLarge()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("big.json").toStdString();
    {
        std::ofstream out(path, std::ios::binary);
        out << "[\"" << std::string(kMaxInputFileBytes, 'x') << "\"]";
    }
    QCOMPARE(errorOf([&] { readJsonFile(path); }),
             QString::fromStdString(path + ": file is too large (8388612 bytes; the limit is 8388608)"));
}

void TestJsonReader::writerSharesTheReadersLimit()
{
    // A save wrote 9.8 MB and the next open refused it (issue #42): jsonFileText() refuses what readJsonFile() would.
    using nlohmann::json;
    const json small = json::array({1, 2});
    QCOMPARE(QString::fromStdString(jsonFileText(small, "s.json")), QString("[\n  1,\n  2\n]\n"));
    const json atLimit = std::string(kMaxInputFileBytes - 3, 'x'); // the quotes and the newline make it the limit
    QCOMPARE(jsonFileText(atLimit, "a.json").size(), std::size_t(kMaxInputFileBytes));
    const json over = std::string(kMaxInputFileBytes - 2, 'x');
    QCOMPARE(errorOf([&] { jsonFileText(over, "b.json"); }),
             QString("b.json: not written: 8388609 bytes, more than the 8388608 bytes MemWall reads"));
}

void TestJsonReader::specialFilesAreRefusedWithoutReading()
{
    // A FIFO would block the reader until a writer came (a dropped *.json FIFO froze the window), and /dev/zero never
    // ends: both are refused before anything is opened.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string fifo = dir.filePath("pipe.json").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    QCOMPARE(errorOf([&] { readJsonFile(fifo); }),
             QString::fromStdString(fifo + ": cannot read file: not a regular file"));
    const std::string zero = dir.filePath("zero.json").toStdString();
    QCOMPARE(::symlink("/dev/zero", zero.c_str()), 0);
    QCOMPARE(errorOf([&] { readJsonFile(zero); }),
             QString::fromStdString(zero + ": cannot read file: not a regular file"));
}

void TestJsonReader::missingFile()
{
    QCOMPARE(errorOf([] { readJsonFile("/nonexistent/x.json"); }),
             QString("/nonexistent/x.json: cannot read file: No such file or directory"));
}

void TestJsonReader::unreadableFileSaysWhy()
{
    // A file without read permission: the message gives the operating system's reason. Root reads any file, so
    // under root (as in CI) the read runs in a child process that has given up root for "nobody".
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QCOMPARE(::chmod(dir.path().toLocal8Bit().constData(), 0755), 0);
    const std::string path = dir.filePath("secret.json").toStdString();
    std::ofstream(path) << "{}";
    QCOMPARE(::chmod(path.c_str(), 0), 0);
    const auto message = [&] { return errorOf([&] { readJsonFile(path); }).toStdString(); };
    std::string got;
    if (::geteuid() != 0) {
        got = message();
    } else {
        int fds[2];
        QCOMPARE(::pipe(fds), 0);
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            ::close(fds[0]);
            const std::string m = (::setgid(65534) == 0 && ::setuid(65534) == 0) ? message() : "setuid failed";
            const bool written = ::write(fds[1], m.data(), m.size()) == static_cast<ssize_t>(m.size());
            ::_exit(written ? 0 : 1);
        }
        ::close(fds[1]);
        char buf[512];
        ssize_t n = 0;
        while ((n = ::read(fds[0], buf, sizeof buf)) > 0)
            got.append(buf, static_cast<std::size_t>(n));
        ::close(fds[0]);
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    QCOMPARE(QString::fromStdString(got), QString::fromStdString(path + ": cannot open file: Permission denied"));
}

namespace {
/// True if `bytes` is well-formed UTF-8 (decoding and re-encoding gives the same bytes, with no U+FFFD added).
bool isValidUtf8(const QByteArray &bytes)
{
    const QString decoded = QString::fromUtf8(bytes);
    return decoded.toUtf8() == bytes && !decoded.contains(QChar::ReplacementCharacter);
}
} // namespace

void TestJsonReader::invalidUtf8FileGivesValidOneLineMessage_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("escaped"); // how the bad bytes must appear in the message

    QTest::newRow("0xff 0xfe in a string") << QByteArray("{\"id\": \"\xff\xfe\"}") << QString("\\xff");
    QTest::newRow("lone continuation byte") << QByteArray("{\"id\": \"a\x80\"}") << QString("a\\x80");
    QTest::newRow("overlong slash") << QByteArray("{\"id\": \"\xc0\xaf\"}") << QString("\\xc0");
    QTest::newRow("UTF-16 surrogate") << QByteArray("{\"id\": \"\xed\xa0\x80\"}") << QString("\\xed");
    QTest::newRow("bad bytes outside a string") << QByteArray("{\"id\": 1\xfe}") << QString("\\xfe");
}

void TestJsonReader::invalidUtf8FileGivesValidOneLineMessage()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, escaped);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("bad.json").toStdString();
    {
        std::ofstream out(path, std::ios::binary);
        out.write(text.constData(), text.size());
    }
    QByteArray message;
    try {
        readJsonFile(path);
    } catch (const InputError &e) {
        message = QByteArray(e.what());
    }
    QVERIFY2(!message.isEmpty(), "no error for a file with invalid UTF-8");
    QVERIFY2(isValidUtf8(message), message.toHex(' ').constData());
    QVERIFY(!message.contains('\n') && !message.contains('\r'));
    QVERIFY2(QString::fromUtf8(message).contains(escaped), message.constData());
    QVERIFY(message.startsWith(QByteArray::fromStdString(path + ":")));
}

void TestJsonReader::oneLineKeepsValidUtf8_data()
{
    QTest::addColumn<QByteArray>("in");
    QTest::addColumn<QByteArray>("out");
    QTest::newRow("ASCII") << QByteArray("plain") << QByteArray("plain");
    QTest::newRow("2-byte") << QByteArray("8 \xc2\xb5s") << QByteArray("8 \xc2\xb5s");
    QTest::newRow("3-byte") << QByteArray("\xe6\x97\xa5\xe6\x9c\xac") << QByteArray("\xe6\x97\xa5\xe6\x9c\xac");
    QTest::newRow("4-byte") << QByteArray("\xf0\x9f\x9a\x80") << QByteArray("\xf0\x9f\x9a\x80");
    QTest::newRow("line separator") << QByteArray("a\xe2\x80\xa8"
                                                  "b")
                                    << QByteArray("a\\u2028b");
    QTest::newRow("C1 control NEL") << QByteArray("a\xc2\x85"
                                                  "b")
                                    << QByteArray("a\\u0085b");
    QTest::newRow("right-to-left override") << QByteArray("fits\xe2\x80\xae") << QByteArray("fits\\u202e");
    QTest::newRow("first strong isolate") << QByteArray("\xe2\x81\xa8") << QByteArray("\\u2068");
    QTest::newRow("en dash passes") << QByteArray("\xe2\x80\x93") << QByteArray("\xe2\x80\x93");
    QTest::newRow("truncated 3-byte at the end") << QByteArray("a\xe6\x97") << QByteArray("a\\xe6\\x97");
    QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << QByteArray("\\xf4\\x90\\x80\\x80");
}

void TestJsonReader::oneLineKeepsValidUtf8()
{
    QFETCH(QByteArray, in);
    QFETCH(QByteArray, out);
    const std::string got = oneLine(std::string_view(in.constData(), static_cast<std::size_t>(in.size())));
    QCOMPARE(QByteArray::fromStdString(got), out);
    QVERIFY(isValidUtf8(QByteArray::fromStdString(got)));
}

void TestJsonReader::utf8Validity()
{
    // What the command line checks before it writes to a path given in bytes (Qt would spell it differently).
    const auto valid = [](const QByteArray &b) {
        return core::isValidUtf8(std::string_view(b.constData(), static_cast<std::size_t>(b.size())));
    };
    QVERIFY(valid("chart.png"));
    QVERIFY(valid("r\xc3\xa9sum\xc3\xa9.png")); // résumé
    QVERIFY(valid("\xf0\x9f\x9a\x80.csv"));     // U+1F680
    QVERIFY(!valid("r\xe9sum\xe9.png"));        // Latin-1
    QVERIFY(!valid("\xff.png"));                // never in UTF-8
    QVERIFY(!valid("\xc0\xae.png"));            // overlong '.'
    QVERIFY(!valid("\xed\xa0\x80.png"));        // a surrogate
    QVERIFY(!valid("a\xe6\x97"));               // cut short at the end
}

// Copying an exception must not throw (the parts are shared, not copied).
static_assert(std::is_nothrow_copy_constructible_v<InputError>);

void TestJsonReader::readerErrorHasItsParts()
{
    // A nested object inside an array element, as a hardware preset's memory levels: the field path is the one
    // JsonReader builds, the message is what is wrong, and what() is the three joined as before.
    const nlohmann::json j = parseJson(R"({"memory": [{}, {"bandwidth_bytes_per_s": {"value": -1}}]})", "f.json");
    JsonReader r(j, "f.json");
    const InputError e = caught([&] {
        JsonReader level = r.element(r.array("memory")[1], 1, "memory");
        level.object("bandwidth_bytes_per_s").positive("value");
    });
    QCOMPARE(QString::fromStdString(e.origin()), QString("f.json"));
    QCOMPARE(QString::fromStdString(e.field()), QString("memory[1].bandwidth_bytes_per_s.value"));
    QCOMPARE(e.fields().size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(e.message()), QString("must be positive, got -1"));
    QCOMPARE(QString::fromStdString(e.what()),
             QString("f.json: memory[1].bandwidth_bytes_per_s.value: must be positive, got -1"));
    QCOMPARE(QString::fromStdString(e.detail()),
             QString("memory[1].bandwidth_bytes_per_s.value: must be positive, got -1"));
    QCOMPARE(e.line(), std::size_t(0));
    // The value as given and the message's numbers are members too (issue #39): an editor shows them in its units
    // without reading the message.
    QCOMPARE(e.value(), nlohmann::json(-1));
    QCOMPARE(e.numbers(), std::vector<double>{-1.0});
    QCOMPARE(QString::fromStdString(e.message([](double v) { return std::to_string(int(v * 1000)) + " mB/s"; })),
             QString("must be positive, got -1000 mB/s"));
}

void TestJsonReader::messageNumbersAreMembers()
{
    // A hardware preset's levels out of order: both numbers are members, in order, and the text reads as before.
    nlohmann::json j = readJsonFile(MEMWALL_SOURCE_DIR "/presets/hardware/h100-sxm.json");
    const double l2 = j["memory"][1]["bandwidth_bytes_per_s"]["value"].get<double>();
    j["memory"][2]["bandwidth_bytes_per_s"]["value"] = 2 * l2; // HBM faster than the L2 above it
    const InputError e = caught([&] { hardwareFromJson(j, "f.json"); });
    QCOMPARE(QString::fromStdString(e.origin()), QString("f.json"));
    QCOMPARE(QString::fromStdString(e.field()), QString("memory[2].bandwidth_bytes_per_s"));
    QCOMPARE(e.numbers(), (std::vector<double>{2 * l2, l2}));
    QCOMPARE(e.value(), nlohmann::json(2 * l2));
    QCOMPARE(QString::fromStdString(e.message()),
             QString::fromStdString("levels out of order: bandwidth " + brief(2 * l2) +
                                    " is not lower than the previous level's " + brief(l2)));
    QCOMPARE(QString::fromStdString(e.message([](double v) { return std::to_string(v / 1e12).substr(0, 4); })),
             QString::fromStdString("levels out of order: bandwidth " + std::to_string(2 * l2 / 1e12).substr(0, 4) +
                                    " is not lower than the previous level's " +
                                    std::to_string(l2 / 1e12).substr(0, 4)));
    // An error made from text alone has no numbers and no value: nothing is read out of its words.
    const InputError text("f.json", "memory[1].bandwidth_bytes_per_s", "got 5");
    QVERIFY(text.numbers().empty());
    QVERIFY(text.value().is_null());
    QCOMPARE(QString::fromStdString(text.message([](double) { return std::string("X"); })), QString("got 5"));
}

void TestJsonReader::topLevelErrorHasNoField()
{
    const nlohmann::json j = parseJson("[1]", "f.json");
    const InputError e = caught([&] { JsonReader r(j, "f.json"); });
    QCOMPARE(QString::fromStdString(e.what()), QString("f.json: top level: expected an object, got [1]"));
    QCOMPARE(QString::fromStdString(e.origin()), QString("f.json"));
    QVERIFY(e.field().empty());
    QVERIFY(e.fields().empty());
    QCOMPARE(QString::fromStdString(e.message()), QString("top level: expected an object, got [1]"));
}

void TestJsonReader::ruleNamesItsFieldsInTheMessage()
{
    const InputError e =
        InputError::rule("t.json: shape", {"heads", "kv_heads"}, "heads (4) must be a multiple of kv_heads (3)");
    QCOMPARE(QString::fromStdString(e.what()), QString("t.json: shape: heads (4) must be a multiple of kv_heads (3)"));
    QCOMPARE(QString::fromStdString(e.origin()), QString("t.json: shape"));
    QCOMPARE(QString::fromStdString(e.field()), QString("heads"));
    QCOMPARE(e.fields(), (std::vector<std::string>{"heads", "kv_heads"}));
    QCOMPARE(QString::fromStdString(e.detail()), QString("heads (4) must be a multiple of kv_heads (3)"));
}

void TestJsonReader::syntaxErrorHasLineAndColumn()
{
    // Line 3 is "  oops": the first character that cannot start a value, 'o', is in column 3.
    const InputError e = caught([] { parseJson("{\n  \"a\": 1,\n  oops\n}", "f.json"); });
    QCOMPARE(QString::fromStdString(e.origin()), QString("f.json"));
    QCOMPARE(e.line(), std::size_t(3));
    QCOMPARE(e.column(), std::size_t(3));
    QVERIFY(e.field().empty());
    QVERIFY2(e.message().starts_with("not valid JSON: parse error at line 3, column 3"), e.what());
    QCOMPARE(QString::fromStdString(e.what()), QString::fromStdString("f.json:3:3: " + e.message()));
    QCOMPARE(e.detail(), e.message());
}

void TestJsonReader::textOnlyErrorHasNoParts()
{
    const InputError e("lesson.json: step 2: no chart \"rooflin\"");
    QCOMPARE(QString::fromStdString(e.what()), QString("lesson.json: step 2: no chart \"rooflin\""));
    QVERIFY(e.origin().empty());
    QVERIFY(e.field().empty());
    QCOMPARE(QString::fromStdString(e.message()), QString::fromStdString(e.what()));
    QCOMPARE(e.detail(), e.message());
}

void TestJsonReader::partsAreEscapedLikeTheLine()
{
    // A key holding a newline: every part is escaped as the line is, so the line is still the parts joined.
    const nlohmann::json j = parseJson("{\"sce\\nario\": 1}", "f\x01.json");
    JsonReader r(j, "f\x01.json");
    const InputError e = caught([&] { r.rejectUnknown(); });
    QCOMPARE(QString::fromStdString(e.origin()), QString("f\\x01.json"));
    QCOMPARE(QString::fromStdString(e.field()), QString("sce\\nario"));
    QCOMPARE(QString::fromStdString(e.what()), QString("f\\x01.json: sce\\nario: unknown field"));
}

void TestJsonReader::duplicateKeysAreRefused_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");
    QTest::newRow("top level") << QByteArray(R"({"kind": "scenario", "kind": "x"})")
                               << QString("f.json: kind: duplicate key: given more than once in one object");
    QTest::newRow("nested") << QByteArray(R"({"scenario": {"batch": 1, "seq": 2, "batch": 64}})")
                            << QString("f.json: scenario.batch: duplicate key: given more than once in one object");
    QTest::newRow("in an array") << QByteArray(R"({"memory": [{"name": "a"}, 3, {"name": "b", "name": "c"}]})")
                                 << QString(
                                        "f.json: memory[2].name: duplicate key: given more than once in one object");
}

void TestJsonReader::duplicateKeysAreRefused()
{
    // nlohmann keeps the last of a duplicated key without a word: "batch": 1 ... "batch": 64 would analyse 64.
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    QCOMPARE(errorOf([&] { parseJson(std::string_view(text.constData(), text.size()), "f.json"); }), error);
    // One key in two objects, and in an object after an array, is no duplicate.
    const nlohmann::json ok =
        parseJson(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}], "x": 5})", "f.json");
    QCOMPARE(ok.at("x").get<int>(), 5);
}

void TestJsonReader::pythonReadingKeepsTheLastDuplicate()
{
    // A Hugging Face config.json is read as Python's json.load reads it (transformers does): the last value wins.
    const nlohmann::json j = parseJson(R"({"hidden_size": 1, "hidden_size": 4096, "x": NaN})", "config.json", true);
    QCOMPARE(j.at("hidden_size").get<int>(), 4096);
}

void TestJsonReader::nonFiniteTokensAreReplacedInOrder()
{
    // Many tokens (the copy is built front to back, issue #42), each null in its place, columns kept.
    std::string text = "[";
    for (int i = 0; i < 1000; ++i)
        text += i % 3 == 0 ? "NaN," : i % 3 == 1 ? "-Infinity," : "1,";
    text += "Infinity]";
    const nlohmann::json j = parseJson(text, "f.json", true);
    QCOMPARE(j.size(), std::size_t(1001));
    for (int i = 0; i < 1000; ++i)
        QCOMPARE(j.at(std::size_t(i)).is_null(), i % 3 != 2);
    QVERIFY(j.at(1000).is_null());
    QCOMPARE(errorOf([] { parseJson("[NaN, NaN, NaN,\n x]", "f.json", true); }).left(12), QString("f.json:2:2: "));
}

void TestJsonReader::longValuesAreCutInMessages()
{
    // An 8 MB number is named by its start and size, not echoed whole.
    const std::string digits(100000, '1');
    const QString e = errorOf([&] { parseJson("{\"v\": " + digits + "}", "f.json"); });
    QCOMPARE(e,
             QString("f.json: not valid JSON: number overflow parsing '") + QString(64, '1') + "... (100000 bytes)'");
    QCOMPARE(QString::fromStdString(echoValue(std::string(80, 'x'))), QString(80, 'x'));
    // Never half a UTF-8 character: 63 ASCII bytes, then "é" (two bytes) across the cut at 64.
    QCOMPARE(QString::fromStdString(echoValue(std::string(63, 'a') + "\xc3\xa9" + std::string(20, 'z'))),
             QString(63, 'a') + "... (85 bytes)");
}

void TestJsonReader::wholeNumbersBeyond64BitsAreNotWrapped()
{
    const nlohmann::json j =
        parseJson(R"({"a": 9223372036854775808, "b": 18446744073709551615, "c": 9223372036854775807})", "f.json");
    JsonReader r(j, "f.json");
    QCOMPARE(errorOf([&] { r.integer("a"); }),
             QString("f.json: a: must be at most 9223372036854775807, got 9223372036854775808"));
    QCOMPARE(errorOf([&] { r.integer("b"); }),
             QString("f.json: b: must be at most 9223372036854775807, got 18446744073709551615"));
    QCOMPARE(r.integer("c"), INT64_MAX);
}

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestJsonReader)
#include "tst_jsonreader.moc"
