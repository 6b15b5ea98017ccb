#pragma once
// `memlens summary DIR` and MCP's summary of a folder as a value: one step's per-rank peaks,
// the imbalance and the outliers.
#include "ranks/RankFiles.h"
#include "ranks/RankSummary.h"

#include <optional>
#include <string>
#include <vector>

namespace memlens {

class SnapshotCache;

struct RankOverviewRequest {
    std::optional<int64_t> step; // none: the latest
    unsigned threads = 1;
    RankProgress control; // the window's progress bar and cancel
};

// A folder with no dump in it is refused (the window opens a folder before it asks of a step).
void admitRankFolder(const RankFolder &folder);

struct RankOverviewAnswer {
    RankFolder folder;
    std::optional<int64_t> step;
    std::vector<RankFigures> ranks; // a rank whose dump could not be read has its error
    bool anyUnread() const;
};

// Throws QuestionError: a folder without snapshots (path, Kind::Input), a step it lacks (step).
RankOverviewAnswer answerRankOverview(RankFolder folder, const RankOverviewRequest &request, const SnapshotCache *cache);

std::string rankOverviewAnswerText(const RankOverviewAnswer &answer);
std::string rankOverviewAnswerJson(const RankOverviewAnswer &answer);
nlohmann::json rankOverviewAnswerObject(const RankOverviewAnswer &answer);

} // namespace memlens
