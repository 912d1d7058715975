#include "checkedstdout.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <streambuf>

#include <fcntl.h>
#include <unistd.h>

namespace memwall::app {

namespace {

int g_stdoutErrno = 0; ///< the reason the first write to standard output failed; 0 if none did

/// The writer of the checked stream: every byte to descriptor 1, or the first error kept.
ssize_t writeStdout(void *, const char *bytes, std::size_t size)
{
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(STDOUT_FILENO, bytes + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (g_stdoutErrno == 0)
                g_stdoutErrno = n < 0 ? errno : EIO;
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    return static_cast<ssize_t>(done); // fewer than `size`: stdio marks the stream as failed
}

/// std::cout's bytes into the same stdio stream as printf's, so that the two keep their order.
class StdioBuffer : public std::streambuf
{
protected:
    int_type overflow(int_type c) override
    {
        if (traits_type::eq_int_type(c, traits_type::eof()))
            return traits_type::not_eof(c);
        return std::fputc(c, stdout) == EOF ? traits_type::eof() : c;
    }
    std::streamsize xsputn(const char *s, std::streamsize n) override
    {
        return static_cast<std::streamsize>(std::fwrite(s, 1, static_cast<std::size_t>(n), stdout));
    }
    int sync() override { return std::fflush(stdout) == 0 ? 0 : -1; }
};

void holdClosedDescriptor(int fd)
{
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF)
        return;
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC); // the lowest free number: `fd` if lower ones are open
    if (null >= 0 && null != fd) {
        ::dup2(null, fd);
        ::close(null);
    }
}

} // namespace

void checkStdout()
{
    for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO})
        holdClosedDescriptor(fd);
    static StdioBuffer buffer;
    const cookie_io_functions_t io{nullptr, writeStdout, nullptr, nullptr};
    FILE *checked = ::fopencookie(nullptr, "w", io);
    if (!checked)
        return; // out of memory at start: the plain stream stays
    std::fflush(stdout);
    std::setvbuf(checked, nullptr, ::isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
    stdout = checked; // glibc's stdout is a variable meant to be set (glibc manual, "Standard Streams")
    std::cout.rdbuf(&buffer);
}

int finishStdout(int status)
{
    std::cout.flush();
    const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || g_stdoutErrno != 0;
    // close() reports what a network file system could not write; a descriptor held on /dev/null fails above.
    const int closeErrno = ::close(STDOUT_FILENO) == 0 || errno == EINTR ? 0 : errno;
    const int reason = g_stdoutErrno != 0 ? g_stdoutErrno : failed ? EIO : closeErrno;
    if (reason == 0)
        return status;
    std::cerr << "memwall: stdout: " << std::strerror(reason) << "\n";
    return status != 0 ? status : 1;
}

} // namespace memwall::app
