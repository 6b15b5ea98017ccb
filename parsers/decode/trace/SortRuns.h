#pragma once
// Sorting of arrays that arrive as a few sorted runs (a profiler trace's operators and memory
// events), stably, by merging neighbouring runs.
#include <algorithm>
#include <vector>

namespace memlens {

// Merges the sorted runs [first, mid) and [mid, last) in place, stably, as std::inplace_merge
// does, but through `scratch`, kept between calls: inplace_merge took a fresh buffer each time,
// whose pages the kernel faulted in every time. Only the runs' overlap moves.
template <typename T, typename Before>
inline void mergeAdjacent(T *first, T *mid, T *last, Before before, std::vector<T> &scratch)
{
    // What of the left run is not after the right's first, and of the right not before the
    // left's last, stays where it is.
    first = std::upper_bound(first, mid, *mid, before);
    last = std::lower_bound(mid, last, *(mid - 1), before);
    if (first == mid || mid == last)
        return;
    if (mid - first <= last - mid) {
        // The left part goes aside; merged front to back, ties taken from it first.
        scratch.assign(first, mid);
        const T *a = scratch.data(), *aEnd = a + scratch.size();
        T *b = mid, *out = first;
        while (a != aEnd && b != last)
            *out++ = before(*b, *a) ? *b++ : *a++;
        std::copy(a, aEnd, out);
    } else {
        // The right part goes aside; merged back to front, ties taken from it last.
        scratch.assign(mid, last);
        const T *b = scratch.data() + scratch.size();
        T *a = mid, *out = last;
        while (b != scratch.data() && a != first)
            *--out = before(*(b - 1), *(a - 1)) ? *--a : *--b;
        std::copy_backward(static_cast<const T *>(scratch.data()), b, out);
    }
}

// torch writes each thread's operators as runs in order (the corpus trace's main thread: its
// operators, then its Python functions), and memory events nearly in order: merging sorts them
// in a pass or two where a full sort of a 1 GB trace's millions took 0.08 s; runs already in
// order are not merged. Very many runs are sorted as any array. Equal elements keep their order.
template <typename T, typename Before>
inline void sortRuns(T *first, T *last, Before before)
{
    constexpr size_t kMaxRuns = 1024;
    std::vector<T *> starts{first};
    for (T *i = first + (first != last); i < last && starts.size() <= kMaxRuns; ++i) {
        if (before(*i, *(i - 1)))
            starts.push_back(i);
    }
    if (starts.size() > kMaxRuns) {
        std::stable_sort(first, last, before);
        return;
    }
    starts.push_back(last);
    std::vector<T> scratch;
    // Neighbouring runs merged pairwise until one is left.
    while (starts.size() > 2) {
        std::vector<T *> merged;
        for (size_t k = 0; k + 1 < starts.size(); k += 2) {
            merged.push_back(starts[k]);
            if (k + 2 < starts.size())
                mergeAdjacent(starts[k], starts[k + 1], starts[k + 2], before, scratch);
        }
        merged.push_back(last);
        starts = std::move(merged);
    }
}

} // namespace memlens
