#pragma once
// MCP's live_at: the allocations live at a moment (peak, OOM, end or an event), largest first,
// as `summary --at` reports them for one device.
#include "index/Moment.h"
#include "report/SummaryReport.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace memlens {

struct MomentRequest {
    std::optional<int64_t> device; // none: the first
    Moment at = Moment::peak();
    size_t top = 10;
};

// One device's report at the moment asked about: live_at's and allocator_state's answer.
struct MomentAnswer {
    std::string file;
    std::shared_ptr<const Snapshot> snapshot;
    Moment at;
    TracePoint point = TracePoint::start(); // the moment `at` names
    DeviceReport report; // with its `at`
};

// Throws QuestionError for a device the file lacks or a moment it does not reach.
MomentAnswer answerMoment(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const MomentRequest &request);
// A device indexed before (the window's document): `request.device` is its.
MomentAnswer answerMoment(const IndexedDevice &device, const MomentRequest &request);

// {"file", "device", "at", "event", "live": summary's `at` object}, and one line of that object.
nlohmann::json liveAtJson(const MomentAnswer &answer);
std::string liveAtBrief(const MomentAnswer &answer);

} // namespace memlens
