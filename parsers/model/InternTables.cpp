#include "model/InternTables.h"

#include <algorithm>
#include <bit>

namespace memlens {

StringTable::StringTable()
{
    intern("");
}

StringId StringTable::intern(std::string_view text)
{
    if (auto it = ids_.find(text); it != ids_.end())
        return it->second;
    const StringId id(static_cast<uint32_t>(strings_.size()));
    const std::string &stored = strings_.emplace_back(text);
    ids_.emplace(std::string_view(stored), id);
    return id;
}

size_t FrameTable::Hash::operator()(const Frame &f) const
{
    uint64_t h = f.name.index() * 0x9E3779B97F4A7C15ull;
    h ^= (f.file.index() + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= static_cast<uint64_t>(f.line) * 0x165667B19E3779F9ull;
    return static_cast<size_t>(h ^ (h >> 29));
}

FrameId FrameTable::intern(const Frame &frame)
{
    if (auto it = ids_.find(frame); it != ids_.end())
        return it->second;
    const FrameId id(static_cast<uint32_t>(frames_.size()));
    frames_.push_back(frame);
    ids_.emplace(frame, id);
    return id;
}

StackTable::StackTable()
{
    offsets_.push_back(0);
    offsets_.push_back(0); // stack 0: empty
}

uint64_t StackTable::hashOf(std::span<const FrameId> frameIds)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (FrameId id : frameIds)
        h = (h ^ id.index()) * 0x100000001B3ull;
    return h;
}

void StackTable::grow()
{
    const size_t slots = std::max<size_t>(1024, slots_.size() * 2);
    slots_.clear();
    slots_.resize(slots);
    shift_ = 64 - std::countr_zero(slots);
    const size_t mask = slots - 1;
    for (uint32_t id = 1; id < size(); ++id) {
        const uint64_t h = hashOf(at(StackId(id)));
        size_t i = home(h);
        while (slots_[i].idPlusOne != 0)
            i = (i + 1) & mask;
        slots_[i] = {id + 1, static_cast<uint32_t>(h)};
    }
}

StackId StackTable::intern(std::span<const FrameId> frameIds)
{
    if (frameIds.empty())
        return kEmpty;
    if (2 * (size() + 1) > slots_.size())
        grow();
    const uint64_t h = hashOf(frameIds);
    const auto tag = static_cast<uint32_t>(h);
    const size_t mask = slots_.size() - 1;
    size_t i = home(h);
    for (; slots_[i].idPlusOne != 0; i = (i + 1) & mask) {
        if (slots_[i].tag != tag)
            continue;
        const StackId candidate(slots_[i].idPlusOne - 1);
        const auto existing = at(candidate);
        if (std::equal(existing.begin(), existing.end(), frameIds.begin(), frameIds.end()))
            return candidate;
    }
    const StackId id(static_cast<uint32_t>(size()));
    for (FrameId f : frameIds)
        frameIds_.push_back(f);
    offsets_.push_back(static_cast<uint32_t>(frameIds_.size()));
    slots_[i] = {id.index() + 1, tag};
    return id;
}

} // namespace memlens
