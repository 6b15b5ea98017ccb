#include "decode/pickle/PickleEntryReader.h"

#include "model/LoadError.h"

namespace memlens {

namespace {

// What a reference to a memo slot made inside the entry may stand for while it is read: a
// string, a finished frame dict (inside the frame list only), or nothing this reader makes
// the way the machine would (the entry itself, a list or tuple being built).
enum Use : uint8_t { kUnusable, kString, kFrame };

// Checking: an entry value that no single token made.
constexpr uint32_t kTuple = UINT32_MAX;
constexpr uint32_t kList = UINT32_MAX - 1;

// The machine's stack above the entry's mark: its pairs, and the values a TUPLE3 folds.
constexpr size_t kMaxDepth = 2 * PickleEntryReader::kMaxEntryPairs + 2;

bool isMemo(TokenOp op) { return op == TokenOp::Memoize || op == TokenOp::Put; }

} // namespace

PickleEntryReader::PickleEntryReader(ObjectArena &arena, SnapshotAssembler &assembler)
    : arena_(arena), asm_(assembler), origins_(new uint32_t[kMaxDepth]), items_(new Value[kMaxDepth])
{
}

bool PickleEntryReader::read(const TokenChunk &chunk, size_t first, Value &entry, size_t &last)
{
    chunk_ = &chunk;
    tokens_ = chunk.tokens.data();
    count_ = chunk.count;
    memoBase_ = arena_.memo.size();
    pending_.clear();
    i_ = first;
    Value unused;
    if (!entryDict<false>(unused))
        return false;
    last = i_ - 1;
    i_ = first;
    entryDict<true>(entry);
    return true;
}

bool PickleEntryReader::keyIs(size_t token, uint32_t key, std::string_view text, bool &known) const
{
    known = true;
    const PickleToken &t = tokens_[token];
    switch (t.op) {
    case TokenOp::Str: return chunk_->textOf(t) == text;
    case TokenOp::Push: return false;
    case TokenOp::Get:
        if (t.slot < memoBase_) {
            const Value v = arena_.memo[t.slot];
            return v.kind == Kind::Str && v.u == key;
        }
        break;
    default: break;
    }
    known = false;
    return false;
}

// The first key is "action" (the machine's test for an entry at SETITEMS); with a fresh frame
// list, its key is the only "frames": the machine makes stacks in the order of their keys.
bool PickleEntryReader::keysFit(size_t depth, bool freshList) const
{
    bool known;
    if (origins_[0] >= kList || !keyIs(origins_[0], asm_.actionKey(), "action", known))
        return false;
    if (!freshList)
        return true;
    size_t frames = 0;
    for (size_t k = 0; k < depth; k += 2) {
        if (origins_[k] >= kList)
            continue;
        frames += keyIs(origins_[k], asm_.framesKey(), "frames", known) ? 1 : 0;
        if (!known)
            return false;
    }
    return frames == 1;
}

void PickleEntryReader::hold(const Value &v)
{
    if (v.kind == Kind::Node) {
        arena_.retain(v);
        held_.push_back(v);
    }
}

template <bool Run> [[gnu::always_inline]] inline int64_t PickleEntryReader::memoized(uint8_t use, const Value &v)
{
    if (i_ >= count_ || !isMemo(tokens_[i_].op))
        return -1;
    auto &memo = arena_.memo;
    const size_t next = Run ? memo.size() : memoBase_ + pending_.size();
    if (tokens_[i_].op == TokenOp::Put && tokens_[i_].slot != next)
        return -1;
    if constexpr (Run) {
        // As the machine's memo write, at the same byte.
        const uint64_t offset = chunk_->offsets[i_];
        if (memo.outgrows(offset))
            throw DecodeError(offset, "memo grows faster than the file");
        if (memo.full())
            throw DecodeError(offset, "memo holds more numbers than it can count");
        arena_.retain(v);
        memo.push_back(v);
        if (v.kind == Kind::Node)
            arena_.at(v.u).memoSlot = static_cast<uint32_t>(next);
    } else {
        pending_.push_back(use);
    }
    ++i_;
    return static_cast<int64_t>(next);
}

template <bool Run> void PickleEntryReader::settle(int64_t slot, uint8_t use, const Value &v)
{
    if (slot < 0)
        return;
    if constexpr (Run)
        arena_.memo.set(static_cast<size_t>(slot), v);
    else
        pending_[static_cast<size_t>(slot) - memoBase_] = use;
}

template <bool Run> [[gnu::always_inline]] inline bool PickleEntryReader::simple(Value &out, bool frameRefs)
{
    const PickleToken &t = tokens_[i_];
    switch (t.op) {
    case TokenOp::Push:
        if constexpr (Run)
            out = t.scalar();
        ++i_;
        return true;
    case TokenOp::Str:
        if constexpr (Run)
            out = asm_.str(chunk_->textOf(t));
        ++i_;
        memoized<Run>(kString, out);
        return true;
    case TokenOp::Get:
        if constexpr (Run) {
            out = arena_.memo[t.slot];
        } else if (t.slot < memoBase_) {
            // An entry dict in a frame list is the machine's: append() makes it a row.
            if (frameRefs && asm_.becomesEntry(arena_.memo[t.slot]))
                return false;
        } else {
            // Sparse slots and those the entry is still building are the machine's to resolve.
            const uint64_t k = t.slot - memoBase_;
            if (k >= pending_.size() || !(pending_[k] == kString || (frameRefs && pending_[k] == kFrame)))
                return false;
        }
        ++i_;
        return true;
    default:
        return false;
    }
}

// Running, the dict's items are kept for frameList(), which makes the frames in the list's
// order as the machine's stackOf() does: a fresh frame and a referenced one that is still a
// dict would otherwise be numbered the other way round.
template <bool Run> bool PickleEntryReader::frameDict()
{
    ++i_; // EMPTY_DICT
    const int64_t slot = memoized<Run>(kUnusable, Value::none());
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
            if constexpr (!Run) {
                // A dict with "action" the machine would take for an entry when it is appended.
                bool known;
                if (keyIs(i_, asm_.actionKey(), "action", known) || !known)
                    return false;
            }
            // Made in place: a value built field by field and copied whole stalls the copy.
            Value scratch[2];
            Value *pair = scratch;
            if constexpr (Run) {
                frameItems_.resize(frameItems_.size() + 2);
                pair = &frameItems_[frameItems_.size() - 2];
            }
            if (!simple<Run>(pair[0], false) || i_ >= count_ || !simple<Run>(pair[1], false))
                return false;
        }
        ++i_; // SETITEMS
    }
    if constexpr (Run)
        fresh_.push_back({first, frameItems_.size() - first, slot, FrameId(0), false});
    else
        settle<Run>(slot, kFrame, Value::none());
    return true;
}

