#pragma once
// "Would it fit with this setting?": one device's trace replayed through CachingAllocatorModel.
// The program's requests (allocs, completed frees, empty_cache calls, the request that failed
// at a recorded OOM) are the input; segments and reserved bytes are the model's own.
#include "index/DeviceIndex.h"
#include "model/Snapshot.h"
#include "replay/AllocatorConfig.h"
#include "replay/PredictedSegments.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace memlens {

// The most the allocator could reserve, as far as the file tells.
struct CapacityGuess {
    std::optional<uint64_t> bytes;
    std::string how;
};
// From the first OOM entry: reserved there plus the free memory the device reported, or, when
// the device still had plenty free (a per-process limit stopped the run), the reserved peak
// before the OOM - a lower bound. Nothing without an OOM entry.
CapacityGuess capacityFromOom(const DeviceIndex &index);

struct ReplayOptions {
    AllocatorConfig config;
    std::optional<uint64_t> capacity; // none: capacityFromOom, else unlimited
    std::string capacitySource;       // what gave `capacity`
    // The device's whole memory (--gpu): with per_process_memory_fraction, the capacity is that
    // share of it instead.
    std::optional<uint64_t> deviceTotal;
};

struct ReplayRun {
    uint64_t peakReservedBytes = 0;
    std::optional<EventId> peakIndex; // none: nothing exceeded the start
    std::vector<uint64_t> segmentAllocs; // bytes of each segment_alloc / segment_map, in order
    std::optional<EventId> oomAt;
    uint64_t reservedAtEndBytes = 0;
};

struct ReplayResult {
    int device = 0;
    AllocatorConfig config;
    CapacityGuess capacity;
    // The trace began after memory was reserved: the replay starts from the segments and blocks
    // live at its first entry, seeded as cudaMalloc'd segments.
    bool fromFirstEntry = false;
    uint64_t startReservedBytes = 0;
    ReplayRun recorded;
    ReplayRun predicted;
    std::vector<std::pair<EventId, uint64_t>> predictedReserved; // (event, reserved after it), changes only
    std::vector<PredictedSegment> predictedSegments;              // what makes up predictedReserved
    std::vector<std::string> notes;
};

struct ReplayCancelled {};

// Throws ReplayCancelled when `cancel` becomes true.
ReplayResult replayTrace(const Snapshot &snapshot, const DeviceIndex &index, const ReplayOptions &options,
                         const std::atomic<bool> *cancel = nullptr);

} // namespace memlens
