// The program's operator new: malloc, with huge pages asked for on large buffers (see
// HugePages.h), so that the std::vectors the load stages fill (tens of MB each on long runs)
// fault in 2 MiB at a time like PodArray's columns. Linked into the executables only (the
// memlens binary and the benchmarks), never into a library.
#include "memory/HugePages.h"

#include <cstdlib>
#include <new>

namespace {
void *allocateNoThrow(std::size_t bytes) noexcept
{
    void *p = std::malloc(bytes ? bytes : 1);
    if (p)
        memlens::adviseHugePages(p, bytes);
    return p;
}
// As the standard's operator new: the new-handler gets its chances before bad_alloc.
void *allocate(std::size_t bytes)
{
    void *p;
    while (!(p = allocateNoThrow(bytes))) {
        const std::new_handler handler = std::get_new_handler();
        if (!handler)
            throw std::bad_alloc();
        handler();
    }
    return p;
}
} // namespace

void *operator new(std::size_t bytes)
{
    return allocate(bytes);
}
void *operator new[](std::size_t bytes)
{
    return allocate(bytes);
}
void *operator new(std::size_t bytes, const std::nothrow_t &) noexcept
{
    return allocateNoThrow(bytes);
}
void *operator new[](std::size_t bytes, const std::nothrow_t &) noexcept
{
    return allocateNoThrow(bytes);
}
void operator delete(void *p) noexcept
{
    std::free(p);
}
void operator delete[](void *p) noexcept
{
    std::free(p);
}
void operator delete(void *p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete(void *p, const std::nothrow_t &) noexcept
{
    std::free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept
{
    std::free(p);
}
