#pragma once
// `memlens summary DIR --rank R --stitch` and MCP's stitch_rank as a value: one rank's dumps
// stitched into one run, its dumps and gaps, and the run's summary.
#include "ranks/RankFiles.h"
#include "report/SummaryReport.h"
#include "stitch/DumpStitcher.h"

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace memlens {

class SnapshotCache;

struct StitchRequest {
    int rank = 0;
    size_t top = 10;
    bool reports = true; // false: no device reports (the window makes its own document of the run)
    const std::atomic<bool> *cancel = nullptr;
    std::function<void(size_t done, size_t total)> progress; // dumps read
};

struct StitchAnswer {
    std::string name; // "DIR rank R"
    int rank = 0;
    StitchedRun run;
    std::vector<DeviceReport> reports;
};

// Throws QuestionError (rank) when the folder holds no dumps of the rank.
StitchAnswer answerStitch(const RankFolder &folder, const StitchRequest &request, const SnapshotCache *cache);

std::string stitchAnswerText(const StitchAnswer &answer);
std::string stitchAnswerJson(const StitchAnswer &answer);
nlohmann::json stitchAnswerObject(const StitchAnswer &answer);
// "12 dumps of rank 0 stitched, 1 gaps; 153 steps (2 partial), peak active 5.1 GiB"
std::string stitchBrief(const StitchAnswer &answer);

} // namespace memlens
