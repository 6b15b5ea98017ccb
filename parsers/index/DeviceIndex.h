#pragma once
// Indices over one device's trace, built once after loading: allocation lifetimes (including
// blocks alive before recording began), running active and reserved bytes, the peak, and
// checkpoints of the live set so "what is live at event e" is answered without a full replay.
// Definitions follow docs/DESIGN.md.
#include "index/SegmentLives.h"
#include "model/AddressMap.h"
#include "index/ActiveBytes.h"
#include "model/Borrowed.h"
#include "model/NestedLists.h"
#include "model/PodArray.h"
#include "model/Snapshot.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace memlens {

struct Allocation {
    EventId allocEvent; // none: alive when recording began
    EventId freeRequested = kNever;
    EventId freeCompleted = kNever;

    bool fromBeforeTrace() const { return allocEvent.isNone(); }
    // The entry that freed it as the program saw it: the free's request where the trace has one,
    // else its completion; kNever when it outlived the trace.
    EventId firstFree() const { return freeRequested != kNever ? freeRequested : freeCompleted; }
    TracePoint born() const { return TracePoint::bornAt(allocEvent); }
    TracePoint freed() const { return TracePoint::goneAt(freeCompleted); }
    TracePoint freeRequestedAt() const { return TracePoint::goneAt(freeRequested); }
    bool aliveAt(TracePoint t) const { return born() <= t && t < freed(); }
};

struct AllocationDetail {
    uint64_t addr = 0;
    uint64_t size = 0; // requested bytes
    uint64_t stream = 0;
    StackId stack = StackTable::kEmpty;
};

struct BlockAt {
    AllocationId allocation;
    bool pendingFree; // freed by the user, still in use on another stream
};

// What an index holds besides its snapshot: kept beside a file's cache entry
// (pipeline/StoredIndexes), so that a reopened file is not indexed again. As values
// (DeviceIndexParts, read back), or as views of a live index's containers (DeviceIndexPartsRef,
// written out without a copy: 150 MB for a 12 M-entry run).
template <template <typename> class Hold>
struct BasicDeviceIndexParts {
    Hold<PodArray<Allocation>> allocations;
    Hold<std::vector<std::pair<AllocationId, AllocationDetail>>> initialDetails;
    Hold<PodArray<AllocationId>> eventAllocation;
    Hold<PodArray<uint32_t>> activeOffsets;
    Hold<PodArray<ActiveBytes::Block>> activeBlocks;
    Hold<PodArray<int64_t>> activeWide;
    uint64_t initialBytes = 0;
    uint32_t initialBlocks = 0;
    uint64_t peakActive = 0;
    TracePoint peak;
    uint64_t startReserved = 0;
    uint64_t peakReserved = 0;
    Hold<std::vector<std::pair<EventId, uint64_t>>> reservedChanges;
    Hold<std::vector<SegmentLife>> segmentLives;
    Hold<std::vector<std::pair<EventId, SegmentLifeId>>> lifeOfSegmentEvent;
    uint64_t unexplainedSegmentEntries = 0;
    uint64_t unmatchedFinalSegments = 0;
    Hold<std::vector<std::pair<EventId, AllocationId>>> implicitEnds;
    AllocationId preProfile;
    bool pythonStacks = false;
    Hold<std::vector<std::pair<AllocationId, EventId>>> annotations;
    Hold<std::vector<EventId>> annotateEvents;
    Hold<std::vector<std::pair<AllocationId, PoolIndex>>> pools;
    Hold<NestedLists<AllocationId>> checkpoints;
};
using DeviceIndexParts = BasicDeviceIndexParts<Owned>;
using DeviceIndexPartsRef = BasicDeviceIndexParts<Borrowed>;

class DeviceIndex {
public:
    // `cancel` is polled between stages and every few hundred thousand events.
    DeviceIndex(const Snapshot &snapshot, int device, const std::atomic<bool> *cancel = nullptr);
    // From kept parts. Throws std::invalid_argument for parts that cannot be this device's
    // index: sizes that do not fit its entries, ids past their tables (allocations, events,
    // stacks, segments, pools), an alloc entry that starts no allocation. Parts that fit but are
    // another index's give other figures, nothing worse.
    DeviceIndex(const Snapshot &snapshot, int device, DeviceIndexParts parts);
    DeviceIndexParts parts() const;
    // The same without the copy; valid while the index lives.
    DeviceIndexPartsRef partsRef() const;

