#pragma once
// A folder with dumps at several steps, as a rank × step grid of peaks (the heatmap's numbers):
// ranks as rows, steps as columns, each cell a dump's figures. Outliers are judged within each
// step, against the median of that step's ranks, as the overview judges one step.
#include "ranks/RankSummary.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace memlens {

struct RankStepCell {
    size_t figures = 0; // index into the figures the grid was made from
    bool outlier = false;
    bool oom = false;
};

struct RankStepGrid {
    std::vector<int> ranks;                    // rows, ascending
    std::vector<std::optional<int64_t>> steps; // columns, ascending (unnamed first)
    std::vector<std::optional<RankStepCell>> cells; // row-major; empty: no readable dump there
    uint64_t highestPeak = 0;                       // peak active bytes, over all cells

    const std::optional<RankStepCell> &at(size_t row, size_t column) const { return cells[row * steps.size() + column]; }
};

RankStepGrid rankStepGrid(const std::vector<RankFigures> &figures);

} // namespace memlens
