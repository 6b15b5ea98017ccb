#include "decode/snapshot/SnapshotAssembler.h"

#include "model/EventColumns.h"
#include "model/LoadError.h"

#include <algorithm>
#include <new>
#include <cmath>

namespace memlens {

SnapshotAssembler::SnapshotAssembler(Snapshot &out, ObjectArena &arena) : out_(out), arena_(arena)
{
    // Raw indices: the arena's dict keys are compared as such.
    auto id = [&](const char *s) { return out_.strings.intern(s).index(); };
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
        .pool_id = id("pool_id"),
        .internal_metadata = id("internal_metadata"),
        .forward_frames = id("forward_frames"),
        .name = id("name"),
        .filename = id("filename"),
        .line = id("line"),
        .fx_node_op = id("fx_node_op"),
        .fx_node_name = id("fx_node_name"),
        .fx_node_target = id("fx_node_target"),
        .fx_original_trace = id("fx_original_trace"),
        .segments = id("segments"),
        .device_traces = id("device_traces"),
        .allocator_settings = id("allocator_settings"),
        .external_annotations = id("external_annotations"),
        .host_segments = id("host_segments"),
        .host_traces = id("host_traces"),
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
        .active_awaiting_free = id("active_awaiting_free"),
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

bool SnapshotAssembler::hasAction(const Node &dict) const
{
    // torch writes "action" first: for its entries this is one comparison, not a scan.
    const auto &items = dict.items;
    return (items.size() >= 2 && items[0].kind == Kind::Str && items[0].u == k_.action) || field(dict, k_.action);
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
        return std::string(out_.strings.at(StringId(v.u)));
    default:
        return "…";
    }
}

Action SnapshotAssembler::actionOf(uint32_t stringId)
{
    if (stringId >= actionByString_.size())
        actionByString_.resize(stringId + 1, -1);
    if (actionByString_[stringId] < 0)
        actionByString_[stringId] = static_cast<int8_t>(actionFromName(out_.strings.at(StringId(stringId))));
    return static_cast<Action>(actionByString_[stringId]);
}

StreamIndex SnapshotAssembler::streamIndex(uint64_t stream)
{
    auto &streams = out_.streams;
    for (size_t i = streams.size(); i-- > 0;) {
        if (streams[i] == stream)
            return StreamIndex(static_cast<uint16_t>(i));
    }
    if (streams.size() >= UINT16_MAX)
        notSnapshot("more than 65535 distinct streams");
    streams.push_back(stream);
    return StreamIndex(static_cast<uint16_t>(streams.size() - 1));
}

bool SnapshotAssembler::frameOf(const Value &frame, FrameId &id)
{
    if (frame.kind == Kind::Frame) {
        id = FrameId(frame.u);
        return true;
    }
    if (frame.kind != Kind::Node)
        return false;
    Node &n = arena_.at(frame.u);
    if (n.converted) {
        id = FrameId(n.result.u);
        return n.result.kind == Kind::Frame;
    }
    const Value *name = field(n, k_.name);
    const Value *file = field(n, k_.filename);
    const Value *line = field(n, k_.line);
    Frame f;
    f.name = name && name->kind == Kind::Str ? StringId(name->u) : StringTable::kEmpty;
    f.file = file && file->kind == Kind::Str ? StringId(file->u) : StringTable::kEmpty;
    f.line = static_cast<int64_t>(number(line));
    id = out_.frames.intern(f);
    if (n.items.size() > 6) // more keys than name, filename and line: FX augmentation
        readFxFields(n, id);
    arena_.markConverted(frame.u, Value::ref(Kind::Frame, id.index()));
    return true;
}

void SnapshotAssembler::readFxFields(const Node &frame, FrameId frameId)
{
    auto textOf = [&](uint32_t key) {
        const Value *v = field(frame, key);
        return v && v->kind == Kind::Str ? StringId(v->u) : StringTable::kEmpty;
    };
    const FxFrame fx{textOf(k_.fx_node_op), textOf(k_.fx_node_name), textOf(k_.fx_node_target), textOf(k_.fx_original_trace)};
    if (fx == FxFrame{})
        return;
    auto &all = out_.fxFrames;
    auto it = std::lower_bound(all.begin(), all.end(), frameId, [](const auto &e, FrameId key) { return e.first < key; });
    if (it == all.end() || it->first != frameId)
        all.insert(it, {frameId, fx});
    out_.facts.hasFxFrames = true;
}

StringId SnapshotAssembler::joinedText(const Value &lines)
{
    if (lines.kind == Kind::Str)
        return StringId(lines.u);
    if (lines.kind != Kind::Node)
        return StringTable::kEmpty;
    std::string joined;
    for (const Value &line : arena_.at(lines.u).items) {
        if (line.kind == Kind::Str && joined.size() < (1u << 20))
            joined += out_.strings.at(StringId(line.u));
    }
    return out_.strings.intern(joined);
}

StackId SnapshotAssembler::stackOf(const Value &frames)
{
    if (frames.kind == Kind::Stack)
        return StackId(frames.u);
    if (frames.kind != Kind::Node)
        return StackTable::kEmpty;
    const uint32_t listId = frames.u;
    if (arena_.at(listId).converted)
        return arena_.at(listId).result.kind == Kind::Stack ? StackId(arena_.at(listId).result.u) : StackTable::kEmpty;
    std::vector<FrameId> ids;
    ids.reserve(arena_.at(listId).items.size());
    for (size_t i = 0; i < arena_.at(listId).items.size(); ++i) {
        FrameId id;
        if (frameOf(arena_.at(listId).items[i], id))
            ids.push_back(id);
    }
    if (!ids.empty())
        out_.facts.hasFrames = true;
    const StackId stack = out_.stacks.intern(ids);
    arena_.markConverted(listId, Value::ref(Kind::Stack, stack.index()));
    return stack;
}

uint32_t SnapshotAssembler::convertEntry(uint32_t dictId)
{
    const Node &n = arena_.at(dictId);
    Action action = Action::Other;
    uint32_t actionString = 0;
    uint64_t addr = 0, size = 0, stream = 0, deviceFree = 0;
    int64_t time = 0;
    // Raw string indices as the arena holds them (0: ""), typed where they are stored.
    uint32_t compile = 0, meta = 0, internal = 0;
    StackId stack = StackTable::kEmpty;
    StringId forward = StringTable::kEmpty;
    PoolIndex pool(0);
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
            if (v.kind == Kind::Str && v.u != k_.na && v.u != StringTable::kEmpty.index())
                compile = v.u;
        } else if (kid == k_.user_metadata) {
            if (v.kind == Kind::Str && v.u != StringTable::kEmpty.index())
                meta = v.u;
        } else if (kid == k_.pool_id) {
            pool = poolIndex(v);
            out_.facts.hasPoolIds = true;
        } else if (kid == k_.internal_metadata) {
            if (v.kind == Kind::Str)
                internal = v.u;
        } else if (kid == k_.forward_frames) {
            forward = joinedText(v);
        }
    }
    const auto row = static_cast<uint32_t>(staged_.count());
    prefault_.writing(row);
    staged_.action.push_back(action);
    staged_.addr.push_back(action == Action::Oom && haveDeviceFree ? deviceFree : addr);
    staged_.size.push_back(size > kMaxPlausibleBytes ? 0 : size);
    staged_.stream.push_back(streamIndex(stream));
    staged_.timeUs.push_back(time);
    staged_.stack.push_back(stack);
    if (action == Action::Other)
        staged_.otherNames.emplace_back(row, StringId(actionString));
    if (compile) {
        staged_.compileContext.emplace_back(row, StringId(compile));
        out_.facts.hasCompileContext = true;
    }
    if (meta) {
        staged_.userMetadata.emplace_back(row, StringId(meta));
        out_.facts.hasUserMetadata = true;
    }
    if (internal)
        staged_.internalMetadata.emplace_back(row, StringId(internal));
    if (forward != StringTable::kEmpty)
        staged_.forwardFrames.emplace_back(row, forward);
    if (pool != PoolIndex(0))
        staged_.pool.emplace_back(row, pool);
    if (size > kMaxPlausibleBytes)
        staged_.implausibleSizes.emplace_back(row, out_.strings.intern(std::to_string(size)));
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
        hasAction(arena_.at(item.u))) {
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

void SnapshotAssembler::setItems(uint32_t dictId, const Value *keysAndValues, size_t count)
{
    Node &dict = arena_.at(dictId);
    if (dict.converted)
        notSnapshot("a dict is changed after it was used");
    if (dict.kind != NodeKind::Dict)
        notSnapshot("items set on a list");
    dict.items.insert(dict.items.end(), keysAndValues, keysAndValues + count);
}

void SnapshotAssembler::expectEntries(size_t rows)
{
    std::vector<PrefaultAhead::Column> columns;
    try {
        forEachDenseColumn([&](auto column) {
            auto &c = staged_.*column;
            c.reserve(rows);
            if constexpr (requires { c.offsetsForFilling(); })
                columns.push_back({reinterpret_cast<char *>(c.offsetsForFilling().begin()), sizeof(int32_t)});
            else
                columns.push_back({reinterpret_cast<char *>(c.begin()), sizeof(*c.begin())});
        });
    } catch (const std::bad_alloc &) {
        // Address space the system will not promise (a file of tens of GB, mostly not
        // entries): the columns grow as entries come, as without the estimate.
        return;
    }
    prefault_.arm(std::move(columns), rows);
}

void SnapshotAssembler::finish(const Value &root, uint64_t offset)
{
    prefault_.disarm();
    finishOffset_ = offset;
    if (root.kind != Kind::Node)
        notSnapshot("the file holds a single value, not a dict of segments and traces");
    const uint32_t id = root.u;
    if (arena_.at(id).kind != NodeKind::Dict) {
        // A bare list of segments: torch ≤ 1.13, or since 2026 memory_snapshot(pool) and include_traces=False.
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
    const Value *hostSegments = field(arena_.at(id), k_.host_segments);
    const Value *hostTraces = field(arena_.at(id), k_.host_traces);
    const int hostDevice = hostDeviceFor(traces, hostSegments, hostTraces);
    if (hostDevice >= 0) {
        out_.facts.hostDevice = hostDevice;
        if (hostSegments && hostSegments->kind == Kind::Node) {
            const uint32_t hid = hostSegments->u;
            for (size_t i = 0; i < arena_.at(hid).items.size(); ++i)
                convertSegment(arena_.at(hid).items[i], hostDevice);
        }
    }
    if (traces || hostDevice >= 0)
        convertTraces(traceLists(traces, hostTraces, hostDevice));
    if (const Value *settings = field(arena_.at(id), k_.allocator_settings))
        convertSettings(*settings);
    if (const Value *annotations = field(arena_.at(id), k_.external_annotations))
        convertPhaseMarks(*annotations);
}

} // namespace memlens
