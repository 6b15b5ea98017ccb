#include "questions/RankOverviewQuestion.h"

#include "questions/QuestionError.h"

#include <algorithm>

namespace memlens {

bool RankOverviewAnswer::anyUnread() const
{
    return std::any_of(ranks.begin(), ranks.end(), [](const RankFigures &r) { return !r.error.empty(); });
}

void admitRankFolder(const RankFolder &folder)
{
    if (folder.files.empty())
        throw QuestionError("path", folder.folder + ": no snapshot files (*.pickle, *.pkl, *.pickle.zst) in it", QuestionError::Kind::Input);
}

RankOverviewAnswer answerRankOverview(RankFolder folder, const RankOverviewRequest &request, const SnapshotCache *cache)
{
    admitRankFolder(folder);
    std::optional<int64_t> step = folder.latestStep();
    if (request.step) {
        step = *request.step;
        if (std::find(folder.steps.begin(), folder.steps.end(), step) == folder.steps.end())
            throw QuestionError("step", folder.folder + " holds no snapshots of that step", QuestionError::Kind::Usage, std::to_string(*request.step));
    }
    std::vector<RankFigures> ranks = summarizeRanks(folder.filesOfStep(step), std::max(1u, request.threads), cache, request.control);
    return {std::move(folder), step, std::move(ranks)};
}

std::string rankOverviewAnswerText(const RankOverviewAnswer &answer)
{
    return rankOverviewText(answer.folder, answer.step, answer.ranks);
}

std::string rankOverviewAnswerJson(const RankOverviewAnswer &answer)
{
    return rankOverviewJson(answer.folder, answer.step, answer.ranks);
}

nlohmann::json rankOverviewAnswerObject(const RankOverviewAnswer &answer)
{
    return rankOverviewJsonObject(answer.folder, answer.step, answer.ranks);
}

} // namespace memlens
