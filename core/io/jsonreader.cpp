#include "core/io/jsonreader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace memwall::core {

using nlohmann::json;

std::string InputError::compose(const Parts &p, bool withOrigin)
{
    std::string out;
    if (withOrigin && p.line > 0)
        out = p.origin + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": ";
    else if (withOrigin && !p.origin.empty())
        out = p.origin + ": ";
    if (!p.fields.empty() && !p.messageNamesFields)
        out += p.fields.front() + ": ";
    return out + p.message;
}

InputError::InputError(std::shared_ptr<const Parts> parts)
    : std::runtime_error(compose(*parts, true)), m_parts(std::move(parts))
{
}

namespace {
std::vector<std::string> escapedAll(const std::vector<std::string> &texts)
{
    std::vector<std::string> out;
    out.reserve(texts.size());
    for (const std::string &t : texts)
        out.push_back(oneLine(t));
    return out;
}
} // namespace

InputError::InputError(std::string_view origin, std::string_view field, std::string_view message)
    : InputError(std::make_shared<const Parts>(
          Parts{oneLine(origin), oneLine(message),
                field.empty() ? std::vector<std::string>{} : std::vector<std::string>{oneLine(field)}, false, 0, 0,
                std::nullopt, nullptr}))
{
}

InputError InputError::rule(std::string_view origin, const std::vector<std::string> &fields, std::string_view message)
{
    return InputError(std::make_shared<const Parts>(
        Parts{oneLine(origin), oneLine(message), escapedAll(fields), true, 0, 0, std::nullopt, nullptr}));
}

InputError InputError::at(std::string_view origin, std::size_t line, std::size_t column, std::string_view message)
{
    return InputError(std::make_shared<const Parts>(
        Parts{oneLine(origin), oneLine(message), {}, false, line, column, std::nullopt, nullptr}));
}

InputMessage &InputMessage::text(std::string_view t)
{
    m_texts.back() += t;
    return *this;
}

InputMessage &InputMessage::number(double v) { return number(json(v)); }

InputMessage &InputMessage::number(const json &v)
{
    m_numbers.push_back(v.is_number() ? v.get<double>() : 0.0);
    m_shown.push_back(brief(v));
    m_texts.emplace_back();
    return *this;
}

std::string InputMessage::render(const std::function<std::string(double)> &render) const
{
    std::string out = m_texts.front();
    for (std::size_t i = 0; i < m_numbers.size(); ++i)
        out += render(m_numbers[i]) + m_texts[i + 1];
    return out;
}

std::string InputMessage::str() const
{
    std::string out = m_texts.front();
    for (std::size_t i = 0; i < m_shown.size(); ++i)
        out += m_shown[i] + m_texts[i + 1];
    return out;
}

InputError::InputError(std::string_view origin, std::string_view field, const InputMessage &message, json value)
    : InputError(std::make_shared<const Parts>(
          Parts{oneLine(origin), oneLine(message.str()),
                field.empty() ? std::vector<std::string>{} : std::vector<std::string>{oneLine(field)}, false, 0, 0,
                message, std::move(value)}))
{
}

std::string InputError::message(const std::function<std::string(double)> &render) const
{
    return m_parts->structured ? oneLine(m_parts->structured->render(render)) : m_parts->message;
}

const std::vector<double> &InputError::numbers() const
{
    static const std::vector<double> none;
    return m_parts->structured ? m_parts->structured->numbers() : none;
}

InputError::InputError(std::string_view what)
    : InputError(std::make_shared<const Parts>(Parts{{}, oneLine(what), {}, false, 0, 0, std::nullopt, nullptr}))
{
}

const std::string &InputError::field() const
{
    static const std::string none;
    return m_parts->fields.empty() ? none : m_parts->fields.front();
}

std::string InputError::detail() const { return compose(*m_parts, false); }

std::string brief(const json &v)
{
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 40)
        s = s.substr(0, 37) + "...";
    return s;
}

namespace {
/// Deepest array/object nesting parseJson accepts. nlohmann parses iteratively, but copying, dumping and destroying
/// a value recurse once per level: 100000 '[' would overflow the stack. Real presets and configs nest < 10 deep.
constexpr int kMaxJsonDepth = 256;

/// Calls `f(i)` for each byte i of `text` outside JSON strings (quotes and escapes in strings are skipped); `f`
/// returns how many further bytes to skip, or -1 to stop.
template <typename F>
void forEachOutsideStrings(std::string_view text, F f)
{
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else {
            const int skip = f(i);
            if (skip < 0)
                return;
            i += static_cast<std::size_t>(skip);
        }
    }
}

