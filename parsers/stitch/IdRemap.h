#pragma once
// Carrying ids from one snapshot into another that interns its own strings, frames, stacks,
// streams and mempools: each id is looked up once and remembered.
#include "model/Snapshot.h"

#include <cstdint>
#include <vector>

namespace memlens {

class IdRemap {
public:
    IdRemap(const Snapshot &from, Snapshot &to);

    uint32_t string(uint32_t id);
    FrameId frame(FrameId id);
    uint32_t stack(uint32_t id);
    uint16_t stream(uint16_t index); // index into Snapshot::streams
    uint16_t streamOf(uint64_t value); // the target's index of a stream value
    uint32_t pool(uint32_t index);   // index into Snapshot::pools

private:
    static constexpr uint32_t kUnset = UINT32_MAX;
    const Snapshot &from_;
    Snapshot &to_;
    std::vector<uint32_t> strings_, stacks_, streams_, pools_;
    std::vector<FrameId> frames_; // none: not yet remapped
};

} // namespace memlens
