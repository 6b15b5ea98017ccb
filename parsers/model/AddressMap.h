#pragma once
// Open-addressing map from address to a 32-bit id, for pairing millions of alloc/free events
// without a node allocation per entry. Linear probing with backward-shift deletion: an erase
// moves the entries after it back instead of leaving a tombstone, so a trace's millions of
// erases never lengthen the probes (with tombstones, the table ran up to three quarters full
// of them, and every alloc's lookup of an address not yet open walked them).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace memlens {

class AddressMap {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    uint32_t find(uint64_t key) const
    {
        if (slots_.empty())
            return kNone;
        for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
            if (slots_[i].value == kNone)
                return kNone;
            if (slots_[i].key == key)
                return slots_[i].value;
        }
    }

    void set(uint64_t key, uint32_t value)
    {
        if ((size_ + 1) * 2 > slots_.size())
            grow();
        for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
            Slot &s = slots_[i];
            if (s.value == kNone) {
                s = {key, value};
                ++size_;
                return;
            }
            if (s.key == key) {
                s.value = value;
                return;
            }
        }
    }

    void erase(uint64_t key)
    {
        if (slots_.empty())
            return;
        size_t hole = hash(key) & mask_;
        for (;; hole = (hole + 1) & mask_) {
            if (slots_[hole].value == kNone)
                return;
            if (slots_[hole].key == key)
                break;
        }
        --size_;
        // Each later entry of the run whose home is not between the hole and itself moves into
        // the hole, which moves to where it was.
        for (size_t i = (hole + 1) & mask_;; i = (i + 1) & mask_) {
            if (slots_[i].value == kNone)
                break;
            const size_t home = hash(slots_[i].key) & mask_;
            if (((i - home) & mask_) >= ((i - hole) & mask_)) {
                slots_[hole] = slots_[i];
                hole = i;
            }
        }
        slots_[hole].value = kNone;
    }

    size_t size() const { return size_; }

private:
    struct Slot {
        uint64_t key = 0;
        uint32_t value = kNone;
    };
    static size_t hash(uint64_t k)
    {
        k ^= k >> 33;
        k *= 0xFF51AFD7ED558CCDull;
        k ^= k >> 33;
        return static_cast<size_t>(k);
    }
    // At most half full: a lookup of an absent address, what every alloc makes, stays short.
    void grow()
    {
        std::vector<Slot> old;
        old.swap(slots_);
        const size_t capacity = old.empty() ? 1024 : old.size() * 2;
        slots_.assign(capacity, Slot{});
        mask_ = capacity - 1;
        size_ = 0;
        for (const Slot &s : old) {
            if (s.value != kNone)
                set(s.key, s.value);
        }
    }

    std::vector<Slot> slots_;
    size_t mask_ = 0;
    size_t size_ = 0;
};

} // namespace memlens
