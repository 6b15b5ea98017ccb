#include "index/StackMatch.h"

#include <algorithm>

namespace memlens {

std::vector<bool> stacksWithFrame(const Snapshot &snapshot, const std::function<bool(const Frame &)> &frameMatches)
{
    std::vector<bool> frame(snapshot.frames.size());
    for (size_t i = 0; i < frame.size(); ++i)
        frame[i] = frameMatches(snapshot.frames.at(FrameId(static_cast<uint32_t>(i))));
    std::vector<bool> stack(snapshot.stacks.size());
    for (uint32_t id = 0; id < stack.size(); ++id) {
        const auto frames = snapshot.stacks.at(id);
        stack[id] = std::any_of(frames.begin(), frames.end(), [&](FrameId f) { return frame[f.index()]; });
    }
    return stack;
}

} // namespace memlens
