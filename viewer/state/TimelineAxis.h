#pragma once
// Maps the timeline's x coordinate to trace events: either the event index itself, or seconds
// since the first event (time_us). Traces are time-ordered; where a file's times are missing
// the time axis falls back to events.
#include "index/DeviceIndex.h"

#include <vector>

namespace memlens {

class TimelineAxis {
public:
    TimelineAxis() = default;
    TimelineAxis(const DeviceIndex *index, bool time);

    bool isTime() const { return time_; }
    double xOfEvent(EventId event) const;
    double xOfTime(int64_t timeUs) const; // in event mode: the first event at or after it
    double xMin() const { return 0; }
    double xMax() const;
    // The events each of `columns` equal slices of [x0, x1] shows: every event whose state
    // (which lasts from it to the next event) overlaps the slice, first and last.
    std::vector<std::pair<EventId, EventId>> columnRanges(double x0, double x1, int columns) const;
    // The event whose state is shown at x.
    EventId eventAt(double x) const; // event 0 when the trace is empty

private:
    const DeviceIndex *index_ = nullptr;
    bool time_ = false;
    int64_t t0_ = 0;
};

} // namespace memlens
