#pragma once
#include <string>
#include <vector>

namespace memlens {

// `memlens advise FILE [--device N] [--at peak|oom|end|EVENT] [--gpu PRESET | --capacity BYTES]
// [--gpus N] [--sort effort|saves] [--json] [--no-cache]`; returns the exit code.
int runAdviseCommand(const std::vector<std::string> &args);

} // namespace memlens
