#pragma once
// `memlens summary FILE --folded` and MCP's stacks: the call paths of what is live at a moment,
// top-down from the outermost frame or bottom-up, each with the bytes of its last node.
#include "figures/DeviceFigures.h"
#include "index/Moment.h"
#include "views/CallTree.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct StacksRequest {
    std::optional<int64_t> device; // none: the first
    Moment at = Moment::peak();
    bool bottomUp = false;
    size_t top = 10; // the JSON's paths
};

struct StacksAnswer {
    std::string file;
    int device = 0;
    Moment at;
    TracePoint point = TracePoint::start(); // the moment `at` names
    bool bottomUp = false;
    uint64_t liveBytes = 0;
    std::vector<CallTree::FoldedPath> paths; // depth first, as the folded lines go
    size_t top = 10;
};

// Throws QuestionError for a file without devices, a device it lacks, a moment it does not reach.
StacksAnswer answerStacks(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const StacksRequest &request);
StacksAnswer answerStacks(const IndexedDevice &device, const StacksRequest &request);

// The folded lines ("frame;frame bytes"), for flamegraph.pl and speedscope.
std::string stacksFoldedText(const StacksAnswer &answer);
// The paths largest first, cut to `top`, and one line of the largest three.
nlohmann::json stacksJson(const StacksAnswer &answer);
std::string stacksBrief(const StacksAnswer &answer);

} // namespace memlens
