#include "figures/PoolUsage.h"

#include "model/ChangeSeries.h"

#include <algorithm>
#include <map>

namespace memlens {

uint64_t ByteSeries::at(TracePoint t) const
{
    return valueAt(changes, start, t);
}

uint64_t ByteSeries::peak() const
{
    uint64_t best = start;
    for (const auto &[event, value] : changes)
        best = std::max(best, value);
    return best;
}

std::vector<PoolUsage> privatePools(const Snapshot &snapshot, const DeviceIndex &index)
{
    // Every mempool id the file names is in `pools`: with only the default pool, nothing is private
    // and the trace need not be read.
    if (snapshot.pools.size() <= 1)
        return {};
    const EventTable &ev = index.events();
    auto streamValue = [&](StreamIndex s) { return snapshot.streamValue(s); };
    std::map<std::pair<PoolIndex, uint64_t>, size_t> keys;
    std::vector<PoolUsage> pools;
    auto usage = [&](PoolIndex pool, uint64_t stream) -> PoolUsage & {
        auto [it, inserted] = keys.emplace(std::make_pair(pool, stream), pools.size());
        if (inserted)
            pools.push_back(PoolUsage{pool, stream, 0, {}, {}, {}});
        return pools[it->second];
    };
    // Reserved: the final segments of each pool, less the net the trace reserved.
    std::map<size_t, int64_t> net;
    for (const Segment &seg : snapshot.segments) {
        const PoolIndex pool = snapshot.poolIndex(seg.pool);
        if (seg.device == index.device() && pool != PoolIndex(0))
            usage(pool, seg.stream).reserved.start += seg.totalSize;
    }
    for (uint32_t e = 0; e < ev.count(); ++e) {
        const Action a = ev.action[e];
        const bool grows = a == Action::SegmentAlloc || a == Action::SegmentMap;
        if (!grows && a != Action::SegmentFree && a != Action::SegmentUnmap)
            continue;
        if (const PoolIndex pool = index.segmentPoolOf(index.segmentLifeOfEvent(EventId(e))); pool != PoolIndex(0)) {
            PoolUsage &u = usage(pool, streamValue(ev.stream[e]));
            net[static_cast<size_t>(&u - pools.data())] += grows ? static_cast<int64_t>(ev.size[e]) : -static_cast<int64_t>(ev.size[e]);
        }
    }
    if (pools.empty())
        return pools;
    for (auto &[i, n] : net) {
        const int64_t start = static_cast<int64_t>(pools[i].reserved.start) - n;
        pools[i].reserved.start = start < 0 ? 0 : static_cast<uint64_t>(start);
    }
    // Active: each allocation's bytes go to its pool's series.
    std::vector<int32_t> slot(index.allocationCount(), -1);
    for (uint32_t i = 0; i < index.allocationCount(); ++i) {
        const AllocationId id(i);
        if (const PoolIndex pool = index.poolOf(id); pool != PoolIndex(0)) {
            PoolUsage &u = usage(pool, index.detail(id).stream);
            slot[i] = static_cast<int32_t>(&u - pools.data());
            ++u.allocations;
            if (index.allocation(id).fromBeforeTrace())
                u.active.start += index.requestedBytes(id);
        }
    }
    std::vector<int64_t> active(pools.size()), reserved(pools.size()), envelope(pools.size());
    for (size_t i = 0; i < pools.size(); ++i) {
        active[i] = static_cast<int64_t>(pools[i].active.start);
        reserved[i] = static_cast<int64_t>(pools[i].reserved.start);
        envelope[i] = std::max(active[i], reserved[i]);
        pools[i].envelope.start = static_cast<uint64_t>(envelope[i]);
    }
    auto record = [&](size_t i, EventId e) {
        auto push = [e](ByteSeries &s, int64_t v) {
            const uint64_t value = v < 0 ? 0 : static_cast<uint64_t>(v);
            if (!s.changes.empty() && s.changes.back().first == e)
                s.changes.back().second = value;
            else if (s.last() != value)
                s.changes.emplace_back(e, value);
        };
        push(pools[i].active, active[i]);
        push(pools[i].reserved, reserved[i]);
        envelope[i] = std::max({envelope[i], active[i], reserved[i]});
        push(pools[i].envelope, envelope[i]);
    };
    for (uint32_t e = 0; e < ev.count(); ++e) {
        const Action a = ev.action[e];
        if (a == Action::SegmentAlloc || a == Action::SegmentMap || a == Action::SegmentFree || a == Action::SegmentUnmap) {
            if (const PoolIndex pool = index.segmentPoolOf(index.segmentLifeOfEvent(EventId(e))); pool != PoolIndex(0)) {
                const size_t i = keys.at({pool, streamValue(ev.stream[e])});
                const bool grows = a == Action::SegmentAlloc || a == Action::SegmentMap;
                reserved[i] += grows ? static_cast<int64_t>(ev.size[e]) : -static_cast<int64_t>(ev.size[e]);
                record(i, EventId(e));
            }
            continue;
        }
        index.forEachLiveChange(EventId(e), [&](AllocationId id, int64_t bytes) {
            if (const int32_t s = slot[id.index()]; s >= 0) {
                active[static_cast<size_t>(s)] += bytes;
                record(static_cast<size_t>(s), EventId(e));
            }
        });
    }
    std::sort(pools.begin(), pools.end(), [&](const PoolUsage &a, const PoolUsage &b) {
        return std::tie(snapshot.poolId(a.pool), a.stream) < std::tie(snapshot.poolId(b.pool), b.stream);
    });
    return pools;
}

uint64_t stackedPeakBytes(const DeviceIndex &index, std::span<const PoolUsage> pools)
{
    uint64_t peak = std::max(index.peakActiveBytes(), index.peakReservedBytes());
    if (pools.empty())
        return peak;
    // Only events where some pool series changes can move the stack above the active line's own
    // peak, so walk those change points in order with a cursor per series.
    std::vector<uint32_t> points;
    for (const PoolUsage &p : pools) {
        for (const auto *series : {&p.active, &p.envelope})
            for (const auto &[event, value] : series->changes)
                points.push_back(event.index());
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    auto stackAt = [&](TracePoint t) {
        int64_t top = static_cast<int64_t>(index.activeAt(t));
        for (const PoolUsage &p : pools)
            top += static_cast<int64_t>(p.envelope.at(t)) - static_cast<int64_t>(p.active.at(t));
        return top < 0 ? uint64_t(0) : static_cast<uint64_t>(top);
    };
    peak = std::max(peak, stackAt(TracePoint::start()));
    // Between change points the pools are constant, so the stack peaks where active does: the
    // peak of active bytes in each stretch, found at the stretch's own maximum.
    uint32_t from = 0;
    const auto n = static_cast<uint32_t>(index.eventCount());
    points.push_back(n);
    for (uint32_t point : points) {
        uint32_t best = from;
        for (uint32_t e = from; e < std::min(point, n); ++e)
            if (index.activeAt(TracePoint::after(EventId(e))) > index.activeAt(TracePoint::after(EventId(best))))
                best = e;
        if (from < std::min(point, n))
            peak = std::max(peak, stackAt(TracePoint::after(EventId(best))));
        if (point < n)
            peak = std::max(peak, stackAt(TracePoint::after(EventId(point))));
        from = point + 1;
    }
    return peak;
}

} // namespace memlens
