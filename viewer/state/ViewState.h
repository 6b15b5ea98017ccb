#pragma once
// The one owner of what several pages of a document show alike: the document and its timeline
// layouts, the device, the cursor event, the selected allocation, the visible range (with a
// zoom history, like hotspot's FilterAndZoomStack), the x-axis mode, how allocations are
// coloured, and the allocator setting asked "what if" about with its replay. Views read these
// from here and listen for changes; none keeps its own copy. What one page alone shows (the
// current page, stack options, the flame graph's zoom, the segment map's scale, the timeline's
// search, the selected note) stays with that page; SessionBinding gathers it for a session.
#include "pipeline/Document.h"
#include "replay/Replay.h"
#include "state/TimelineAxis.h"
#include "style/BandColors.h"

#include <memory>
#include <QObject>
#include <optional>
#include <vector>

namespace memlens {

struct VisibleRange {
    double first = 0, last = 0; // x-axis units: events, or seconds since the first event
    bool operator==(const VisibleRange &) const = default;
};

class ViewState : public QObject {
    Q_OBJECT

public:
    explicit ViewState(QObject *parent = nullptr) : QObject(parent) {}

    const std::shared_ptr<const Document> &document() const { return document_; }
    // Null until the timeline stage has arrived.
    const TimelineLayouts *timeline() const { return timeline_.get(); }
    // Selects the document's first device and shows all of it.
    void setDocument(std::shared_ptr<const Document> document);
    // Drops (and returns false for) layouts that belong to another document.
    bool setTimeline(std::shared_ptr<const TimelineLayouts> timeline);

    int device() const { return device_; }
    const DeviceData *deviceData() const; // the selected device; null when the document has none
    const TimelineLayout *deviceLayout() const;
    const TimelineAxis &axis() const { return axis_; }
    // The cursor: an entry, or none when nothing is selected.
    std::optional<EventId> selectedEvent() const { return event_; }
    // The moment the cursor names, after its entry; `otherwise` when none is selected or the
    // device has no such entry (the pages fall back to the peak or the end).
    TracePoint cursorPoint(TracePoint otherwise) const;
    // The same as a question's moment: the cursor's entry, else `otherwise`.
    Moment cursorMoment(Moment otherwise) const;
    AllocationId selectedAllocation() const { return allocation_; }
    bool timeAxis() const { return axis_.isTime(); }
    ColorMode colorMode() const { return colorMode_; }

    void setDevice(int device);
    void setSelectedEvent(std::optional<EventId> event);
    void setSelectedAllocation(AllocationId allocation);
    void setTimeAxis(bool time);                     // keeps the same events in view
    void setColorMode(ColorMode mode);

    // The replay of the device's trace under a what-if allocator setting; null when none is
    // asked for. A new device clears it; a result for another device is dropped.
    const std::shared_ptr<const ReplayResult> &whatIf() const { return whatIf_; }
    void setWhatIf(std::shared_ptr<const ReplayResult> result);

    VisibleRange visibleRange() const { return range_; }
    // The events the visible range shows, whatever the x axis is.
    EventId visibleFirstEvent() const;
    EventId visibleLastEvent() const;
    // Pans and wheel zooms: clamped to the trace, not remembered.
    void setVisibleRange(VisibleRange range);
    // A deliberate zoom (a dragged range, a jump to an event): Zoom Out returns from it.
    void zoomTo(VisibleRange range);
    void zoomOut();
    void showAll();
    VisibleRange fullRange() const;
    // The range that shows exactly events `first` to `last`, in the current axis.
    VisibleRange rangeOfEvents(EventId first, EventId last) const;

signals:
    // A new document is always followed by deviceChanged (and visibleRangeChanged), so views
    // that show one device need only listen to that.
    void documentChanged();
    void timelineChanged();
    void deviceChanged(int device);
    void selectedEventChanged();
    void selectedAllocationChanged(memlens::AllocationId allocation);
    void timeAxisChanged(bool time);
    void colorModeChanged(ColorMode mode);
    void visibleRangeChanged(VisibleRange range);
    void whatIfChanged();

private:
    void resetDevice(int device);
    VisibleRange clamped(VisibleRange range) const;
    // Shows `range` (clamped), remembering the current one for Zoom Out if asked to.
    void show(VisibleRange range, bool remember);

    std::shared_ptr<const Document> document_;
    std::shared_ptr<const TimelineLayouts> timeline_;
    int device_ = 0;
    bool wantTime_ = false;
    TimelineAxis axis_;
    std::optional<EventId> event_;
    AllocationId allocation_;
    ColorMode colorMode_ = ColorMode::Allocation;
    VisibleRange range_;
    std::vector<VisibleRange> zoomHistory_;
    std::shared_ptr<const ReplayResult> whatIf_;
};

} // namespace memlens

Q_DECLARE_METATYPE(memlens::VisibleRange)
