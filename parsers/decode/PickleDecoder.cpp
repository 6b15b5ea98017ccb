#include "decode/PickleDecoder.h"

#include "decode/ObjectArena.h"
#include "decode/SnapshotAssembler.h"

#include <bit>
#include <cstring>
#include <unordered_map>

namespace memlens {

namespace {

// Bounds that no real snapshot comes near; they keep hostile files from asking for
// unbounded memory.
constexpr size_t kMaxStack = 1'000'000;
constexpr size_t kMaxMarks = 100'000;
constexpr uint64_t kMaxString = 64ull << 20;
constexpr uint64_t kMaxLongBytes = 64;

const char *callingOpcodeName(uint8_t op)
{
    switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
    }
}

class PickleMachine {
public:
    PickleMachine(ByteReader &in, Snapshot &out) : in_(in), out_(out), asm_(out, arena_) {}

    void run()
    {
        const uint64_t start = in_.offset();
        if (in_.byte() != 0x80)
            fail(start, "not a pickle (protocol 2 or later expected)");
        const int protocol = in_.byte();
        if (protocol < 2 || protocol > 5)
            fail(start, "unsupported pickle protocol " + std::to_string(protocol));
        out_.facts.format = "pickle";
        out_.facts.pickleProtocol = protocol;
        for (;;) {
            const uint64_t at = in_.offset();
            const uint8_t op = in_.byte();
            if (op == '.') {
                if (stack_.empty())
                    fail(at, "STOP with an empty stack");
                Value root = stack_.back();
                asm_.finish(root, at);
                if (out_.facts.format.empty())
                    out_.facts.format = "pickle";
                return;
            }
            step(op, at);
        }
    }

private:
    [[noreturn, gnu::cold, gnu::noinline]] void fail(uint64_t at, const std::string &why) { throw DecodeError(at, why); }
    [[noreturn, gnu::cold, gnu::noinline]] void stackOverflow(uint64_t at)
    {
        fail(at, "pickle stack grows beyond " + std::to_string(kMaxStack) + " values");
    }

    // By value and inlined: the caller's freshly built Value stays in registers (read back
    // from memory as one 16-byte load it stalled store forwarding, 15 % of all decode time).
    [[gnu::always_inline]] void push(Value v, uint64_t at)
    {
        if (stack_.size() >= kMaxStack) [[unlikely]]
            stackOverflow(at);
        arena_.retain(v);
        stack_.push_back(v);
    }
    // Hands the caller the stack's reference.
    Value pop(uint64_t at)
    {
        if (stack_.size() <= markFloor())
            fail(at, "pickle stack underflow");
        Value v = stack_.back();
        stack_.pop_back();
        return v;
    }
    size_t markFloor() const { return marks_.empty() ? 0 : marks_.back(); }
    size_t popMark(uint64_t at)
    {
        if (marks_.empty())
            fail(at, "no MARK to pop to");
        size_t m = marks_.back();
        marks_.pop_back();
        return m;
    }
    uint32_t topNode(size_t index, uint64_t at)
    {
        if (index >= stack_.size() || stack_[index].kind != Kind::Node)
            fail(at, "expected a list or dict on the pickle stack");
        return stack_[index].u;
    }

    void pushNew(NodeKind kind, uint64_t at)
    {
        push(Value::ref(Kind::Node, arena_.create(kind)), at);
    }

    void memoPut(uint64_t slot, uint64_t at)
    {
        if (stack_.empty())
            fail(at, "memo write with an empty stack");
        const Value v = stack_.back();
        auto &memo = arena_.memo;
        // Python numbers memo slots 0, 1, 2…; anything else goes to a side table.
        if (slot == memo.size()) {
            if (memo.size() > (in_.offset() + 65536) / 2)
                fail(at, "memo grows faster than the file");
            memo.push_back(Value::none());
        }
        arena_.retain(v); // before releasing the old value: it may be the same node
        if (slot < memo.size()) {
            arena_.release(memo[slot]);
            memo[slot] = v;
        } else {
            if (sparseMemo_.size() > (in_.offset() + 65536) / 2)
                fail(at, "memo grows faster than the file");
            if (auto it = sparseMemo_.find(slot); it != sparseMemo_.end())
                arena_.release(it->second);
            sparseMemo_[slot] = v;
        }
        if (v.kind == Kind::Node && slot <= UINT32_MAX)
            arena_.at(v.u).memoSlot = static_cast<uint32_t>(slot);
    }
    void memoGet(uint64_t slot, uint64_t at)
    {
        if (slot < arena_.memo.size()) {
            push(arena_.memo[slot], at);
            return;
        }
        auto it = sparseMemo_.find(slot);
        if (it == sparseMemo_.end())
            fail(at, "memo reference " + std::to_string(slot) + " was never stored");
        push(it->second, at);
    }

