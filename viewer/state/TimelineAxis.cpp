#include "state/TimelineAxis.h"

#include <algorithm>
#include <cmath>

namespace memlens {

TimelineAxis::TimelineAxis(const DeviceIndex *index, bool time) : index_(index)
{
    const size_t n = index ? index->eventCount() : 0;
    time_ = time && n > 1 && index->events().timeUs[n - 1] > index->events().timeUs[0];
    if (time_)
        t0_ = index->events().timeUs[0];
}

double TimelineAxis::xOfEvent(EventId event) const
{
    if (!index_ || event.isNone())
        return 0;
    if (!time_)
        return event.index();
    return static_cast<double>(index_->events().timeUs[event.index()] - t0_) / 1e6;
}

double TimelineAxis::xOfTime(int64_t timeUs) const
{
    if (time_)
        return static_cast<double>(timeUs - t0_) / 1e6;
    if (!index_ || index_->eventCount() == 0)
        return 0;
    const auto &t = index_->events().timeUs;
    return static_cast<double>(std::lower_bound(t.begin(), t.end(), timeUs) - t.begin());
}

double TimelineAxis::xMax() const
{
    const size_t n = index_ ? index_->eventCount() : 0;
    if (n == 0)
        return 1;
    return time_ ? xOfEvent(EventId(static_cast<uint32_t>(n - 1))) : static_cast<double>(n - 1);
}

EventId TimelineAxis::eventAt(double x) const
{
    const size_t n = index_ ? index_->eventCount() : 0;
    if (n == 0)
        return EventId(0);
    if (!time_)
        return EventId(static_cast<uint32_t>(std::clamp(std::floor(x), 0.0, static_cast<double>(n - 1))));
    const auto &t = index_->events().timeUs;
    const int64_t target = t0_ + static_cast<int64_t>(std::floor(x * 1e6));
    const auto it = std::upper_bound(t.begin(), t.end(), target);
    return EventId(it == t.begin() ? 0 : static_cast<uint32_t>(it - t.begin() - 1));
}

std::vector<std::pair<EventId, EventId>> TimelineAxis::columnRanges(double x0, double x1, int columns) const
{
    std::vector<std::pair<EventId, EventId>> ranges;
    const size_t n = index_ ? index_->eventCount() : 0;
    if (n == 0 || columns < 1)
        return ranges;
    ranges.reserve(static_cast<size_t>(columns));
    uint32_t lo = eventAt(x0).index();
    for (int c = 0; c < columns; ++c) {
        const double xb = x0 + (x1 - x0) * (c + 1) / columns;
        // Events starting before the slice's end; the last one may reach into the next slice.
        uint32_t hi = eventAt(std::nextafter(xb, -1e300)).index();
        if (!time_ && xb == std::floor(xb) && xb > 0)
            hi = static_cast<uint32_t>(std::min<double>(xb - 1, static_cast<double>(n - 1)));
        hi = std::max(hi, lo);
        ranges.emplace_back(EventId(lo), EventId(hi));
        lo = hi;
    }
    return ranges;
}

} // namespace memlens
