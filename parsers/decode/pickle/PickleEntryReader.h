#pragma once
// torch's trace entries read straight from the tokens. A snapshot is millions of entries, each
// `} MEMOIZE ( key value … SETITEMS` with strings, numbers, memo references and small tuples as
// keys and values, its frames a memo reference or a fresh list of frame references and frame
// dicts. The stack machine would build each as a dict on the arena, push every key and value
// and convert the dict at SETITEMS; this reader makes the same memo slots, strings, frames,
// stack and event row without the dict and the machine's stack. Whatever it makes before it
// knows the entry has that form can be taken back (memo slots, tuples) or is the same when
// made again (strings); frames, stack and row come after. Any other form, or an entry cut by
// the chunk's end, is left to the machine, which makes the same.
#include "decode/pickle/PickleEntryShape.h"
#include "decode/pickle/PickleTokenizer.h"
#include "decode/snapshot/SnapshotAssembler.h"

#include <memory>
#include <vector>

namespace memlens {

class PickleEntryReader {
public:
    PickleEntryReader(ObjectArena &arena, SnapshotAssembler &assembler);

    // tokens[first] is a NewDict. If it starts an entry of that form: its event row (the memo
    // slot naming the dict now holds it as an Entry) and the index of its SETITEMS token. Throws
    // DecodeError where the machine would (a memo that grows faster than the file).
    EntryRead read(const TokenChunk &chunk, size_t first);
    // How far the last read looked: a failed one is not tried again on the tokens it covered,
    // so that nested dicts cannot make reading quadratic.
    size_t reached() const { return i_; }
    // How many entries were read by the shape of one before.
    size_t byShape() const { return byShape_; }

    // One SETITEMS batch of CPython's: a dict of 1,000 pairs may have more in the next.
    static constexpr size_t kMaxEntryPairs = 999;

private:
    bool entryDict(Value &entry);
    bool frameList();
    bool frameDict();
    // A number, string or memo reference; in a frame list (`listItem`), a reference to a frame
    // dict made before in the list gives its index in fresh_ instead (else -1).
    bool simple(Value &out, bool listItem, int32_t &fresh);
    // An optional MEMOIZE (or PUT of the next slot) after a value: the slot, or -1.
    int64_t memoized(const Value &v);
    // Keeps a node the row is made from alive until it is made, as the dict would.
    void hold(const Value &v);
    // The frames of the fresh list and its stack, in the order the machine makes them.
    StackId makeStack();
    void rollBack();

    ObjectArena &arena_;
    SnapshotAssembler &asm_;
    PickleEntryShape shape_;
    size_t byShape_ = 0;
    const PickleToken *tokens_ = nullptr;
    const TokenChunk *chunk_ = nullptr;
    size_t count_ = 0;
    size_t i_ = 0;
    size_t memoBase_ = 0;
    // Memo slots the entry and its fresh list will hold once made: a reference to either is
    // the machine's (it would see the dict or list being built).
    int64_t entrySlot_ = -1, listSlot_ = -1;
    // The entry's values as the machine's stack would hold them above the mark, the fresh
    // list's items and its frame dicts' items, the nodes held.
    std::unique_ptr<Value[]> items_;
    std::vector<Value> listItems_, frameItems_, held_;
    // The frame dicts the list holds (their items in frameItems_); per list item, the one it
    // is (or -1: a value of its own).
    struct FreshFrame {
        size_t first, count;
        int64_t slot;
        FrameId id;
        bool made;
    };
    std::vector<FreshFrame> fresh_;
    std::vector<int32_t> listFresh_;
    std::vector<FrameId> frameIds_;
};

} // namespace memlens
