#include "views/TimelineLayout.h"

#include "views/EvenColumns.h"

#include <algorithm>
#include <stdexcept>
#include <future>

namespace memlens {

namespace {
// Larger size first, then lower id: a strict order, so that equal sizes are kept stably.
struct Larger {
    const std::vector<uint64_t> &size;
    bool operator()(AllocationId a, AllocationId b) const
    {
        return size[a.index()] != size[b.index()] ? size[a.index()] > size[b.index()] : a < b;
    }
};

// f(from, to, first) over [0, n): in two halves on two cores when `apart` (`first` true for the
// lower one), else at once.
template <typename F>
void inHalves(uint32_t n, bool apart, F &&f)
{
    if (!apart) {
        f(0u, n, true);
        return;
    }
    std::future<void> other = std::async(std::launch::async, [&] { f(n / 2, n, false); }); // waited for when it goes
    f(0u, n / 2, true);
}

// Keeps the k largest of `ids` (which has no duplicates), in no particular order.
void trimLargest(std::vector<AllocationId> &ids, size_t k, const std::vector<uint64_t> &size)
{
    if (ids.size() > k) {
        std::nth_element(ids.begin(), ids.begin() + static_cast<long>(k), ids.end(), Larger{size});
        ids.resize(k);
    }
}

// The k largest of two lists of the k largest, largest first: one linear merge (an allocation
// in both lists is adjacent in the merged order), not a sort.
void mergeLargest(const std::vector<AllocationId> &a, const std::vector<AllocationId> &b, size_t k, const std::vector<uint64_t> &size,
                  std::vector<AllocationId> &out)
{
    out.resize(a.size() + b.size());
    out.erase(std::unique(out.begin(), std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), Larger{size})), out.end());
    if (out.size() > k)
        out.resize(k);
}
} // namespace

bool TimelineLayout::aliveRange(AllocationId id, uint32_t &first, uint32_t &last) const
{
    const Allocation &a = index_.allocation(id);
    const auto n = static_cast<uint32_t>(index_.eventCount());
    if (n == 0)
        return false;
    first = a.fromBeforeTrace() ? 0 : a.allocEvent.index();
    if (a.freeCompleted == kNever)
        last = n - 1;
    else if (a.freeCompleted == EventId(0))
        return false; // alive only before the first event
    else
        last = a.freeCompleted.index() - 1;
    return first <= last;
}

TimelineLayout::TimelineLayout(const DeviceIndex &index, size_t parallelFrom) : index_(index)
{
    const auto n = static_cast<uint32_t>(index.eventCount());
    leaves_ = std::max<uint32_t>(1, (n + kLeafEvents - 1) / kLeafEvents);
    size_t nodes = 1;
    while (nodes < leaves_)
        nodes <<= 1;
    tree_.assign(2 * nodes, {});
    // A long run's 12 M allocations took 0.2 s on one core, on the window's way to its first
    // frame: the sizes, the leaves and the blocks' peaks go in halves on two.
    const bool apart = index.allocationCount() >= parallelFrom;
    std::vector<uint64_t> size(index.allocationCount());
    inHalves(static_cast<uint32_t>(size.size()), apart, [&](uint32_t from, uint32_t to, bool) {
        for (uint32_t i = from; i < to; ++i)
            size[i] = index.requestedBytes(AllocationId(i));
    });
    // Each half of the leaves sees every allocation and keeps those meeting its leaves; the
    // ghost blocks are counted by the lower half.
    auto fill = [&](uint32_t fromLeaf, uint32_t toLeaf, bool ghosts) {
        for (uint32_t i = 0; i < index.allocationCount(); ++i) {
            const AllocationId id(i);
            if (const Allocation &a = index.allocation(id); ghosts && a.fromBeforeTrace()) {
                ghosts_.add(a.freeCompleted, size[i]);
                if (index.poolOf(id) == PoolIndex(0))
                    defaultPoolGhosts_.add(a.freeCompleted, size[i]);
            }
            uint32_t start, end;
            if (!aliveRange(id, start, end))
                continue;
            for (uint32_t leaf = std::max(start / kLeafEvents, fromLeaf); leaf <= end / kLeafEvents && leaf < toLeaf; ++leaf) {
                auto &list = tree_[nodes + leaf];
                list.push_back(id);
                if (list.size() >= 4 * kPerNode)
                    trimLargest(list, kPerNode, size);
            }
        }
        for (uint32_t leaf = fromLeaf; leaf < toLeaf; ++leaf) {
            trimLargest(tree_[nodes + leaf], kPerNode, size);
            std::sort(tree_[nodes + leaf].begin(), tree_[nodes + leaf].end(), Larger{size});
        }
    };
    inHalves(leaves_, apart, fill);
    ghosts_.finish();
    defaultPoolGhosts_.finish();
    for (size_t node = nodes - 1; node >= 1; --node)
        mergeLargest(tree_[2 * node], tree_[2 * node + 1], kPerNode, size, tree_[node]);
    blockPeak_.resize((n + kMaxBlock - 1) / kMaxBlock);
    blockPeakBytes_.resize(blockPeak_.size());
    inHalves(static_cast<uint32_t>(blockPeak_.size()), apart, [&](uint32_t from, uint32_t to, bool) {
        for (uint32_t b = from; b < to; ++b) {
            uint32_t best = b * kMaxBlock;
            uint64_t bestBytes = activeAfter(EventId(best));
            for (uint32_t e = best + 1; e < std::min(n, (b + 1) * kMaxBlock); ++e) {
                if (const uint64_t bytes = activeAfter(EventId(e)); bytes > bestBytes) {
                    best = e;
                    bestBytes = bytes;
                }
            }
            blockPeak_[b] = best;
            blockPeakBytes_[b] = bestBytes;
        }
    });
}

