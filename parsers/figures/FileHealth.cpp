#include "figures/FileHealth.h"

#include "model/ByteFormat.h"

#include <algorithm>
#include <unordered_map>

namespace memlens {

bool looksLikeRingSize(uint64_t entries)
{
    if (entries < 10'000)
        return false;
    if (entries % 100'000 == 0 || (entries & (entries - 1)) == 0)
        return true;
    for (uint64_t p = 10'000; p <= entries; p *= 10)
        if (p == entries)
            return true;
    return false;
}

namespace {

std::string plural(uint64_t n, const char *one, const char *many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Unmatched frees: the first event at an address is a free (explained by a trace that starts
// late) or the address was allocated and freed before (a double free nothing explains).
struct UnmatchedFrees {
    uint64_t olderThanTrace = 0;
    uint64_t doubleFrees = 0;
    uint64_t firstDoubleFree = 0;
};

UnmatchedFrees unmatchedFrees(const DeviceIndex &index)
{
    UnmatchedFrees result;
    const EventTable &ev = index.events();
    // Frees that the index could not pair: their allocation is one it made up at the free.
    std::unordered_map<uint64_t, uint32_t> freedAt; // address → first such free event
    for (uint32_t i = 0; i < index.allocationCount(); ++i) {
        const AllocationId id(i);
        const Allocation &a = index.allocation(id);
        if (!a.fromBeforeTrace() || id == index.preProfileAllocation())
            continue;
        const EventId freeEvent = a.firstFree();
        if (freeEvent == kNever)
            continue;
        const uint32_t free = freeEvent.index();
        auto [it, inserted] = freedAt.emplace(ev.addr[free], free);
        if (!inserted) { // freed twice with no alloc between
            ++result.doubleFrees;
            result.firstDoubleFree = ev.addr[free];
            it->second = std::min(it->second, free);
        }
    }
    if (freedAt.empty())
        return result;
    std::unordered_map<uint64_t, uint32_t> firstAlloc;
    for (uint32_t e = 0; e < ev.count(); ++e) {
        if (ev.action[e] == Action::Alloc)
            if (auto it = freedAt.find(ev.addr[e]); it != freedAt.end())
                firstAlloc.emplace(ev.addr[e], e);
    }
    for (const auto &[addr, free] : freedAt) {
        auto it = firstAlloc.find(addr);
        if (it != firstAlloc.end() && it->second < free) {
            ++result.doubleFrees;
            result.firstDoubleFree = addr;
        } else {
            ++result.olderThanTrace;
        }
    }
    return result;
}

TraceCoverage traceCoverage(const Snapshot &snapshot, const DeviceIndex &index, const UnmatchedFrees &frees)
{
    TraceCoverage c;
    const EventTable &ev = index.events();
    for (uint32_t i = 0; i < index.allocationCount(); ++i) {
        const AllocationId id(i);
        if (index.allocation(id).fromBeforeTrace() && id != index.preProfileAllocation()) {
            ++c.ghostBlocks;
            c.ghostBytes += index.requestedBytes(id);
        }
    }
    if (ev.count() == 0 || !ev.allocatedAfter.empty()) // profiler traces start when profiling does
        return c;
    if (snapshot.facts.hasTimes)
        c.coversFromUs = ev.timeUs[0];
    if (frees.olderThanTrace)
        c.evidence.push_back(plural(frees.olderThanTrace, "free of an allocation", "frees of allocations") +
                             " the trace never saw allocated");
    // Ranges reserved before the first entry: the final segments run backwards through the trace
    // (SegmentLives), so a map or unmap inside memory the trace saw mapped is no evidence.
    uint64_t segmentsFreed = 0, segmentsOlder = 0;
    for (const SegmentLife &s : index.segmentLives()) {
        if (!s.fromBeforeTrace())
            continue;
        const bool released = s.releasedEvent != kNever &&
                              (ev.action[s.releasedEvent.index()] == Action::SegmentFree || ev.action[s.releasedEvent.index()] == Action::SegmentUnmap);
        ++(released ? segmentsFreed : segmentsOlder);
    }
    if (segmentsFreed)
        c.evidence.push_back(plural(segmentsFreed, "segment", "segments") + " released that the trace never saw reserved");
    if (segmentsOlder)
        c.evidence.push_back(plural(segmentsOlder, "segment", "segments") + " reserved before the first entry");
    if (snapshot.facts.hasTimes) {
        uint64_t older = 0;
        for (const PhaseMark &m : snapshot.phaseMarks)
            older += m.device == index.device() && m.timeUs < ev.timeUs[0];
        if (older)
            c.evidence.push_back(plural(older, "record_function mark", "record_function marks") + " older than the first entry");
    }
    if (looksLikeRingSize(ev.count()))
        c.evidence.push_back("exactly " + std::to_string(ev.count()) + " entries, a usual max_entries");
    c.truncated = !c.evidence.empty();
    return c;
}

// The trace's end against the final state: what is alive after the last entry sits in an
// allocated block of the final segments, and every allocated block holds something alive. A
// trimmed snapshot (segments cut away or emptied) or a file put together from two dumps fails it.
FileWarning endStateWarning(const Snapshot &snapshot, const DeviceIndex &index)
{
    FileWarning w{"allocations_disagree_with_segments", {}, 0};
    if (index.eventCount() == 0 || snapshot.facts.format == FileFormat::ChromeTrace || snapshot.categories)
        return w;
    std::unordered_map<uint64_t, uint64_t> held; // address → size of the final allocated blocks
    for (const Segment &seg : snapshot.segments) {
        if (seg.device != index.device())
            continue;
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            const Block &block = snapshot.blocks[b];
            if (block.held())
                held.emplace(block.address, block.size);
        }
    }
    uint64_t missing = 0, missingBytes = 0, firstMissing = 0;
    for (AllocationId id : index.liveAt(index.end())) {
        const AllocationDetail d = index.detail(id);
        if (held.erase(d.addr))
            continue;
        if (!missing++)
            firstMissing = d.addr;
        missingBytes += d.size;
    }
    uint64_t strayBytes = 0;
    for (const auto &[addr, size] : held)
        strayBytes += size;
    w.count = missing + held.size();
    if (missing)
        w.message = "the trace ends with " + formatBytes(missingBytes) + " in " + plural(missing, "allocation", "allocations") +
                    " that the final segments do not hold as allocated, first at " + formatAddress(firstMissing);
    if (!held.empty())
        w.message += (missing ? "; and the segments hold " : "the segments hold ") + formatBytes(strayBytes) + " in " +
                     plural(held.size(), "allocated block", "allocated blocks") + " that nothing alive at the trace's end holds";
    if (w.count)
        w.message += ": the file's parts come from different moments (a trimmed or merged snapshot); figures follow the trace";
    return w;
}

// What the final segments and their blocks say of themselves: blocks outside or overlapping,
// more bytes of blocks than the segment, a hole no block covers, segments overlapping, sizes past
// 1 PiB.
template <typename Add>
void segmentWarnings(const Snapshot &snapshot, int device, Add &add)
{
    uint64_t outside = 0, overlapping = 0, larger = 0, overlappingSegments = 0, implausible = 0, untiled = 0;
    std::string outsideAt, overlapAt, largerAt, segmentAt, implausibleAt, untiledAt;
    std::vector<std::pair<uint64_t, uint64_t>> ranges; // (address, end) of this device's segments
    for (uint32_t s = 0; s < snapshot.segments.size(); ++s) {
        const Segment &seg = snapshot.segments[s];
        if (seg.device != device)
            continue;
        ranges.emplace_back(seg.address, seg.address + seg.totalSize);
        if (std::binary_search(snapshot.implausibleSegments.begin(), snapshot.implausibleSegments.end(), SegmentId(s)) && !implausible++)
            implausibleAt = formatAddress(seg.address);
        std::vector<std::pair<uint64_t, uint64_t>> blocks;
        uint64_t sum = 0;
        // torch lists every block of a segment, free ones included, end to end from its address.
        uint64_t cursor = seg.address;
        bool tiles = seg.blockCount > 0;
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            const Block &block = snapshot.blocks[b];
            sum += block.size;
            if (block.address < seg.address || block.address - seg.address > seg.totalSize ||
                block.size > seg.totalSize - (block.address - seg.address)) {
                if (!outside++)
                    outsideAt = formatAddress(block.address) + " in the segment at " + formatAddress(seg.address);
            }
            blocks.emplace_back(block.address, block.address + block.size);
            tiles = tiles && block.address == cursor;
            cursor = block.address + block.size;
        }
        // Blocks outside it or larger than it are said above; this is the hole no block covers.
        const bool saidAbove = sum > seg.totalSize || std::any_of(blocks.begin(), blocks.end(), [&](const auto &b) {
                                   return b.first < seg.address || b.second > seg.address + seg.totalSize;
                               });
        if (seg.blockCount > 0 && !saidAbove && !(tiles && cursor == seg.address + seg.totalSize) && !untiled++)
            untiledAt = formatAddress(seg.address);
        if (sum > seg.totalSize && !larger++)
            largerAt = formatAddress(seg.address) + " (" + formatBytes(sum) + " of blocks in " + formatBytes(seg.totalSize) + ")";
        std::sort(blocks.begin(), blocks.end());
        for (size_t i = 1; i < blocks.size(); ++i) {
            if (blocks[i].first < blocks[i - 1].second && !overlapping++)
                overlapAt = formatAddress(blocks[i].first);
        }
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); ++i) {
        if (ranges[i].first < ranges[i - 1].second && !overlappingSegments++)
            segmentAt = formatAddress(ranges[i].first);
    }
    add("block_outside_segment", outside, plural(outside, "block lies", "blocks lie") + " outside their segment, first " + outsideAt);
    add("blocks_overlap", overlapping, plural(overlapping, "block overlaps", "blocks overlap") + " another block, first at " + overlapAt);
    add("blocks_larger_than_segment", larger, plural(larger, "segment holds", "segments hold") + " more bytes of blocks than it has, first " + largerAt);
    add("blocks_do_not_tile_segment", untiled,
        plural(untiled, "segment's blocks do", "segments' blocks do") + " not cover it end to end (a hole or a gap between them), first at " +
            untiledAt + ": its free space is unknown");
    add("segments_overlap", overlappingSegments,
        plural(overlappingSegments, "segment overlaps", "segments overlap") + " another segment, first at " + segmentAt);
    add("implausible_segment_size", implausible,
        plural(implausible, "segment", "segments") + " with a size beyond 1 PiB, read as 0 bytes, first at " + implausibleAt);
}

std::vector<FileWarning> fileWarnings(const Snapshot &snapshot, const DeviceIndex &index, const UnmatchedFrees &frees)
{
    std::vector<FileWarning> warnings;
    auto add = [&](const char *kind, uint64_t count, const std::string &message) {
        if (count)
            warnings.push_back({kind, message, count});
    };
    segmentWarnings(snapshot, index.device(), add);
    const EventTable &ev = index.events();
    if (!ev.implausibleSizes.empty()) {
        const auto &[event, text] = ev.implausibleSizes.front();
        add("implausible_entry_size", ev.implausibleSizes.size(),
            plural(ev.implausibleSizes.size(), "entry says", "entries say") + " a size beyond 1 PiB, read as 0 bytes, first entry " +
                std::to_string(event) + " (" + std::string(snapshot.strings.at(text)) + " bytes)");
    }
    if (index.implicitEndCount()) {
        bool anyFreeCompleted = false;
        for (uint32_t e = 0; e < ev.count() && !anyFreeCompleted; ++e)
            anyFreeCompleted = ev.action[e] == Action::FreeCompleted;
        add("allocated_twice", index.implicitEndCount(),
            plural(index.implicitEndCount(), "alloc", "allocs") + " at an address still in use without a recorded free" +
                (anyFreeCompleted ? std::string() : " (the trace has no free_completed entries: recorded with skip_actions?)") +
                "; each earlier allocation is ended there");
    }
    add("segments_disagree_with_trace", index.unexplainedSegmentEntries() + index.unmatchedFinalSegments(),
        plural(index.unexplainedSegmentEntries(), "segment entry", "segment entries") + " and " +
            plural(index.unmatchedFinalSegments(), "final segment", "final segments") +
            " that the trace and the final snapshot do not agree on; reserved bytes follow the trace");
    if (FileWarning end = endStateWarning(snapshot, index); end.count)
        warnings.push_back(std::move(end));
    add("malformed_memory_events", snapshot.facts.malformedMemoryEvents,
        plural(snapshot.facts.malformedMemoryEvents, "[memory] event", "[memory] events") +
            " of the trace lack Bytes or a Device Type (or give them as other than numbers) and are left out");
    add("no_addresses", snapshot.facts.noAddresses ? 1 : 0,
        "the trace's memory events have no addresses (torch <= 1.9): blocks cannot be told apart, so each free is paired with the "
        "latest allocation of its size; totals and the peak are the running sum of Bytes, single blocks' lifetimes are a guess");
    // Recorded with stacks=None (or a trace without with_stack): figures that read who made what
    // (categories, the setup, sites) have nothing to read, which is not the same as "none".
    add(kNoStacksWarning.data(), !snapshot.facts.hasFrames && index.allocationCount() > 0 ? 1 : 0,
        "the file records no stacks: who made each allocation is not recorded, so categories, the setup the advice reads and "
        "call sites are not recorded either (record with _record_memory_history(stacks=\"python\") or \"all\")");
    add("unexplained_frees", frees.doubleFrees,
        plural(frees.doubleFrees, "free", "frees") + " of an address already freed, which truncation does not explain, first " +
            formatAddress(frees.firstDoubleFree));
    return warnings;
}

} // namespace

FileHealth fileHealth(const Snapshot &snapshot, const DeviceIndex &index)
{
    const UnmatchedFrees frees = unmatchedFrees(index);
    return {traceCoverage(snapshot, index, frees), fileWarnings(snapshot, index, frees)};
}

} // namespace memlens
