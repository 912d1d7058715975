#pragma once

#include <string>
#include <vector>

namespace memwall::app {

/// Each subcommand: arguments after the subcommand name; returns the process exit code.
/// Errors are one line on stderr ("memwall: ...") and a non-zero exit.
int cmdAnalyze(const std::vector<std::string> &args);
int cmdSweep(const std::vector<std::string> &args);
int cmdPresets(const std::vector<std::string> &args);
int cmdTrends(const std::vector<std::string> &args);
int cmdMeasure(const std::vector<std::string> &args);
int cmdExport(const std::vector<std::string> &args);

} // namespace memwall::app
