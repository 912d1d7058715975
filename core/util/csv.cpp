#include "core/util/csv.h"

#include <charconv>

namespace memwall::core {

namespace {
/// True for text a spreadsheet would run as a formula: it starts with =, +, - or @ (or a tab or carriage return,
/// which some strip first) and is not simply a number such as "-3.5" or "+1e-09".
bool looksLikeFormula(std::string_view text)
{
    if (text.empty() || std::string_view("=+-@\t\r").find(text.front()) == std::string_view::npos)
        return false;
    double unused = 0;
    const std::string_view digits = text.front() == '+' ? text.substr(1) : text;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), unused);
    return ec != std::errc() || end != digits.data() + digits.size();
}
} // namespace

std::string csvField(std::string_view text)
{
    // A name from a file ("=HYPERLINK(...)") must not become a live formula in a spreadsheet: a leading apostrophe
    // makes it text (the OWASP advice for CSV injection).
    std::string guarded;
    if (looksLikeFormula(text)) {
        guarded = "'" + std::string(text);
        text = guarded;
    }
    if (text.find_first_of(",\"\r\n") == std::string_view::npos)
        return std::string(text);
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csvRow(const std::vector<std::string> &fields)
{
    std::string out;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i > 0)
            out += ',';
        out += csvField(fields[i]);
    }
    return out + "\n";
}

} // namespace memwall::core
