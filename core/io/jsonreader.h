#pragma once

#include "core/util/oneline.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

/// An error message whose numbers are kept as numbers beside its text, so that a program can show them in its own
/// units without reading the text: texts[0] numbers[0] texts[1] ... numbers[n-1] texts[n].
/// InputMessage("must be positive, got ").number(-1e9) reads "must be positive, got -1000000000.0".
class InputMessage
{
public:
    explicit InputMessage(std::string_view text = {}) : m_texts{std::string(text)} {}
    /// Appends text.
    InputMessage &text(std::string_view t);
    /// Appends a number (written as brief() writes it, unless a caller renders it itself).
    InputMessage &number(double v);
    /// Appends a number as the file gave it (brief(v): "5e9" stays "5e9"; an integer has no ".0").
    InputMessage &number(const nlohmann::json &v);
    const std::vector<double> &numbers() const { return m_numbers; }
    /// The message with each number written by `render`.
    std::string render(const std::function<std::string(double)> &render) const;
    /// The message with the numbers as the command line prints them (brief()).
    std::string str() const;

private:
    std::vector<std::string> m_texts; ///< one more than m_numbers
    std::vector<double> m_numbers;
    std::vector<std::string> m_shown; ///< each number as str() writes it
};

/// A malformed input file, with its parts as members so that a program can point at the field (an editor marks it)
/// without reading the text: origin() is what the message names first (the file; "hardware editor" for an editor's
/// object; "FILE: config" for an object embedded in a file), field() the path inside it in JsonReader's form
/// ("memory[1].bandwidth_bytes_per_s.value"; empty for the file as a whole) and message() what is wrong ("must be
/// positive, got -1"). what() is one line "ORIGIN: FIELD: MESSAGE" (syntax errors: "ORIGIN:LINE:COLUMN: MESSAGE").
/// Every part is stored as it is printed: control characters from the file (a key holding a newline) are escaped by
/// oneLine(), so what() is always the parts joined.
class InputError : public std::runtime_error
{
public:
    /// "ORIGIN: FIELD: MESSAGE", or "ORIGIN: MESSAGE" when `field` is empty.
    InputError(std::string_view origin, std::string_view field, std::string_view message);
    /// A rule between fields whose message names them itself ("heads (32) must be a multiple of kv_heads (5)"):
    /// "ORIGIN: MESSAGE"; field() is the first of `fields` (the one to change), fields() all of them.
    static InputError rule(std::string_view origin, const std::vector<std::string> &fields, std::string_view message);
    /// A syntax error at a place in the text: "ORIGIN:LINE:COLUMN: MESSAGE" (line and column from 1).
    static InputError at(std::string_view origin, std::size_t line, std::size_t column, std::string_view message);
    /// "ORIGIN: FIELD: MESSAGE" where the message's numbers are members (numbers(), message(render)) and `value` is
    /// the field's value as given (null when there is none to show).
    InputError(std::string_view origin, std::string_view field, const InputMessage &message,
               nlohmann::json value = nullptr);
    /// Text only, for callers that know no parts: what() is `what` (escaped) and so is message(); origin and field
    /// are empty.
    explicit InputError(std::string_view what);

    const std::string &origin() const { return m_parts->origin; }
    /// The field to change; empty for an error about the whole file.
    const std::string &field() const;
    /// Every field the error is about: field() first; empty if none.
    const std::vector<std::string> &fields() const { return m_parts->fields; }
    const std::string &message() const { return m_parts->message; }
    /// message() with each of its numbers() written by `render` (an editor shows them in its units); message() when
    /// the error was made from text alone.
    std::string message(const std::function<std::string(double)> &render) const;
    /// The numbers in message(), in order, as numbers (base units): empty when the error was made from text alone.
    const std::vector<double> &numbers() const;
    /// The value of field() as the file gave it; null when unknown or not a single value.
    const nlohmann::json &value() const { return m_parts->value; }
    /// what() without the leading "ORIGIN: " (or "ORIGIN:LINE:COLUMN: "): "FIELD: MESSAGE", or MESSAGE alone when
    /// there is no field or the message names its fields itself.
    std::string detail() const;
    std::size_t line() const { return m_parts->line; }     ///< of a syntax error; 0 otherwise
    std::size_t column() const { return m_parts->column; } ///< of a syntax error; 0 otherwise

private:
    struct Parts
    {
        std::string origin, message;
        std::vector<std::string> fields;
        bool messageNamesFields = false;
        std::size_t line = 0, column = 0;
        std::optional<InputMessage> structured; ///< the message with its numbers, when made from an InputMessage
        nlohmann::json value;                   ///< the field's value as given, or null
    };
    explicit InputError(std::shared_ptr<const Parts> parts);
    static std::string compose(const Parts &p, bool withOrigin); ///< what(), or detail() without the origin

