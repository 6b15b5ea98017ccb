#pragma once
// Private mempools (CUDA graphs, torch.cuda.MemPool) over one device's trace: for each
// (pool, stream), the bytes its allocations hold and its segments reserve after every event,
// as MemoryViz's "Allocated Memory (incl. Private Pools)" groups them. The pool comes from the
// entries' pool_id (torch 2026) or, for blocks older than the trace and files without pool_id,
// the final segment holding them (DeviceIndex::poolOf).
#include "index/DeviceIndex.h"

#include <cstdint>
#include <span>
#include <vector>

namespace memlens {

// A step function over a trace: `start` before the first entry, then (entry, value after it).
struct ByteSeries {
    uint64_t start = 0;
    std::vector<std::pair<EventId, uint64_t>> changes;
    uint64_t at(TracePoint t) const;
    uint64_t peak() const;
    uint64_t last() const { return changes.empty() ? start : changes.back().second; }
};

struct PoolUsage {
    PoolIndex pool{0};
    uint64_t stream = 0;
    uint64_t allocations = 0; // allocations that lived in it
    ByteSeries active;
    ByteSeries reserved;
    // The envelope MemoryViz draws: the high-water mark of max(active, reserved); never shrinks.
    ByteSeries envelope;
};

// Empty when the device has no private pool. Ordered by pool id, then stream.
std::vector<PoolUsage> privatePools(const Snapshot &snapshot, const DeviceIndex &index);

// The highest the timeline's stack reaches: with private pools each is drawn as tall as its
// envelope below the default pool's allocations, so it can exceed the active peak. Never below
// the peaks of active and reserved bytes.
uint64_t stackedPeakBytes(const DeviceIndex &index, std::span<const PoolUsage> pools);

} // namespace memlens
