#pragma once
// Frames that are noise for users (unwinder, CPython eval loop, dispatcher boxing), hidden by
// default exactly as PyTorch's MemoryViz hides them.
#include "model/Snapshot.h"

#include <string_view>
#include <vector>

namespace memlens {

bool isNoiseFrame(std::string_view name, std::string_view file);

// The stack's frames (innermost first), noise removed when `hideNoise`.
std::vector<FrameId> stackFrames(const Snapshot &snapshot, uint32_t stackId, bool hideNoise);

} // namespace memlens
