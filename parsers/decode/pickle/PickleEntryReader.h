#pragma once
// torch's trace entries read straight from the tokens. A snapshot is millions of entries, each
// `} MEMOIZE ( key value … SETITEMS` with strings, numbers, memo references and small tuples as
// keys and values, its frames a memo reference or a fresh list of frame references and frame
// dicts. The stack machine would build each as a dict on the arena, push every key and value
// and convert the dict at SETITEMS; this reader first checks that the tokens have exactly that
// form, then makes the same memo slots, strings, frames, stack and event row without the dict
// and the machine's stack. Any other form, or an entry cut by the chunk's end, is left to the
// machine, which makes the same.
#include "decode/pickle/PickleTokenizer.h"
#include "decode/snapshot/SnapshotAssembler.h"

#include <memory>
#include <vector>

namespace memlens {

class PickleEntryReader {
public:
    PickleEntryReader(ObjectArena &arena, SnapshotAssembler &assembler);

    // tokens[first] is a NewDict. If it starts an entry of that form: its value (an Entry, as
    // the memo slot naming the dict now holds) and the index of its SETITEMS token. Throws
    // DecodeError where the machine would (a memo that grows faster than the file).
    bool read(const TokenChunk &chunk, size_t first, Value &entry, size_t &last);
    // How far the last read looked: a failed one is not tried again on the tokens it covered,
    // so that nested dicts cannot make checking quadratic.
    size_t reached() const { return i_; }

    // One SETITEMS batch of CPython's: a dict of 1,000 pairs may have more in the next.
    static constexpr size_t kMaxEntryPairs = 999;

private:
    // Each entry is read twice: checking (Run = false: nothing is made, the memo slots it
    // would write are counted in pending_) and, if the whole entry checked, running.
    template <bool Run> bool entryDict(Value &entry);
    template <bool Run> bool frameList(Value &out);
    template <bool Run> bool frameDict();
    StackId makeStack();
    template <bool Run> bool simple(Value &out, bool frameRefs);
    // An optional MEMOIZE (or PUT of the next slot) after a value: the slot, or -1.
    template <bool Run> int64_t memoized(uint8_t use, const Value &v);
    template <bool Run> void settle(int64_t slot, uint8_t use, const Value &v);
    // Running: keeps a node the row is made from alive until it is made, as the dict would.
    void hold(const Value &v);
    // Checking: whether the token that made a key names `key`; `known` is false when it
    // cannot tell (a reference to a slot the entry made).
    bool keyIs(size_t token, uint32_t key, std::string_view text, bool &known) const;
    bool keysFit(size_t depth, bool freshList) const;

    ObjectArena &arena_;
    SnapshotAssembler &asm_;
    const PickleToken *tokens_ = nullptr;
    const TokenChunk *chunk_ = nullptr;
    size_t count_ = 0;
    size_t i_ = 0;
    size_t memoBase_ = 0;
    // Checking: what a reference to each slot made inside the entry may stand for, and the
    // token each of the entry's values came from (or a mark for a tuple or list).
    std::vector<uint8_t> pending_;
    std::unique_ptr<uint32_t[]> origins_;
    // Running: the entry's values as the machine's stack would hold them above the mark, the
    // frame list's and the current frame dict's items, and the nodes the row is made from.
    std::unique_ptr<Value[]> items_;
    std::vector<Value> listItems_, frameItems_, held_;
    // Running: the frame dicts the list holds, their items in frameItems_; per list item, the
    // fresh frame dict it is (or -1: a value of its own).
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
