#include "document/ViewState.h"

namespace memlens {

void ViewState::setDevice(int device)
{
    if (device == device_)
        return;
    device_ = device;
    event_ = kBeforeTrace;
    allocation_ = UINT32_MAX;
    emit deviceChanged(device);
}

void ViewState::setSelectedEvent(uint32_t event)
{
    if (event == event_)
        return;
    event_ = event;
    emit selectedEventChanged(event);
}

void ViewState::setSelectedAllocation(uint32_t allocation)
{
    if (allocation == allocation_)
        return;
    allocation_ = allocation;
    emit selectedAllocationChanged(allocation);
}

void ViewState::setVisibleRange(double first, double last)
{
    if (first == first_ && last == last_)
        return;
    first_ = first;
    last_ = last;
    emit visibleRangeChanged(first, last);
}

void ViewState::setVisibleEvents(uint32_t first, uint32_t last)
{
    if (first == firstEvent_ && last == lastEvent_)
        return;
    firstEvent_ = first;
    lastEvent_ = last;
    emit visibleEventsChanged(first, last);
}

void ViewState::setTimeAxis(bool time)
{
    if (time == timeAxis_)
        return;
    timeAxis_ = time;
    emit timeAxisChanged(time);
}

void ViewState::setColorMode(ColorMode mode)
{
    if (mode == colorMode_)
        return;
    colorMode_ = mode;
    emit colorModeChanged(mode);
}

} // namespace memlens
