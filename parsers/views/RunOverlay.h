#pragma once
// Two runs on one axis: each run's active and reserved bytes sampled into the same columns,
// aligned by time since the run's first entry, by event number or by training step (step i of
// one run over step i of the other, each step stretched to one unit).
#include "index/DeviceIndex.h"
#include "figures/Steps.h"

#include <optional>
#include <vector>

namespace memlens {

enum class OverlayAlignment { Time, Event, Step };

struct OverlayRun {
    // Per column: the highest active bytes and reserved bytes among the run's events in it; a
    // column without events holds what the column before ended with; nullopt before the run's
    // first column and past its last.
    std::vector<std::optional<uint64_t>> active, reserved;
};

struct RunOverlay {
    OverlayAlignment alignment = OverlayAlignment::Event;
    double xMax = 0;          // the axis spans [0, xMax]: seconds, events or steps
    OverlayRun a, b;
    double columnX(size_t c, size_t columns) const { return xMax * (static_cast<double>(c) + 0.5) / static_cast<double>(columns); }
};

struct OverlayInput {
    const DeviceIndex *index = nullptr;
    const std::vector<StepSummary> *steps = nullptr;
};

// Step alignment needs steps in both runs; without, it falls back to events (see `alignment`).
RunOverlay overlayRuns(const OverlayInput &a, const OverlayInput &b, OverlayAlignment alignment, size_t columns);

} // namespace memlens
