#include "views/SegmentTimeline.h"

#include "views/EvenColumns.h"

#include <algorithm>
#include <map>

namespace memlens {

namespace {

// What a life born at `event` holds as it begins: a grown or joined range holds what the lives it
// replaces held; a piece of a range split by an unmap (rare: at an OOM or empty_cache) holds the
// allocations live in it, counted.
int64_t usedMovedInto(const DeviceIndex &index, const std::vector<SegmentLife> &lives, const std::vector<int64_t> &used,
                      const std::vector<SegmentLifeId> &ended, SegmentLifeId born, EventId event)
{
    const SegmentLife &n = lives[born.index()];
    int64_t moved = 0;
    for (SegmentLifeId old : ended) {
        const SegmentLife &o = lives[old.index()];
        if (o.addr >= n.addr + n.size || n.addr >= o.addr + o.size)
            continue;
        if (o.addr < n.addr || o.addr + o.size > n.addr + n.size) {
            int64_t counted = 0;
            for (AllocationId id : index.liveAt(TracePoint::before(event))) {
                const uint64_t addr = index.detail(id).addr;
                if (addr >= n.addr && addr < n.addr + n.size)
                    counted += static_cast<int64_t>(index.requestedBytes(id));
            }
            return counted;
        }
        moved += used[old.index()];
    }
    return moved;
}

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
    std::vector<SegmentLifeId> ended;
    for (uint32_t e = 0; e < end; ++e) {
        const EventId event(e);
        // A segment entry ends a life and (a split, a grown mapping) may start another at once:
        // the memory in use moves with it.
        ended.clear();
        for (; death < deaths.size() && deaths[death].first == event; ++death) {
            if (auto it = alive.find(lives[deaths[death].second.index()].addr); it != alive.end() && it->second == deaths[death].second) {
                alive.erase(it);
                ended.push_back(deaths[death].second);
            }
        }
        for (; birth < births.size() && births[birth].first == event; ++birth) {
            const SegmentLifeId born = births[birth].second;
            alive[lives[born.index()].addr] = born;
            used[born.index()] = usedMovedInto(index, lives, used, ended, born, event);
        }
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

// Bands for the spans alive somewhere in the columns, stacked in `order`. In each column the spans
// alive at its end stack first, without gaps (they are the allocator's segments there); a span
// that ended inside the column stacks above them unless it covers memory one of them (or an
// earlier one) holds: then it is drawn over that one, not beside it. An expandable segment
// growing by a page a map is a new span each time; stacked side by side, a column of them
// claimed 77 GiB where 14.7 GiB was reserved.
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
        if (order == SegmentOrder::Allocation) {
            // MemoryViz pushes what it finds made before the trace in reverse: the final
            // snapshot's segments (by address, so the highest lowest), then those the trace frees,
            // the last freed lowest.
            if (x.born != y.born)
                return x.born < y.born;
            if (x.ended != y.ended)
                return x.ended > y.ended;
            return x.addr != y.addr ? x.addr > y.addr : a < b;
        }
        return x.addr != y.addr ? x.addr < y.addr : a < b;
    });
    frame.stacked.assign(frame.columnLast.size(), 0);
    frame.bands.reserve(shown.size());
    for (const SegmentLifeId id : shown)
        frame.bands.push_back({id, spans[id.index()].size, 0, {}, {}});
    struct Placed {
        uint64_t end, bottom;
    };
    std::map<uint64_t, Placed> placed; // by address: where the column drew each range
    for (size_t c = 0; c < ranges.size(); ++c) {
        placed.clear();
        uint64_t &stacked = frame.stacked[c];
        auto put = [&](SegmentBand &band, uint64_t bottom) {
            if (band.bottom.empty())
                band.firstColumn = c;
            band.bottom.push_back(bottom);
            const SegmentSpan &span = spans[band.life.index()];
            placed[span.addr] = {span.addr + span.size, bottom};
        };
        for (int pass = 0; pass < 2; ++pass) {
            for (SegmentBand &band : frame.bands) {
                const SegmentSpan &span = spans[band.life.index()];
                const bool inColumn = span.born <= ranges[c].second && span.ended > ranges[c].first;
                const bool atEnd = span.born <= ranges[c].second && span.ended > ranges[c].second;
                if (!inColumn || atEnd != (pass == 0))
                    continue;
                auto over = placed.upper_bound(span.addr + span.size - 1);
                if (pass == 1 && over != placed.begin() && std::prev(over)->second.end > span.addr) {
                    const auto &[addr, where] = *std::prev(over);
                    const uint64_t bottom = where.bottom + (span.addr > addr ? span.addr - addr : 0);
                    stacked = std::max(stacked, bottom + span.size);
                    put(band, bottom);
                    continue;
                }
                put(band, stacked);
                stacked += span.size;
            }
        }
    }
    for (SegmentBand &band : frame.bands)
        band.used.assign(band.bottom.size(), 0);
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
