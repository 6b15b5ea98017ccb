#pragma once
// Faults in the pages of columns being filled row by row, ahead of the writer, on another
// thread. The kernel zeroes each fresh page at its first touch: filling a 1 GB snapshot's event
// columns that way cost the decoding thread a fifth of its time, while the tokenizing thread
// waited for it. MADV_POPULATE_WRITE faults pages in without writing to them, so the other
// thread never races the writer over the contents; where the kernel lacks it (before 5.14),
// nothing is done. Reading each page as well (faultInForWriter, as the index's helper does)
// slowed the decode here: the thread that calls ahead() tokenizes, and has no time to spare.
#include "memory/LargeBuffers.h"

#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

namespace memlens {

class PrefaultAhead {
public:
    struct Column {
        char *base;
        size_t bytesPerRow;
        // Where an event column's rows are written: a narrow column's offsets, else its values.
        template <typename C>
        static Column of(C &c)
        {
            if constexpr (requires { c.offsetsForFilling(); })
                return {reinterpret_cast<char *>(c.offsetsForFilling().begin()), sizeof(*c.offsetsForFilling().begin())};
            else
                return {reinterpret_cast<char *>(c.begin()), sizeof(*c.begin())};
        }
    };
    // Writer: the columns hold room for `rows` rows at `base` and will not move until disarm().
    void arm(std::vector<Column> columns, size_t rows);
    // Writer: row `row` is written next, those before it are. Disarms before a row beyond the
    // room, which may move the columns.
    void writing(size_t row)
    {
        if (row == rows_)
            disarm();
        written_.store(row, std::memory_order_relaxed);
    }
    // Writer: before a column may move or be freed. Waits for a fault-in under way.
    void disarm();
    // Another thread: faults in the rows a little ahead of the written ones.
    void ahead();

    static constexpr size_t kAheadRows = size_t{1} << 18;

private:
    std::mutex mutex_;
    std::vector<Column> columns_;
    size_t rows_ = 0;      // reserved; written by the writer only, in arm()
    size_t faulted_ = 0;   // rows faulted in
    bool armed_ = false;
    std::atomic<size_t> written_{0};
};

} // namespace memlens
