#include "model/Snapshot.h"

#include <algorithm>
#include <array>
#include <set>

namespace memlens {

namespace {
constexpr std::array<std::string_view, kActionCount> kActionNames = {
    "alloc",       "free_requested", "free_completed", "segment_alloc", "segment_free",
    "segment_map", "segment_unmap",  "snapshot",       "oom",           "annotate",
    "other",
};
}

std::string_view actionName(Action action)
{
    return kActionNames[static_cast<size_t>(action)];
}

Action actionFromName(std::string_view name)
{
    for (size_t i = 0; i + 1 < kActionNames.size(); ++i) {
        if (kActionNames[i] == name)
            return static_cast<Action>(i);
    }
    return Action::Other;
}

std::string_view blockStateName(BlockState state)
{
    switch (state) {
    case BlockState::ActiveAllocated:
        return "active_allocated";
    case BlockState::ActivePendingFree:
        return "active_pending_free";
    case BlockState::Inactive:
        return "inactive";
    case BlockState::Unknown:
        break;
    }
    return "unknown";
}

std::vector<int> Snapshot::devices() const
{
    std::set<int> found;
    for (const Segment &s : segments)
        found.insert(s.device);
    for (size_t d = 0; d < traces.size(); ++d) {
        if (traces[d].count() > 0)
            found.insert(static_cast<int>(d));
    }
    return {found.begin(), found.end()};
}

const char *CategoryTimeline::torchCategoryName(int c)
{
    static const char *names[kCategories] = {"parameter", "optimizer_state", "input", "temporary",
                                             "activation", "gradient", "autograd_detail", "unknown"};
    return c >= 0 && c < kCategories ? names[c] : "unknown";
}

std::string Snapshot::deviceName(int device) const
{
    if (device == facts.hostDevice)
        return "host";
    return device == facts.cpuDevice ? std::string("cpu") : "cuda:" + std::to_string(device);
}

PoolIndex Snapshot::poolIndex(const std::pair<int64_t, int64_t> &id) const
{
    const auto it = std::find(pools.begin(), pools.end(), id);
    return PoolIndex(it == pools.end() ? 0 : static_cast<uint32_t>(it - pools.begin()));
}

StepPart stepPartOfName(std::string_view name)
{
    auto contains = [name](std::string_view part) { return name.find(part) != std::string_view::npos; };
    // Hooks around one layer (FSDP's FSDP::pre_forward (layers.3), a module's pre/post hooks) run
    // before or after its work, not during it: they say nothing of the pass an event is in.
    if (name.starts_with("FSDP::") || contains("pre_forward") || contains("post_forward") || contains("pre_backward") ||
        contains("post_backward") || contains("_hook") || (contains("forward") && contains("backward")))
        return StepPart::None; // and a range over both passes ("forward-backward") is neither
    if (contains("ptimizer") || contains("optim"))
        return StepPart::Optimizer;
    if (contains("backward"))
        return StepPart::Backward;
    if (contains("forward"))
        return StepPart::Forward;
    return StepPart::None;
}

const FxFrame *Snapshot::fxFrame(FrameId frameId) const
{
    auto it = std::lower_bound(fxFrames.begin(), fxFrames.end(), frameId, [](const auto &e, FrameId id) { return e.first < id; });
    return it != fxFrames.end() && it->first == frameId ? &it->second : nullptr;
}

std::string Snapshot::frameText(FrameId frameId) const
{
    const Frame &f = frames.at(frameId);
    std::string_view file = strings.at(f.file);
    if (file.starts_with('<')) // a profiler operator such as "<cpu_op>": its name says it all
        return std::string(strings.at(f.name));
    if (auto slash = file.find_last_of("/\\"); slash != std::string_view::npos) // Windows paths too
        file.remove_prefix(slash + 1);
    std::string text(file);
    text += ':';
    text += std::to_string(f.line);
    text += ':';
    // No tree row or list entry without a name: the unwinder found no symbol there.
    text += strings.at(f.name).empty() ? std::string_view("(unknown function)") : strings.at(f.name);
    return text;
}

} // namespace memlens
