// CachingAllocatorModel giving memory back: what torch does before it raises an OOM
// (garbage collection, oversize blocks, every unsplit cached segment) and empty_cache().
#include "replay/CachingAllocatorModel.h"

#include <limits>
#include <vector>

namespace memlens {

bool CachingAllocatorModel::releaseAvailableCachedBlocks(const Request &r)
{
    const uint64_t maxSplit = config_.maxSplitSize;
    if (maxSplit == std::numeric_limits<uint64_t>::max())
        return false;
    Pool &pool = pools_[r.pool];
    const uint64_t target = r.size < maxSplit ? maxSplit : r.size;
    blocks_[0].stream = r.stream;
    blocks_[0].size = target;
    blocks_[0].ptr = 0;
    auto it = pool.blocks.lower_bound(0);
    if (it == pool.blocks.end() || blocks_[*it].stream != r.stream) {
        // No single block is large enough: release oversize blocks, largest first.
        if (it == pool.blocks.begin())
            return false;
        uint64_t released = 0;
        --it;
        while (released < target && blocks_[*it].size >= maxSplit && blocks_[*it].stream == r.stream && blocks_[*it].expandable == kNone) {
            const uint32_t cur = *it;
            released += blocks_[cur].size;
            if (it != pool.blocks.begin()) {
                --it;
                releaseBlock(cur);
            } else {
                releaseBlock(cur);
                break;
            }
        }
        return released >= target;
    }
    if (blocks_[*it].expandable != kNone)
        return false;
    releaseBlock(*it);
    return true;
}

void CachingAllocatorModel::releaseCachedBlocks()
{
    // The default pools only: a private pool is released when its graphs are, which no trace records.
    const auto pools = poolsOfMempool_.find(0);
    if (pools == poolsOfMempool_.end())
        return;
    releaseBlocks(pools->second.second);
    releaseBlocks(pools->second.first);
}

void CachingAllocatorModel::releaseBlocks(uint32_t poolIndex)
{
    Pool &pool = pools_[poolIndex];
    std::vector<uint32_t> toRelease, toUnmap;
    for (uint32_t id : pool.blocks) {
        if (blocks_[id].expandable != kNone)
            toUnmap.push_back(id);
        else if (blocks_[id].prev == kNone && blocks_[id].next == kNone)
            toRelease.push_back(id);
    }
    for (uint32_t id : toRelease)
        releaseBlock(id);
    for (uint32_t id : toUnmap) {
        unmapBlock(id);
        if (blocks_[id].prev == kNone && blocks_[id].next == kNone && !blocks_[id].mapped) {
            // The whole address range is unmapped: the segment goes.
            pools_[blocks_[id].pool].unmapped.erase(id);
            deleteBlock(id);
        }
    }
}

void CachingAllocatorModel::releaseBlock(uint32_t id)
{
    const Block &b = blocks_[id];
    reserved_ -= b.size;
    changes_.push_back({SegmentChange::Free, b.ptr, b.size});
    liveSegments_.erase(b.ptr);
    pools_[b.pool].blocks.erase(id);
    deleteBlock(id);
}

void CachingAllocatorModel::garbageCollectCachedBlocks()
{
    // Only with a limit (torch: set_per_process_memory_fraction), as in torch.
    const auto threshold = static_cast<uint64_t>(config_.garbageCollectionThreshold * double(*capacity_));
    if (reserved_ <= threshold)
        return;
    const uint64_t target = reserved_ - threshold;
    const auto pools = poolsOfMempool_.find(0);
    if (pools == poolsOfMempool_.end())
        return;
    Pool &large = pools_[pools->second.second];
    auto age = [&](uint32_t id) { return large.getFreeBlocksCalls - blocks_[id].gcCountBase; };
    auto unsplit = [&](uint32_t id) { return blocks_[id].prev == kNone && blocks_[id].next == kNone; };
    int64_t totalAge = 0;
    int64_t freeable = 0;
    for (uint32_t id : large.blocks) {
        if (unsplit(id)) {
            totalAge += age(id);
            ++freeable;
        }
    }
    uint64_t reclaimed = 0;
    bool freed = true;
    while (reclaimed < target && freed && freeable > 0) {
        const double ageThreshold = double(totalAge) / double(freeable);
        freed = false;
        const std::vector<uint32_t> ids(large.blocks.begin(), large.blocks.end());
        for (uint32_t id : ids) {
            if (unsplit(id) && double(age(id)) >= ageThreshold) {
                freed = true;
                reclaimed += blocks_[id].size;
                totalAge -= age(id);
                --freeable;
                releaseBlock(id);
            }
        }
    }
}

} // namespace memlens
