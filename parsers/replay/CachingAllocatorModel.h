#pragma once
// A model of one device's CUDACachingAllocator (c10/cuda/CUDACachingAllocator.cpp): the
// decisions that set reserved memory, followed line by line - size rounding, small and large
// pools per stream and private pool, best fit with the split and max_split_size rules, segment
// size rounding, expandable segments mapped in pages, and the release-and-retry before an OOM.
// No memory is touched: a segment is an address range the model makes up (or is given).
#include "replay/AllocatorConfig.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace memlens {

// What the model did to reserved memory, in the order it did it.
struct SegmentChange {
    enum Kind : uint8_t { Alloc, Free, Map, Unmap } kind;
    uint64_t addr;
    uint64_t size;
};

class CachingAllocatorModel {
public:
    static constexpr uint32_t kNone = UINT32_MAX;
    // torch's segment sizes (CUDACachingAllocator.cpp), and an expandable segment's page sizes:
    // 2 MiB for the small pool, 20 MiB for the large.
    static constexpr uint64_t kSmallBuffer = 2ull << 20;
    static constexpr uint64_t kLargeBuffer = 20ull << 20;

    // `capacity`: the most the allocator may reserve (set_per_process_memory_fraction's limit,
    // or the device's free memory); none = unlimited. `placeSegment(size)` may name the address
    // a new cudaMalloc'd segment gets (the recorded one, so ties in best fit break as they did);
    // 0 or an address that overlaps a live segment means "make one up".
    CachingAllocatorModel(AllocatorConfig config, std::optional<uint64_t> capacity,
                          std::function<uint64_t(uint64_t size)> placeSegment = {});

    // A block for `requested` bytes on `stream` in mempool `pool` (0 = the default pools), or
    // kNone when the allocator would raise OutOfMemoryError. The id is valid until free().
    uint32_t malloc(uint64_t requested, uint64_t stream, uint32_t pool);
    void free(uint32_t block);
    // torch.cuda.empty_cache(): every unsplit cached segment released, free pages unmapped.
    void emptyCache();
    // The state a truncated trace starts from: a segment reserved before the first entry, with
    // the blocks live in it then (address and rounded size, ascending, inside the segment).
    // Seeded as a cudaMalloc'd segment whatever the setting: how an expandable segment's pages
    // were mapped before the trace is not recorded. Returns the blocks' ids, in order (kNone for
    // one that overlaps another or leaves the segment).
    struct SeedSegment {
        uint64_t addr = 0;
        uint64_t size = 0;
        uint64_t stream = 0;
        uint32_t pool = 0;
        bool small = false;
        std::vector<std::pair<uint64_t, uint64_t>> liveBlocks;
    };
    std::vector<uint32_t> seed(const SeedSegment &segment);

    uint64_t reservedBytes() const { return reserved_; }
    uint64_t allocatedBytes() const { return allocated_; }
    uint64_t blockSize(uint32_t block) const { return blocks_[block].size; }
    uint64_t blockAddress(uint32_t block) const { return blocks_[block].ptr; }
    // Segment changes since the last call, oldest first.
    std::vector<SegmentChange> takeSegmentChanges();

    static uint64_t roundSize(uint64_t size, const AllocatorConfig &config);
    static uint64_t allocationSize(uint64_t size);

private:
    struct Block {
        uint64_t ptr = 0;
        uint64_t size = 0;
        uint64_t stream = 0;
        uint32_t pool = 0; // index into pools_
        uint32_t prev = kNone;
        uint32_t next = kNone;
        uint32_t expandable = kNone; // index into expandable_
        bool allocated = false;
        bool mapped = true;
        int64_t gcCountBase = 0;
    };
    struct BySize {
        const std::vector<Block> *blocks;
        bool operator()(uint32_t a, uint32_t b) const;
    };
    struct ByAddress {
        const std::vector<Block> *blocks;
        bool operator()(uint32_t a, uint32_t b) const;
    };
    struct Pool {
        bool small;
        uint32_t mempool;
        std::set<uint32_t, BySize> blocks;
        std::set<uint32_t, ByAddress> unmapped;
        int64_t getFreeBlocksCalls = 0;
    };
    struct ExpandableSegment {
        uint64_t base;
        uint64_t pageSize;
        uint64_t maxPages;
    };
    struct Request {
        uint64_t size;     // rounded
        uint64_t allocSize; // what a new segment would be
        uint64_t stream;
        uint32_t pool;
        uint32_t block = kNone;
    };

    uint32_t newBlock(const Block &b);
    void deleteBlock(uint32_t id);
    uint32_t poolFor(uint64_t size, uint32_t mempool);
    void insertIntoBlocks(uint32_t id);
    bool getFreeBlock(Request &r);
    bool allocBlock(Request &r);
    bool releaseAvailableCachedBlocks(const Request &r);
    void releaseCachedBlocks();
    void releaseBlocks(uint32_t pool);
    void releaseBlock(uint32_t id);
    void garbageCollectCachedBlocks();
    bool shouldSplit(uint32_t block, uint64_t size) const;
    uint32_t allocFoundBlock(Request &r, bool split);
    uint64_t tryMergeBlocks(uint32_t dst, uint32_t src);
    uint32_t findExpandableBlock(const Request &r);
    bool mapBlock(uint32_t id, uint64_t size);
    uint32_t tryAllocateExpandableBlock(const Request &r);
    void unmapBlock(uint32_t id);
    uint64_t newSegmentAddress(uint64_t size);

    AllocatorConfig config_;
    std::optional<uint64_t> capacity_;
    std::function<uint64_t(uint64_t)> placeSegment_;
    std::vector<Block> blocks_; // slot 0 is the search key
    std::vector<uint32_t> freeSlots_;
    std::vector<Pool> pools_;
    std::map<uint32_t, std::pair<uint32_t, uint32_t>> poolsOfMempool_; // mempool -> (small, large)
    std::vector<ExpandableSegment> expandable_;
    std::map<uint64_t, uint64_t> liveSegments_; // cudaMalloc'd: address -> size
    uint64_t nextMadeUpAddress_ = 1ull << 52;
    uint64_t reserved_ = 0;
    uint64_t allocated_ = 0;
    std::vector<SegmentChange> changes_;
};

} // namespace memlens
