#pragma once
// The keys of the last plain trace entry, to read the next ones with the same keys without the
// general reader. Past its first entries a snapshot's entries nearly all have one set of keys
// in one order, each a memo reference: `} MEMOIZE ( key value … SETITEMS`. An entry whose keys
// are the same references is read by taking each value to the field its key named in the one
// learnt: no key is compared by its text, no item staged. The values may be what torch writes
// for them: numbers, memo references, fresh strings ("N/A"), and the frames as a memo reference
// or a fresh list of frame references. Whatever else comes (a container value, a fresh frame
// dict, a reference to the entry itself or its list, a key slot written again since) is
// taken back and left to PickleEntryReader, which makes the same row.
#include "decode/pickle/PickleTokenizer.h"
#include "decode/snapshot/SnapshotAssembler.h"

#include <vector>

namespace memlens {

class PickleEntryShape {
public:
    PickleEntryShape(ObjectArena &arena, SnapshotAssembler &assembler) : arena_(arena), asm_(assembler) {}

    // tokens[first] is a NewDict: if the entry there has the keys learnt, its value (as in
    // PickleEntryReader::read) and the index of its SETITEMS token.
    bool read(const TokenChunk &chunk, size_t first, Value &entry, size_t &last);
    // Learns the keys of the entry at tokens[first..last], which the general reader has just
    // read, when they are plain; otherwise keeps the ones it has.
    void learn(const TokenChunk &chunk, size_t first, size_t last);

private:
    struct Pair {
        uint64_t keySlot;
        uint32_t keyId;
        EntryField field;
        Value lastString; // the string this pair's value was last: the same text is not looked up
    };

    // The value at tokens_[i_] for `p`; false when it is not one this reader takes.
    bool value(Pair &p, EntryFields &fields);
    bool freshFrameList();
    // A MEMOIZE (or PUT of the next slot) at tokens_[i_] storing `v`: the slot, else -1.
    int64_t memoized(const Value &v);
    bool giveUp();

    ObjectArena &arena_;
    SnapshotAssembler &asm_;
    std::vector<Pair> pairs_, learning_; // empty: nothing learnt yet
    TokenOp memoOp_ = TokenOp::Stop;     // MEMOIZE or PUT after the NewDict, else Stop: none

    // The entry being read.
    const TokenChunk *chunk_ = nullptr;
    const PickleToken *tokens_ = nullptr;
    size_t i_ = 0, count_ = 0, base_ = 0;
    int64_t listSlot_ = -1;
    bool freshList_ = false;
    std::vector<FrameId> frames_;
};

} // namespace memlens
