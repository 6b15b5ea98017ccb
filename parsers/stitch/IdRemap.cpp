#include "stitch/IdRemap.h"

#include <algorithm>
#include <stdexcept>

namespace memlens {

IdRemap::IdRemap(const Snapshot &from, Snapshot &to)
    : from_(from), to_(to), strings_(from.strings.size()), frames_(from.frames.size()), stacks_(from.stacks.size()), streams_(from.streams.size()),
      pools_(from.pools.size())
{
}

StringId IdRemap::string(StringId id)
{
    StringId &to = strings_.at(id.index());
    if (to.isNone())
        to = to_.strings.intern(from_.strings.at(id));
    return to;
}

FrameId IdRemap::frame(FrameId id)
{
    FrameId &to = frames_.at(id.index());
    if (!to.isNone())
        return to;
    const Frame &f = from_.frames.at(id);
    const size_t before = to_.frames.size();
    to = to_.frames.intern(Frame{string(f.name), string(f.file), f.line});
    if (to_.frames.size() > before) {
        if (const FxFrame *fx = from_.fxFrame(id)) {
            // New frame ids only grow, so the list stays sorted by id.
            to_.fxFrames.emplace_back(to, FxFrame{string(fx->op), string(fx->node), string(fx->target), string(fx->originalTrace)});
        }
    }
    return to;
}

StackId IdRemap::stack(StackId id)
{
    StackId &to = stacks_.at(id.index());
    if (!to.isNone())
        return to;
    std::vector<FrameId> frames;
    for (FrameId f : from_.stacks.at(id))
        frames.push_back(frame(f));
    to = to_.stacks.intern(frames);
    return to;
}

StreamIndex IdRemap::stream(StreamIndex index)
{
    StreamIndex &to = streams_.at(index.index());
    if (to.isNone())
        to = streamOf(from_.streams.at(index.index()));
    return to;
}

StreamIndex IdRemap::streamOf(uint64_t value)
{
    const auto it = std::find(to_.streams.begin(), to_.streams.end(), value);
    if (it != to_.streams.end())
        return StreamIndex(static_cast<uint16_t>(it - to_.streams.begin()));
    // The last index is the type's none.
    if (to_.streams.size() >= UINT16_MAX)
        throw std::invalid_argument("more than 65,535 streams");
    to_.streams.push_back(value);
    return StreamIndex(static_cast<uint16_t>(to_.streams.size() - 1));
}

PoolIndex IdRemap::pool(PoolIndex index)
{
    PoolIndex &to = pools_.at(index.index());
    if (to.isNone()) {
        const auto &id = from_.pools.at(index.index());
        const auto it = std::find(to_.pools.begin(), to_.pools.end(), id);
        to = PoolIndex(static_cast<uint32_t>(it - to_.pools.begin()));
        if (it == to_.pools.end())
            to_.pools.push_back(id);
    }
    return to;
}

} // namespace memlens
