#include "replay/PredictedSegments.h"

namespace memlens {

void PredictedSegmentRecorder::open(uint64_t addr, uint64_t size, EventId created)
{
    open_[addr] = lives_.size();
    lives_.push_back({addr, size, created, kNever});
}

void PredictedSegmentRecorder::seed(uint64_t addr, uint64_t size)
{
    open(addr, size, EventId::none());
}

void PredictedSegmentRecorder::apply(const SegmentChange &change, EventId event)
{
    if (change.kind == SegmentChange::Alloc || change.kind == SegmentChange::Map) {
        open(change.addr, change.size, event);
        return;
    }
    // The live range holding the change's start.
    auto it = open_.upper_bound(change.addr);
    if (it == open_.begin())
        return;
    --it;
    PredictedSegment &life = lives_[it->second];
    if (change.addr >= life.addr + life.size)
        return;
    life.released = event;
    const uint64_t lifeAddr = life.addr, lifeEnd = life.addr + life.size, changeEnd = change.addr + change.size;
    open_.erase(it);
    if (change.kind == SegmentChange::Unmap) {
        if (lifeAddr < change.addr)
            open(lifeAddr, change.addr - lifeAddr, event);
        if (changeEnd < lifeEnd)
            open(changeEnd, lifeEnd - changeEnd, event);
    }
}

} // namespace memlens
