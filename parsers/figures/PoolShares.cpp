#include "figures/PoolShares.h"

#include "attribution/AllocationSite.h"

#include <algorithm>
#include <map>

namespace memlens {

namespace {

using PoolId = std::pair<int64_t, int64_t>;

bool stackMentions(const Snapshot &snapshot, StackId stack, std::string_view part)
{
    for (FrameId id : snapshot.stacks.at(stack)) {
        const Frame &f = snapshot.frames.at(id);
        if (snapshot.strings.at(f.file).find(part) != std::string_view::npos || snapshot.strings.at(f.name).find(part) != std::string_view::npos)
            return true;
    }
    return false;
}

// The stack of the pool's first segment: the earliest the trace reserves, else a final one's.
StackId firstSegmentStack(const Snapshot &snapshot, const DeviceIndex &index, PoolId pool)
{
    const std::vector<SegmentLife> &lives = index.segmentLives();
    EventId earliest = kNever;
    for (uint32_t i = 0; i < lives.size(); ++i) {
        const SegmentLife &life = lives[i];
        if (!life.fromBeforeTrace() && life.createdEvent < earliest &&
            snapshot.poolId(index.segmentPoolOf(SegmentLifeId(i))) == pool)
            earliest = life.createdEvent;
    }
    if (earliest != kNever && !snapshot.stacks.at(index.events().stack[earliest.index()]).empty())
        return index.events().stack[earliest.index()];
    for (const Segment &s : snapshot.segments) {
        if (s.device == index.device() && s.pool == pool && !snapshot.stacks.at(s.stack).empty())
            return s.stack;
    }
    return StackTable::kEmpty;
}

std::vector<PoolShare> finish(const Snapshot &snapshot, const DeviceIndex &index, std::map<PoolId, PoolShare> byPool)
{
    std::vector<PoolShare> out;
    for (auto &[id, share] : byPool) {
        share.pool = id;
        if (share.isPrivate()) {
            share.firstSegmentStack = firstSegmentStack(snapshot, index, id);
            share.madeBy = poolOrigin(snapshot, id, share.firstSegmentStack);
        }
        out.push_back(std::move(share));
    }
    return out; // std::map's order: (0, 0) first
}

} // namespace

std::string poolOrigin(const Snapshot &snapshot, PoolId pool, StackId stack)
{
    std::string what;
    if (stackMentions(snapshot, stack, "vllm") && (stackMentions(snapshot, stack, "sleep") || stackMentions(snapshot, stack, "cumem")))
        what = "vLLM's sleep-mode allocator (CuMemAllocator)";
    else if (stackMentions(snapshot, stack, "vllm"))
        what = "vLLM";
    else if (stackMentions(snapshot, stack, "torch/cuda/graphs.py") || stackMentions(snapshot, stack, "capture_begin") ||
             stackMentions(snapshot, stack, "CUDAGraph"))
        what = "CUDA graph capture";
    else if (stackMentions(snapshot, stack, "offload"))
        what = "an offload pool";
    else if (stackMentions(snapshot, stack, "use_mem_pool") || stackMentions(snapshot, stack, "MemPool"))
        what = "a torch.cuda.MemPool";
    else if (pool.second == 0)
        what = "a CUDA graph's private pool"; // torch numbers graph pools (n, 0)
    else
        what = "a torch.cuda.MemPool"; // and MemPool() (0, n)
    if (!snapshot.stacks.at(stack).empty()) {
        const AllocationSite site = allocationSite(snapshot, stack);
        if (!site.site.isNone())
            what += " at " + siteText(snapshot, site);
    }
    return what;
}

std::vector<PoolShare> poolSharesAtEnd(const Snapshot &snapshot, const DeviceIndex &index)
{
    std::map<PoolId, PoolShare> byPool;
    for (const Segment &s : snapshot.segments) {
        if (s.device != index.device())
            continue;
        PoolShare &share = byPool[s.pool];
        ++share.segments;
        share.reserved += s.totalSize;
        // As the device's final state counts it (finalState): blocks in use or awaiting their
        // free on another stream. torch's allocated_size leaves the latter out (its active_size
        // holds them), so the pools' sum fell short of the device's allocated bytes.
        if (s.blockCount == 0) {
            share.allocated += s.allocatedSize;
            continue;
        }
        for (uint32_t b = s.firstBlock; b < s.firstBlock + s.blockCount; ++b)
            share.allocated += snapshot.blocks[b].held() ? snapshot.blocks[b].size : 0;
    }
    return finish(snapshot, index, std::move(byPool));
}

std::vector<PoolShare> poolSharesAt(const Snapshot &snapshot, const DeviceIndex &index, const AllocatorState &state)
{
    std::map<PoolId, PoolShare> byPool;
    for (const StateSegment &s : state.segments) {
        PoolShare &share = byPool[s.pool];
        ++share.segments;
        share.reserved += s.size;
        share.allocated += s.allocated;
    }
    return finish(snapshot, index, std::move(byPool));
}

} // namespace memlens
