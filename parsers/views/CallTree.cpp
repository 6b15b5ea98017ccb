#include "views/CallTree.h"

#include "index/FrameFilter.h"
#include "attribution/AllocationSite.h"
#include "attribution/FrameRole.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace memlens {

std::string fxOriginalLine(std::string_view trace)
{
    // The innermost `File "path", line N, in name` line and the code line after it.
    const size_t at = trace.rfind("File \"");
    if (at == std::string_view::npos)
        return std::string(trace.substr(0, trace.find('\n')));
    std::string_view rest = trace.substr(at + 6);
    const size_t quote = rest.find('"');
    if (quote == std::string_view::npos)
        return std::string(trace.substr(at));
    std::string_view file = rest.substr(0, quote);
    if (const size_t slash = file.rfind('/'); slash != std::string_view::npos)
        file.remove_prefix(slash + 1);
    rest.remove_prefix(quote + 1);
    std::string line, name;
    if (const size_t l = rest.find("line "); l != std::string_view::npos)
        for (size_t i = l + 5; i < rest.size() && rest[i] >= '0' && rest[i] <= '9'; ++i)
            line += rest[i];
    std::string_view afterName;
    if (const size_t in = rest.find(", in "); in != std::string_view::npos) {
        afterName = rest.substr(in + 5);
        name = std::string(afterName.substr(0, afterName.find('\n')));
    }
    std::string text = std::string(file) + ":" + line + ":" + name;
    if (const size_t nl = afterName.find('\n'); nl != std::string_view::npos) {
        std::string_view code = afterName.substr(nl + 1);
        code = code.substr(0, code.find('\n'));
        while (!code.empty() && (code.front() == ' ' || code.front() == '\t'))
            code.remove_prefix(1);
        while (!code.empty() && (code.back() == ' ' || code.back() == '\r'))
            code.remove_suffix(1);
        if (!code.empty())
            text += "  " + std::string(code);
    }
    return text;
}

std::vector<FrameId> treeFrames(const Snapshot &snapshot, StackId stack, const CallTreeOptions &options)
{
    std::vector<FrameId> frames;
    for (FrameId id : stackFrames(snapshot, stack, options.hideNoise)) {
        const Frame &f = snapshot.frames.at(id);
        if (options.pythonOnly && !isPythonRole(frameRole(snapshot.strings.at(f.name), snapshot.strings.at(f.file))))
            continue;
        if (options.foldRecursion && !frames.empty() && frames.back() == id)
            continue;
        frames.push_back(id);
    }
    if (!options.bottomUp)
        std::reverse(frames.begin(), frames.end()); // stacks are innermost first
    return frames;
}

StringId CallTree::groupOf(const DeviceIndex &index, AllocationId allocation, StackGrouping grouping) const
{
    switch (grouping) {
    case StackGrouping::CompiledRegion: return index.compileContextOf(allocation);
    case StackGrouping::UserMetadata: return index.userMetadataOf(allocation);
    case StackGrouping::Label: return index.latestLabelOf(allocation); // the latest label names it
    case StackGrouping::None: break;
    }
    return StringTable::kEmpty;
}

CallTree::CallTree(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<AllocationId> &allocations,
                   const CallTreeOptions &options, const AllocationCategories *categories)
    : snapshot_(snapshot), grouping_(options.grouping), hideNoise_(options.hideNoise)
{
    nodes_.push_back({});
    // Children looked up by (parent, frame); frame lists are shared, so cache them per stack.
    std::unordered_map<uint64_t, CallTreeNodeId> child;
    std::unordered_map<StackId, std::vector<FrameId>> framesOf;
    std::unordered_map<StringId, CallTreeNodeId> groupNode;
    // FX frames of generated code with the same original model line are one node: the model's line
    // is what the user wrote, the generated file a compiler's detail.
    std::unordered_map<StringId, FrameId> byOriginalLine;
    auto canonical = [&](FrameId frame) {
        const FxFrame *fx = snapshot.fxFrame(frame);
        if (!fx || fx->originalTrace == StringTable::kEmpty)
            return frame;
        return byOriginalLine.emplace(fx->originalTrace, frame).first->second;
    };
    auto visit = [&](CallTreeNodeId at, uint64_t size, size_t category, StringId label) {
        CallTreeNode &n = nodes_[at];
        n.bytes += size;
        n.count += 1;
        n.categoryBytes[category] += size;
        if (label != StringTable::kEmpty && n.labels.size() < CallTreeNode::kMaxLabels && std::find(n.labels.begin(), n.labels.end(), label) == n.labels.end())
            n.labels.push_back(label);
    };
    auto newNode = [&](CallTreeNodeId parent, FrameId frame, StringId text) {
        CallTreeNode n;
        n.frame = frame;
        n.text = text;
        n.parent = parent;
        const CallTreeNodeId created = nodes_.push_back(std::move(n));
        nodes_[parent].children.push_back(created);
        return created;
    };
    for (AllocationId id : allocations) {
        const AllocationDetail d = index.detail(id);
        auto it = framesOf.find(d.stack);
        if (it == framesOf.end()) {
            std::vector<FrameId> frames = treeFrames(snapshot, d.stack, options);
            for (FrameId &f : frames)
                f = canonical(f);
            it = framesOf.emplace(d.stack, std::move(frames)).first;
        }
        std::vector<FrameId> path = it->second;
        if (path.empty())
            path.push_back(kNoStack);
        const auto category = static_cast<size_t>(categories ? categories->of(id) : Category::Unknown);
        const StringId label = index.latestLabelOf(id);
        CallTreeNodeId at = kRoot;
        visit(at, d.size, category, label);
        if (grouping_ != StackGrouping::None) {
            const StringId group = groupOf(index, id, grouping_);
            auto g = groupNode.find(group);
            if (g == groupNode.end())
                g = groupNode.emplace(group, newNode(kRoot, kGroup, group)).first;
            at = g->second;
            visit(at, d.size, category, label);
        }
        for (FrameId frame : path) {
            const uint64_t key = (uint64_t(at.index()) << 32) | frame.index();
            auto c = child.find(key);
            if (c == child.end())
                c = child.emplace(key, newNode(at, frame, StringTable::kEmpty)).first;
            at = c->second;
            visit(at, d.size, category, label);
        }
    }
    for (CallTreeNode &n : nodes_) {
        std::sort(n.children.begin(), n.children.end(), [&](CallTreeNodeId a, CallTreeNodeId b) {
            return nodes_[a].bytes != nodes_[b].bytes ? nodes_[a].bytes > nodes_[b].bytes : a < b;
        });
    }
}

