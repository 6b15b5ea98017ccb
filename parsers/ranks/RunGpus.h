#pragma once
// The run's GPU count, for the advice (AdviceOptions::gpus): the one the user gave, else the
// rank snapshots beside the snapshot. Asked by the callers, so the advice never lists folders.
#include "advice/SetupInference.h"

#include <optional>
#include <string>

namespace memlens {

// `source` names where `given` came from ("--gpus", "gpus"); without it, the ranks of the same
// step beside `snapshotPath` (worldSizeBeside), else none.
Inferred<int> runGpus(std::optional<int> given, const std::string &source, const std::string &snapshotPath);

} // namespace memlens
