#pragma once
// `memlens advise` and MCP's advise as a value: the setup the snapshot reveals and the fixes that
// would save memory. A file with nothing to act on (a memory-timeline export, no device) is an
// answer saying so, not an error.
#include "advice/FixRanking.h"
#include "figures/DeviceFigures.h"
#include "questions/CapacityRequest.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace memlens {

struct AdviseRequest {
    std::optional<int64_t> device; // none: the first
    std::optional<Moment> at;      // none: the first OOM, else the peak
    CapacityRequest capacity;
    std::optional<int> gpus;       // none: the rank files beside the snapshot, if any
    std::string gpusSource;        // how the frontend names it: "--gpus", "gpus"
    bool bySaves = false;
};

struct AdviseAnswer {
    std::string file;
    std::optional<std::string> nothing; // why there is nothing to advise on
    int device = 0;
    Advice advice;
};

// Throws QuestionError for a device the file lacks or a moment it does not reach.
AdviseAnswer answerAdvise(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const AdviseRequest &request);
// A device indexed before (the window's document); `gpus`: the run's GPU count as its asker
// found it (a stitched run's from its dumps), in place of `request.gpus`.
AdviseAnswer answerAdvise(const IndexedDevice &device, const AdviseRequest &request, const Inferred<int> &gpus);

std::string adviseAnswerText(const AdviseAnswer &answer);
nlohmann::json adviseAnswerJson(const AdviseAnswer &answer);
// One line: the moment, and the first three fixes.
std::string adviseBrief(const AdviseAnswer &answer);

} // namespace memlens