    uint64_t le(const char *p, int n)
    {
        uint64_t v = 0;
        for (int i = n - 1; i >= 0; --i)
            v = (v << 8) | static_cast<uint8_t>(p[i]);
        return v;
    }

    void pushLong(uint64_t n, uint64_t at)
    {
        if (n > kMaxLongBytes)
            fail(at, "integer of " + std::to_string(n) + " bytes is too large");
        const char *p = in_.take(static_cast<size_t>(n));
        if (n == 0) {
            push(Value::integer(0), at);
        } else if (n <= 8) {
            uint64_t v = le(p, static_cast<int>(n));
            if (n < 8 && (static_cast<uint8_t>(p[n - 1]) & 0x80))
                v |= ~0ull << (8 * n); // sign-extend
            push(Value::integer(static_cast<int64_t>(v)), at);
        } else {
            // Positive values up to 2^64 need a 9th (zero) byte; sign bytes beyond are redundant.
            bool fits = true;
            const uint8_t fill = (static_cast<uint8_t>(p[n - 1]) & 0x80) ? 0xFF : 0x00;
            for (uint64_t i = 8; i < n; ++i)
                fits = fits && static_cast<uint8_t>(p[i]) == fill;
            if (!fits) {
                Value v;
                v.kind = Kind::BigInt;
                push(v, at);
                return;
            }
            const uint64_t v = le(p, 8);
            push(fill ? Value::integer(static_cast<int64_t>(v)) : Value::uinteger(v), at);
        }
    }

    void pushString(uint64_t n, uint64_t at)
    {
        if (n > kMaxString)
            fail(at, "string length " + std::to_string(n) + " is beyond any real snapshot");
        if (n <= ByteReader::kBufferSize) {
            const char *p = in_.take(static_cast<size_t>(n));
            push(asm_.str(std::string_view(p, static_cast<size_t>(n))), at);
        } else {
            in_.readInto(scratch_, n);
            push(asm_.str(scratch_), at);
        }
    }

    void pushBytes(uint64_t n, uint64_t at)
    {
        in_.skip(n);
        Value v;
        v.kind = Kind::Bytes;
        push(v, at);
    }

    // Pops `count` values above the container at `containerIndex` into it.
    void fill(size_t containerIndex, size_t firstItem, uint64_t at, bool dict)
    {
        const uint32_t id = topNode(containerIndex, at);
        const size_t count = stack_.size() - firstItem;
        if (dict) {
            if (count % 2)
                fail(at, "SETITEMS with an odd number of values");
            for (size_t i = firstItem; i < stack_.size(); i += 2)
                asm_.setItem(id, stack_[i], stack_[i + 1]);
        } else {
            for (size_t i = firstItem; i < stack_.size(); ++i)
                asm_.append(id, stack_[i]);
        }
        stack_.resize(firstItem);
    }

    // Builds a container from the values above the last mark (LIST, DICT, TUPLE…).
    void collect(NodeKind kind, uint64_t at)
    {
        const size_t m = popMark(at);
        const uint32_t id = arena_.create(kind);
        const size_t count = stack_.size() - m;
        if (kind == NodeKind::Dict) {
            if (count % 2)
                fail(at, "DICT with an odd number of values");
            for (size_t i = m; i < stack_.size(); i += 2)
                asm_.setItem(id, stack_[i], stack_[i + 1]);
        } else if (kind == NodeKind::List) {
            for (size_t i = m; i < stack_.size(); ++i)
                asm_.append(id, stack_[i]);
        } else {
            arena_.at(id).items.assign(stack_.begin() + static_cast<long>(m), stack_.end());
        }
        stack_.resize(m);
        push(Value::ref(Kind::Node, id), at);
    }

    void tupleOf(size_t n, uint64_t at)
    {
        if (stack_.size() < markFloor() + n)
            fail(at, "pickle stack underflow");
        const uint32_t id = arena_.create(NodeKind::Tuple);
        arena_.at(id).items.assign(stack_.end() - static_cast<long>(n), stack_.end());
        stack_.resize(stack_.size() - n);
        push(Value::ref(Kind::Node, id), at);
    }

