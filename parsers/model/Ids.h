#pragma once
// Indices into a snapshot's tables, each its own type, so that an event index cannot be passed
// where an allocation index is meant (as Perfetto's and heaptrack's ids are). Each has an explicit
// "none": UINT32_MAX underneath, which no table reaches, so ids order as their indices do and
// none after all of them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>

namespace memlens {

template <typename Tag, typename Index = uint32_t>
class Id {
public:
    constexpr Id() = default; // none
    constexpr explicit Id(Index index) : index_(index) {}
    static constexpr Id none() { return Id(); }
    constexpr bool isNone() const { return index_ == kNoneIndex; }
    constexpr Index index() const { return index_; }
    // Spelt out rather than <=>: moc cannot read <compare>.
    constexpr bool operator==(const Id &) const = default;
    constexpr bool operator<(Id other) const { return index_ < other.index_; }
    constexpr bool operator>(Id other) const { return index_ > other.index_; }
    constexpr bool operator<=(Id other) const { return index_ <= other.index_; }
    constexpr bool operator>=(Id other) const { return index_ >= other.index_; }

private:
    static constexpr Index kNoneIndex = std::numeric_limits<Index>::max();
    Index index_ = kNoneIndex;
};

// An entry of one device's trace.
using EventId = Id<struct EventTag>;
// An allocation of one device's DeviceIndex (blocks alive before the trace included).
using AllocationId = Id<struct AllocationTag>;
// A segment as it stood between two events (DeviceIndex::segmentLives()).
using SegmentLifeId = Id<struct SegmentLifeTag>;
// A segment of the final state (Snapshot::segments).
using SegmentId = Id<struct SegmentTag>;
// A frame of the snapshot's FrameTable.
using FrameId = Id<struct FrameTag>;
// A call stack of the snapshot's StackTable (0: none recorded).
using StackId = Id<struct StackTag>;
// A string of the snapshot's StringTable (0: "").
using StringId = Id<struct StringTag>;
// A pool of Snapshot::pools (0: the default pool, (0,0)).
using PoolIndex = Id<struct PoolTag>;
// A stream of Snapshot::streams; two bytes, as the event column holds it.
using StreamIndex = Id<struct StreamTag, uint16_t>;

// A free the trace does not hold: the allocation outlived it.
inline constexpr EventId kNever{UINT32_MAX - 1};

// A moment of one device's trace: the state after its first n entries. The start (no entry
// applied) comes first and the end of a trace of n entries is after(n - 1); an event's "none"
// never stands for a moment, so moments compare without guards.
class TracePoint {
public:
    constexpr TracePoint() = default; // the start
    static constexpr TracePoint start() { return TracePoint(0); }
    // The state once entry `e` is applied; e is a real entry.
    static constexpr TracePoint after(EventId e) { return TracePoint(e.index() + 1); }
    // The state just before entry `e` is applied.
    static constexpr TracePoint before(EventId e) { return TracePoint(e.index()); }
    // After the end of any trace: when something the trace never ends, ends.
    static constexpr TracePoint never() { return TracePoint(UINT32_MAX); }
    // When something made by entry `made` exists from: the start without one (it was there
    // before the trace). When something ended by entry `ended` is gone: never for kNever.
    static constexpr TracePoint bornAt(EventId made) { return made.isNone() ? start() : after(made); }
    static constexpr TracePoint goneAt(EventId ended) { return ended == kNever ? never() : after(ended); }
    // After the first n entries (a trace's end, for n its length).
    static constexpr TracePoint afterFirst(size_t n) { return TracePoint(static_cast<uint32_t>(n)); }

    constexpr uint32_t entriesApplied() const { return applied_; }
    constexpr bool isStart() const { return applied_ == 0; }
    // The last entry applied: none at the start.
    constexpr EventId lastEntry() const { return applied_ ? EventId(applied_ - 1) : EventId::none(); }

    constexpr bool operator==(const TracePoint &) const = default;
    constexpr bool operator<(TracePoint other) const { return applied_ < other.applied_; }
    constexpr bool operator>(TracePoint other) const { return applied_ > other.applied_; }
    constexpr bool operator<=(TracePoint other) const { return applied_ <= other.applied_; }
    constexpr bool operator>=(TracePoint other) const { return applied_ >= other.applied_; }

private:
    constexpr explicit TracePoint(uint32_t applied) : applied_(applied) {}
    uint32_t applied_ = 0;
};

} // namespace memlens

template <typename Tag, typename Index>
struct std::hash<memlens::Id<Tag, Index>> {
    size_t operator()(memlens::Id<Tag, Index> id) const noexcept { return std::hash<Index>()(id.index()); }
};
