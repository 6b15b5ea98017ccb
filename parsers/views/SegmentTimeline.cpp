#include "views/SegmentTimeline.h"

#include "views/EvenColumns.h"

#include <algorithm>
#include <map>

namespace memlens {

namespace {

// Requested bytes held in each segment life at the end of each column: one pass over the
// entries, placing every allocation's change in the life alive at its address.
std::vector<std::vector<std::pair<SegmentLifeId, uint64_t>>> usedAtColumnEnds(const DeviceIndex &index, const std::vector<EventId> &columnLast)
{
    const std::vector<SegmentLife> &lives = index.segmentLives();
    std::vector<std::pair<EventId, SegmentLifeId>> births, deaths;
    std::map<uint64_t, SegmentLifeId> alive; // by address; lives alive at one time do not overlap
    for (uint32_t i = 0; i < lives.size(); ++i) {
        if (lives[i].fromBeforeTrace())
            alive.emplace(lives[i].addr, SegmentLifeId(i));
        else
            births.emplace_back(lives[i].createdEvent, SegmentLifeId(i));
        if (lives[i].releasedEvent != kNever)
            deaths.emplace_back(lives[i].releasedEvent, SegmentLifeId(i));
    }
    std::sort(births.begin(), births.end());
    std::sort(deaths.begin(), deaths.end());
    std::vector<int64_t> used(lives.size(), 0);
    auto place = [&](AllocationId allocation, int64_t bytes) {
        const uint64_t addr = index.detail(allocation).addr;
        auto it = alive.upper_bound(addr);
        if (it == alive.begin())
            return;
        const SegmentLifeId life = std::prev(it)->second;
        if (addr < lives[life.index()].addr + lives[life.index()].size)
            used[life.index()] += bytes;
    };
    for (AllocationId id : index.liveAt(TracePoint::start()))
        place(id, static_cast<int64_t>(index.requestedBytes(id)));
    std::vector<std::vector<std::pair<SegmentLifeId, uint64_t>>> out(columnLast.size());
    size_t birth = 0, death = 0, column = 0;
    const uint32_t end = columnLast.empty() ? 0 : columnLast.back().index() + 1;
    for (uint32_t e = 0; e < end; ++e) {
        const EventId event(e);
        // A segment entry ends a life and (a split, a grown mapping) may start another at once.
        for (; death < deaths.size() && deaths[death].first == event; ++death)
            if (auto it = alive.find(lives[deaths[death].second.index()].addr); it != alive.end() && it->second == deaths[death].second)
                alive.erase(it);
        for (; birth < births.size() && births[birth].first == event; ++birth)
            alive[lives[births[birth].second.index()].addr] = births[birth].second;
        index.forEachLiveChange(event, place);
        for (; column < columnLast.size() && columnLast[column] == event; ++column)
            for (const auto &[addr, life] : alive)
                out[column].emplace_back(life, static_cast<uint64_t>(std::max<int64_t>(0, used[life.index()])));
    }
    return out;
}

} // namespace

namespace {

// The timeline's columns (evenColumns) as moments: (before its first event, after its last).
std::vector<std::pair<TracePoint, TracePoint>> columnRanges(EventId first, EventId last, int columns, SegmentTimelineFrame &frame)
{
    std::vector<std::pair<TracePoint, TracePoint>> ranges;
    for (const auto &[lo, hi] : evenColumns(first, last, columns)) {
        ranges.emplace_back(TracePoint::before(lo), TracePoint::after(hi));
        frame.columnLast.push_back(hi);
    }
    return ranges;
}

// Bands for the spans alive somewhere in the columns, stacked in `order`.
void stackSpans(const std::vector<SegmentSpan> &spans, const std::vector<std::pair<TracePoint, TracePoint>> &ranges, SegmentOrder order,
                SegmentTimelineFrame &frame)
{
    std::vector<SegmentLifeId> shown;
    for (uint32_t i = 0; i < spans.size(); ++i)
        if (spans[i].born <= ranges.back().second && spans[i].ended > ranges.front().first)
            shown.push_back(SegmentLifeId(i));
    std::sort(shown.begin(), shown.end(), [&](SegmentLifeId a, SegmentLifeId b) {
        const SegmentSpan &x = spans[a.index()], &y = spans[b.index()];
        if (order == SegmentOrder::Size && x.size != y.size)
            return x.size > y.size;
        return x.addr != y.addr ? x.addr < y.addr : a < b;
    });
    frame.stacked.assign(frame.columnLast.size(), 0);
    for (const SegmentLifeId id : shown) {
        const SegmentSpan &life = spans[id.index()];
        SegmentBand band{id, life.size, 0, {}, {}};
        for (size_t c = 0; c < ranges.size(); ++c) {
            if (!(life.born <= ranges[c].second && life.ended > ranges[c].first))
                continue;
            if (band.bottom.empty())
                band.firstColumn = c;
            band.bottom.push_back(frame.stacked[c]);
            frame.stacked[c] += life.size;
        }
        band.used.assign(band.bottom.size(), 0);
        frame.bands.push_back(std::move(band));
    }
}

bool windowOk(const DeviceIndex &index, EventId first, EventId &last, int columns)
{
    if (columns < 1 || index.eventCount() == 0 || first > last)
        return false;
    last = std::min(last, EventId(static_cast<uint32_t>(index.eventCount() - 1)));
    return first <= last;
}

} // namespace

SegmentTimelineFrame layoutSegmentTimeline(const DeviceIndex &index, EventId first, EventId last, int columns, SegmentOrder order)
{
    SegmentTimelineFrame frame;
    if (!windowOk(index, first, last, columns))
        return frame;
    const auto ranges = columnRanges(first, last, columns, frame);
    const std::vector<SegmentLife> &lives = index.segmentLives();
    std::vector<SegmentSpan> spans;
    spans.reserve(lives.size());
    for (const SegmentLife &life : lives)
        spans.push_back({life.addr, life.size, life.born(), life.ended()});
    stackSpans(spans, ranges, order, frame);
    // Used bytes per band and column, from the pass's (life, bytes) lists.
    const auto used = usedAtColumnEnds(index, frame.columnLast);
    std::vector<size_t> bandOf(lives.size(), SIZE_MAX);
    for (size_t b = 0; b < frame.bands.size(); ++b)
        bandOf[frame.bands[b].life.index()] = b;
    for (size_t c = 0; c < used.size(); ++c) {
        for (const auto &[life, bytes] : used[c]) {
            const size_t b = bandOf[life.index()];
            if (b != SIZE_MAX && c >= frame.bands[b].firstColumn && c < frame.bands[b].endColumn())
                frame.bands[b].used[c - frame.bands[b].firstColumn] = bytes;
        }
    }
    return frame;
}

SegmentTimelineFrame layoutSegmentSpans(const DeviceIndex &index, const std::vector<SegmentSpan> &spans, EventId first, EventId last,
                                        int columns, SegmentOrder order)
{
    SegmentTimelineFrame frame;
    if (windowOk(index, first, last, columns))
        stackSpans(spans, columnRanges(first, last, columns, frame), order, frame);
    return frame;
}

} // namespace memlens
