#include "decode/snapshot/SnapshotAssembler.h"

#include "model/EventColumns.h"

#include <algorithm>

// Trace entries, their stacks and frames: a dict's items become an event row, as a decoder
// finishes each entry (SnapshotAssembler.h says when).
namespace memlens {

bool SnapshotAssembler::frameOf(const Value &frame, FrameId &id)
{
    if (frame.kind == Kind::Frame) {
        id = FrameId(frame.u);
        return true;
    }
    if (frame.kind != Kind::Node)
        return false;
    const Node &n = arena_.at(frame.u);
    if (n.converted) {
        id = FrameId(n.result.u);
        return n.result.kind == Kind::Frame;
    }
    // A list read as a frame has no fields.
    const bool dict = n.kind == NodeKind::Dict;
    id = frameOf(dict ? n.items.data() : nullptr, dict ? n.items.size() : 0);
    arena_.markConverted(frame.u, Value::ref(Kind::Frame, id.index()));
    return true;
}

FrameId SnapshotAssembler::frameOf(const Value *items, size_t count)
{
    const Value *name = field(items, count, k_.name);
    const Value *file = field(items, count, k_.filename);
    const Value *line = field(items, count, k_.line);
    Frame f;
    f.name = name && name->kind == Kind::Str ? StringId(name->u) : StringTable::kEmpty;
    f.file = file && file->kind == Kind::Str ? StringId(file->u) : StringTable::kEmpty;
    f.line = static_cast<int64_t>(number(line));
    const FrameId id = out_.frames.intern(f);
    if (count > 6) // more keys than name, filename and line: FX augmentation
        readFxFields(items, count, id);
    return id;
}

void SnapshotAssembler::readFxFields(const Value *items, size_t count, FrameId frameId)
{
    auto textOf = [&](uint32_t key) {
        const Value *v = field(items, count, key);
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
    const Node &list = arena_.at(listId);
    if (list.converted)
        return list.result.kind == Kind::Stack ? StackId(list.result.u) : StackTable::kEmpty;
    // Converting frames releases nodes but creates none: the list's items stay where they are.
    frameIds_.clear();
    for (const Value &item : list.items) {
        FrameId id;
        if (frameOf(item, id))
            frameIds_.push_back(id);
    }
    const StackId stack = stackOf(frameIds_);
    arena_.markConverted(listId, Value::ref(Kind::Stack, stack.index()));
    return stack;
}

StackId SnapshotAssembler::stackOf(std::span<const FrameId> frames)
{
    if (!frames.empty())
        out_.facts.hasFrames = true;
    return out_.stacks.intern(frames);
}

EntryField SnapshotAssembler::entryField(uint32_t keyId) const
{
    return keyId < fieldByKey_.size() ? fieldByKey_[keyId] : EntryField::Ignored;
}

void SnapshotAssembler::readAnyEntryField(EntryFields &f, EntryField field, const Value &v)
{
    switch (field) {
    case EntryField::Ignored: break;
    case EntryField::Action:
        if (v.kind == Kind::Str) {
            f.actionString = v.u;
            f.action = actionOf(v.u);
        }
        break;
    case EntryField::Addr: f.addr = number(&v); break;
    case EntryField::Size:
        f.size = number(&v);
        // No size column holds an integer beyond 64 bits, NaN, infinity or anything but a
        // number (a string read as 0 said nothing): read as 0 like a size beyond 1 PiB, and
        // warned of the same way.
        f.sizeUnreadable = !(v.kind == Kind::Int || v.kind == Kind::Bool || ((v.kind == Kind::BigInt || v.kind == Kind::Float) && fitsSixtyFourBits(v)));
        if (f.sizeUnreadable)
            f.unreadableSize = v;
        break;
    case EntryField::Stream: f.stream = number(&v); break;
    case EntryField::TimeUs:
        f.time = static_cast<int64_t>(number(&v));
        f.haveTime = true;
        break;
    case EntryField::Frames: f.stack = stackOf(v); break;
    case EntryField::DeviceFree:
        f.deviceFree = number(&v);
        f.haveDeviceFree = true;
        break;
    case EntryField::CompileContext:
    case EntryField::UserMetadata: break; // a string is read inline (readEntryField); nothing else says anything
    case EntryField::PoolId:
        f.pool = poolIndex(v);
        out_.facts.hasPoolIds = true;
        break;
    case EntryField::InternalMetadata:
        if (v.kind == Kind::Str)
            f.internal = v.u;
        break;
    case EntryField::ForwardFrames: f.forward = joinedText(v); break;
    }
}

uint32_t SnapshotAssembler::convertEntry(const Value *items, size_t count)
{
    EntryFields f;
    for (size_t i = 0; i + 1 < count; i += 2) {
        if (items[i].kind == Kind::Str)
            readEntryField(f, entryField(items[i].u), items[i + 1]);
    }
    return storeEntry(f);
}

uint32_t SnapshotAssembler::storeEntry(const EntryFields &f)
{
    if (f.haveTime)
        out_.facts.hasTimes = true;
    const auto row = static_cast<uint32_t>(staged_.count());
    prefault_.writing(row);
    staged_.action.push_back(f.action);
    staged_.addr.push_back(f.action == Action::Oom && f.haveDeviceFree ? f.deviceFree : f.addr);
    staged_.size.push_back(f.size > kMaxPlausibleBytes ? 0 : f.size);
    staged_.stream.push_back(streamIndex(f.stream));
    staged_.timeUs.push_back(f.time);
    staged_.stack.push_back(f.stack);
    if (f.action == Action::Other)
        staged_.otherNames.emplace_back(row, StringId(f.actionString));
    if (f.compile) {
        staged_.compileContext.emplace_back(row, StringId(f.compile));
        out_.facts.hasCompileContext = true;
    }
    if (f.meta) {
        staged_.userMetadata.emplace_back(row, StringId(f.meta));
        out_.facts.hasUserMetadata = true;
    }
    if (f.internal)
        staged_.internalMetadata.emplace_back(row, StringId(f.internal));
    if (f.forward != StringTable::kEmpty)
        staged_.forwardFrames.emplace_back(row, f.forward);
    if (f.pool != PoolIndex(0))
        staged_.pool.emplace_back(row, f.pool);
    if (f.size > kMaxPlausibleBytes)
        staged_.implausibleSizes.emplace_back(row, out_.strings.intern(std::to_string(f.size)));
    else if (f.sizeUnreadable)
        staged_.implausibleSizes.emplace_back(row, out_.strings.intern(f.unreadableSize.kind == Kind::BigInt ? "2^64 or more" : text(f.unreadableSize)));
    return row;
}

Value SnapshotAssembler::convertEntryDict(uint32_t dictId)
{
    const Node &n = arena_.at(dictId);
    const Value entry = Value::ref(Kind::Entry, convertEntry(n.items.data(), n.items.size()));
    arena_.markConverted(dictId, entry);
    return entry;
}

void SnapshotAssembler::append(uint32_t listId, Value item)
{
    Node &list = arena_.at(listId);
    if (list.converted)
        notSnapshot("a list is changed after it was used");
    if (list.kind == NodeKind::Dict)
        notSnapshot("items appended to a dict");
    if (becomesEntry(item)) {
        const Value entry = convertEntryDict(item.u);
        arena_.release(item);
        item = entry;
    }
    Node &l = arena_.at(listId);
    if (item.kind == Kind::Entry && l.items.empty() && (l.entryCount == 0 || l.entryFirst + l.entryCount == item.u)) {
        if (l.entryCount++ == 0)
            l.entryFirst = item.u;
        return;
    }
    if (l.entryCount > 0) {
        // The run of rows stops being consecutive: spell it out as items.
        for (uint32_t r = 0; r < l.entryCount; ++r)
            l.items.push_back(Value::ref(Kind::Entry, l.entryFirst + r));
        l.entryCount = 0;
    }
    l.items.push_back(item);
}

} // namespace memlens
