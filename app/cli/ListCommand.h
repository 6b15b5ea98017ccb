#pragma once
// `memlens --list views|models|gpus`: the names the options take, one per line, from the tables
// that own them, for shell completion (packaging/memlens.bash-completion).
#include <string>
#include <vector>

namespace memlens {

int runListCommand(const std::vector<std::string> &args);

} // namespace memlens
