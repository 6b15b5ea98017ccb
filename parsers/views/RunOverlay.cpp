#include "views/RunOverlay.h"

#include <algorithm>
#include <cmath>

namespace memlens {

namespace {

// The x of every event of a run (monotone), or nullopt for events outside every step.
std::vector<std::optional<double>> positions(const OverlayInput &run, OverlayAlignment alignment)
{
    const EventTable &ev = run.index->events();
    const size_t n = ev.count();
    std::vector<std::optional<double>> x(n);
    switch (alignment) {
    case OverlayAlignment::Time:
        for (size_t e = 0; e < n; ++e)
            x[e] = static_cast<double>(ev.timeUs[e] - ev.timeUs[0]) / 1e6;
        break;
    case OverlayAlignment::Event:
        for (size_t e = 0; e < n; ++e)
            x[e] = static_cast<double>(e);
        break;
    case OverlayAlignment::Step:
        for (size_t i = 0; i < run.steps->size(); ++i) {
            const StepSummary &s = (*run.steps)[i];
            const uint32_t first = s.firstEvent.index(), last = s.lastEvent.index();
            const double width = static_cast<double>(last - first + 1);
            for (uint32_t e = first; e <= last && e < n; ++e)
                x[e] = static_cast<double>(i) + static_cast<double>(e - first) / width;
        }
        break;
    }
    return x;
}

OverlayRun sample(const OverlayInput &run, const std::vector<std::optional<double>> &x, double xMax, size_t columns)
{
    OverlayRun out;
    out.active.assign(columns, std::nullopt);
    out.reserved.assign(columns, std::nullopt);
    // What a column holds after its last event: a column without events (time alignment puts
    // the quiet stretches between bursts there) shows that of the column before, as memory
    // stays put between events; left empty, the lines broke into dashes.
    std::vector<std::optional<std::pair<uint64_t, uint64_t>>> after(columns);
    for (size_t e = 0; e < x.size(); ++e) {
        if (!x[e])
            continue;
        const auto c = std::min(columns - 1, static_cast<size_t>(std::max(0.0, *x[e] / xMax * static_cast<double>(columns))));
        const EventId event(static_cast<uint32_t>(e));
        const uint64_t active = run.index->activeAt(TracePoint::after(event));
        const uint64_t reserved = run.index->reservedAt(TracePoint::after(event));
        out.active[c] = std::max(out.active[c].value_or(0), active);
        out.reserved[c] = std::max(out.reserved[c].value_or(0), reserved);
        after[c] = {active, reserved};
    }
    size_t last = columns;
    for (size_t c = 0; c < columns; ++c) {
        if (after[c])
            last = c;
    }
    std::optional<std::pair<uint64_t, uint64_t>> held;
    for (size_t c = 0; c < columns && c <= last && last < columns; ++c) {
        if (after[c]) {
            held = after[c];
        } else if (held) {
            out.active[c] = held->first;
            out.reserved[c] = held->second;
        }
    }
    return out;
}

double extent(const std::vector<std::optional<double>> &x)
{
    double m = 0;
    for (const auto &v : x)
        m = v ? std::max(m, *v) : m;
    return m;
}

} // namespace

RunOverlay overlayRuns(const OverlayInput &a, const OverlayInput &b, OverlayAlignment alignment, size_t columns)
{
    RunOverlay o;
    if (alignment == OverlayAlignment::Step && (!a.steps || !b.steps || a.steps->empty() || b.steps->empty()))
        alignment = OverlayAlignment::Event;
    o.alignment = alignment;
    if (!a.index || !b.index || columns == 0 || a.index->eventCount() == 0 || b.index->eventCount() == 0)
        return o;
    const auto xa = positions(a, alignment), xb = positions(b, alignment);
    o.xMax = std::max({extent(xa), extent(xb), 1e-9});
    if (alignment == OverlayAlignment::Step)
        o.xMax = static_cast<double>(std::max(a.steps->size(), b.steps->size()));
    else if (alignment == OverlayAlignment::Event)
        o.xMax += 1;
    o.a = sample(a, xa, o.xMax, columns);
    o.b = sample(b, xb, o.xMax, columns);
    return o;
}

} // namespace memlens
