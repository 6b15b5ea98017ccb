#pragma once
// The reserved ranges of one device over its trace, by the rule torch's snapshot and MemoryViz
// share: a cudaMalloc'd segment is a segment of its own; adjacent mapped ranges of one stream's
// expandable segment form one segment, and unmapping a range splits or shrinks the segment that
// holds it. The ranges before the first entry are the final snapshot's segments run backwards
// through the trace, so a map or unmap inside memory reserved before the trace is no surprise.
#include "model/Ids.h"
#include "model/PodArray.h"
#include "model/Snapshot.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace memlens {

// One segment as it stood between two events: a map next to it, or an unmap inside it, ends it
// and starts the segment it becomes.
struct SegmentLife {
    uint64_t addr = 0;
    uint64_t size = 0;
    uint64_t stream = 0;
    EventId createdEvent;            // none: reserved when recording began
    EventId releasedEvent = kNever;
    SegmentId finalSegment; // when alive at the end
    bool expandable = false;
    bool large = true;

    bool fromBeforeTrace() const { return createdEvent.isNone(); }
    TracePoint born() const { return TracePoint::bornAt(createdEvent); }
    TracePoint ended() const { return TracePoint::goneAt(releasedEvent); }
    bool aliveAt(TracePoint t) const { return born() <= t && t < ended(); }
};

struct SegmentLives {
    std::vector<SegmentLife> lives;
    uint64_t startReserved = 0;
    std::vector<std::pair<EventId, uint64_t>> reservedChanges; // (event, reserved after it)
    // (segment entry, the life it creates (alloc, map) or ends (free, unmap)), in event order.
    std::vector<std::pair<EventId, SegmentLifeId>> lifeOfEvent;
    // Segment entries the final snapshot cannot explain: a segment_free or unmap of nothing
    // reserved, a segment_alloc or map over memory already reserved, or (run backwards) the
    // same at the end. Zero for a consistent file.
    uint64_t unexplainedEntries = 0;
    // Final segments whose range the trace's ranges do not end with.
    uint64_t unmatchedFinalSegments = 0;
};

SegmentLives buildSegmentLives(const Snapshot &snapshot, int device, const EventTable &events);

} // namespace memlens
