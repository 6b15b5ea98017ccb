#include "index/SegmentLives.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace memlens {

namespace {

constexpr uint64_t kSmallSegment = 2ull << 20; // the small pool's cudaMalloc'd segments are 2 MiB

struct Range {
    uint64_t size = 0;
    uint64_t stream = 0;
    bool expandable = false;
    bool large = true;
    SegmentLifeId life = SegmentLifeId::none();
};

// Reserved ranges by start address, none overlapping.
class RangeSet {
public:
    using Map = std::map<uint64_t, Range>;
    Map ranges;

    // The ranges that overlap [addr, addr + size), in address order.
    std::vector<Map::iterator> overlapping(uint64_t addr, uint64_t size)
    {
        std::vector<Map::iterator> result;
        auto it = ranges.upper_bound(addr);
        if (it != ranges.begin() && std::prev(it)->first + std::prev(it)->second.size > addr)
            --it;
        for (; it != ranges.end() && it->first < addr + size; ++it)
            result.push_back(it);
        return result;
    }

    // The pieces of `it` outside [addr, addr + size), as (address, range) pairs; `it` is erased.
    std::vector<std::pair<uint64_t, Range>> cut(Map::iterator it, uint64_t addr, uint64_t size)
    {
        std::vector<std::pair<uint64_t, Range>> rest;
        const uint64_t begin = it->first, end = it->first + it->second.size;
        if (begin < addr) {
            Range r = it->second;
            r.size = addr - begin;
            rest.emplace_back(begin, r);
        }
        if (addr + size < end) {
            Range r = it->second;
            r.size = end - (addr + size);
            rest.emplace_back(addr + size, r);
        }
        ranges.erase(it);
        return rest;
    }

    // Places a mapped range `r` at `addr`, joined with its touching neighbours of the same stream
    // (expandable ones); `absorbed(neighbour)` runs before each neighbour is erased. Returns where
    // the joined range starts.
    template <typename F>
    uint64_t placeJoined(uint64_t addr, Range r, F &&absorbed)
    {
        const uint64_t size = r.size;
        uint64_t start = addr;
        auto next = ranges.lower_bound(addr);
        std::vector<Map::iterator> touching;
        if (next != ranges.begin()) {
            auto prev = std::prev(next);
            if (prev->second.expandable && prev->second.stream == r.stream && prev->first + prev->second.size == addr)
                touching.push_back(prev);
        }
        if (next != ranges.end() && next->second.expandable && next->second.stream == r.stream && next->first == addr + size)
            touching.push_back(next);
        for (auto it : touching) {
            r.large = it->second.large;
            start = std::min(start, it->first);
            r.size += it->second.size;
            absorbed(it);
            ranges.erase(it);
        }
        ranges[start] = r;
        return start;
    }
};

class Builder {
public:
    Builder(const Snapshot &snapshot, int device, const EventTable &events) : snapshot_(snapshot), device_(device), ev_(events)
    {
    }

    SegmentLives build()
    {
        RangeSet initial = runBackwards();
        for (auto &[addr, r] : initial.ranges) {
            r.life = newLife(addr, r, EventId::none());
            current_ += r.size;
        }
        out_.startReserved = current_;
        set_ = std::move(initial);
        runForwards();
        matchFinalSegments();
        return std::move(out_);
    }

private:
    uint64_t streamAt(uint32_t e) const { return snapshot_.streamValue(ev_.stream[e]); }

    // The final snapshot's segments, then each entry undone from the newest to the oldest.
    RangeSet runBackwards()
    {
        RangeSet set;
        for (const Segment &seg : snapshot_.segments) {
            if (seg.device != device_ || seg.totalSize == 0)
                continue;
            if (!set.overlapping(seg.address, seg.totalSize).empty()) {
                ++out_.unexplainedEntries;
                continue;
            }
            set.ranges[seg.address] = Range{seg.totalSize, seg.stream, seg.expandable, seg.large};
        }
        for (uint32_t i = static_cast<uint32_t>(ev_.count()); i-- > 0;) {
            const Action a = ev_.action[i];
            if (!isSegmentAction(a) || ev_.size[i] == 0)
                continue;
            const uint64_t addr = ev_.addr[i], size = ev_.size[i];
            if (a == Action::SegmentAlloc) {
                auto it = set.ranges.find(addr);
                if (it == set.ranges.end() || it->second.expandable)
                    ++out_.unexplainedEntries;
                else
                    set.ranges.erase(it);
            } else if (a == Action::SegmentMap) {
                auto hit = set.overlapping(addr, size);
                if (hit.empty())
                    ++out_.unexplainedEntries;
                for (auto it : hit)
                    for (auto &[at, piece] : set.cut(it, addr, size))
                        set.ranges[at] = piece;
            } else if (!set.overlapping(addr, size).empty()) {
                ++out_.unexplainedEntries; // freed or unmapped memory that is still reserved later
            } else if (a == Action::SegmentFree) {
                set.ranges[addr] = Range{size, streamAt(i), false, size != kSmallSegment};
            } else {
                set.placeJoined(addr, Range{size, streamAt(i), true, true}, [](RangeSet::Map::iterator) {});
            }
        }
        return set;
    }

