#include "stitch/AllocatorImage.h"

#include <set>
#include <tuple>

namespace memlens {

AllocatorImage finalImage(const Snapshot &dump, int device, IdRemap &remap)
{
    AllocatorImage image;
    for (const Segment &seg : dump.segments) {
        if (seg.device != device)
            continue;
        image.segments.push_back({seg.address, seg.totalSize, seg.stream, seg.expandable});
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            const Block &block = dump.blocks[b];
            if (block.held())
                image.blocks.push_back({block.address, block.requestedSize, seg.stream, remap.stack(block.stack)});
        }
    }
    return image;
}

AllocatorImage imageBefore(const DeviceIndex &index, EventId event)
{
    AllocatorImage image;
    const TracePoint before = TracePoint::before(event);
    for (AllocationId id : index.liveAt(before)) {
        const AllocationDetail d = index.detail(id);
        image.blocks.push_back({d.addr, d.size, d.stream, d.stack});
    }
    for (SegmentLifeId life : index.segmentsAt(before)) {
        const SegmentLife &s = index.segmentLife(life);
        image.segments.push_back({s.addr, s.size, s.stream, s.expandable});
    }
    return image;
}

AllocatorImage remapped(AllocatorImage image, IdRemap &remap)
{
    for (ImageBlock &b : image.blocks)
        b.stack = remap.stack(b.stack);
    return image;
}

namespace {

void append(EventTable &trace, Action action, uint64_t addr, uint64_t size, StreamIndex stream, int64_t timeUs, StackId stack)
{
    trace.action.push_back(action);
    trace.addr.push_back(addr);
    trace.size.push_back(size);
    trace.stream.push_back(stream);
    trace.timeUs.push_back(timeUs);
    trace.stack.push_back(stack);
}

} // namespace

uint64_t appendBridge(EventTable &trace, const AllocatorImage &from, const AllocatorImage &to, int64_t timeUs, IdRemap &remap)
{
    const size_t before = trace.count();
    auto blockKeys = [](const AllocatorImage &image) {
        std::set<std::pair<uint64_t, uint64_t>> keys;
        for (const ImageBlock &b : image.blocks)
            keys.emplace(b.addr, b.size);
        return keys;
    };
    auto segmentKeys = [](const AllocatorImage &image) {
        std::set<std::tuple<uint64_t, uint64_t, uint64_t>> keys;
        for (const ImageSegment &s : image.segments)
            keys.emplace(s.addr, s.size, s.stream);
        return keys;
    };
    const auto fromBlocks = blockKeys(from), toBlocks = blockKeys(to);
    const auto fromSegments = segmentKeys(from), toSegments = segmentKeys(to);
    for (const ImageBlock &b : from.blocks) {
        if (!toBlocks.contains({b.addr, b.size}))
            append(trace, Action::FreeCompleted, b.addr, b.size, remap.streamOf(b.stream), timeUs, b.stack);
    }
    for (const ImageSegment &s : from.segments) {
        if (!toSegments.contains({s.addr, s.size, s.stream}))
            append(trace, s.expandable ? Action::SegmentUnmap : Action::SegmentFree, s.addr, s.size, remap.streamOf(s.stream), timeUs, StackTable::kEmpty);
    }
    for (const ImageSegment &s : to.segments) {
        if (!fromSegments.contains({s.addr, s.size, s.stream}))
            append(trace, s.expandable ? Action::SegmentMap : Action::SegmentAlloc, s.addr, s.size, remap.streamOf(s.stream), timeUs, StackTable::kEmpty);
    }
    for (const ImageBlock &b : to.blocks) {
        if (!fromBlocks.contains({b.addr, b.size}))
            append(trace, Action::Alloc, b.addr, b.size, remap.streamOf(b.stream), timeUs, b.stack);
    }
    return trace.count() - before;
}

} // namespace memlens