    int device() const { return device_; }
    const EventTable &events() const { return *events_; }
    size_t eventCount() const { return events_->count(); }
    // The state after the last entry (the start when there is none).
    TracePoint end() const { return TracePoint::afterFirst(eventCount()); }

    // Allocations: ids are stable; those alive before the trace have no allocEvent.
    size_t allocationCount() const { return allocations_.size(); }
    const Allocation &allocation(AllocationId id) const { return allocations_[id.index()]; }
    AllocationDetail detail(AllocationId id) const;
    // detail(id).size alone: one load where the whole detail is four (scattered) and a lookup.
    uint64_t requestedBytes(AllocationId id) const
    {
        const Allocation &a = allocations_[id.index()];
        return a.fromBeforeTrace() ? detail(id).size : events_->size[a.allocEvent.index()];
    }
    // The allocation an alloc, free or annotate entry belongs to; none for other actions.
    AllocationId allocationOfEvent(EventId event) const { return eventAllocation_[event.index()]; }
    // The segment life a segment entry creates or ends; none for other actions.
    SegmentLifeId segmentLifeOfEvent(EventId event) const;

    uint64_t initialBytes() const { return initialBytes_; }
    uint32_t initialBlocks() const { return initialBlocks_; }
    uint64_t activeAt(TracePoint t) const { return t.isStart() ? initialBytes_ : activeAfter(t.lastEntry().index()); }
    uint64_t peakActiveBytes() const { return peakActive_; }
    // The first moment active bytes reach their peak: the start when no entry exceeds it.
    TracePoint peak() const { return peak_; }

    uint64_t startReservedBytes() const { return startReserved_; }
    uint64_t peakReservedBytes() const { return peakReserved_; }
    uint64_t reservedAt(TracePoint t) const;
    // Every change of reserved bytes: (event, reserved after it), in event order.
    std::span<const std::pair<EventId, uint64_t>> reservedChanges() const { return reservedChanges_; }

    const std::vector<SegmentLife> &segmentLives() const { return segments_.lives; }
    const SegmentLife &segmentLife(SegmentLifeId id) const { return segments_.lives[id.index()]; }
    // Segment entries and final segments the trace and the final state disagree on (0 and 0 for
    // a consistent file).
    uint64_t unexplainedSegmentEntries() const { return segments_.unexplainedEntries; }
    uint64_t unmatchedFinalSegments() const { return segments_.unmatchedFinalSegments; }

    // Allocations alive at t, in id order.
    std::vector<AllocationId> liveAt(TracePoint t) const;
    // Segment lives alive at t, and the live blocks with their state.
    std::vector<SegmentLifeId> segmentsAt(TracePoint t) const;
    std::vector<BlockAt> blocksAt(TracePoint t) const;

    // Entries of each action (by Action's value), counted where the entries are walked anyway:
    // a summary and the first frame read them instead of a pass of their own.
    using ActionCounts = std::array<uint64_t, kActionCount>;
    const ActionCounts &actionCounts() const { return actionCounts_; }
    std::vector<EventId> oomEvents() const;
    // Allocs at an address that was still in use (the earlier allocation's free was never recorded).
    size_t implicitEndCount() const { return implicitEnds_.size(); }
    // Profiler traces: bytes allocated before profiling began that no recorded free accounts for,
    // held by one synthetic allocation at address 0 (none when there is none).
    AllocationId preProfileAllocation() const { return preProfile_; }
    // Made by the trace without a stack in a file that records Python stacks: on autograd's
    // thread, where torch records none (attribution/StackEvidence's ThreadSides rule).
    bool madeOnAutogradThread(AllocationId id) const;

