#pragma once
// Who allocated it: the one rule every summary, view, command, MCP answer and diff names an
// allocation's call site by. The site is the stack's innermost frame of the user's code: the
// first Python frame outside torch's package and the standard library; else the first Python
// frame; else the first C++ frame that is not machinery (FrameRole.h). Stacks are innermost
// first. With it go the torch Python frame the site went through and the aten operator.
#include "model/Snapshot.h"

#include <string>
#include <unordered_map>

namespace memlens {

struct AllocationSite {
    FrameId site;     // none: no stack recorded, or only machinery frames
    // What the site went through: for a user site the innermost torch Python frame between it
    // and the allocation; for a C++ site the autograd node running it (backward), if any.
    FrameId via;
    // "aten::mm": for a Python site the innermost operator below it, for a C++ site the operator
    // it implements; "" when none was recorded.
    std::string op;
    bool stackRecorded = false;
    // No stack, and made by the trace on autograd's thread (DeviceIndex::madeOnAutogradThread):
    // backward's, where torch records no stack.
    bool autogradThread = false;
};

AllocationSite allocationSite(const Snapshot &snapshot, StackId stack, bool autogradThread = false);

// "model.py:340:forward" (a Python frame as Snapshot::frameText writes it), "at::native::mm_out_cuda"
// or "aten::mm" (a C++ frame without its parameter list), "(no stack recorded)",
// "backward (autograd's thread, no stack)" or "(allocator frames only)".
std::string siteText(const Snapshot &snapshot, const AllocationSite &site);
// "torch.nn.functional.linear", "MmBackward0": the via frame as the user knows it, "" when none.
std::string viaText(const Snapshot &snapshot, const AllocationSite &site);
// "torch.nn.functional.linear, aten::mm": what the site went through, "" when nothing.
std::string siteContext(const Snapshot &snapshot, const AllocationSite &site);
// Both: "model.py:340:forward → torch.nn.functional.linear, aten::mm".
std::string siteLine(const Snapshot &snapshot, const AllocationSite &site);

// Sites of many allocations: each distinct stack is read once.
class SiteCache {
public:
    explicit SiteCache(const Snapshot &snapshot) : snapshot_(snapshot) {}
    const AllocationSite &of(StackId stack);

private:
    const Snapshot &snapshot_;
    std::unordered_map<StackId, AllocationSite> sites_;
};

} // namespace memlens