void TimelineLayout::GhostBytes::add(EventId event, uint64_t size)
{
    frees.emplace_back(event, size);
    total += size;
}

void TimelineLayout::GhostBytes::finish()
{
    std::sort(frees.begin(), frees.end());
    for (size_t i = 1; i < frees.size(); ++i)
        frees[i].second += frees[i - 1].second;
}

uint64_t TimelineLayout::GhostBytes::aliveAfter(EventId e) const
{
    // Alive after e: freed by a later event, or never.
    const auto freedBy = std::upper_bound(frees.begin(), frees.end(), e, [](EventId event, const auto &f) { return event < f.first; });
    return freedBy == frees.begin() ? total : total - std::prev(freedBy)->second;
}

void TimelineLayout::collect(size_t node, uint32_t lo, uint32_t hi, uint32_t first, uint32_t last, size_t k,
                             std::vector<AllocationId> &out) const
{
    // [lo, hi] are leaf indices covered by `node`; [first, last] are leaf indices queried. A
    // node's list is largest first, so its first k are all it can add to the k largest.
    if (hi < first || lo > last || node >= tree_.size())
        return;
    if (first <= lo && hi <= last) {
        const auto &list = tree_[node];
        out.insert(out.end(), list.begin(), list.begin() + static_cast<long>(std::min(k, list.size())));
        return;
    }
    const uint32_t mid = lo + (hi - lo) / 2;
    collect(2 * node, lo, mid, first, last, k, out);
    collect(2 * node + 1, mid + 1, hi, first, last, k, out);
}

std::vector<AllocationId> TimelineLayout::largestIn(EventId firstEvent, EventId lastEvent, size_t k) const
{
    const uint32_t first = firstEvent.index(), last = lastEvent.index();
    std::vector<AllocationId> candidates;
    const size_t nodes = tree_.size() / 2;
    // Leaves wholly inside the window come from the tree; the partial leaves at its ends are
    // read exactly (what is live at their start plus what is born in them), so the answer is
    // exact at any zoom.
    const uint32_t fullFirst = (first + kLeafEvents - 1) / kLeafEvents;
    const uint32_t fullEnd = (last + 1) / kLeafEvents; // one past the last full leaf
    auto exact = [&](uint32_t a, uint32_t b) {
        for (AllocationId id : index_.liveAt(TracePoint::after(EventId(a))))
            candidates.push_back(id);
        for (uint32_t e = a + 1; e <= b; ++e) {
            if (index_.events().action[e] == Action::Alloc)
                candidates.push_back(index_.allocationOfEvent(EventId(e)));
        }
    };
    if (fullFirst < fullEnd) {
        collect(1, 0, static_cast<uint32_t>(nodes - 1), fullFirst, fullEnd - 1, k, candidates);
        if (first < fullFirst * kLeafEvents)
            exact(first, fullFirst * kLeafEvents - 1);
        if (fullEnd * kLeafEvents <= last)
            exact(fullEnd * kLeafEvents, last);
    } else {
        exact(first, last);
    }
    std::vector<AllocationId> result;
    for (AllocationId id : candidates) {
        uint32_t start, end;
        if (aliveRange(id, start, end) && start <= last && end >= first)
            result.push_back(id);
    }
    std::sort(result.begin(), result.end());
    result.erase(std::unique(result.begin(), result.end()), result.end());
    // Sizes looked up once (each lookup is a random read in a 12 M-row table), then only the
    // k largest are sorted.
    std::vector<std::pair<uint64_t, AllocationId>> sized(result.size());
    for (size_t i = 0; i < result.size(); ++i)
        sized[i] = {index_.requestedBytes(result[i]), result[i]};
    auto larger = [](const auto &a, const auto &b) { return a.first != b.first ? a.first > b.first : a.second < b.second; };
    if (sized.size() > k) {
        std::nth_element(sized.begin(), sized.begin() + static_cast<long>(k), sized.end(), larger);
        sized.resize(k);
    }
    std::sort(sized.begin(), sized.end(), larger);
    result.resize(sized.size());
    for (size_t i = 0; i < sized.size(); ++i)
        result[i] = sized[i].second;
    return result;
}

