// memwall: the GUI by default, headless subcommands for scripts (README, "The command line").
#include "checkedstdout.h"
#include "commands.h"

#include "ui/application.h"

#include "core/io/scenariolink.h"
#include "core/util/oneline.h"

#include <memwall_version.h>

#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    // A write past the file-size limit (ulimit -f) fails with "File too large" and is reported, instead of the
    // signal killing the process with a half-written file behind.
    std::signal(SIGXFSZ, SIG_IGN);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty()) {
        memwall::app::checkStdout(); // every command's output, and its final flush, is checked
        const std::string cmd = args.front();
        const std::vector<std::string> rest(args.begin() + 1, args.end());
        using namespace memwall::app;
        if (const Command *c = findCommand(cmd))
            return finishStdout(runCommand(*c, rest));
        if (cmd == "--version" || cmd == "-v") {
            std::cout << "memwall " MEMWALL_VERSION "\n";
            return memwall::app::finishStdout(0);
        }
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::cout << memwall::app::usage();
            return memwall::app::finishStdout(0);
        }
        // `memwall 'memwall:?…'` (the desktop entry's Exec for a link) opens the window on that scenario.
        if (cmd != "--scenario" && std::strncmp(cmd.c_str(), "-", 1) != 0 && !memwall::core::isScenarioLink(cmd)) {
            std::string names;
            for (const auto &c : memwall::app::commands())
                names += (names.empty() ? "" : ", ") + std::string(c.name);
            std::cerr << "memwall: unknown command '" << memwall::core::oneLine(cmd) << "' (" << names
                      << "; try --help)\n";
            return 2;
        }
    }
    return memwall::ui::runApplication(argc, argv);
}
