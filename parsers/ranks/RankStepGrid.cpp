#include "ranks/RankStepGrid.h"

#include <algorithm>
#include <map>

namespace memlens {

RankStepGrid rankStepGrid(const std::vector<RankFigures> &figures)
{
    RankStepGrid grid;
    std::map<std::optional<int64_t>, std::vector<size_t>> byStep;
    for (size_t i = 0; i < figures.size(); ++i) {
        if (!figures[i].error.empty())
            continue;
        grid.ranks.push_back(figures[i].file.rank);
        byStep[figures[i].file.step].push_back(i);
        grid.highestPeak = std::max(grid.highestPeak, figures[i].peakActiveBytes);
    }
    std::sort(grid.ranks.begin(), grid.ranks.end());
    grid.ranks.erase(std::unique(grid.ranks.begin(), grid.ranks.end()), grid.ranks.end());
    for (const auto &[step, files] : byStep)
        grid.steps.push_back(step);
    grid.cells.resize(grid.ranks.size() * grid.steps.size());
    size_t column = 0;
    for (const auto &[step, files] : byStep) {
        std::vector<RankFigures> ofStep;
        for (size_t i : files)
            ofStep.push_back(figures[i]);
        const RankComparison comparison = compareRanks(ofStep);
        for (size_t k = 0; k < files.size(); ++k) {
            const auto row = static_cast<size_t>(std::lower_bound(grid.ranks.begin(), grid.ranks.end(), ofStep[k].file.rank) - grid.ranks.begin());
            RankStepCell cell{files[k], false, ofStep[k].oomEntries > 0};
            cell.outlier = std::find(comparison.outliers.begin(), comparison.outliers.end(), k) != comparison.outliers.end();
            grid.cells[row * grid.steps.size() + column] = cell;
        }
        ++column;
    }
    return grid;
}

} // namespace memlens
