#include "questions/StepsQuestion.h"

#include "questions/QuestionAdmission.h"

namespace memlens {

StepsAnswer answerSteps(const std::string &file, std::shared_ptr<const Snapshot> snapshot, std::optional<int64_t> device)
{
    StepsAnswer answer{file, std::move(snapshot), {}};
    const DeviceIndex index(*answer.snapshot, admitDevice(*answer.snapshot, file, device));
    answer.report = reportDevice(*answer.snapshot, index, 1, std::nullopt);
    return answer;
}

nlohmann::json stepsJson(const StepsAnswer &answer)
{
    const nlohmann::json d = summaryJsonObject(*answer.snapshot, answer.file, {answer.report})["devices"][0];
    return {{"file", answer.file}, {"device", answer.report.summary.device}, {"steps", d["steps"]}, {"steps_from", d["steps_from"]},
            {"leak_suspects", d["leak_suspects"]},
            {"phases", d["phases"]}};
}

std::string stepsBrief(const nlohmann::json &j)
{
    return std::to_string(j["steps"].size()) + " steps, " + std::to_string(j["leak_suspects"].size()) + " leak suspects";
}

} // namespace memlens
