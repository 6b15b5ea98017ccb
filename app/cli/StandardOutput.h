#pragma once
// A command's answer is what it wrote to standard output: a write that failed (a full disk, a
// closed stdout, /dev/full) must not end in exit 0 over a cut answer.

namespace memlens {

// Flushes standard output and checks every write to it: `code` when all went out, else 1 with
// one line on stderr. A command that already failed keeps its own code.
int exitAfterWriting(int code);

} // namespace memlens