template <bool Run> bool PickleEntryReader::frameList(Value &out)
{
    ++i_; // EMPTY_LIST
    const int64_t slot = memoized<Run>(kUnusable, Value::none());
    if constexpr (Run) {
        listItems_.clear();
        listFresh_.clear();
        frameItems_.clear();
        fresh_.clear();
    }
    auto item = [&] {
        const PickleToken &t = tokens_[i_];
        if constexpr (Run) {
            int32_t fresh = -1;
            if (t.op == TokenOp::NewDict) {
                fresh = static_cast<int32_t>(fresh_.size());
                frameDict<true>();
            } else if (t.op == TokenOp::Get && t.slot >= memoBase_) {
                for (size_t k = 0; k < fresh_.size() && fresh < 0; ++k)
                    fresh = fresh_[k].slot == static_cast<int64_t>(t.slot) ? static_cast<int32_t>(k) : -1;
                i_ += fresh >= 0 ? 1 : 0;
            }
            listFresh_.push_back(fresh);
            Value &v = listItems_.emplace_back();
            if (fresh < 0) {
                simple<true>(v, true);
                hold(v);
            }
            return true;
        } else {
            Value scratch;
            return t.op == TokenOp::NewDict ? frameDict<false>() : simple<false>(scratch, true);
        }
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
    while (i_ < count_) {
        const TokenOp op = tokens_[i_].op;
        if (op == TokenOp::Mark) {
            ++i_;
            while (i_ < count_ && tokens_[i_].op != TokenOp::Appends) {
                if (!item())
                    return false;
            }
            if (i_ >= count_)
                return false;
            ++i_; // APPENDS
        } else if (op == TokenOp::NewDict || (simpleEnd(i_) < count_ && tokens_[simpleEnd(i_)].op == TokenOp::Append)) {
            if (!item() || i_ >= count_ || tokens_[i_].op != TokenOp::Append)
                return false;
            ++i_;
        } else {
            if constexpr (Run)
                out = Value::ref(Kind::Stack, makeStack().index());
            settle<Run>(slot, kUnusable, out);
            return true;
        }
    }
    return false;
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
    return asm_.stackOf(frameIds_);
}

template <bool Run> bool PickleEntryReader::entryDict(Value &entry)
{
    ++i_; // EMPTY_DICT
    const int64_t slot = memoized<Run>(kUnusable, Value::none());
    if (i_ >= count_ || tokens_[i_].op != TokenOp::Mark)
        return false;
    ++i_;
    if constexpr (Run)
        held_.clear();
    size_t depth = 0;
    bool freshList = false;
    Value scratch;
    for (;;) {
        if (i_ >= count_ || depth == kMaxDepth)
            return false;
        const TokenOp op = tokens_[i_].op;
        uint32_t origin = static_cast<uint32_t>(i_);
        // Made in place: a value built field by field and copied whole stalls the copy (it was
        // half of this reader's time).
        Value *v = Run ? &items_[depth] : &scratch;
        switch (op) {
        case TokenOp::Push:
        case TokenOp::Str:
        case TokenOp::Get:
            if (!simple<Run>(*v, false))
                return false;
            if constexpr (Run)
                hold(*v);
            break;
        case TokenOp::NewTuple:
        case TokenOp::Tuple1:
        case TokenOp::Tuple2:
        case TokenOp::Tuple3: {
            // As the machine: the tuple takes the values below it (a list stays a node there).
            const size_t n = op == TokenOp::NewTuple ? 0 : static_cast<size_t>(op) - static_cast<size_t>(TokenOp::Tuple1) + 1;
            if (depth < n)
                return false;
            depth -= n;
            if constexpr (!Run) {
                for (size_t k = depth; k < depth + n; ++k) {
                    if (origins_[k] == kList)
                        return false;
                }
            } else {
                const uint32_t id = arena_.create(NodeKind::Tuple);
                for (size_t k = depth; k < depth + n; ++k)
                    arena_.retain(items_[k]);
                arena_.at(id).items.assign(items_.get() + depth, items_.get() + depth + n);
                v = &items_[depth];
                *v = Value::ref(Kind::Node, id);
                hold(*v);
            }
            ++i_;
            memoized<Run>(kUnusable, *v);
            origin = kTuple;
            break;
        }
        case TokenOp::NewList:
            if constexpr (!Run) {
                bool known;
                if (depth % 2 == 0 || origins_[depth - 1] >= kList ||
                    !keyIs(origins_[depth - 1], asm_.framesKey(), "frames", known))
                    return false;
                freshList = true;
            }
            if (!frameList<Run>(*v))
                return false;
            origin = kList;
            break;
        case TokenOp::SetItems:
            if (depth == 0 || depth % 2 || depth > 2 * kMaxEntryPairs)
                return false;
            if (!Run && !keysFit(depth, freshList))
                return false;
            ++i_;
            if constexpr (Run) {
                entry = Value::ref(Kind::Entry, asm_.convertEntry(items_.get(), depth));
                for (const Value &h : held_)
                    arena_.release(h);
            }
            settle<Run>(slot, kUnusable, entry);
            return true;
        default:
            return false;
        }
        if constexpr (!Run)
            origins_[depth] = origin;
        ++depth;
    }
}

} // namespace memlens
