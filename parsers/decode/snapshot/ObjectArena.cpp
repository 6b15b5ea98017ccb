#include "decode/snapshot/ObjectArena.h"

#include <utility>

namespace memlens {

uint32_t ObjectArena::create(NodeKind kind)
{
    uint32_t id;
    if (!free_.empty()) {
        id = free_.back();
        free_.pop_back();
    } else {
        id = static_cast<uint32_t>(nodes_.size());
        nodes_.emplace_back();
    }
    Node &n = nodes_[id];
    n.kind = kind;
    n.converted = false;
    n.refs = 0;
    n.memoSlot = UINT32_MAX;
    n.result = Value::none();
    n.items.clear();
    n.entryFirst = n.entryCount = 0;
    return id;
}

// Nodes keep their items' capacity when cleared or reused: trace entries come and go by the
// million, and re-growing a vector for each one dominated decoding time.
void ObjectArena::clearItems(uint32_t id)
{
    // Released from a buffer of their own (swapped in and out, not copied): releasing may
    // destroy nodes, and the node keeps its buffer's capacity.
    std::swap(scratch_, nodes_[id].items);
    for (const Value &v : scratch_)
        release(v);
    scratch_.clear();
    std::swap(scratch_, nodes_[id].items);
}

void ObjectArena::markConverted(uint32_t id, const Value &result)
{
    Node &n = nodes_[id];
    n.converted = true;
    n.result = result;
    clearItems(id);
    const uint32_t slot = nodes_[id].memoSlot;
    if (slot < memo.size() && memo[slot].kind == Kind::Node && memo[slot].u == id) {
        memo.set(slot, result);
        release(Value::ref(Kind::Node, id));
    }
}

// Iterative, so that a deeply nested structure cannot overflow the C stack.
void ObjectArena::destroy(uint32_t root)
{
    work_.push_back(root);
    while (!work_.empty()) {
        uint32_t id = work_.back();
        work_.pop_back();
        // Nothing refers to `id` any more, so its items cannot change while we walk them.
        for (const Value &v : nodes_[id].items) {
            if (v.kind == Kind::Node && --nodes_[v.u].refs == 0)
                work_.push_back(v.u);
        }
        nodes_[id].items.clear();
        free_.push_back(id);
    }
}

} // namespace memlens