EventId TimelineLayout::peakIn(EventId firstEvent, EventId lastEvent) const
{
    const uint32_t last = lastEvent.index();
    uint32_t best = firstEvent.index();
    uint64_t bestBytes = activeAfter(firstEvent);
    uint32_t e = best;
    while (e <= last) {
        if (e % kMaxBlock == 0 && e + kMaxBlock - 1 <= last) {
            if (blockPeakBytes_[e / kMaxBlock] > bestBytes) {
                best = blockPeak_[e / kMaxBlock];
                bestBytes = blockPeakBytes_[e / kMaxBlock];
            }
            e += kMaxBlock;
        } else {
            if (const uint64_t bytes = activeAfter(EventId(e)); bytes > bestBytes) {
                best = e;
                bestBytes = bytes;
            }
            ++e;
        }
    }
    return EventId(best);
}

TimelineFrame TimelineLayout::layout(EventId firstEvent, EventId lastEvent, int columns, size_t maxBands,
                                     std::span<const PoolUsage> pools) const
{
    if (columns < 1 || index_.eventCount() == 0 || firstEvent > lastEvent)
        return {};
    return layoutColumns(evenColumns(firstEvent, lastEvent, columns), maxBands, pools);
}

TimelineFrame TimelineLayout::layoutColumns(const std::vector<ColumnRange> &ranges, size_t maxBands,
                                            std::span<const PoolUsage> pools) const
{
    TimelineFrame frame;
    if (ranges.empty() || index_.eventCount() == 0)
        return frame;
    const size_t columns = ranges.size();
    frame.columnEvent.assign(columns, EventId(0));
    frame.total.assign(columns, 0);
    frame.reserved.assign(columns, 0);
    frame.otherBottom.assign(columns, 0);
    frame.otherTop.assign(columns, 0);
    const EventId lastEvent(static_cast<uint32_t>(index_.eventCount() - 1));
    for (size_t c = 0; c < columns; ++c) {
        const EventId lo = std::min(ranges[c].first, lastEvent);
        const EventId hi = std::clamp(ranges[c].second, lo, lastEvent);
        const EventId e = peakIn(lo, hi);
        frame.columnEvent[c] = e;
        frame.total[c] = activeAfter(e);
        frame.reserved[c] = index_.reservedAt(TracePoint::after(e));
    }
    if (!std::is_sorted(frame.columnEvent.begin(), frame.columnEvent.end()))
        throw std::invalid_argument("timeline columns out of order");
    const EventId first = std::min(ranges.front().first, lastEvent);
    const EventId last = std::clamp(ranges.back().second, first, lastEvent);
    const std::vector<AllocationId> chosen = bandsIn(first, last, maxBands);
    frame.bands.resize(chosen.size());
    for (size_t i = 0; i < chosen.size(); ++i) {
        TimelineBand &band = frame.bands[i];
        band.allocation = chosen[i];
        band.size = index_.requestedBytes(chosen[i]);
        uint32_t start = 0, end = 0;
        if (!aliveRange(chosen[i], start, end))
            continue;
        const auto from = std::lower_bound(frame.columnEvent.begin(), frame.columnEvent.end(), EventId(start));
        const auto to = std::upper_bound(from, frame.columnEvent.end(), EventId(end));
        band.firstColumn = static_cast<size_t>(from - frame.columnEvent.begin());
        band.bottom.resize(static_cast<size_t>(to - from));
    }
    if (!pools.empty())
        stackPools(frame, pools);
    // The bytes drawn individually per column and region are summed with difference arrays, not
    // column by column; each region's folded band is what it holds less what is drawn.
    const size_t regions = frame.pools.size() + 1;
    auto regionOf = [&](const TimelineBand &b) { return b.region == TimelineBand::kDefaultPool ? regions - 1 : b.region; };
    std::vector<std::vector<int64_t>> individual(regions, std::vector<int64_t>(columns + 1, 0));
    std::vector<int64_t> individualGhosts(columns + 1, 0); // drawn in the default pool's region
    for (const TimelineBand &band : frame.bands) {
        individual[regionOf(band)][band.firstColumn] += static_cast<int64_t>(band.size);
        individual[regionOf(band)][band.endColumn()] -= static_cast<int64_t>(band.size);
        if (regionOf(band) == regions - 1 && index_.allocation(band.allocation).fromBeforeTrace()) {
            individualGhosts[band.firstColumn] += static_cast<int64_t>(band.size);
            individualGhosts[band.endColumn()] -= static_cast<int64_t>(band.size);
        }
    }
    const GhostBytes &ghosts = frame.pools.empty() ? ghosts_ : defaultPoolGhosts_;
    frame.otherGhostTop.assign(columns, 0);
    int64_t drawnGhosts = 0;
    std::vector<int64_t> running(regions, 0);
    std::vector<std::vector<uint64_t>> stack(regions, std::vector<uint64_t>(columns));
    for (size_t c = 0; c < columns; ++c) {
        uint64_t privateActive = 0;
        for (size_t r = 0; r + 1 < regions; ++r) {
            TimelinePoolRegion &region = frame.pools[r];
            running[r] += individual[r][c];
            const uint64_t active = pools[region.pool].active.at(TracePoint::after(frame.columnEvent[c]));
            privateActive += active;
            const auto drawn = static_cast<uint64_t>(running[r]);
            region.otherTop[c] = region.base[c] + (active > drawn ? active - drawn : 0);
            stack[r][c] = region.otherTop[c];
        }
        running.back() += individual.back()[c];
        const auto drawn = static_cast<uint64_t>(running.back());
        const uint64_t held = frame.total[c] > privateActive ? frame.total[c] - privateActive : 0;
        frame.otherTop[c] = frame.otherBottom[c] + (held > drawn ? held - drawn : 0);
        stack.back()[c] = frame.otherTop[c];
        drawnGhosts += individualGhosts[c];
        const uint64_t ghostsHeld = ghosts.aliveAfter(frame.columnEvent[c]), ghostsDrawn = static_cast<uint64_t>(drawnGhosts);
        frame.otherGhostTop[c] = std::min(frame.otherTop[c], frame.otherBottom[c] + (ghostsHeld > ghostsDrawn ? ghostsHeld - ghostsDrawn : 0));
    }
    for (TimelineBand &band : frame.bands) {
        std::vector<uint64_t> &top = stack[regionOf(band)];
        for (size_t k = 0; k < band.bottom.size(); ++k) {
            band.bottom[k] = top[band.firstColumn + k];
            top[band.firstColumn + k] += band.size;
        }
    }
    return frame;
}

