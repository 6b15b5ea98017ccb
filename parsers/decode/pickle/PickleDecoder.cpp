#include "decode/pickle/PickleDecoder.h"

#include "decode/snapshot/ObjectArena.h"
#include "decode/pickle/PickleEntryReader.h"
#include "decode/pickle/PickleTokenStream.h"
#include "decode/snapshot/SnapshotAssembler.h"

#include <new>
#include <unordered_map>

namespace memlens {

namespace {

// Bounds that no real snapshot comes near; they keep hostile files from asking for
// unbounded memory.
constexpr size_t kMaxStack = 1'000'000;
constexpr size_t kMaxMarks = 100'000;

class PickleMachine {
public:
    // The assembler is made first: whichever thread waits for the other faults its columns in
    // ahead of the rows.
    PickleMachine(ByteReader &in, Snapshot &out, bool background, bool directEntries)
        : out_(out), asm_(out, arena_), entries_(arena_, asm_), directEntries_(directEntries),
          tokens_(in, background, [this] { asm_.prefaultAhead(); })
    {
        // A trace entry takes 70–80 bytes of a pickle, never much under 32; a compressed file
        // holds more entries than its size says, and the columns grow on from there.
        if (background) {
            asm_.expectEntries(static_cast<size_t>(in.fileSize() / 32));
            try {
                arena_.memo.reserve(static_cast<size_t>(in.fileSize() / 16));
            } catch (const std::bad_alloc &) {
                // As for the columns: an estimate only, the memo grows as it must.
            }
        }
    }

    DirectEntries directEntries() const { return {directCount_, entries_.byShape()}; }

    void run()
    {
        out_.facts.format = FileFormat::Pickle;
        for (;;) {
            chunk_ = &tokens_.next();
            directFrom_ = 0;
            for (index_ = 0; index_ < chunk_->count; ++index_) {
                const PickleToken &t = chunk_->tokens[index_];
                // The tokenizer wrote them on the other core: ask for them well before use.
                __builtin_prefetch(&t + 32);
                if (t.op == TokenOp::Stop) {
                    if (stack_.empty())
                        fail("STOP with an empty stack");
                    Value root = stack_.back();
                    asm_.finish(root, at());
                    return;
                }
                step(t);
            }
            if (chunk_->error)
                std::rethrow_exception(chunk_->error);
            if (chunk_->count == 0)
                throw DecodeError(LoadError::kNoOffset, "pickle ends without STOP (the file is cut short)");
        }
    }

private:
    // The offset of the opcode being run, for errors.
    uint64_t at() const { return chunk_->offsets[index_]; }
    [[noreturn, gnu::cold, gnu::noinline]] void fail(const std::string &why) { throw DecodeError(at(), why); }
    [[noreturn, gnu::cold, gnu::noinline]] void stackOverflow()
    {
        fail("pickle stack grows beyond " + std::to_string(kMaxStack) + " values");
    }

    // By value and inlined: the caller's freshly built Value stays in registers (read back
    // from memory as one 16-byte load it stalled store forwarding, 15 % of all decode time).
    [[gnu::always_inline]] void push(Value v)
    {
        if (stack_.size() >= kMaxStack) [[unlikely]]
            stackOverflow();
        arena_.retain(v);
        stack_.push_back(v);
    }
    // Hands the caller the stack's reference.
    Value pop()
    {
        if (stack_.size() <= markFloor())
            fail("pickle stack underflow");
        Value v = stack_.back();
        stack_.pop_back();
        return v;
    }
    size_t markFloor() const { return marks_.empty() ? 0 : marks_.back(); }
    size_t popMark()
    {
        if (marks_.empty())
            fail("no MARK to pop to");
        size_t m = marks_.back();
        marks_.pop_back();
        return m;
    }
    uint32_t topNode(size_t index)
    {
        if (index >= stack_.size() || stack_[index].kind != Kind::Node)
            fail("expected a list or dict on the pickle stack");
        return stack_[index].u;
    }

    void pushNew(NodeKind kind) { push(Value::ref(Kind::Node, arena_.create(kind))); }

