#pragma once
// A device's record_function phases (torch's `external_annotations`: START/END marks paired by
// name): the summary, the steps and the timeline's phase bands ask here. Which part of a step an
// entry is in comes from the evidence instead (figures/StepParts).
#include "index/DeviceIndex.h"
#include "model/Snapshot.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memlens {

struct PhaseRange {
    std::string name;
    std::optional<int64_t> startUs; // absent: the START fell out of the ring buffer
    std::optional<int64_t> endUs;   // absent: still open when the snapshot was taken
};

// The device's phases in the order their first mark was recorded.
std::vector<PhaseRange> phaseRanges(const Snapshot &snapshot, int device);

// The innermost phase (the latest to start) that contains `timeUs`, or null.
const PhaseRange *innermostPhaseAt(const std::vector<PhaseRange> &ranges, int64_t timeUs);

} // namespace memlens
