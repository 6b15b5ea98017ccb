#include "memory/PrefaultAhead.h"

#include <algorithm>
#include <cstdint>
#include <sys/mman.h>

namespace memlens {

bool prefault(void *p, size_t bytes)
{
    constexpr uintptr_t kPage = 4096;
    const auto begin = reinterpret_cast<uintptr_t>(p) & ~(kPage - 1);
    const auto end = reinterpret_cast<uintptr_t>(p) + bytes;
    return end <= begin || ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_POPULATE_WRITE) == 0;
}

void PrefaultAhead::arm(std::vector<Column> columns, size_t rows)
{
    std::lock_guard lock(mutex_);
    columns_ = std::move(columns);
    rows_ = rows;
    faulted_ = 0;
    armed_ = true;
}

void PrefaultAhead::disarm()
{
    std::lock_guard lock(mutex_);
    armed_ = false;
}

void PrefaultAhead::ahead()
{
    std::lock_guard lock(mutex_);
    if (!armed_)
        return;
    const size_t want = std::min(written_.load(std::memory_order_relaxed) + kAheadRows, rows_);
    // In steps of a quarter of the distance: each call's work stays short.
    if (want < faulted_ + kAheadRows / 4)
        return;
    for (const Column &c : columns_) {
        if (!prefault(c.base + faulted_ * c.bytesPerRow, (want - faulted_) * c.bytesPerRow)) {
            armed_ = false; // not supported here, or out of memory: the writer faults them in itself
            return;
        }
    }
    faulted_ = want;
}

} // namespace memlens
