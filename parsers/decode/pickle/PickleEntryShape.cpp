#include "decode/pickle/PickleEntryShape.h"

#include "decode/pickle/PickleEntryReader.h"
#include "decode/pickle/PickleTokenForms.h"

namespace memlens {

namespace {

// Fields whose value is read without making anything: pools and joined texts make new ids.
bool plainField(EntryField f)
{
    return f != EntryField::PoolId && f != EntryField::ForwardFrames;
}

// Where a fresh list of frame references that starts at t[i] (after its EMPTY_LIST) ends, before
// `end`; 0 if it holds anything else (a fresh frame dict).
size_t frameListEnd(const PickleToken *t, size_t i, size_t end)
{
    i += isMemo(t[i].op) ? 1 : 0;
    const bool ends = readListItems(
        t, i, end, [&] { return t[i++].op == TokenOp::Get; }, [&](size_t j) { return appendedReference(t, j, end); });
    return ends ? i : 0;
}

} // namespace

void PickleEntryShape::learn(const TokenChunk &chunk, size_t first, size_t last)
{
    const PickleToken *t = chunk.tokens.data();
    size_t i = first + 1;
    const TokenOp memoOp = isMemo(t[i].op) ? t[i].op : TokenOp::Stop;
    i += memoOp != TokenOp::Stop ? 1 : 0;
    if (t[i++].op != TokenOp::Mark)
        return;
    learning_.clear();
    size_t frames = 0;
    while (i < last) {
        const PickleToken &key = t[i++];
        if (key.op != TokenOp::Get || key.slot >= arena_.memo.size() || learning_.size() == PickleEntryReader::kMaxEntryPairs)
            return;
        const Value k = arena_.memo[key.slot];
        const EntryField field = k.kind == Kind::Str ? asm_.entryField(k.u) : EntryField::Ignored;
        if (k.kind != Kind::Str || !plainField(field))
            return;
        frames += field == EntryField::Frames ? 1 : 0;
        learning_.push_back({key.slot, field, Value::none()});
        // Past the value: one token, a memo write after a fresh string, a fresh frame list.
        const TokenOp op = t[i].op;
        if (op == TokenOp::Push || op == TokenOp::Get) {
            ++i;
        } else if (op == TokenOp::Str) {
            i += isMemo(t[i + 1].op) ? 2 : 1;
        } else if (op == TokenOp::NewList && field == EntryField::Frames) {
            i = frameListEnd(t, i + 1, last + 1); // the SETITEMS ends a list that is the last value
            if (i == 0)
                return;
        } else {
            return;
        }
    }
    // The general reader takes an entry only with "action" first, and a fresh frame list only
    // as the one "frames".
    if (i != last || learning_.empty() || learning_[0].field != EntryField::Action || frames > 1)
        return;
    pairs_.swap(learning_);
    memoOp_ = memoOp;
    learntAt_ = arena_.memo.stringsRewritten();
}

[[gnu::always_inline]] inline int64_t PickleEntryShape::memoized(Reading &r, const Value &v)
{
    auto &memo = arena_.memo;
    const size_t next = memo.size();
    if (!writesNextSlot(r.t, r.i, r.end, next))
        return -1;
    memo.checkRoom(true, r.chunk.offsets[r.i]); // as the machine's memo write, at the same byte
    memo.push_back(v);
    ++r.i;
    return static_cast<int64_t>(next);
}

[[gnu::always_inline]] inline bool PickleEntryShape::freshFrameList(Reading &r)
{
    ++r.i; // EMPTY_LIST
    r.listSlot = memoized(r, Value::none());
    r.freshList = true;
    frames_.clear();
    // One frame reference: the frame it names; a frame dict still being a dict is the general
    // reader's; anything else is skipped, as the machine's stackOf() skips it.
    auto item = [&]() __attribute__((always_inline)) {
        const PickleToken &t = r.t[r.i++];
        if (t.op != TokenOp::Get || t.slot >= r.base)
            return false;
        const Value v = arena_.memo[t.slot];
        if (v.kind == Kind::Node)
            return false;
        if (v.kind == Kind::Frame)
            frames_.push_back(FrameId(v.u));
        return true;
    };
    return readListItems(r.t, r.i, r.end, item, [&](size_t j) { return appendedReference(r.t, j, r.end); });
}

[[gnu::always_inline]] inline bool PickleEntryShape::value(Reading &r, Pair &p, EntryFields &fields)
{
    const PickleToken &t = r.t[r.i];
    switch (t.op) {
    case TokenOp::Push:
        asm_.readEntryField(fields, p.field, t.scalar());
        ++r.i;
        return true;
    case TokenOp::Get: {
        if (t.slot >= r.base)
            return false; // the entry, its list or a string it made: the general reader's
        const Value v = arena_.memo[t.slot];
        // A container is the general reader's to hold, convert or refuse.
        if (v.kind == Kind::Node)
            return false;
        asm_.readEntryField(fields, p.field, v);
        ++r.i;
        return true;
    }
    case TokenOp::Str: {
        const std::string_view text = r.chunk.textOf(t);
        if (p.lastString.kind != Kind::Str || asm_.stringAt(p.lastString.u) != text)
            p.lastString = asm_.str(text);
        ++r.i;
        memoized(r, p.lastString);
        asm_.readEntryField(fields, p.field, p.lastString);
        return true;
    }
    case TokenOp::NewList:
        return p.field == EntryField::Frames && !r.freshList && freshFrameList(r);
    default: return false;
    }
}

EntryRead PickleEntryShape::giveUp(const Reading &r)
{
    arena_.memo.truncate(r.base);
    return {};
}

EntryRead PickleEntryShape::read(const TokenChunk &chunk, size_t first)
{
    auto &memo = arena_.memo;
    // The key slots hold the strings they held when learnt until a string slot is written again
    // (they are below every slot a reader since has taken back).
    if (pairs_.empty() || memo.stringsRewritten() != learntAt_)
        return {};
    Reading r{chunk, chunk.tokens.data(), first + 1, chunk.count, memo.size()};
    const bool memoizedEntry = memoOp_ != TokenOp::Stop;
    if (memoizedEntry && (r.i >= r.end || r.t[r.i].op != memoOp_ || memoized(r, Value::none()) < 0))
        return giveUp(r);
    if (r.i >= r.end || r.t[r.i++].op != TokenOp::Mark)
        return giveUp(r);
    EntryFields fields = blank_;
    for (Pair &p : pairs_) {
        if (r.i + 1 >= r.end)
            return giveUp(r);
        const PickleToken &k = r.t[r.i];
        if (k.op != TokenOp::Get || k.slot != p.keySlot)
            return giveUp(r);
        ++r.i;
        if (!value(r, p, fields))
            return giveUp(r);
    }
    if (r.i >= r.end || r.t[r.i].op != TokenOp::SetItems)
        return giveUp(r);
    if (r.freshList) {
        fields.stack = asm_.stackOf(std::span<const FrameId>(frames_.data(), frames_.size()));
        if (r.listSlot >= 0)
            memo.set(static_cast<size_t>(r.listSlot), Value::ref(Kind::Stack, fields.stack.index()));
    }
    const uint32_t row = asm_.storeEntry(fields);
    if (memoizedEntry)
        memo.set(r.base, Value::ref(Kind::Entry, row));
    return {r.i, row};
}

} // namespace memlens
