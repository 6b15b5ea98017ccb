#pragma once
// `memlens replay` and MCP's replay as a value: the trace through the model of the caching
// allocator under a PYTORCH_CUDA_ALLOC_CONF setting (default: the file's own).
#include "questions/CapacityRequest.h"
#include "replay/Replay.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace memlens {

struct ReplayRequest {
    std::optional<int64_t> device;        // none: the first that can be replayed
    std::optional<std::string> allocConf; // none: the setting the file recorded
    CapacityRequest capacity;
};

struct ReplayAnswer {
    std::string file;
    std::optional<std::string> allocConf;
    ReplayResult result;
};

// Throws QuestionError: a setting that does not parse, or a fraction of the device without the
// device's size (alloc_conf); a file that cannot be replayed (path, Kind::Input: a profiler
// trace, a memory-timeline export); a device the file lacks or cannot replay.
ReplayAnswer answerReplay(const std::string &file, const Snapshot &snapshot, const ReplayRequest &request);
// The request's own checks, which need no file (the command line makes them before loading it,
// the window when the setting is chosen); the setting parsed, none for the file's own.
std::optional<AllocatorConfig> admitReplayRequest(const ReplayRequest &request);
// The same question for a device already indexed (the window's), the request already admitted
// (`admitted`: admitReplayRequest's answer); throws ReplayCancelled when `cancel` becomes true.
ReplayAnswer answerReplay(const std::string &file, const Snapshot &snapshot, const DeviceIndex &index, const ReplayRequest &request,
                          const std::optional<AllocatorConfig> &admitted, const std::atomic<bool> *cancel = nullptr);

std::string replayAnswerText(const ReplayAnswer &answer);
nlohmann::json replayAnswerJson(const ReplayAnswer &answer);
// One line: the predicted reserved peak against the recorded, and the OOM.
std::string replayBrief(const ReplayAnswer &answer);

} // namespace memlens
