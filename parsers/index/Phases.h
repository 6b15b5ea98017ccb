#pragma once
// A device's record_function phases (torch's `external_annotations`: START/END marks paired by
// name) and which phase an event falls in. The one owner of both: the summary, the advice's run
// samples and the timeline's phase bands ask here (categories and steps read the stacks instead).
#include "index/DeviceIndex.h"
#include "model/Snapshot.h"

#include <cstdint>
#include <optional>
#include <span>
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

class Phases {
public:
    Phases(const Snapshot &snapshot, int device);

    const std::vector<PhaseRange> &ranges() const { return ranges_; }
    // Whether any phase is a forward, backward or optimizer phase with a known start.
    bool classified() const { return !spans_.empty(); }

    // For some events (`which`, any order), the innermost forward / backward / optimizer phase
    // containing its time (kNoSpan: none) at i for which[i], found in one sweep over the events,
    // not a scan of every phase per event.
    static constexpr int32_t kNoSpan = -1;
    std::vector<int32_t> classifyEvents(const EventTable &events, std::span<const uint32_t> which) const;
    StepPart kind(int32_t span) const { return span == kNoSpan ? StepPart::None : spans_[static_cast<size_t>(span)].kind; }
    // When that phase ends (INT64_MAX: never, or no phase).
    int64_t end(int32_t span) const { return span == kNoSpan ? INT64_MAX : spans_[static_cast<size_t>(span)].end; }

private:
    // Answers for events eventAt(0 … n-1), at the same positions.
    template <typename EventAt>
    std::vector<int32_t> classify(const EventTable &events, size_t n, EventAt eventAt) const;

    struct Span {
        int64_t start, end;
        StepPart kind;
    };
    std::vector<PhaseRange> ranges_;
    std::vector<Span> spans_; // classified ranges with a start, in range order
};

} // namespace memlens
