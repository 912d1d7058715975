#pragma once

#include "analysis/scenario.h"
#include "io/presets.h"
#include "io/scenariofile.h"
#include "util/format.h"

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

/// The options every analysing subcommand shares (`memwall COMMAND --help`: "scenario:" and "common:"), plus the subcommand's own
/// options, declared by the caller, collected into `extra` (repeatable options keep every value).
struct CommandLine
{
    std::string command;
    std::optional<std::string> hardware, model, modelConfig, scenarioFile, saveScenario, presetsDir;
    std::vector<std::pair<std::string, std::string>> overrides; ///< scenario flags in order: {"--batch", "8"}
    bool json = false, csv = false, help = false;
    std::multimap<std::string, std::string> extra;
    std::set<std::string> extraFlags;

    std::optional<std::string> value(const std::string &opt) const;
};

/// Parses `args`; `valued`/`flags` are the subcommand's own options. Throws UsageError.
CommandLine parseCommandLine(const std::string &command, const std::vector<std::string> &args,
                             const std::set<std::string> &valued = {}, const std::set<std::string> &flags = {});

/// Loads built-in presets, the per-user folder and --presets DIR; prints skipped files to stderr.
core::PresetLibrary loadPresets(const CommandLine &cl);

/// Resolves device, model and scenario: --scenario FILE first, then --hardware/--model/--model-config, then the
/// scenario flags. Defaults: h100-sxm, llama-2-70b, decode. Throws UsageError / core::InputError.
core::ScenarioFile resolveScenario(const CommandLine &cl, const core::PresetLibrary &lib);

/// The device with the what-if factors applied.
core::HardwareSpec effectiveHardware(const core::ScenarioFile &f);

/// Writes `text` to `path` atomically (temporary file + rename); throws core::InputError naming the path.
void writeFileAtomically(const std::string &path, const std::string &text);

/// Handles --save-scenario if given.
void maybeSaveScenario(const CommandLine &cl, const core::ScenarioFile &f);

/// The shared "scenario:" and "common:" help text.
const char *scenarioHelp();

/// Runs `body`, turning exceptions into one stderr line and an exit code (2 usage, 1 input/analysis).
int guarded(const std::string &command, const std::function<int()> &body);

/// Strict number parsing for option values; errors name the option and the value.
int64_t parseCount(const std::string &opt, const std::string &text, int64_t min, int64_t max);
double parseReal(const std::string &opt, const std::string &text, double min, double max);

/// core::formatSiNumber() under the name parseReal() uses for its range ("1.23 T", "0.001"); tables call
/// core/util/format.h directly.
std::string si(double v, int digits = 3);
/// `s` padded with spaces to `width` columns (on the left when `right`); longer text is left whole.
std::string pad(std::string s, std::size_t width, bool right = false);

} // namespace memwall::app
