#pragma once
// One rank's dumps stitched into one run, as the window and `render DIR --rank R` open it: the
// stitch question's run (and its refusals: a rank the folder holds no dump of) through the load
// pipeline's stages, with the window's advice.
#include "cache/SnapshotCache.h"
#include "pipeline/DocumentPipeline.h"

#include <atomic>
#include <string>

namespace memlens {

void runStitchedStages(const std::string &folder, int rank, const std::atomic<bool> *cancel, const PipelineSink &sink,
                       const SnapshotCache *cache);
LoadedDocument loadStitchedRun(const std::string &folder, int rank, const SnapshotCache *cache);

} // namespace memlens
