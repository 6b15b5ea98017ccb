#pragma once
// Stitching the dumps one rank of a training job wrote into a folder (RankFiles finds them and
// their steps): read one at a time, through the snapshot cache, in step order.
#include "cache/SnapshotCache.h"
#include "ranks/RankFiles.h"
#include "stitch/DumpStitcher.h"

#include <atomic>
#include <functional>

namespace memlens {

// The rank's files in the order they are stitched: by step (unnamed steps first), the larger
// first within a step (the longer window), then path.
std::vector<RankFile> dumpsOfRank(const RankFolder &folder, int rank);

// A dump that cannot be read is left out with a warning naming it; throws std::invalid_argument
// when the rank has no dump that can be read, and LoadCancelled when `cancel` is set.
StitchedRun stitchRank(const RankFolder &folder, int rank, const SnapshotCache *cache, const std::atomic<bool> *cancel = nullptr,
                       const std::function<void(size_t done, size_t total)> &progress = {});

// The name a stitched run goes by: "DIR · rank R (stitched)".
std::string stitchedRunName(const std::string &folder, int rank);

} // namespace memlens
