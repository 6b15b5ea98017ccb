#pragma once
// Level of detail for the allocation timeline. For a visible event range and a number of pixel
// columns, picks the largest allocations alive in that range to draw individually and folds
// everything else into one band, so a 12 M-event trace draws in a few milliseconds and zooming
// in reveals detail. Each column is sampled at its event of highest active bytes, so peaks are
// never smoothed away.
#include "index/DeviceIndex.h"
#include "model/Borrowed.h"
#include "figures/PoolUsage.h"

#include <cstdint>
#include <span>
#include <vector>

namespace memlens {

// One individually drawn allocation. Column sample events never decrease, so the columns it is
// alive in are one run: [firstColumn, firstColumn + bottom.size()).
struct TimelineBand {
    static constexpr uint32_t kDefaultPool = UINT32_MAX;
    AllocationId allocation;
    uint32_t region = kDefaultPool; // the TimelineFrame::pools region it is stacked in
    uint64_t size = 0; // the band's height in bytes
    size_t firstColumn = 0;
    std::vector<uint64_t> bottom; // per alive column
    bool alive(size_t c) const { return c >= firstColumn && c - firstColumn < bottom.size(); }
    uint64_t bottomAt(size_t c) const { return bottom[c - firstColumn]; }
    size_t endColumn() const { return firstColumn + bottom.size(); }
    bool operator==(const TimelineBand &) const = default;
};

// A private mempool's region, stacked from the bottom below the default pool: as tall as the
// pool's envelope, holding its own folded band and its allocations' bands.
struct TimelinePoolRegion {
    size_t pool = 0;                // index into the pools given to layoutColumns
    std::vector<uint64_t> base;     // per column
    std::vector<uint64_t> otherTop; // the pool's folded band spans [base, otherTop)
    std::vector<uint64_t> top;      // base + the pool's envelope
    bool operator==(const TimelinePoolRegion &) const = default;
};

struct TimelineFrame {
    std::vector<EventId> columnEvent;   // sample event of each column
    std::vector<uint64_t> total;        // active bytes at the sample event
    std::vector<uint64_t> reserved;     // reserved bytes at the sample event
    std::vector<uint64_t> otherBottom;  // the default pool's folded band spans [otherBottom,
    std::vector<uint64_t> otherTop;     // otherTop); otherBottom is 0 without private pools
    std::vector<uint64_t> otherGhostTop; // its part from before the trace: [otherBottom, otherGhostTop)
    std::vector<TimelineBand> bands;    // individually drawn, stacked above their folded band
    std::vector<TimelinePoolRegion> pools;
    bool operator==(const TimelineFrame &) const = default;
};

// What a layout holds besides its index: kept beside a file's cache entry
// (pipeline/StoredIndexes), so that a reopened file's first frame does not build it again. As
// values (TimelineLayoutParts, read back), or as views of a live layout's containers
// (TimelineLayoutPartsRef, written out without a copy).
template <template <typename> class Hold>
struct BasicTimelineLayoutParts {
    uint32_t leaves = 0;
    Hold<std::vector<std::vector<AllocationId>>> tree;
    Hold<std::vector<uint32_t>> blockPeak;
    // Ghost blocks' (free event, bytes freed by it and all before), and their total.
    Hold<std::vector<std::pair<EventId, uint64_t>>> ghostFrees, defaultPoolGhostFrees;
    uint64_t ghostTotal = 0, defaultPoolGhostTotal = 0;
    bool operator==(const BasicTimelineLayoutParts &) const = default;
};
using TimelineLayoutParts = BasicTimelineLayoutParts<Owned>;
using TimelineLayoutPartsRef = BasicTimelineLayoutParts<Borrowed>;

class TimelineLayout {
public:
    // From `parallelFrom` allocations on (tests: 0 and SIZE_MAX), it is built on two cores.
    explicit TimelineLayout(const DeviceIndex &index, size_t parallelFrom = kParallelFrom);

