#pragma once

namespace memwall::app {

/// Makes every write to standard output checked, for std::cout and printf alike: call once at the start of
/// main(), before anything is printed. The writes go through one stdio stream whose writer keeps the system's
/// reason for the first write that fails (stdout on /dev/full, on a full disk, closed with ">&-"). A standard
/// descriptor that is closed is held open on /dev/null for reading, so that no file the program opens takes its
/// number (a scenario saved to descriptor 1 would receive the report) and a write to it still fails (EBADF).
void checkStdout();

/// Flushes and closes standard output and returns the exit status: `status` if everything printed reached it;
/// else, after "memwall: stdout: REASON" on standard error, 1 (or `status` if that already says a failure).
int finishStdout(int status);

} // namespace memwall::app
