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

/// True if every byte of `text` belongs to well-formed UTF-8 (RFC 3629).
inline bool isValidUtf8(std::string_view text)
{
    for (std::size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        const std::size_t n = detail::utf8SequenceLength(text, i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

/// `text` as one line of valid UTF-8, so that an error message quoting a stranger's key, value or file excerpt
/// can be printed and logged safely: control characters become "\n", "\r", "\t" or "\xHH"; bytes that are not
/// part of well-formed UTF-8 become "\xHH"; C1 controls, the Unicode line and paragraph separators and the
/// bidirectional overrides and isolates (which can make a terminal show text in another order than it is) become
/// "\uHHHH". Valid UTF-8 passes unchanged otherwise. Every name from a file that reaches a terminal goes through it.
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
        const auto u = [&seq](std::size_t k) { return static_cast<unsigned char>(seq[k]); };
        // U+2028/2029 (separators), U+202A-202E (embeddings and overrides), U+2066-2069 (isolates)
        const bool e2 = n == 3 && u(0) == 0xe2;
        if (e2 && ((u(1) == 0x80 && u(2) >= 0xa8 && u(2) <= 0xae) || (u(1) == 0x81 && u(2) >= 0xa6 && u(2) <= 0xa9))) {
            const unsigned cp = ((u(0) & 0x0fu) << 12) | ((u(1) & 0x3fu) << 6) | (u(2) & 0x3fu);
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4)
                out += kHex[(cp >> shift) & 0xf];
        } else if (n == 2 && c == 0xc2 && u(1) < 0xa0) { // C1 controls
            out += "\\u00";
            out += kHex[u(1) >> 4];
            out += kHex[u(1) & 0xf];
        } else {
            out += seq;
        }
        i += n;
    }
    return out;
}

/// Longest value an error message quotes whole (about one terminal line's worth).
inline constexpr std::size_t kMaxEchoedBytes = 80;

/// A value for an error message to quote: oneLine(text) when it has at most kMaxEchoedBytes bytes, else its first
/// 64 bytes (never half a UTF-8 character) and "... (N bytes)", so that an 8 MB number in a file or an argument is
/// named, not printed whole. Every message that echoes a value it was given goes through it (issue #42).
inline std::string echoValue(std::string_view text)
{
    if (text.size() <= kMaxEchoedBytes)
        return oneLine(text);
    std::size_t cut = 64;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80)
        --cut; // back to the first byte of the character the cut would split
    return oneLine(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

} // namespace memwall::core
