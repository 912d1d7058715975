#pragma once

#include "cli.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::app {

/// One subcommand: its name, help and own options, and the function that runs it once its command line is parsed.
/// main() dispatches through commands(); parsing, --help and error handling are the same for every command.
struct Command
{
    std::string_view name;
    std::string_view synopsis; ///< after "memwall NAME": "[scenario] [--json]"
    std::string summary;       ///< what it does, for `memwall NAME --help`
    bool scenario = false;     ///< takes a scenario: --hardware, --model, ..., and every scenario option
    std::vector<CliOption> options;
    int (*run)(const CommandLine &) = nullptr;
};

/// The presets a command works with: ui::loadPresetLibrary() with --presets DIR.
std::shared_ptr<const core::PresetLibrary> loadPresets(const CommandLine &cl);

/// Every subcommand, in `memwall --help` order.
const std::vector<Command> &commands();
const Command *findCommand(std::string_view name);
/// `memwall NAME --help`.
std::string commandHelp(const Command &c);
/// `memwall --help`.
std::string usage();
/// Parses `args` for `c`, prints help or runs it; errors become one stderr line and exit code 2 (usage) or 1.
int runCommand(const Command &c, const std::vector<std::string> &args);

int cmdAnalyze(const CommandLine &cl);
int cmdSweep(const CommandLine &cl);
int cmdSearch(const CommandLine &cl);
int cmdPresets(const CommandLine &cl);
int cmdTrends(const CommandLine &cl);
int cmdMeasure(const CommandLine &cl);
int cmdValidate(const CommandLine &cl);
int cmdExport(const CommandLine &cl);

} // namespace memwall::app
