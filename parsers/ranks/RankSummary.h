#pragma once
// Per-rank figures of a distributed run and how the ranks compare: each rank is summarised
// on its own (its snapshot, or a FILE.summary.json written next to it by `memlens summary FILE
// --json` when that is newer), in parallel, holding one snapshot per thread at a time.
#include "figures/AllocationCategories.h"
#include "figures/ModuleUnits.h"
#include "ranks/RankFiles.h"

#include <array>
#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memlens {

class SnapshotCache;

struct RankFigures {
    explicit RankFigures(RankFile f = {}) : file(std::move(f)) {}
    RankFile file;
    std::string error; // non-empty: the file could not be read; the figures are zero
    bool fromSummaryFile = false;
    int device = 0;    // the device with the highest peak in the file
    uint64_t peakActiveBytes = 0;
    uint64_t peakReservedBytes = 0;
    size_t oomEntries = 0;
    std::array<uint64_t, kCategoryCount> categoryBytesAtPeak{};
    UnitSource unitsFrom = UnitSource::None; // the units' evidence (`units_from`)
    std::vector<UnitBytes> unitsAtPeak; // live at the peak by the unit that made them
};

// The figures of one file. Never throws: a file that cannot be read gives `error`.
RankFigures summarizeRank(const RankFile &file, const SnapshotCache *cache);

// A dump is summarised by its busiest device: device `device`'s figures replace those in
// `figures` when it is the first device seen, or when it peaks higher (a tie keeps the earlier).
// Shared by the files' summaries and a Parquet dataset's rows.
void keepBusiestDevice(RankFigures &figures, bool first, int device, uint64_t peakActiveBytes, uint64_t peakReservedBytes, size_t oomEntries,
                       const std::array<uint64_t, kCategoryCount> &categoryBytesAtPeak, UnitSource unitsFrom = UnitSource::None,
                       std::vector<UnitBytes> unitsAtPeak = {});

// Reads `path` + ".summary.json" when it exists, is newer than `path` and holds a summary of
// it; nullopt otherwise (the JSON is untrusted: anything missing or of the wrong type rejects it).
std::optional<RankFigures> readSummaryFile(const RankFile &file);
// The same from the summary's text (its age and size already checked).
std::optional<RankFigures> parseSummaryFile(std::string_view text, const RankFile &file);

struct RankProgress {
    std::function<void(size_t done, size_t total)> progress; // from worker threads; may be empty
    const std::atomic<bool> *cancel = nullptr;
};

// Every file, on `threads` threads (at least 1); results in the order of `files`.
std::vector<RankFigures> summarizeRanks(const std::vector<RankFile> &files, unsigned threads, const SnapshotCache *cache,
                                        const RankProgress &control = {});

struct RankComparison {
    double medianPeak = 0;
    double imbalance = 0;             // max ÷ median peak active bytes (0 without readable ranks)
    std::vector<size_t> outliers;     // indices whose peak is more than kOutlierShare off the peak most ranks share (3 ranks or more)
    std::vector<size_t> oomRanks;     // indices with OOM entries
    static constexpr double kOutlierShare = 0.10;
    static constexpr size_t kMinRanksForOutliers = 3;
};
RankComparison compareRanks(const std::vector<RankFigures> &ranks);

// `memlens summary DIR --json` (keys documented in README.md), and its text.
nlohmann::json rankOverviewJsonObject(const RankFolder &folder, const std::optional<int64_t> &step,
                                      const std::vector<RankFigures> &ranks);
std::string rankOverviewJson(const RankFolder &folder, const std::optional<int64_t> &step,
                             const std::vector<RankFigures> &ranks);
std::string rankOverviewText(const RankFolder &folder, const std::optional<int64_t> &step,
                             const std::vector<RankFigures> &ranks);

} // namespace memlens
