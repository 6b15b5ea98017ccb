#pragma once
// A decoded Python value as the decoders pass it around: a scalar, or a kind and an id.
#include <cstdint>

namespace memlens {

enum class Kind : uint8_t {
    None,
    Bool,
    Int,     // i holds the value; `unsignedInt` when it only fits as uint64
    BigInt,  // larger than 64 bits: kept as a placeholder, unusable as a number
    Float,
    Str,     // u: string id
    Bytes,   // content skipped
    Node,    // u: container index in the arena
    Stack,   // u: StackTable id (a frame list already converted)
    Frame,   // u: FrameTable id (a frame dict already converted)
    Entry,   // u: row in the assembler's staged event table (a trace entry already converted)
    Segment, // u: index in Snapshot::segments (already converted)
    Spent,   // a converted object that has no value of its own any more
};

struct Value {
    Kind kind = Kind::None;
    bool unsignedInt = false;
    uint32_t u = 0;
    union {
        int64_t i = 0;
        double f;
    };

    static Value none() { return {}; }
    static Value boolean(bool b) { Value v; v.kind = Kind::Bool; v.i = b; return v; }
    static Value integer(int64_t x) { Value v; v.kind = Kind::Int; v.i = x; return v; }
    static Value uinteger(uint64_t x)
    {
        Value v;
        v.kind = Kind::Int;
        v.i = static_cast<int64_t>(x);
        v.unsignedInt = x > static_cast<uint64_t>(INT64_MAX);
        return v;
    }
    static Value real(double x) { Value v; v.kind = Kind::Float; v.f = x; return v; }
    static Value ref(Kind kind, uint32_t id) { Value v; v.kind = kind; v.u = id; return v; }
};
static_assert(sizeof(Value) == 16);

} // namespace memlens
