#pragma once
// Two runs compared: the totals, bytes per category at each run's peak, live bytes by call site
// at a chosen point; what `memlens diff` prints (text, JSON, Markdown) and its CI gate reads.
#include "figures/DeviceFigures.h"
#include "views/CallTree.h"
#include "index/Moment.h"

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct RunTotals {
    uint64_t peakActiveBytes = 0;
    uint64_t peakReservedBytes = 0;
    uint64_t liveAtPoint = 0; // active bytes at the compared point (--at)
    std::array<uint64_t, kCategoryCount> categoryBytesAtPeak{};
};

struct RunDiff {
    std::string nameA, nameB;
    Moment at;
    RunTotals a, b;
    std::vector<SiteDiff> sites; // by |change|, largest first
};

// Throws std::invalid_argument when `at` names no event of a run.
// Each run named by its file.
RunDiff diffRuns(const IndexedDevice &a, const IndexedDevice &b, const Moment &at);

// How much larger `after` is than `before`, in percent (before 0: 0 when after is 0, else +inf).
double growthPercent(uint64_t before, uint64_t after);

// The CI gate (`diff --fail-if-peak-grows PCT --fail-if-reserved-grows PCT`): each limit a
// percentage the peak may grow by from A to B.
struct DiffLimits {
    std::optional<double> peakGrowsPercent;
    std::optional<double> reservedGrowsPercent;
};
struct DiffGate {
    double peakGrowth = 0;     // percent, A → B
    double reservedGrowth = 0; // percent, A → B
    bool peakOver = false;
    bool reservedOver = false;
    bool passed() const { return !peakOver && !reservedOver; }
};
DiffGate diffGate(const RunDiff &diff, const DiffLimits &limits);
// {"peak_active_growth_percent", "peak_reserved_growth_percent", "passed"}
nlohmann::json gateJson(const DiffGate &gate);

// What `diff --json` prints: totals, categories at each peak, the first `topSites` sites.
nlohmann::json diffJson(const RunDiff &diff, int device, size_t topSites);

// For a pull-request comment: totals, per-category change and the top call-site changes.
std::string diffMarkdown(const RunDiff &diff, size_t topSites);

} // namespace memlens
