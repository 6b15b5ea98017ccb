#include "index/DeviceIndex.h"

#include "attribution/FrameRole.h"

#include "model/ChangeSeries.h"
#include "memory/PrefaultAhead.h"
#include "memory/UsableCores.h"
#include "model/LoadError.h"

#include <algorithm>
#include <cstring>
#include <future>
#include <optional>

namespace memlens {

namespace {
void poll(const std::atomic<bool> *cancel)
{
    if (cancel && cancel->load(std::memory_order_relaxed))
        throw LoadCancelled();
}

// The allocation open at `addr` (AddressMap holds allocation indices), none when there is none.
AllocationId openAllocation(const AddressMap &open, uint64_t addr)
{
    const uint32_t found = open.find(addr);
    return found == AddressMap::kNone ? AllocationId::none() : AllocationId(found);
}
} // namespace

DeviceIndex::DeviceIndex(const Snapshot &snapshot, int device, const std::atomic<bool> *cancel)
    : snapshot_(snapshot), device_(device)
{
    events_ = device >= 0 && static_cast<size_t>(device) < snapshot.traces.size() ? &snapshot.traces[device] : &empty_;
    for (uint32_t f = 0; f < snapshot.frames.size() && !pythonStacks_; ++f) {
        const Frame &frame = snapshot.frames.at(FrameId(f));
        pythonStacks_ = isPythonRole(frameRole(snapshot.strings.at(frame.name), snapshot.strings.at(frame.file)));
    }
    const size_t n = events_->count();
    eventAllocation_.resizeForOverwrite(n);
    active_.reserve(n);
    // Sized once: growing it by doubling copied it, and touched twice its memory, on a long run.
    // Room for each entry and final block to start one (only what is written becomes memory),
    // so that it never moves.
    const auto allocs = static_cast<size_t>(std::count(events_->action.begin(), events_->action.end(), Action::Alloc));
    allocations_.reserve(n + snapshot.blocks.size() + 64);
    // The kernel zeroes each fresh page at its first touch (~200 MB for 12 M entries): the other
    // core faults these in and touches them ahead of this one (faultInForWriter: the pairing of
    // the 12 M-entry run 0.555 -> 0.385 s), a few MB of each array in the order the pairing
    // fills them, then builds the segment lives (they read the entries only) while it goes on.
    // With one core to run on, the segment lives and the totals wait their turn here instead.
    const bool beside = worksOnTwoCores(n);
    std::future<std::optional<SegmentLives>> segments;
    if (n >= kFaultInElsewhereFrom) {
        segments = std::async(std::launch::async, [this, n, allocs, beside] {
            constexpr size_t kStep = size_t{1} << 18; // entries
            for (size_t from = 0; from < n; from += kStep) {
                const size_t rows = std::min(kStep, n - from);
                const size_t made = from * allocs / n, makes = (from + rows) * allocs / n - made;
                if (!active_.prefault(from, rows) || !faultInForWriter(eventAllocation_.begin() + from, rows * sizeof(AllocationId)) ||
                    !faultInForWriter(allocations_.begin() + made, makes * sizeof(Allocation)))
                    break; // not supported here, or out of memory: the pairing faults them in itself
            }
            return beside ? std::optional(buildSegmentLives(snapshot_, device_, *events_)) : std::nullopt;
        });
    }
    pairAllocations(cancel);
    std::optional<SegmentLives> built = segments.valid() ? segments.get() : std::nullopt;
    segments_ = built ? std::move(*built) : buildSegmentLives(snapshot, device_, *events_);
    poll(cancel);
    // The totals and the checkpoints read different members: on two cores for a long trace.
    std::future<void> totals;
    if (beside)
        totals = std::async(std::launch::async, [this] { computeTotals(); });
    else
        computeTotals();
    buildCheckpoints(cancel);
    if (totals.valid())
        totals.get();
}

bool DeviceIndex::worksOnTwoCores(size_t entries)
{
    return entries >= kFaultInElsewhereFrom && usableCores() >= 2;
}

AllocationId DeviceIndex::newInitialAllocation(uint64_t addr, uint64_t size, StreamIndex stream, StackId stack)
{
    const AllocationId id(static_cast<uint32_t>(allocations_.size()));
    allocations_.push_back(Allocation{});
    const uint64_t streamValue = snapshot_.streamValue(stream);
    initialDetails_.emplace_back(id, AllocationDetail{addr, size, streamValue, stack});
    return id;
}

void DeviceIndex::pairAllocations(const std::atomic<bool> *cancel)
{
    const EventTable &ev = *events_;
    const auto n = static_cast<uint32_t>(ev.count());
    AddressMap open;
    int64_t delta = 0; // relative to the (not yet known) bytes alive before the trace
    auto openAt = [&](uint64_t addr) { return openAllocation(open, addr); };
    ActionCounts counts{};
    for (uint32_t i = 0; i < n; ++i) {
        if ((i & 0x3FFFF) == 0)
            poll(cancel);
        ++counts[static_cast<size_t>(ev.action[i])];
        switch (ev.action[i]) {
        case Action::Alloc: {
            if (const AllocationId prev = openAt(ev.addr[i]); !prev.isNone()) {
                // The free was not recorded (skip_actions or a lost entry): end it here.
                allocations_[prev.index()].freeCompleted = EventId(i);
                implicitEnds_.emplace_back(EventId(i), prev);
                delta -= static_cast<int64_t>(requestedBytes(prev));
            }
            const auto id = static_cast<uint32_t>(allocations_.size());
            allocations_.push_back(Allocation{EventId(i), kNever, kNever});
            open.set(ev.addr[i], id);
            eventAllocation_[i] = AllocationId(id);
            delta += static_cast<int64_t>(ev.size[i]);
            break;
        }
        case Action::FreeRequested: {
            AllocationId id = openAt(ev.addr[i]);
            if (id.isNone()) {
                id = newInitialAllocation(ev.addr[i], ev.size[i], ev.stream[i], StackTable::kEmpty);
                open.set(ev.addr[i], id.index());
            }
            allocations_[id.index()].freeRequested = EventId(i);
            eventAllocation_[i] = id;
            break;
        }
        case Action::FreeCompleted: {
            AllocationId id = openAt(ev.addr[i]);
            if (id.isNone())
                id = newInitialAllocation(ev.addr[i], ev.size[i], ev.stream[i], StackTable::kEmpty);
            else
                open.erase(ev.addr[i]);
            allocations_[id.index()].freeCompleted = EventId(i);
            eventAllocation_[i] = id;
            delta -= static_cast<int64_t>(requestedBytes(id));
            break;
        }
        case Action::Annotate: {
            // It labels the allocation live at addr; one older than the trace is alive from the start.
            AllocationId id = openAt(ev.addr[i]);
            if (id.isNone()) {
                id = newInitialAllocation(ev.addr[i], ev.size[i], ev.stream[i], StackTable::kEmpty);
                open.set(ev.addr[i], id.index());
            }
            annotations_.emplace_back(id, EventId(i));
            annotateEvents_.push_back(EventId(i));
            eventAllocation_[i] = id;
            break;
        }
        default:
            eventAllocation_[i] = AllocationId::none(); // written here, not filled first: its pages are faulted in once
            break;
        }
        active_.push(delta);
    }
    actionCounts_ = counts;
    active_.finish();
    addBlocksFromBeforeTrace(open);
    addPreProfileAllocation();
    std::stable_sort(annotations_.begin(), annotations_.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    if (!snapshot_.facts.hasPoolIds && snapshot_.pools.size() > 1)
        poolsFromFinalSegments();
    std::sort(pools_.begin(), pools_.end());
    for (const auto &[id, d] : initialDetails_) {
        initialBytes_ += d.size;
        ++initialBlocks_;
    }
}

// Blocks in use at the end that no alloc event explains were alive before recording began.
void DeviceIndex::addBlocksFromBeforeTrace(AddressMap &open)
{
    auto openAt = [&](uint64_t addr) { return openAllocation(open, addr); };
    for (const Segment &seg : snapshot_.segments) {
        if (seg.device != device_)
            continue;
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            const Block &block = snapshot_.blocks[b];
            if (!block.held())
                continue;
            const PoolIndex poolIndex = snapshot_.poolIndex(seg.pool);
            if (const AllocationId known = openAt(block.address); !known.isNone()) {
                // Known only from an annotate entry: the final block has its stack.
                if (allocation(known).fromBeforeTrace() && allocation(known).freeCompleted == kNever) {
                    auto it = std::lower_bound(initialDetails_.begin(), initialDetails_.end(), known,
                                               [](const auto &entry, AllocationId key) { return entry.first < key; });
                    if (it != initialDetails_.end() && it->first == known && it->second.stack == StackTable::kEmpty)
                        it->second.stack = block.stack;
                    if (poolIndex != PoolIndex(0))
                        pools_.emplace_back(known, poolIndex);
                }
                continue;
            }
            const AllocationId id(static_cast<uint32_t>(allocations_.size()));
            allocations_.push_back(Allocation{});
            initialDetails_.emplace_back(id, AllocationDetail{block.address, block.requestedSize, seg.stream, block.stack});
            if (poolIndex != PoolIndex(0))
                pools_.emplace_back(id, poolIndex);
            open.set(block.address, id.index());
        }
    }
}

// A profiler trace states the allocator's total after each event: what was allocated before its
// first event (less what later frees already account for) was there all along.
void DeviceIndex::addPreProfileAllocation()
{
    const EventTable &ev = *events_;
    if (!ev.allocatedAfter.empty() && ev.count() > 0) {
        const uint64_t total = ev.allocatedAfter[0];
        const uint64_t before = ev.action[0] == Action::Alloc ? total - std::min(total, ev.size[0])
                                : ev.action[0] == Action::FreeCompleted ? total + ev.size[0]
                                                                        : total;
        uint64_t explained = 0;
        for (const auto &[id, d] : initialDetails_)
            explained += d.size;
        if (before > explained) {
            preProfile_ = AllocationId(static_cast<uint32_t>(allocations_.size()));
            allocations_.push_back(Allocation{});
            initialDetails_.emplace_back(preProfile_, AllocationDetail{0, before - explained, 0, StackTable::kEmpty});
        }
    }
}

void DeviceIndex::computeTotals()
{
    const EventTable &ev = *events_;
    const auto n = static_cast<uint32_t>(ev.count());
    peakActive_ = initialBytes_;
    peak_ = TracePoint::start();
    for (uint32_t i = 0; i < n; ++i) {
        if (ev.action[i] != Action::Alloc)
            continue;
        if (const uint64_t active = activeAfter(i); active > peakActive_) {
            peakActive_ = active;
            peak_ = TracePoint::after(EventId(i));
        }
    }

    if (!ev.reservedAfter.empty()) {
        // Profiler traces carry the allocator's own running total instead of segment events.
        startReserved_ = n ? ev.reservedAfter[0] : 0;
        peakReserved_ = startReserved_;
        for (uint32_t i = 0; i < n; ++i) {
            if (i == 0 || ev.reservedAfter[i] != ev.reservedAfter[i - 1])
                reservedChanges_.emplace_back(EventId(i), ev.reservedAfter[i]);
            peakReserved_ = std::max(peakReserved_, ev.reservedAfter[i]);
        }
        return;
    }
    startReserved_ = segments_.startReserved;
    peakReserved_ = startReserved_;
    reservedChanges_ = std::move(segments_.reservedChanges);
    for (const auto &[event, reserved] : reservedChanges_)
        peakReserved_ = std::max(peakReserved_, reserved);
}

void DeviceIndex::buildCheckpoints(const std::atomic<bool> *cancel)
{
    const EventTable &ev = *events_;
    const auto n = static_cast<uint32_t>(ev.count());
    std::vector<AllocationId> live;
    std::vector<uint32_t> position(allocations_.size(), UINT32_MAX); // in `live`, by allocation
    auto add = [&](AllocationId id) {
        if (position[id.index()] != UINT32_MAX)
            return;
        position[id.index()] = static_cast<uint32_t>(live.size());
        live.push_back(id);
    };
    auto remove = [&](AllocationId id) {
        const uint32_t p = position[id.index()];
        if (p == UINT32_MAX)
            return;
        live[p] = live.back();
        position[live[p].index()] = p;
        live.pop_back();
        position[id.index()] = UINT32_MAX;
    };
    for (const auto &[id, d] : initialDetails_)
        add(id);
    size_t nextImplicit = 0;
    auto snapshotLive = [&] {
        std::vector<AllocationId> sorted = live;
        std::sort(sorted.begin(), sorted.end());
        checkpoints_.push_back(sorted);
    };
    for (uint32_t i = 0; i < n; ++i) {
        if (i % kCheckpointEvery == 0) {
            poll(cancel);
            snapshotLive();
        }
        const AllocationId owner = eventAllocation_[i];
        if (ev.action[i] == Action::Alloc) {
            while (nextImplicit < implicitEnds_.size() && implicitEnds_[nextImplicit].first == EventId(i))
                remove(implicitEnds_[nextImplicit++].second);
            add(owner);
        } else if (ev.action[i] == Action::FreeCompleted) {
            remove(owner);
        }
    }
    if (n % kCheckpointEvery == 0)
        snapshotLive();
}

} // namespace memlens