std::vector<AllocationId> TimelineLayout::bandsIn(EventId first, EventId last, size_t maxBands) const
{
    // A size class (the allocations of one size) is drawn whole or folded whole. Were the band
    // budget to cut through one, its members with the lower ids would be coloured and the rest
    // folded, and identical steps would look different in two places of one view.
    std::vector<AllocationId> chosen = largestIn(first, last, maxBands + 1);
    if (chosen.size() > maxBands) {
        const uint64_t cut = index_.requestedBytes(chosen[maxBands]);
        while (!chosen.empty() && index_.requestedBytes(chosen.back()) == cut)
            chosen.pop_back();
    }
    // Stacked oldest at the bottom: blocks alive before the trace (ghost blocks, memory from before
    // profiling) first, whose ids come after the trace's own, then in allocation order.
    auto older = [&](AllocationId a, AllocationId b) {
        const bool bornA = !index_.allocation(a).fromBeforeTrace(), bornB = !index_.allocation(b).fromBeforeTrace();
        return bornA != bornB ? bornB : a < b;
    };
    std::sort(chosen.begin(), chosen.end(), older);
    return chosen;
}

void TimelineLayout::stackPools(TimelineFrame &frame, std::span<const PoolUsage> pools) const
{
    const size_t columns = frame.columnEvent.size();
    std::vector<uint64_t> base(columns, 0);
    for (size_t p = 0; p < pools.size(); ++p) {
        TimelinePoolRegion region{p, base, std::vector<uint64_t>(columns), std::vector<uint64_t>(columns)};
        for (size_t c = 0; c < columns; ++c) {
            region.top[c] = base[c] + pools[p].envelope.at(TracePoint::after(frame.columnEvent[c]));
            base[c] = region.top[c];
        }
        frame.pools.push_back(std::move(region));
    }
    frame.otherBottom = std::move(base);
    for (TimelineBand &band : frame.bands) {
        const PoolIndex pool = index_.poolOf(band.allocation);
        if (pool == PoolIndex(0))
            continue;
        const uint64_t stream = index_.detail(band.allocation).stream;
        for (size_t p = 0; p < pools.size(); ++p) {
            if (pools[p].pool == pool && pools[p].stream == stream)
                band.region = static_cast<uint32_t>(p);
        }
    }
}

} // namespace memlens
