#pragma once
// "Hide noise frames": the machinery every allocation passes through (unwinder, caching
// allocator, dispatcher, Python bindings, interpreter; FrameRole.h) folded out of a stack.
#include "model/Snapshot.h"

#include <string>
#include <string_view>
#include <vector>

namespace memlens {

bool isNoiseFrame(std::string_view name, std::string_view file);

// The stack's frames (innermost first), noise removed when `hideNoise`: the machinery, and a
// kernel beside the operator it implements (at::native::_to_copy under at::_ops::_to_copy::call,
// the same step said twice), and an operator repeated directly below itself.
std::vector<FrameId> stackFrames(const Snapshot &snapshot, StackId stackId, bool hideNoise);

// A frame as the views show it with noise hidden: Python as file:line:name; an operator as
// "aten::_to_copy"; other C++ as its function without the parameter list
// ("at::native::mm_out_cuda", where the demangled signature ran over four lines).
std::string shownFrameText(const Snapshot &snapshot, FrameId frame);

} // namespace memlens
