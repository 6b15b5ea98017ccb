#include "questions/StitchQuestion.h"

#include "model/ByteFormat.h"
#include "pipeline/RankStitch.h"
#include "questions/QuestionError.h"
#include "stitch/StitchedReport.h"

namespace memlens {

StitchAnswer answerStitch(const RankFolder &folder, const StitchRequest &request, const SnapshotCache *cache)
{
    if (dumpsOfRank(folder, request.rank).empty())
        throw QuestionError("rank", folder.folder + " holds no dumps of that rank", QuestionError::Kind::Usage, std::to_string(request.rank));
    StitchAnswer answer{folder.folder + " rank " + std::to_string(request.rank), request.rank,
                        stitchRank(folder, request.rank, cache, request.cancel, request.progress), {}};
    if (!request.reports)
        return answer;
    for (int d : answer.run.snapshot->devices())
        answer.reports.push_back(reportDevice(indexDevice(answer.name, answer.run.snapshot, d, request.top), request.top, std::nullopt));
    return answer;
}

std::string stitchAnswerText(const StitchAnswer &answer)
{
    return stitchedSummaryText(answer.run, answer.name, answer.reports);
}

std::string stitchAnswerJson(const StitchAnswer &answer)
{
    return stitchedSummaryJson(answer.run, answer.name, answer.rank, answer.reports);
}

nlohmann::json stitchAnswerObject(const StitchAnswer &answer)
{
    return stitchedSummaryJsonObject(answer.run, answer.name, answer.rank, answer.reports);
}

std::string stitchBrief(const StitchAnswer &answer)
{
    std::string text = std::to_string(answer.run.dumps.size()) + " dumps of rank " + std::to_string(answer.rank) + " stitched, " +
                       std::to_string(answer.run.gaps.size()) + " gaps";
    if (!answer.reports.empty()) {
        const DeviceSummary &s = answer.reports.front().summary;
        text += "; " + std::to_string(s.steps.size()) + " steps (" + std::to_string(s.steps.size() - wholeStepCount(s.steps)) +
                " partial), peak active " + formatBytes(s.peakActiveBytes);
    }
    return text;
}

} // namespace memlens
