#pragma once
// Call trees of a set of allocations (e.g. those live at an event): top-down from the outermost
// frame, or bottom-up from the allocation site; bytes and counts per node. The flame graph,
// the stack views, folded-stack export and `memlens diff` are built from it.
#include "figures/AllocationCategories.h"
#include "index/DeviceIndex.h"
#include "model/EnumNames.h"
#include "model/IdVector.h"
#include "model/Snapshot.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace memlens {

// A first level above the stacks: one node per compiled region, user_metadata value or label.
enum class StackGrouping : uint8_t { None, CompiledRegion, UserMetadata, Label };
constexpr EnumNames<StackGrouping, 4> kStackGroupingNames{{{
    {StackGrouping::None, "stack"},
    {StackGrouping::CompiledRegion, "compiled_region"},
    {StackGrouping::UserMetadata, "user_metadata"},
    {StackGrouping::Label, "label"},
}}};

struct CallTreeOptions {
    StackGrouping grouping = StackGrouping::None;
    bool bottomUp = false;
    bool hideNoise = true;   // the frames MemoryViz hides
    bool pythonOnly = false; // only Python frames (FrameRole.h: .py files, frozen and FX-generated modules)
    bool foldRecursion = false; // a frame repeated directly below itself counts once
};

// A node of one CallTree (0: the root).
using CallTreeNodeId = Id<struct CallTreeNodeTag>;

struct CallTreeNode {
    // None: the root; kNoStack: "no stack recorded"; kGroup: a grouping node named by `text`.
    // An FX frame stands for every frame with the same original model line.
    FrameId frame;
    StringId text = StringTable::kEmpty; // a group's value, "" for "(none)"
    uint64_t bytes = 0;
    uint64_t count = 0;
    CallTreeNodeId parent; // none for the root
    std::vector<CallTreeNodeId> children; // sorted by bytes, largest first
    std::array<uint64_t, kCategoryCount> categoryBytes{}; // when built with categories
    std::vector<StringId> labels; // annotate labels below, distinct, at most kMaxLabels
    static constexpr size_t kMaxLabels = 4;
};

class CallTree {
public:
    static constexpr FrameId kNoStack{UINT32_MAX - 1}; // frame of the node for stackless allocations
    static constexpr FrameId kGroup{UINT32_MAX - 2};

    CallTree(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<AllocationId> &allocations,
             const CallTreeOptions &options, const AllocationCategories *categories = nullptr);

    static constexpr CallTreeNodeId kRoot{0};
    const CallTreeNode &node(CallTreeNodeId id) const { return nodes_[id]; }
    size_t size() const { return nodes_.size(); }
    const CallTreeNode &root() const { return nodes_[kRoot]; }
    const Snapshot &snapshot() const { return snapshot_; }
    // "file:line:name" (an FX frame: its original model line and graph node), a group's value,
    // or "(no stack recorded)".
    std::string label(CallTreeNodeId id) const;
    // The path from the root to the heaviest leaf.
    std::vector<CallTreeNodeId> heaviestPath() const;
    // Each node's own bytes (those not passed on to its children) with its path from the root,
    // depth first; the folded lines.
    struct FoldedPath {
        std::vector<std::string> frames; // labels, outermost first
        uint64_t bytes = 0;
    };
    std::vector<FoldedPath> foldedPaths() const;
    // "frame;frame;frame bytes" lines (outermost first), as flamegraph.pl and speedscope read.
    std::string folded() const;

private:
    StringId groupOf(const DeviceIndex &index, AllocationId allocation, StackGrouping grouping) const;

    const Snapshot &snapshot_;
    StackGrouping grouping_;
    bool hideNoise_; // frames named as shownFrameText names them
    IdVector<CallTreeNodeId, CallTreeNode> nodes_;
};

// "model.py:10:forward  a = self.net1(x)": the innermost line of an FX frame's original trace.
std::string fxOriginalLine(std::string_view trace);

// The frames of one stack after the options' filters, in tree order.
std::vector<FrameId> treeFrames(const Snapshot &snapshot, StackId stack, const CallTreeOptions &options);

// Live bytes by call site (attribution/AllocationSite, as text) in two snapshots.
struct SiteDiff {
    std::string site;
    int64_t bytesA = 0;
    int64_t bytesB = 0;
    int64_t change() const { return bytesB - bytesA; }
};
std::vector<SiteDiff> diffBySite(const Snapshot &a, const DeviceIndex &ia, TracePoint ea, const Snapshot &b,
                                 const DeviceIndex &ib, TracePoint eb);

// "frame;frame;frame bytes" lines of these paths.
std::string foldedText(const std::vector<CallTree::FoldedPath> &paths);

} // namespace memlens
