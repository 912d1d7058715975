#pragma once

#include "core/analysis/analysis.h"
#include "core/io/presets.h"
#include "core/io/scenariofile.h"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::ui {

/// A sourced constant a lesson may use in its text ({sram_mm2_per_gb}): a published number, never a computed one.
struct LessonFact
{
    double value = 0;
    std::string unit;
    std::string source;
};

/// What lesson text is rendered against: the document's current state (device as analysed, i.e. with the what-if
/// factors applied), its analysis, the preset library (for `@preset-id` variations) and the lesson's facts.
struct LessonTextContext
{
    core::ScenarioFile file;
    core::Analysis analysis;
    const core::PresetLibrary *presets = nullptr;
    std::map<std::string, LessonFact, std::less<>> facts;
};

struct LessonTextResult
{
    std::string text;                ///< rendered text; a placeholder that failed reads "[?name]"
    std::vector<std::string> errors; ///< one line per failed placeholder, e.g. "{foo}: unknown placeholder 'foo'"
    bool ok() const { return errors.empty(); }
};

/// Renders lesson text (rich text: HTML tags pass through) by replacing every `{...}` placeholder with a number
/// computed LIVE from the context — no number in a lesson is typed in. Pure: no Qt, no globals.
///
/// Grammar inside the braces:
///   expr := term ( (" / " | " * ") term )*      operators need a space on both sides ("int4/g128" stays one value)
///   term := key [":" arg] ( "@" variation )*    |  fact-name
///   variation := a hardware preset id, a model preset id, or scenario-field=value (scenario-file names: batch=64,
///                fused_attention=false, weights=int4/g128, kv=fp8, tp=4 ...)
/// A term with variations is evaluated on a fresh analysis of the varied scenario (hardware presets as published).
/// `{{` and `}}` are literal braces. Keys and their units are listed by lessonPlaceholders(); the unit is part of the
/// key's name (`time_ms`, `capacity_gb`) and the text writes it after the placeholder.
///
/// Formatting (in the user's locale, ui/util/text.h): text keys as they are (HTML-escaped); whole counts with
/// thousands separators ("4,096"); other numbers as ui::formatNumber() writes them: whole numbers from 100 up ("295",
/// "1,979") and with 3 significant digits below ("29.5", "0.412"); percentages
/// (keys ending in `_share`, `utilization`) as whole numbers from 10 %, else with one decimal, and with one decimal
/// between 99.5 and 100 ("99.8") so that "almost all" stays visible, and with two significant digits below 1 %
/// ("0.17"); infinity is "∞".
LessonTextResult renderLessonText(std::string_view text, const LessonTextContext &ctx);

/// How a placeholder's value is written: text as it is, a count whole with separators, a number by
/// ui::formatNumber(), a share as a percentage (see renderLessonText()).
enum class LessonValueKind { Text, Count, Number, Percent };
/// One placeholder's value, before it is written.
struct LessonValue
{
    LessonValueKind kind = LessonValueKind::Number;
    double number = 0; ///< for every kind but Text (a share as a fraction: 0.25 is 25 %)
    std::string text;  ///< for Text
};
/// Evaluates one placeholder expression, the inside of `{...}` (a product or ratio of terms is a Number), for
/// answers computed live (lesson questions). Throws std::runtime_error with one line "{expr}: what is wrong".
LessonValue evaluateLessonValue(std::string_view expr, const LessonTextContext &ctx);
/// `value` written as renderLessonText() writes it (text HTML-escaped).
std::string formatLessonValue(const LessonValue &value);

/// Checks the placeholders' syntax and names without evaluating them (for the lesson loader): one line per problem.
std::vector<std::string> checkLessonText(std::string_view text,
                                         const std::map<std::string, LessonFact, std::less<>> &facts);

/// One documented placeholder key.
struct LessonPlaceholder
{
    std::string_view key;
    std::string_view argument; ///< "" or what goes after ':' ("operator name", "dtype")
    std::string_view meaning;
};
/// Every key renderLessonText understands, in documentation order.
const std::vector<LessonPlaceholder> &lessonPlaceholders();

} // namespace memwall::ui
