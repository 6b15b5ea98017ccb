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

// What the run needed reserved, the figure every fix's saving is taken from (Advice::neededBytes):
// at an OOM (`oom`, `at` just after its entry) reserved there plus the failed request's new
// segment, otherwise the reserved peak over the whole run.
uint64_t recordedNeed(const Snapshot &snapshot, const DeviceIndex &index, TracePoint at, bool oom);

// A setting saves `needed` minus the replay's reserved peak; at an OOM only a replay that gets
// through the whole trace without one is a fix.
std::vector<Fix> allocatorFixes(const Snapshot &snapshot, const DeviceIndex &index, uint64_t needed, bool oom, std::optional<uint64_t> capacity);

} // namespace memlens