std::string CallTree::label(CallTreeNodeId id) const
{
    const CallTreeNode &n = nodes_[id];
    if (id == kRoot)
        return "all";
    if (n.frame == kNoStack)
        return "(no stack recorded)";
    if (n.frame == kGroup) {
        if (n.text != StringTable::kEmpty)
            return std::string(snapshot_.strings.at(n.text));
        switch (grouping_) {
        case StackGrouping::CompiledRegion: return "(not compiled)";
        case StackGrouping::UserMetadata: return "(no user metadata)";
        default: return "(no label)";
        }
    }
    if (const FxFrame *fx = snapshot_.fxFrame(n.frame); fx && fx->originalTrace != StringTable::kEmpty) {
        std::string text = fxOriginalLine(snapshot_.strings.at(fx->originalTrace));
        if (fx->node != StringTable::kEmpty)
            text += " [" + std::string(snapshot_.strings.at(fx->node)) + "]";
        return text;
    }
    return hideNoise_ ? shownFrameText(snapshot_, n.frame) : snapshot_.frameText(n.frame);
}

std::vector<CallTreeNodeId> CallTree::heaviestPath() const
{
    std::vector<CallTreeNodeId> path{kRoot};
    while (!nodes_[path.back()].children.empty())
        path.push_back(nodes_[path.back()].children.front());
    return path;
}

std::vector<CallTree::FoldedPath> CallTree::foldedPaths() const
{
    std::vector<FoldedPath> out;
    std::vector<std::string> path; // the labels from the root's child down to the node at hand
    std::vector<std::pair<CallTreeNodeId, size_t>> work{{kRoot, 0}}; // a node and its parent's depth
    while (!work.empty()) {
        const auto [id, depth] = work.back();
        work.pop_back();
        path.resize(depth);
        if (id != kRoot)
            path.push_back(label(id));
        const CallTreeNode &n = nodes_[id];
        uint64_t inChildren = 0;
        for (CallTreeNodeId c : n.children)
            inChildren += nodes_[c].bytes;
        if (id != kRoot && n.bytes > inChildren)
            out.push_back({path, n.bytes - inChildren});
        for (auto it = n.children.rbegin(); it != n.children.rend(); ++it)
            work.emplace_back(*it, path.size());
    }
    return out;
}

std::string CallTree::folded() const
{
    return foldedText(foldedPaths());
}

std::string foldedText(const std::vector<CallTree::FoldedPath> &paths)
{
    std::string out;
    for (const CallTree::FoldedPath &p : paths) {
        for (size_t i = 0; i < p.frames.size(); ++i)
            out += (i ? ";" : "") + p.frames[i];
        out += " " + std::to_string(p.bytes) + "\n";
    }
    return out;
}

std::vector<SiteDiff> diffBySite(const Snapshot &a, const DeviceIndex &ia, TracePoint ea, const Snapshot &b,
                                 const DeviceIndex &ib, TracePoint eb)
{
    std::map<std::string, SiteDiff> sites;
    auto add = [&](const Snapshot &s, const DeviceIndex &index, TracePoint e, bool second) {
        SiteCache cache(s);
        for (AllocationId id : index.liveAt(e)) {
            const AllocationDetail d = index.detail(id);
            const std::string site = siteText(s, cache.of(d.stack));
            SiteDiff &entry = sites[site];
            entry.site = site;
            (second ? entry.bytesB : entry.bytesA) += static_cast<int64_t>(d.size);
        }
    };
    add(a, ia, ea, false);
    add(b, ib, eb, true);
    std::vector<SiteDiff> out;
    for (auto &[site, d] : sites) {
        if (d.change() != 0)
            out.push_back(d);
    }
    std::sort(out.begin(), out.end(), [](const SiteDiff &x, const SiteDiff &y) {
        return std::abs(x.change()) != std::abs(y.change()) ? std::abs(x.change()) > std::abs(y.change()) : x.site < y.site;
    });
    return out;
}

} // namespace memlens
