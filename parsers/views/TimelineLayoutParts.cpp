#include "views/TimelineLayout.h"

#include <algorithm>
#include <stdexcept>

namespace memlens {

namespace {

void require(bool holds, const char *what)
{
    if (!holds)
        throw std::invalid_argument(std::string("timeline layout: ") + what);
}

// Sorted by event, each a free the trace has (or kNever), the running sums never falling and
// never past the total: what aliveAfter's subtraction and binary search rely on.
void checkGhosts(const std::vector<std::pair<EventId, uint64_t>> &frees, uint64_t total, size_t events)
{
    for (size_t i = 0; i < frees.size(); ++i) {
        const auto &[event, sum] = frees[i];
        require(event == kNever || event.index() < events, "a ghost block freed by an entry the trace has not");
        require(i == 0 || (frees[i - 1].first <= event && frees[i - 1].second <= sum), "ghost blocks out of order");
    }
    require(frees.empty() || frees.back().second <= total, "ghost bytes past their total");
}

} // namespace

TimelineLayout::TimelineLayout(const DeviceIndex &index, TimelineLayoutParts parts) : index_(index)
{
    const auto n = static_cast<uint32_t>(index.eventCount());
    require(parts.leaves == std::max<uint32_t>(1, (n + kLeafEvents - 1) / kLeafEvents), "leaves for another trace");
    size_t nodes = 1;
    while (nodes < parts.leaves)
        nodes <<= 1;
    require(parts.tree.size() == 2 * nodes, "a tree of another size");
    for (const auto &list : parts.tree) {
        require(list.size() <= kPerNode, "a node past its size");
        for (AllocationId id : list)
            require(id.index() < index.allocationCount(), "an allocation the index has not");
    }
    require(parts.blockPeak.size() == (n + kMaxBlock - 1) / kMaxBlock, "block peaks for another trace");
    for (size_t b = 0; b < parts.blockPeak.size(); ++b)
        require(parts.blockPeak[b] / kMaxBlock == b && parts.blockPeak[b] < n, "a block's peak outside it");
    checkGhosts(parts.ghostFrees, parts.ghostTotal, n);
    checkGhosts(parts.defaultPoolGhostFrees, parts.defaultPoolGhostTotal, n);
    leaves_ = parts.leaves;
    tree_ = std::move(parts.tree);
    blockPeak_ = std::move(parts.blockPeak);
    blockPeakBytes_.resize(blockPeak_.size());
    for (size_t b = 0; b < blockPeak_.size(); ++b)
        blockPeakBytes_[b] = activeAfter(EventId(blockPeak_[b]));
    ghosts_.frees = std::move(parts.ghostFrees);
    ghosts_.total = parts.ghostTotal;
    defaultPoolGhosts_.frees = std::move(parts.defaultPoolGhostFrees);
    defaultPoolGhosts_.total = parts.defaultPoolGhostTotal;
}

template <typename Parts>
Parts TimelineLayout::partsAs() const
{
    return {leaves_, tree_, blockPeak_, ghosts_.frees, defaultPoolGhosts_.frees, ghosts_.total, defaultPoolGhosts_.total};
}

TimelineLayoutParts TimelineLayout::parts() const
{
    return partsAs<TimelineLayoutParts>();
}

TimelineLayoutPartsRef TimelineLayout::partsRef() const
{
    return partsAs<TimelineLayoutPartsRef>();
}

} // namespace memlens
