#pragma once
// The byte level of the pickle reader: opcodes and their arguments, decoded into fixed-size
// tokens in chunks. It runs on its own thread for large files (PickleTokenStream), so that
// reading and decoding bytes (a third of a decode) overlaps with the stack machine.
#include "decode/input/ByteReader.h"
#include "decode/snapshot/ObjectArena.h"

#include <cstddef>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace memlens {

// What the stack machine does next. Scalars of every width arrive as one Push.
enum class TokenOp : uint8_t {
    Proto, // i: the protocol, always the first token
    Stop,
    Mark,
    NewDict,
    NewList,
    NewTuple,
    Dict,   // DICT: from the values above the mark
    List,   // LIST, FROZENSET
    Tuple,  // TUPLE
    Tuple1,
    Tuple2,
    Tuple3,
    SetItem,
    SetItems,
    Append,
    Appends, // APPENDS, ADDITEMS
    Memoize,
    Put,
    Get,
    Push, // a scalar: kind, unsignedInt and i/f
    Str,  // `length` bytes at `textOffset` in the chunk's text
    Pop,
    PopMark,
    Dup,
};

// Laid out as a Value (kind, unsignedInt, u, i) with the op in its padding, so that a
// scalar becomes a Value with one 16-byte copy: assembling it field by field stalled store
// forwarding on the machine's hottest path.
struct PickleToken {
    Kind kind = Kind::None; // Push
    bool unsignedInt = false;
    TokenOp op = TokenOp::Stop;
    uint8_t unused = 0;
    uint32_t length = 0; // Str; 0 for Push, where it lands in Value::u
    union {
        int64_t i = 0;
        double f;
        uint64_t slot;
        uint64_t textOffset;
    };

    Value scalar() const
    {
        Value v;
        std::memcpy(static_cast<void *>(&v), this, sizeof v);
        return v;
    }
};
static_assert(sizeof(PickleToken) == sizeof(Value) && offsetof(PickleToken, kind) == offsetof(Value, kind) &&
              offsetof(PickleToken, unsignedInt) == offsetof(Value, unsignedInt) &&
              offsetof(PickleToken, length) == offsetof(Value, u) && offsetof(PickleToken, i) == offsetof(Value, i));

// A cache line of its own: the tokenizer fills one chunk of the ring while the machine reads the
// next, and 96-byte chunks side by side had the first's text (its size grows with every string)
// in the line that holds the second's count and token pointer.
struct alignas(64) TokenChunk {
    static constexpr size_t kCapacity = 16384;
    static constexpr size_t kTextCapacity = 1 << 20; // a longer string still fits, alone

    size_t count = 0;
    std::vector<PickleToken> tokens; // kCapacity once the tokenizer has used the chunk
    std::vector<uint64_t> offsets;   // of each token's opcode, for errors
    std::string text;              // the bytes of the chunk's strings
    // Set when tokenizing stopped at bad or missing bytes: thrown after the last token.
    std::exception_ptr error;

    std::string_view textOf(const PickleToken &t) const { return {text.data() + t.textOffset, t.length}; }
};

class PickleTokenizer {
public:
    explicit PickleTokenizer(ByteReader &in) : in_(in) {}

    // Refills `chunk` with the next tokens. False once the pickle's STOP or an error has been
    // delivered (in an earlier chunk or this one); the caller then stops asking.
    bool fill(TokenChunk &chunk);

private:
    void readHeader(TokenChunk &chunk);
    bool fastRun(TokenChunk &chunk);
    void next(TokenChunk &chunk);
    void push(TokenChunk &chunk, TokenOp op, uint64_t at, int64_t arg = 0);
    void pushScalar(TokenChunk &chunk, Value v, uint64_t at);
    void pushLong(TokenChunk &chunk, uint64_t n, uint64_t at);
    void pushString(TokenChunk &chunk, uint64_t n, uint64_t at);
    uint64_t le(size_t n);

    ByteReader &in_;
    bool started_ = false;
    bool done_ = false;
};

} // namespace memlens
