#pragma once

namespace memwall::ui {

/// Starts the desktop application (`memwall [--scenario FILE]`); returns the exit code.
int runApplication(int argc, char **argv);

} // namespace memwall::ui
