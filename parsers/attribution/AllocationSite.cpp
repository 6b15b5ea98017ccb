#include "attribution/AllocationSite.h"

#include "attribution/FrameRole.h"

#include <vector>

namespace memlens {

AllocationSite allocationSite(const Snapshot &snapshot, StackId stack, bool autogradThread)
{
    AllocationSite out;
    const auto frames = snapshot.stacks.at(stack);
    out.stackRecorded = !frames.empty();
    out.autogradThread = autogradThread && frames.empty();
    std::vector<FrameRole> roles;
    roles.reserve(frames.size());
    for (FrameId id : frames) {
        const Frame &f = snapshot.frames.at(id);
        roles.push_back(frameRole(snapshot.strings.at(f.name), snapshot.strings.at(f.file)));
    }
    size_t at = frames.size();
    for (size_t i = 0; i < frames.size() && at == frames.size(); ++i) {
        if (roles[i] == FrameRole::UserCode)
            at = i;
    }
    for (size_t i = 0; i < frames.size() && at == frames.size(); ++i) {
        if (isPythonRole(roles[i]))
            at = i;
    }
    // Not every stack has Python frames (backward runs on autograd's threads): then the
    // innermost C++ frame that is not machinery, a kernel or the operator itself.
    for (size_t i = 0; i < frames.size() && at == frames.size(); ++i) {
        if (roles[i] == FrameRole::NativeCode || roles[i] == FrameRole::Operator)
            at = i;
    }
    if (at == frames.size())
        return out;
    out.site = frames[at];
    const bool userSite = roles[at] == FrameRole::UserCode;
    auto operatorAt = [&](size_t i) {
        const Frame &f = snapshot.frames.at(frames[i]);
        return roles[i] == FrameRole::Operator ? operatorName(snapshot.strings.at(f.name), snapshot.strings.at(f.file)) : std::string();
    };
    if (isPythonRole(roles[at])) {
        // The innermost operator below the site: what the Python line ran.
        for (size_t i = 0; i < at && out.op.empty(); ++i)
            out.op = operatorAt(i);
        for (size_t i = 0; i < at && userSite && out.via.isNone(); ++i) {
            if (roles[i] == FrameRole::TorchPython)
                out.via = frames[i];
        }
        return out;
    }
    // A C++ site is a kernel or the operator itself: the operator it implements is the next one
    // out, and in backward the autograd node that ran it.
    for (size_t i = at + 1; i < frames.size() && out.op.empty() && roles[at] != FrameRole::Operator; ++i)
        out.op = operatorAt(i);
    for (size_t i = at; i < frames.size() && out.via.isNone(); ++i) {
        if (!autogradNodeName(snapshot.strings.at(snapshot.frames.at(frames[i]).name)).empty())
            out.via = frames[i];
    }
    return out;
}

std::string siteText(const Snapshot &snapshot, const AllocationSite &site)
{
    if (site.site.isNone())
        return site.autogradThread ? "backward (autograd's thread, no stack)" : site.stackRecorded ? "(allocator frames only)" : "(no stack recorded)";
    const Frame &f = snapshot.frames.at(site.site);
    const std::string_view name = snapshot.strings.at(f.name), file = snapshot.strings.at(f.file);
    const FrameRole role = frameRole(name, file);
    if (isPythonRole(role) || file.starts_with('<'))
        return snapshot.frameText(site.site);
    // C++: the function without its parameter list (a signature runs to hundreds of characters).
    if (role == FrameRole::Operator)
        return operatorName(name, file);
    std::string text = functionName(name);
    if (!file.empty() && file != "??")
        text += " (" + std::string(file.substr(file.rfind('/') == std::string_view::npos ? 0 : file.rfind('/') + 1)) + ")";
    return text;
}

std::string viaText(const Snapshot &snapshot, const AllocationSite &site)
{
    if (site.via.isNone())
        return {};
    const Frame &f = snapshot.frames.at(site.via);
    const std::string node = autogradNodeName(snapshot.strings.at(f.name));
    return node.empty() ? torchFrameName(snapshot.strings.at(f.name), snapshot.strings.at(f.file)) : node;
}

std::string siteContext(const Snapshot &snapshot, const AllocationSite &site)
{
    std::string text = viaText(snapshot, site);
    if (!site.op.empty())
        text += (text.empty() ? "" : ", ") + site.op;
    return text;
}

std::string siteLine(const Snapshot &snapshot, const AllocationSite &site)
{
    const std::string context = siteContext(snapshot, site);
    return context.empty() ? siteText(snapshot, site) : siteText(snapshot, site) + " → " + context;
}

const AllocationSite &SiteCache::of(StackId stack)
{
    auto it = sites_.find(stack);
    if (it == sites_.end())
        it = sites_.emplace(stack, allocationSite(snapshot_, stack)).first;
    return it->second;
}

} // namespace memlens
