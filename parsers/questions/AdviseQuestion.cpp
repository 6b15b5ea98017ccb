#include "questions/AdviseQuestion.h"

#include "advice/AdviceReport.h"
#include "model/ByteFormat.h"
#include "questions/QuestionAdmission.h"
#include "ranks/RunGpus.h"

namespace memlens {

namespace {

std::optional<std::string> nothingToAdvise(const Snapshot &snapshot)
{
    if (snapshot.categories)
        return "a memory-timeline file holds bytes per category, not allocations to advise on";
    if (snapshot.devices().empty())
        return "no device has segments or trace entries";
    return std::nullopt;
}

} // namespace

AdviseAnswer answerAdvise(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const AdviseRequest &request)
{
    if (std::optional<std::string> nothing = nothingToAdvise(*snapshot))
        return {file, std::move(nothing), 0, {}};
    return answerAdvise(admitIndexedDevice(file, std::move(snapshot), request.device, 0), request, runGpus(request.gpus, request.gpusSource, file));
}

AdviseAnswer answerAdvise(const IndexedDevice &device, const AdviseRequest &request, const Inferred<int> &gpus)
{
    AdviseAnswer answer{device.file, nothingToAdvise(*device.snapshot), device.device, {}};
    if (answer.nothing)
        return answer;
    if (request.at)
        admitMoment(*device.index, *request.at);
    AdviceOptions options;
    options.at = request.at;
    options.bySaves = request.bySaves;
    options.gpus = gpus;
    options.capacity = request.capacity.bytes;
    options.capacitySource = request.capacity.source;
    options.deviceTotal = request.capacity.deviceTotal;
    options.summary = &device.figures->summary;
    answer.advice = advise(*device.snapshot, *device.index, *device.figures->categories, options);
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
