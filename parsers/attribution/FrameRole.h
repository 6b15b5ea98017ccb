#pragma once
// What a frame of an allocation's stack is to a user asking "who allocated it": their own code,
// torch's Python, the standard library, an aten operator, other native code, or machinery that
// every allocation passes through (unwinder, caching allocator, dispatcher, Python bindings,
// the interpreter, libc). Stacks recorded with stacks="all" (torch's default) interleave all of
// them; the site rule (AllocationSite.h) and "hide noise frames" read frames through this.
#include <cstdint>
#include <string>
#include <string_view>

namespace memlens {

enum class FrameRole : uint8_t {
    UserCode,     // Python outside torch's package and the standard library (the user's, or a library's)
    TorchPython,  // torch's own Python, FX graph modules and Inductor's generated code
    StdlibPython, // Python's standard library and frozen modules
    Operator,     // the aten operator: at::_ops::NAME::call, or a profiler's "aten::NAME"
    NativeCode,   // other C++: a kernel (at::native::mm_out), an autograd node (MmBackward0::apply)
    Annotation,   // a profiler trace's record_function range ("Optimizer.step#AdamW.step"): context, never a site
    Machinery,    // never a site; folded by "hide noise frames"
};

FrameRole frameRole(std::string_view name, std::string_view file);

bool isPythonRole(FrameRole role);

// "aten::mm" for an operator frame, "" for any other; factory operators (empty, empty_strided,
// new_empty, …) that only make the output are machinery, not operators.
std::string operatorName(std::string_view name, std::string_view file);

// A C++ frame's function without its parameter list: "at::native::mm_out_cuda".
std::string functionName(std::string_view name);

// "MmBackward0" for a frame of autograd's generated node (its apply), "" for any other.
std::string autogradNodeName(std::string_view name);

// "torch.nn.functional.linear": a torch Python frame as the dotted module and function.
std::string torchFrameName(std::string_view name, std::string_view file);

} // namespace memlens
