#pragma once
// Reserved and allocated bytes split by memory pool, at the end (the final segments, each with
// its segment_pool_id) and at any event (the allocator state there), with a word on what made
// each private pool: CUDA graphs, a torch.cuda.MemPool, vLLM's sleep-mode allocator, an offload
// pool. A private pool can hold most of a device (a KV cache), so the summary names it first.
#include "index/AllocatorState.h"
#include "index/DeviceIndex.h"
#include "model/Snapshot.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memlens {

struct PoolShare {
    std::pair<int64_t, int64_t> pool{0, 0}; // (0, 0): the default pool
    uint64_t segments = 0;
    uint64_t reserved = 0;
    uint64_t allocated = 0; // the allocator's block sizes, as segment allocated_size counts them
    StackId firstSegmentStack = StackTable::kEmpty; // the frames that reserved its first segment
    std::string madeBy; // "CUDA graph capture at train.py:88:capture", "" for the default pool
    bool isPrivate() const { return pool != std::pair<int64_t, int64_t>{0, 0}; }
};

// By pool id, the default pool first; empty when the device has no segments.
std::vector<PoolShare> poolSharesAtEnd(const Snapshot &snapshot, const DeviceIndex &index);
std::vector<PoolShare> poolSharesAt(const Snapshot &snapshot, const DeviceIndex &index, const AllocatorState &state);

// What made a private pool, from the frames of its first segment and the id's convention
// (torch: graph pools are (n, 0), MemPool() is (0, n)).
std::string poolOrigin(const Snapshot &snapshot, std::pair<int64_t, int64_t> pool, StackId firstSegmentStack);

} // namespace memlens
