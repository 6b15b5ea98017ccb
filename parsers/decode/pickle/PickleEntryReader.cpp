#include "decode/pickle/PickleEntryReader.h"

#include "decode/pickle/PickleTokenForms.h"

namespace memlens {

namespace {

// The machine's stack above the entry's mark: its pairs, and the values a TUPLE3 folds.
constexpr size_t kMaxDepth = 2 * PickleEntryReader::kMaxEntryPairs + 2;
constexpr size_t kNoList = SIZE_MAX;

} // namespace

PickleEntryReader::PickleEntryReader(ObjectArena &arena, SnapshotAssembler &assembler)
    : arena_(arena), asm_(assembler), shape_(arena, assembler), items_(new Value[kMaxDepth])
{
}

EntryRead PickleEntryReader::read(const TokenChunk &chunk, size_t first)
{
    chunk_ = &chunk;
    tokens_ = chunk.tokens.data();
    count_ = chunk.count;
    // The tokenizer wrote them on the other core: ask for the next entries' well before use
    // (~16 entries ahead, each ~20 tokens, five cache lines: nearer was measurably slower; the
    // machine's own prefetch runs once per entry).
    const PickleToken *ahead = tokens_ + first + 320;
    __builtin_prefetch(ahead);
    __builtin_prefetch(ahead + 4);
    __builtin_prefetch(ahead + 8);
    __builtin_prefetch(ahead + 12);
    __builtin_prefetch(ahead + 16);
    __builtin_prefetch(ahead + 20);
    if (const EntryRead alike = shape_.read(chunk, first); alike.read()) {
        ++byShape_;
        return alike;
    }
    memoBase_ = arena_.memo.size();
    entrySlot_ = listSlot_ = -1;
    held_.clear();
    fresh_.clear();
    i_ = first;
    Value entry;
    if (!entryDict(entry)) {
        rollBack();
        return {};
    }
    shape_.learn(chunk, first, i_ - 1);
    return {i_ - 1, entry.u};
}

void PickleEntryReader::rollBack()
{
    auto &memo = arena_.memo;
    for (size_t slot = memo.size(); slot-- > memoBase_;)
        arena_.release(memo[slot]);
    memo.truncate(memoBase_);
    for (const Value &v : held_)
        arena_.release(v);
    held_.clear();
}

void PickleEntryReader::hold(const Value &v)
{
    if (v.kind == Kind::Node) {
        arena_.retain(v);
        held_.push_back(v);
    }
}

[[gnu::always_inline]] inline int64_t PickleEntryReader::memoized(const Value &v)
{
    auto &memo = arena_.memo;
    const size_t next = memo.size();
    if (!writesNextSlot(tokens_, i_, count_, next))
        return -1;
    memo.checkRoom(true, chunk_->offsets[i_]); // as the machine's memo write, at the same byte
    arena_.retain(v);
    memo.push_back(v);
    if (v.kind == Kind::Node)
        arena_.at(v.u).memoSlot = static_cast<uint32_t>(next);
    ++i_;
    return static_cast<int64_t>(next);
}

[[gnu::always_inline]] inline bool PickleEntryReader::simple(Value &out, bool listItem, int32_t &fresh)
{
    const PickleToken &t = tokens_[i_];
    switch (t.op) {
    case TokenOp::Push:
        out = t.scalar();
        ++i_;
        return true;
    case TokenOp::Str:
        out = asm_.str(chunk_->textOf(t));
        ++i_;
        memoized(out);
        return true;
    case TokenOp::Get: {
        const uint64_t slot = t.slot;
        // Sparse slots are the machine's to resolve.
        if (slot >= arena_.memo.size())
            return false;
        if (slot >= memoBase_) {
            const auto s = static_cast<int64_t>(slot);
            if (s == entrySlot_ || s == listSlot_)
                return false;
            for (size_t k = 0; k < fresh_.size(); ++k) {
                if (fresh_[k].slot == s) {
                    if (!listItem)
                        return false; // the machine would still see a dict there
                    fresh = static_cast<int32_t>(k);
                    ++i_;
                    return true;
                }
            }
        }
        out = arena_.memo[slot];
        // An entry dict in a frame list is the machine's: append() makes it a row.
        if (listItem && asm_.becomesEntry(out))
            return false;
        hold(out);
        ++i_;
        return true;
    }
    default:
        return false;
    }
}

// The dict's items are kept for makeStack(), which makes the frames in the list's order as the
// machine's stackOf() does: a fresh frame and a referenced one that is still a dict would
// otherwise be numbered the other way round.
bool PickleEntryReader::frameDict()
{
    ++i_; // EMPTY_DICT
    const int64_t slot = memoized(Value::none());
    const size_t first = frameItems_.size();
    if (i_ < count_ && tokens_[i_].op == TokenOp::Mark) {
        ++i_;
        for (size_t pairs = 0;; ++pairs) {
            if (i_ >= count_)
                return false;
            if (tokens_[i_].op == TokenOp::SetItems)
                break;
            if (pairs == kMaxEntryPairs)
                return false;
            // Made in place: a value built field by field and copied whole stalls the copy.
            frameItems_.resize(frameItems_.size() + 2);
            Value *pair = &frameItems_[frameItems_.size() - 2];
            int32_t fresh = -1;
            if (!simple(pair[0], false, fresh) || i_ >= count_ || !simple(pair[1], false, fresh))
                return false;
        }
        ++i_; // SETITEMS
    }
    // A dict with "action" the machine would take for an entry.
    if (asm_.hasAction(frameItems_.data() + first, frameItems_.size() - first))
        return false;
    fresh_.push_back({first, frameItems_.size() - first, slot, FrameId(0), false});
    return true;
}

bool PickleEntryReader::frameList()
{
    ++i_; // EMPTY_LIST
    listSlot_ = memoized(Value::none());
    listItems_.clear();
    listFresh_.clear();
    frameItems_.clear();
    auto item = [&] {
        int32_t fresh = -1;
        Value &v = listItems_.emplace_back();
        if (tokens_[i_].op == TokenOp::NewDict) {
            fresh = static_cast<int32_t>(fresh_.size());
            if (!frameDict())
                return false;
        } else if (!simple(v, true, fresh)) {
            return false;
        }
        listFresh_.push_back(fresh);
        return true;
    };
    // Where the one value at token j ends, its memo write included (an APPEND may follow).
    auto simpleEnd = [&](size_t j) -> size_t {
        switch (tokens_[j].op) {
        case TokenOp::Push:
        case TokenOp::Get: return j + 1;
        case TokenOp::Str: return j + 1 < count_ && isMemo(tokens_[j + 1].op) ? j + 2 : j + 1;
        default: return count_;
        }
    };
    return readListItems(tokens_, i_, count_, item, [&](size_t j) {
        return tokens_[j].op == TokenOp::NewDict || (simpleEnd(j) < count_ && tokens_[simpleEnd(j)].op == TokenOp::Append);
    });
}

StackId PickleEntryReader::makeStack()
{
    frameIds_.clear();
    for (size_t k = 0; k < listItems_.size(); ++k) {
        FrameId id;
        if (listFresh_[k] >= 0) {
            FreshFrame &f = fresh_[static_cast<size_t>(listFresh_[k])];
            if (!f.made) {
                f.id = asm_.frameOf(frameItems_.data() + f.first, f.count);
                f.made = true;
                if (f.slot >= 0)
                    arena_.memo.set(static_cast<size_t>(f.slot), Value::ref(Kind::Frame, f.id.index()));
            }
            id = f.id;
        } else if (!asm_.frameOf(listItems_[k], id)) {
            continue;
        }
        frameIds_.push_back(id);
    }
    const StackId stack = asm_.stackOf(frameIds_);
    if (listSlot_ >= 0)
        arena_.memo.set(static_cast<size_t>(listSlot_), Value::ref(Kind::Stack, stack.index()));
    return stack;
}

bool PickleEntryReader::entryDict(Value &entry)
{
    ++i_; // EMPTY_DICT
    entrySlot_ = memoized(Value::none());
    if (i_ >= count_ || tokens_[i_].op != TokenOp::Mark)
        return false;
    ++i_;
    size_t depth = 0;
    size_t list = kNoList; // where the fresh frame list is among the values
    for (;;) {
        if (i_ >= count_ || depth == kMaxDepth)
            return false;
        const TokenOp op = tokens_[i_].op;
        // Made in place: a value built field by field and copied whole stalls the copy (it was
        // half of this reader's time).
        Value *v = &items_[depth];
        switch (op) {
        case TokenOp::Push:
        case TokenOp::Str:
        case TokenOp::Get: {
            int32_t fresh = -1;
            if (!simple(*v, false, fresh))
                return false;
            break;
        }
        case TokenOp::NewTuple:
        case TokenOp::Tuple1:
        case TokenOp::Tuple2:
        case TokenOp::Tuple3: {
            // As the machine: the tuple takes the values below it (a list stays a node there).
            const size_t n = op == TokenOp::NewTuple ? 0 : static_cast<size_t>(op) - static_cast<size_t>(TokenOp::Tuple1) + 1;
            if (depth < n || (list != kNoList && list >= depth - n))
                return false;
            depth -= n;
            const uint32_t id = arena_.create(NodeKind::Tuple);
            for (size_t k = depth; k < depth + n; ++k)
                arena_.retain(items_[k]);
            arena_.at(id).items.assign(items_.get() + depth, items_.get() + depth + n);
            v = &items_[depth];
            *v = Value::ref(Kind::Node, id);
            hold(*v);
            ++i_;
            memoized(*v);
            break;
        }
        case TokenOp::NewList:
            // One fresh list, a value: its key is checked with the others at SETITEMS.
            if (depth % 2 == 0 || list != kNoList || !frameList())
                return false;
            *v = Value::none();
            list = depth;
            break;
        case TokenOp::SetItems: {
            if (depth == 0 || depth % 2 || depth > 2 * kMaxEntryPairs || !asm_.startsEntry(items_.get(), depth))
                return false;
            if (list != kNoList) {
                // Its key the only "frames": the machine makes stacks in the order of their keys.
                size_t frames = 0;
                for (size_t k = 0; k < depth; k += 2)
                    frames += items_[k].kind == Kind::Str && items_[k].u == asm_.framesKey() ? 1 : 0;
                const Value &key = items_[list - 1];
                if (frames != 1 || key.kind != Kind::Str || key.u != asm_.framesKey())
                    return false;
                items_[list] = Value::ref(Kind::Stack, makeStack().index());
            }
            ++i_;
            entry = Value::ref(Kind::Entry, asm_.convertEntry(items_.get(), depth));
            for (const Value &h : held_)
                arena_.release(h);
            if (entrySlot_ >= 0)
                arena_.memo.set(static_cast<size_t>(entrySlot_), entry);
            return true;
        }
        default:
            return false;
        }
        ++depth;
    }
}

} // namespace memlens
