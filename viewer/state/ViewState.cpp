#include "state/ViewState.h"

#include <algorithm>
#include <cmath>

namespace memlens {

void ViewState::setDocument(std::shared_ptr<const Document> document)
{
    document_ = std::move(document);
    timeline_.reset();
    resetDevice(document_ ? document_->openingDevice() : 0);
    emit documentChanged();
    emit deviceChanged(device_);
    emit visibleRangeChanged(range_);
}

bool ViewState::setTimeline(std::shared_ptr<const TimelineLayouts> timeline)
{
    if (!timeline || timeline->document != document_)
        return false; // a stale job's result
    timeline_ = std::move(timeline);
    emit timelineChanged();
    return true;
}

const DeviceData *ViewState::deviceData() const
{
    return document_ ? document_->device(device_) : nullptr;
}

const TimelineLayout *ViewState::deviceLayout() const
{
    return timeline_ ? timeline_->layout(device_) : nullptr;
}

void ViewState::resetDevice(int device)
{
    device_ = device;
    const DeviceData *d = deviceData();
    axis_ = TimelineAxis(d ? d->index.get() : nullptr, wantTime_);
    event_.reset();
    allocation_ = AllocationId::none();
    zoomHistory_.clear();
    range_ = fullRange();
    whatIf_.reset();
}

void ViewState::setWhatIf(std::shared_ptr<const ReplayResult> result)
{
    if (result && result->device != device_)
        return;
    whatIf_ = std::move(result);
    emit whatIfChanged();
}

void ViewState::setDevice(int device)
{
    if (device == device_)
        return;
    resetDevice(device);
    emit deviceChanged(device);
    emit visibleRangeChanged(range_);
}

TracePoint ViewState::cursorPoint(TracePoint otherwise) const
{
    const DeviceData *d = deviceData();
    if (!d || !event_ || event_->index() >= d->index->eventCount())
        return otherwise;
    return TracePoint::after(*event_);
}

Moment ViewState::cursorMoment(Moment otherwise) const
{
    const DeviceData *d = deviceData();
    if (!d || !event_ || event_->index() >= d->index->eventCount())
        return otherwise;
    return Moment::at(*event_);
}

void ViewState::setSelectedEvent(std::optional<EventId> event)
{
    if (event == event_)
        return;
    event_ = event;
    emit selectedEventChanged();
}

void ViewState::setSelectedAllocation(AllocationId allocation)
{
    if (allocation == allocation_)
        return;
    allocation_ = allocation;
    emit selectedAllocationChanged(allocation);
}

void ViewState::setTimeAxis(bool time)
{
    wantTime_ = time;
    const DeviceData *d = deviceData();
    const TimelineAxis axis(d ? d->index.get() : nullptr, time);
    if (axis.isTime() == axis_.isTime())
        return;
    const bool whole = range_ == fullRange();
    const EventId first = visibleFirstEvent(), last = visibleLastEvent();
    axis_ = axis;
    zoomHistory_.clear();
    range_ = whole ? fullRange() : clamped(rangeOfEvents(first, last));
    emit timeAxisChanged(axis_.isTime());
    emit visibleRangeChanged(range_);
}

void ViewState::setColorMode(ColorMode mode)
{
    if (mode == colorMode_)
        return;
    colorMode_ = mode;
    emit colorModeChanged(mode);
}

VisibleRange ViewState::fullRange() const
{
    return {axis_.xMin(), std::max(axis_.xMin() + 1e-9, axis_.xMax() + (axis_.isTime() ? 0.0 : 1.0))};
}

VisibleRange ViewState::rangeOfEvents(EventId first, EventId last) const
{
    // On the event axis an event's column is one unit wide; on the time axis it is an instant.
    return {axis_.xOfEvent(first), axis_.xOfEvent(last) + (axis_.isTime() ? 0.0 : 1.0)};
}

VisibleRange ViewState::clamped(VisibleRange r) const
{
    const VisibleRange full = fullRange();
    const double span = full.last - full.first;
    const double minWidth = std::min(axis_.isTime() ? 1e-6 : 4.0, span);
    const double width = std::clamp(r.last - r.first, minWidth, std::max(span, 1e-9));
    const double start = std::clamp(r.first, full.first, std::max(full.first, full.last - width));
    return {start, start + width};
}

EventId ViewState::visibleFirstEvent() const
{
    return axis_.eventAt(range_.first);
}

EventId ViewState::visibleLastEvent() const
{
    // The range's end is exclusive: an event whose column starts there is not shown.
    return std::max(visibleFirstEvent(), axis_.eventAt(std::nextafter(range_.last, range_.first)));
}

void ViewState::show(VisibleRange range, bool remember)
{
    range = clamped(range);
    if (range == range_)
        return;
    if (remember)
        zoomHistory_.push_back(range_);
    range_ = range;
    emit visibleRangeChanged(range_);
}

void ViewState::setVisibleRange(VisibleRange range)
{
    show(range, false);
}

void ViewState::zoomTo(VisibleRange range)
{
    show(range, true);
}

void ViewState::zoomOut()
{
    if (zoomHistory_.empty())
        return;
    range_ = clamped(zoomHistory_.back());
    zoomHistory_.pop_back();
    emit visibleRangeChanged(range_);
}

void ViewState::showAll()
{
    zoomTo(fullRange());
}

} // namespace memlens