    std::shared_ptr<const Parts> m_parts; ///< shared: copying an exception must not throw
};

/// Largest input file MemWall reads (presets, configs, scenarios): larger files are refused with a message. It is
/// also the largest JSON file MemWall writes (jsonFileText()): a file the reader would refuse is never written.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{8} * 1024 * 1024;

/// Longest readJsonFile waits for an input file in all (ms). A regular file on a disk reads in milliseconds; the
/// wait only matters for a file that has no data ready, such as /proc/kmsg (a "regular file" of size 0 whose read
/// blocks until the kernel logs a line), which is refused after waiting kInputWaitMs for data.
inline constexpr int kInputReadTimeoutMs = 10000;
inline constexpr int kInputWaitMs = 1000; ///< longest readJsonFile waits for data that is not ready

/// `j` as the text of a JSON file MemWall reads back (indented by two, with a final newline). Throws InputError
/// "ORIGIN: not written: N bytes, more than the 8388608 bytes MemWall reads" when the text is larger than
/// kMaxInputFileBytes, so that a save never writes what open refuses.
std::string jsonFileText(const nlohmann::json &j, const std::string &origin);

/// Reads and parses a JSON file; throws InputError naming the path (and line/column for syntax errors). Only a
/// regular file is read, checked on the opened descriptor (a FIFO swapped in after a check on the name is refused
/// too); the file is opened without blocking and read within kMaxInputFileBytes and kInputReadTimeoutMs, so that no
/// special file makes the reader wait. A key given twice in one object is refused ("FILE: scenario.batch: duplicate
/// key: ..."). With `pythonFloats` the text is read as Python's json module reads a Hugging Face config.json: bare
/// Infinity, -Infinity and NaN read as null, and of a duplicated key the last value wins, as it does for
/// transformers.
nlohmann::json readJsonFile(const std::string &path, bool pythonFloats = false);
/// Parses JSON text; `origin` names it in messages ("config.json", "<stdin>").
nlohmann::json parseJson(std::string_view text, const std::string &origin, bool pythonFloats = false);

/// Typed, path-tracking access to one JSON object with errors naming file and field. Keys read are recorded so
/// that rejectUnknown() can name a key nobody asked for (a typo in a preset must not pass silently).
class JsonReader
{
public:
    JsonReader(const nlohmann::json &obj, std::string file, std::string path = {});

    bool has(std::string_view key) const;
    const nlohmann::json &raw(std::string_view key); ///< required, any type

    std::string string(std::string_view key);
    std::string string(std::string_view key, std::string_view fallback);
    double number(std::string_view key);                  ///< required finite number
    double number(std::string_view key, double fallback); ///< optional finite number
    double positive(std::string_view key);                ///< required, > 0
    int64_t integer(std::string_view key);                ///< required whole number
    int64_t integer(std::string_view key, int64_t fallback);
    int64_t positiveInteger(std::string_view key);
    bool boolean(std::string_view key);
    bool boolean(std::string_view key, bool fallback);
    JsonReader object(std::string_view key);           ///< required nested object
    const nlohmann::json &array(std::string_view key); ///< required array (marks the key read)
    JsonReader element(const nlohmann::json &item, std::size_t i, std::string_view arrayKey) const;

    /// Throws if the object has a key that was never read and is not in `alsoAllowed`.
    void rejectUnknown(const std::set<std::string, std::less<>> &alsoAllowed = {}) const;

    /// Throws InputError(file, fieldPath(key), message).
    [[noreturn]] void fail(std::string_view key, std::string_view message) const;
    /// Throws InputError(file, fieldPath(key), message, value): the message's numbers and the value as members.
    [[noreturn]] void fail(std::string_view key, const InputMessage &message, const nlohmann::json &value) const;
    std::string fieldPath(std::string_view key) const; ///< "path.key" ("key" at the top level)
    const std::string &file() const { return m_file; }
    const nlohmann::json &node() const { return m_obj; }

private:
    const nlohmann::json &get(std::string_view key);
    const nlohmann::json &m_obj;
    std::string m_file;
    std::string m_path;
    std::set<std::string, std::less<>> m_read;
};

/// Short rendering of a JSON value for messages (strings quoted, long values cut).
std::string brief(const nlohmann::json &v);

} // namespace memwall::core
