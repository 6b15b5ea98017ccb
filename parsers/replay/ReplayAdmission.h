#pragma once
// Which traces can be replayed through the allocator model, decided once for the command line,
// MCP, the advice and the window's What-if panel: a snapshot's device with trace entries. A
// memory-timeline export has no entries; a profiler trace records allocations but not the
// allocator's segments, so a replay of it would invent them.
#include "model/Snapshot.h"

#include <optional>
#include <string>
#include <vector>

namespace memlens {

// Empty when some device of `snapshot` can be replayed; else why none can, one sentence.
std::optional<std::string> whyNotReplayable(const Snapshot &snapshot);
// Empty when `device` can be replayed; else the file's reason, or the device's.
std::optional<std::string> whyNotReplayable(const Snapshot &snapshot, int device);
// The devices that can be.
std::vector<int> replayableDevices(const Snapshot &snapshot);

} // namespace memlens
