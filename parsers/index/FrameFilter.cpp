#include "index/FrameFilter.h"

#include "attribution/FrameRole.h"

namespace memlens {

bool isNoiseFrame(std::string_view name, std::string_view file)
{
    return frameRole(name, file) == FrameRole::Machinery;
}

std::vector<FrameId> stackFrames(const Snapshot &snapshot, StackId stackId, bool hideNoise)
{
    std::vector<FrameId> result;
    for (FrameId id : snapshot.stacks.at(stackId)) {
        const Frame &f = snapshot.frames.at(id);
        if (hideNoise && isNoiseFrame(snapshot.strings.at(f.name), snapshot.strings.at(f.file)))
            continue;
        result.push_back(id);
    }
    return result;
}

} // namespace memlens
