#pragma once
// The segments a replay reserved, as lives over the trace: a cudaMalloc'd segment from its
// segment_alloc to its segment_free, an expandable segment's mapped range from its map to its
// unmap (an unmap inside a range ends it and leaves the pieces either side as new lives).
#include "model/Ids.h"
#include "replay/CachingAllocatorModel.h"

#include <cstdint>
#include <map>
#include <vector>

namespace memlens {

struct PredictedSegment {
    uint64_t addr = 0;
    uint64_t size = 0;
    EventId created;                // none: reserved before the first entry (a seeded segment)
    EventId released = kNever;
};

class PredictedSegmentRecorder {
public:
    // A segment the replay starts from (a trace begun after memory was reserved).
    void seed(uint64_t addr, uint64_t size);
    // One of the model's segment changes, made by entry `event`.
    void apply(const SegmentChange &change, EventId event);
    std::vector<PredictedSegment> take() { return std::move(lives_); }

private:
    void open(uint64_t addr, uint64_t size, EventId created);
    std::vector<PredictedSegment> lives_;
    std::map<uint64_t, size_t> open_; // address → index of the live range starting there
};

} // namespace memlens
