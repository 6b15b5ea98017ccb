#pragma once
// The one owner of what the user is looking at in a document: device, the selected event and
// allocation, the visible event range, the x-axis mode and how allocations are coloured. Every
// view reads it and listens to it, so selecting on one view moves the others (like hotspot's
// FilterAndZoomStack).
#include "analysis/DeviceIndex.h"
#include "style/BandColors.h"

#include <QObject>

namespace memlens {

class ViewState : public QObject {
    Q_OBJECT

public:
    explicit ViewState(QObject *parent = nullptr) : QObject(parent) {}

    int device() const { return device_; }
    uint32_t selectedEvent() const { return event_; }
    uint32_t selectedAllocation() const { return allocation_; }
    double visibleFirst() const { return first_; }
    double visibleLast() const { return last_; }
    bool timeAxis() const { return timeAxis_; }
    ColorMode colorMode() const { return colorMode_; }

    void setDevice(int device);
    void setSelectedEvent(uint32_t event);
    void setSelectedAllocation(uint32_t allocation); // UINT32_MAX: none
    void setVisibleRange(double first, double last);
    void setTimeAxis(bool time);
    void setColorMode(ColorMode mode);
    // The visible range in events, whatever the x axis shows (set by the timeline).
    void setVisibleEvents(uint32_t first, uint32_t last);
    uint32_t visibleFirstEvent() const { return firstEvent_; }
    uint32_t visibleLastEvent() const { return lastEvent_; }

signals:
    void deviceChanged(int device);
    void selectedEventChanged(uint32_t event);
    void selectedAllocationChanged(uint32_t allocation);
    void visibleRangeChanged(double first, double last);
    void timeAxisChanged(bool time);
    void colorModeChanged(ColorMode mode);
    void visibleEventsChanged(uint32_t first, uint32_t last);

private:
    int device_ = 0;
    uint32_t event_ = kBeforeTrace;
    uint32_t allocation_ = UINT32_MAX;
    double first_ = 0;
    double last_ = 0;
    bool timeAxis_ = false;
    ColorMode colorMode_ = ColorMode::Allocation;
    uint32_t firstEvent_ = 0;
    uint32_t lastEvent_ = UINT32_MAX;
};

} // namespace memlens
