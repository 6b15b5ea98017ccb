#pragma once
// A value that changes at some of a trace's entries (reserved bytes, a pool's bytes): `start`
// before the first entry, then (entry, value after it) in entry order; its value at a moment.
#include "model/Ids.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>

namespace memlens {

inline uint64_t valueAt(std::span<const std::pair<EventId, uint64_t>> changes, uint64_t start, TracePoint t)
{
    // The last change among the entries applied, if any.
    auto it = std::upper_bound(changes.begin(), changes.end(), t, [](TracePoint key, const auto &change) { return key < TracePoint::after(change.first); });
    return it == changes.begin() ? start : std::prev(it)->second;
}

} // namespace memlens
