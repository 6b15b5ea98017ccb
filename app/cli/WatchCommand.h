#pragma once
#include <string>
#include <vector>

namespace memlens {

// `memlens watch DIR`: one line per dump as it lands in a folder a training job writes into.
int runWatchCommand(const std::vector<std::string> &args);

} // namespace memlens
