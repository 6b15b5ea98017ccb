#pragma once
// Carrying ids from one snapshot into another that interns its own strings, frames, stacks,
// streams and mempools: each id is looked up once and remembered. Each kind is its own type, so
// a stack cannot be remapped as a string.
#include "model/Snapshot.h"

#include <cstdint>
#include <vector>

namespace memlens {

class IdRemap {
public:
    IdRemap(const Snapshot &from, Snapshot &to);

    StringId string(StringId id);
    FrameId frame(FrameId id);
    StackId stack(StackId id);
    StreamIndex stream(StreamIndex index);
    StreamIndex streamOf(uint64_t value); // the target's index of a stream value
    PoolIndex pool(PoolIndex index);
    // The run's id of any kind, by its type; plain figures (sizes, times, actions) pass as they are.
    StringId map(StringId id) { return string(id); }
    StackId map(StackId id) { return stack(id); }
    StreamIndex map(StreamIndex index) { return stream(index); }
    PoolIndex map(PoolIndex index) { return pool(index); }
    template <typename Plain>
    Plain map(Plain value)
    {
        return value;
    }

private:
    const Snapshot &from_;
    Snapshot &to_;
    // none: not yet remapped
    std::vector<StringId> strings_;
    std::vector<FrameId> frames_;
    std::vector<StackId> stacks_;
    std::vector<StreamIndex> streams_;
    std::vector<PoolIndex> pools_;
};

} // namespace memlens
