#pragma once
// The keys of the last plain trace entry, to read the next ones with the same keys without the
// general reader. Past its first entries a snapshot's entries nearly all have one set of keys
// in one order, each a memo reference: `} MEMOIZE ( key value … SETITEMS`. An entry whose keys
// are the same references is read by taking each value to the field its key named in the one
// learnt: no key is compared by its text, no item staged. The values may be what torch writes
// for them: numbers, memo references, fresh strings ("N/A"), and the frames as a memo reference
// or a fresh list of frame references. Whatever else comes (a container value, a fresh frame
// dict, a reference to the entry itself or its list, a string slot written again since) is
// taken back and left to PickleEntryReader, which makes the same row.
#include "decode/pickle/PickleTokenizer.h"
#include "decode/snapshot/SnapshotAssembler.h"
#include "model/PodArray.h"

#include <vector>

namespace memlens {

// A trace entry read straight from the tokens: its event row and the index of its SETITEMS
// token (0: not read). Returned in registers rather than through references the machine
// reads back at once; the machine builds the entry's Value itself.
struct EntryRead {
    size_t last = 0;
    uint32_t row = 0;
    bool read() const { return last != 0; }
};

class PickleEntryShape {
public:
    PickleEntryShape(ObjectArena &arena, SnapshotAssembler &assembler) : arena_(arena), asm_(assembler) {}

    // tokens[first] is a NewDict: the entry there if it has the keys learnt (as
    // PickleEntryReader::read reads it).
    EntryRead read(const TokenChunk &chunk, size_t first);
    // Learns the keys of the entry at tokens[first..last], which the general reader has just
    // read, when they are plain; otherwise keeps the ones it has.
    void learn(const TokenChunk &chunk, size_t first, size_t last);

private:
    struct Pair {
        uint64_t keySlot;
        EntryField field;
        Value lastString; // the string this pair's value was last: the same text is not looked up
    };

    // Where the entry being read is: a value on the reader's stack, so that its cursor stays in
    // a register (as members, every step stored and loaded it).
    struct Reading {
        const TokenChunk &chunk;
        const PickleToken *t;
        size_t i, end;
        size_t base; // the memo's size when the entry began: slots from here on are its own
        int64_t listSlot = -1;
        bool freshList = false;
    };
    // The value at t[i] for `p`; false when it is not one this reader takes.
    bool value(Reading &r, Pair &p, EntryFields &fields);
    bool freshFrameList(Reading &r);
    // A MEMOIZE (or PUT of the next slot) at t[i] storing `v`: the slot, else -1.
    int64_t memoized(Reading &r, const Value &v);
    // Takes back the memo slots the entry wrote: it is not read.
    EntryRead giveUp(const Reading &r);

    ObjectArena &arena_;
    SnapshotAssembler &asm_;
    std::vector<Pair> pairs_, learning_; // empty: nothing learnt yet
    TokenOp memoOp_ = TokenOp::Stop;     // MEMOIZE or PUT after the NewDict, else Stop: none
    uint64_t learntAt_ = 0;              // the memo's stringsRewritten() when the keys were learnt

    // Each entry's fields start as a copy of this one: declared blank in read(), GCC cleared them
    // with `rep stos`, whose start-up took 11 % of read()'s samples; a copy is six vector moves.
    EntryFields blank_;
    PodArray<FrameId> frames_; // of a fresh frame list, kept for its capacity (its push_back inlined)
};

} // namespace memlens
