#pragma once
// Pixel columns over a range of events split evenly, as the views lay them out when x counts
// events: each column's first and last event (inclusive, never empty; with more columns than
// events, neighbours repeat one).
#include "model/Ids.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace memlens {

inline std::vector<std::pair<EventId, EventId>> evenColumns(EventId first, EventId last, int columns)
{
    std::vector<std::pair<EventId, EventId>> ranges;
    const double span = static_cast<double>(last.index() - first.index() + 1);
    for (int c = 0; c < columns; ++c) {
        const auto lo = first.index() + static_cast<uint32_t>(span * c / columns);
        const auto next = first.index() + static_cast<uint32_t>(span * (c + 1) / columns);
        ranges.emplace_back(EventId(lo), EventId(std::max(lo, next == 0 ? 0 : next - 1)));
    }
    return ranges;
}

} // namespace memlens
