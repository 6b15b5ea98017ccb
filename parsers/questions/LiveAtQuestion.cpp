#include "questions/LiveAtQuestion.h"

#include "model/ByteFormat.h"
#include "questions/MomentJson.h"
#include "questions/QuestionAdmission.h"
#include "report/JsonText.h"
#include "report/OptionalJson.h"

namespace memlens {

MomentAnswer answerMoment(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const MomentRequest &request)
{
    const int device = admitDevice(*snapshot, file, request.device);
    return answerMoment(indexDevice(file, std::move(snapshot), device, request.top), request);
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

std::string liveAtBrief(const nlohmann::json &liveAt)
{
    const nlohmann::json &at = liveAt["live"];
    std::string text = "at " + liveAt["at"].get<std::string>() + " (event " + jsonText(at["index"]) + "): " + formatBytes(at["active_bytes"].get<uint64_t>()) +
                       " active in " + jsonText(at["live_blocks"]) + " blocks, " + formatBytes(at["reserved_bytes"].get<uint64_t>()) + " reserved";
    if (!at["top_live"].empty())
        text += "; largest " + formatBytes(at["top_live"][0]["size"].get<uint64_t>());
    return text;
}

} // namespace memlens
