#pragma once
// `memlens summary DIR`: the ranks of a distributed run, one line (or JSON object) each.
#include <string>
#include <vector>

namespace memlens {

int runRankSummaryCommand(const std::vector<std::string> &args);

} // namespace memlens