    void runForwards()
    {
        for (uint32_t i = 0; i < ev_.count(); ++i) {
            const Action a = ev_.action[i];
            if (!isSegmentAction(a) || ev_.size[i] == 0)
                continue;
            const uint64_t addr = ev_.addr[i], size = ev_.size[i];
            if (a == Action::SegmentFree) {
                auto it = set_.ranges.find(addr);
                if (it != set_.ranges.end() && it->second.size == size && !it->second.expandable) {
                    setLife(i, it->second.life, true);
                    retire(it->second, EventId(i));
                    set_.ranges.erase(it);
                } else {
                    ++out_.unexplainedEntries;
                    release(i, addr, size);
                }
            } else if (a == Action::SegmentUnmap) {
                if (!release(i, addr, size))
                    ++out_.unexplainedEntries;
            } else {
                if (release(i, addr, size))
                    ++out_.unexplainedEntries; // reserved twice: the older range gives way
                const Range r{size, streamAt(i), a == Action::SegmentMap, size != kSmallSegment};
                // A cudaMalloc'd segment joins nothing; a mapped range joins its neighbours.
                uint64_t start = addr;
                if (r.expandable)
                    start = set_.placeJoined(addr, r, [&](RangeSet::Map::iterator it) { retire(it->second, EventId(i)); });
                else
                    set_.ranges[addr] = r;
                Range &placed = set_.ranges[start];
                current_ += placed.size;
                placed.life = newLife(start, placed, EventId(i));
                setLife(i, placed.life, true);
            }
            out_.reservedChanges.emplace_back(EventId(i), current_);
        }
    }

    // Ends every range overlapping [addr, addr + size) at event e and keeps what lies outside it
    // as new lives; false when nothing overlapped.
    bool release(uint32_t e, uint64_t addr, uint64_t size)
    {
        auto hit = set_.overlapping(addr, size);
        for (auto it : hit) {
            setLife(e, it->second.life, false);
            retire(it->second, EventId(e));
            for (auto &[at, piece] : set_.cut(it, addr, size)) {
                current_ += piece.size;
                piece.life = newLife(at, piece, EventId(e));
                set_.ranges[at] = piece;
            }
        }
        return !hit.empty();
    }

    // Entry e's life: the one it creates replaces one it ended; of several it ended, the first.
    void setLife(uint32_t e, SegmentLifeId life, bool creates)
    {
        auto &lives = out_.lifeOfEvent;
        if (lives.empty() || lives.back().first != EventId(e))
            lives.emplace_back(EventId(e), life);
        else if (creates)
            lives.back().second = life;
    }

    // The range's life ends at event e and its bytes are no longer reserved.
    void retire(const Range &r, EventId e)
    {
        out_.lives[r.life.index()].releasedEvent = e;
        current_ -= r.size;
    }

    SegmentLifeId newLife(uint64_t addr, const Range &r, EventId created)
    {
        out_.lives.push_back({addr, r.size, r.stream, created, kNever, SegmentId::none(), r.expandable, r.large});
        return SegmentLifeId(static_cast<uint32_t>(out_.lives.size() - 1));
    }

    void matchFinalSegments()
    {
        for (uint32_t s = 0; s < snapshot_.segments.size(); ++s) {
            const Segment &seg = snapshot_.segments[s];
            if (seg.device != device_ || seg.totalSize == 0)
                continue;
            auto it = set_.ranges.find(seg.address);
            if (it == set_.ranges.end() || it->second.size != seg.totalSize) {
                ++out_.unmatchedFinalSegments;
                continue;
            }
            SegmentLife &life = out_.lives[it->second.life.index()];
            life.finalSegment = SegmentId(s);
            life.large = seg.large;
            life.expandable = seg.expandable || life.expandable;
        }
    }

    const Snapshot &snapshot_;
    const int device_;
    const EventTable &ev_;
    SegmentLives out_;
    RangeSet set_;
    uint64_t current_ = 0;
};

} // namespace

SegmentLives buildSegmentLives(const Snapshot &snapshot, int device, const EventTable &events)
{
    return Builder(snapshot, device, events).build();
}

} // namespace memlens
