#include "decode/pickle/PickleTokenizer.h"

#include "model/LoadError.h"

#include <algorithm>
#include <array>
#include <bit>

namespace memlens {

namespace {

// Bounds that no real snapshot comes near; they keep hostile files from asking for
// unbounded memory.
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

// Opcodes that become a token of their own with no argument, and which; kNotPlain for the rest.
constexpr uint8_t kNotPlain = 0xFF;
constexpr std::array<uint8_t, 256> plainOpcodes()
{
    std::array<uint8_t, 256> ops{};
    ops.fill(kNotPlain);
    auto set = [&](uint8_t opcode, TokenOp op) { ops[opcode] = static_cast<uint8_t>(op); };
    set('(', TokenOp::Mark);
    set('}', TokenOp::NewDict);
    set(']', TokenOp::NewList);
    set(0x8F, TokenOp::NewList); // EMPTY_SET, read as a list
    set(')', TokenOp::NewTuple);
    set('d', TokenOp::Dict);
    set('l', TokenOp::List);
    set('t', TokenOp::Tuple);
    set(0x91, TokenOp::List); // FROZENSET
    set(0x85, TokenOp::Tuple1);
    set(0x86, TokenOp::Tuple2);
    set(0x87, TokenOp::Tuple3);
    set('s', TokenOp::SetItem);
    set('u', TokenOp::SetItems);
    set('a', TokenOp::Append);
    set('e', TokenOp::Appends);
    set(0x90, TokenOp::Appends); // ADDITEMS
    set(0x94, TokenOp::Memoize);
    set('0', TokenOp::Pop);
    set('1', TokenOp::PopMark);
    set('2', TokenOp::Dup);
    return ops;
}
constexpr std::array<uint8_t, 256> kPlainOpcodes = plainOpcodes();

[[noreturn, gnu::cold, gnu::noinline]] void fail(uint64_t at, const std::string &why)
{
    throw DecodeError(at, why);
}

// Little-endian fixed-width integers; compilers turn these into single loads.
uint64_t le16(const uint8_t *p) { return p[0] | uint64_t(p[1]) << 8; }
uint64_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

// An unsigned little-endian integer of n ≤ 8 bytes.
uint64_t littleEndian(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = (v << 8) | p[i];
    return v;
}

uint64_t littleEndian8(const uint8_t *p) { return le32(p) | le32(p + 4) << 32; }

// LONG1's two's complement of 1 to 8 bytes.
int64_t signedLittleEndian(const uint8_t *p, size_t n)
{
    uint64_t v = littleEndian(p, n);
    if (n < 8 && (p[n - 1] & 0x80))
        v |= ~0ull << (8 * n); // sign-extend
    return static_cast<int64_t>(v);
}

// A scalar token, laid out as the Value it becomes.
void setScalar(PickleToken &t, const Value &v)
{
    t.op = TokenOp::Push;
    t.kind = v.kind;
    t.unsignedInt = v.unsignedInt;
    t.length = 0;
    t.i = v.i;
}

std::string hex(uint8_t op)
{
    const char *digits = "0123456789abcdef";
    return {digits[op >> 4], digits[op & 15]};
}

} // namespace

bool PickleTokenizer::fill(TokenChunk &chunk)
{
    chunk.count = 0;
    chunk.tokens.resize(TokenChunk::kCapacity);
    chunk.offsets.resize(TokenChunk::kCapacity);
    chunk.text.clear();
    chunk.error = nullptr;
    if (done_)
        return false;
    try {
        if (!started_) {
            started_ = true;
            readHeader(chunk);
        }
        while (!done_ && chunk.count < TokenChunk::kCapacity && chunk.text.size() < TokenChunk::kTextCapacity) {
            if (!fastRun(chunk))
                next(chunk);
        }
    } catch (...) {
        chunk.error = std::current_exception();
        done_ = true;
    }
    return true;
}

void PickleTokenizer::readHeader(TokenChunk &chunk)
{
    const uint64_t start = in_.offset();
    if (in_.byte() != 0x80)
        fail(start, "not a pickle (protocol 2 or later expected)");
    const int protocol = in_.byte();
    if (protocol < 2 || protocol > 5)
        fail(start, "unsupported pickle protocol " + std::to_string(protocol));
    push(chunk, TokenOp::Proto, start, protocol);
}

inline void PickleTokenizer::push(TokenChunk &chunk, TokenOp op, uint64_t at, int64_t arg)
{
    PickleToken &t = chunk.tokens[chunk.count];
    t.op = op;
    t.i = arg;
    chunk.offsets[chunk.count++] = at;
}

inline void PickleTokenizer::pushScalar(TokenChunk &chunk, Value v, uint64_t at)
{
    setScalar(chunk.tokens[chunk.count], v);
    chunk.offsets[chunk.count++] = at;
}

inline uint64_t PickleTokenizer::le(size_t n)
{
    return littleEndian(reinterpret_cast<const uint8_t *>(in_.take(n)), n);
}

void PickleTokenizer::pushLong(TokenChunk &chunk, uint64_t n, uint64_t at)
{
    if (n > kMaxLongBytes)
        fail(at, "integer of " + std::to_string(n) + " bytes is too large");
    const auto *p = reinterpret_cast<const uint8_t *>(in_.take(static_cast<size_t>(n)));
    if (n == 0) {
        pushScalar(chunk, Value::integer(0), at);
    } else if (n <= 8) {
        pushScalar(chunk, Value::integer(signedLittleEndian(p, static_cast<size_t>(n))), at);
    } else {
        // Positive values up to 2^64 need a 9th (zero) byte; sign bytes beyond are redundant.
        bool fits = true;
        const uint8_t fillByte = (p[n - 1] & 0x80) ? 0xFF : 0x00;
        for (uint64_t i = 8; i < n; ++i)
            fits = fits && p[i] == fillByte;
        if (!fits) {
            pushScalar(chunk, Value::ref(Kind::BigInt, 0), at);
            return;
        }
        const uint64_t v = littleEndian(p, 8);
        pushScalar(chunk, fillByte ? Value::integer(static_cast<int64_t>(v)) : Value::uinteger(v), at);
    }
}

void PickleTokenizer::pushString(TokenChunk &chunk, uint64_t n, uint64_t at)
{
    if (n > kMaxString)
        fail(at, "string length " + std::to_string(n) + " is beyond any real snapshot");
    PickleToken &t = chunk.tokens[chunk.count];
    t.op = TokenOp::Str;
    t.textOffset = chunk.text.size();
    t.length = static_cast<uint32_t>(n);
    if (n <= ByteReader::kBufferSize) {
        chunk.text.append(in_.take(static_cast<size_t>(n)), static_cast<size_t>(n));
    } else {
        for (uint64_t left = n; left > 0;) {
            const size_t part = static_cast<size_t>(std::min<uint64_t>(left, ByteReader::kBufferSize));
            chunk.text.append(in_.take(part), part);
            left -= part;
        }
    }
    chunk.offsets[chunk.count++] = at;
}

// The common opcodes, decoded straight from the reader's buffer with one bounds check per
// opcode instead of one per byte: each starts at least kLookahead bytes before the end of
// the window. Everything else (and whatever would reach past the window) is left to next().
// Returns whether it consumed anything.
bool PickleTokenizer::fastRun(TokenChunk &c)
{
    constexpr size_t kLookahead = 16;
    const std::string_view window = in_.window(kLookahead);
    if (window.size() < kLookahead || c.count >= TokenChunk::kCapacity)
        return false;
    const auto *first = reinterpret_cast<const uint8_t *>(window.data());
    const uint8_t *const windowEnd = first + window.size();
    // Every token takes a byte at least: with `last` no further than the chunk's room allows,
    // one comparison a token bounds both.
    const uint8_t *const last = first + std::min(window.size() - kLookahead, TokenChunk::kCapacity - c.count - 1);
    const uint8_t *p = first;
    // Cursors into the arrays fill() sized: indexing them by a count (and loading their
    // pointers again after a string's append) cost five instructions a token.
    PickleToken *t = c.tokens.data() + c.count;
    uint64_t *at = c.offsets.data() + c.count;
    const uint64_t bias = in_.offset() - reinterpret_cast<uintptr_t>(first); // + p: p's file offset
    auto scalar = [&](Value v, size_t bytes) {
        setScalar(*t, v);
        p += bytes;
    };
    while (p <= last) {
        *at = bias + reinterpret_cast<uintptr_t>(p);
        switch (*p) {
        case 'j': t->op = TokenOp::Get; t->slot = le32(p + 1); p += 5; break;
        case 'h': t->op = TokenOp::Get; t->slot = p[1]; p += 2; break;
        case 'r': t->op = TokenOp::Put; t->slot = le32(p + 1); p += 5; break;
        case 'q': t->op = TokenOp::Put; t->slot = p[1]; p += 2; break;
        case 'K': scalar(Value::integer(p[1]), 2); break;
        case 'M': scalar(Value::integer(static_cast<int64_t>(le16(p + 1))), 3); break;
        case 'J': scalar(Value::integer(static_cast<int32_t>(le32(p + 1))), 5); break;
        case 'N': scalar(Value::none(), 1); break;
        case 0x88: scalar(Value::boolean(true), 1); break;
        case 0x89: scalar(Value::boolean(false), 1); break;
        case 0x8A: { // LONG1 of up to 8 bytes: always inside the look-ahead
            const size_t len = p[1];
            if (len == 0 || len > 8)
                goto done;
            // Eight bytes read at once (inside the look-ahead too), the ones past the number
            // shifted out and its sign shifted in: a byte loop here was a tenth of the tokenizer.
            const unsigned drop = 64 - 8 * static_cast<unsigned>(len);
            scalar(Value::integer(static_cast<int64_t>(littleEndian8(p + 2) << drop) >> drop), 2 + len);
            break;
        }
        case 0x8C: { // SHORT_BINUNICODE
            const size_t len = p[1];
            if (p + 2 + len > windowEnd)
                goto done;
            t->op = TokenOp::Str;
            t->textOffset = c.text.size();
            t->length = static_cast<uint32_t>(len);
            c.text.append(reinterpret_cast<const char *>(p + 2), len);
            p += 2 + len;
            break;
        }
        case 0x95: // FRAME: a length hint, no token (its offset is written over)
            p += 9;
            continue;
        default:
            if (kPlainOpcodes[*p] == kNotPlain)
                goto done;
            t->op = static_cast<TokenOp>(kPlainOpcodes[*p]);
            p += 1;
        }
        ++t;
        ++at;
    }
done:
    c.count = static_cast<size_t>(t - c.tokens.data());
    in_.advance(static_cast<size_t>(p - first));
    return p != first;
}

void PickleTokenizer::next(TokenChunk &c)
{
    const uint64_t at = in_.offset();
    const uint8_t op = in_.byte();
    if (kPlainOpcodes[op] != kNotPlain) {
        push(c, static_cast<TokenOp>(kPlainOpcodes[op]), at);
        return;
    }
    switch (op) {
    case 0x95: // FRAME: a length hint; the content follows inline
        in_.take(8);
        break;
    case '.':
        push(c, TokenOp::Stop, at);
        done_ = true;
        break;
    case 'q': push(c, TokenOp::Put, at, in_.byte()); break;                          // BINPUT
    case 'r': push(c, TokenOp::Put, at, static_cast<int64_t>(le(4))); break;         // LONG_BINPUT
    case 'h': push(c, TokenOp::Get, at, in_.byte()); break;                          // BINGET
    case 'j': push(c, TokenOp::Get, at, static_cast<int64_t>(le(4))); break;         // LONG_BINGET
    case 'J': pushScalar(c, Value::integer(static_cast<int32_t>(le(4))), at); break; // BININT
    case 'K': pushScalar(c, Value::integer(in_.byte()), at); break;                  // BININT1
    case 'M': pushScalar(c, Value::integer(static_cast<int64_t>(le(2))), at); break; // BININT2
    case 0x8A: pushLong(c, in_.byte(), at); break;                                   // LONG1
    case 0x8B: pushLong(c, le(4), at); break;                                        // LONG4
    case 'G': { // BINFLOAT, big-endian
        const char *p = in_.take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i)
            bits = (bits << 8) | static_cast<uint8_t>(p[i]);
        pushScalar(c, Value::real(std::bit_cast<double>(bits)), at);
        break;
    }
    case 0x8C: pushString(c, in_.byte(), at); break;  // SHORT_BINUNICODE
    case 'X': pushString(c, le(4), at); break;        // BINUNICODE
    case 0x8D: pushString(c, le(8), at); break;       // BINUNICODE8
    case 'U': pushString(c, in_.byte(), at); break;   // SHORT_BINSTRING
    case 'T': pushString(c, le(4), at); break;        // BINSTRING
    case 'C': in_.skip(in_.byte()); pushScalar(c, Value::ref(Kind::Bytes, 0), at); break; // SHORT_BINBYTES
    case 'B': in_.skip(le(4)); pushScalar(c, Value::ref(Kind::Bytes, 0), at); break;      // BINBYTES
    case 0x8E:                                                                           // BINBYTES8
    case 0x96:                                                                           // BYTEARRAY8
        in_.skip(le(8));
        pushScalar(c, Value::ref(Kind::Bytes, 0), at);
        break;
    case 'N': pushScalar(c, Value::none(), at); break;
    case 0x88: pushScalar(c, Value::boolean(true), at); break;
    case 0x89: pushScalar(c, Value::boolean(false), at); break;
    case 0x80:
        fail(at, "PROTO in the middle of a pickle");
    default:
        if (const char *name = callingOpcodeName(op))
            fail(at, std::string("not a memory snapshot: the pickle uses ") + name +
                         ", which would import or call code (memlens never runs it)");
        fail(at, "unsupported pickle opcode 0x" + hex(op));
    }
}

} // namespace memlens
