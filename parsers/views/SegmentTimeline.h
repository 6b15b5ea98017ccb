#pragma once
// Segments over time, as MemoryViz's "Active Cached Segment Timeline" draws them: each segment
// life a band over the events it lives through, stacked in columns by address, by size or in the
// order they were made (MemoryViz's), with
// the bytes its live allocations hold in it (requested sizes) at each column's last event.
#include "index/DeviceIndex.h"

#include <cstdint>
#include <vector>

namespace memlens {

// Size: the largest at the bottom. Allocation: MemoryViz's own order — each segment goes on top
// of those alive when it was made, a freed one takes its band out and lowers those above it, so
// no band moves when a segment appears below it in address; segments from before the trace at the
// bottom, those alive at the end lowest.
enum class SegmentOrder : uint8_t { Address, Size, Allocation };

struct SegmentBand {
    SegmentLifeId life; // the index's segment life, or the replay's predicted segment
    uint64_t size = 0;
    size_t firstColumn = 0;       // the band spans columns [firstColumn, firstColumn + bottom.size())
    std::vector<uint64_t> bottom; // per column of its span: the bytes stacked below it
    std::vector<uint64_t> used;   // per column: requested bytes of its live allocations (0 where it
                                  // lived only inside the column)
    size_t endColumn() const { return firstColumn + bottom.size(); }
};

struct SegmentTimelineFrame {
    std::vector<EventId> columnLast; // the last event of each column
    std::vector<uint64_t> stacked;   // per column: the sizes of the segments alive at any point of it
    std::vector<SegmentBand> bands;  // in stacking order
};

// Columns split events [first, last] evenly, as the timeline's do; a segment is drawn in every
// column it is alive in at any point.
SegmentTimelineFrame layoutSegmentTimeline(const DeviceIndex &index, EventId first, EventId last, int columns, SegmentOrder order);
// A segment's range and life, whoever reserved it.
struct SegmentSpan {
    uint64_t addr = 0;
    uint64_t size = 0;
    TracePoint born, ended;
};
// The same for other segments over this device's trace (a what-if replay's): used bytes are not
// known there, so they are 0; a band's `life` indexes `spans`.
SegmentTimelineFrame layoutSegmentSpans(const DeviceIndex &index, const std::vector<SegmentSpan> &spans, EventId first, EventId last,
                                        int columns, SegmentOrder order);

} // namespace memlens
