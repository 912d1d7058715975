#pragma once

#include "util/oneline.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

namespace memwall::core {

/// A malformed input file. what() is one line: "FILE: FIELD: what is wrong (value)"; control characters from
/// the file (a key holding a newline) are escaped.
struct InputError : std::runtime_error
{
    explicit InputError(std::string_view what) : std::runtime_error(oneLine(what)) {}
};

/// Largest input file MemWall reads (presets, configs, scenarios): larger files are refused with a message.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{8} * 1024 * 1024;

/// Reads and parses a JSON file; throws InputError naming the path (and line/column for syntax errors).
nlohmann::json readJsonFile(const std::string &path);
/// Parses JSON text; `origin` names it in messages ("config.json", "<stdin>").
nlohmann::json parseJson(std::string_view text, const std::string &origin);

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

    [[noreturn]] void fail(std::string_view key, std::string_view message) const;
    std::string where(std::string_view key) const; ///< "file: path.key"
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
