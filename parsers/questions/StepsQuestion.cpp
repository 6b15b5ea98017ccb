#include "questions/StepsQuestion.h"

#include "questions/QuestionAdmission.h"

namespace memlens {

StepsAnswer answerSteps(const std::string &file, std::shared_ptr<const Snapshot> snapshot, std::optional<int64_t> device)
{
    return answerSteps(admitIndexedDevice(file, std::move(snapshot), device, 1));
}

StepsAnswer answerSteps(const IndexedDevice &device)
{
    return {device.file, device.snapshot, reportDevice(device, 1, std::nullopt)};
}

nlohmann::json stepsJson(const StepsAnswer &answer)
{
    const nlohmann::json d = summaryJsonObject(*answer.snapshot, answer.file, {answer.report})["devices"][0];
    return {{"file", answer.file}, {"device", answer.report.summary.device}, {"steps", d["steps"]}, {"steps_from", d["steps_from"]},
            {"leak_suspects", d["leak_suspects"]},
            {"phases", d["phases"]}};
}

std::string stepsBrief(const StepsAnswer &answer)
{
    const DeviceSummary &s = answer.report.summary;
    return std::to_string(s.steps.size()) + " steps, " + std::to_string(s.leakSuspects.size()) + " leak suspects";
}

} // namespace memlens
