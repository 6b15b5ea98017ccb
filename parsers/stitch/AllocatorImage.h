#pragma once
// The allocator's state on one device at one moment, as the blocks in use and the segments
// reserved, in a stitched run's ids; and the trace entries that turn one such state into
// another (what carries a stitched run across a gap).
#include "index/DeviceIndex.h"
#include "model/Snapshot.h"
#include "stitch/IdRemap.h"

#include <cstdint>
#include <vector>

namespace memlens {

struct ImageBlock {
    uint64_t addr = 0, size = 0, stream = 0; // size: requested bytes
    StackId stack = StackTable::kEmpty;
    bool longLived = false; // see RunContinuation
};

struct ImageSegment {
    uint64_t addr = 0, size = 0, stream = 0;
    bool expandable = false;
};

struct AllocatorImage {
    std::vector<ImageBlock> blocks;
    std::vector<ImageSegment> segments;
};

// After the dump's last entry: its final segments and their active blocks.
AllocatorImage finalImage(const Snapshot &dump, int device, IdRemap &remap);
// Before the dump's entry `event` (its final state run back through the trace by the index), in
// the dump's own ids.
AllocatorImage imageBefore(const DeviceIndex &index, EventId event);
// The image with its stacks in the run's ids.
AllocatorImage remapped(AllocatorImage image, IdRemap &remap);

// Appends, at `timeUs`, frees of the blocks `from` has and `to` has not, releases and
// reservations of the segments that differ, then allocs of the blocks only `to` has. Returns
// how many entries it added.
uint64_t appendBridge(EventTable &trace, const AllocatorImage &from, const AllocatorImage &to, int64_t timeUs, IdRemap &remap);

} // namespace memlens
