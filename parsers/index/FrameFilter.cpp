#include "index/FrameFilter.h"

#include "attribution/FrameRole.h"

#include <algorithm>

namespace memlens {

bool isNoiseFrame(std::string_view name, std::string_view file)
{
    return frameRole(name, file) == FrameRole::Machinery;
}

namespace {

// Whether C++ function `fn` is operator `op`'s own implementation: its last name is the operator's
// with at most a leading underscore and the suffixes torch's kernels carry.
bool isKernelOf(const std::string &fn, std::string_view op)
{
    std::string_view last = fn;
    if (const size_t colons = last.rfind("::"); colons != std::string_view::npos)
        last.remove_prefix(colons + 2);
    if (last.starts_with('_') && !op.starts_with('_'))
        last.remove_prefix(1);
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (std::string_view suffix : {"_symint", "_cuda", "_out", "_impl"}) {
            if (last.size() > suffix.size() && last.ends_with(suffix)) {
                last.remove_suffix(suffix.size());
                stripped = true;
            }
        }
    }
    return last == op;
}

} // namespace

std::vector<FrameId> stackFrames(const Snapshot &snapshot, StackId stackId, bool hideNoise)
{
    std::vector<FrameId> result;
    std::string lastOperator; // of the C++ run so far ("" after a Python frame)
    std::vector<size_t> kernels; // positions in `result` of this run's native frames
    for (FrameId id : snapshot.stacks.at(stackId)) {
        const Frame &f = snapshot.frames.at(id);
        const std::string_view name = snapshot.strings.at(f.name), file = snapshot.strings.at(f.file);
        if (!hideNoise) {
            result.push_back(id);
            continue;
        }
        const FrameRole role = frameRole(name, file);
        if (role == FrameRole::Machinery)
            continue;
        if (isPythonRole(role)) {
            lastOperator.clear();
            kernels.clear();
        } else if (role == FrameRole::Operator) {
            const std::string op = operatorName(name, file).substr(6); // "aten::" off
            if (op == lastOperator)
                continue; // the operator again (a composite calling itself through the dispatcher)
            // Its kernel, just inside it, says the same: at::native::OP, OP_symint, OP_cuda, _OP_impl.
            std::erase_if(kernels, [&](size_t at) {
                const bool same = isKernelOf(functionName(snapshot.strings.at(snapshot.frames.at(result[at]).name)), op);
                if (same)
                    result[at] = FrameId::none();
                return same;
            });
            lastOperator = op;
        } else if (role == FrameRole::NativeCode) {
            kernels.push_back(result.size());
        }
        result.push_back(id);
    }
    std::erase(result, FrameId::none());
    return result;
}

std::string shownFrameText(const Snapshot &snapshot, FrameId frame)
{
    const Frame &f = snapshot.frames.at(frame);
    const std::string_view name = snapshot.strings.at(f.name), file = snapshot.strings.at(f.file);
    switch (frameRole(name, file)) {
    case FrameRole::Operator: return operatorName(name, file);
    case FrameRole::NativeCode: return functionName(name);
    default: return snapshot.frameText(frame);
    }
}

} // namespace memlens
