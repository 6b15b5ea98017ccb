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

std::string allocatorStateBrief(const MomentAnswer &answer)
{
    const AllocatorFigures &a = answer.report.at->allocator;
    return "at " + answer.at.text() + " (event " + jsonText(pointJson(answer.point)) + "): " + std::to_string(a.segments) + " segments, " +
           formatBytes(a.reserved) + " reserved, " + formatBytes(a.allocated) + " allocated, " + formatBytes(a.free) + " free, largest free block " +
           formatBytes(a.largestFree);
}

} // namespace memlens
