#pragma once
// What `memlens watch` says of each dump as it lands: the rank's peaks and how they moved
// since its previous dump and since its first.
#include "ranks/RankSummary.h"

#include <map>
#include <optional>
#include <string>

namespace memlens {

struct WatchLine {
    RankFigures figures;
    std::optional<int64_t> previousStep;
    std::optional<double> changePercent; // peak active against the rank's previous dump
    std::optional<double> growthPercent; // peak active against the rank's first dump
};

class RankPeakHistory {
public:
    // `figures` must have been read (no error).
    WatchLine add(const RankFigures &figures);

private:
    struct Peaks {
        uint64_t first = 0, previous = 0;
        std::optional<int64_t> previousStep;
    };
    std::map<int, Peaks> ranks_;
};

std::string watchLineText(const WatchLine &line);
std::string watchLineJson(const WatchLine &line); // one line, no newline
// Whether the line's growth since the rank's first dump passes `percent`.
bool peakGrewPast(const WatchLine &line, double percent);

} // namespace memlens