/// True if `text` nests arrays/objects deeper than kMaxJsonDepth (brackets inside strings do not count).
bool nestsTooDeep(std::string_view text)
{
    int depth = 0;
    bool deep = false;
    forEachOutsideStrings(text, [&](std::size_t i) {
        if (text[i] == '[' || text[i] == '{') {
            deep = ++depth > kMaxJsonDepth;
            return deep ? -1 : 0;
        }
        if (text[i] == ']' || text[i] == '}')
            --depth;
        return 0;
    });
    return deep;
}

/// Python's json module writes the non-finite floats as bare Infinity, -Infinity and NaN, and Hugging Face configs
/// carry them (Mamba-2's "time_step_limit": [0.0, Infinity]). They are not JSON; outside strings they become null,
/// padded with spaces so that every later line and column of an error stays where it was ("NaN" becomes "null",
/// one longer). Empty when the text has none. The copy is built front to back, so two million NaNs cost no more
/// than one pass (replacing each in place moved the rest of the text every time: quadratic, issue #42).
std::string withoutNonFinite(std::string_view text)
{
    std::string out;
    std::size_t copied = 0; // text before this offset is in `out`
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    forEachOutsideStrings(text, [&](std::size_t i) {
        for (std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
            const bool starts = text.substr(i, token.size()) == token && (i == 0 || !word(text[i - 1])) &&
                                (i + token.size() >= text.size() || !word(text[i + token.size()]));
            if (!starts)
                continue;
            if (out.empty())
                out.reserve(text.size() + text.size() / 3 + 1); // each "NaN" (3 bytes of at least 4) grows by one
            out.append(text.substr(copied, i - copied));
            out += "null";
            out.append(token.size() > 4 ? token.size() - 4 : 0, ' ');
            copied = i + token.size();
            return static_cast<int>(token.size()) - 1;
        }
        return 0;
    });
    if (!out.empty())
        out.append(text.substr(copied));
    return out;
}

/// Refuses a key given twice in one object, which the parser would resolve silently by keeping the last value
/// (`"batch": 1, ..., "batch": 64`): the exception names the key's path. A parser callback, so the check costs no
/// second pass over the text.
class DuplicateKeyCheck
{
public:
    explicit DuplicateKeyCheck(const std::string &origin) : m_origin(origin) {}

    bool operator()(int, json::parse_event_t event, json &parsed)
    {
        switch (event) {
        case json::parse_event_t::object_start: m_frames.push_back({false, 0, {}, {}}); break;
        case json::parse_event_t::array_start: m_frames.push_back({true, 0, {}, {}}); break;
        case json::parse_event_t::key: {
            Frame &f = m_frames.back();
            f.key = parsed.get<std::string>();
            if (!f.keys.insert(f.key).second)
                throw InputError(m_origin, path(), "duplicate key: given more than once in one object");
            break;
        }
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
            m_frames.pop_back();
            nextElement();
            break;
        case json::parse_event_t::value: nextElement(); break;
        }
        return true;
    }

private:
    struct Frame
    {
        bool array;
        std::size_t index;
        std::string key;
        std::unordered_set<std::string> keys;
    };
    void nextElement()
    {
        if (!m_frames.empty() && m_frames.back().array)
            ++m_frames.back().index;
    }
    std::string path() const // "scenario.batch", "memory[1].name"
    {
        std::string out;
        for (const Frame &f : m_frames)
            out += f.array ? "[" + std::to_string(f.index) + "]" : (out.empty() ? "" : ".") + f.key;
        return out;
    }
    const std::string &m_origin;
    std::vector<Frame> m_frames;
};
/// The parser's message with each value it quotes ('...') cut by echoValue(): "number overflow parsing '1111...'"
/// would otherwise echo a whole 8 MB number.
std::string clipQuoted(const std::string &what)
{
    const std::size_t open = what.find('\''), close = what.rfind('\'');
    if (open == std::string::npos || close <= open)
        return what;
    return what.substr(0, open + 1) + echoValue(std::string_view(what).substr(open + 1, close - open - 1)) +
           what.substr(close);
}
} // namespace

