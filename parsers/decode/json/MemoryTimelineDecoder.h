#pragma once
// prof.export_memory_timeline() outputs: `[times_us, rows]` (bytes per category at each time)
// and the raw event list `[[time_ns, action, bytes, category], …]`, which is replayed into the
// same per-category timeline exactly as torch coalesces it.
#include "decode/input/ByteReader.h"
#include "model/Snapshot.h"

namespace memlens {

void decodeMemoryTimeline(ByteReader &reader, Snapshot &out);

} // namespace memlens
