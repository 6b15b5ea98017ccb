#include "questions/AllocatorStateQuestion.h"

#include "model/ByteFormat.h"
#include "questions/MomentJson.h"
#include "report/JsonText.h"
#include "report/OptionalJson.h"

namespace memlens {

MomentAnswer answerAllocatorState(const std::string &file, std::shared_ptr<const Snapshot> snapshot, MomentRequest request)
{
    request.top = 1;
    return answerMoment(file, std::move(snapshot), request);
}

MomentAnswer answerAllocatorState(const IndexedDevice &device, MomentRequest request)
{
    request.top = 1;
    return answerMoment(device, request);
}

nlohmann::json allocatorStateJson(const MomentAnswer &answer)
{
    return {{"file", answer.file}, {"device", answer.report.summary.device}, {"at", answer.at.text()}, {"event", pointJson(answer.point)},
            {"allocator", momentJson(answer)["allocator"]}};
}

std::string allocatorStateBrief(const nlohmann::json &allocatorState)
{
    const nlohmann::json &a = allocatorState["allocator"];
    return "at " + allocatorState["at"].get<std::string>() + " (event " + jsonText(allocatorState["event"]) + "): " + jsonText(a["segments"]) + " segments, " +
           formatBytes(a["reserved_bytes"].get<uint64_t>()) + " reserved, " + formatBytes(a["allocated_bytes"].get<uint64_t>()) + " allocated, " +
           formatBytes(a["free_bytes"].get<uint64_t>()) + " free, largest free block " + formatBytes(a["largest_free_bytes"].get<uint64_t>());
}

} // namespace memlens