json parseJson(std::string_view text, const std::string &origin, bool pythonFloats)
{
    if (nestsTooDeep(text))
        throw InputError(origin, "", "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    const std::string finite = pythonFloats ? withoutNonFinite(text) : std::string();
    if (!finite.empty())
        text = finite;
    try {
        if (pythonFloats) // as Python's json module reads it, which keeps the last of a duplicated key
            return json::parse(text.begin(), text.end());
        return json::parse(text.begin(), text.end(), DuplicateKeyCheck(origin));
    } catch (const json::parse_error &e) {
        // Turn the byte offset into a line and column.
        std::size_t line = 1, col = 1;
        const std::size_t stop = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        for (std::size_t i = 0; i < stop; ++i) {
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        std::string what = e.what();
        if (auto p = what.find("parse error"); p != std::string::npos)
            what = what.substr(p);
        throw InputError::at(origin, line, col, "not valid JSON: " + clipQuoted(what));
    } catch (const json::exception &e) {
        // e.g. out_of_range.406 "number overflow parsing '1e999'": no position is known, keep the reason.
        std::string what = e.what();
        if (auto p = what.find("] "); p != std::string::npos)
            what = what.substr(p + 2);
        throw InputError(origin, "", "not valid JSON: " + clipQuoted(what));
    }
}

std::string jsonFileText(const json &j, const std::string &origin)
{
    std::string text = j.dump(2) + "\n";
    if (text.size() > kMaxInputFileBytes)
        throw InputError(origin, "",
                         "not written: " + std::to_string(text.size()) + " bytes, more than the " +
                             std::to_string(kMaxInputFileBytes) + " bytes MemWall reads");
    return text;
}

namespace {

/// Closes a descriptor when it goes out of scope.
class FileDescriptor
{
public:
    explicit FileDescriptor(int fd) : m_fd(fd) {}
    ~FileDescriptor()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FileDescriptor(const FileDescriptor &) = delete;
    FileDescriptor &operator=(const FileDescriptor &) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

[[noreturn]] void tooLarge(const std::string &path, const std::string &size)
{
    throw InputError(path, "",
                     "file is too large (" + size + " bytes; the limit is " + std::to_string(kMaxInputFileBytes) + ")");
}

/// Reads the open file `fd` whole, within kMaxInputFileBytes and the time limits (see kInputReadTimeoutMs).
std::string readBounded(int fd, const std::string &path)
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto msSince = [&start] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    };
    std::string text;
    std::vector<char> buffer(std::size_t{64} * 1024);
    int waited = 0;
    for (;;) {
        if (msSince() > kInputReadTimeoutMs)
            throw InputError(path, "",
                             "cannot read file: not read whole within " + std::to_string(kInputReadTimeoutMs / 1000) +
                                 " s");
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n > 0) {
            text.append(buffer.data(), static_cast<std::size_t>(n));
            if (text.size() > kMaxInputFileBytes)
                tooLarge(path, "more than " + std::to_string(kMaxInputFileBytes));
        } else if (n == 0) {
            return text;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            // No data ready: a file on a disk never says so; /proc/kmsg does, until the kernel logs a line.
            if (waited >= kInputWaitMs)
                throw InputError(path, "",
                                 "cannot read file: no data within " + std::to_string(kInputWaitMs) +
                                     " ms (not an ordinary file)");
            pollfd p{fd, POLLIN, 0};
            const auto before = msSince();
            ::poll(&p, 1, kInputWaitMs - waited);
            waited += static_cast<int>(std::max<long long>(1, msSince() - before));
        } else if (errno != EINTR) {
            throw InputError(path, "", std::string("cannot read file: ") + std::strerror(errno));
        }
    }
}

} // namespace