    // From kept parts. Throws std::invalid_argument for parts that cannot be `index`'s layout:
    // sizes that do not fit its entries, allocations or events it does not have, totals that
    // do not add up. Parts that fit but are another layout's draw other bands, nothing worse.
    TimelineLayout(const DeviceIndex &index, TimelineLayoutParts parts);
    TimelineLayoutParts parts() const;
    // The same without the copy; valid while the layout lives.
    TimelineLayoutPartsRef partsRef() const;
    // Columns split [first, last] (event indices, inclusive) evenly; at most `maxBands`
    // allocations are drawn individually.
    TimelineFrame layout(EventId first, EventId last, int columns, size_t maxBands,
                         std::span<const PoolUsage> pools = {}) const;
    // The same with explicit columns: column c shows events [first, last] (inclusive, never
    // empty; in order, neighbouring columns sharing at most their end event, as when zoomed in
    // past one event per pixel). Throws std::invalid_argument for columns out of order.
    // With `pools` (the device's private pools), each pool's allocations are stacked inside its
    // own region at the bottom, as MemoryViz's "incl. Private Pools" tab does.
    using ColumnRange = std::pair<EventId, EventId>;
    TimelineFrame layoutColumns(const std::vector<ColumnRange> &columns, size_t maxBands,
                                std::span<const PoolUsage> pools = {}) const;

    // The largest allocations whose lifetime meets [first, last], largest first (at most k,
    // up to kPerNode as they are kept per index node).
    std::vector<AllocationId> largestIn(EventId first, EventId last, size_t k) const;
    // Event of the highest active bytes in [first, last].
    EventId peakIn(EventId first, EventId last) const;

    static constexpr uint32_t kLeafEvents = 16384;
    static constexpr size_t kPerNode = 1024;
    static constexpr uint32_t kMaxBlock = 256;
    // From this many allocations the leaves are filled on two cores.
    static constexpr size_t kParallelFrom = size_t{1} << 18;

private:
    template <typename Parts>
    Parts partsAs() const;
    // Blocks alive before the trace (ghost blocks), by the event that frees them, with running
    // sums: the ghost bytes alive after any event are one binary search.
    struct GhostBytes {
        // (free event, its block's bytes); after finish(), in event order, with the bytes freed
        // by that event and all before it. kNever: never freed.
        std::vector<std::pair<EventId, uint64_t>> frees;
        uint64_t total = 0;
        void add(EventId event, uint64_t size);
        void finish();
        uint64_t aliveAfter(EventId e) const;
    };

    // Events (indices) after which the allocation is alive; false when it is alive after none.
    bool aliveRange(AllocationId id, uint32_t &first, uint32_t &last) const;
    // The allocations drawn as bands between two events: the largest, whole size classes, oldest first.
    std::vector<AllocationId> bandsIn(EventId first, EventId last, size_t maxBands) const;
    void stackPools(TimelineFrame &frame, std::span<const PoolUsage> pools) const;
    void collect(size_t node, uint32_t lo, uint32_t hi, uint32_t first, uint32_t last, size_t k, std::vector<AllocationId> &out) const;
    // Columns sample real entries only, so the timeline asks the index about the state after one.
    uint64_t activeAfter(EventId e) const { return index_.activeAt(TracePoint::after(e)); }

    const DeviceIndex &index_;
    uint32_t leaves_ = 0;
    std::vector<std::vector<AllocationId>> tree_; // segment tree over leaves, top allocations per node
    std::vector<uint32_t> blockPeak_;         // argmax of active bytes per kMaxBlock events
    // The active bytes after each block's peak, beside it: peakIn compares a column's whole
    // blocks without a read of the active bytes of each (a page apart, not kept: found again).
    std::vector<uint64_t> blockPeakBytes_;
    GhostBytes ghosts_;                       // all of them
    GhostBytes defaultPoolGhosts_;            // those stacked with the default pool when private pools are
};

} // namespace memlens
