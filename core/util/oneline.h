#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace memwall::core {

namespace detail {

/// Length of the well-formed UTF-8 sequence that starts `text` at `i` (RFC 3629: no overlong forms, no surrogates,
/// nothing above U+10FFFF), or 0 if the byte there does not start one.
inline std::size_t utf8SequenceLength(std::string_view text, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = byte(i);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf; // allowed range of the second byte
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; // overlong
        else if (c == 0xed)
            hi = 0x9f; // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90; // overlong
        else if (c == 0xf4)
            hi = 0x8f; // above U+10FFFF
    } else {
        return 0;
    }
    if (i + n > text.size() || byte(i + 1) < lo || byte(i + 1) > hi)
        return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xbf)
            return 0;
    return n;
}

} // namespace detail

/// `text` as one line of valid UTF-8, so that an error message quoting a stranger's key, value or file excerpt
/// can be printed and logged safely: control characters become "\n", "\r", "\t" or "\xHH"; bytes that are not
/// part of well-formed UTF-8 become "\xHH"; the Unicode line and paragraph separators become "\u2028"/"\u2029".
/// Valid UTF-8 passes unchanged otherwise.
inline std::string oneLine(std::string_view text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    const auto escapeByte = [&out](unsigned char c) {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 0xf];
    };
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (c >= 0x20 && c != 0x7f)
                out += static_cast<char>(c);
            else if (c == '\n')
                out += "\\n";
            else if (c == '\r')
                out += "\\r";
            else if (c == '\t')
                out += "\\t";
            else
                escapeByte(c);
            ++i;
            continue;
        }
        const std::size_t n = detail::utf8SequenceLength(text, i);
        if (n == 0) {
            escapeByte(c);
            ++i;
            continue;
        }
        const std::string_view seq = text.substr(i, n);
        if (seq == "\xe2\x80\xa8")
            out += "\\u2028";
        else if (seq == "\xe2\x80\xa9")
            out += "\\u2029";
        else if (n == 2 && c == 0xc2 && static_cast<unsigned char>(seq[1]) < 0xa0)
            out += "\\u00" + std::string{kHex[static_cast<unsigned char>(seq[1]) >> 4],
                                         kHex[static_cast<unsigned char>(seq[1]) & 0xf]}; // C1 controls
        else
            out += seq;
        i += n;
    }
    return out;
}

} // namespace memwall::core
