#pragma once
// MCP's search as a value: the allocations whose frames, labels, metadata or address contain a
// text, largest first, each named as `summary --json` names a live block.
#include "figures/DeviceFigures.h"
#include "figures/SnapshotSummary.h"
#include "views/AllocationSearch.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct SearchRequest {
    std::optional<int64_t> device; // none: the first
    std::string text;
    size_t top = 10;
};

struct SearchHit {
    LiveBlockInfo block;
    EventId freed; // kNever: alive at the end
};

struct SearchAnswer {
    std::string file;
    std::shared_ptr<const Snapshot> snapshot;
    int device = 0;
    std::string text;
    size_t matches = 0;
    std::vector<SearchHit> hits; // the largest `top`
    std::shared_ptr<const AllocationSearch> matcher; // every allocation's match, for a page that marks them all
};

// Throws QuestionError: an empty text, or one over 1,000 bytes (text); a device the file lacks.
SearchAnswer answerSearch(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const SearchRequest &request);
SearchAnswer answerSearch(const IndexedDevice &device, const SearchRequest &request);

nlohmann::json searchJson(const SearchAnswer &answer);
std::string searchBrief(const SearchAnswer &answer);

} // namespace memlens
