#pragma once
// The pickle memo: a value per slot, 4 bytes each. A snapshot memoizes every dict, list and
// string, ~17 M slots in a 1 GB file; at 16 bytes a slot (a whole Value) the memo was a
// third of the decoder's peak memory and of the fresh pages the kernel had to zero. Python
// only memoizes containers and strings, which are a kind and an id: those are packed into
// one word. Anything else a hand-made file memoizes (a number) goes to a side table.
#include "decode/snapshot/Value.h"
#include "model/LoadError.h"
#include "model/PodArray.h"

#include <vector>

namespace memlens {

class MemoTable {
public:
    size_t size() const { return slots_.size(); }
    void reserve(size_t slots) { slots_.reserve(slots); }
    [[gnu::always_inline]] void push_back(const Value &v) { slots_.push_back(pack(v)); }
    [[gnu::always_inline]] Value operator[](size_t slot) const { return unpack(slots_[slot]); }
    // How many times a slot that held a string was written again: a reader that knows which
    // slots hold which keys (PickleEntryShape) knows them no more when this changes.
    uint64_t stringsRewritten() const { return stringsRewritten_; }
    [[gnu::always_inline]] void set(size_t slot, const Value &v)
    {
        const uint32_t old = slots_[slot];
        stringsRewritten_ += old >> kIdBits == static_cast<uint32_t>(Kind::Str) ? 1 : 0;
        if (old >> kIdBits == kSide && !fits(v))
            side_[old & kIdMask] = v; // a slot written again keeps its side place
        else
            slots_[slot] = pack(v);
    }
    // Before the opcode at `fileOffset` writes a slot (a new one: `adding`): throws when one
    // more would make the memo grow faster than a snapshot's bytes do (checked now and then: a
    // slot per opcode cannot outgrow the file by much between), or when the side table is as
    // full as an id can count. torch's snapshots write a slot per 30-82 bytes; one per 8 keeps
    // the memo within half the file's size (at one per 2 a crafted file's memo was 2x it).
    [[gnu::always_inline]] void checkRoom(bool adding, uint64_t fileOffset) const
    {
        const bool growing = adding && size() % 4096 == 0 && size() > (fileOffset + 65536) / 8;
        if (growing || full()) [[unlikely]]
            refuse(fileOffset, growing);
    }
    // Drops the slots from `n` on, and their side places: a reader that wrote them gave up.
    // Only for slots pushed since `n`, none of them rewritten (their side places, if any, are
    // then the last ones, in slot order).
    void truncate(size_t n)
    {
        while (slots_.size() > n) {
            if (slots_.back() >> kIdBits == kSide)
                side_.pop_back();
            slots_.pop_back();
        }
    }
private:
    [[noreturn, gnu::cold, gnu::noinline]] static void refuse(uint64_t fileOffset, bool growing)
    {
        throw DecodeError(fileOffset, growing ? "memo grows faster than the file" : "memo holds more numbers than it can count");
    }
    bool full() const { return side_.size() > kIdMask; }

    static constexpr int kIdBits = 28;
    static constexpr uint32_t kIdMask = (1u << kIdBits) - 1;
    static constexpr uint32_t kSide = 15; // the id is an index into side_

    // The kinds a word holds: containers and strings, a kind and an id each.
    static constexpr uint32_t kPackable = 1u << static_cast<int>(Kind::None) | 1u << static_cast<int>(Kind::Str) |
                                          1u << static_cast<int>(Kind::Bytes) | 1u << static_cast<int>(Kind::Node) |
                                          1u << static_cast<int>(Kind::Stack) | 1u << static_cast<int>(Kind::Frame) |
                                          1u << static_cast<int>(Kind::Entry) | 1u << static_cast<int>(Kind::Segment) |
                                          1u << static_cast<int>(Kind::Spent);
    static bool packable(Kind kind) { return (kPackable >> static_cast<int>(kind)) & 1u; }
    static bool fits(const Value &v) { return packable(v.kind) && v.u <= kIdMask && v.i == 0 && !v.unsignedInt; }
    [[gnu::always_inline]] uint32_t pack(const Value &v)
    {
        if (fits(v)) [[likely]]
            return static_cast<uint32_t>(v.kind) << kIdBits | v.u;
        // The decoder bounds how many slots a file may write, and so this table.
        side_.push_back(v);
        return kSide << kIdBits | static_cast<uint32_t>(side_.size() - 1);
    }
    [[gnu::always_inline]] Value unpack(uint32_t word) const
    {
        const uint32_t kind = word >> kIdBits;
        if (kind == kSide)
            return side_[word & kIdMask];
        return Value::ref(static_cast<Kind>(kind), word & kIdMask);
    }

    PodArray<uint32_t> slots_;
    uint64_t stringsRewritten_ = 0;
    std::vector<Value> side_;
};

} // namespace memlens
