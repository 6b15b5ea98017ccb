#include "figures/LayerFigures.h"

#include <algorithm>

namespace memlens {

namespace {

LayerPassFigures figuresOf(const DeviceIndex &index, const LayerWindow &w)
{
    LayerPassFigures f{w.layer, w.first, w.end, 0, 0, 0, 0, 0, 0};
    const EventTable &events = index.events();
    const TracePoint end = TracePoint::before(w.end);
    const TracePoint peak = index.peak();
    uint64_t transient = 0;
    for (uint32_t e = w.first.index(); e < w.end.index(); ++e) {
        f.peakBytes = std::max(f.peakBytes, index.activeAt(TracePoint::after(EventId(e))));
        const Action action = events.action[e];
        if (action != Action::Alloc && action != Action::FreeCompleted)
            continue;
        const AllocationId id = index.allocationOfEvent(EventId(e));
        if (id.isNone())
            continue;
        const Allocation &a = index.allocation(id);
        if (a.fromBeforeTrace() || a.allocEvent < w.first) // made before the window: not this layer's
            continue;
        const uint64_t bytes = index.requestedBytes(id);
        const bool keptPastWindow = a.aliveAt(end);
        if (action == Action::Alloc) {
            f.largestBytes = std::max(f.largestBytes, bytes);
            if (!keptPastWindow)
                transient += bytes;
            else if (a.freeCompleted == kNever)
                f.unfreedBytes += bytes;
            else
                f.retainedBytes += bytes;
            if (a.aliveAt(peak))
                f.atPeakBytes += bytes;
        } else if (!keptPastWindow) {
            transient -= bytes;
        }
        f.transientBytes = std::max(f.transientBytes, transient);
    }
    return f;
}

} // namespace

std::optional<LayersSummary> summarizeLayers(const DeviceIndex &index, const ModelLayers &layers)
{
    if (!layers.count())
        return std::nullopt;
    const std::vector<LayerWindow> &windows = layers.windows();
    // The pass the run peaked in or after: the last whose first layer began at or before the peak.
    uint32_t pass = windows.front().pass;
    for (const LayerWindow &w : windows) {
        if (w.layer == 0 && TracePoint::after(w.first) <= index.peak())
            pass = w.pass;
    }
    LayersSummary s{LayerSource::Stacks, layers.loopLine(), pass, {}};
    for (const LayerWindow &w : windows) {
        if (w.pass == pass)
            s.forward.push_back(figuresOf(index, w));
    }
    return s;
}

} // namespace memlens