json readJsonFile(const std::string &path, bool pythonFloats)
{
    std::error_code ec;
    // Only regular files: a FIFO would block the reader forever, and a link to /dev/zero never ends. The check on
    // the name gives the clear messages; the one on the opened descriptor below is the one that holds.
    const auto status = std::filesystem::status(path, ec);
    if (ec)
        throw InputError(path, "", "cannot read file: " + ec.message());
    if (!std::filesystem::is_regular_file(status))
        throw InputError(path, "", "cannot read file: not a regular file");
    // O_NONBLOCK: opening a FIFO put in the file's place since the check would wait for a writer.
    errno = 0;
    const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (fd.get() < 0)
        throw InputError(path, "",
                         "cannot open file" + (errno != 0 ? std::string(": ") + std::strerror(errno) : std::string()));
    struct stat st = {};
    if (::fstat(fd.get(), &st) != 0)
        throw InputError(path, "", std::string("cannot read file: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw InputError(path, "", "cannot read file: not a regular file");
    if (static_cast<std::uintmax_t>(st.st_size) > kMaxInputFileBytes)
        tooLarge(path, std::to_string(st.st_size));
    return parseJson(readBounded(fd.get(), path), path, pythonFloats);
}

JsonReader::JsonReader(const json &obj, std::string file, std::string path)
    : m_obj(obj), m_file(std::move(file)), m_path(std::move(path))
{
    if (!m_obj.is_object())
        throw InputError(m_file, m_path,
                         (m_path.empty() ? "top level: " : "") + ("expected an object, got " + brief(m_obj)));
}

std::string JsonReader::fieldPath(std::string_view key) const
{
    if (m_path.empty())
        return std::string(key);
    return key.empty() ? m_path : m_path + "." + std::string(key);
}

void JsonReader::fail(std::string_view key, std::string_view message) const
{
    throw InputError(m_file, fieldPath(key), message);
}

void JsonReader::fail(std::string_view key, const InputMessage &message, const json &value) const
{
    throw InputError(m_file, fieldPath(key), message, value);
}

bool JsonReader::has(std::string_view key) const
{
    auto it = m_obj.find(key);
    return it != m_obj.end() && !it->is_null();
}

const json &JsonReader::get(std::string_view key)
{
    m_read.emplace(key);
    auto it = m_obj.find(key);
    if (it == m_obj.end() || it->is_null())
        fail(key, "missing");
    return *it;
}

const json &JsonReader::raw(std::string_view key) { return get(key); }

std::string JsonReader::string(std::string_view key)
{
    const json &v = get(key);
    if (!v.is_string())
        fail(key, "expected a string, got " + brief(v));
    return v.get<std::string>();
}

std::string JsonReader::string(std::string_view key, std::string_view fallback)
{
    m_read.emplace(key);
    return has(key) ? string(key) : std::string(fallback);
}

double JsonReader::number(std::string_view key)
{
    const json &v = get(key);
    if (!v.is_number())
        fail(key, "expected a number, got " + brief(v));
    const double d = v.get<double>();
    if (!std::isfinite(d))
        fail(key, "not a finite number: " + brief(v));
    return d;
}

double JsonReader::number(std::string_view key, double fallback)
{
    m_read.emplace(key);
    return has(key) ? number(key) : fallback;
}

double JsonReader::positive(std::string_view key)
{
    const double d = number(key);
    if (!(d > 0))
        fail(key, InputMessage("must be positive, got ").number(m_obj.at(std::string(key))),
             m_obj.at(std::string(key)));
    return d;
}

int64_t JsonReader::integer(std::string_view key)
{
    const json &v = get(key);
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
        fail(key, "must be at most 9223372036854775807, got " + v.dump()); // get<int64_t>() would wrap it
    if (v.is_number_integer())
        return v.get<int64_t>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15)
            return static_cast<int64_t>(d);
    }
    fail(key, "expected a whole number, got " + brief(v));
}

int64_t JsonReader::integer(std::string_view key, int64_t fallback)
{
    m_read.emplace(key);
    return has(key) ? integer(key) : fallback;
}

int64_t JsonReader::positiveInteger(std::string_view key)
{
    const int64_t i = integer(key);
    if (i <= 0)
        fail(key, "must be positive, got " + std::to_string(i));
    return i;
}

bool JsonReader::boolean(std::string_view key)
{
    const json &v = get(key);
    if (!v.is_boolean())
        fail(key, "expected true or false, got " + brief(v));
    return v.get<bool>();
}

bool JsonReader::boolean(std::string_view key, bool fallback)
{
    m_read.emplace(key);
    return has(key) ? boolean(key) : fallback;
}

JsonReader JsonReader::object(std::string_view key)
{
    const json &v = get(key);
    if (!v.is_object())
        fail(key, "expected an object, got " + brief(v));
    return JsonReader(v, m_file, m_path.empty() ? std::string(key) : m_path + "." + std::string(key));
}

const json &JsonReader::array(std::string_view key)
{
    const json &v = get(key);
    if (!v.is_array())
        fail(key, "expected an array, got " + brief(v));
    return v;
}

JsonReader JsonReader::element(const json &item, std::size_t i, std::string_view arrayKey) const
{
    std::string p =
        (m_path.empty() ? std::string() : m_path + ".") + std::string(arrayKey) + "[" + std::to_string(i) + "]";
    return JsonReader(item, m_file, p);
}

void JsonReader::rejectUnknown(const std::set<std::string, std::less<>> &alsoAllowed) const
{
    for (auto it = m_obj.begin(); it != m_obj.end(); ++it)
        if (!m_read.count(it.key()) && !alsoAllowed.count(it.key()))
            fail(it.key(), "unknown field");
}

} // namespace memwall::core
