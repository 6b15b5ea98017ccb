#pragma once
// Growable array for trivially copyable element types. Large buffers grow in place, in address
// room of their own, where std::vector would copy them (a 12 M-entry trace would briefly need
// twice its memory) and malloc's mremap would move them.
// Large buffers are mappings of their own (memory/LargeBuffers.h), whose pages push_back has
// the kernel fault in a step at a time (prefault) rather than one fault a page.
#include "memory/LargeBuffers.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace memlens {

template <typename T>
class PodArray {
    static_assert(std::is_trivially_copyable_v<T>, "PodArray holds plain data only");

public:
    PodArray() = default;
    PodArray(const PodArray &other) { *this = other; }
    PodArray(PodArray &&other) noexcept { swap(other); }
    ~PodArray() { releaseBuffer(data_, mappedLength_); }

    PodArray &operator=(const PodArray &other)
    {
        if (this != &other) {
            clear();
            reserve(other.size_);
            if (other.size_)
                std::memcpy(data_, other.data_, other.size_ * sizeof(T));
            size_ = other.size_;
        }
        return *this;
    }
    PodArray &operator=(PodArray &&other) noexcept
    {
        swap(other);
        return *this;
    }

    void swap(PodArray &other) noexcept
    {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        std::swap(capacity_, other.capacity_);
        std::swap(mappedLength_, other.mappedLength_);
        std::swap(limit_, other.limit_);
    }

    // Inlined at every call: called, a value built in registers is stored for the call and read
    // back at once, which stalls store forwarding (a sixth of a pickle's decoding, by perf).
    [[gnu::always_inline]] void push_back(const T &value)
    {
        if (size_ >= limit_) [[unlikely]]
            grow();
        data_[size_++] = value;
    }

    void reserve(size_t capacity)
    {
        if (capacity <= capacity_)
            return;
        if (capacity > kLargestBufferBytes / sizeof(T))
            throw std::bad_alloc();
        const size_t bytes = capacity * sizeof(T);
        const bool mapped = mappedLength_ != 0;
        if (mapped || bytes >= kOwnMappingBytes) {
            const Mapping grown = growMapping(data_, mappedLength_, capacity_ * sizeof(T), size_ * sizeof(T), bytes);
            if (!grown.data)
                throw std::bad_alloc();
            if (!mapped)
                limit_ = size_; // a new mapping holds the elements so far
            data_ = static_cast<T *>(grown.data);
            mappedLength_ = grown.length;
            capacity_ = capacity;
            return;
        }
        void *grown = std::realloc(data_, bytes);
        if (!grown)
            throw std::bad_alloc();
        data_ = static_cast<T *>(grown);
        capacity_ = limit_ = capacity;
    }

    // A mapping of its own from the start, for an array that will grow large: grown from malloc,
    // its elements would be copied into a fresh mapping once past kOwnMappingBytes, on pages
    // first touched twice (a 1 GB trace's operators and memory events: ~2 % of its reading).
    void reserveOwnMapping() { reserve(std::max(capacity_, (kOwnMappingBytes + sizeof(T) - 1) / sizeof(T))); }

    // New elements are zero-filled.
    void resize(size_t size)
    {
        if (size_ == 0 && size > capacity_ && size * sizeof(T) >= kOwnMappingBytes) {
            // A new mapping's pages are zero already: no second pass over them.
            releaseBuffer(data_, mappedLength_);
            data_ = nullptr;
            capacity_ = 0;
            mappedLength_ = 0;
            reserve(size);
            size_ = size;
            return;
        }
        reserve(size);
        if (size > size_)
            std::memset(static_cast<void *>(data_ + size_), 0, (size - size_) * sizeof(T));
        size_ = size;
    }

    // New elements are left as they are: for a caller that writes every one of them next.
    void resizeForOverwrite(size_t size)
    {
        reserve(size);
        size_ = size;
    }

    // Its buffer is a mapping of its own (page-aligned, released with munmap), not malloc's.
    bool ownsMapping() const { return mappedLength_ != 0; }
    void clear() { size_ = 0; }
    void pop_back() { --size_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T &operator[](size_t i) { return data_[i]; }
    const T &operator[](size_t i) const { return data_[i]; }
    T &back() { return data_[size_ - 1]; }
    const T &back() const { return data_[size_ - 1]; }
    T *begin() { return data_; }
    T *end() { return data_ + size_; }
    const T *begin() const { return data_; }
    const T *end() const { return data_ + size_; }
    T *data() { return data_; }
    const T *data() const { return data_; }
    // Element-wise: the bytes of plain data (capacity is not part of the value).
    bool operator==(const PodArray &other) const
    {
        return size_ == other.size_ && (size_ == 0 || std::memcmp(data_, other.data_, size_ * sizeof(T)) == 0);
    }

private:
    [[gnu::noinline]] void grow()
    {
        if (size_ >= capacity_)
            reserve(capacity_ < 16 ? 16 : capacity_ + capacity_ / 2);
        if (!mappedLength_)
            return;
        // The next step of a mapping's pages at once (from where push_back will write next).
        const size_t from = std::max(limit_, size_);
        const size_t to = std::min(capacity_, from + std::max<size_t>(1, kPopulateBytes / sizeof(T)));
        prefault(data_ + from, (to - from) * sizeof(T));
        limit_ = to;
    }

    T *data_ = nullptr;
    size_t size_ = 0;
    size_t capacity_ = 0;
    size_t mappedLength_ = 0; // of data_'s mapping of its own (growMapping); 0: from malloc
    size_t limit_ = 0;    // push_back's next stop: capacity_, or in a mapping where its pages were faulted in to
};

} // namespace memlens
