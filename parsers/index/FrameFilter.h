#pragma once
// "Hide noise frames": the machinery every allocation passes through (unwinder, caching
// allocator, dispatcher, Python bindings, interpreter; FrameRole.h) folded out of a stack.
#include "model/Snapshot.h"

#include <string_view>
#include <vector>

namespace memlens {

bool isNoiseFrame(std::string_view name, std::string_view file);

// The stack's frames (innermost first), noise removed when `hideNoise`.
std::vector<FrameId> stackFrames(const Snapshot &snapshot, StackId stackId, bool hideNoise);

} // namespace memlens
