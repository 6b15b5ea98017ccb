#include "stitch/IdRemap.h"

#include <algorithm>
#include <stdexcept>

namespace memlens {

IdRemap::IdRemap(const Snapshot &from, Snapshot &to)
    : from_(from), to_(to), strings_(from.strings.size(), kUnset), stacks_(from.stacks.size(), kUnset), streams_(from.streams.size(), kUnset),
      pools_(from.pools.size(), kUnset), frames_(from.frames.size())
{
}

uint32_t IdRemap::string(uint32_t id)
{
    uint32_t &to = strings_.at(id);
    if (to == kUnset)
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

uint32_t IdRemap::stack(uint32_t id)
{
    uint32_t &to = stacks_.at(id);
    if (to != kUnset)
        return to;
    std::vector<FrameId> frames;
    for (FrameId f : from_.stacks.at(id))
        frames.push_back(frame(f));
    to = to_.stacks.intern(frames);
    return to;
}

uint16_t IdRemap::stream(uint16_t index)
{
    uint32_t &to = streams_.at(index);
    if (to == kUnset)
        to = streamOf(from_.streams.at(index));
    return static_cast<uint16_t>(to);
}

uint16_t IdRemap::streamOf(uint64_t value)
{
    const auto it = std::find(to_.streams.begin(), to_.streams.end(), value);
    if (it != to_.streams.end())
        return static_cast<uint16_t>(it - to_.streams.begin());
    if (to_.streams.size() > UINT16_MAX)
        throw std::invalid_argument("more than 65,536 streams");
    to_.streams.push_back(value);
    return static_cast<uint16_t>(to_.streams.size() - 1);
}

uint32_t IdRemap::pool(uint32_t index)
{
    uint32_t &to = pools_.at(index);
    if (to == kUnset) {
        const auto &id = from_.pools.at(index);
        const auto it = std::find(to_.pools.begin(), to_.pools.end(), id);
        to = static_cast<uint32_t>(it - to_.pools.begin());
        if (it == to_.pools.end())
            to_.pools.push_back(id);
    }
    return to;
}

} // namespace memlens