    void memoPut(uint64_t slot)
    {
        if (stack_.empty())
            fail("memo write with an empty stack");
        const Value v = stack_.back();
        auto &memo = arena_.memo;
        // Python numbers memo slots 0, 1, 2…; anything else goes to a side table.
        memo.checkRoom(slot == memo.size(), at());
        if (slot == memo.size())
            memo.push_back(Value::none());
        arena_.retain(v); // before releasing the old value: it may be the same node
        if (slot < memo.size()) {
            arena_.release(memo[slot]);
            memo.set(slot, v);
        } else {
            // Python writes none of these; a hash node each (~64 B) is bounded to a quarter of
            // the bytes read (a crafted file of LONG_BINPUTs held 12x its size at 1 per 2 bytes).
            if (sparseMemo_.size() > (at() + 65536) / 256)
                fail("memo grows faster than the file");
            if (auto it = sparseMemo_.find(slot); it != sparseMemo_.end())
                arena_.release(it->second);
            sparseMemo_[slot] = v;
        }
        if (v.kind == Kind::Node && slot <= UINT32_MAX)
            arena_.at(v.u).memoSlot = static_cast<uint32_t>(slot);
    }
    void memoGet(uint64_t slot)
    {
        if (slot < arena_.memo.size()) {
            push(arena_.memo[slot]);
            return;
        }
        auto it = sparseMemo_.find(slot);
        if (it == sparseMemo_.end())
            fail("memo reference " + std::to_string(slot) + " was never stored");
        push(it->second);
    }

    // Pops `count` values above the container at `containerIndex` into it. A dict that a
    // whole SETITEMS batch (`batch`) fills as torch writes trace entries becomes its event row
    // now, as PickleEntryReader makes it: the entry on the stack and in the memo.
    void fill(size_t containerIndex, size_t firstItem, bool dict, bool batch = false)
    {
        const uint32_t id = topNode(containerIndex);
        const size_t count = stack_.size() - firstItem;
        if (!dict) {
            for (size_t i = firstItem; i < stack_.size(); ++i)
                asm_.append(id, stack_[i]);
            stack_.resize(firstItem);
            return;
        }
        if (count % 2)
            fail("SETITEMS with an odd number of values");
        const bool entry = batch && arena_.at(id).items.empty() && count / 2 <= PickleEntryReader::kMaxEntryPairs &&
                           asm_.startsEntry(stack_.data() + firstItem, count);
        asm_.setItems(id, stack_.data() + firstItem, count);
        stack_.resize(firstItem);
        if (entry) {
            stack_[containerIndex] = asm_.convertEntryDict(id);
            arena_.release(Value::ref(Kind::Node, id));
        }
    }

    // Builds a container from the values above the last mark (LIST, DICT, TUPLE…).
    void collect(NodeKind kind)
    {
        const size_t m = popMark();
        const uint32_t id = arena_.create(kind);
        const size_t count = stack_.size() - m;
        if (kind == NodeKind::Dict) {
            if (count % 2)
                fail("DICT with an odd number of values");
            asm_.setItems(id, stack_.data() + m, count);
        } else if (kind == NodeKind::List) {
            for (size_t i = m; i < stack_.size(); ++i)
                asm_.append(id, stack_[i]);
        } else {
            arena_.at(id).items.assign(stack_.begin() + static_cast<long>(m), stack_.end());
        }
        stack_.resize(m);
        push(Value::ref(Kind::Node, id));
    }

    void tupleOf(size_t n)
    {
        if (stack_.size() < markFloor() + n)
            fail("pickle stack underflow");
        const uint32_t id = arena_.create(NodeKind::Tuple);
        arena_.at(id).items.assign(stack_.end() - static_cast<long>(n), stack_.end());
        stack_.resize(stack_.size() - n);
        push(Value::ref(Kind::Node, id));
    }

    // A trace entry read straight from the tokens (PickleEntryReader), when they allow it and
    // the machine's own bounds could not be reached on the way.
    bool directEntry()
    {
        if (!directEntries_ || index_ < directFrom_ || stack_.size() + TokenChunk::kCapacity >= kMaxStack ||
            marks_.size() + 2 >= kMaxMarks)
            return false;
        const EntryRead entry = entries_.read(*chunk_, index_);
        if (!entry.read()) {
            directFrom_ = entries_.reached() + 1;
            return false;
        }
        stack_.push_back(Value::ref(Kind::Entry, entry.row));
        index_ = entry.last;
        ++directCount_;
        return true;
    }

