#pragma once
// `memlens summary FILE` and MCP's summary tool as a value: the request, the devices it admits,
// the answer (each device's report) and its writers.
#include "index/Moment.h"
#include "report/SummaryReport.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct SummaryRequest {
    std::optional<int64_t> device; // none: every device (oneDevice: the first)
    bool oneDevice = false;
    size_t top = 10;
    std::optional<Moment> at;
    std::optional<uint64_t> deviceTotal; // --gpu's memory, for what an OOM shows outside the allocator
};

struct SummaryAnswer {
    std::string file;
    std::shared_ptr<const Snapshot> snapshot;
    std::vector<DeviceReport> reports; // one per admitted device, in order
};

// Throws QuestionError for a device the file lacks or a moment a device does not reach.
SummaryAnswer answerSummary(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const SummaryRequest &request);

std::string summaryAnswerText(const SummaryAnswer &answer);
std::string summaryAnswerJson(const SummaryAnswer &answer);
// The first device's figures: {"file", "device": {…}}, and one line of that object.
nlohmann::json summaryDeviceJson(const SummaryAnswer &answer);
std::string summaryBrief(const SummaryAnswer &answer); // of its first device

} // namespace memlens
