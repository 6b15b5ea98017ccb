#pragma once
// `export DIR --prune`: the inputs a dataset holds of dumps below DIR that DIR no longer has (a
// dump deleted, or rewritten so that it cannot be read now), removed, so the dataset counts what
// the folder holds. Each goes by one rename out of sight (a hidden name readers skip), then away.
#include <set>
#include <string>
#include <vector>

namespace memlens {

// Removes the input folders of `out` whose dump lies below `dir` (resolved) and is not in `kept`
// (resolved paths). Returns the dumps removed, sorted; an input whose table cannot be read names
// no dump and stays.
std::vector<std::string> pruneDataset(const std::string &out, const std::string &dir, const std::set<std::string> &kept);

} // namespace memlens
