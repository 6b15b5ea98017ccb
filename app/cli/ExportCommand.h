#pragma once
#include <string>
#include <vector>

namespace memlens {

// `memlens export FILE|DIR --parquet OUT [--shard I/N]`: the fleet tables as a Parquet dataset.
int runExportCommand(const std::vector<std::string> &args);

} // namespace memlens
