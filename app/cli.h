#pragma once

#include "core/analysis/assemble.h"
#include "core/analysis/options.h"
#include "core/analysis/scenario.h"
#include "core/io/presets.h"
#include "core/io/scenariofile.h"
#include "core/util/format.h"

#include <QString>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace memwall::app {

/// A command-line mistake: printed as one line "memwall CMD: message", exit code 2.
struct UsageError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/// One command-line option of a subcommand (the scenario options come from core's option table instead).
struct CliOption
{
    std::string_view name;    ///< "--out"
    std::string_view metavar; ///< "FILE"; empty for a flag that takes no value
    std::string help;         ///< shown by --help, wrapped to the terminal's 110 columns
};

/// Options every scenario-taking subcommand shares: where the device, model and scenario come from.
const std::vector<CliOption> &scenarioSourceOptions();

/// A parsed command line. Scenario options are parsed and range-checked into `overrides` (in the order given);
/// every other option lands in `extra` (repeatable options keep every value) or `extraFlags`.
struct CommandLine
{
    std::string command;
    std::optional<std::string> hardware, model, modelConfig, scenarioFile, saveScenario, presetsDir;
    std::vector<core::OptionSetting> overrides;
    bool json = false, csv = false, help = false;
    std::multimap<std::string, std::string> extra;
    std::set<std::string> extraFlags;

    std::optional<std::string> value(const std::string &opt) const;
};

/// Parses `args` for a command with its own `options`, plus the scenario-source and scenario options when
/// `scenario`. Throws UsageError naming the option and the value.
CommandLine parseCommandLine(const std::string &command, const std::vector<std::string> &args,
                             const std::vector<CliOption> &options, bool scenario);

/// Resolves device, model and scenario with core::assembleScenario() (the Python module builds them the same way);
/// its RequestError becomes a UsageError. Throws UsageError / core::InputError.
core::ScenarioFile resolveScenario(const CommandLine &cl, const core::PresetLibrary &lib);

/// Writes `text` to `path` atomically (temporary file + rename); throws core::InputError naming the path.
void writeFileAtomically(const std::string &path, const std::string &text);
/// `path`, a file or folder the command line is asked to write, as a QString. Qt decodes file names as UTF-8 and
/// would turn other bytes into U+FFFD, writing to another name than the one given: such a path is refused
/// (InputError "PATH: cannot write: ...").
QString outputPath(const std::string &path);

/// Handles --save-scenario if given.
void maybeSaveScenario(const CommandLine &cl, const core::ScenarioFile &f);

/// Runs `body`, turning exceptions into one stderr line and an exit code (2 usage, 1 input/analysis).
int guarded(const std::string &command, const std::function<int()> &body);

/// Strict number parsing for option values; errors name the option and the value.
int64_t parseCount(const std::string &opt, const std::string &text, int64_t min, int64_t max);
double parseReal(const std::string &opt, const std::string &text, double min, double max);

/// `s` padded with spaces to `width` columns (on the left when `right`); longer text is left whole.
std::string pad(std::string s, std::size_t width, bool right = false);

} // namespace memwall::app
