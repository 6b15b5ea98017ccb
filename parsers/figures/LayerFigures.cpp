#include "figures/LayerFigures.h"

#include <algorithm>

namespace memlens {

namespace {

LayerPassFigures figuresOf(const DeviceIndex &index, const LayerWindow &w)
{
    LayerPassFigures f{w.layer, w.first, w.end, 0, 0, 0, 0, 0, 0};
    if (w.end <= w.first)
        return f;
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

// The last free of what a forward window kept past its end, when the run's backward made it.
std::optional<EventId> lastFreeInBackward(const DeviceIndex &index, const StepParts &parts, const LayerWindow &w)
{
    const EventTable &events = index.events();
    const TracePoint end = TracePoint::before(w.end);
    std::optional<EventId> last;
    for (uint32_t e = w.first.index(); e < w.end.index(); ++e) {
        if (events.action[e] != Action::Alloc)
            continue;
        const Allocation &a = index.allocation(index.allocationOfEvent(EventId(e)));
        if (!a.aliveAt(end) || a.freeCompleted == kNever || parts.at(TracePoint::after(a.freeCompleted)) != StepPart::Backward)
            continue;
        if (!last || a.freeCompleted > *last)
            last = a.freeCompleted;
    }
    return last;
}

// Each layer's backward, the last layer's first: from where the one after it ended (for the last,
// the first entry of the backward after the forward pass) to the last free of what its forward
// kept. A layer whose kept bytes the trace does not see freed, and every one before it, has none.
std::vector<LayerPassFigures> backwardOf(const DeviceIndex &index, const StepParts &parts, const std::vector<LayerPassFigures> &forward)
{
    std::vector<LayerPassFigures> backward;
    if (forward.empty())
        return backward;
    uint32_t from = forward.back().end.index();
    while (from < index.eventCount() && parts.at(TracePoint::after(EventId(from))) != StepPart::Backward)
        ++from;
    for (auto f = forward.rbegin(); f != forward.rend(); ++f) {
        const std::optional<EventId> last = lastFreeInBackward(index, parts, {0, f->layer, f->first, f->end});
        if (!last || last->index() < from)
            break;
        backward.push_back(figuresOf(index, {0, f->layer, EventId(from), EventId(last->index() + 1)}));
        from = last->index() + 1;
    }
    std::reverse(backward.begin(), backward.end());
    return backward;
}

} // namespace

std::optional<LayersSummary> summarizeLayers(const DeviceIndex &index, const StepParts &parts, const ModelLayers &layers)
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
    LayersSummary s{layers.source(), layers.loopLine(), layers.markedStack(), pass, {}, {}};
    for (const LayerWindow &w : windows) {
        if (w.pass == pass)
            s.forward.push_back(figuresOf(index, w));
    }
    s.backward = backwardOf(index, parts, s.forward);
    return s;
}

std::string layerLoopName(const Snapshot &snapshot, const LayersSummary &layers)
{
    return layers.source == LayerSource::Stacks ? snapshot.frameText(layers.loop) : layers.markedStack + ".N";
}

std::string layersOrigin(const Snapshot &snapshot, const LayersSummary &layers)
{
    switch (layers.source) {
    case LayerSource::FsdpMarks:
        return "the units " + layerLoopName(snapshot, layers) + ", from FSDP's marks";
    case LayerSource::ModuleMarks:
        return "the modules " + layerLoopName(snapshot, layers) + ", from their marks";
    case LayerSource::Stacks:
        break;
    }
    return "the loop at " + layerLoopName(snapshot, layers) + ", from the stacks";
}

} // namespace memlens
