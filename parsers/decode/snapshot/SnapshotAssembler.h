#pragma once
// Turns the decoders' objects into a Snapshot. Decoders call append()/setItem() as they
// build containers; trace entries become event rows the moment they are appended to a list,
// and finish() converts the rest once the top-level object is complete. Shared by the pickle
// and the JSON decoder, so both read exactly the same fields.
#include "decode/snapshot/EntryFields.h"
#include "decode/snapshot/ObjectArena.h"
#include "memory/PrefaultAhead.h"
#include "model/Snapshot.h"

#include <array>
#include <span>
#include <string_view>

namespace memlens {

class SnapshotAssembler {
public:
    SnapshotAssembler(Snapshot &out, ObjectArena &arena);

    Value str(std::string_view text) { return Value::ref(Kind::Str, out_.strings.intern(text).index()); }
    std::string_view stringAt(uint32_t id) const { return out_.strings.at(StringId(id)); }

    // Takes over the caller's reference to `item`. A trace entry becomes its event row here
    // (if it is not one already): a list of entries is a run of rows.
    void append(uint32_t listId, Value item);
    // Takes over the caller's references to `key` and `value`.
    void setItem(uint32_t dictId, Value key, Value value)
    {
        const Value pair[2] = {key, value};
        setItems(dictId, pair, 2);
    }
    // The same for `count` values: key, value, key, value…
    void setItems(uint32_t dictId, const Value *keysAndValues, size_t count);
    // Whether a dict with these items is a trace entry as torch writes it, "action" first; and
    // whether it has "action" anywhere (append() takes such a dict for an entry).
    bool startsEntry(const Value *items, size_t count) const
    {
        return count >= 2 && items[0].kind == Kind::Str && items[0].u == k_.action;
    }
    bool hasAction(const Value *items, size_t count) const { return startsEntry(items, count) || field(items, count, k_.action); }
    // Whether append() turns this item into an event row.
    bool becomesEntry(const Value &item) const
    {
        return item.kind == Kind::Node && arena_.at(item.u).kind == NodeKind::Dict && !arena_.at(item.u).converted &&
               hasAction(arena_.at(item.u));
    }
    // A finished trace entry's event row, which the memo slot naming the dict now holds.
    Value convertEntryDict(uint32_t dictId);
    // The same from a dict's items (key, value, key, value…) that were never a node.
    uint32_t convertEntry(const Value *items, size_t count);
    // An entry read pair by pair: the field a key names, what its value says, and the row.
    EntryField entryField(uint32_t keyId) const;
    // Inline for what nearly every entry holds (numbers, a known action, a converted stack) and
    // the only reading of the metadata strings; readAnyEntryField for the rest.
    [[gnu::always_inline]] void readEntryField(EntryFields &f, EntryField field, const Value &v)
    {
        if (v.kind == Kind::Int) {
            switch (field) {
            case EntryField::Addr: f.addr = static_cast<uint64_t>(v.i); return;
            case EntryField::Size:
                f.size = static_cast<uint64_t>(v.i);
                f.sizeUnreadable = false;
                return;
            case EntryField::Stream: f.stream = static_cast<uint64_t>(v.i); return;
            case EntryField::TimeUs:
                f.time = v.i;
                f.haveTime = true;
                return;
            default: break;
            }
        } else if (v.kind == Kind::Stack && field == EntryField::Frames) {
            f.stack = StackId(v.u);
            return;
        } else if (v.kind == Kind::Str) {
            switch (field) {
            case EntryField::Action:
                if (v.u < actionByString_.size() && actionByString_[v.u] >= 0) {
                    f.actionString = v.u;
                    f.action = static_cast<Action>(actionByString_[v.u]);
                    return;
                }
                break;
            case EntryField::CompileContext:
                f.compile = v.u != k_.na && v.u != StringTable::kEmpty.index() ? v.u : f.compile;
                return;
            case EntryField::UserMetadata:
                f.meta = v.u != StringTable::kEmpty.index() ? v.u : f.meta;
                return;
            default: break;
            }
        }
        readAnyEntryField(f, field, v);
    }
    uint32_t storeEntry(const EntryFields &f);
    // The frame a frame dict's items describe; the frame a value in a frame list stands for
    // (false: none, it is skipped), and the stack of those frames.
    FrameId frameOf(const Value *items, size_t count);
    bool frameOf(const Value &frame, FrameId &id);
    StackId stackOf(std::span<const FrameId> frames);
    uint32_t framesKey() const { return k_.frames; }