    // `annotate` entries on allocation `id`, oldest first (their user_metadata is the label).
    std::span<const std::pair<AllocationId, EventId>> annotationsOf(AllocationId id) const;
    std::vector<std::string> labelsOf(AllocationId id) const;
    StringId latestLabelOf(AllocationId id) const; // the newest label, "" when none
    // String ids from the allocation's alloc entry: 0 when unset or when the trace has no alloc
    // entry for it.
    StringId userMetadataOf(AllocationId id) const;
    StringId compileContextOf(AllocationId id) const;
    bool hasAnnotations() const { return !annotateEvents_.empty(); }
    std::span<const EventId> annotateEvents() const { return annotateEvents_; } // in event order
    // The mempool (index into Snapshot::pools) allocation `id` belongs to: its alloc entry's
    // pool_id, or (blocks older than the trace, files without pool_id) the pool of the final
    // segment holding it.
    PoolIndex poolOf(AllocationId id) const;
    // The mempool of segment life `life`: its final segment's, else its entries' pool_id; 0 for none.
    PoolIndex segmentPoolOf(SegmentLifeId life) const;
    // (event, allocation) pairs: the allocations an alloc event ended because their free was never
    // recorded (usually none). A view into the index; nothing is allocated.
    std::span<const std::pair<EventId, AllocationId>> endedBy(EventId allocEvent) const;
    // What event e changes in the live bytes: f(allocation, signed bytes) for each allocation it
    // starts or ends. The one replay rule for running totals kept outside the index.
    template <typename F>
    void forEachLiveChange(EventId e, F &&f) const
    {
        const AllocationId owner = eventAllocation_[e.index()];
        if (events_->action[e.index()] == Action::Alloc) {
            for (const auto &[event, ended] : endedBy(e))
                f(ended, -static_cast<int64_t>(requestedBytes(ended)));
            f(owner, static_cast<int64_t>(events_->size[e.index()]));
        } else if (events_->action[e.index()] == Action::FreeCompleted && !owner.isNone()) {
            f(owner, -static_cast<int64_t>(requestedBytes(owner)));
        }
    }

    static constexpr uint32_t kCheckpointEvery = 8192;
    // From this many entries the index's arrays are faulted in on another core.
    static constexpr size_t kFaultInElsewhereFrom = size_t{1} << 20;
    // Whether an index of this many entries puts part of its work (building or checking its
    // parts) on a second core: a long trace, and a second core to run on.
    static bool worksOnTwoCores(size_t entries);

private:
    // f(member, its part) for each member but the active bytes: the one list the index is taken
    // from its parts and given out as them by.
    template <typename Index, typename Parts, typename F>
    static void forEachPart(Index &index, Parts &parts, F &&f);
    template <typename Parts>
    Parts partsAs() const;
    void pairAllocations(const std::atomic<bool> *cancel);
    void addBlocksFromBeforeTrace(AddressMap &open);
    void addPreProfileAllocation();
    void computeTotals();
    void buildCheckpoints(const std::atomic<bool> *cancel);
    void poolsFromFinalSegments();
    AllocationId newInitialAllocation(uint64_t addr, uint64_t size, StreamIndex stream, StackId stack);

    const Snapshot &snapshot_;
    const EventTable *events_;
    EventTable empty_;
    int device_;
    PodArray<Allocation> allocations_;
    std::vector<std::pair<AllocationId, AllocationDetail>> initialDetails_; // sorted by allocation id
    PodArray<AllocationId> eventAllocation_; // per event: allocationOfEvent
    ActiveBytes active_; // relative to initialBytes_
    // The active bytes after entry `i`: never below zero, whatever the file says.
    uint64_t activeAfter(uint32_t i) const
    {
        const int64_t value = static_cast<int64_t>(initialBytes_) + active_[i];
        return value < 0 ? 0 : static_cast<uint64_t>(value);
    }
    uint64_t initialBytes_ = 0;
    uint32_t initialBlocks_ = 0;
    uint64_t peakActive_ = 0;
    TracePoint peak_ = TracePoint::start();
    uint64_t startReserved_ = 0;
    uint64_t peakReserved_ = 0;
    std::vector<std::pair<EventId, uint64_t>> reservedChanges_; // (event, reserved after it)
    SegmentLives segments_;
    std::vector<std::pair<EventId, AllocationId>> implicitEnds_; // (alloc event, allocation it ended)
    AllocationId preProfile_;
    bool pythonStacks_ = false; // some frame of the file is Python
    ActionCounts actionCounts_{};
    std::vector<std::pair<AllocationId, EventId>> annotations_; // (allocation, annotate event), sorted
    std::vector<EventId> annotateEvents_;
    std::vector<std::pair<AllocationId, PoolIndex>> pools_; // (allocation, pool index) not known from its entry, private pools only
    NestedLists<AllocationId> checkpoints_; // live allocations before event c*K
};

} // namespace memlens
