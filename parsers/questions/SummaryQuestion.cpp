#include "questions/SummaryQuestion.h"

#include "model/ByteFormat.h"
#include "questions/QuestionAdmission.h"
#include "report/JsonText.h"
#include "report/OptionalJson.h"

namespace memlens {

SummaryAnswer answerSummary(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const SummaryRequest &request)
{
    SummaryAnswer answer{file, std::move(snapshot), {}};
    const std::vector<int> devices = request.oneDevice ? std::vector<int>{admitDevice(*answer.snapshot, file, request.device)}
                                                       : admitDevices(*answer.snapshot, file, request.device);
    for (int d : devices) {
        const IndexedDevice device = indexDevice(file, answer.snapshot, d, request.top);
        const std::optional<TracePoint> at = request.at ? std::optional(admitMoment(*device.index, *request.at)) : std::nullopt;
        answer.reports.push_back(reportDevice(device, request.top, at, request.deviceTotal));
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

std::string summaryBrief(const SummaryAnswer &answer)
{
    const DeviceSummary &s = answer.reports.front().summary;
    return answer.file + " device " + std::to_string(s.device) + ": peak active " + formatBytes(s.peakActiveBytes) + " at event " +
           jsonText(optionalJson(s.peakIndex)) + ", peak reserved " + formatBytes(s.peakReservedBytes) + ", " + std::to_string(s.ooms.size()) +
           " OOM entries, " + std::to_string(s.steps.size()) + " steps";
}

} // namespace memlens
