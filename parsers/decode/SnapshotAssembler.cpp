#include "decode/SnapshotAssembler.h"

#include "model/LoadError.h"

#include <algorithm>
#include <cmath>

namespace memlens {

SnapshotAssembler::SnapshotAssembler(Snapshot &out, ObjectArena &arena) : out_(out), arena_(arena)
{
    auto id = [&](const char *s) { return out_.strings.intern(s); };
    // Designated: each id is named with the key it stands for, so the order cannot drift.
    k_ = KeyIds{
        .action = id("action"),
        .addr = id("addr"),
        .size = id("size"),
        .stream = id("stream"),
        .time_us = id("time_us"),
        .frames = id("frames"),
        .device_free = id("device_free"),
        .compile_context = id("compile_context"),
        .user_metadata = id("user_metadata"),
        .name = id("name"),
        .filename = id("filename"),
        .line = id("line"),
        .segments = id("segments"),
        .device_traces = id("device_traces"),
        .allocator_settings = id("allocator_settings"),
        .external_annotations = id("external_annotations"),
        .device = id("device"),
        .address = id("address"),
        .total_size = id("total_size"),
        .allocated_size = id("allocated_size"),
        .active_size = id("active_size"),
        .requested_size = id("requested_size"),
        .segment_type = id("segment_type"),
        .segment_pool_id = id("segment_pool_id"),
        .is_expandable = id("is_expandable"),
        .blocks = id("blocks"),
        .state = id("state"),
        .history = id("history"),
        .real_size = id("real_size"),
        .stage = id("stage"),
        .na = id("N/A"),
        .start = id("START"),
        .large = id("large"),
        .active_allocated = id("active_allocated"),
        .active_pending_free = id("active_pending_free"),
        .inactive = id("inactive"),
    };
}

void SnapshotAssembler::notSnapshot(const std::string &why) const
{
    throw DecodeError(finishOffset_, "not a memory snapshot: " + why);
}

const Value *SnapshotAssembler::field(const Node &dict, uint32_t key) const
{
    if (dict.kind != NodeKind::Dict)
        return nullptr;
    // Later keys win, as in a Python dict.
    for (size_t i = dict.items.size(); i >= 2; i -= 2) {
        const Value &k = dict.items[i - 2];
        if (k.kind == Kind::Str && k.u == key)
            return &dict.items[i - 1];
    }
    return nullptr;
}

uint64_t SnapshotAssembler::number(const Value *v, uint64_t fallback) const
{
    if (!v)
        return fallback;
    switch (v->kind) {
    case Kind::Int:
    case Kind::Bool:
        return static_cast<uint64_t>(v->i);
    case Kind::Float:
        return std::isfinite(v->f) && v->f >= -9.2e18 && v->f <= 1.8e19
                   ? (v->f < 0 ? static_cast<uint64_t>(static_cast<int64_t>(v->f)) : static_cast<uint64_t>(v->f))
                   : fallback;
    default:
        return fallback;
    }
}

std::string SnapshotAssembler::text(const Value &v) const
{
    switch (v.kind) {
    case Kind::None:
        return "None";
    case Kind::Bool:
        return v.i ? "True" : "False";
    case Kind::Int:
        return v.unsignedInt ? std::to_string(static_cast<uint64_t>(v.i)) : std::to_string(v.i);
    case Kind::Float: {
        std::string s = std::to_string(v.f);
        while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.')
            s.pop_back();
        return s;
    }
    case Kind::Str:
        return std::string(out_.strings.at(v.u));
    default:
        return "…";
    }
}

Action SnapshotAssembler::actionOf(uint32_t stringId)
{
    if (stringId >= actionByString_.size())
        actionByString_.resize(stringId + 1, -1);
    if (actionByString_[stringId] < 0)
        actionByString_[stringId] = static_cast<int8_t>(actionFromName(out_.strings.at(stringId)));
    return static_cast<Action>(actionByString_[stringId]);
}

uint16_t SnapshotAssembler::streamIndex(uint64_t stream)
{
    auto &streams = out_.streams;
    for (size_t i = streams.size(); i-- > 0;) {
        if (streams[i] == stream)
            return static_cast<uint16_t>(i);
    }
    if (streams.size() >= UINT16_MAX)
        notSnapshot("more than 65535 distinct streams");
    streams.push_back(stream);
    return static_cast<uint16_t>(streams.size() - 1);
}

bool SnapshotAssembler::frameOf(const Value &frame, uint32_t &id)
{
    if (frame.kind == Kind::Frame) {
        id = frame.u;
        return true;
    }
    if (frame.kind != Kind::Node)
        return false;
    Node &n = arena_.at(frame.u);
    if (n.converted) {
        id = n.result.u;
        return n.result.kind == Kind::Frame;
    }
    const Value *name = field(n, k_.name);
    const Value *file = field(n, k_.filename);
    const Value *line = field(n, k_.line);
    Frame f;
    f.name = name && name->kind == Kind::Str ? name->u : StringTable::kEmpty;
    f.file = file && file->kind == Kind::Str ? file->u : StringTable::kEmpty;
    f.line = static_cast<int64_t>(number(line));
    id = out_.frames.intern(f);
    arena_.markConverted(frame.u, Value::ref(Kind::Frame, id));
    return true;
}

uint32_t SnapshotAssembler::stackOf(const Value &frames)
{
    if (frames.kind == Kind::Stack)
        return frames.u;
    if (frames.kind != Kind::Node)
        return StackTable::kEmpty;
    const uint32_t listId = frames.u;
    if (arena_.at(listId).converted)
        return arena_.at(listId).result.kind == Kind::Stack ? arena_.at(listId).result.u : StackTable::kEmpty;
    std::vector<uint32_t> ids;
    ids.reserve(arena_.at(listId).items.size());
    for (size_t i = 0; i < arena_.at(listId).items.size(); ++i) {
        uint32_t id;
        if (frameOf(arena_.at(listId).items[i], id))
            ids.push_back(id);
    }
    if (!ids.empty())
        out_.facts.hasFrames = true;
    const uint32_t stack = out_.stacks.intern(ids);
    arena_.markConverted(listId, Value::ref(Kind::Stack, stack));
    return stack;
}

uint32_t SnapshotAssembler::convertEntry(uint32_t dictId)
{
    const Node &n = arena_.at(dictId);
    Action action = Action::Other;
    uint32_t actionString = 0;
    uint64_t addr = 0, size = 0, stream = 0, deviceFree = 0;
    int64_t time = 0;
    uint32_t stack = StackTable::kEmpty, compile = 0, meta = 0;
    bool haveDeviceFree = false;
    for (size_t i = 0; i + 1 < n.items.size(); i += 2) {
        const Value &key = n.items[i];
        const Value &v = n.items[i + 1];
        if (key.kind != Kind::Str)
            continue;
        const uint32_t kid = key.u;
        if (kid == k_.action) {
            if (v.kind == Kind::Str) {
                actionString = v.u;
                action = actionOf(v.u);
            }
        } else if (kid == k_.addr) {
            addr = number(&v);
        } else if (kid == k_.size) {
            size = number(&v);
        } else if (kid == k_.stream) {
            stream = number(&v);
        } else if (kid == k_.time_us) {
            time = static_cast<int64_t>(number(&v));
            out_.facts.hasTimes = true;
        } else if (kid == k_.frames) {
            stack = stackOf(v);
        } else if (kid == k_.device_free) {
            deviceFree = number(&v);
            haveDeviceFree = true;
        } else if (kid == k_.compile_context) {
            if (v.kind == Kind::Str && v.u != k_.na && v.u != StringTable::kEmpty)
                compile = v.u;
        } else if (kid == k_.user_metadata) {
            if (v.kind == Kind::Str && v.u != StringTable::kEmpty)
                meta = v.u;
        }
    }
    const auto row = static_cast<uint32_t>(staged_.count());
    staged_.action.push_back(action);
    staged_.addr.push_back(action == Action::Oom && haveDeviceFree ? deviceFree : addr);
    staged_.size.push_back(size);
    staged_.stream.push_back(streamIndex(stream));
    staged_.timeUs.push_back(time);
    staged_.stack.push_back(stack);
    if (action == Action::Other)
        staged_.otherNames.emplace_back(row, actionString);
    if (compile) {
        staged_.compileContext.emplace_back(row, compile);
        out_.facts.hasCompileContext = true;
    }
    if (meta) {
        staged_.userMetadata.emplace_back(row, meta);
        out_.facts.hasUserMetadata = true;
    }
    return row;
}

void SnapshotAssembler::append(uint32_t listId, Value item)
{
    Node &list = arena_.at(listId);
    if (list.converted)
        notSnapshot("a list is changed after it was used");
    if (list.kind == NodeKind::Dict)
        notSnapshot("items appended to a dict");
    if (item.kind == Kind::Node && arena_.at(item.u).kind == NodeKind::Dict && !arena_.at(item.u).converted &&
        field(arena_.at(item.u), k_.action)) {
        const uint32_t row = convertEntry(item.u);
        arena_.markConverted(item.u, Value::ref(Kind::Entry, row));
        arena_.release(item);
        Node &l = arena_.at(listId);
        if (l.items.empty() && (l.entryCount == 0 || l.entryFirst + l.entryCount == row)) {
            if (l.entryCount++ == 0)
                l.entryFirst = row;
            return;
        }
        item = Value::ref(Kind::Entry, row);
    }
    Node &l = arena_.at(listId);
    if (l.entryCount > 0) {
        // The run of rows stops being consecutive: spell it out as items.
        for (uint32_t r = 0; r < l.entryCount; ++r)
            l.items.push_back(Value::ref(Kind::Entry, l.entryFirst + r));
        l.entryCount = 0;
    }
    l.items.push_back(item);
}

void SnapshotAssembler::setItem(uint32_t dictId, Value key, Value value)
{
    Node &dict = arena_.at(dictId);
    if (dict.converted)
        notSnapshot("a dict is changed after it was used");
    if (dict.kind != NodeKind::Dict)
        notSnapshot("items set on a list");
    dict.items.push_back(key);
    dict.items.push_back(value);
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
        else if (state->u == k_.active_pending_free)
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

void SnapshotAssembler::convertSegment(const Value &segment)
{
    if (segment.kind != Kind::Node || arena_.at(segment.u).kind != NodeKind::Dict)
        notSnapshot("a segment is not a dict");
    const uint32_t id = segment.u;
    Segment seg;
    {
        const Node &n = arena_.at(id);
        seg.device = static_cast<int>(number(field(n, k_.device)));
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
        if (const Value *pool = field(n, k_.segment_pool_id); pool && pool->kind == Kind::Node) {
            const Node &p = arena_.at(pool->u);
            if (p.items.size() == 2)
                seg.pool = {static_cast<int64_t>(number(&p.items[0])), static_cast<int64_t>(number(&p.items[1]))};
        }
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
    out_.segments.push_back(seg);
}

void SnapshotAssembler::convertTraces(const Value &deviceTraces)
{
    if (deviceTraces.kind != Kind::Node)
        notSnapshot("device_traces is not a list");
    const Node &all = arena_.at(deviceTraces.u);
    if (all.items.size() > 4096)
        notSnapshot("device_traces lists more than 4096 devices");
    std::vector<std::vector<uint32_t>> rowsOf(all.items.size());
    std::vector<std::pair<uint32_t, uint32_t>> runs(all.items.size(), {0, 0});
    for (size_t d = 0; d < all.items.size(); ++d) {
        const Value trace = arena_.at(deviceTraces.u).items[d];
        if (trace.kind != Kind::Node || arena_.at(trace.u).kind == NodeKind::Dict)
            notSnapshot("device_traces[" + std::to_string(d) + "] is not a list");
        const uint32_t tid = trace.u;
        runs[d] = {arena_.at(tid).entryFirst, arena_.at(tid).entryCount};
        for (size_t i = 0; i < arena_.at(tid).items.size(); ++i) {
            const Value e = arena_.at(tid).items[i];
            if (e.kind == Kind::Entry)
                rowsOf[d].push_back(e.u);
            else if (e.kind == Kind::Node && arena_.at(e.u).kind == NodeKind::Dict && !arena_.at(e.u).converted)
                rowsOf[d].push_back(convertEntry(e.u));
            else
                notSnapshot("device_traces[" + std::to_string(d) + "] holds something that is not a trace entry");
        }
    }
    out_.traces.assign(all.items.size(), EventTable{});
    // The usual case, one device whose rows are all the staged rows in order: no copy.
    if (all.items.size() == 1 && rowsOf[0].empty() && runs[0].first == 0 && runs[0].second == staged_.count()) {
        out_.traces[0] = std::move(staged_);
        return;
    }
    auto sparseFor = [](const std::vector<std::pair<uint32_t, uint32_t>> &column, uint32_t row,
                        std::vector<std::pair<uint32_t, uint32_t>> &into, uint32_t newRow) {
        auto it = std::lower_bound(column.begin(), column.end(), std::make_pair(row, 0u));
        if (it != column.end() && it->first == row)
            into.emplace_back(newRow, it->second);
    };
    for (size_t d = 0; d < rowsOf.size(); ++d) {
        std::vector<uint32_t> rows;
        for (uint32_t r = 0; r < runs[d].second; ++r)
            rows.push_back(runs[d].first + r);
        rows.insert(rows.end(), rowsOf[d].begin(), rowsOf[d].end());
        EventTable &t = out_.traces[d];
        for (uint32_t r : rows) {
            const auto newRow = static_cast<uint32_t>(t.count());
            t.action.push_back(staged_.action[r]);
            t.addr.push_back(staged_.addr[r]);
            t.size.push_back(staged_.size[r]);
            t.stream.push_back(staged_.stream[r]);
            t.timeUs.push_back(staged_.timeUs[r]);
            t.stack.push_back(staged_.stack[r]);
            sparseFor(staged_.otherNames, r, t.otherNames, newRow);
            sparseFor(staged_.compileContext, r, t.compileContext, newRow);
            sparseFor(staged_.userMetadata, r, t.userMetadata, newRow);
        }
    }
    staged_ = EventTable{};
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
        mark.name = name->u;
        mark.start = stage->u == k_.start;
        mark.device = static_cast<int>(number(field(n, k_.device)));
        mark.timeUs = static_cast<int64_t>(number(field(n, k_.time_us)));
        out_.phaseMarks.push_back(mark);
    }
    out_.facts.hasPhases = !out_.phaseMarks.empty();
}

void SnapshotAssembler::finish(const Value &root, uint64_t offset)
{
    finishOffset_ = offset;
    if (root.kind != Kind::Node)
        notSnapshot("the file holds a single value, not a dict of segments and traces");
    const uint32_t id = root.u;
    if (arena_.at(id).kind != NodeKind::Dict) {
        // ≤ 1.13: a bare list of segments.
        out_.facts.legacySegmentList = true;
        for (size_t i = 0; i < arena_.at(id).items.size(); ++i)
            convertSegment(arena_.at(id).items[i]);
        if (staged_.count() != 0)
            notSnapshot("trace entries outside device_traces");
        return;
    }
    const Value *segments = field(arena_.at(id), k_.segments);
    const Value *traces = field(arena_.at(id), k_.device_traces);
    if (!segments && !traces)
        notSnapshot("the top-level dict has neither 'segments' nor 'device_traces'");
    if (segments) {
        if (segments->kind != Kind::Node || arena_.at(segments->u).kind == NodeKind::Dict)
            notSnapshot("'segments' is not a list");
        const uint32_t sid = segments->u;
        for (size_t i = 0; i < arena_.at(sid).items.size(); ++i)
            convertSegment(arena_.at(sid).items[i]);
    }
    if (traces)
        convertTraces(*traces);
    if (const Value *settings = field(arena_.at(id), k_.allocator_settings))
        convertSettings(*settings);
    if (const Value *annotations = field(arena_.at(id), k_.external_annotations))
        convertPhaseMarks(*annotations);
}

} // namespace memlens
