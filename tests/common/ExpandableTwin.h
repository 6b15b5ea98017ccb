#pragma once
// A corpus run as it would have been recorded with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True:
// the same requests in the same order, through the caching allocator's model (replay/
// CachingAllocatorModel, which reproduces torch's decisions on every corpus run), written as torch
// writes such a file: segment_map / segment_unmap entries for the pages it maps and unmaps, the
// allocations at the addresses it gives them, and the final segments as the mapped ranges with
// their blocks. The corpus has no expandable-segments recording; this is its twin.
#include "SyntheticSnapshot.h"
#include "index/DeviceIndex.h"
#include "model/Snapshot.h"
#include "replay/CachingAllocatorModel.h"

#include <map>
#include <string>

inline SynthSnapshot expandableTwin(const memlens::Snapshot &snapshot, const memlens::DeviceIndex &index)
{
    using namespace memlens;
    AllocatorConfig config;
    config.expandableSegments = true;
    CachingAllocatorModel model(config, std::nullopt);
    SynthSnapshot twin;
    twin.allocConf = "expandable_segments:True";
    std::vector<SynthEntry> trace;
    std::map<uint64_t, uint64_t> mapped; // address -> size of each mapped range, merged
    std::map<uint32_t, uint32_t> blockOf; // allocation -> the model's block
    const EventTable &events = index.events();
    auto drain = [&](int64_t timeUs) {
        for (const SegmentChange &c : model.takeSegmentChanges()) {
            const bool map = c.kind == SegmentChange::Map || c.kind == SegmentChange::Alloc;
            trace.push_back({map ? "segment_map" : "segment_unmap", c.addr, c.size, timeUs, 0, -1});
            if (map) {
                // Adjacent mapped ranges are one segment, as torch's snapshot reports them.
                uint64_t start = c.addr, end = c.addr + c.size;
                if (auto next = mapped.find(end); next != mapped.end()) {
                    end += next->second;
                    mapped.erase(next);
                }
                if (auto after = mapped.lower_bound(start); after != mapped.begin() && std::prev(after)->first + std::prev(after)->second == start) {
                    start = std::prev(after)->first;
                    mapped.erase(std::prev(after));
                }
                mapped[start] = end - start;
                continue;
            }
            // An unmap cuts the ranges it covers; what lies either side stays mapped.
            const uint64_t cutStart = c.addr, cutEnd = c.addr + c.size;
            auto it = mapped.upper_bound(cutStart);
            if (it != mapped.begin())
                --it;
            while (it != mapped.end() && it->first < cutEnd) {
                const uint64_t start = it->first, end = it->first + it->second;
                it = mapped.erase(it);
                if (end <= cutStart)
                    continue;
                if (start < cutStart)
                    mapped[start] = cutStart - start;
                if (end > cutEnd)
                    mapped[cutEnd] = end - cutEnd;
            }
        }
    };
    for (uint32_t i = 0; i < events.count(); ++i) {
        const AllocationId id = index.allocationOfEvent(EventId(i));
        const int64_t t = events.timeUs[i];
        if (events.action[i] == Action::Alloc && !id.isNone()) {
            const uint32_t block = model.malloc(events.size[i], snapshot.streamValue(events.stream[i]), 0);
            drain(t);
            blockOf[id.index()] = block;
            trace.push_back({"alloc", model.blockAddress(block), events.size[i], t, snapshot.streamValue(events.stream[i]), -1});
        } else if ((events.action[i] == Action::FreeRequested || events.action[i] == Action::FreeCompleted) && !id.isNone() && blockOf.count(id.index())) {
            const uint32_t block = blockOf[id.index()];
            trace.push_back({events.action[i] == Action::FreeRequested ? "free_requested" : "free_completed", model.blockAddress(block), events.size[i], t,
                             snapshot.streamValue(events.stream[i]), -1});
            if (events.action[i] == Action::FreeCompleted) {
                model.free(block);
                blockOf.erase(id.index());
                drain(t);
            }
        }
    }
    // The final segments: each mapped range with the blocks still allocated in it, the rest free.
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> live; // address -> (block size, requested)
    for (const auto &[allocation, block] : blockOf)
        live[model.blockAddress(block)] = {model.blockSize(block), index.requestedBytes(AllocationId(allocation))};
    for (const auto &[start, size] : mapped) {
        SynthSegment segment;
        segment.address = start;
        segment.expandable = true;
        uint64_t at = start;
        for (auto it = live.lower_bound(start); it != live.end() && it->first < start + size; ++it) {
            if (it->first > at)
                segment.blocks.push_back({it->first - at, 0, "inactive", -1});
            segment.blocks.push_back({it->second.first, it->second.second, "active_allocated", -1});
            at = it->first + it->second.first;
        }
        if (at < start + size)
            segment.blocks.push_back({start + size - at, 0, "inactive", -1});
        twin.segments.push_back(segment);
    }
    twin.traces = {trace};
    return twin;
}