    void step(const PickleToken &t)
    {
        switch (t.op) {
        case TokenOp::Push: push(t.scalar()); break;
        case TokenOp::Get: memoGet(t.slot); break;
        case TokenOp::Str: push(asm_.str(chunk_->textOf(t))); break;
        case TokenOp::Memoize: memoPut(arena_.memo.size()); break;
        case TokenOp::Put: memoPut(t.slot); break;
        case TokenOp::Mark:
            if (marks_.size() >= kMaxMarks)
                fail("MARKs nested deeper than " + std::to_string(kMaxMarks));
            marks_.push_back(stack_.size());
            break;
        case TokenOp::NewDict:
            if (!directEntry())
                pushNew(NodeKind::Dict);
            break;
        case TokenOp::NewList: pushNew(NodeKind::List); break;
        case TokenOp::NewTuple: pushNew(NodeKind::Tuple); break;
        case TokenOp::Dict: collect(NodeKind::Dict); break;
        case TokenOp::List: collect(NodeKind::List); break;
        case TokenOp::Tuple: collect(NodeKind::Tuple); break;
        case TokenOp::Tuple1: tupleOf(1); break;
        case TokenOp::Tuple2: tupleOf(2); break;
        case TokenOp::Tuple3: tupleOf(3); break;
        case TokenOp::SetItem:
            if (stack_.size() < markFloor() + 3)
                fail("pickle stack underflow");
            fill(stack_.size() - 3, stack_.size() - 2, true);
            break;
        case TokenOp::SetItems: {
            const size_t m = popMark();
            if (m == 0)
                fail("SETITEMS without a dict");
            fill(m - 1, m, true, true);
            break;
        }
        case TokenOp::Append:
            if (stack_.size() < markFloor() + 2)
                fail("pickle stack underflow");
            fill(stack_.size() - 2, stack_.size() - 1, false);
            break;
        case TokenOp::Appends: {
            const size_t m = popMark();
            if (m == 0)
                fail("APPENDS without a list");
            fill(m - 1, m, false);
            break;
        }
        case TokenOp::Pop: arena_.release(pop()); break;
        case TokenOp::PopMark: {
            const size_t m = popMark();
            for (size_t i = m; i < stack_.size(); ++i)
                arena_.release(stack_[i]);
            stack_.resize(m);
            break;
        }
        case TokenOp::Dup:
            if (stack_.size() <= markFloor())
                fail("pickle stack underflow");
            push(stack_.back());
            break;
        case TokenOp::Proto: out_.facts.pickleProtocol = static_cast<int>(t.i); break;
        case TokenOp::Stop: break; // run() handles it
        }
    }

    Snapshot &out_;
    ObjectArena arena_;
    SnapshotAssembler asm_;
    PickleEntryReader entries_;
    const bool directEntries_;
    // Last: its thread stops before the assembler it calls goes.
    PickleTokenStream tokens_;
    const TokenChunk *chunk_ = nullptr;
    size_t index_ = 0;
    size_t directFrom_ = 0; // the first token of the chunk where an entry may be read directly
    size_t directCount_ = 0;
    PodArray<Value> stack_; // its push_back is inlined (see PodArray), std::vector's was not here
    std::vector<size_t> marks_;
    std::unordered_map<uint64_t, Value> sparseMemo_;
};

} // namespace

DirectEntries decodePickle(ByteReader &reader, Snapshot &out, PickleTokenizing tokenizing, PickleEntries entries)
{
    const bool background = tokenizing == PickleTokenizing::OnItsOwnThread ||
                            (tokenizing == PickleTokenizing::BySize && reader.fileSize() >= PickleTokenStream::kBackgroundFromBytes);
    PickleMachine machine(reader, out, background, entries == PickleEntries::Direct);
    machine.run();
    return machine.directEntries();
}

} // namespace memlens
