#include "index/DeviceIndex.h"

#include <future>
#include <stdexcept>

namespace memlens {

namespace {

void require(bool holds, const char *what)
{
    if (!holds)
        throw std::invalid_argument(std::string("device index: ") + what);
}

bool eventOrNone(EventId e, size_t n)
{
    return e.isNone() || e.index() < n;
}

bool eventOrNever(EventId e, size_t n)
{
    return e == kNever || e.index() < n;
}

// Entries [from, to): each names an allocation of the table, an alloc entry the one it starts.
// Returns the entries of each action among them (the index's counts, taken on this walk).
DeviceIndex::ActionCounts checkEntryAllocations(const DeviceIndexParts &p, const EventTable &events, size_t from, size_t to)
{
    const size_t count = p.allocations.size();
    DeviceIndex::ActionCounts counts{};
    for (size_t i = from; i < to; ++i) {
        const AllocationId owner = p.eventAllocation[i];
        require(owner.isNone() || owner.index() < count, "an entry's allocation past the table");
        ++counts[static_cast<size_t>(events.action[i])];
        // forEachLiveChange and the checkpoints take an alloc entry's allocation as given.
        if (events.action[i] == Action::Alloc)
            require(!owner.isNone() && p.allocations[owner.index()].allocEvent == EventId(static_cast<uint32_t>(i)), "an alloc entry that starts no allocation");
    }
    return counts;
}

// Returns the entries' action counts.
DeviceIndex::ActionCounts checkAllocations(const DeviceIndexParts &p, const EventTable &events)
{
    const size_t n = events.count();
    const size_t count = p.allocations.size();
    require(p.eventAllocation.size() == n, "allocations of another trace");
    // A long trace's entries are checked in two halves, the later one on the other core (the
    // window waits for this before its first frame from the cache: ~50 ms of 12 M entries).
    std::future<DeviceIndex::ActionCounts> later;
    size_t mine = n;
    if (DeviceIndex::worksOnTwoCores(n)) {
        mine = n / 2;
        later = std::async(std::launch::async, [&] { return checkEntryAllocations(p, events, mine, n); });
    }
    struct Joined {
        std::future<DeviceIndex::ActionCounts> &f;
        ~Joined()
        {
            if (f.valid())
                f.wait(); // before the parts it reads can go, also when this half throws
        }
    } joined{later};
    for (const Allocation &a : p.allocations) {
        require(eventOrNone(a.allocEvent, n) && eventOrNever(a.freeRequested, n) && eventOrNever(a.freeCompleted, n), "an entry the trace has not");
        require(a.allocEvent.isNone() || a.freeCompleted == kNever || a.allocEvent < a.freeCompleted, "an allocation freed before it was made");
    }
    DeviceIndex::ActionCounts counts = checkEntryAllocations(p, events, 0, mine);
    if (later.valid()) {
        const DeviceIndex::ActionCounts theirs = later.get();
        for (size_t a = 0; a < counts.size(); ++a)
            counts[a] += theirs[a];
    }
    for (size_t i = 0; i < p.initialDetails.size(); ++i) {
        const auto &[id, detail] = p.initialDetails[i];
        require(id.index() < count && p.allocations[id.index()].allocEvent.isNone(), "a block from before the trace that is not one");
        require(i == 0 || p.initialDetails[i - 1].first < id, "blocks from before the trace out of order");
    }
    require(p.preProfile.isNone() || p.preProfile.index() < count, "a pre-profile allocation past the table");
    for (const auto &[event, ended] : p.implicitEnds)
        require(event.index() < n && ended.index() < count, "an implicit end past its tables");
    for (const auto &[id, event] : p.annotations)
        require(id.index() < count && event.index() < n, "an annotation past its tables");
    for (EventId event : p.annotateEvents)
        require(event.index() < n, "an annotate entry the trace has not");
    require(p.checkpoints.size() == n / DeviceIndex::kCheckpointEvery + 1, "checkpoints of another trace");
    for (const auto &checkpoint : p.checkpoints)
        for (AllocationId id : checkpoint)
            require(id.index() < count, "a checkpoint's allocation past the table");
    return counts;
}

void checkTables(const DeviceIndexParts &p, const Snapshot &snapshot, size_t n)
{
    for (const auto &[id, detail] : p.initialDetails)
        require(detail.stack.index() < snapshot.stacks.size(), "a stack the file has not");
    for (const auto &[id, pool] : p.pools)
        require(id.index() < p.allocations.size() && pool.index() < snapshot.pools.size(), "a pool past its tables");
    for (const SegmentLife &life : p.segmentLives) {
        require(eventOrNone(life.createdEvent, n) && eventOrNever(life.releasedEvent, n), "a segment entry the trace has not");
        require(life.finalSegment.isNone() ? !life.createdEvent.isNone() || life.releasedEvent != kNever
                                           : life.finalSegment.index() < snapshot.segments.size(),
                "a segment life with neither an entry nor a final segment");
    }
    for (const auto &[event, life] : p.lifeOfSegmentEvent)
        require(event.index() < n && life.index() < p.segmentLives.size(), "a segment entry's life past its tables");
    for (const auto &[event, reserved] : p.reservedChanges)
        require(event.index() < n, "a reserved change at an entry the trace has not");
    require(p.peak.entriesApplied() <= n, "a peak after the trace");
}

} // namespace

template <typename Index, typename Parts, typename F>
void DeviceIndex::forEachPart(Index &index, Parts &p, F &&f)
{
    f(index.allocations_, p.allocations);
    f(index.initialDetails_, p.initialDetails);
    f(index.eventAllocation_, p.eventAllocation);
    f(index.initialBytes_, p.initialBytes);
    f(index.initialBlocks_, p.initialBlocks);
    f(index.peakActive_, p.peakActive);
    f(index.peak_, p.peak);
    f(index.startReserved_, p.startReserved);
    f(index.peakReserved_, p.peakReserved);
    f(index.reservedChanges_, p.reservedChanges);
    f(index.segments_.lives, p.segmentLives);
    f(index.segments_.lifeOfEvent, p.lifeOfSegmentEvent);
    f(index.segments_.unexplainedEntries, p.unexplainedSegmentEntries);
    f(index.segments_.unmatchedFinalSegments, p.unmatchedFinalSegments);
    f(index.implicitEnds_, p.implicitEnds);
    f(index.preProfile_, p.preProfile);
    f(index.pythonStacks_, p.pythonStacks);
    f(index.annotations_, p.annotations);
    f(index.annotateEvents_, p.annotateEvents);
    f(index.pools_, p.pools);
    f(index.checkpoints_, p.checkpoints);
}

DeviceIndex::DeviceIndex(const Snapshot &snapshot, int device, DeviceIndexParts p) : snapshot_(snapshot), device_(device)
{
    events_ = device >= 0 && static_cast<size_t>(device) < snapshot.traces.size() ? &snapshot.traces[device] : &empty_;
    const size_t n = events_->count();
    actionCounts_ = checkAllocations(p, *events_);
    checkTables(p, snapshot, n);
    active_ = ActiveBytes::fromParts(n, std::move(p.activeOffsets), std::move(p.activeBlocks), std::move(p.activeWide));
    forEachPart(*this, p, [](auto &member, auto &part) { member = std::move(part); });
}

template <typename Parts>
Parts DeviceIndex::partsAs() const
{
    Parts p;
    p.activeOffsets = active_.offsets();
    p.activeBlocks = active_.blocks();
    p.activeWide = active_.wide();
    forEachPart(*this, p, [](const auto &member, auto &part) { part = member; });
    return p;
}

DeviceIndexParts DeviceIndex::parts() const
{
    return partsAs<DeviceIndexParts>();
}

DeviceIndexPartsRef DeviceIndex::partsRef() const
{
    return partsAs<DeviceIndexPartsRef>();
}

} // namespace memlens
