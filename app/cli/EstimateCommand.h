#pragma once
#include <string>
#include <vector>

namespace memlens {

// `memlens estimate [--model PRESET | shape flags] …`; returns the exit code.
int runEstimateCommand(const std::vector<std::string> &args);

} // namespace memlens
