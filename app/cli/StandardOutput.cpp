#include "cli/StandardOutput.h"

#include <fcntl.h>

#include <cstdio>
#include <iostream>

namespace memlens {

int exitAfterWriting(int code)
{
    std::cout.flush();
    const bool streamFailed = std::cout.fail();
    const bool flushFailed = std::fflush(stdout) != 0 || std::ferror(stdout);
    if (!streamFailed && !flushFailed)
        return code;
    // The failed write's errno is long overwritten by now; what is left to tell is whether
    // there was a standard output at all.
    std::cerr << (::fcntl(1, F_GETFD) == -1 ? "memlens: cannot write the answer: standard output is closed\n"
                                            : "memlens: cannot write the answer to standard output (a full disk?): it is incomplete\n");
    return code == 0 ? 1 : code;
}

} // namespace memlens
