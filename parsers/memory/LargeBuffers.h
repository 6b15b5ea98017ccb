#pragma once
// Large growable buffers (PodArray's) live in mappings of their own, with address room to grow
// in place, and whose pages start zeroed. They are not marked for transparent huge pages: with
// Debian's THP defaults a MADV_HUGEPAGE fault may compact memory on the faulting thread, and on
// this project's 2-core VM cold summaries and reopens of the 12 M-entry run were slower and
// wider spread with the advice than without it (see docs/bench.md, issue 55).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <sys/resource.h>

namespace memlens {

// Buffers from this size on are mappings of their own; smaller ones come from malloc.
constexpr size_t kOwnMappingBytes = size_t{4} << 20;

constexpr size_t kPageBytes = 4096;
// Longer buffers would wrap when rounded up to whole pages.
constexpr size_t kLargestBufferBytes = SIZE_MAX - (kPageBytes - 1);

inline size_t mappingLength(size_t bytes)
{
    return (bytes + kPageBytes - 1) & ~(kPageBytes - 1);
}

// Address room a new mapping takes beyond its bytes: growing within it touches nothing, where
// mremap moving a mapping made every page it held fault again at its first use after the move
// (on this project's VM ~7 us a page: a 1 GB trace's operators, ~80 ms).
inline size_t reservedLength(size_t bytes)
{
    constexpr size_t kLeastRoom = size_t{256} << 20, kGrowth = 8;
    const size_t need = mappingLength(bytes);
    return need > SIZE_MAX / kGrowth ? need : std::max(kLeastRoom, need * kGrowth);
}

struct Mapping {
    void *data;
    size_t length; // of the mapping, room included: what munmap releases
};

// Under an address-space limit (ulimit -v) the room would count as memory: none is taken.
inline bool addressSpaceUnlimited()
{
    static const bool unlimited = [] {
        rlimit limit{};
        return ::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur == RLIM_INFINITY;
    }();
    return unlimited;
}

// A mapping whose first `bytes` are usable. The room after them is PROT_NONE: neither memory
// nor, under strict overcommit, commit charge until growMapping makes it usable.
inline Mapping reserveMapping(size_t bytes)
{
    const size_t need = mappingLength(bytes), room = reservedLength(bytes);
    if (void *p = addressSpaceUnlimited() ? ::mmap(nullptr, room, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) : MAP_FAILED;
        p != MAP_FAILED) {
        if (::mprotect(p, need, PROT_READ | PROT_WRITE) == 0)
            return {p, room};
        ::munmap(p, room);
        return {nullptr, 0};
    }
    // No room (limited, or refused): the bytes alone.
    void *p = ::mmap(nullptr, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? Mapping{nullptr, 0} : Mapping{p, need};
}

// A mapping of at least `bytes` holding the first `usedBytes` of `old`, whose usable part is
// `oldBytes` long: `old` itself when its mapping (`oldLength` long, 0 when `old` is from malloc)
// has the room, else a new one (`old`'s pages moved there, or copied and `old` freed).
// {nullptr, 0} when out of memory, `old` left as it was.
inline Mapping growMapping(void *old, size_t oldLength, size_t oldBytes, size_t usedBytes, size_t bytes)
{
    if (oldLength >= mappingLength(bytes))
        return ::mprotect(old, mappingLength(bytes), PROT_READ | PROT_WRITE) == 0 ? Mapping{old, oldLength} : Mapping{nullptr, 0};
    const Mapping fresh = reserveMapping(bytes);
    if (!fresh.data || !oldLength) {
        if (fresh.data) {
            if (usedBytes)
                std::memcpy(fresh.data, old, usedBytes);
            std::free(old);
        }
        return fresh;
    }
    // The usable pages move without a copy; copied where mremap cannot take them at once.
    const size_t usable = mappingLength(oldBytes);
    if (::mremap(old, usable, usable, MREMAP_MAYMOVE | MREMAP_FIXED, fresh.data) == MAP_FAILED) {
        std::memcpy(fresh.data, old, usedBytes);
        ::munmap(old, oldLength);
    } else if (oldLength > usable) {
        ::munmap(static_cast<char *>(old) + usable, oldLength - usable);
    }
    return fresh;
}

// How much of a mapping push_back has faulted in at a time (prefault).
constexpr size_t kPopulateBytes = size_t{2} << 20;

// Faults in [p, p + bytes) at once, without writing to it: the kernel does in one call what
// first touches do a fault a page (on this project's VM a fault costs ~11 us, twice a page of
// the call). False where the kernel cannot (before 5.14); the pages then fault as they are written.
inline bool prefault(void *p, size_t bytes)
{
    const auto begin = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{kPageBytes - 1};
    const auto end = reinterpret_cast<uintptr_t>(p) + bytes;
    return end <= begin || ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_POPULATE_WRITE) == 0;
}

// prefault() for pages another thread will write: then a read of a byte a page from this one.
// On this project's VM a page's first touch from a program costs even once the kernel has
// faulted it in (as a hypervisor's shadow page tables would explain), and that cost is the
// process's, not the touching thread's: 64 MB populated and then written took the writer
// 119-165 ms, populated and read here first 3 ms. The loads are relaxed atomics: the writer may
// reach a page meanwhile, and what is read is not used.
inline bool faultInForWriter(void *p, size_t bytes)
{
    if (!prefault(p, bytes))
        return false;
    const auto begin = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{kPageBytes - 1};
    const auto end = reinterpret_cast<uintptr_t>(p) + bytes;
    char seen = 0;
    for (uintptr_t page = begin; page < end; page += kPageBytes)
        seen ^= __atomic_load_n(reinterpret_cast<const char *>(page), __ATOMIC_RELAXED);
    asm volatile("" : : "r"(seen));
    return true;
}

// `length`: the mapping's (growMapping), 0 for a buffer from malloc.
inline void releaseBuffer(void *p, size_t length)
{
    if (length)
        ::munmap(p, length);
    else
        std::free(p);
}

} // namespace memlens
