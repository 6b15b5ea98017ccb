#include "questions/ReplayQuestion.h"

#include "model/ByteFormat.h"
#include "questions/QuestionError.h"
#include "replay/ReplayAdmission.h"
#include "replay/ReplayReport.h"

#include <algorithm>

namespace memlens {

namespace {

std::optional<AllocatorConfig> parsedConfig(const ReplayRequest &request)
{
    if (!request.allocConf)
        return std::nullopt;
    try {
        return AllocatorConfig::parse(*request.allocConf);
    } catch (const std::invalid_argument &e) {
        throw QuestionError("alloc_conf", e.what(), QuestionError::Kind::Usage, *request.allocConf);
    }
}

} // namespace

std::optional<AllocatorConfig> admitReplayRequest(const ReplayRequest &request)
{
    const std::optional<AllocatorConfig> config = parsedConfig(request);
    if (config && config->perProcessMemoryFraction && !request.capacity.deviceTotal)
        throw QuestionError("alloc_conf", "per_process_memory_fraction is a share of the device: name the GPU (gpu, --gpu PRESET) for its total memory",
                            QuestionError::Kind::Usage, *request.allocConf);
    return config;
}

namespace {

// The file, then the device, can be replayed (a profiler trace cannot; a device without a trace).
void admitReplayDevice(const std::string &file, const Snapshot &snapshot, int device)
{
    if (const std::optional<std::string> why = whyNotReplayable(snapshot))
        throw QuestionError("path", file + ": " + *why, QuestionError::Kind::Input);
    if (const std::optional<std::string> why = whyNotReplayable(snapshot, device))
        throw QuestionError("device", file + ": " + *why, QuestionError::Kind::Usage, std::to_string(device));
}

} // namespace

ReplayAnswer answerReplay(const std::string &file, const Snapshot &snapshot, const ReplayRequest &request)
{
    const std::optional<AllocatorConfig> config = admitReplayRequest(request);
    if (const std::optional<std::string> why = whyNotReplayable(snapshot))
        throw QuestionError("path", file + ": " + *why, QuestionError::Kind::Input);
    const int device = request.device ? static_cast<int>(std::clamp<int64_t>(*request.device, -1, INT32_MAX)) : replayableDevices(snapshot).front();
    admitReplayDevice(file, snapshot, device);
    const DeviceIndex index(snapshot, device);
    return answerReplay(file, snapshot, index, request, config);
}

ReplayAnswer answerReplay(const std::string &file, const Snapshot &snapshot, const DeviceIndex &index, const ReplayRequest &request,
                          const std::optional<AllocatorConfig> &admitted, const std::atomic<bool> *cancel)
{
    admitReplayDevice(file, snapshot, index.device());
    ReplayOptions options;
    options.config = admitted ? *admitted : AllocatorConfig::recorded(snapshot);
    options.capacity = request.capacity.bytes;
    options.capacitySource = request.capacity.source;
    options.deviceTotal = request.capacity.deviceTotal;
    return {file, request.allocConf, replayTrace(snapshot, index, options, cancel)};
}

std::string replayAnswerText(const ReplayAnswer &answer)
{
    return replayText(answer.file, answer.result);
}

nlohmann::json replayAnswerJson(const ReplayAnswer &answer)
{
    return replayJson(answer.file, answer.result);
}

std::string replayBrief(const ReplayAnswer &answer)
{
    const ReplayResult &r = answer.result;
    return "under " + (answer.allocConf ? *answer.allocConf : std::string("the file's own setting")) + ": predicted reserved peak " +
           formatBytes(r.predicted.peakReservedBytes) + " (recorded " + formatBytes(r.recorded.peakReservedBytes) + ")" +
           (r.predicted.oomAt ? ", OOM at event " + std::to_string(r.predicted.oomAt->index()) : ", no OOM");
}

} // namespace memlens
