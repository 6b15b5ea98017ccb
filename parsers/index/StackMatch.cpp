#include "index/StackMatch.h"

#include <algorithm>

namespace memlens {

IdVector<StackId, bool> stacksWithFrame(const Snapshot &snapshot, const std::function<bool(const Frame &)> &frameMatches)
{
    IdVector<FrameId, bool> frame(snapshot.frames.size());
    for (uint32_t i = 0; i < frame.size(); ++i)
        frame[FrameId(i)] = frameMatches(snapshot.frames.at(FrameId(i)));
    IdVector<StackId, bool> stack(snapshot.stacks.size());
    for (uint32_t i = 0; i < stack.size(); ++i) {
        const auto frames = snapshot.stacks.at(StackId(i));
        stack[StackId(i)] = std::any_of(frames.begin(), frames.end(), [&](FrameId f) { return frame[f]; });
    }
    return stack;
}

} // namespace memlens
