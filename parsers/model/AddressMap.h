#pragma once
// Open-addressing map from address to a 32-bit id, for pairing millions of alloc/free events
// without a node allocation per entry.
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
            if (slots_[i].value == kNone && !slots_[i].tomb)
                return kNone;
            if (slots_[i].value != kNone && slots_[i].key == key)
                return slots_[i].value;
        }
    }

    void set(uint64_t key, uint32_t value)
    {
        if ((used_ + 1) * 4 > slots_.size() * 3)
            grow();
        size_t tomb = SIZE_MAX;
        for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
            Slot &s = slots_[i];
            if (s.value != kNone && s.key == key) {
                s.value = value;
                return;
            }
            if (s.value == kNone && s.tomb && tomb == SIZE_MAX)
                tomb = i;
            if (s.value == kNone && !s.tomb) {
                Slot &target = slots_[tomb != SIZE_MAX ? tomb : i];
                if (!target.tomb)
                    ++used_;
                target = {key, value, false};
                ++size_;
                return;
            }
        }
    }

    void erase(uint64_t key)
    {
        if (slots_.empty())
            return;
        for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
            Slot &s = slots_[i];
            if (s.value == kNone && !s.tomb)
                return;
            if (s.value != kNone && s.key == key) {
                s.value = kNone;
                s.tomb = true;
                --size_;
                return;
            }
        }
    }

    size_t size() const { return size_; }

private:
    struct Slot {
        uint64_t key = 0;
        uint32_t value = kNone;
        bool tomb = false;
    };
    static size_t hash(uint64_t k)
    {
        k ^= k >> 33;
        k *= 0xFF51AFD7ED558CCDull;
        k ^= k >> 33;
        return static_cast<size_t>(k);
    }
    void grow()
    {
        std::vector<Slot> old;
        old.swap(slots_);
        // Double only when live entries fill the table; otherwise rebuilding clears tombstones.
        size_t capacity = old.empty() ? 1024 : (size_ * 2 > old.size() / 2 ? old.size() * 2 : old.size());
        slots_.assign(capacity, Slot{});
        mask_ = capacity - 1;
        used_ = size_ = 0;
        for (const Slot &s : old) {
            if (s.value != kNone)
                set(s.key, s.value);
        }
    }

    std::vector<Slot> slots_;
    size_t mask_ = 0;
    size_t used_ = 0; // live + tombstones
    size_t size_ = 0;
};

} // namespace memlens
