#include "questions/AdviseQuestion.h"

#include "advice/AdviceReport.h"
#include "figures/AllocationCategories.h"
#include "model/ByteFormat.h"
#include "questions/QuestionAdmission.h"
#include "ranks/RunGpus.h"

namespace memlens {

AdviseAnswer answerAdvise(const std::string &file, const Snapshot &snapshot, const AdviseRequest &request)
{
    AdviseAnswer answer{file, std::nullopt, 0, {}};
    AdviceOptions options;
    options.at = request.at;
    options.bySaves = request.bySaves;
    options.gpus = runGpus(request.gpus, request.gpusSource, file);
    options.capacity = request.capacity.bytes;
    options.capacitySource = request.capacity.source;
    options.deviceTotal = request.capacity.deviceTotal;
    if (snapshot.categories)
        answer.nothing = "a memory-timeline file holds bytes per category, not allocations to advise on";
    else if (snapshot.devices().empty())
        answer.nothing = "no device has segments or trace entries";
    if (answer.nothing)
        return answer;
    answer.device = admitDevice(snapshot, file, request.device);
    const DeviceIndex index(snapshot, answer.device);
    if (request.at)
        admitMoment(index, *request.at);
    const AllocationCategories categories(snapshot, index);
    answer.advice = advise(snapshot, index, categories, options);
    return answer;
}

std::string adviseAnswerText(const AdviseAnswer &answer)
{
    if (answer.nothing)
        return answer.file + ": nothing to advise: " + *answer.nothing + "\n";
    return adviceText(answer.file, answer.device, answer.advice);
}

nlohmann::json adviseAnswerJson(const AdviseAnswer &answer)
{
    if (answer.nothing)
        return {{"file", answer.file}, {"nothing_to_advise", *answer.nothing}};
    return adviceJson(answer.file, answer.device, answer.advice);
}

std::string adviseBrief(const AdviseAnswer &answer)
{
    if (answer.nothing)
        return "nothing to advise: " + *answer.nothing;
    const Advice &advice = answer.advice;
    std::string text = std::string("at the ") + (advice.oom ? "OOM" : "peak") + " (" + pointText(advice.point) + "): " +
                       formatBytes(advice.peakBytes) + " allocated";
    for (size_t i = 0; i < advice.fixes.size() && i < 3; ++i)
        text += "; " + advice.fixes[i].technique + " saves " + formatBytes(uint64_t(advice.fixes[i].savesBytes)) +
                (advice.fixes[i].fits ? (*advice.fixes[i].fits ? " (fits)" : " (does not fit)") : "");
    return text;
}

} // namespace memlens
