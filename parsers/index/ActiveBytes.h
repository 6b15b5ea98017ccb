#pragma once
// Active bytes after each entry, relative to those alive before the trace (known only once the
// trace is paired), in 4 bytes an entry instead of 8: a base per block of 256 entries and each
// entry's offset from it. A block whose values span 4 GiB or more keeps them whole, aside.
// 12 M entries: 96 MB → 49 MB, a twelfth of the cold summary's peak memory.
#include "model/PodArray.h"

#include <cstdint>

namespace memlens {

class ActiveBytes {
public:
    // Room for `n` entries; prefault() is true when the offsets' pages of `count` entries from
    // `from` (within that room) could be faulted in (memory/PrefaultAhead).
    void reserve(size_t n) { offsets_.reserve(n); }
    bool prefault(size_t from, size_t count);
    void push(int64_t delta)
    {
        pending_[fill_++] = delta;
        if (fill_ == kBlock)
            flush();
    }
    // After the last push.
    void finish()
    {
        if (fill_)
            flush();
    }
    int64_t operator[](size_t i) const
    {
        const Block &b = blocks_[i / kBlock];
        return b.wide == kNotWide ? b.base + offsets_[i] : wide_[b.wide + i % kBlock];
    }

    struct Block {
        int64_t base;  // the block's least value
        uint32_t wide; // where its values start in wide_, or kNotWide
    };
    // Its arrays as kept beside a cache entry, and back: fromParts throws std::invalid_argument
    // for arrays that are not those of `n` entries.
    const PodArray<uint32_t> &offsets() const { return offsets_; }
    const PodArray<Block> &blocks() const { return blocks_; }
    const PodArray<int64_t> &wide() const { return wide_; }
    static ActiveBytes fromParts(size_t n, PodArray<uint32_t> offsets, PodArray<Block> blocks, PodArray<int64_t> wide);

private:
    void flush();

    static constexpr size_t kBlock = 256;
    static constexpr uint32_t kNotWide = UINT32_MAX;
    PodArray<uint32_t> offsets_; // one per entry (0 in a wide block)
    PodArray<Block> blocks_;
    PodArray<int64_t> wide_;
    int64_t pending_[kBlock];
    size_t fill_ = 0;
};

} // namespace memlens
