#pragma once
// An EventTable's columns, listed once as member pointers: the cache codec writes and reads them
// in this order and stitching copies them from a dump into the run, so a new column is added
// here and nowhere else. What a column's values name is its type: StackId, StringId, PoolIndex,
// StreamIndex are ids into the snapshot's tables (stitching maps each by its own remap, the cache
// checks each names a row of its table); other types are plain figures.
#include "model/Snapshot.h"

#include <string_view>

namespace memlens {

// The dense columns, one value per entry: f(&EventTable::column).
template <typename F>
void forEachDenseColumn(F &&f)
{
    f(&EventTable::action);
    f(&EventTable::addr);
    f(&EventTable::size);
    f(&EventTable::stream);
    f(&EventTable::timeUs);
    f(&EventTable::stack);
}

// The sparse columns, (entry, value) pairs in entry order where the value is not the default:
// f(&EventTable::column, what), `what` naming one value in a sentence.
template <typename F>
void forEachSparseColumn(F &&f)
{
    f(&EventTable::otherNames, std::string_view("a note"));
    f(&EventTable::compileContext, std::string_view("a note"));
    f(&EventTable::userMetadata, std::string_view("a note"));
    f(&EventTable::internalMetadata, std::string_view("a note"));
    f(&EventTable::forwardFrames, std::string_view("a note"));
    f(&EventTable::pool, std::string_view("a pool id"));
    f(&EventTable::implausibleSizes, std::string_view("an implausible size"));
}

// The allocator's own totals after each entry (profiler traces, which are never stitched; empty
// otherwise).
template <typename F>
void forEachTotalsColumn(F &&f)
{
    f(&EventTable::allocatedAfter);
    f(&EventTable::reservedAfter);
}

} // namespace memlens
