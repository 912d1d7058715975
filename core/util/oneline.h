#pragma once

#include <string>
#include <string_view>

namespace memwall::core {

/// `text` with every control character escaped ("\n" for a newline, "\xHH" for the others), so that an error
/// message quoting a stranger's key or value stays on one line. Other bytes (UTF-8 included) pass unchanged.
inline std::string oneLine(std::string_view text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c != 0x7f) {
            out += ch;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 0xf];
        }
    }
    return out;
}

} // namespace memwall::core
