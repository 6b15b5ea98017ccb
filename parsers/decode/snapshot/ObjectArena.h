#pragma once
// The decoders' working objects: Python-like values and reference-counted containers.
// Containers exist only while the decoder still needs them; finished trace entries are
// turned into model rows as soon as they are appended (see SnapshotAssembler), so no
// object tree of the whole file is ever built.
#include "decode/snapshot/MemoTable.h"

#include <cstdint>
#include <vector>

namespace memlens {

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
    MemoTable memo;

private:
    void destroy(uint32_t id);

    std::vector<Node> nodes_;
    std::vector<uint32_t> free_;
    std::vector<uint32_t> work_;
    std::vector<Value> scratch_;
};

} // namespace memlens
