#pragma once

#include "core/analysis/scenario.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace memwall::core {

/// The scenario-option table: every setting a user can change besides the device and the model, with its name, kind,
/// range, unit, help and accessors. It is the one home of these facts: the command line (flags, parsing, --help),
/// `sweep --vary`, validate(), the scenario file (reading and writing) and the GUI's controls all read it, so adding
/// an option means adding a row here and the core code that uses its value.

enum class OptionKind {
    Integer, ///< a whole number in [min, max]
    Real,    ///< a number in [min, max] (or (min, max] when minOpen)
    Choice,  ///< one of named values (phase, number formats, ...)
    Switch   ///< on or off: `--flag` / `--no-flag`
};

/// Which object of the scenario file holds the option.
enum class OptionSection {
    Scenario, ///< "scenario": the workload
    WhatIf    ///< "what_if": the hardware scaling factors
};

/// One option's value: unset (a nullable real left to its mode), a switch, a whole number, a real, or a choice name.
using OptionValue = std::variant<std::monostate, bool, int64_t, double, std::string>;

struct ScenarioOption
{
    std::string_view key;     ///< scenario-file key in its section; `sweep --vary` field; the GUI control's object name
    std::string_view flag;    ///< command-line flag ("--batch"); a switch also takes "--no-" + its name
    std::string_view metavar; ///< the flag's value in --help ("N", "X", "DTYPE"); empty for a switch
    std::string_view label;   ///< short name for GUI rows and undo steps ("Micro-batches")
    std::string_view help;    ///< one sentence for --help and tooltips
    std::string_view
        group; ///< GUI group: "Workload", "Precision", "Parallelism", "Options", "Training", "Serving", "What-if"
    OptionKind kind = OptionKind::Integer;
    OptionSection section = OptionSection::Scenario;
    double min = 0, max = 0; ///< accepted range of Integer and Real options, inclusive
    bool minOpen = false;    ///< (min, max]: min itself is refused
    bool nullable = false;   ///< a Real that may be unset ("auto" on the command line, null in files)
    /// An Integer whose 0 stands for a choice rather than a count ("auto": derived from the other degrees; "off"):
    /// the window shows this word for 0, and the command line accepts it for 0.
    std::string_view zeroMeans;
    double typicalMin = 0,
           typicalMax = 0;            ///< the span of a GUI slider (typed values may go to min and max); 0: the range
    std::vector<std::string> choices; ///< Choice: the names offered (and accepted, unless openChoice)
    bool openChoice = false;          ///< Choice: names beyond `choices` are accepted when set() understands them
    std::function<OptionValue(const Scenario &, const WhatIf &)> get;
    /// Stores a value that checkOption() accepted; returns "" or why a choice name is not understood.
    std::function<std::string(Scenario &, WhatIf &, const OptionValue &)> set;
};

/// All options, in --help and GUI order.
const std::vector<ScenarioOption> &scenarioOptions();
/// The option with scenario-file key `key` in `section`, or nullptr.
const ScenarioOption *findOption(std::string_view key, OptionSection section = OptionSection::Scenario);
/// The option a command-line flag names, or nullptr; `*negated` tells "--no-x" from "--x" for switches.
const ScenarioOption *findOptionByFlag(std::string_view flag, bool *negated = nullptr);

/// "" if `v` has the option's kind and lies in its range, else the reason ("must be between 1 and 16777216, got 0").
std::string checkOption(const ScenarioOption &o, const OptionValue &v);
/// checkOption(o, v).empty(), without making the reason for a whole number or a real: validate() asks it of every
/// range-checked option at every analysis.
bool optionAccepts(const ScenarioOption &o, const OptionValue &v);
/// checkOption(), then set(): "" or the reason.
std::string applyOption(const ScenarioOption &o, Scenario &s, WhatIf &w, const OptionValue &v);
/// Parses command-line text into a value of the option's kind: "" or the reason ("'many' is not a whole number").
/// A nullable option takes "auto" for unset; a switch takes true/false, on/off, yes/no, 1/0.
std::string parseOptionText(const ScenarioOption &o, std::string_view text, OptionValue *out);
/// "must be between 1 and 16777216, got TEXT" (or "must be above 0 and at most 1, ..."): a value out of the option's
/// range, quoted as it was written (a number too large for any integer type is named, not wrapped).
std::string outOfRange(const ScenarioOption &o, std::string_view got);
/// The accepted values as text: "1 to 16777216", "above 0 up to 1", "prefill, decode, ...".
std::string describeValues(const ScenarioOption &o);
/// A value as text: "8", "0.5", "int4/g128", "on", "auto".
std::string optionText(const OptionValue &v);
/// The fields `sweep --vary` accepts: the whole-number options of the scenario section.
std::vector<std::string_view> sweepableFields();
/// Sets an Integer option of the scenario section by key (sweeps, fit limits); false if there is no such option.
/// The value is not range-checked: analyze() refuses what validate() refuses.
bool setIntegerOption(Scenario &s, std::string_view key, int64_t value);

} // namespace memwall::core
