#pragma once
// The decoders' working objects: Python-like values and reference-counted containers.
// Containers exist only while the decoder still needs them; finished trace entries are
// turned into model rows as soon as they are appended (see SnapshotAssembler), so no
// object tree of the whole file is ever built.
#include "model/PodArray.h"

#include <cstdint>
#include <vector>

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

enum class NodeKind : uint8_t { List, Dict, Tuple };

struct Node {
    NodeKind kind = NodeKind::List;
    bool converted = false; // contents turned into `result`; items released
    uint32_t refs = 0;
    uint32_t memoSlot = UINT32_MAX; // last memo slot that named this node, to rewrite on conversion
    Value result;
    std::vector<Value> items; // dicts: key, value, key, value…
    // A list of converted trace entries is kept as a run of consecutive event rows.
    uint32_t entryFirst = 0;
    uint32_t entryCount = 0;
};

class ObjectArena {
public:
    uint32_t create(NodeKind kind);
    Node &at(uint32_t id) { return nodes_[id]; }
    const Node &at(uint32_t id) const { return nodes_[id]; }

    void retain(const Value &v)
    {
        if (v.kind == Kind::Node)
            ++nodes_[v.u].refs;
    }
    void release(const Value &v)
    {
        if (v.kind == Kind::Node && --nodes_[v.u].refs == 0)
            destroy(v.u);
    }
    // Drops a node's items (after conversion), releasing what they hold.
    void clearItems(uint32_t id);
    // Records that node `id` now stands for `result`: its items are released and a memo slot
    // naming it is rewritten, so later references get the small result, not the node.
    void markConverted(uint32_t id, const Value &result);

    // The pickle memo (empty for JSON). Slots hold a reference like any other holder.
    PodArray<Value> memo;

private:
    void destroy(uint32_t id);

    std::vector<Node> nodes_;
    std::vector<uint32_t> free_;
    std::vector<uint32_t> work_;
    std::vector<Value> scratch_;
};

} // namespace memlens
