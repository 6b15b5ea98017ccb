#pragma once
#include <string>
#include <vector>

namespace memlens {

// `memlens replay FILE [--device N] [--alloc-conf CONF] [--gpu PRESET | --capacity BYTES] [--json] [--no-cache]`;
// returns the exit code.
int runReplayCommand(const std::vector<std::string> &args);

} // namespace memlens
