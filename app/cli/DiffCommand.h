#pragma once
#include <string>
#include <vector>

namespace memlens {

// `memlens diff A B [--at peak|oom|end|EVENT] [--device N] [--top K] [--json]`; returns the exit code.
int runDiffCommand(const std::vector<std::string> &args);

} // namespace memlens
