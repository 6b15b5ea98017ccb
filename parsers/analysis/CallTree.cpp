#include "analysis/CallTree.h"

#include "analysis/FrameFilter.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace memlens {

std::vector<uint32_t> treeFrames(const Snapshot &snapshot, uint32_t stack, const CallTreeOptions &options)
{
    std::vector<uint32_t> frames;
    for (uint32_t id : stackFrames(snapshot, stack, options.hideNoise)) {
        if (options.pythonOnly && !snapshot.strings.at(snapshot.frames.at(id).file).ends_with(".py"))
            continue;
        if (options.foldRecursion && !frames.empty() && frames.back() == id)
            continue;
        frames.push_back(id);
    }
    if (!options.bottomUp)
        std::reverse(frames.begin(), frames.end()); // stacks are innermost first
    return frames;
}

CallTree::CallTree(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<uint32_t> &allocations,
                   const CallTreeOptions &options, const AllocationCategories *categories)
    : snapshot_(snapshot)
{
    nodes_.emplace_back();
    // Children looked up by (parent, frame); frame lists are shared, so cache them per stack.
    std::unordered_map<uint64_t, uint32_t> child;
    std::unordered_map<uint32_t, std::vector<uint32_t>> framesOf;
    for (uint32_t id : allocations) {
        const AllocationDetail d = index.detail(id);
        auto it = framesOf.find(d.stack);
        if (it == framesOf.end())
            it = framesOf.emplace(d.stack, treeFrames(snapshot, d.stack, options)).first;
        std::vector<uint32_t> path = it->second;
        if (path.empty())
            path.push_back(kNoStack);
        uint32_t at = 0;
        const auto category = static_cast<size_t>(categories ? categories->of(id) : Category::Unknown);
        nodes_[0].bytes += d.size;
        nodes_[0].count += 1;
        nodes_[0].categoryBytes[category] += d.size;
        for (uint32_t frame : path) {
            const uint64_t key = (uint64_t(at) << 32) | frame;
            auto c = child.find(key);
            if (c == child.end()) {
                const auto created = static_cast<uint32_t>(nodes_.size());
                CallTreeNode n;
                n.frame = frame;
                n.parent = at;
                nodes_.push_back(n);
                nodes_[at].children.push_back(created);
                c = child.emplace(key, created).first;
            }
            at = c->second;
            nodes_[at].bytes += d.size;
            nodes_[at].count += 1;
            nodes_[at].categoryBytes[category] += d.size;
        }
    }
    for (CallTreeNode &n : nodes_) {
        std::sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
            return nodes_[a].bytes != nodes_[b].bytes ? nodes_[a].bytes > nodes_[b].bytes : a < b;
        });
    }
}

std::string CallTree::label(uint32_t id) const
{
    const uint32_t frame = nodes_[id].frame;
    if (id == 0)
        return "all";
    if (frame == kNoStack)
        return "(no stack recorded)";
    return snapshot_.frameText(frame);
}

std::vector<uint32_t> CallTree::heaviestPath() const
{
    std::vector<uint32_t> path{0};
    while (!nodes_[path.back()].children.empty())
        path.push_back(nodes_[path.back()].children.front());
    return path;
}

std::string CallTree::folded() const
{
    // A node's own bytes (not passed on to children) form one line.
    std::string out;
    std::vector<std::pair<uint32_t, std::string>> work{{0, std::string()}};
    while (!work.empty()) {
        auto [id, prefix] = work.back();
        work.pop_back();
        const CallTreeNode &n = nodes_[id];
        uint64_t inChildren = 0;
        for (uint32_t c : n.children)
            inChildren += nodes_[c].bytes;
        const std::string path = id == 0 ? std::string() : prefix.empty() ? label(id) : prefix + ";" + label(id);
        if (id != 0 && n.bytes > inChildren)
            out += path + " " + std::to_string(n.bytes - inChildren) + "\n";
        for (auto it = n.children.rbegin(); it != n.children.rend(); ++it)
            work.emplace_back(*it, path);
    }
    return out;
}

std::vector<SiteDiff> diffBySite(const Snapshot &a, const DeviceIndex &ia, uint32_t ea, const Snapshot &b,
                                 const DeviceIndex &ib, uint32_t eb)
{
    std::map<std::string, SiteDiff> sites;
    auto add = [&](const Snapshot &s, const DeviceIndex &index, uint32_t e, bool second) {
        for (uint32_t id : index.liveAt(e)) {
            const AllocationDetail d = index.detail(id);
            const auto frames = stackFrames(s, d.stack, true);
            const std::string site = frames.empty() ? std::string("(no stack recorded)") : s.frameText(frames.front());
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
