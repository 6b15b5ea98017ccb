#pragma once
// The allocator settings that could lower reserved memory (expandable_segments,
// max_split_size_mb, garbage_collection_threshold), each priced by replaying the trace under it
// through the caching-allocator model - not by assuming what stood free becomes usable.
// empty_cache is not among them: torch releases every unsplit cached segment and retries before
// it raises an OOM, so calling it cannot lower the reserved peak a replay measures.
#include "advice/FixRanking.h"
#include "index/DeviceIndex.h"
#include "model/Snapshot.h"

#include <optional>
#include <vector>

namespace memlens {

// At an OOM (`oom`, `at` just after its entry) a fix saves what the failed run needed there (reserved
// plus the failed request's new segment) minus the replay's reserved peak, and only a replay
// that gets through the whole trace without an OOM is a fix. Otherwise it saves the difference
// of the reserved peaks over the whole run.
std::vector<Fix> allocatorFixes(const Snapshot &snapshot, const DeviceIndex &index, TracePoint at, bool oom,
                                std::optional<uint64_t> capacity);

} // namespace memlens
