#pragma once
// A column of 64-bit figures in 4 bytes an entry where it can: per block of 256 entries, the
// block's first value and each entry's signed 32-bit difference from it (ActiveBytes does the
// same for its sums). Entry times within a block lie microseconds apart and most requests are
// under 2 GiB; a block whose values do not fit keeps them whole, aside. A 12 M-entry trace's
// times and sizes take 97 MB instead of 192 MB, and fresh pages to zero with them.
#include "model/PodArray.h"

#include <cstdint>
#include <iterator>
#include <type_traits>

namespace memlens {

template <typename T>
class NarrowColumn {
    static_assert(std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>);

public:
    static constexpr size_t kBlock = 256;
    static constexpr uint32_t kNotWide = UINT32_MAX;
    struct Block {
        T base;            // the block's first value
        uint32_t wide;     // where the block's values start in wide(), or kNotWide
        uint32_t zero = 0; // no padding: the cache writes blocks as bytes
    };

    // Differences in modular arithmetic: exact for any two 64-bit values that lie within 2^31.
    T operator[](size_t i) const
    {
        const Block &b = blocks_[i / kBlock];
        return b.wide == kNotWide ? static_cast<T>(static_cast<uint64_t>(b.base) + static_cast<uint64_t>(int64_t{offsets_[i]}))
                                  : wide_[b.wide + i % kBlock];
    }
    T back() const { return (*this)[size() - 1]; }

    [[gnu::always_inline]] void push_back(T value)
    {
        const size_t i = offsets_.size();
        if (i % kBlock == 0) {
            blocks_.push_back({value, kNotWide, 0});
            offsets_.push_back(0);
            return;
        }
        Block &b = blocks_.back();
        if (b.wide == kNotWide) {
            const auto d = static_cast<int64_t>(static_cast<uint64_t>(value) - static_cast<uint64_t>(b.base));
            if (d >= INT32_MIN && d <= INT32_MAX) {
                offsets_.push_back(static_cast<int32_t>(d));
                return;
            }
            widen(i);
        }
        wide_.push_back(value);
        offsets_.push_back(0);
    }

    size_t size() const { return offsets_.size(); }
    bool empty() const { return offsets_.empty(); }
    void reserve(size_t n)
    {
        offsets_.reserve(n);
        blocks_.reserve((n + kBlock - 1) / kBlock);
    }
    void clear()
    {
        offsets_.clear();
        blocks_.clear();
        wide_.clear();
    }
    // To `n` entries; new ones are 0.
    void resize(size_t n)
    {
        if (n >= size()) {
            reserve(n);
            while (size() < n)
                push_back(0);
            return;
        }
        NarrowColumn kept;
        kept.reserve(n);
        for (size_t i = 0; i < n; ++i)
            kept.push_back((*this)[i]);
        *this = std::move(kept);
    }

    // Reading in order, as a sorted range for lower_bound and the like.
    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = T;
        const_iterator() = default;
        const_iterator(const NarrowColumn *c, size_t i) : c_(c), i_(i) {}
        T operator*() const { return (*c_)[i_]; }
        T operator[](difference_type n) const { return (*c_)[i_ + n]; }
        const_iterator &operator++() { return ++i_, *this; }
        const_iterator operator++(int) { return {c_, i_++}; }
        const_iterator &operator--() { return --i_, *this; }
        const_iterator operator--(int) { return {c_, i_--}; }
        const_iterator &operator+=(difference_type n) { return i_ += n, *this; }
        const_iterator &operator-=(difference_type n) { return i_ -= n, *this; }
        const_iterator operator+(difference_type n) const { return {c_, i_ + n}; }
        friend const_iterator operator+(difference_type n, const_iterator it) { return it + n; }
        const_iterator operator-(difference_type n) const { return {c_, i_ - n}; }
        difference_type operator-(const_iterator o) const { return static_cast<difference_type>(i_) - static_cast<difference_type>(o.i_); }
        bool operator==(const const_iterator &o) const { return i_ == o.i_; }
        auto operator<=>(const const_iterator &o) const { return i_ <=> o.i_; }

    private:
        const NarrowColumn *c_ = nullptr;
        size_t i_ = 0;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

    // The storage as it is, for the cache: it writes the three arrays and reads them back
    // through adopt(), which checks them as untrusted input.
    const PodArray<int32_t> &offsets() const { return offsets_; }
    const PodArray<Block> &blocks() const { return blocks_; }
    const PodArray<T> &wide() const { return wide_; }
    PodArray<int32_t> &offsetsForFilling() { return offsets_; }
    // False, leaving the column empty, when the arrays do not describe a column: a block per
    // 256 offsets, each wide block's values within wide() and in order, nothing of wide() unused.
    bool adopt(PodArray<int32_t> offsets, PodArray<Block> blocks, PodArray<T> wide)
    {
        clear();
        const size_t n = offsets.size();
        if (blocks.size() != (n + kBlock - 1) / kBlock)
            return false;
        uint64_t used = 0;
        for (size_t k = 0; k < blocks.size(); ++k) {
            if (blocks[k].wide == kNotWide)
                continue;
            const uint64_t length = std::min<uint64_t>(kBlock, n - k * kBlock);
            if (blocks[k].wide != used || used + length > wide.size())
                return false;
            used += length;
        }
        if (used != wide.size())
            return false;
        offsets_ = std::move(offsets);
        blocks_ = std::move(blocks);
        wide_ = std::move(wide);
        return true;
    }

    // Value by value: two columns of the same figures may be blocked differently.
    bool operator==(const NarrowColumn &other) const
    {
        if (size() != other.size())
            return false;
        for (size_t i = 0; i < size(); ++i) {
            if ((*this)[i] != other[i])
                return false;
        }
        return true;
    }

private:
    // The block of entry `i` (not its first) keeps its values whole from now on.
    void widen(size_t i)
    {
        Block &b = blocks_.back();
        const size_t first = i - i % kBlock;
        const auto at = static_cast<uint32_t>(wide_.size());
        for (size_t j = first; j < i; ++j)
            wide_.push_back((*this)[j]);
        b.wide = at;
    }

    PodArray<int32_t> offsets_; // one per entry (0 in a wide block)
    PodArray<Block> blocks_;
    PodArray<T> wide_;
};

} // namespace memlens