namespace memlens {

AllocationDetail DeviceIndex::detail(AllocationId id) const
{
    const Allocation &a = allocation(id);
    if (a.fromBeforeTrace()) {
        auto it = std::lower_bound(initialDetails_.begin(), initialDetails_.end(), id,
                                   [](const auto &entry, AllocationId key) { return entry.first < key; });
        return it != initialDetails_.end() && it->first == id ? it->second : AllocationDetail{};
    }
    const EventTable &ev = *events_;
    const uint32_t e = a.allocEvent.index();
    const uint64_t stream = snapshot_.streamValue(ev.stream[e]);
    return {ev.addr[e], ev.size[e], stream, ev.stack[e]};
}

uint64_t DeviceIndex::reservedAt(TracePoint t) const
{
    return valueAt(reservedChanges_, startReserved_, t);
}

std::vector<AllocationId> DeviceIndex::liveAt(TracePoint at) const
{
    const TracePoint t = std::min(at, end());
    const uint32_t applied = t.entriesApplied();
    const uint32_t c = applied / kCheckpointEvery;
    std::vector<AllocationId> result;
    for (AllocationId id : checkpoints_[c]) {
        if (allocation(id).aliveAt(t))
            result.push_back(id);
    }
    const EventTable &ev = *events_;
    for (uint32_t j = c * kCheckpointEvery; j < applied; ++j) {
        const AllocationId born = eventAllocation_[j];
        if (ev.action[j] == Action::Alloc && allocation(born).aliveAt(t))
            result.push_back(born);
    }
    std::sort(result.begin(), result.end());
    return result;
}

std::vector<BlockAt> DeviceIndex::blocksAt(TracePoint t) const
{
    std::vector<BlockAt> blocks;
    for (AllocationId id : liveAt(t))
        blocks.push_back({id, allocation(id).freeRequestedAt() <= t});
    return blocks;
}

SegmentLifeId DeviceIndex::segmentLifeOfEvent(EventId event) const
{
    const auto &lives = segments_.lifeOfEvent;
    auto it = std::lower_bound(lives.begin(), lives.end(), event, [](const auto &entry, EventId key) { return entry.first < key; });
    return it != lives.end() && it->first == event ? it->second : SegmentLifeId::none();
}

std::vector<SegmentLifeId> DeviceIndex::segmentsAt(TracePoint t) const
{
    std::vector<SegmentLifeId> result;
    for (uint32_t id = 0; id < segments_.lives.size(); ++id) {
        if (segments_.lives[id].aliveAt(t))
            result.push_back(SegmentLifeId(id));
    }
    return result;
}

std::span<const std::pair<EventId, AllocationId>> DeviceIndex::endedBy(EventId allocEvent) const
{
    const auto [first, last] = std::equal_range(implicitEnds_.begin(), implicitEnds_.end(), std::make_pair(allocEvent, AllocationId()),
                                                [](const auto &a, const auto &b) { return a.first < b.first; });
    return {first, last};
}

std::span<const std::pair<AllocationId, EventId>> DeviceIndex::annotationsOf(AllocationId id) const
{
    const auto [first, last] = std::equal_range(annotations_.begin(), annotations_.end(), std::make_pair(id, EventId()),
                                                [](const auto &a, const auto &b) { return a.first < b.first; });
    return {first, last};
}

std::vector<std::string> DeviceIndex::labelsOf(AllocationId id) const
{
    std::vector<std::string> labels;
    for (const auto &[allocation, event] : annotationsOf(id))
        labels.emplace_back(snapshot_.strings.at(EventTable::sparseValueAt(events_->userMetadata, event)));
    return labels;
}

StringId DeviceIndex::latestLabelOf(AllocationId id) const
{
    const auto notes = annotationsOf(id);
    return notes.empty() ? StringTable::kEmpty : EventTable::sparseValueAt(events_->userMetadata, notes.back().second);
}

StringId DeviceIndex::userMetadataOf(AllocationId id) const
{
    const EventId e = allocation(id).allocEvent;
    return e.isNone() ? StringTable::kEmpty : EventTable::sparseValueAt(events_->userMetadata, e);
}

StringId DeviceIndex::compileContextOf(AllocationId id) const
{
    const EventId e = allocation(id).allocEvent;
    return e.isNone() ? StringTable::kEmpty : EventTable::sparseValueAt(events_->compileContext, e);
}

void DeviceIndex::poolsFromFinalSegments()
{
    // Files from before pool_id (CUDA graphs before 2026): as MemoryViz does, an allocation
    // belongs to the pool of the final segment holding its address; one whose segment was
    // released within the trace cannot be placed and stays in the default pool.
    struct Range {
        uint64_t begin, end;
        PoolIndex pool;
    };
    std::vector<Range> ranges;
    for (const Segment &seg : snapshot_.segments) {
        const PoolIndex pool = snapshot_.poolIndex(seg.pool);
        if (seg.device == device_ && pool != PoolIndex(0))
            ranges.push_back({seg.address, seg.address + seg.totalSize, pool});
    }
    if (ranges.empty())
        return;
    std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) { return a.begin < b.begin; });
    for (uint32_t id = 0; id < allocations_.size(); ++id) {
        if (allocations_[id].fromBeforeTrace())
            continue; // placed from their final block already
        const uint64_t addr = events_->addr[allocations_[id].allocEvent.index()];
        auto it = std::upper_bound(ranges.begin(), ranges.end(), addr, [](uint64_t a, const Range &r) { return a < r.begin; });
        if (it != ranges.begin() && addr < std::prev(it)->end)
            pools_.emplace_back(AllocationId(id), std::prev(it)->pool);
    }
}

