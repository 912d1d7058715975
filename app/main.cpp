// memwall: the GUI by default, headless subcommands for scripts (README, "The command line").
#include "commands.h"

#include "ui/application.h"

#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {
void printUsage()
{
    std::cout << "MemWall " MEMWALL_VERSION " — see the AI memory wall\n\n"
                 "usage:\n"
                 "  memwall [--scenario FILE]        the desktop application\n"
                 "  memwall analyze  [scenario] [--json]\n"
                 "  memwall sweep    [scenario] --vary batch=1:4096 [--vary context=...] [--json|--csv]\n"
                 "  memwall export   [scenario] --chart NAME --out FILE [--size WxH] [--scale N] [--theme light|dark|presentation]\n"
                 "  memwall presets  [--json]\n"
                 "  memwall trends   [--json]\n"
                 "  memwall measure  [--json]\n"
                 "  memwall --version\n\n"
                 "`memwall COMMAND --help` describes each command and the scenario options.\n";
}
} // namespace

int main(int argc, char **argv)
{
    // A write past the file-size limit (ulimit -f) fails with "File too large" and is reported, instead of the
    // signal killing the process with a half-written file behind.
    std::signal(SIGXFSZ, SIG_IGN);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty()) {
        const std::string cmd = args.front();
        const std::vector<std::string> rest(args.begin() + 1, args.end());
        using namespace memwall::app;
        if (cmd == "analyze")
            return cmdAnalyze(rest);
        if (cmd == "sweep")
            return cmdSweep(rest);
        if (cmd == "presets")
            return cmdPresets(rest);
        if (cmd == "trends")
            return cmdTrends(rest);
        if (cmd == "measure")
            return cmdMeasure(rest);
        if (cmd == "export")
            return cmdExport(rest);
        if (cmd == "--version" || cmd == "-v") {
            std::cout << "memwall " MEMWALL_VERSION "\n";
            return 0;
        }
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            printUsage();
            return 0;
        }
        if (cmd != "--scenario" && std::strncmp(cmd.c_str(), "-", 1) != 0) {
            std::cerr << "memwall: unknown command '" << cmd << "' (analyze, sweep, export, presets, trends, measure; try --help)\n";
            return 2;
        }
    }
    return memwall::ui::runApplication(argc, argv);
}
