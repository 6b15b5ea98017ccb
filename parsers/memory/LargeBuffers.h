#pragma once
// Large growable buffers (PodArray's) live in mappings of their own, which mremap grows without
// copying and whose pages start zeroed. They are not marked for transparent huge pages: with
// Debian's THP defaults a MADV_HUGEPAGE fault may compact memory on the faulting thread, and on
// this project's 2-core VM cold summaries and reopens of the 12 M-entry run were slower and
// wider spread with the advice than without it (see docs/bench.md, issue 55).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

namespace memlens {

// Buffers from this size on are mappings of their own; smaller ones come from malloc.
constexpr size_t kOwnMappingBytes = size_t{4} << 20;

inline size_t mappingLength(size_t bytes)
{
    return (bytes + 4095) & ~size_t{4095};
}

// A mapping of at least `bytes` holding the first `usedBytes` of `old` (`oldBytes` long; a
// mapping when `oldMapped`, else from malloc, then freed). nullptr when out of memory, `old`
// left as it was.
inline void *growMapping(void *old, size_t oldBytes, bool oldMapped, size_t usedBytes, size_t bytes)
{
    if (oldMapped) {
        void *moved = ::mremap(old, mappingLength(oldBytes), mappingLength(bytes), MREMAP_MAYMOVE);
        return moved == MAP_FAILED ? nullptr : moved;
    }
    void *fresh = ::mmap(nullptr, mappingLength(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fresh == MAP_FAILED)
        return nullptr;
    if (usedBytes)
        std::memcpy(fresh, old, usedBytes);
    std::free(old);
    return fresh;
}

// How much of a mapping push_back has faulted in at a time (prefault).
constexpr size_t kPopulateBytes = size_t{2} << 20;

// Faults in [p, p + bytes) at once, without writing to it: the kernel does in one call what
// first touches do a fault a page (on this project's VM a fault costs ~11 us, twice a page of
// the call). False where the kernel cannot (before 5.14); the pages then fault as they are written.
inline bool prefault(void *p, size_t bytes)
{
    constexpr uintptr_t kPage = 4096;
    const auto begin = reinterpret_cast<uintptr_t>(p) & ~(kPage - 1);
    const auto end = reinterpret_cast<uintptr_t>(p) + bytes;
    return end <= begin || ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_POPULATE_WRITE) == 0;
}

inline void releaseBuffer(void *p, size_t bytes, bool mapped)
{
    if (mapped)
        ::munmap(p, mappingLength(bytes));
    else
        std::free(p);
}

} // namespace memlens
