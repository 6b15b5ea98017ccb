#include "questions/LiveAtQuestion.h"

#include "model/ByteFormat.h"
#include "questions/MomentJson.h"
#include "questions/QuestionAdmission.h"
#include "report/JsonText.h"
#include "report/OptionalJson.h"

namespace memlens {

MomentAnswer answerMoment(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const MomentRequest &request)
{
    return answerMoment(admitIndexedDevice(file, std::move(snapshot), request.device, request.top), request);
}

MomentAnswer answerMoment(const IndexedDevice &device, const MomentRequest &request)
{
    MomentAnswer answer{device.file, device.snapshot, request.at, {}, {}};
    answer.point = admitMoment(*device.index, request.at);
    answer.report = reportDevice(device, request.top, answer.point);
    return answer;
}

nlohmann::json liveAtJson(const MomentAnswer &answer)
{
    return {{"file", answer.file}, {"device", answer.report.summary.device}, {"at", answer.at.text()}, {"event", pointJson(answer.point)},
            {"live", momentJson(answer)}};
}

std::string liveAtBrief(const MomentAnswer &answer)
{
    const PointSummary &at = *answer.report.at;
    std::string text = "at " + answer.at.text() + " (event " + jsonText(optionalJson(at.index)) + "): " + formatBytes(at.activeBytes) + " active in " +
                       std::to_string(at.liveBlocks) + " blocks, " + formatBytes(at.reservedBytes) + " reserved";
    if (!at.topLive.empty())
        text += "; largest " + formatBytes(at.topLive.front().size);
    return text;
}

} // namespace memlens
