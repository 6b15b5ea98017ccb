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
    const std::pair<uint32_t, EntryField> fields[] = {
        {k_.action, EntryField::Action},
        {k_.addr, EntryField::Addr},
        {k_.size, EntryField::Size},
        {k_.stream, EntryField::Stream},
        {k_.time_us, EntryField::TimeUs},
        {k_.frames, EntryField::Frames},
        {k_.device_free, EntryField::DeviceFree},
        {k_.compile_context, EntryField::CompileContext},
        {k_.user_metadata, EntryField::UserMetadata},
        {k_.pool_id, EntryField::PoolId},
        {k_.internal_metadata, EntryField::InternalMetadata},
        {k_.forward_frames, EntryField::ForwardFrames},
    };
    for (const auto &[key, field] : fields)
        fieldByKey_.at(key) = field;
}

void SnapshotAssembler::notSnapshot(const std::string &why) const
{
    throw DecodeError(finishOffset_, "not a memory snapshot: " + why);
}

const Value *SnapshotAssembler::field(const Value *items, size_t count, uint32_t key)
{
    // Later keys win, as in a Python dict.
    for (size_t i = count & ~size_t(1); i >= 2; i -= 2) {
        const Value &k = items[i - 2];
        if (k.kind == Kind::Str && k.u == key)
            return &items[i - 1];
    }
    return nullptr;
}

const Value *SnapshotAssembler::field(const Node &dict, uint32_t key) const
{
    return dict.kind == NodeKind::Dict ? field(dict.items.data(), dict.items.size(), key) : nullptr;
}

bool SnapshotAssembler::hasAction(const Node &dict) const
{
    return dict.kind == NodeKind::Dict && hasAction(dict.items.data(), dict.items.size());
}

bool SnapshotAssembler::fitsSixtyFourBits(const Value &v)
{
    return v.kind == Kind::Int || v.kind == Kind::Bool || (v.kind == Kind::Float && std::isfinite(v.f) && v.f >= -9.2e18 && v.f <= 1.8e19);
}

uint64_t SnapshotAssembler::number(const Value *v, uint64_t fallback) const
{
    if (!v || !fitsSixtyFourBits(*v))
        return fallback;
    if (v->kind != Kind::Float)
        return static_cast<uint64_t>(v->i);
    return v->f < 0 ? static_cast<uint64_t>(static_cast<int64_t>(v->f)) : static_cast<uint64_t>(v->f);
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

StreamIndex SnapshotAssembler::findStream(uint64_t stream)
{
    auto &streams = out_.streams;
    for (size_t i = streams.size(); i-- > 0;) {
        if (streams[i] == stream) {
            lastStream_ = static_cast<uint16_t>(i);
            return StreamIndex(lastStream_);
        }
    }
    if (streams.size() >= UINT16_MAX)
        notSnapshot("more than 65535 distinct streams");
    streams.push_back(stream);
    lastStream_ = static_cast<uint16_t>(streams.size() - 1);
    return StreamIndex(lastStream_);
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
            columns.push_back(PrefaultAhead::Column::of(c));
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
    // Without time_us (an NPU snapshot, say) every entry read 0 and steps, parts and phases had
    // no order to go by; one µs an entry keeps the allocator's order. hasTimes stays false, so
    // nothing shows these as wall time, and stitching still refuses such dumps.
    if (!out_.facts.hasTimes)
        timeByEntryOrder();
    if (const Value *settings = field(arena_.at(id), k_.allocator_settings))
        convertSettings(*settings);
    if (const Value *annotations = field(arena_.at(id), k_.external_annotations))
        convertPhaseMarks(*annotations);
}

void SnapshotAssembler::timeByEntryOrder()
{
    for (EventTable &trace : out_.traces) {
        NarrowColumn<int64_t> order;
        for (size_t e = 0; e < trace.count(); ++e)
            order.push_back(static_cast<int64_t>(e));
        trace.timeUs = std::move(order);
    }
}

} // namespace memlens
