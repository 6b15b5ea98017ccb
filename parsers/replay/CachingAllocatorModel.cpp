#include "replay/CachingAllocatorModel.h"

#include <algorithm>
#include <bit>

namespace memlens {

namespace {

// torch's constants (CUDACachingAllocator.cpp).
constexpr uint64_t kMinBlockSize = 512;
constexpr uint64_t kSmallSize = 1ull << 20;
constexpr uint64_t kMinLargeAlloc = 10ull << 20;
constexpr uint64_t kRoundLarge = 2ull << 20;

uint64_t roundupPower2NextDivision(uint64_t size, uint64_t divisions)
{
    if (std::has_single_bit(size))
        return size;
    const uint64_t floor = std::bit_floor(size);
    const uint64_t division = floor >> (std::bit_width(divisions) - 1);
    if (division == 0)
        return floor << 1;
    const uint64_t roundFloor = size & ~(division - 1);
    return roundFloor == size ? size : roundFloor + division;
}

} // namespace

bool CachingAllocatorModel::BySize::operator()(uint32_t a, uint32_t b) const
{
    const Block &x = (*blocks)[a], &y = (*blocks)[b];
    if (x.stream != y.stream)
        return x.stream < y.stream;
    if (x.size != y.size)
        return x.size < y.size;
    return x.ptr < y.ptr;
}

bool CachingAllocatorModel::ByAddress::operator()(uint32_t a, uint32_t b) const
{
    const Block &x = (*blocks)[a], &y = (*blocks)[b];
    if (x.stream != y.stream)
        return x.stream < y.stream;
    return x.ptr < y.ptr;
}

CachingAllocatorModel::CachingAllocatorModel(AllocatorConfig config, std::optional<uint64_t> capacity,
                                             std::function<uint64_t(uint64_t)> placeSegment)
    : config_(config), capacity_(capacity), placeSegment_(std::move(placeSegment))
{
    blocks_.emplace_back(); // the search key
}

uint64_t CachingAllocatorModel::roundSize(uint64_t size, const AllocatorConfig &config)
{
    if (size < kMinBlockSize)
        return kMinBlockSize;
    const uint64_t divisions = config.divisionsFor(size);
    if (divisions > 1 && size > kMinBlockSize * divisions)
        return roundupPower2NextDivision(size, divisions);
    return kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

uint64_t CachingAllocatorModel::allocationSize(uint64_t size)
{
    if (size <= kSmallSize)
        return kSmallBuffer;
    if (size < kMinLargeAlloc)
        return kLargeBuffer;
    return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
}

std::vector<SegmentChange> CachingAllocatorModel::takeSegmentChanges()
{
    std::vector<SegmentChange> out;
    out.swap(changes_);
    return out;
}

uint32_t CachingAllocatorModel::newBlock(const Block &b)
{
    if (!freeSlots_.empty()) {
        const uint32_t id = freeSlots_.back();
        freeSlots_.pop_back();
        blocks_[id] = b;
        return id;
    }
    blocks_.push_back(b);
    return static_cast<uint32_t>(blocks_.size() - 1);
}

void CachingAllocatorModel::deleteBlock(uint32_t id)
{
    freeSlots_.push_back(id);
}

uint32_t CachingAllocatorModel::poolFor(uint64_t size, uint32_t mempool)
{
    auto it = poolsOfMempool_.find(mempool);
    if (it == poolsOfMempool_.end()) {
        const auto small = static_cast<uint32_t>(pools_.size());
        pools_.push_back(Pool{true, mempool, std::set<uint32_t, BySize>(BySize{&blocks_}), std::set<uint32_t, ByAddress>(ByAddress{&blocks_})});
        pools_.push_back(Pool{false, mempool, std::set<uint32_t, BySize>(BySize{&blocks_}), std::set<uint32_t, ByAddress>(ByAddress{&blocks_})});
        it = poolsOfMempool_.emplace(mempool, std::pair{small, small + 1}).first;
    }
    return size <= kSmallSize ? it->second.first : it->second.second;
}

void CachingAllocatorModel::insertIntoBlocks(uint32_t id)
{
    Pool &pool = pools_[blocks_[id].pool];
    blocks_[id].gcCountBase = pool.getFreeBlocksCalls;
    pool.blocks.insert(id);
}

uint32_t CachingAllocatorModel::malloc(uint64_t requested, uint64_t stream, uint32_t mempool)
{
    const uint64_t size = roundSize(requested, config_);
    Request r{size, allocationSize(size), stream, poolFor(size, mempool)};
    bool found = getFreeBlock(r);
    if (!found) {
        if (capacity_ && config_.garbageCollectionThreshold > 0.0)
            garbageCollectCachedBlocks();
        found = allocBlock(r) || (releaseAvailableCachedBlocks(r) && allocBlock(r));
        // torch skips the last retry while a graph is being captured, i.e. for private pools.
        if (!found && mempool == 0) {
            releaseCachedBlocks();
            found = allocBlock(r);
        }
    }
    if (!found)
        return kNone;
    return allocFoundBlock(r, shouldSplit(r.block, r.size));
}

void CachingAllocatorModel::free(uint32_t id)
{
    Block &b = blocks_[id];
    b.allocated = false;
    allocated_ -= b.size;
    const uint32_t prev = b.prev, next = b.next;
    tryMergeBlocks(id, prev);
    tryMergeBlocks(id, next);
    insertIntoBlocks(id);
}

void CachingAllocatorModel::emptyCache()
{
    releaseCachedBlocks();
}

bool CachingAllocatorModel::getFreeBlock(Request &r)
{
    Pool &pool = pools_[r.pool];
    if (capacity_ && config_.garbageCollectionThreshold > 0.0)
        ++pool.getFreeBlocksCalls;
    blocks_[0].stream = r.stream;
    blocks_[0].size = r.size;
    blocks_[0].ptr = 0;
    auto it = pool.blocks.lower_bound(0);
    if (it == pool.blocks.end() || blocks_[*it].stream != r.stream)
        return false;
    if (blocks_[*it].expandable != kNone) {
        if (config_.expandableSegments) {
            // The block before unmapped pages counts as the size it can grow to.
            auto expandableSize = [&](uint32_t id) {
                const Block &b = blocks_[id];
                return b.size + (b.next != kNone && !blocks_[b.next].mapped ? blocks_[b.next].size : 0);
            };
            auto next = std::next(it);
            while (blocks_[*it].expandable != kNone && next != pool.blocks.end() && blocks_[*next].stream == r.stream &&
                   expandableSize(*next) < expandableSize(*it))
                it = next++;
        } else {
            do
                ++it;
            while (it != pool.blocks.end() && blocks_[*it].expandable != kNone && blocks_[*it].stream == r.stream);
            if (it == pool.blocks.end() || blocks_[*it].stream != r.stream)
                return false;
        }
    }
    const uint64_t maxSplit = config_.maxSplitSize;
    if (r.size < maxSplit && blocks_[*it].size >= maxSplit)
        return false; // no oversize block for a request that could split
    if (r.size >= maxSplit && blocks_[*it].size >= r.size + config_.maxNonSplitRounding)
        return false; // oversized, beyond max_non_split_rounding_mb
    r.block = *it;
    pool.blocks.erase(it);
    return true;
}

bool CachingAllocatorModel::allocBlock(Request &r)
{
    if (capacity_ && reserved_ + r.allocSize > *capacity_)
        return false;
    if (config_.expandableSegments) {
        r.block = tryAllocateExpandableBlock(r);
        return r.block != kNone;
    }
    const uint64_t addr = newSegmentAddress(r.allocSize);
    Block b;
    b.ptr = addr;
    b.size = r.allocSize;
    b.stream = r.stream;
    b.pool = r.pool;
    r.block = newBlock(b);
    liveSegments_[addr] = r.allocSize;
    reserved_ += r.allocSize;
    changes_.push_back({SegmentChange::Alloc, addr, r.allocSize});
    return true;
}

uint64_t CachingAllocatorModel::newSegmentAddress(uint64_t size)
{
    if (placeSegment_) {
        const uint64_t a = placeSegment_(size);
        if (a != 0) {
            auto after = liveSegments_.lower_bound(a);
            const bool clearAfter = after == liveSegments_.end() || after->first >= a + size;
            const bool clearBefore = after == liveSegments_.begin() || std::prev(after)->first + std::prev(after)->second <= a;
            if (clearAfter && clearBefore)
                return a;
        }
    }
    const uint64_t a = nextMadeUpAddress_;
    nextMadeUpAddress_ += (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
    return a;
}

bool CachingAllocatorModel::shouldSplit(uint32_t id, uint64_t size) const
{
    const Block &b = blocks_[id];
    const uint64_t remaining = b.size - size;
    if (pools_[b.pool].small || config_.expandableSegments)
        return remaining >= kMinBlockSize;
    return size < config_.maxSplitSize && remaining > kSmallSize;
}

uint32_t CachingAllocatorModel::allocFoundBlock(Request &r, bool split)
{
    uint32_t id = r.block;
    if (split) {
        const uint32_t remaining = id;
        Block front;
        front.ptr = blocks_[remaining].ptr;
        front.size = r.size;
        front.stream = r.stream;
        front.pool = r.pool;
        front.expandable = blocks_[remaining].expandable;
        front.prev = blocks_[remaining].prev;
        front.next = remaining;
        id = newBlock(front);
        if (blocks_[id].prev != kNone)
            blocks_[blocks_[id].prev].next = id;
        blocks_[remaining].prev = id;
        blocks_[remaining].ptr += r.size;
        blocks_[remaining].size -= r.size;
        insertIntoBlocks(remaining);
    }
    blocks_[id].allocated = true;
    allocated_ += blocks_[id].size;
    return id;
}

uint64_t CachingAllocatorModel::tryMergeBlocks(uint32_t dst, uint32_t src)
{
    if (src == kNone || blocks_[src].allocated || blocks_[src].mapped != blocks_[dst].mapped)
        return 0;
    Pool &pool = pools_[blocks_[src].pool];
    if (blocks_[src].mapped)
        pool.blocks.erase(src);
    else
        pool.unmapped.erase(src);
    Block &d = blocks_[dst];
    const Block &s = blocks_[src];
    if (d.prev == src) {
        d.ptr = s.ptr;
        d.prev = s.prev;
        if (d.prev != kNone)
            blocks_[d.prev].next = dst;
    } else {
        d.next = s.next;
        if (d.next != kNone)
            blocks_[d.next].prev = dst;
    }
    const uint64_t subsumed = s.size;
    d.size += subsumed;
    deleteBlock(src);
    return subsumed;
}

std::vector<uint32_t> CachingAllocatorModel::seed(const SeedSegment &segment)
{
    const uint32_t mempool = segment.pool;
    poolFor(0, mempool); // creates the pools
    const auto pools = poolsOfMempool_.at(mempool);
    const uint32_t pool = segment.small ? pools.first : pools.second;
    std::vector<uint32_t> live;
    uint32_t prev = kNone;
    auto append = [&](uint64_t ptr, uint64_t size, bool allocated) {
        Block b;
        b.ptr = ptr;
        b.size = size;
        b.stream = segment.stream;
        b.pool = pool;
        b.prev = prev;
        b.allocated = allocated;
        const uint32_t id = newBlock(b);
        if (prev != kNone)
            blocks_[prev].next = id;
        prev = id;
        if (allocated) {
            allocated_ += size;
            live.push_back(id);
        }
        return id;
    };
    std::vector<uint32_t> freeParts;
    uint64_t at = segment.addr;
    const uint64_t end = segment.addr + segment.size;
    for (const auto &[addr, size] : segment.liveBlocks) {
        if (addr < at || addr + size > end) {
            live.push_back(kNone); // overlaps what is placed: the file disagrees with itself
            continue;
        }
        if (addr > at)
            freeParts.push_back(append(at, addr - at, false));
        append(addr, size, true);
        at = addr + size;
    }
    if (at < end)
        freeParts.push_back(append(at, end - at, false));
    for (uint32_t id : freeParts)
        insertIntoBlocks(id);
    liveSegments_[segment.addr] = segment.size;
    reserved_ += segment.size;
    return live;
}

} // namespace memlens
