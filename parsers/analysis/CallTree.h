#pragma once
// Call trees of a set of allocations (e.g. those live at an event): top-down from the outermost
// frame, or bottom-up from the allocation site; bytes and counts per node. The flame graph,
// the stack views, folded-stack export and `memlens diff` are built from it.
#include "analysis/AllocationCategories.h"
#include "analysis/DeviceIndex.h"
#include "model/Snapshot.h"

#include <array>
#include <string>
#include <vector>

namespace memlens {

struct CallTreeOptions {
    bool bottomUp = false;
    bool hideNoise = true;   // the frames MemoryViz hides
    bool pythonOnly = false; // only frames from .py files
    bool foldRecursion = false; // a frame repeated directly below itself counts once
};

struct CallTreeNode {
    uint32_t frame = UINT32_MAX; // UINT32_MAX: the root, or "no stack recorded" when kNoStack
    uint64_t bytes = 0;
    uint64_t count = 0;
    uint32_t parent = UINT32_MAX;
    std::vector<uint32_t> children; // sorted by bytes, largest first
    std::array<uint64_t, kCategoryCount> categoryBytes{}; // when built with categories
};

class CallTree {
public:
    static constexpr uint32_t kNoStack = UINT32_MAX - 1; // frame of the node for stackless allocations

    CallTree(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<uint32_t> &allocations,
             const CallTreeOptions &options, const AllocationCategories *categories = nullptr);

    const CallTreeNode &node(uint32_t id) const { return nodes_[id]; }
    size_t size() const { return nodes_.size(); }
    const CallTreeNode &root() const { return nodes_[0]; }
    std::string label(uint32_t id) const; // "file:line:name", or "(no stack recorded)"
    // The path from the root to the heaviest leaf.
    std::vector<uint32_t> heaviestPath() const;
    // "frame;frame;frame bytes" lines (outermost first), as flamegraph.pl and speedscope read.
    std::string folded() const;

private:
    const Snapshot &snapshot_;
    std::vector<CallTreeNode> nodes_;
};

// The frames of one stack after the options' filters, in tree order.
std::vector<uint32_t> treeFrames(const Snapshot &snapshot, uint32_t stack, const CallTreeOptions &options);

// Live bytes by call site (innermost visible frame, as text) in two snapshots.
struct SiteDiff {
    std::string site;
    int64_t bytesA = 0;
    int64_t bytesB = 0;
    int64_t change() const { return bytesB - bytesA; }
};
std::vector<SiteDiff> diffBySite(const Snapshot &a, const DeviceIndex &ia, uint32_t ea, const Snapshot &b,
                                 const DeviceIndex &ib, uint32_t eb);

} // namespace memlens
