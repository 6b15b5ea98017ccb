#pragma once
// MCP's steps_and_leaks: the training steps (each one's peak and its event), the leak suspects
// and the phases of one device, as `summary --json` reports them.
#include "report/SummaryReport.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace memlens {

struct StepsAnswer {
    std::string file;
    std::shared_ptr<const Snapshot> snapshot;
    DeviceReport report;
};

// `device`: none for the first. Throws QuestionError for a device the file lacks.
StepsAnswer answerSteps(const std::string &file, std::shared_ptr<const Snapshot> snapshot, std::optional<int64_t> device);
StepsAnswer answerSteps(const IndexedDevice &device);

// {"file", "device", "steps", "leak_suspects", "phases"}, and one line of that object.
nlohmann::json stepsJson(const StepsAnswer &answer);
std::string stepsBrief(const StepsAnswer &answer);

} // namespace memlens
