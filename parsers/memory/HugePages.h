#pragma once
// Transparent huge pages for large buffers. A reopen of a 12 M-entry trace touches about 700 MB
// of fresh memory; with 4 KiB pages the page faults alone took a third of it (on a 2-core VM,
// 2.8 s → 1.9 s with huge pages). Debian's default THP mode, "madvise", uses huge pages only
// where a program asks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

namespace memlens {

// Buffers smaller than this are left alone: huge pages would round them up.
constexpr size_t kHugePageAdviceBytes = size_t{4} << 20;

// Asks for huge pages on the 2 MiB-aligned interior of [p, p + bytes). Advice only: ignored
// where unsupported. It splits a malloc'd mapping in parts, so it is for buffers that are never
// realloc'd (realloc can then no longer move the mapping with mremap, and copies it).
inline void adviseHugePages(void *p, size_t bytes)
{
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    if (bytes < kHugePageAdviceBytes)
        return;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (end > begin)
        ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
}

// Growable buffers of kHugePageAdviceBytes or more live in mappings of their own, marked for huge
// pages as a whole, which mremap grows without copying. Their contents start zeroed.
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
    ::madvise(fresh, mappingLength(bytes), MADV_HUGEPAGE);
    if (usedBytes)
        std::memcpy(fresh, old, usedBytes);
    std::free(old);
    return fresh;
}

inline void releaseBuffer(void *p, size_t bytes, bool mapped)
{
    if (mapped)
        ::munmap(p, mappingLength(bytes));
    else
        std::free(p);
}

} // namespace memlens
