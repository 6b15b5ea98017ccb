#pragma once
#include <string>
#include <vector>

namespace memlens {

// `memlens summary FILE [--device N] [--top K] [--at peak|oom|end|EVENT] [--json]`; returns the exit code.
int runSummaryCommand(const std::vector<std::string> &args);

} // namespace memlens