PoolIndex DeviceIndex::segmentPoolOf(SegmentLifeId life) const
{
    if (life.isNone())
        return PoolIndex(0); // an entry of 0 bytes changes no segment
    const SegmentLife &s = segmentLife(life);
    if (!s.finalSegment.isNone())
        return snapshot_.poolIndex(snapshot_.segments[s.finalSegment.index()].pool);
    return events_->poolOf(!s.fromBeforeTrace() ? s.createdEvent : s.releasedEvent);
}

PoolIndex DeviceIndex::poolOf(AllocationId id) const
{
    const Allocation &a = allocation(id);
    if (!a.fromBeforeTrace() && snapshot_.facts.hasPoolIds)
        return events_->poolOf(a.allocEvent);
    auto it = std::lower_bound(pools_.begin(), pools_.end(), id, [](const auto &p, AllocationId key) { return p.first < key; });
    return it != pools_.end() && it->first == id ? it->second : PoolIndex(0);
}

bool DeviceIndex::madeOnAutogradThread(AllocationId id) const
{
    const Allocation &a = allocation(id);
    return pythonStacks_ && !a.fromBeforeTrace() && events_->stack[a.allocEvent.index()] == StackTable::kEmpty;
}

std::vector<EventId> DeviceIndex::oomEvents() const
{
    std::vector<EventId> result;
    if (actionCounts_[static_cast<size_t>(Action::Oom)] == 0)
        return result;
    // The action column is a byte an entry: memchr finds the few OOMs among millions.
    const auto *begin = reinterpret_cast<const unsigned char *>(events_->action.begin());
    const auto *end = begin + eventCount();
    for (const unsigned char *p = begin; (p = static_cast<const unsigned char *>(std::memchr(p, static_cast<int>(Action::Oom), static_cast<size_t>(end - p))));
         ++p)
        result.push_back(EventId(static_cast<uint32_t>(p - begin)));
    return result;
}

} // namespace memlens
