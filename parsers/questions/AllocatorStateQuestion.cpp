#include "questions/AllocatorStateQuestion.h"

#include "model/ByteFormat.h"
#include "questions/MomentJson.h"
#include "report/JsonText.h"

namespace memlens {

MomentAnswer answerAllocatorState(const std::string &file, std::shared_ptr<const Snapshot> snapshot, MomentRequest request)
{
    request.top = 1;
    return answerMoment(file, std::move(snapshot), request);
}

nlohmann::json allocatorStateJson(const MomentAnswer &answer)
{
    return {{"file", answer.file}, {"device", answer.report.summary.device}, {"at", answer.at.text()}, {"event", answer.event.index()},
            {"allocator", momentJson(answer)["allocator"]}};
}

std::string allocatorStateBrief(const MomentAnswer &answer)
{
    const nlohmann::json a = momentJson(answer)["allocator"];
    return "at " + answer.at.text() + " (event " + std::to_string(answer.event.index()) + "): " + jsonText(a["segments"]) + " segments, " +
           formatBytes(a["reserved_bytes"].get<uint64_t>()) + " reserved, " + formatBytes(a["allocated_bytes"].get<uint64_t>()) + " allocated, " +
           formatBytes(a["free_bytes"].get<uint64_t>()) + " free, largest free block " + formatBytes(a["largest_free_bytes"].get<uint64_t>());
}

} // namespace memlens
