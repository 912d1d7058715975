#pragma once

#include <string>
#include <string_view>
#include <vector>

/// The one CSV writer (RFC 4180) behind every CSV MemWall makes: `memwall sweep --csv`, the charts' data export and
/// the operator table's "Copy as CSV". Records end with "\n"; numbers are the caller's text.
namespace memwall::core {

/// One field: as it is, or between double quotes with every quote doubled when it holds a comma, a quote, a carriage
/// return or a line feed: csvField("a,b") == "\"a,b\"", csvField("say \"hi\"") == "\"say \"\"hi\"\"\"".
/// Text a spreadsheet would take for a formula (leading =, +, -, @, tab or CR, and not a plain number) gets a leading
/// apostrophe: csvField("=1+1") == "'=1+1", csvField("-3.5") == "-3.5".
std::string csvField(std::string_view text);

/// One record: each field through csvField(), joined by commas, ended by "\n": csvRow({"x", "1,5"}) == "x,\"1,5\"\n".
std::string csvRow(const std::vector<std::string> &fields);

} // namespace memwall::core
