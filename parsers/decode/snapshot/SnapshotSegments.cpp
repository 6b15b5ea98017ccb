#include "decode/snapshot/SnapshotAssembler.h"

// The snapshot's final state: segments and their blocks, allocator settings and
// record_function phases. Trace entries are in SnapshotEntries.cpp.
namespace memlens {

PoolIndex SnapshotAssembler::poolIndex(const Value &pool)
{
    if (pool.kind != Kind::Node || arena_.at(pool.u).items.size() != 2)
        return PoolIndex(0);
    const Node &p = arena_.at(pool.u);
    const std::pair<int64_t, int64_t> id{static_cast<int64_t>(number(&p.items[0])), static_cast<int64_t>(number(&p.items[1]))};
    auto &pools = out_.pools;
    for (size_t i = 0; i < pools.size(); ++i) {
        if (pools[i] == id)
            return PoolIndex(static_cast<uint32_t>(i));
    }
    if (pools.size() >= 65536)
        notSnapshot("more than 65536 distinct mempool ids");
    pools.push_back(id);
    return PoolIndex(static_cast<uint32_t>(pools.size() - 1));
}

void SnapshotAssembler::convertBlock(const Value &block, Segment &seg, uint64_t offsetInSegment)
{
    if (block.kind != Kind::Node || arena_.at(block.u).kind != NodeKind::Dict)
        notSnapshot("a block is not a dict");
    const Node &n = arena_.at(block.u);
    Block b;
    b.size = number(field(n, k_.size));
    b.address = number(field(n, k_.address), seg.address + offsetInSegment);
    b.requestedSize = number(field(n, k_.requested_size), b.size);
    if (const Value *state = field(n, k_.state); state && state->kind == Kind::Str) {
        if (state->u == k_.active_allocated)
            b.state = BlockState::ActiveAllocated;
        else if (state->u == k_.active_pending_free || state->u == k_.active_awaiting_free) // the latter: torch's type annotations
            b.state = BlockState::ActivePendingFree;
        else if (state->u == k_.inactive)
            b.state = BlockState::Inactive;
    }
    if (const Value *frames = field(n, k_.frames)) {
        b.stack = stackOf(*frames);
    } else if (const Value *history = field(n, k_.history);
               history && history->kind == Kind::Node && !arena_.at(history->u).items.empty()) {
        // ≤ 2.0: the stack and the requested size sit in history[0].
        out_.facts.legacyBlockHistory = true;
        const Value first = arena_.at(history->u).items.front();
        if (first.kind == Kind::Node) {
            const Node &h = arena_.at(first.u);
            b.requestedSize = number(field(h, k_.real_size), b.requestedSize);
            if (const Value *frames = field(h, k_.frames))
                b.stack = stackOf(*frames);
        }
    }
    out_.blocks.push_back(b);
    ++seg.blockCount;
}

void SnapshotAssembler::convertSegment(const Value &segment, int hostDevice)
{
    if (segment.kind != Kind::Node || arena_.at(segment.u).kind != NodeKind::Dict)
        notSnapshot("a segment is not a dict");
    const uint32_t id = segment.u;
    Segment seg;
    {
        const Node &n = arena_.at(id);
        // Host segments say device -1; they become the host device, numbered after the GPUs.
        seg.device = hostDevice >= 0 ? hostDevice : static_cast<int>(number(field(n, k_.device)));
        if (seg.device < 0 || seg.device > 4095)
            notSnapshot("segment device index " + std::to_string(seg.device) + " out of range");
        seg.address = number(field(n, k_.address));
        seg.totalSize = number(field(n, k_.total_size));
        seg.allocatedSize = number(field(n, k_.allocated_size));
        seg.activeSize = number(field(n, k_.active_size));
        seg.requestedSize = number(field(n, k_.requested_size));
        seg.stream = number(field(n, k_.stream));
        if (const Value *type = field(n, k_.segment_type); type && type->kind == Kind::Str)
            seg.large = type->u == k_.large;
        else
            seg.large = seg.totalSize > (1u << 20) * 2;
        seg.expandable = number(field(n, k_.is_expandable)) != 0;
        if (const Value *pool = field(n, k_.segment_pool_id))
            seg.pool = out_.pools[poolIndex(*pool).index()];
    }
    seg.firstBlock = static_cast<uint32_t>(out_.blocks.size());
    if (const Value *frames = field(arena_.at(id), k_.frames))
        seg.stack = stackOf(*frames);
    if (const Value *blocks = field(arena_.at(id), k_.blocks); blocks && blocks->kind == Kind::Node) {
        const uint32_t listId = blocks->u;
        uint64_t offset = 0;
        for (size_t i = 0; i < arena_.at(listId).items.size(); ++i) {
            const Value block = arena_.at(listId).items[i];
            convertBlock(block, seg, offset);
            offset += out_.blocks.back().size;
        }
    }
    bool implausible = seg.totalSize > kMaxPlausibleBytes;
    if (implausible)
        seg.totalSize = 0;
    for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
        Block &block = out_.blocks[b];
        if (block.size > kMaxPlausibleBytes || block.requestedSize > kMaxPlausibleBytes) {
            implausible = true;
            block.size = block.size > kMaxPlausibleBytes ? 0 : block.size;
            block.requestedSize = block.requestedSize > kMaxPlausibleBytes ? 0 : block.requestedSize;
        }
    }
    for (uint64_t *v : {&seg.allocatedSize, &seg.activeSize, &seg.requestedSize}) {
        if (*v > kMaxPlausibleBytes) {
            implausible = true;
            *v = 0;
        }
    }
    if (implausible)
        out_.implausibleSegments.push_back(SegmentId(static_cast<uint32_t>(out_.segments.size())));
    out_.segments.push_back(seg);
}

void SnapshotAssembler::convertSettings(const Value &settings)
{
    if (settings.kind != Kind::Node || arena_.at(settings.u).kind != NodeKind::Dict)
        return;
    out_.facts.hasAllocatorSettings = true;
    const Node &n = arena_.at(settings.u);
    for (size_t i = 0; i + 1 < n.items.size(); i += 2) {
        std::string key = text(n.items[i]);
        const Value &v = n.items[i + 1];
        if (v.kind == Kind::Node) {
            // One level of nesting (roundup_power2_divisions) is shown as "key.sub".
            const Node &sub = arena_.at(v.u);
            if (sub.kind == NodeKind::Dict) {
                for (size_t j = 0; j + 1 < sub.items.size(); j += 2)
                    out_.allocatorSettings.emplace_back(key + "." + text(sub.items[j]), text(sub.items[j + 1]));
                continue;
            }
        }
        out_.allocatorSettings.emplace_back(key, text(v));
    }
}

void SnapshotAssembler::convertPhaseMarks(const Value &annotations)
{
    if (annotations.kind != Kind::Node)
        return;
    const Node &list = arena_.at(annotations.u);
    for (const Value &item : list.items) {
        if (item.kind != Kind::Node)
            continue;
        const Node &n = arena_.at(item.u);
        PhaseMark mark;
        const Value *name = field(n, k_.name);
        const Value *stage = field(n, k_.stage);
        if (!name || name->kind != Kind::Str || !stage || stage->kind != Kind::Str)
            continue;
        mark.name = StringId(name->u);
        mark.start = stage->u == k_.start;
        mark.device = static_cast<int>(number(field(n, k_.device)));
        mark.timeUs = static_cast<int64_t>(number(field(n, k_.time_us)));
        out_.phaseMarks.push_back(mark);
    }
    out_.facts.hasPhases = !out_.phaseMarks.empty();
}

} // namespace memlens
