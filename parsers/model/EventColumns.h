#pragma once
// An EventTable's columns, listed once as member pointers: the cache codec writes and reads them
// in this order and stitching copies them from a dump into the run, so a new column is added
// here and nowhere else.
#include "model/Snapshot.h"

#include <string_view>

namespace memlens {

// What a column's values are: plain figures, or ids into the snapshot's tables (stitching maps
// them into the run's; the cache checks they name something).
enum class ColumnValues : uint8_t { Plain, Stream, Stack, String, Pool };

// The dense columns, one value per entry: f(&EventTable::column, values).
template <typename F>
void forEachDenseColumn(F &&f)
{
    f(&EventTable::action, ColumnValues::Plain);
    f(&EventTable::addr, ColumnValues::Plain);
    f(&EventTable::size, ColumnValues::Plain);
    f(&EventTable::stream, ColumnValues::Stream);
    f(&EventTable::timeUs, ColumnValues::Plain);
    f(&EventTable::stack, ColumnValues::Stack);
}

// The sparse columns, (entry, value) pairs in entry order where the value is not the default:
// f(&EventTable::column, values, what), `what` naming one value in a sentence.
template <typename F>
void forEachSparseColumn(F &&f)
{
    f(&EventTable::otherNames, ColumnValues::String, std::string_view("a note"));
    f(&EventTable::compileContext, ColumnValues::String, std::string_view("a note"));
    f(&EventTable::userMetadata, ColumnValues::String, std::string_view("a note"));
    f(&EventTable::internalMetadata, ColumnValues::String, std::string_view("a note"));
    f(&EventTable::forwardFrames, ColumnValues::String, std::string_view("a note"));
    f(&EventTable::pool, ColumnValues::Pool, std::string_view("a pool id"));
    f(&EventTable::implausibleSizes, ColumnValues::String, std::string_view("an implausible size"));
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
