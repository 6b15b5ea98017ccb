// CachingAllocatorModel's expandable segments: one address range per stream and pool, mapped in
// pages as it grows and unmapped page by page on release (torch's find_expandable_block,
// map_block, try_allocate_expandable_block, unmap_block).
#include "replay/CachingAllocatorModel.h"

#include <algorithm>

namespace memlens {

namespace {

// Address space of one expandable segment: torch reserves 1 1/8 of the device's memory; without
// a capacity, room for any device made so far.
constexpr uint64_t kExpandableAddressSpace = 1ull << 40;

} // namespace

uint32_t CachingAllocatorModel::findExpandableBlock(const Request &r)
{
    Pool &pool = pools_[r.pool];
    auto allocatable = [&](uint32_t id) { return id != kNone && !blocks_[id].allocated; };
    auto hasRoom = [&](uint32_t id) {
        uint64_t bytes = 0;
        while (bytes < r.size && allocatable(id)) {
            bytes += blocks_[id].size;
            id = blocks_[id].next;
        }
        return bytes >= r.size;
    };
    // The lowest address where free and unmapped blocks together have room.
    blocks_[0].stream = r.stream;
    blocks_[0].ptr = 0;
    for (auto it = pool.unmapped.lower_bound(0); it != pool.unmapped.end() && blocks_[*it].stream == r.stream; ++it) {
        uint32_t c = *it;
        if (allocatable(blocks_[c].prev))
            c = blocks_[c].prev;
        if (hasRoom(c))
            return c;
    }
    const uint64_t pageSize = pool.small ? kSmallBuffer : kLargeBuffer;
    const uint64_t space = capacity_ ? *capacity_ + *capacity_ / 8 : kExpandableAddressSpace;
    ExpandableSegment es;
    es.pageSize = pageSize;
    es.maxPages = (space + pageSize - 1) / pageSize;
    es.base = nextMadeUpAddress_;
    nextMadeUpAddress_ += es.maxPages * pageSize;
    expandable_.push_back(es);
    Block b;
    b.ptr = es.base;
    b.size = es.maxPages * pageSize;
    b.stream = r.stream;
    b.pool = r.pool;
    b.mapped = false;
    b.expandable = static_cast<uint32_t>(expandable_.size() - 1);
    const uint32_t id = newBlock(b);
    pool.unmapped.insert(id);
    return id;
}

bool CachingAllocatorModel::mapBlock(uint32_t id, uint64_t size)
{
    const ExpandableSegment &es = expandable_[blocks_[id].expandable];
    const uint64_t ptr = blocks_[id].ptr;
    const uint64_t begin = (ptr - es.base) / es.pageSize;
    const uint64_t end = (ptr + size - es.base + es.pageSize - 1) / es.pageSize;
    if (begin == end || end > es.maxPages)
        return false;
    const uint64_t mappedSize = (end - begin) * es.pageSize;
    if (capacity_ && reserved_ + mappedSize > *capacity_)
        return false; // cuMemCreate runs out of device memory
    Pool &pool = pools_[blocks_[id].pool];
    pool.unmapped.erase(id);
    blocks_[id].mapped = true;
    if (mappedSize < blocks_[id].size) {
        Block rest;
        rest.ptr = ptr + mappedSize;
        rest.size = blocks_[id].size - mappedSize;
        rest.stream = blocks_[id].stream;
        rest.pool = blocks_[id].pool;
        rest.mapped = false;
        rest.expandable = blocks_[id].expandable;
        rest.prev = id;
        rest.next = blocks_[id].next;
        const uint32_t restId = newBlock(rest);
        if (blocks_[restId].next != kNone)
            blocks_[blocks_[restId].next].prev = restId;
        blocks_[id].next = restId;
        pool.unmapped.insert(restId);
        blocks_[id].size = mappedSize;
    }
    tryMergeBlocks(id, blocks_[id].prev);
    tryMergeBlocks(id, blocks_[id].next);
    insertIntoBlocks(id);
    reserved_ += mappedSize;
    changes_.push_back({SegmentChange::Map, ptr, mappedSize});
    return true;
}

uint32_t CachingAllocatorModel::tryAllocateExpandableBlock(const Request &r)
{
    uint32_t c = findExpandableBlock(r);
    if (!blocks_[c].mapped && !mapBlock(c, std::min(blocks_[c].size, r.size)))
        return kNone;
    while (blocks_[c].size < r.size) {
        const uint64_t remaining = r.size - blocks_[c].size;
        const uint32_t next = blocks_[c].next;
        if (!mapBlock(next, std::min(remaining, blocks_[next].size)))
            return kNone;
        c = next;
    }
    pools_[r.pool].blocks.erase(c);
    return c;
}

void CachingAllocatorModel::unmapBlock(uint32_t id)
{
    const ExpandableSegment &es = expandable_[blocks_[id].expandable];
    const uint64_t ptr = blocks_[id].ptr, size = blocks_[id].size;
    const uint64_t begin = (ptr - es.base + es.pageSize - 1) / es.pageSize;
    const uint64_t end = (ptr + size - es.base) / es.pageSize;
    if (begin >= end)
        return; // no whole page is free
    Pool &pool = pools_[blocks_[id].pool];
    pool.blocks.erase(id);
    const uint64_t unmappedPtr = es.base + begin * es.pageSize;
    const uint64_t unmappedSize = (end - begin) * es.pageSize;
    auto freePart = [&](uint64_t partPtr, uint64_t partSize, uint32_t prev, uint32_t next) {
        Block b;
        b.ptr = partPtr;
        b.size = partSize;
        b.stream = blocks_[id].stream;
        b.pool = blocks_[id].pool;
        b.expandable = blocks_[id].expandable;
        b.prev = prev;
        b.next = next;
        const uint32_t part = newBlock(b);
        if (prev != kNone)
            blocks_[prev].next = part;
        if (next != kNone)
            blocks_[next].prev = part;
        insertIntoBlocks(part);
    };
    const uint64_t before = unmappedPtr - ptr;
    if (before > 0)
        freePart(ptr, before, blocks_[id].prev, id);
    const uint64_t after = size - before - unmappedSize;
    if (after > 0)
        freePart(unmappedPtr + unmappedSize, after, id, blocks_[id].next);
    blocks_[id].ptr = unmappedPtr;
    blocks_[id].size = unmappedSize;
    blocks_[id].mapped = false;
    tryMergeBlocks(id, blocks_[id].prev);
    tryMergeBlocks(id, blocks_[id].next);
    pool.unmapped.insert(id);
    reserved_ -= unmappedSize;
    changes_.push_back({SegmentChange::Unmap, unmappedPtr, unmappedSize});
}

} // namespace memlens
