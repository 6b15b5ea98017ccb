#include "questions/SummaryQuestion.h"

#include "model/ByteFormat.h"
#include "questions/QuestionAdmission.h"
#include "report/JsonText.h"

namespace memlens {

SummaryAnswer answerSummary(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const SummaryRequest &request)
{
    SummaryAnswer answer{file, std::move(snapshot), {}};
    const std::vector<int> devices = request.oneDevice ? std::vector<int>{admitDevice(*answer.snapshot, file, request.device)}
                                                       : admitDevices(*answer.snapshot, file, request.device);
    for (int d : devices) {
        const DeviceIndex index(*answer.snapshot, d);
        const std::optional<TracePoint> at = request.at ? std::optional(admitMoment(index, *request.at)) : std::nullopt;
        answer.reports.push_back(reportDevice(*answer.snapshot, index, request.top, at, request.deviceTotal));
    }
    return answer;
}

std::string summaryAnswerText(const SummaryAnswer &answer)
{
    return summaryText(*answer.snapshot, answer.file, answer.reports);
}

std::string summaryAnswerJson(const SummaryAnswer &answer)
{
    return summaryJson(*answer.snapshot, answer.file, answer.reports);
}

nlohmann::json summaryDeviceJson(const SummaryAnswer &answer)
{
    return {{"file", answer.file}, {"device", summaryJsonObject(*answer.snapshot, answer.file, answer.reports)["devices"][0]}};
}

std::string summaryBrief(const nlohmann::json &deviceJson)
{
    const nlohmann::json &d = deviceJson["device"];
    return deviceJson["file"].get<std::string>() + " device " + jsonText(d["device"]) + ": peak active " + formatBytes(d["peak_active_bytes"].get<uint64_t>()) + " at event " +
           jsonText(d["peak_index"]) + ", peak reserved " + formatBytes(d["peak_reserved_bytes"].get<uint64_t>()) + ", " +
           std::to_string(d["oom_entries"].size()) + " OOM entries, " + std::to_string(d["steps"].size()) + " steps";
}

} // namespace memlens