    void step(uint8_t op, uint64_t at)
    {
        switch (op) {
        case 0x95: // FRAME: a length hint; the content follows inline
            in_.take(8);
            break;
        case '(':
            if (marks_.size() >= kMaxMarks)
                fail(at, "MARKs nested deeper than " + std::to_string(kMaxMarks));
            marks_.push_back(stack_.size());
            break;
        case '}': pushNew(NodeKind::Dict, at); break;
        case ']': pushNew(NodeKind::List, at); break;
        case 0x8F: pushNew(NodeKind::List, at); break; // EMPTY_SET, read as a list
        case ')': pushNew(NodeKind::Tuple, at); break;
        case 'd': collect(NodeKind::Dict, at); break;
        case 'l': collect(NodeKind::List, at); break;
        case 't': collect(NodeKind::Tuple, at); break;
        case 0x91: collect(NodeKind::List, at); break; // FROZENSET
        case 0x85: tupleOf(1, at); break;
        case 0x86: tupleOf(2, at); break;
        case 0x87: tupleOf(3, at); break;
        case 's': // SETITEM
            if (stack_.size() < markFloor() + 3)
                fail(at, "pickle stack underflow");
            fill(stack_.size() - 3, stack_.size() - 2, at, true);
            break;
        case 'u': { // SETITEMS
            const size_t m = popMark(at);
            if (m == 0)
                fail(at, "SETITEMS without a dict");
            fill(m - 1, m, at, true);
            break;
        }
        case 'a': // APPEND
            if (stack_.size() < markFloor() + 2)
                fail(at, "pickle stack underflow");
            fill(stack_.size() - 2, stack_.size() - 1, at, false);
            break;
        case 'e':    // APPENDS
        case 0x90: { // ADDITEMS
            const size_t m = popMark(at);
            if (m == 0)
                fail(at, "APPENDS without a list");
            fill(m - 1, m, at, false);
            break;
        }
        case 0x94: memoPut(arena_.memo.size(), at); break; // MEMOIZE
        case 'q': memoPut(in_.byte(), at); break;           // BINPUT
        case 'r': memoPut(le(in_.take(4), 4), at); break;   // LONG_BINPUT
        case 'h': memoGet(in_.byte(), at); break;           // BINGET
        case 'j': memoGet(le(in_.take(4), 4), at); break;   // LONG_BINGET
        case 'J': push(Value::integer(static_cast<int32_t>(le(in_.take(4), 4))), at); break;
        case 'K': push(Value::integer(in_.byte()), at); break;
        case 'M': push(Value::integer(static_cast<int64_t>(le(in_.take(2), 2))), at); break;
        case 0x8A: pushLong(in_.byte(), at); break;          // LONG1
        case 0x8B: pushLong(le(in_.take(4), 4), at); break;  // LONG4
        case 'G': {                                          // BINFLOAT, big-endian
            const char *p = in_.take(8);
            uint64_t bits = 0;
            for (int i = 0; i < 8; ++i)
                bits = (bits << 8) | static_cast<uint8_t>(p[i]);
            push(Value::real(std::bit_cast<double>(bits)), at);
            break;
        }
        case 0x8C: pushString(in_.byte(), at); break;               // SHORT_BINUNICODE
        case 'X': pushString(le(in_.take(4), 4), at); break;        // BINUNICODE
        case 0x8D: pushString(le(in_.take(8), 8), at); break;       // BINUNICODE8
        case 'U': pushString(in_.byte(), at); break;                // SHORT_BINSTRING
        case 'T': pushString(le(in_.take(4), 4), at); break;        // BINSTRING
        case 'C': pushBytes(in_.byte(), at); break;                 // SHORT_BINBYTES
        case 'B': pushBytes(le(in_.take(4), 4), at); break;         // BINBYTES
        case 0x8E: case 0x96: pushBytes(le(in_.take(8), 8), at); break; // BINBYTES8, BYTEARRAY8
        case 'N': push(Value::none(), at); break;
        case 0x88: push(Value::boolean(true), at); break;
        case 0x89: push(Value::boolean(false), at); break;
        case '0': arena_.release(pop(at)); break; // POP
        case '1': {                               // POP_MARK
            const size_t m = popMark(at);
            for (size_t i = m; i < stack_.size(); ++i)
                arena_.release(stack_[i]);
            stack_.resize(m);
            break;
        }
        case '2': // DUP
            if (stack_.size() <= markFloor())
                fail(at, "pickle stack underflow");
            push(stack_.back(), at);
            break;
        case 0x80:
            fail(at, "PROTO in the middle of a pickle");
        default:
            if (const char *name = callingOpcodeName(op))
                fail(at, std::string("not a memory snapshot: the pickle uses ") + name +
                             ", which would import or call code (memlens never runs it)");
            fail(at, "unsupported pickle opcode 0x" + hex(op));
        }
    }

    static std::string hex(uint8_t op)
    {
        const char *digits = "0123456789abcdef";
        return {digits[op >> 4], digits[op & 15]};
    }

    ByteReader &in_;
    Snapshot &out_;
    ObjectArena arena_;
    SnapshotAssembler asm_;
    std::vector<Value> stack_;
    std::vector<size_t> marks_;
    std::unordered_map<uint64_t, Value> sparseMemo_;
    std::string scratch_;
};

} // namespace

void decodePickle(ByteReader &reader, Snapshot &out)
{
    PickleMachine(reader, out).run();
}

} // namespace memlens
