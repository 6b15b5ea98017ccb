#include "memory/PrefaultAhead.h"
#include "memory/LargeBuffers.h"

#include <algorithm>

namespace memlens {

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
