#pragma once
// What a trace entry's keys say, gathered pair by pair before the entry becomes an event row.
// The assembler owns the reading (readEntryField) and the row (storeEntry); decoders that know
// an entry's keys ahead (PickleEntryShape) name each pair's field once instead of per entry.
#include "decode/snapshot/Value.h"
#include "model/Snapshot.h"

#include <cstdint>

namespace memlens {

// The keys of a trace entry memlens reads; any other key is Ignored.
enum class EntryField : uint8_t {
    Ignored,
    Action,
    Addr,
    Size,
    Stream,
    TimeUs,
    Frames,
    DeviceFree,
    CompileContext,
    UserMetadata,
    PoolId,
    InternalMetadata,
    ForwardFrames,
};

struct EntryFields {
    Action action = Action::Other;
    uint32_t actionString = 0;
    uint64_t addr = 0, size = 0, stream = 0, deviceFree = 0;
    int64_t time = 0;
    // Raw string indices as the arena holds them (0: ""), typed where they are stored.
    uint32_t compile = 0, meta = 0, internal = 0;
    StackId stack = StackTable::kEmpty;
    StringId forward = StringTable::kEmpty;
    PoolIndex pool{0};
    bool haveDeviceFree = false;
    bool haveTime = false;
    // A size that no column holds (beyond 64 bits, NaN, no number): kept to be warned of.
    bool sizeUnreadable = false;
    Value unreadableSize;
};

} // namespace memlens
