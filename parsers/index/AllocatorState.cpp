#include "index/AllocatorState.h"

#include "model/ByteFormat.h"

#include <algorithm>
#include <unordered_map>

namespace memlens {

namespace {
constexpr uint64_t kSmallRequest = 1ull << 20; // requests up to 1 MiB come from the small pool
} // namespace

uint64_t roundedBlockSize(uint64_t requested)
{
    return requested < 512 ? 512 : (requested + 511) / 512 * 512;
}

BlockSizes::BlockSizes(const Snapshot &snapshot, const DeviceIndex &index) : index_(index)
{
    for (const Segment &seg : snapshot.segments) {
        if (seg.device != index.device())
            continue;
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            const Block &block = snapshot.blocks[b];
            if (block.state != BlockState::Inactive)
                final_[block.address] = block.size;
        }
    }
}

uint64_t BlockSizes::of(AllocationId allocation) const
{
    if (index_.allocation(allocation).freeCompleted == kNever)
        if (auto it = final_.find(index_.detail(allocation).addr); it != final_.end())
            return it->second;
    return roundedBlockSize(index_.requestedBytes(allocation));
}

AllocatorState allocatorStateAt(const Snapshot &snapshot, const DeviceIndex &index, TracePoint at)
{
    AllocatorState state;
    state.at = at;
    for (SegmentLifeId id : index.segmentsAt(at)) {
        const SegmentLife &life = index.segmentLife(id);
        StateSegment seg;
        seg.life = id;
        seg.addr = life.addr;
        seg.size = life.size;
        seg.stream = life.stream;
        seg.large = life.large;
        seg.expandable = life.expandable;
        seg.pool = snapshot.poolId(index.segmentPoolOf(id));
        state.segments.push_back(std::move(seg));
    }
    std::sort(state.segments.begin(), state.segments.end(), [](const StateSegment &a, const StateSegment &b) { return a.addr < b.addr; });

    const BlockSizes blockSizes(snapshot, index);

    std::vector<std::vector<StateBlock>> used(state.segments.size());
    for (const BlockAt &live : index.blocksAt(at)) {
        const AllocationDetail d = index.detail(live.allocation);
        auto it = std::upper_bound(state.segments.begin(), state.segments.end(), d.addr,
                                   [](uint64_t addr, const StateSegment &s) { return addr < s.addr; });
        if (it == state.segments.begin())
            continue;
        --it;
        if (d.addr >= it->addr + it->size)
            continue; // outside every known segment (the trace lost its segment_alloc)
        StateBlock block{d.addr, blockSizes.of(live.allocation), d.size, live.pendingFree ? BlockState::ActivePendingFree : BlockState::ActiveAllocated,
                         live.allocation};
        used[static_cast<size_t>(it - state.segments.begin())].push_back(block);
    }
    for (size_t s = 0; s < state.segments.size(); ++s) {
        StateSegment &seg = state.segments[s];
        auto &blocks = used[s];
        std::sort(blocks.begin(), blocks.end(), [](const StateBlock &a, const StateBlock &b) { return a.addr < b.addr; });
        uint64_t cursor = seg.addr;
        const uint64_t end = seg.addr + seg.size;
        auto hole = [&](uint64_t from, uint64_t to) {
            if (to <= from)
                return;
            seg.blocks.push_back({from, to - from, 0, BlockState::Inactive, AllocationId::none()});
            seg.free += to - from;
            seg.largestFree = std::max(seg.largestFree, to - from);
        };
        for (size_t i = 0; i < blocks.size(); ++i) {
            StateBlock b = blocks[i];
            const uint64_t next = i + 1 < blocks.size() ? blocks[i + 1].addr : end;
            b.size = std::min(b.size, std::min(next, end) - b.addr); // never overlap the next block or leave the segment
            hole(cursor, b.addr);
            seg.blocks.push_back(b);
            seg.allocated += b.size;
            seg.requested += b.requested;
            seg.waste += b.size > b.requested ? b.size - b.requested : 0;
            if (b.state == BlockState::ActivePendingFree)
                state.pendingFree += b.size;
            cursor = b.addr + b.size;
        }
        hole(cursor, end);
        state.reserved += seg.size;
        state.allocated += seg.allocated;
        state.requested += seg.requested;
        state.waste += seg.waste;
        state.free += seg.free;
        state.largestFree = std::max(state.largestFree, seg.largestFree);
        state.blocks += blocks.size();
    }
    // Grouped as users think of them: default pool before private pools, large before small,
    // then stream and address.
    std::stable_sort(state.segments.begin(), state.segments.end(), [](const StateSegment &a, const StateSegment &b) {
        auto key = [](const StateSegment &s) { return std::make_tuple(s.pool, !s.large, s.stream); };
        return key(a) < key(b);
    });
    return state;
}

OomDiagnosis diagnoseOom(const DeviceIndex &index, EventId oomEvent, const AllocatorState &state)
{
    OomDiagnosis d;
    d.event = oomEvent;
    d.requested = index.events().size[oomEvent.index()];
    d.deviceFree = index.events().addr[oomEvent.index()];
    d.timeUs = index.events().timeUs[oomEvent.index()];
    const bool wantsLarge = d.requested > kSmallRequest;
    for (const StateSegment &seg : state.segments) {
        d.reservedFree += seg.free;
        d.reservedBytes += seg.size;
        if (seg.large != wantsLarge || seg.largestFree <= d.largestFreeBlock)
            continue;
        for (const StateBlock &b : seg.blocks) {
            if (b.state == BlockState::Inactive && b.size == seg.largestFree) {
                d.largestFreeBlock = b.size;
                d.largestFreeAddress = b.addr;
                break;
            }
        }
    }
    const uint64_t need = roundedBlockSize(d.requested);
    d.fragmentation = d.reservedFree >= need && d.largestFreeBlock < need;
    return d;
}

std::string OomDiagnosis::explanation() const
{
    const std::string req = formatBytes(requested), free = formatBytes(reservedFree), hole = formatBytes(largestFreeBlock);
    if (fragmentation) {
        return "Fragmentation: " + free + " sat free inside PyTorch's reserved segments, more than the " + req +
               " requested, but the largest free block was only " + hole +
               ". Try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (memlens replay FILE --alloc-conf "
               "expandable_segments:True predicts whether it fits) or allocating the largest long-lived tensors first; "
               "torch.cuda.empty_cache() cannot help, since torch frees every unused cached segment before it raises.";
    }
    return "Capacity: " + req + " was requested with only " + free + " free inside reserved segments (largest block " + hole +
           ") and no room to reserve more. Reduce what is live at this point: a smaller micro-batch with gradient "
           "accumulation, activation checkpointing, lower-precision weights or optimizer states, or a larger GPU.";
}

} // namespace memlens