    // Room for about `rows` entries, which prefaultAhead() may fault in ahead of their rows.
    void expectEntries(size_t rows);
    // From another thread while the decoder runs: see PrefaultAhead.
    void prefaultAhead() { prefault_.ahead(); }
    // Converts what streaming did not, fills `out`. Throws DecodeError(offset) when the
    // object is not a memory snapshot.
    void finish(const Value &root, uint64_t offset);

private:
    StackId stackOf(const Value &frames);
    void readFxFields(const Value *items, size_t count, FrameId frameId);
    StringId joinedText(const Value &lines);
    PoolIndex poolIndex(const Value &pool); // of a (a, b) tuple
    // hostDevice ≥ 0: a host segment, given that device number.
    void convertSegment(const Value &segment, int hostDevice = -1);
    void convertBlock(const Value &block, Segment &seg, uint64_t offsetInSegment);
    // `lists[d]`: device d's list of entries (node id), UINT32_MAX for none.
    void convertTraces(const std::vector<uint32_t> &lists);
    // A file whose entries carry no time_us: each entry's time is its place in its trace.
    void timeByEntryOrder();
    std::vector<uint32_t> traceLists(const Value *deviceTraces, const Value *hostTraces, int hostDevice);
    int hostDeviceFor(const Value *deviceTraces, const Value *hostSegments, const Value *hostTraces) const;
    void convertSettings(const Value &settings);
    void convertPhaseMarks(const Value &annotations);
    // Nearly every entry is on the stream of the one before: that one is compared inline.
    [[gnu::always_inline]] StreamIndex streamIndex(uint64_t stream)
    {
        if (lastStream_ < out_.streams.size() && out_.streams[lastStream_] == stream) [[likely]]
            return StreamIndex(lastStream_);
        return findStream(stream);
    }
    StreamIndex findStream(uint64_t stream);
    Action actionOf(uint32_t stringId);
    void readAnyEntryField(EntryFields &f, EntryField field, const Value &v);
    static const Value *field(const Value *items, size_t count, uint32_t key);
    const Value *field(const Node &dict, uint32_t key) const;
    bool hasAction(const Node &dict) const; // a trace entry
    uint64_t number(const Value *v, uint64_t fallback = 0) const;
    // A number that 64 bits hold (what number() reads rather than falls back on); false for an
    // integer beyond them, NaN, infinity and anything that is no number.
    static bool fitsSixtyFourBits(const Value &v);
    std::string text(const Value &v) const;
    [[noreturn]] void notSnapshot(const std::string &why) const;

    Snapshot &out_;
    ObjectArena &arena_;
    EventTable staged_;          // rows of all devices in file order, before finish() splits them
    PrefaultAhead prefault_;     // of staged_'s columns
    std::vector<int8_t> actionByString_;
    std::array<EntryField, 64> fieldByKey_{}; // by key string id; the keys are interned first
    std::vector<FrameId> frameIds_; // stackOf's, kept for its capacity
    uint16_t lastStream_ = 0;       // the stream streamIndex() found last
    uint64_t finishOffset_ = 0;
    struct KeyIds {
        uint32_t action, addr, size, stream, time_us, frames, device_free, compile_context, user_metadata;
        uint32_t pool_id, internal_metadata, forward_frames;
        uint32_t name, filename, line, fx_node_op, fx_node_name, fx_node_target, fx_original_trace;
        uint32_t segments, device_traces, allocator_settings, external_annotations, host_segments, host_traces;
        uint32_t device, address, total_size, allocated_size, active_size, requested_size, segment_type,
            segment_pool_id, is_expandable, blocks, state, history, real_size, stage;
        uint32_t na, start, large, active_allocated, active_pending_free, active_awaiting_free, inactive;
    } k_;
};

} // namespace memlens
