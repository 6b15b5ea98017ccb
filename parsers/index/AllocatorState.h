#pragma once
// The caching allocator's segments and blocks at any event, rebuilt from DeviceIndex (segment
// lives + live allocations) — the picture behind the segment map, the fragmentation figures and
// the OOM verdict. Blocks take their exact size from the final snapshot when they are still
// alive there, otherwise the allocator's 512-byte rounding of the requested size.
#include "index/DeviceIndex.h"
#include "model/Snapshot.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace memlens {

struct StateBlock {
    uint64_t addr = 0;
    uint64_t size = 0;      // bytes the block occupies in its segment
    uint64_t requested = 0; // 0 for free space
    BlockState state = BlockState::Inactive;
    AllocationId allocation; // none for free space
};

struct StateSegment {
    SegmentLifeId life;
    uint64_t addr = 0;
    uint64_t size = 0;
    uint64_t stream = 0;
    std::pair<int64_t, int64_t> pool{0, 0};
    bool large = true;
    bool expandable = false;
    std::vector<StateBlock> blocks; // in address order, tiling the segment (free space included)
    uint64_t allocated = 0;         // sizes of active and pending-free blocks
    uint64_t requested = 0;
    uint64_t waste = 0;             // rounding: block sizes beyond their requests (never negative)
    uint64_t free = 0;
    uint64_t largestFree = 0;
};

struct AllocatorState {
    TracePoint at = TracePoint::start();
    std::vector<StateSegment> segments; // by pool (default first), then stream, then address
    uint64_t reserved = 0;
    uint64_t allocated = 0;
    uint64_t requested = 0;
    uint64_t waste = 0;
    uint64_t free = 0;
    uint64_t largestFree = 0;
    uint64_t pendingFree = 0; // freed by the user, still in use on another stream
    uint64_t blocks = 0;      // allocated blocks
    double externalFragmentation() const
    {
        return free == 0 ? 0.0 : 1.0 - static_cast<double>(largestFree) / static_cast<double>(free);
    }
    uint64_t roundingWaste() const { return waste; }
};

AllocatorState allocatorStateAt(const Snapshot &snapshot, const DeviceIndex &index, TracePoint at);

// The size of the block an allocation occupies: exact for blocks still in use in the final
// snapshot, otherwise its request rounded as the allocator rounds it.
class BlockSizes {
public:
    BlockSizes(const Snapshot &snapshot, const DeviceIndex &index);
    uint64_t of(AllocationId allocation) const;

private:
    const DeviceIndex &index_;
    std::unordered_map<uint64_t, uint64_t> final_; // address → size of the final snapshot's used blocks
};

// The caching allocator's rounding of a request (512-byte granules, at least 512 bytes).
uint64_t roundedBlockSize(uint64_t requested);

// Why an allocation failed: enough free space in reserved segments but no hole big enough in the
// pool that serves the request (fragmentation), or simply not enough (capacity).
// Memory on the device held outside PyTorch's allocator at an OOM (CUDA context, NCCL buffers,
// cuBLAS workspaces, other processes): the device's total less what it reported free and what
// the allocator reserved. A file does not record the total; none without it.
inline std::optional<uint64_t> outsideAllocatorBytes(std::optional<uint64_t> deviceTotal, uint64_t deviceFree, uint64_t reserved)
{
    if (!deviceTotal || *deviceTotal < deviceFree + reserved)
        return std::nullopt;
    return *deviceTotal - deviceFree - reserved;
}

// The device still had room for the request: a per-process limit
// (set_per_process_memory_fraction) stopped the run, not the device.
inline bool stoppedByProcessLimit(uint64_t deviceFree, uint64_t request)
{
    return deviceFree >= 2 * request;
}
// The finding in the one wording every view uses (summary page, segments page, text report, replay).
inline constexpr std::string_view kProcessLimitFinding = "a per-process limit (set_per_process_memory_fraction) stopped the run, not the device";

struct OomDiagnosis {
    EventId event;
    uint64_t requested = 0;
    uint64_t deviceFree = 0;
    int64_t timeUs = 0;
    uint64_t reservedFree = 0;     // free bytes inside reserved segments, all pools
    uint64_t largestFreeBlock = 0; // largest hole in the pool that would serve the request
    uint64_t largestFreeAddress = 0; // where that hole starts (0: no hole)
    uint64_t reservedBytes = 0;    // reserved by the allocator there
    bool fragmentation = false;
    std::optional<uint64_t> outsideAllocator(std::optional<uint64_t> deviceTotal) const
    {
        return outsideAllocatorBytes(deviceTotal, deviceFree, reservedBytes);
    }
    bool perProcessLimit() const { return stoppedByProcessLimit(deviceFree, requested); }
    std::string verdict() const { return fragmentation ? "fragmentation" : "capacity"; }
    std::string explanation() const; // plain words, with what typically helps
};

// `state` is the allocator state at `oomEvent`. Computed once per OOM, when the summary is built.
OomDiagnosis diagnoseOom(const DeviceIndex &index, EventId oomEvent, const AllocatorState &state);

} // namespace memlens
